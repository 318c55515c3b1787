/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Keeps the dataplane in step with the kernel over rtnetlink: mirrors the
 * neighbour table into the `neigh` map for the instance's ports, and the
 * uplinks' link state into `group_down`. */
#ifndef XL_NETLINK_WATCH_H
#define XL_NETLINK_WATCH_H

/* Dump the current neighbours into the map once and ask the kernel to
 * resolve configured uplink next hops it does not know yet; a new
 * generation into fwd_gen (gen_fd) after each change (leaf/fwd_gen.h). */
int xl_neigh_sync(int neigh_fd, int ports_fd, int gen_fd);
/* Mark every uplink that is not usable (link not running, or no next hop
 * resolved) as down in group_down, from the current state. */
int xl_link_sync(int neigh_fd, int ports_fd, int groups_fd, int down_fd);
/* The leaf daemon's work (instance/daemon.h): follow neighbour and link
 * changes until the instance's pins disappear
 * (unload). Returns 0 then, or -1 on a netlink error. */
int xl_watch(const char *instance);

#endif
