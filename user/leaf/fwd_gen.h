/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The generation of the leaf's ports, routes and neighbours, by which the
 * dataplane's per-CPU forwarding caches know an entry is stale
 * (bpf/fwd_cache.h). */
#ifndef XL_LEAF_FWD_GEN_H
#define XL_LEAF_FWD_GEN_H

/* Write a new generation into the `fwd_gen` map gen_fd: after every change
 * to ports, routes or neighbours, never before it. Each call writes a
 * value no call wrote before (the monotonic clock), so that two writers
 * cannot both write the same one. gen_fd < 0 (an instance of a build
 * without caches): nothing to do. 0, or -1 with errno. */
int xl_fwd_changed(int gen_fd);

#endif
