/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Test packet builder: Ethernet (0, 1 or 2 VLAN tags) + IPv4 (with options)
 * or IPv6 + UDP/TCP/ICMPv6 (+ RoCEv2 BTH) + payload, or a raw ethertype.
 *
 * Deliberately independent of the dataplane: fields are written byte by
 * byte in network order, and the IPv4 header and L4 checksums are computed
 * in full here (RFC 1071, big-endian words), never with include/csum.h, so
 * a forwarded packet can be compared with one built from scratch. Static
 * functions only: the Makefile compiles just the test_*.c file. */
#ifndef XL_TEST_PACKETS_H
#define XL_TEST_PACKETS_H

#include <linux/types.h>
#include <stddef.h>
#include <string.h>

#define PKT_MAX 4096

#define PKT_ETH_IP4   0x0800
#define PKT_ETH_ARP   0x0806
#define PKT_ETH_8021Q 0x8100
#define PKT_ETH_8021AD 0x88A8
#define PKT_ETH_IP6   0x86DD
#define PKT_ETH_LLDP  0x88CC
#define PKT_ETH_LOCAL 0x88B5 /* IEEE local experimental: "other" */

#define PKT_UDP    17
#define PKT_TCP    6
#define PKT_ICMP6  58
#define PKT_FRAG6  44

#define PKT_ROCEV2_PORT 4791
#define PKT_BTH_LEN 12
#define PKT_ICRC_LEN 4

/* What to build. Zero-initialised fields give the obvious default. */
struct pkt_spec {
	__u8 dst[6];
	__u8 src[6];
	int nvlan;           /* 802.1Q/802.1ad tags: 0, 1 or 2 */
	__u16 tpid[2];       /* 0 means 0x8100 */
	__u16 tci[2];        /* PCP/DEI/VID */
	__u16 ethertype;     /* after the tags; 0: from family (or "other") */
	int family;          /* 4, 6, or 0: raw payload after the ethertype */
	__u8 saddr[16];      /* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	__u8 ttl;            /* TTL or hop limit */
	__u8 tos;            /* TOS or traffic class */
	__u16 ip_id;         /* IPv4 only */
	__u16 frag_off;      /* IPv4 flags+offset, host order */
	__u32 flowlabel;     /* IPv6 only, 20 bits */
	int ip_opt_len;      /* IPv4 option bytes: multiple of 4, <= 40 */
	__u8 proto;          /* UDP, TCP, ICMPv6: header built; else payload */
	__u16 sport, dport;  /* UDP/TCP */
	__u8 icmp6_type, icmp6_code;
	int bth;             /* UDP only: RoCEv2 BTH after UDP, ICRC at the end */
	__u8 bth_opcode;
	__u32 dest_qp, psn;  /* 24 bits each */
	int apsn_flags_set;  /* BTH word 2's top byte: apsn_flags if set, */
	__u8 apsn_flags;     /* else 0x80 (AckReq) */
	int payload_len;     /* bytes after the last header */
	__u8 payload_seed;
	int pad_to;          /* Ethernet padding: zero-fill the frame to this */
};

/* Where the headers landed, for truncation and mangling. */
struct pkt_off {
	size_t l3;      /* first byte after the ethertype */
	size_t l4;      /* first byte after the IP header (incl. options) */
	size_t l4_end;  /* after the UDP/TCP/ICMPv6 header (== l4 if none) */
	size_t hdr_end; /* after the last header (BTH if any) */
	size_t ip_end;  /* end of the IP datagram */
	size_t len;     /* whole frame, incl. padding */
};

