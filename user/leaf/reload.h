/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf reload --config FILE` of a leaf instance: the new file's routes,
 * groups, port rates, classes and settings written into the running maps;
 * the same ports (order, roles) required. */
#ifndef XL_LEAF_RELOAD_H
#define XL_LEAF_RELOAD_H

#include "config/config.h"

/* cfg: loaded and checked whole. 0, or -1 after saying why; the caller
 * has validated the file, so a refusal here changes nothing either. */
int xl_leaf_reload(const struct xl_config *cfg, const char *instance);

#endif
