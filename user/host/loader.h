/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Bring a host-mode instance up: DCQCN's NP and RP as tc programs on every
 * host port (docs/dcqcn.md). */
#ifndef XL_HOST_LOADER_H
#define XL_HOST_LOADER_H

#include "config/config.h"

/* All or nothing, as xl_leaf_load. */
int xl_host_load(const struct xl_config *cfg, const char *instance);
/* The configuration's part of the maps: host_cfg (DCQCN, C from the first
 * port's rate), event_cfg, and the ports' addresses now (host_addrs).
 * Load and reload. 0, or -1 after printing why. */
struct host;
int xl_host_fill_maps(struct host *skel, const struct xl_config *cfg);

#endif
