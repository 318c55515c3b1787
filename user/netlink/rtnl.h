/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Small rtnetlink queries for the traffic tools, in the caller's network
 * namespace: a route lookup, a neighbour's MAC (resolving it if needed),
 * a link's MAC, MTU, queues and counters. */
#ifndef XL_RTNL_H
#define XL_RTNL_H

#include <stdbool.h>
#include <linux/types.h>

struct xl_route_info {
	__u32 oif;          /* egress ifindex */
	bool has_gw;
	__u8 gw[16];        /* next hop, same family as the destination */
	bool has_prefsrc;
	__u8 prefsrc[16];
};

struct xl_link_info {
	__u32 ifindex;
	__u32 flags;        /* IFF_* */
	__u32 mtu;
	__u32 rx_queues;    /* allocated (IFLA_NUM_RX_QUEUES), not in use */
	__u8 mac[6];
	bool has_mac;
	__u64 tx_packets, tx_bytes, tx_dropped, tx_errors;
	__u64 rx_packets, rx_bytes, rx_dropped;
};

/* The kernel's route to dst (AF_INET: 4 bytes, AF_INET6: 16), as
 * `ip route get DST [oif IF]`. Returns 0, or -1 with errno (ENETUNREACH
 * and the like from the kernel). */
int xl_route_get(int family, const __u8 *dst, __u32 oif,
		 struct xl_route_info *out);

/* The MAC of neighbour addr on ifindex from the kernel's table. If it has
 * none usable, ask the kernel to resolve it (NTF_USE, no traffic of ours)
 * and wait up to timeout_ms. Returns 0, 1 if still unresolved, -1 with
 * errno on a netlink error. */
int xl_neigh_resolve(__u32 ifindex, int family, const __u8 *addr,
		     __u8 mac[6], int timeout_ms);

/* Attributes and counters of a link. Returns 0, or -1 with errno (ENODEV). */
int xl_link_get(__u32 ifindex, struct xl_link_info *out);

#endif
