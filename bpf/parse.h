/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Packet parsing for the leaf: Ethernet, one 802.1Q tag, IPv4 (options),
 * IPv6, UDP/TCP ports, ICMPv6 type and the RoCEv2 BTH. Every access is
 * bounded against data_end; the result says either "parsed, go on" or why
 * the packet must leave the fast path. */
#ifndef XL_PARSE_H
#define XL_PARSE_H

#include "xdpleaf.h"
#include "lb.h"
#include "telemetry.h"


/* RoCEv2 base transport header (IBTA 9.2). */
struct xl_bth {
	__u8 opcode;
	__u8 flags;    /* SE, M, PadCnt, TVer */
	__be16 pkey;
	__be32 qpn;    /* F/B bits + reserved in the top byte, DestQP below */
	__be32 apsn;   /* AckReq + reserved in the top byte, PSN below */
};

struct xl_pkt {
	struct ethhdr *eth;
	void *l3;            /* struct iphdr or struct ipv6hdr */
	__u16 l3_proto;      /* XL_ETH_P_IP or XL_ETH_P_IPV6, host order */
	__u16 vid;           /* the tag's VLAN ID (0: priority-tagged) */
	__u8 has_vlan;
	__u8 ttl;            /* TTL or hop limit as received */
	__u8 dscp;           /* DSCP, 0..63 */
	__u8 ecn;            /* ECN field: XL_ECN_* */
	__u8 icmp6_type;     /* ICMPv6 only */
	__u8 is_roce;        /* RoCEv2: flow.qp is the BTH's destination QP */
	__u8 bth_opcode;     /* RoCEv2 only */
	__s8 aeth_kind;      /* an ACK's XL_AETH_KIND, or -1 */
	__u8 pure_ack;       /* TCP without data, SYN, FIN or RST (lb.h) */
	/* addresses a router never forwards (martian4/6): refused once the
	 * frame is known to be for us (DHCP and DAD from 0.0.0.0 or :: to a
	 * group address are the kernel's, by not_our_mac) */
	__u8 martian;
	/* bytes before the L4 payload (TCP, UDP): what each segment of a GRO
	 * aggregate carries again on the wire; 0 for other protocols */
	__u16 hdr_len;
	__u32 psn;
	struct xl_flow flow;
};

/* L4 within the IP payload of ip_len bytes (headers sit in the first
 * buffer, bounded by end; lengths are the datagram's own): ports never
 * come from Ethernet padding past the IP length. */
static __always_inline int parse_l4(struct xl_pkt *p, void *l4, void *end,
				    __u8 proto, __u32 ip_len)
{
	p->flow.proto = proto;
	if (proto == IPPROTO_UDP) {
		struct udphdr *udp = l4;
		struct xl_bth *bth = (void *)(udp + 1);
		__u32 ulen;

		if ((void *)(udp + 1) > end || ip_len < sizeof(*udp))
			return XL_R_TRUNC_L4;
		ulen = bpf_ntohs(udp->len);
		if (ulen < sizeof(*udp) || ulen > ip_len)
			return XL_R_BAD_L4;
		p->flow.sport = bpf_ntohs(udp->source);
		p->flow.dport = bpf_ntohs(udp->dest);
		p->hdr_len = (__u16)((void *)(udp + 1) - (void *)p->eth);
		if (p->flow.dport != XL_ROCEV2_PORT)
			return XL_R_FORWARDED;
		if ((void *)(bth + 1) > end || ulen < sizeof(*udp) + sizeof(*bth))
			return XL_R_TRUNC_BTH;
		p->is_roce = 1;
		p->bth_opcode = bth->opcode;
		p->flow.qp = bpf_ntohl(bth->qpn) & 0xffffff; /* a RoCE flow is a QP */
		p->psn = bpf_ntohl(bth->apsn) & 0xffffff;
		p->aeth_kind = -1;
		/* an ACK's AETH: its syndrome says ACK, NAK or RNR NAK */
		if (bth->opcode == XL_BTH_ACK && (void *)(bth + 1) + 1 <= end &&
		    ulen >= sizeof(*udp) + sizeof(*bth) + 1)
			p->aeth_kind = XL_AETH_KIND(*(__u8 *)(bth + 1));
	} else if (proto == IPPROTO_TCP) {
		struct tcphdr *tcp = l4;

		if ((void *)(tcp + 1) > end || ip_len < sizeof(*tcp))
			return XL_R_TRUNC_L4;
		if (tcp->doff < 5 || tcp->doff * 4U > ip_len)
			return XL_R_BAD_L4;
		p->flow.sport = bpf_ntohs(tcp->source);
		p->flow.dport = bpf_ntohs(tcp->dest);
		p->hdr_len = (__u16)((void *)tcp - (void *)p->eth + tcp->doff * 4U);
		p->pure_ack = tcp->doff * 4U == ip_len &&
			      !(tcp->syn || tcp->fin || tcp->rst);
	} else if (proto == XL_IPPROTO_ICMPV6) {
		__u8 *type = l4;

		if ((void *)(type + 4) > end || ip_len < 4)
			return XL_R_TRUNC_L4;
		p->icmp6_type = *type;
	}
	return XL_R_FORWARDED;
}

