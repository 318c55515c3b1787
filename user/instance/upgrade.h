/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf upgrade`, the same in both modes: each mode opens its
 * skeleton (and sets its load-time knobs), then hands its object here. */
#ifndef XL_UPGRADE_H
#define XL_UPGRADE_H

#include "instance/daemon.h"

struct bpf_object;

/* Before load: every map of obj reuses the instance's pinned one of its
 * name (a map new in this build is left to be created). Refuses, saying
 * which and how, a map whose type or key/value sizes changed. 0 or -1.
 * (reload adopts them too.) */
int xl_upgrade_adopt_maps(struct bpf_object *obj, const char *instance);

/* obj, opened and not loaded: its maps adopted (above), then obj is
 * loaded, each link pinned as link_prefixes[i]... switches to
 * the program pinned as prog_pins[i] (bpf_link_update; on a failure the
 * links go back to the old programs), every program and new map is pinned
 * over or beside the old, and the instance record takes this build's
 * version. Says what it did ("N <kind> links switched"). 0, or -1 after
 * saying why. */
int xl_upgrade(struct bpf_object *obj, const char *instance,
	       const char *const *link_prefixes, const char *const *prog_pins,
	       int n, const char *kind);

/* After upgrading an instance loaded by a build whose daemon lacks what
 * this build's programs need (the mode says what): its running daemon,
 * if any, is replaced by this build's, saying so. 0, or -1 after saying
 * why. */
int xl_upgrade_daemon(const char *instance, xl_daemon_work work);

#endif
