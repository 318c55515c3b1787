/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The builder that turns a copy of a CE-marked RoCEv2 data packet into its
 * CNP at tc (xl_cnp_build), as docs/dcqcn-spec.md and IBTA Annex A17.9.3
 * specify; the packet was parsed by bpf/tc_parse.h.
 *
 * The CNP, from the data packet D:
 *   Ethernet  destination = D's source, source = D's destination (back to
 *             the hop D came from); an in-band 802.1Q tag is kept (an
 *             offloaded tag stays in the skb's metadata and is kept too)
 *   IPv4      addresses swapped, DSCP cnp_dscp, Not-ECT, DF, TTL 64, no
 *             options (D's are removed), total length 60, random id, fresh
 *             header checksum
 *   IPv6      addresses swapped, traffic class cnp_dscp << 2 (Not-ECT), flow
 *             label 0, hop limit 64, payload length 40
 *   UDP       source port = D's source port, destination 4791, length 40,
 *             checksum 0 (IPv4) or computed (IPv6, where 0 is not allowed).
 *             Why D's source port: a RoCEv2 sender derives it from its QP
 *             for ECMP entropy, and a real NIC's CNP carries a port derived
 *             from the QP too; reusing it keeps the CNPs of different QPs on
 *             different fabric paths (one fixed port would put every CNP of
 *             a host pair on one path) without any QP context here.
 *   BTH       opcode 0x81, SE/M/PadCnt/TVer 0, D's P_Key, byte 4 = 0x40
 *             (BECN), DestQP = D's destination QP (include/host.h says why),
 *             byte 8 = 0, PSN 0
 *   16 reserved zero bytes, then the ICRC (include/icrc.h) over the result.
 */
#ifndef XL_CNP_H
#define XL_CNP_H

#include <bpf/bpf_endian.h>
#include "xdpleaf.h"
#include "roce.h"
#include "csum.h"
#include "tc_parse.h"

#ifndef XL_ICRC_MAX_LEN
#define XL_ICRC_MAX_LEN 128U /* a CNP's IP packet is at most 80 bytes */
#endif
#include "icrc.h"

/* UDP header, BTH, 16 reserved bytes, ICRC */
#define XL_CNP_L4_LEN (8 + XL_BTH_LEN + 16 + XL_ICRC_LEN)

/* UDP header, BTH and reserved bytes of the CNP at u (ICRC not included). */
static __always_inline void xl_cnp_l4(__u8 *u, const struct xl_tc_pkt *p)
{
	__builtin_memcpy(u, &p->sport, 2);
	u[2] = XL_ROCEV2_PORT >> 8;
	u[3] = XL_ROCEV2_PORT & 0xff;
	u[4] = 0;
	u[5] = XL_CNP_L4_LEN;
	u[6] = 0;                      /* checksum: 0, or set by the caller */
	u[7] = 0;
	u[8] = XL_BTH_CNP;             /* opcode */
	u[9] = 0;                      /* SE, M, PadCnt, TVer */
	__builtin_memcpy(u + 10, &p->pkey, 2);
	u[12] = 0x40;                  /* FECN 0, BECN 1, reserved 0 */
	u[13] = (p->qp >> 16) & 0xff;  /* DestQP */
	u[14] = (p->qp >> 8) & 0xff;
	u[15] = p->qp & 0xff;
	u[16] = 0;                     /* AckReq, reserved */
	u[17] = 0;                     /* PSN 0 */
	u[18] = 0;
	u[19] = 0;
	__builtin_memset(u + 20, 0, 16); /* reserved */
}

/* The CNP's IP packet, IPv4: 20 + 40 bytes, ICRC included. */
struct xl_cnp4 {
	__u8 b[20 + XL_CNP_L4_LEN];
};

struct xl_cnp6 {
	__u8 b[40 + XL_CNP_L4_LEN];
};

static __always_inline void xl_cnp_fill4(struct xl_cnp4 *c,
					 const struct xl_tc_pkt *p, __u32 dscp,
					 __u16 id)
{
	__u8 *b = c->b;
	__u16 sum;

	b[0] = 0x45;
	b[1] = (__u8)(dscp << 2);      /* ECN Not-ECT */
	b[2] = 0;
	b[3] = 20 + XL_CNP_L4_LEN;
	b[4] = id >> 8;
	b[5] = id & 0xff;
	b[6] = 0x40;                   /* DF */
	b[7] = 0;
	b[8] = 64;                     /* TTL */
	b[9] = IPPROTO_UDP;
	b[10] = 0;
	b[11] = 0;
	__builtin_memcpy(b + 12, p->daddr, 4); /* swapped */
	__builtin_memcpy(b + 16, p->saddr, 4);
	sum = xl_csum_full(b, 20);
	__builtin_memcpy(b + 10, &sum, 2);
	xl_cnp_l4(b + 20, p);
	xl_icrc_put(b + 20 + XL_CNP_L4_LEN - XL_ICRC_LEN,
		    xl_icrc(b, 20 + XL_CNP_L4_LEN - XL_ICRC_LEN, 20, 0));
}

static __always_inline void xl_cnp_fill6(struct xl_cnp6 *c,
					 const struct xl_tc_pkt *p, __u32 dscp)
{
	__u8 *b = c->b;
	__u32 sum = 0;
	__u16 w;
	int i;

	b[0] = 0x60 | (__u8)((dscp >> 2) & 0x0f); /* traffic class high */
	b[1] = (__u8)((dscp & 0x3) << 6);         /* TC low (ECN 0), FL 0 */
	b[2] = 0;
	b[3] = 0;
	b[4] = 0;
	b[5] = XL_CNP_L4_LEN;          /* payload length */
	b[6] = IPPROTO_UDP;
	b[7] = 64;                     /* hop limit */
	__builtin_memcpy(b + 8, p->daddr, 16); /* swapped */
	__builtin_memcpy(b + 24, p->saddr, 16);
	xl_cnp_l4(b + 40, p);
	/* UDP checksum: pseudo-header (addresses, length, next header) and
	 * the UDP datagram with the ICRC, which is computed first: the ICRC
	 * covers the UDP checksum as ones, so its value does not depend on
	 * it, and the checksum does depend on the ICRC. */
	xl_icrc_put(b + 40 + XL_CNP_L4_LEN - XL_ICRC_LEN,
		    xl_icrc(b, 40 + XL_CNP_L4_LEN - XL_ICRC_LEN, 40, 1));
	for (i = 8; i < 40 + XL_CNP_L4_LEN; i += 2) {
		__builtin_memcpy(&w, b + i, 2);
		sum += w;
	}
	sum += bpf_htons(XL_CNP_L4_LEN);
	sum += bpf_htons(IPPROTO_UDP);
	w = (__u16)~xl_csum_fold(sum);
	if (!w)
		w = 0xffff;
	__builtin_memcpy(b + 46, &w, 2);
}

enum {
	XL_CNP_OK = 0,
	XL_CNP_NOT_ROCE,    /* the marked copy is no RoCEv2 packet */
	XL_CNP_RESIZE,      /* removing IPv4 options or resizing failed */
	XL_CNP_STORE,       /* writing the CNP failed */
};

/* Turn skb, a copy of RoCEv2 data packet, into its CNP in place. */
static __always_inline int xl_cnp_build(struct __sk_buff *skb, __u32 dscp)
{
	struct xl_tc_pkt p;
	__u8 mac[12];
	__u32 l2, len;
	void *data, *end;

	if (xl_tc_parse(skb, &p) != XL_TC_ROCE)
		return XL_CNP_NOT_ROCE;
	data = XL_SKB_DATA(skb);
	end = XL_SKB_END(skb);
	if (data + 12 > end)
		return XL_CNP_NOT_ROCE;
	__builtin_memcpy(mac, data + 6, 6);     /* new destination */
	__builtin_memcpy(mac + 6, data, 6);     /* new source */
	l2 = p.l2_len == 18 ? 18 : 14;
	dscp &= 0x3f;
	/* IPv4 options: removed (after the 20-byte base header) */
	if (p.family == 4 && p.l3_len > 20 &&
	    bpf_skb_adjust_room(skb, -(__s32)(p.l3_len - 20), BPF_ADJ_ROOM_NET, 0))
		return XL_CNP_RESIZE;
	len = l2 + (p.family == 4 ? 20 : 40) + XL_CNP_L4_LEN;
	if (bpf_skb_change_tail(skb, len, 0))
		return XL_CNP_RESIZE;
	if (bpf_skb_store_bytes(skb, 0, mac, sizeof(mac), 0))
		return XL_CNP_STORE;
	if (p.family == 4) {
		struct xl_cnp4 c;

		xl_cnp_fill4(&c, &p, dscp, (__u16)bpf_get_prandom_u32());
		if (bpf_skb_store_bytes(skb, l2, c.b, sizeof(c.b), 0))
			return XL_CNP_STORE;
	} else {
		struct xl_cnp6 c;

		xl_cnp_fill6(&c, &p, dscp);
		if (bpf_skb_store_bytes(skb, l2, c.b, sizeof(c.b), 0))
			return XL_CNP_STORE;
	}
	return XL_CNP_OK;
}

#endif /* XL_CNP_H */
