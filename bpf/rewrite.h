/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What a router does to a packet it forwards: one less TTL/hop limit and a
 * new Ethernet source and destination. */
#ifndef XL_REWRITE_H
#define XL_REWRITE_H

#include "csum.h"
#include "parse.h"

/* Caller has checked ttl > 1. The IPv4 checksum is updated incrementally
 * over the 16-bit word whose high byte (network order) is the TTL; the
 * protocol byte beside it does not change, so it can be left as zero. */
static __always_inline void xl_decrement_ttl(void *l3, __u16 l3_proto)
{
	if (l3_proto == XL_ETH_P_IP) {
		struct iphdr *iph = l3;
		__u8 ttl = iph->ttl;

		iph->ttl = ttl - 1;
		iph->check = xl_csum_replace16(iph->check,
					       bpf_htons((__u16)ttl << 8),
					       bpf_htons((__u16)(ttl - 1) << 8));
	} else {
		struct ipv6hdr *ip6 = l3;

		ip6->hop_limit--;
	}
}

/* Congestion Experienced (RFC 3168). Only called for ECT packets; the IPv4
 * checksum is updated over the word whose low byte is the TOS. */
static __always_inline void xl_set_ce(void *l3, __u16 l3_proto)
{
	if (l3_proto == XL_ETH_P_IP) {
		struct iphdr *iph = l3;
		__u8 tos = iph->tos;

		iph->tos = tos | XL_ECN_CE;
		iph->check = xl_csum_replace16(iph->check, bpf_htons(tos),
					       bpf_htons(tos | XL_ECN_CE));
	} else {
		struct ipv6hdr *ip6 = l3;

		ip6->flow_lbl[0] |= XL_ECN_CE << 4;
	}
}

static __always_inline void xl_rewrite_l2(struct ethhdr *eth, const __u8 *src,
					  const __u8 *dst)
{
	__builtin_memcpy(eth->h_source, src, XL_ETH_ALEN);
	__builtin_memcpy(eth->h_dest, dst, XL_ETH_ALEN);
}

#endif /* XL_REWRITE_H */
