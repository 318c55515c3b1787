// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* RoCEv2 template frames and per-packet descriptors for `xdpleaf gen`,
 * and the headers and ICRC of any RoCEv2 frame the traffic tools build
 * (gen_pkt.h explains the ICRC tables). */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>
#include "xdpleaf.h"
#include "csum.h"
#include "traffic/gen_pkt.h"
#include "icrc.h"

#define IP4_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8

__u32 xl_gen_frame_len(bool ipv6, bool reth, __u32 payload)
{
	__u32 pad = (4 - (payload & 3)) & 3;

	return XL_GEN_ETH_LEN + (ipv6 ? IP6_LEN : IP4_LEN) + UDP_LEN +
	       XL_BTH_LEN + (reth ? XL_RETH_LEN : 0) + payload + pad +
	       XL_ICRC_LEN;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/* One's-complement sum of big-endian 16-bit words, not folded (len even). */
static __u32 sum16(const __u8 *p, __u32 len, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	return sum;
}

static __u32 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static __u32 udp_off_of(bool ipv6)
{
	return XL_GEN_ETH_LEN + (ipv6 ? IP6_LEN : IP4_LEN);
}

/* Sum of the IPv6 pseudo-header and the UDP datagram as it is in f, a
 * frame of len bytes. */
static __u32 udp6_sum(const __u8 *f, __u32 len)
{
	__u32 udp_off = udp_off_of(true), ulen = len - udp_off;
	__u32 sum = 0;

	sum = sum16(f + XL_GEN_ETH_LEN + 8, 32, sum);  /* source, destination */
	sum += ulen >> 16;
	sum += ulen & 0xffff;
	sum += IPPROTO_UDP;
	return sum16(f + udp_off, ulen, sum);
}

void xl_gen_seal(__u8 *f, __u32 len, bool ipv6)
{
	__u32 l3_off = XL_GEN_ETH_LEN, udp_off = udp_off_of(ipv6);
	__u32 icrc_off = len - XL_ICRC_LEN;

	put16(f + udp_off + 6, 0);
	xl_icrc_put(f + icrc_off, xl_icrc(f + l3_off, icrc_off - l3_off,
					  udp_off - l3_off, ipv6));
	if (ipv6) {
		/* after the ICRC, which covers the checksum as ones */
		__u16 s = (__u16)~fold(udp6_sum(f, len));

		put16(f + udp_off + 6, s ? s : 0xffff);
	}
}

static __u8 bth_flags(const struct xl_gen_class *c)
{
	return (__u8)(c->pad << 4); /* SE 0, MigReq 0, PadCnt, TVer 0 */
}

/* Write the per-packet fields and both checksums and the ICRC, from
 * scratch. */
static void stamp_full(const struct xl_gen_class *c, __u8 *f, __u8 opcode,
		       const struct xl_gen_qpid *qp, __u32 psn)
{
	__u8 *udp = f + c->udp_off, *bth = f + c->bth_off;

	put16(udp, qp->sport);
	bth[0] = opcode;
	bth[1] = bth_flags(c);
	put16(bth + 2, 0xffff);
	put32(bth + 4, qp->qpn & XL_QPN_MASK);
	put32(bth + 8, psn & XL_PSN_MASK);
	xl_gen_seal(f, c->len, c->ipv6);
}

__u32 xl_gen_put_headers(__u8 *f, const struct xl_gen_flowspec *fs, __u32 len)
{
	__u8 *l3 = f + XL_GEN_ETH_LEN;
	__u32 udp_off = udp_off_of(fs->ipv6), ulen = len - udp_off;

	memset(f, 0, udp_off + UDP_LEN);
	memcpy(f, fs->dst_mac, 6);
	memcpy(f + 6, fs->src_mac, 6);
	put16(f + 12, fs->ipv6 ? XL_ETH_P_IPV6 : XL_ETH_P_IP);
	if (fs->ipv6) {
		put32(l3, 6U << 28 | (__u32)fs->tos << 20); /* flow label 0 */
		put16(l3 + 4, (__u16)ulen);
		l3[6] = IPPROTO_UDP;
		l3[7] = fs->ttl;
		memcpy(l3 + 8, fs->saddr, 16);
		memcpy(l3 + 24, fs->daddr, 16);
	} else {
		l3[0] = 0x45;
		l3[1] = fs->tos;
		put16(l3 + 2, (__u16)(len - XL_GEN_ETH_LEN));
		put16(l3 + 4, 0);      /* id: DF set, never fragmented */
		put16(l3 + 6, 0x4000); /* DF */
		l3[8] = fs->ttl;
		l3[9] = IPPROTO_UDP;
		memcpy(l3 + 12, fs->saddr, 4);
		memcpy(l3 + 16, fs->daddr, 4);
		/* xl_csum_full sums native-order words and stores alike */
		{
			__u16 s = xl_csum_full(l3, IP4_LEN);

			memcpy(l3 + 10, &s, 2);
		}
	}
	put16(f + udp_off + 2, XL_ROCEV2_PORT);
	put16(f + udp_off + 4, (__u16)ulen);
	return udp_off + UDP_LEN;
}

static void build_template(struct xl_gen_class *c, const struct xl_gen_flowspec *fs,
			   __u32 dma_len)
{
	__u8 *f = c->frame;
	__u32 i;
	__u8 *pl;

	memset(f, 0, sizeof(c->frame));
	xl_gen_put_headers(f, fs, c->len);
	pl = f + c->bth_off + XL_BTH_LEN;
	if (c->reth) {
		put32(pl, (__u32)(fs->reth_va >> 32));
		put32(pl + 4, (__u32)fs->reth_va);
		put32(pl + 8, fs->reth_rkey);
		put32(pl + 12, dma_len);
		pl += XL_RETH_LEN;
	}
	/* A recognisable payload, so the ICRC is checked over real bytes. */
	for (i = 0; i < c->payload; i++)
		pl[i] = (__u8)(i * 7 + 1);
}

int xl_gen_class_init(struct xl_gen_class *c, const struct xl_gen_flowspec *fs,
		      __u32 payload, bool reth, __u32 dma_len, __u8 op_ref,
		      const struct xl_gen_qpid *qps, __u32 nqp)
{
	static const struct xl_gen_qpid qp0 = { 0, 0 };
	__u8 *scratch;
	__u32 l3len, l4off, pos, b, x, qi;
	int ipv6 = fs->ipv6;

	memset(c, 0, sizeof(*c));
	c->len = xl_gen_frame_len(fs->ipv6, reth, payload);
	if (c->len > XL_GEN_MAX_FRAME || nqp == 0) {
		errno = EINVAL;
		return -1;
	}
	c->l3_off = XL_GEN_ETH_LEN;
	c->udp_off = c->l3_off + (fs->ipv6 ? IP6_LEN : IP4_LEN);
	c->bth_off = c->udp_off + UDP_LEN;
	c->icrc_off = c->len - XL_ICRC_LEN;
	c->payload = payload;
	c->pad = (4 - (payload & 3)) & 3;
	c->reth = reth;
	c->ipv6 = fs->ipv6;
	c->op_ref = op_ref;
	c->nqp = nqp;
	c->icrc_base = calloc(nqp, sizeof(*c->icrc_base));
	c->csum_base = calloc(nqp, sizeof(*c->csum_base));
	scratch = malloc(XL_GEN_MAX_FRAME);
	if (!c->icrc_base || !c->csum_base || !scratch) {
		free(scratch);
		xl_gen_class_free(c);
		errno = ENOMEM;
		return -1;
	}
	build_template(c, fs, dma_len);
	stamp_full(c, c->frame, op_ref, &qp0, 0);

	/* L(one bit at a position) = ICRC(template ^ bit) ^ ICRC(template). */
	l3len = c->icrc_off - c->l3_off;
	l4off = c->udp_off - c->l3_off;
	for (pos = 0; pos < 5; pos++) {
		/* opcode, the PSN's three bytes, then word 2's flags byte */
		__u32 off = c->bth_off - c->l3_off + (pos == 0 ? 0 : pos == 4 ? 8 : 8 + pos);
		__u32 bitv[8];
		__u32 *t = pos == 0 ? c->t_op : pos == 4 ? c->t_flags : c->t_psn[pos - 1];
		__u32 ref;

		memcpy(scratch, c->frame, c->len);
		ref = xl_icrc(scratch + c->l3_off, l3len, l4off, ipv6);
		for (b = 0; b < 8; b++) {
			scratch[c->l3_off + off] ^= (__u8)(1U << b);
			bitv[b] = xl_icrc(scratch + c->l3_off, l3len, l4off, ipv6) ^ ref;
			scratch[c->l3_off + off] ^= (__u8)(1U << b);
		}
		for (x = 0; x < 256; x++) {
			t[x] = 0;
			for (b = 0; b < 8; b++)
				if (x & (1U << b))
					t[x] ^= bitv[b];
		}
	}
	for (qi = 0; qi < nqp; qi++) {
		__u8 *bth = scratch + c->bth_off;

		memcpy(scratch, c->frame, c->len);
		stamp_full(c, scratch, op_ref, &qps[qi], 0);
		c->icrc_base[qi] = xl_icrc_get(scratch + c->icrc_off);
		if (ipv6) {
			/* the words the descriptor adds back per packet */
			memset(bth, 0, 4);
			memset(bth + 8, 0, 4);
			memset(scratch + c->icrc_off, 0, 4);
			put16(scratch + c->udp_off + 6, 0);
			c->csum_base[qi] = fold(udp6_sum(scratch, c->len));
		}
	}
	free(scratch);
	return 0;
}

void xl_gen_class_free(struct xl_gen_class *c)
{
	free(c->icrc_base);
	free(c->csum_base);
	c->icrc_base = NULL;
	c->csum_base = NULL;
}

void xl_gen_desc_fill(const struct xl_gen_class *c, __u32 qi,
		      const struct xl_gen_qpid *qp, __u8 opcode, __u32 psn,
		      __u8 flags, struct xl_gen_desc *d)
{
	__u32 bth0 = (__u32)opcode << 24 | (__u32)bth_flags(c) << 16 | 0xffff;
	__u32 bth2 = (__u32)flags << 24 | (psn & XL_PSN_MASK);
	__u32 icrc = c->icrc_base[qi] ^ c->t_op[opcode ^ c->op_ref] ^
		     c->t_flags[flags] ^
		     c->t_psn[0][(psn >> 16) & 0xff] ^
		     c->t_psn[1][(psn >> 8) & 0xff] ^ c->t_psn[2][psn & 0xff];

	d->bth0 = htonl(bth0);
	d->bth1 = htonl(qp->qpn & XL_QPN_MASK);
	d->bth2 = htonl(bth2);
	d->icrc = htole32(icrc);
	d->sport = htons(qp->sport);
	d->udp_check = 0;
	if (c->ipv6) {
		/* wire bytes of the ICRC: least significant first */
		__u32 sum = c->csum_base[qi] + (bth0 >> 16) + (bth0 & 0xffff) +
			    (bth2 >> 16) + (bth2 & 0xffff) +
			    ((icrc & 0xff) << 8 | ((icrc >> 8) & 0xff)) +
			    (((icrc >> 16) & 0xff) << 8 | icrc >> 24);
		__u16 s = (__u16)~fold(sum);

		d->udp_check = htons(s ? s : 0xffff);
	}
}

void xl_gen_desc_apply(const struct xl_gen_class *c,
		       const struct xl_gen_desc *d, __u8 *frame)
{
	memcpy(frame + c->udp_off, &d->sport, 2);
	memcpy(frame + c->udp_off + 6, &d->udp_check, 2);
	memcpy(frame + c->bth_off, &d->bth0, 4);
	memcpy(frame + c->bth_off + 4, &d->bth1, 4);
	memcpy(frame + c->bth_off + 8, &d->bth2, 4);
	memcpy(frame + c->icrc_off, &d->icrc, 4);
}
