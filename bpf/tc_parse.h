/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* RoCEv2 at tc for host mode: the header parser (xl_tc_parse), beside the
 * XDP one (bpf/parse.h).
 *
 * An skb may carry only part of the packet in its linear area, so the
 * parser pulls just the headers (at most XL_TC_HDR_MAX bytes) and, unlike
 * bpf/parse.h (XDP, whole frame linear), does not require the whole IP
 * datagram to be linear. */
#ifndef XL_TC_PARSE_H
#define XL_TC_PARSE_H

#include <bpf/bpf_endian.h>
#include "xdpleaf.h"
#include "roce.h"
#include "telemetry.h"

/* skb->data and data_end as single loads: clang may otherwise compute
 * ctx + offset once and load through it, which the verifier refuses. */
static __always_inline void *xl_skb_data(struct __sk_buff *skb)
{
	void *d;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(d)
		     : "r"(skb), "i"(__builtin_offsetof(struct __sk_buff, data)));
	return d;
}

static __always_inline void *xl_skb_end(struct __sk_buff *skb)
{
	void *d;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(d)
		     : "r"(skb), "i"(__builtin_offsetof(struct __sk_buff, data_end)));
	return d;
}
/* The same for a plain field, e.g. XL_SKB_U32(skb, ifindex). */
#define XL_SKB_U32(skb, field) ({                                             \
	__u32 v_;                                                             \
	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(v_)                      \
		     : "r"(skb), "i"(__builtin_offsetof(struct __sk_buff, field))); \
	v_;                                                                   \
})
#define XL_SKB_DATA(skb) xl_skb_data(skb)
#define XL_SKB_END(skb) xl_skb_end(skb)


/* Ethernet + one tag + IPv4 with options + UDP + BTH + an ACK's AETH */
#define XL_TC_HDR_MAX (18 + 60 + 8 + XL_BTH_LEN + 4)

/* What host mode needs from a RoCEv2 packet. */
struct xl_tc_pkt {
	__u32 l2_len;      /* 14, or 18 with an in-band tag */
	__u32 l3_len;      /* IPv4 IHL * 4, or 40 */
	__u32 family;      /* 4 or 6 */
	__u32 qp;          /* BTH destination QP */
	__u8 ecn;          /* IP ECN field */
	__u8 opcode;       /* BTH opcode */
	__be16 pkey;       /* BTH P_Key, as on the wire */
	__be16 sport;      /* UDP source port, as on the wire */
	__s8 aeth_kind;    /* an ACK's XL_AETH_KIND, or -1 */
	__u8 pad;
	__u32 psn;         /* BTH PSN */
	__u8 saddr[16];    /* IPv4: first 4 bytes */
	__u8 daddr[16];
};

enum {
	XL_TC_NOT_ROCE = 0,
	XL_TC_ROCE = 1,
};

/* Parse skb; XL_TC_ROCE if it is RoCEv2 (UDP destination port 4791 with a
 * whole BTH), else XL_TC_NOT_ROCE. Pulls the headers into the linear area
 * when needed (which invalidates packet pointers the caller held). */
static __always_inline int xl_tc_parse(struct __sk_buff *skb,
				       struct xl_tc_pkt *p)
{
	void *data = XL_SKB_DATA(skb);
	void *end = XL_SKB_END(skb);
	struct ethhdr *eth;
	struct udphdr *udp;
	__u8 *bth, *l3;
	__u16 proto;
	__u32 l2 = sizeof(*eth);

	if (data + XL_TC_HDR_MAX > end && skb->len > (__u32)(end - data)) {
		bpf_skb_pull_data(skb, skb->len < XL_TC_HDR_MAX ? skb->len
							  : XL_TC_HDR_MAX);
		data = XL_SKB_DATA(skb);
		end = XL_SKB_END(skb);
	}
	eth = data;
	if ((void *)(eth + 1) > end)
		return XL_TC_NOT_ROCE;
	proto = bpf_ntohs(eth->h_proto);
	if (proto == XL_ETH_P_8021Q || proto == XL_ETH_P_8021AD) {
		struct vlan_hdr *vh = (void *)(eth + 1);

		if ((void *)(vh + 1) > end)
			return XL_TC_NOT_ROCE;
		proto = bpf_ntohs(vh->h_vlan_encapsulated_proto);
		l2 += sizeof(*vh);
	}
	l3 = data + l2;
	p->l2_len = l2;
	if (proto == XL_ETH_P_IP) {
		struct iphdr *iph = (void *)l3;

		if ((void *)(iph + 1) > end)
			return XL_TC_NOT_ROCE;
		if (iph->version != 4 || iph->ihl < 5 ||
		    iph->protocol != IPPROTO_UDP ||
		    (iph->frag_off & bpf_htons(XL_IP_MF_OFFSET)))
			return XL_TC_NOT_ROCE;
		p->family = 4;
		p->l3_len = iph->ihl * 4;
		p->ecn = iph->tos & XL_ECN_MASK;
		__builtin_memset(p->saddr, 0, 16);
		__builtin_memset(p->daddr, 0, 16);
		__builtin_memcpy(p->saddr, &iph->saddr, 4);
		__builtin_memcpy(p->daddr, &iph->daddr, 4);
	} else if (proto == XL_ETH_P_IPV6) {
		struct ipv6hdr *ip6 = (void *)l3;

		if ((void *)(ip6 + 1) > end)
			return XL_TC_NOT_ROCE;
		if (ip6->version != 6 || ip6->nexthdr != IPPROTO_UDP)
			return XL_TC_NOT_ROCE;
		p->family = 6;
		p->l3_len = sizeof(*ip6);
		p->ecn = (ip6->flow_lbl[0] >> 4) & XL_ECN_MASK;
		__builtin_memcpy(p->saddr, &ip6->saddr, 16);
		__builtin_memcpy(p->daddr, &ip6->daddr, 16);
	} else {
		return XL_TC_NOT_ROCE;
	}
	udp = (void *)(l3 + (p->l3_len & 0x3c));
	bth = (void *)(udp + 1);
	if ((void *)(bth + XL_BTH_LEN) > end)
		return XL_TC_NOT_ROCE;
	if (udp->dest != bpf_htons(XL_ROCEV2_PORT))
		return XL_TC_NOT_ROCE;
	p->sport = udp->source;
	p->opcode = bth[0];
	__builtin_memcpy(&p->pkey, bth + 2, 2);
	p->qp = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7];
	p->psn = (__u32)bth[9] << 16 | (__u32)bth[10] << 8 | bth[11];
	p->aeth_kind = -1;
	if (p->opcode == XL_BTH_ACK && (void *)(bth + XL_BTH_LEN + 1) <= end)
		p->aeth_kind = XL_AETH_KIND(bth[XL_BTH_LEN]);
	return XL_TC_ROCE;
}

#endif
