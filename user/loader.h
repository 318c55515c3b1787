/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Bring an instance up (validate, load, fill maps, attach, pin) and down. */
#ifndef XL_LOADER_H
#define XL_LOADER_H

#include <stdbool.h>
#include "config.h"

/* All or nothing: on any failure everything done so far is undone and -1
 * returned after printing the reason. */
int xl_load(const struct xl_config *cfg, const char *instance,
	    bool start_watcher);
/* Idempotent: 0 when the instance is gone afterwards. */
int xl_unload(const char *instance);
/* Fork the neighbour watcher into the background and record its pid. */
int xl_start_watcher(const char *instance);

#endif
