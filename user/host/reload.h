/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf reload --config FILE` of a host instance (host/reload.c). */
#ifndef XL_HOST_RELOAD_H
#define XL_HOST_RELOAD_H

#include "config/config.h"

/* cfg: loaded and checked whole. 0, or -1 after saying why. */
int xl_host_reload(const struct xl_config *cfg, const char *instance);

#endif
