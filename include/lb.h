/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Uplink choice for a packet of a flow. One function decides, so later load
 * balancing modes slot in here and the unit tests, `xdpleaf sim` and the
 * dataplane all run the same code. Pure C over plain structs. */
#ifndef XL_LB_H
#define XL_LB_H

#include "xdpleaf.h"

/* What identifies a flow for hashing. IPv4 addresses use the first 4 bytes
 * of saddr/daddr, the rest zero, so one hash serves both families. */
struct xl_flow {
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 sport;  /* host order; 0 for fragments and non-TCP/UDP */
	__u16 dport;
	__u8 proto;
	__u8 family;  /* 4 or 6 */
};

/* murmur3's 32-bit finaliser: every input bit affects every output bit,
 * which a plain xor of the fields does not (two flows differing only in
 * source port must land on different members about as often as chance). */
static inline __u32 xl_mix32(__u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static inline __u32 xl_load32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

/* 5-tuple hash; seed lets an operator de-correlate tiers (not yet exposed). */
static inline __u32 xl_flow_hash(const struct xl_flow *f, __u32 seed)
{
	__u32 h = seed ^ f->proto ^ ((__u32)f->family << 8);
	int i;

#ifdef __clang__
#pragma unroll /* the BPF verifier then sees straight-line code */
#endif
	for (i = 0; i < 16; i += 4) {
		h = xl_mix32(h ^ xl_load32(&f->saddr[i]));
		h = xl_mix32(h ^ xl_load32(&f->daddr[i]));
	}
	return xl_mix32(h ^ ((__u32)f->sport << 16 | f->dport));
}

/* Map a hash onto n members without a division: (hash * n) >> 32 spreads
 * the 32-bit range evenly over 0..n-1. Returns -1 when n is 0. */
static inline int xl_pick_by_hash(__u32 hash, __u32 n)
{
	if (n == 0 || n > XL_MAX_GROUP_MEMBERS)
		return -1;
	return (int)(((__u64)hash * n) >> 32);
}

/* The member index for this packet in this group, or -1 if none usable. */
static inline int xl_choose_member(const struct xl_group *g,
				   const struct xl_flow *f)
{
	switch (g->lb_mode) {
	case XL_LB_HASH:
	default:
		return xl_pick_by_hash(xl_flow_hash(f, 0), g->n_members);
	}
}

#endif /* XL_LB_H */
