/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Where a leaf's program runs when the config says `hook = auto` (the
 * default): docs/architecture.md, "Hooks". */
#ifndef XL_LEAF_HOOK_CHOICE_H
#define XL_LEAF_HOOK_CHOICE_H

#include <stddef.h>
#include "config/config.h"

/* The config's hook if it names one; for auto, tc when a port is a veth
 * (XDP there gets skbs the peer already built, converts each to a frame
 * and costs the peer its TSO; tc takes the same skbs as GRO aggregates),
 * else xdp. `why` gets a short reason for the choice (the veth's name),
 * empty when the config chose. */
enum xl_hook xl_leaf_hook_choice(const struct xl_config *cfg, char *why, size_t len);

#endif
