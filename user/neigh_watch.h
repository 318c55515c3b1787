/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Mirrors the kernel's neighbour table into the dataplane's `neigh` map for
 * the instance's ports, over rtnetlink. */
#ifndef XL_NEIGH_WATCH_H
#define XL_NEIGH_WATCH_H

/* Dump the current neighbours into the map once and ask the kernel to
 * resolve configured uplink next hops it does not know yet. */
int xl_neigh_sync(int neigh_fd, int ports_fd);
/* Follow neighbour changes until the instance's pins disappear (unload).
 * Returns 0 then, or -1 on a netlink error. */
int xl_neigh_watch(const char *instance);

#endif