/* Addresses a router never forwards (RFC 1812 5.3.7): a source in
 * 0.0.0.0/8, 127/8 or 224/3 (multicast, reserved, broadcast), a
 * destination in 0/8 or 127/8. (A multicast or broadcast destination
 * comes with a group MAC, not_our_mac's; with ours it has no route.) */
static __always_inline int martian4(const __u8 *s, const __u8 *d)
{
	return s[0] == 0 || s[0] == 127 || s[0] >= 224 || d[0] == 0 || d[0] == 127;
}

/* IPv6: the unspecified and loopback addresses either way, a multicast
 * source (RFC 4291 2.7; multicast destinations are link_local's). */
static __always_inline int martian6(const __u8 *s, const __u8 *d)
{
	__u64 s_hi, s_lo, d_hi, d_lo;

	__builtin_memcpy(&s_hi, s, 8);
	__builtin_memcpy(&s_lo, s + 8, 8);
	__builtin_memcpy(&d_hi, d, 8);
	__builtin_memcpy(&d_lo, d + 8, 8);
	/* ::/127 (:: and ::1): the first 15 bytes zero, the last <= 1 */
	if (!s_hi && (s_lo & ~bpf_cpu_to_be64(1)) == 0)
		return 1;
	if (!d_hi && (d_lo & ~bpf_cpu_to_be64(1)) == 0)
		return 1;
	return s[0] == 0xff;
}

/* l3_off: the IP header's offset in the frame of frame_len bytes (all
 * buffers): lengths are checked against the whole frame, headers against
 * the first buffer (end). */
static __always_inline int parse_ipv4(struct xl_pkt *p, void *end, __u32 l3_off,
				      __u64 frame_len)
{
	struct iphdr *iph = p->l3;
	__u32 hlen, tot;
	void *l4;

	if ((void *)(iph + 1) > end)
		return XL_R_TRUNC_IP4;
	if (iph->version != 4 || iph->ihl < 5)
		return XL_R_BAD_IP4;
	hlen = iph->ihl * 4;
	l4 = (void *)iph + hlen;
	if (l4 > end)
		return XL_R_TRUNC_IP4;
	/* Ethernet may pad a short frame, so the frame can be longer than
	 * tot_len, never shorter. */
	tot = bpf_ntohs(iph->tot_len);
	if (tot < hlen || l3_off + tot > frame_len)
		return XL_R_BAD_IP4;
	p->ttl = iph->ttl;
	p->dscp = iph->tos >> 2;
	p->ecn = iph->tos & XL_ECN_MASK;
	p->flow.family = 4;
	__builtin_memcpy(p->flow.saddr, &iph->saddr, 4);
	__builtin_memcpy(p->flow.daddr, &iph->daddr, 4);
	p->martian = martian4(p->flow.saddr, p->flow.daddr);
	/* Options (source routes among them) are the kernel's to honour
	 * or refuse (accept_source_route): not the fast path's. */
	if (hlen > sizeof(*iph))
		return XL_R_IP_OPTIONS;
	/* Fragments hash on addresses only, so every fragment of a datagram
	 * takes the same uplink as its first. */
	if (iph->frag_off & bpf_htons(XL_IP_MF_OFFSET)) {
		p->flow.proto = iph->protocol;
		return XL_R_FORWARDED;
	}
	return parse_l4(p, l4, end, iph->protocol, tot - hlen);
}

