/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf upgrade`'s steps, the same in both modes (the modes' loaders
 * call them with their skeleton): adopt the pinned maps before load,
 * switch the links and re-pin after. */
#ifndef XL_UPGRADE_H
#define XL_UPGRADE_H

struct bpf_object;

/* Before load: every map of obj reuses the instance's pinned one of its
 * name (a map new in this build is left to be created). Refuses, saying
 * which and how, a map whose type or key/value sizes changed. 0 or -1. */
int xl_upgrade_adopt_maps(struct bpf_object *obj, const char *instance);
/* After load: each link pinned as link_prefixes[i]... switches to the
 * program pinned as prog_pins[i] in this build (bpf_link_update); on a
 * failure the links go back to the old programs. Then every program and
 * every new map of obj is pinned over or beside the old. n_links: links
 * switched. 0 or -1. */
int xl_upgrade_switch(struct bpf_object *obj, const char *instance,
		      const char *const *link_prefixes, const char *const *prog_pins,
		      int n, int *n_links);
/* The instance record's version and commit become this build's. */
int xl_upgrade_record(const char *instance);

#endif
