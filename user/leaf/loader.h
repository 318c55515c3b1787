/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Bring a leaf-mode instance up: validate, load, fill maps, attach (XDP
 * or tc ingress: config `hook`), pin (main.c then starts the instance's
 * daemon). */
#ifndef XL_LEAF_LOADER_H
#define XL_LEAF_LOADER_H

#include "config/config.h"

/* All or nothing: on any failure everything done so far is undone and -1
 * returned after printing the reason. */
int xl_leaf_load(const struct xl_config *cfg, const char *instance);

/* The configuration's part of the maps: settings, ports (their MACs read
 * from the interfaces), groups, classes and routes; not the neighbours or
 * link state, which come from the kernel. The loader's own translation,
 * exported so the BPF tests set their maps up through it. 0, or -1 after
 * printing why. */
struct leaf;
int xl_leaf_fill_maps(struct leaf *skel, const struct xl_config *cfg);

#endif