static __always_inline int parse_ipv6(struct xl_pkt *p, void *end, __u32 l3_off,
				      __u64 frame_len)
{
	struct ipv6hdr *ip6 = p->l3;
	__u32 plen;

	if ((void *)(ip6 + 1) > end)
		return XL_R_TRUNC_IP6;
	plen = bpf_ntohs(ip6->payload_len);
	if (ip6->version != 6 || l3_off + sizeof(*ip6) + plen > frame_len)
		return XL_R_BAD_IP6;
	p->ttl = ip6->hop_limit;
	/* Traffic class straddles the first two bytes: priority holds its
	 * top four bits, the top nibble of flow_lbl[0] the bottom four. */
	p->dscp = (ip6->priority << 2) | (ip6->flow_lbl[0] >> 6);
	p->ecn = (ip6->flow_lbl[0] >> 4) & XL_ECN_MASK;
	p->flow.family = 6;
	__builtin_memcpy(p->flow.saddr, &ip6->saddr, 16);
	__builtin_memcpy(p->flow.daddr, &ip6->daddr, 16);
	p->martian = martian6(p->flow.saddr, p->flow.daddr);
	/* Extension headers are not walked: such packets hash on addresses
	 * and next header only, which keeps them on one path. */
	if (ip6->nexthdr != IPPROTO_UDP && ip6->nexthdr != IPPROTO_TCP &&
	    ip6->nexthdr != XL_IPPROTO_ICMPV6) {
		p->flow.proto = ip6->nexthdr;
		return XL_R_FORWARDED;
	}
	return parse_l4(p, ip6 + 1, end, ip6->nexthdr, plen);
}

/* Fill p from the frame, whose first buffer is data..end and whose whole
 * length (all buffers: a jumbo frame may come in several) is frame_len.
 * Returns XL_R_FORWARDED when the packet is IP and may be forwarded, else
 * the reason it may not. */
static __always_inline int xl_parse(struct xl_pkt *p, void *data, void *end,
				    __u64 frame_len)
{
	struct ethhdr *eth = data;
	__u16 proto;
	void *l3;

	if ((void *)(eth + 1) > end)
		return XL_R_TRUNC_ETH;
	p->eth = eth;
	/* a group address is never a station's source */
	if (eth->h_source[0] & 1)
		return XL_R_BAD_SRC_MAC;
	proto = bpf_ntohs(eth->h_proto);
	l3 = eth + 1;
	if (proto == XL_ETH_P_8021Q || proto == XL_ETH_P_8021AD) {
		struct vlan_hdr *vh = l3;

		if ((void *)(vh + 1) > end)
			return XL_R_TRUNC_VLAN;
		proto = bpf_ntohs(vh->h_vlan_encapsulated_proto);
		if (proto == XL_ETH_P_8021Q || proto == XL_ETH_P_8021AD)
			return XL_R_VLAN_STACK;
		p->vid = bpf_ntohs(vh->h_vlan_TCI) & 0xfff;
		if (p->vid == 0xfff) /* reserved (802.1Q) */
			return XL_R_BAD_VLAN;
		p->has_vlan = 1;
		l3 = vh + 1;
	}
	p->l3 = l3;
	p->l3_proto = proto;
	if (proto == XL_ETH_P_IP)
		return parse_ipv4(p, end, (__u32)(l3 - data), frame_len);
	if (proto == XL_ETH_P_IPV6)
		return parse_ipv6(p, end, (__u32)(l3 - data), frame_len);
	if (proto == XL_ETH_P_ARP)
		return XL_R_ARP;
	if (proto == XL_ETH_P_LLDP)
		return XL_R_LLDP;
	if (proto == XL_ETH_P_MAC_CTRL)
		return XL_R_MAC_CONTROL;
	return XL_R_NON_IP;
}

#endif /* XL_PARSE_H */
