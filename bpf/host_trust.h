/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Host mode trusts nothing (docs/dcqcn.md, "Trust"): the NP answers only
 * well-formed RoCEv2 requests sent to this host (its MAC, unicast; one of
 * its port's addresses; its ICRC right), at most cnp_port_rate CNPs per
 * second per port and CPU beside the per-QP interval; the RP believes only well-formed
 * CNPs sent to it whose ICRC is right (and, in rp_cnp, that match a flow
 * it sends). Each refusal is counted by its reason. */
#ifndef XL_HOST_TRUST_H
#define XL_HOST_TRUST_H

#include "host_maps.h"
#include "tc_parse.h"
#include "cnp.h"
#include "icrc.h"
#include "telemetry.h"

#define PACKET_HOST_ 0 /* skb->pkt_type: to this station's own MAC */

/* Unicast to our MAC and to an address of the port it came in on. */
static __always_inline int xl_to_us(struct __sk_buff *skb, const struct xl_tc_pkt *p)
{
	struct xl_host_addr_key k = { .ifindex = XL_SKB_U32(skb, ifindex),
				      .family = p->family };

	if (XL_SKB_U32(skb, pkt_type) != PACKET_HOST_)
		return 0;
	__builtin_memcpy(k.addr, p->daddr, 16);
	return bpf_map_lookup_elem(&XL_MAP_HOST_ADDRS, &k) != NULL;
}

/* The IP and UDP length fields: the datagram's, checked against the
 * skb. Returns the UDP length, or 0 when they do not hold together. */
static __always_inline __u32 xl_udp_len_ok(struct __sk_buff *skb,
					   const struct xl_tc_pkt *p)
{
	__u16 ip_len, udp_len;
	__u32 l3 = p->l2_len, l4 = l3 + (p->l3_len & 0x3c), ip_total;

	if (p->family == 4) {
		if (bpf_skb_load_bytes(skb, l3 + 2, &ip_len, 2))
			return 0;
		ip_total = bpf_ntohs(ip_len);
	} else {
		if (bpf_skb_load_bytes(skb, l3 + 4, &ip_len, 2))
			return 0;
		ip_total = 40 + bpf_ntohs(ip_len);
	}
	if (bpf_skb_load_bytes(skb, l4 + 4, &udp_len, 2))
		return 0;
	if (ip_total < p->l3_len || l3 + ip_total > XL_SKB_U32(skb, len) ||
	    bpf_ntohs(udp_len) != ip_total - p->l3_len)
		return 0;
	return bpf_ntohs(udp_len);
}

/* A CE-marked data packet the NP may answer: to us, a request opcode,
 * its lengths whole (UDP, BTH and ICRC at least), IPv4 without options
 * (RoCEv2 never has them). Returns the UDP length (the ICRC check needs
 * it), or 0 after counting the refusal. */
static __always_inline __u32 xl_np_trusted(struct __sk_buff *skb, const struct xl_tc_pkt *p,
					   struct xl_host_stats *st)
{
	__u32 ulen;

	if (!xl_to_us(skb, p)) {
		st->np_not_ours++;
		return 0;
	}
	ulen = xl_udp_len_ok(skb, p);
	if (ulen < 8 + XL_BTH_LEN + XL_ICRC_LEN || p->opcode >= 0x80 ||
	    !xl_psn_sequenced(p->opcode) || (p->family == 4 && p->l3_len != 20)) {
		st->np_malformed++;
		return 0;
	}
	return ulen;
}

/* The ICRC over a whole data packet: the header part (with its variant
 * fields) from a copy, the rest 64 bytes at a time through bpf_loop, so
 * that a 9 KB frame costs the verifier one chunk's work. */
#define XL_ICRC_CHUNK 64
#define XL_DATA_ICRC_MAX 9216U /* a jumbo frame's datagram (XL_ICRC_MAX_LEN
				* is cnp.h's, sized for a CNP) */
struct xl_icrc_walk {
	struct __sk_buff *skb;
	__u32 off, end; /* bytes still to feed: [off, end) of the skb */
	__u32 crc;      /* running, not complemented */
	__u32 err;
};

static long xl_icrc_chunk(__u32 i, void *data)
{
	struct xl_icrc_walk *w = data;
	__u8 buf[XL_ICRC_CHUNK];
	__u32 n, j;

	(void)i;
	if (w->off >= w->end)
		return 1;
	n = w->end - w->off;
	if (n > XL_ICRC_CHUNK)
		n = XL_ICRC_CHUNK;
	if (n < 1 || bpf_skb_load_bytes(w->skb, w->off, buf, n)) {
		w->err = 1;
		return 1;
	}
	for (j = 0; j < XL_ICRC_CHUNK && j < n; j++)
		w->crc = xl_crc32_byte(w->crc, buf[j]);
	w->off += n;
	return 0;
}

/* Whether the ICRC of the RoCEv2 packet at l3 (ip_total bytes of IP
 * datagram, IPv4 without options or IPv6) is right. */
static __always_inline int xl_data_icrc_ok(struct __sk_buff *skb, __u32 l3,
					   __u32 ip_total, int ipv6)
{
	__u8 hdr[40 + 8 + XL_BTH_LEN];
	struct xl_icrc_walk w = { .skb = skb };
	__u8 tail[XL_ICRC_LEN];
	__u32 l4 = ipv6 ? 40 : 20, head = l4 + 13; /* through BTH byte 4 */

	if (ip_total < l4 + 8 + XL_BTH_LEN + XL_ICRC_LEN || ip_total > XL_DATA_ICRC_MAX ||
	    bpf_skb_load_bytes(skb, l3 + ip_total - XL_ICRC_LEN, tail, XL_ICRC_LEN))
		return 0;
	if (ipv6) {
		if (bpf_skb_load_bytes(skb, l3, hdr, 40 + 13))
			return 0;
		w.crc = ~xl_icrc(hdr, 40 + 13, 40, 1);
	} else {
		if (bpf_skb_load_bytes(skb, l3, hdr, 20 + 13))
			return 0;
		w.crc = ~xl_icrc(hdr, 20 + 13, 20, 0);
	}
	w.off = l3 + head;
	w.end = l3 + ip_total - XL_ICRC_LEN;
	bpf_loop(XL_DATA_ICRC_MAX / XL_ICRC_CHUNK + 1, xl_icrc_chunk, &w, 0);
	return !w.err && w.off == w.end && ~w.crc == xl_icrc_get(tail);
}

/* Whether the port may send one more CNP now (cnp_port_rate per second
 * and CPU, a burst of XL_EVENT_BURST); counts a CNP held back. */
static __always_inline int xl_np_port_cap_ok(struct __sk_buff *skb,
					     const struct xl_host_cfg *cfg,
					     struct xl_host_stats *st, __u64 now)
{
	__u32 ifindex = XL_SKB_U32(skb, ifindex);
	struct xl_event_limit *l, fresh = {};

	if (!cfg->cnp_port_rate)
		return 1;
	l = bpf_map_lookup_elem(&XL_MAP_NP_PORT_LIMIT, &ifindex);
	if (!l) {
		bpf_map_update_elem(&XL_MAP_NP_PORT_LIMIT, &ifindex, &fresh, BPF_NOEXIST);
		l = bpf_map_lookup_elem(&XL_MAP_NP_PORT_LIMIT, &ifindex);
		if (!l)
			return 1;
	}
	if (!xl_event_allow(l, now, cfg->cnp_port_rate)) {
		st->np_port_capped++;
		return 0;
	}
	return 1;
}

/* A CNP the RP may act on: to us, exactly a CNP's shape (IPv4 without
 * options, UDP length 40: BTH, 16 reserved bytes, ICRC) and its ICRC
 * right. Counts the refusal otherwise. */
static __always_inline int xl_cnp_trusted(struct __sk_buff *skb, const struct xl_tc_pkt *p,
					  struct xl_host_stats *st)
{
	struct xl_cnp6 b; /* large enough for either family */
	__u32 l3 = p->l2_len, n;

	if (!xl_to_us(skb, p)) {
		st->rp_not_ours++;
		return 0;
	}
	if ((p->family == 4 && p->l3_len != 20) ||
	    xl_udp_len_ok(skb, p) != XL_CNP_L4_LEN) {
		st->rp_malformed++;
		return 0;
	}
	if (p->family == 4) {
		n = 20 + XL_CNP_L4_LEN;
		if (bpf_skb_load_bytes(skb, l3, b.b, 20 + XL_CNP_L4_LEN))
			goto malformed;
		if (xl_icrc(b.b, n - XL_ICRC_LEN, 20, 0) != xl_icrc_get(b.b + n - XL_ICRC_LEN))
			goto bad_icrc;
	} else {
		n = 40 + XL_CNP_L4_LEN;
		if (bpf_skb_load_bytes(skb, l3, b.b, 40 + XL_CNP_L4_LEN))
			goto malformed;
		if (xl_icrc(b.b, n - XL_ICRC_LEN, 40, 1) != xl_icrc_get(b.b + n - XL_ICRC_LEN))
			goto bad_icrc;
	}
	return 1;
malformed:
	st->rp_malformed++;
	return 0;
bad_icrc:
	st->rp_bad_icrc++;
	return 0;
}

#endif /* XL_HOST_TRUST_H */
