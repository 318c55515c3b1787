/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The forwarding decision, cached per CPU so that a packet to a known
 * destination takes no hash or LPM lookup: the ports (by ifindex) with
 * their uplink next hops' MACs, and the route of each destination address
 * with, for an on-link route, the destination's MAC. Both are direct-mapped
 * arrays (their lookups are inlined: no helper call, no lock, nothing
 * shared written), checked against the key they hold.
 *
 * Every entry is stamped with the generation (fwd_gen) it was filled
 * under. User space writes a new generation after each change to ports,
 * routes or neighbours (include/fwd_gen.h), so the next packet finds every
 * entry stale and fills it again from the maps. The generation is read
 * before the maps: an entry filled from maps older than a change carries a
 * generation older than the change's. */
#ifndef XL_FWD_CACHE_H
#define XL_FWD_CACHE_H

#include "maps.h"

#define AF_INET_ 2
#define AF_INET6_ 10

/* The generation now: never 0, which no entry filled has. */
static __always_inline __u64 xl_fwd_gen(void)
{
	__u32 zero = 0;
	__u64 *g = bpf_map_lookup_elem(&fwd_gen, &zero);

	return g ? *g | 1ULL << 63 : 1ULL << 63;
}

static __always_inline __u32 port_cache_slot(__u32 ifindex)
{
	return ifindex & (XL_PORT_CACHE - 1);
}

/* The MAC of next hop addr (family 4 or 6, addr of 4 or 16 bytes) on
 * ifindex into mac; 1 if known, else 0. */
static __always_inline int neigh_mac(__u32 ifindex, int family, const __u8 *addr, __u8 *mac)
{
	struct xl_neigh_key k = { .ifindex = ifindex,
				  .family = family == 4 ? AF_INET_ : AF_INET6_ };
	struct xl_neigh *n;

	if (family == 4)
		__builtin_memcpy(k.addr, addr, 4);
	else
		__builtin_memcpy(k.addr, addr, 16);
	n = bpf_map_lookup_elem(&neigh, &k);
	if (!n)
		return 0;
	__builtin_memcpy(mac, n->mac, XL_ETH_ALEN);
	return 1;
}

/* Fill the port cache's entry for ifindex from `ports` and `neigh`.
 * Global: verified once, kept off the callers' stacks. 0, or -1 if the
 * ifindex is no configured port. */
__noinline int xl_port_cache_fill(__u32 ifindex, __u64 gen)
{
	__u32 slot = port_cache_slot(ifindex);
	struct xl_port_cached *c = bpf_map_lookup_elem(&port_cache, &slot);
	struct xl_port *p = bpf_map_lookup_elem(&ports, &ifindex);

	if (!c)
		return -1;
	if (!p) {
		c->gen = 0;
		return -1;
	}
	c->port = *p;
	c->nh_ok[0] = p->has_nexthop4 && neigh_mac(ifindex, 4, p->nexthop4, c->nh_mac[0]);
	c->nh_ok[1] = p->has_nexthop6 && neigh_mac(ifindex, 6, p->nexthop6, c->nh_mac[1]);
	c->gen = gen;
	return 0;
}

/* The configured port `ifindex` and its next hops' MACs, or NULL. The
 * entry is this CPU's and stays valid until the next port_cached() call
 * for an ifindex of the same slot. */
static __always_inline struct xl_port_cached *port_cached(__u32 ifindex, __u64 gen)
{
	__u32 slot = port_cache_slot(ifindex);
	struct xl_port_cached *c = bpf_map_lookup_elem(&port_cache, &slot);

	if (!c)
		return NULL;
	if (c->gen == gen && c->port.ifindex == ifindex)
		return c;
	if (xl_port_cache_fill(ifindex, gen))
		return NULL;
	return c;
}

static __always_inline __u32 route_cache_slot(const struct xl_flow *f)
{
	__u32 h = f->family == 4 ? *(const __u32 *)f->daddr :
		  *(const __u32 *)f->daddr ^ *(const __u32 *)(f->daddr + 4) ^
		  *(const __u32 *)(f->daddr + 8) ^ *(const __u32 *)(f->daddr + 12);

	/* Fibonacci hashing: the product's top bits */
	return (h * 0x9e3779b1U) >> 20 & (XL_ROUTE_CACHE - 1);
}

static __always_inline int same_dst(const struct xl_route_cached *c, const struct xl_flow *f)
{
	/* 4-byte words: the flow may sit on the stack at a 4-byte offset */
	const __u32 *a = (const __u32 *)c->daddr, *b = (const __u32 *)f->daddr;

	return c->family == f->family && a[0] == b[0] && a[1] == b[1] && a[2] == b[2] &&
	       a[3] == b[3];
}

/* Fill the route cache's entry for the flow's destination: its longest
 * prefix route, and for an on-link route the destination's MAC. Global,
 * as xl_port_cache_fill. 0, or -1 without a route. */
__noinline int xl_route_cache_fill(const struct xl_flow *f, __u64 gen)
{
	struct xl_route_cached *c;
	struct xl_route *rt;
	__u32 slot;

	if (!f)
		return -1;
	slot = route_cache_slot(f);
	c = bpf_map_lookup_elem(&route_cache, &slot);
	if (!c)
		return -1;
	if (f->family == 4) {
		struct xl_lpm4_key k = { .prefixlen = 32 };

		__builtin_memcpy(k.addr, f->daddr, 4);
		rt = bpf_map_lookup_elem(&routes4, &k);
	} else {
		struct xl_lpm6_key k = { .prefixlen = 128 };

		__builtin_memcpy(k.addr, f->daddr, 16);
		rt = bpf_map_lookup_elem(&routes6, &k);
	}
	if (!rt) {
		c->gen = 0;
		return -1;
	}
	c->kind = (__u8)rt->kind;
	c->target = rt->target;
	c->family = f->family;
	__builtin_memcpy(c->daddr, f->daddr, 16);
	c->nh_ok = rt->kind == XL_ROUTE_PORT &&
		   neigh_mac(rt->target, f->family, f->daddr, c->nh_mac);
	c->gen = gen;
	return 0;
}

/* The route of the flow's destination (with its MAC if on-link), or NULL
 * without one; valid as port_cached()'s. */
static __always_inline struct xl_route_cached *route_cached(const struct xl_flow *f, __u64 gen)
{
	__u32 slot = route_cache_slot(f);
	struct xl_route_cached *c = bpf_map_lookup_elem(&route_cache, &slot);

	if (!c)
		return NULL;
	if (c->gen == gen && same_dst(c, f))
		return c;
	if (xl_route_cache_fill(f, gen))
		return NULL;
	return c;
}

#endif /* XL_FWD_CACHE_H */
