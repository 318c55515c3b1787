/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* xdpleaf's one rtnetlink client (libmnl), in the caller's network
 * namespace: the sockets, the requests, and the one parser of neighbour
 * and link messages. Its users: the traffic tools' queries (a route, a
 * neighbour's MAC, a link's attributes: below), the leaf's daemon and
 * loader (leaf/netlink_watch.c: the neighbour table and uplink state),
 * the host's address watcher (host/addr_watch.c), and the BPF tests'
 * fixture, which sets up the kernel's tables through it
 * (tests/bpf/fixture.h). */
#ifndef XL_RTNL_H
#define XL_RTNL_H

#include <stdbool.h>
#include <linux/types.h>

/* ---- one-shot queries -------------------------------------------------- */

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

struct nlmsghdr;
/* Send one request the caller built (libmnl's mnl_nlmsg_put_header and
 * mnl_attr_put) on a socket of its own and wait for the kernel's
 * acknowledgement; sets NLM_F_REQUEST and NLM_F_ACK. The way every
 * acknowledged request goes (xl_neigh_resolve's solicitation among them).
 * 0, or -1 with the kernel's errno. */
int xl_rtnl_call(struct nlmsghdr *nlh);

/* ---- sockets that stay open (the daemons) ------------------------------ */

/* One NETLINK_ROUTE socket. */
struct xl_rtnl;

/* What a socket is told of as it happens (multicast groups). */
enum xl_rtnl_groups {
	XL_RTNL_LINK = 1 << 0,   /* links: new, changed, gone */
	XL_RTNL_NEIGH = 1 << 1,  /* neighbours */
	XL_RTNL_ADDR = 1 << 2,   /* IPv4 and IPv6 addresses */
};

/* A socket subscribed to groups (XL_RTNL_*; 0: requests only). NULL with
 * errno. */
struct xl_rtnl *xl_rtnl_open(unsigned int groups);
void xl_rtnl_close(struct xl_rtnl *nl);
/* Its descriptor, to poll. */
int xl_rtnl_fd(const struct xl_rtnl *nl);

/* A neighbour message (RTM_NEWNEIGH or RTM_DELNEIGH), parsed: pointers
 * into the message, valid during the callback only. */
struct xl_rtnl_neigh {
	bool deleted;         /* RTM_DELNEIGH */
	int family;           /* AF_INET, AF_INET6, ... as the kernel wrote it */
	__u32 ifindex;
	__u16 state;          /* NUD_* */
	const __u8 *dst;      /* NDA_DST, or NULL */
	int dst_len;
	const __u8 *lladdr;   /* NDA_LLADDR, or NULL */
	int lladdr_len;
};

/* Whether the kernel holds a usable MAC for it: a state with a link-layer
 * address (reachable, stale, delay, probe, permanent, noarp) and an
 * Ethernet one. */
bool xl_rtnl_neigh_usable(const struct xl_rtnl_neigh *n);

/* A link message (RTM_NEWLINK or RTM_DELLINK), parsed. */
struct xl_rtnl_link {
	bool deleted;         /* RTM_DELLINK */
	__u32 ifindex;
	__u32 flags;          /* IFF_* */
};

/* What to do with each message read; either may be NULL. */
struct xl_rtnl_handlers {
	void (*neigh)(const struct xl_rtnl_neigh *n, void *data);
	void (*link)(const struct xl_rtnl_link *l, void *data);
};

/* The kernel's neighbour table of family (AF_UNSPEC: all), each entry to
 * fn. 0, or -1 with errno. */
int xl_rtnl_neigh_dump(struct xl_rtnl *nl, int family,
		       void (*fn)(const struct xl_rtnl_neigh *n, void *data),
		       void *data);

/* What a request does to the kernel's entry for an address. */
enum xl_rtnl_neigh_op {
	/* start resolution (ARP/ND) as if a packet were waiting for it
	 * (NTF_USE), without us sending any traffic */
	XL_RTNL_NEIGH_SOLICIT,
	/* put it to PROBE: the kernel checks it with unicast probes */
	XL_RTNL_NEIGH_PROBE,
	/* delete it */
	XL_RTNL_NEIGH_FORGET,
};
/* Send one such request (addr: 4 bytes for AF_INET, 16 for AF_INET6)
 * and do not wait for an answer. */
void xl_rtnl_neigh_request(struct xl_rtnl *nl, enum xl_rtnl_neigh_op op,
			   __u32 ifindex, int family, const void *addr);

/* Read what the socket has (one receive; blocks if nothing is there) and
 * hand each neighbour and link message to h (NULL: read only). 0, or -1
 * with errno: ENOBUFS when messages were lost (read the state again). */
int xl_rtnl_read(struct xl_rtnl *nl, const struct xl_rtnl_handlers *h, void *data);

#endif