static inline void pkt_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void pkt_put32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static inline __u16 pkt_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* RFC 1071: 32-bit accumulation of big-endian 16-bit words. */
static inline __u32 pkt_sum(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

static inline __u16 pkt_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* Recompute the IPv4 header checksum in full, from scratch. */
static inline void pkt_ip4_csum(__u8 *ip)
{
	size_t hlen = (size_t)(ip[0] & 0x0f) * 4;

	pkt_put16(ip + 10, 0);
	pkt_put16(ip + 10, pkt_fold(pkt_sum(0, ip, hlen)));
}

/* L4 checksum with the IPv4/IPv6 pseudo-header; l4 spans len bytes. */
static inline __u16 pkt_l4_csum(int family, const __u8 *saddr,
				const __u8 *daddr, __u8 proto, const __u8 *l4,
				size_t len)
{
	__u8 ph[40] = {0};
	size_t phlen;

	if (family == 4) {
		memcpy(ph, saddr, 4);
		memcpy(ph + 4, daddr, 4);
		ph[9] = proto;
		pkt_put16(ph + 10, (__u16)len);
		phlen = 12;
	} else {
		memcpy(ph, saddr, 16);
		memcpy(ph + 16, daddr, 16);
		pkt_put32(ph + 32, (__u32)len);
		ph[39] = proto;
		phlen = 40;
	}
	return pkt_fold(pkt_sum(pkt_sum(0, ph, phlen), l4, len));
}

/* IPv4 options of exactly n bytes: Router Alert, then NOPs, then EOL. */
static inline void pkt_ip4_options(__u8 *p, int n)
{
	int i;

	if (n <= 0)
		return;
	p[0] = 0x94; /* Router Alert, copied */
	p[1] = 4;
	p[2] = 0;
	p[3] = 0;
	for (i = 4; i < n; i++)
		p[i] = 1; /* NOP */
	if (n > 4)
		p[n - 1] = 0; /* EOL */
}

static inline size_t pkt_l4_hdr_len(const struct pkt_spec *s)
{
	if (s->family == 0)
		return 0;
	switch (s->proto) {
	case PKT_UDP:
		return 8 + (s->bth ? PKT_BTH_LEN : 0);
	case PKT_TCP:
		return 20;
	case PKT_ICMP6:
		return 8;
	default:
		return 0;
	}
}

/* Build the frame into buf (PKT_MAX bytes); returns its length. */
static inline size_t pkt_build(const struct pkt_spec *s, __u8 *buf,
			       struct pkt_off *off)
{
	struct pkt_off o = {0};
	size_t pos = 12, l3hdr, l4hdr, i, end, l4len;
	__u16 ethertype = s->ethertype;
	__u8 *ip, *l4;
	int v;

	memset(buf, 0, PKT_MAX);
	memcpy(buf, s->dst, 6);
	memcpy(buf + 6, s->src, 6);
	for (v = 0; v < s->nvlan && v < 2; v++) {
		pkt_put16(buf + pos, s->tpid[v] ? s->tpid[v] : PKT_ETH_8021Q);
		pkt_put16(buf + pos + 2, s->tci[v]);
		pos += 4;
	}
	if (!ethertype)
		ethertype = s->family == 4 ? PKT_ETH_IP4 :
			    s->family == 6 ? PKT_ETH_IP6 : PKT_ETH_LOCAL;
	pkt_put16(buf + pos, ethertype);
	pos += 2;
	o.l3 = pos;

	if (s->family != 4 && s->family != 6) {
		for (i = 0; i < (size_t)s->payload_len; i++)
			buf[pos + i] = (__u8)(s->payload_seed + i);
		o.l4 = o.l4_end = o.hdr_end = o.l3;
		o.ip_end = end = pos + s->payload_len;
		goto pad;
	}

	ip = buf + o.l3;
	l3hdr = s->family == 4 ? 20 + (size_t)s->ip_opt_len : 40;
	o.l4 = o.l3 + l3hdr;
	l4 = buf + o.l4;
	l4hdr = pkt_l4_hdr_len(s);
	o.hdr_end = o.l4 + l4hdr;
	o.l4_end = o.hdr_end - (s->proto == PKT_UDP && s->bth ? PKT_BTH_LEN : 0);
	end = o.hdr_end + s->payload_len;
	for (i = 0; i < (size_t)s->payload_len; i++)
		buf[o.hdr_end + i] = (__u8)(s->payload_seed + i * 7);
	if (s->proto == PKT_UDP && s->bth) {
		/* ICRC: not computed (nothing checks it here), recognisable */
		pkt_put32(buf + end, 0xc0ffee00);
		end += PKT_ICRC_LEN;
	}
	o.ip_end = end;
	l4len = end - o.l4;

	switch (s->proto) {
	case PKT_UDP:
		pkt_put16(l4, s->sport);
		pkt_put16(l4 + 2, s->dport);
		pkt_put16(l4 + 4, (__u16)l4len);
		if (s->bth) {
			__u8 *b = l4 + 8;

			b[0] = s->bth_opcode;
			b[1] = 0x40; /* MigReq, PadCnt 0, TVer 0 */
			pkt_put16(b + 2, 0xffff); /* default P_Key */
			pkt_put32(b + 4, s->dest_qp & 0xffffff);
			pkt_put32(b + 8, (s->apsn_flags_set ? (__u32)s->apsn_flags << 24
							     : 0x80000000u) |
					 (s->psn & 0xffffff));
		}
		break;
	case PKT_TCP:
		pkt_put16(l4, s->sport);
		pkt_put16(l4 + 2, s->dport);
		pkt_put32(l4 + 4, 0x01020304);  /* seq */
		pkt_put32(l4 + 8, 0x0a0b0c0d);  /* ack */
		l4[12] = 5 << 4;                /* data offset */
		l4[13] = 0x18;                  /* PSH|ACK */
		pkt_put16(l4 + 14, 65535);      /* window */
		break;
	case PKT_ICMP6:
		l4[0] = s->icmp6_type;
		l4[1] = s->icmp6_code;
		pkt_put32(l4 + 4, 0x12340001); /* echo id/seq or reserved */
		break;
	}

	if (s->family == 4) {
		ip[0] = 0x40 | (__u8)(l3hdr / 4);
		ip[1] = s->tos;
		pkt_put16(ip + 2, (__u16)(end - o.l3));
		pkt_put16(ip + 4, s->ip_id);
		pkt_put16(ip + 6, s->frag_off);
		ip[8] = s->ttl;
		ip[9] = s->proto;
		memcpy(ip + 12, s->saddr, 4);
		memcpy(ip + 16, s->daddr, 4);
		pkt_ip4_options(ip + 20, s->ip_opt_len);
	} else {
		pkt_put32(ip, 6u << 28 | (__u32)s->tos << 20 |
				      (s->flowlabel & 0xfffff));
		pkt_put16(ip + 4, (__u16)l4len);
		ip[6] = s->proto;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->saddr, 16);
		memcpy(ip + 24, s->daddr, 16);
	}

	if (s->proto == PKT_UDP || s->proto == PKT_TCP ||
	    (s->proto == PKT_ICMP6 && s->family == 6)) {
		size_t csum_at = s->proto == PKT_UDP ? 6 :
				 s->proto == PKT_TCP ? 16 : 2;
		__u16 c = pkt_l4_csum(s->family, s->saddr, s->daddr, s->proto,
				      l4, l4len);

		if (s->proto == PKT_UDP && c == 0)
			c = 0xffff;
		pkt_put16(l4 + csum_at, c);
	}
	if (s->family == 4)
		pkt_ip4_csum(ip);

pad:
	if (s->pad_to > 0 && (size_t)s->pad_to > end)
		end = (size_t)s->pad_to; /* already zero */
	o.len = end;
	if (off)
		*off = o;
	return end;
}

#endif /* XL_TEST_PACKETS_H */
