// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the RoCEv2 ICRC (include/icrc.h) and the packets of
 * `xdpleaf gen` (user/traffic/gen_pkt.c).
 *
 * The reference vectors were made once with scapy 2.5.0 (Debian 12's
 * python3-scapy, run with /usr/bin/python3):
 *
 *   from scapy.all import *; from scapy.contrib.roce import BTH
 *   p4 = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
 *        IP(src="10.1.1.2", dst="10.2.1.2", tos=0x6a, flags="DF", ttl=64, id=0) /
 *        UDP(sport=49152, dport=4791, chksum=0) /
 *        BTH(opcode=4, pkey=0xffff, dqpn=0x100, psn=0x123456) /
 *        Raw(bytes(range(1, 33)))
 *   raw(p4)   # scapy's BTH.post_build appends the ICRC it computes
 *
 * scapy's contrib.roce computes the ICRC for IPv4 only, and tshark 4.0's
 * infiniband dissector shows but does not check it. The IPv6 vector
 * (RDMA_WRITE_ONLY with a zero RETH, PSN 0xfffffe) was built by scapy with
 * its ICRC from tests/lab/roce_check.py's icrc6(): zlib.crc32 over 8 x 0xFF
 * and the IPv6/UDP/BTH headers with the IBTA A17 variant fields (traffic
 * class, flow label, hop limit, UDP checksum, BTH byte 4) set to ones, the
 * same rule Linux's soft-RoCE (rxe) applies; scapy then filled in the UDP
 * checksum (0x3622) over the final datagram. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>

#include "icrc.h"
#include "traffic/gen_pkt.h"
#include "roce.h"
#include "base/rng.h"

static const __u8 pkt4[90] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00, 0x45, 0x6a, 0x00, 0x4c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0x24, 0x31, 0x0a, 0x01, 0x01, 0x02, 0x0a, 0x02, 0x01, 0x02, 0xc0, 0x00,
	0x12, 0xb7, 0x00, 0x38, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x12, 0x34, 0x56, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
	0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,
	0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
	0x1f, 0x20, 0xff, 0x4d, 0x2c, 0xe6,
};
#define ICRC4 0xe62c4dffU

static const __u8 pkt6[114] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x86, 0xdd, 0x66, 0xa0, 0x00, 0x00, 0x00, 0x3c, 0x11, 0x40, 0xfd, 0x00,
	0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xfd, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0, 0x01, 0x12, 0xb7, 0x00, 0x3c,
	0x36, 0x22, 0x0a, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x01, 0x00, 0xff,
	0xff, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
	0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75,
	0x76, 0x77, 0x1d, 0x1e, 0x8d, 0x23,
};
#define ICRC6 0x238d1e1dU

#define ETH 14

static __u32 icrc_of(const __u8 *frame, size_t len, int ipv6)
{
	return xl_icrc(frame + ETH, (__u32)(len - ETH - 4), ipv6 ? 40 : 20, ipv6);
}

/* ---- independent references --------------------------------------------- */

/* Bitwise CRC-32 (zlib's) over a buffer, written separately from icrc.h. */
static __u32 ref_crc32(const __u8 *p, size_t n)
{
	__u32 c = 0xffffffffU;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320U : c >> 1;
	}
	return ~c;
}

/* ICRC by copying and masking the headers, then one CRC over the copy. */
static __u32 ref_icrc(const __u8 *frame, size_t len, int ipv6)
{
	__u8 buf[4096];
	size_t n = len - ETH - 4, l4 = ipv6 ? 40 : 20;

	memset(buf, 0xff, 8);
	memcpy(buf + 8, frame + ETH, n);
	if (ipv6) {
		buf[8] |= 0x0f;
		buf[9] = buf[10] = buf[11] = 0xff;
		buf[8 + 7] = 0xff;
	} else {
		buf[8 + 1] = 0xff;
		buf[8 + 8] = 0xff;
		buf[8 + 10] = buf[8 + 11] = 0xff;
	}
	buf[8 + l4 + 6] = buf[8 + l4 + 7] = 0xff;
	buf[8 + l4 + 8 + 4] = 0xff;
	return ref_crc32(buf, n + 8);
}

/* Internet checksum of big-endian words (RFC 1071). */
static __u16 ref_csum(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static __u16 ref_udp6(const __u8 *frame, size_t len)
{
	__u8 d[4096];
	const __u8 *ip6 = frame + ETH;
	size_t ulen = len - ETH - 40;
	__u32 sum = 0;
	size_t i;
	__u16 s;

	for (i = 8; i < 40; i += 2)
		sum += (__u32)(ip6[i] << 8 | ip6[i + 1]);
	sum += (__u32)ulen + 17;
	memcpy(d, ip6 + 40, ulen);
	d[6] = d[7] = 0;
	s = ref_csum(sum, d, ulen);
	return s ? s : 0xffff;
}

/* ---- the reference vectors ---------------------------------------------- */

static void test_scapy_ipv4_vector(void **state)
{
	(void)state;
	assert_int_equal(icrc_of(pkt4, sizeof(pkt4), 0), ICRC4);
	assert_int_equal(xl_icrc_get(pkt4 + sizeof(pkt4) - 4), ICRC4);
	assert_int_equal(ref_icrc(pkt4, sizeof(pkt4), 0), ICRC4);
}

static void test_ipv6_vector(void **state)
{
	(void)state;
	assert_int_equal(icrc_of(pkt6, sizeof(pkt6), 1), ICRC6);
	assert_int_equal(xl_icrc_get(pkt6 + sizeof(pkt6) - 4), ICRC6);
	assert_int_equal(ref_icrc(pkt6, sizeof(pkt6), 1), ICRC6);
	/* and the UDP checksum scapy computed is what the reference says */
	assert_int_equal(ref_udp6(pkt6, sizeof(pkt6)), 0x3622);
}

/* The seed is the CRC state after the 8 bytes of 0xFF. */
static void test_seed(void **state)
{
	__u32 c = 0xffffffffU;
	int i;

	(void)state;
	for (i = 0; i < 8; i++)
		c = xl_crc32_byte(c, 0xff);
	assert_int_equal(c, XL_ICRC_SEED);
	/* and the byte step is zlib's CRC-32 */
	c = 0xffffffffU;
	for (i = 0; i < 9; i++)
		c = xl_crc32_byte(c, (__u8)('1' + i));
	assert_int_equal(~c, 0xcbf43926U); /* CRC-32 check value of "123456789" */
}

static void test_put_is_little_endian(void **state)
{
	__u8 b[4];

	(void)state;
	xl_icrc_put(b, 0x11223344);
	assert_int_equal(b[0], 0x44);
	assert_int_equal(b[3], 0x11);
	assert_int_equal(xl_icrc_get(b), 0x11223344);
}

/* What a switch may change (DSCP, ECN, TTL, checksums, FECN/BECN) leaves
 * the ICRC alone; anything else changes it. */
static void test_variant_fields_ignored(void **state)
{
	__u8 f[sizeof(pkt6)];

	(void)state;
	memcpy(f, pkt4, sizeof(pkt4));
	f[ETH + 1] = 0x6b;          /* CE */
	f[ETH + 8] = 63;            /* TTL */
	f[ETH + 10] ^= 0x5a;        /* IP checksum */
	f[ETH + 20 + 6] = 0x12;     /* UDP checksum */
	f[ETH + 28 + 4] = 0xc0;     /* FECN, BECN */
	assert_int_equal(icrc_of(f, sizeof(pkt4), 0), ICRC4);
	f[ETH + 28 + 11] ^= 1;      /* PSN */
	assert_int_not_equal(icrc_of(f, sizeof(pkt4), 0), ICRC4);
	memcpy(f, pkt4, sizeof(pkt4));
	f[ETH + 12] ^= 1;           /* source address */
	assert_int_not_equal(icrc_of(f, sizeof(pkt4), 0), ICRC4);

	memcpy(f, pkt6, sizeof(pkt6));
	f[ETH + 0] = 0x60;          /* traffic class high nibble */
	f[ETH + 1] = 0x3f;          /* traffic class low nibble, flow label */
	f[ETH + 3] = 0x99;          /* flow label */
	f[ETH + 7] = 1;             /* hop limit */
	f[ETH + 40 + 6] = 0;        /* UDP checksum */
	f[ETH + 48 + 4] = 0x80;     /* FECN */
	assert_int_equal(icrc_of(f, sizeof(pkt6), 1), ICRC6);
	f[ETH + 0] = 0x50;          /* the version nibble is covered */
	assert_int_not_equal(icrc_of(f, sizeof(pkt6), 1), ICRC6);
}

/* ---- gen's packets -------------------------------------------------------- */

static __u64 rng = 0x2545f4914f6cdd1dULL;

static __u32 rnd(void)
{
	return xl_rand32(&rng);
}

static void fill_spec(struct xl_gen_flowspec *fs, bool ipv6)
{
	static const __u8 s6[16] = { 0xfd, 0, 0, 1, 0, 1, [15] = 2 };
	static const __u8 d6[16] = { 0xfd, 0, 0, 2, 0, 1, [15] = 2 };
	static const __u8 s4[4] = { 10, 1, 1, 2 }, d4[4] = { 10, 2, 1, 2 };

	memset(fs, 0, sizeof(*fs));
	fs->ipv6 = ipv6;
	memcpy(fs->src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(fs->dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(fs->saddr, ipv6 ? s6 : s4, ipv6 ? 16 : 4);
	memcpy(fs->daddr, ipv6 ? d6 : d4, ipv6 ? 16 : 4);
	fs->tos = 26 << 2 | 2;
	fs->ttl = 64;
	fs->reth_va = 0x7f0000000000ULL;
	fs->reth_rkey = 0x1234;
}

/* Every descriptor, stamped into the template, gives a packet whose ICRC
 * and checksums match a from-scratch computation, for both families, with
 * and without RETH, with pad bytes, over random QPs, opcodes and PSNs
 * (wrap included). */
static void check_class(bool ipv6, bool reth, __u32 payload)
{
	struct xl_gen_qpid qps[5];
	struct xl_gen_flowspec fs;
	struct xl_gen_class *c = malloc(sizeof(*c));
	static const __u8 ops[] = { 0x00, 0x01, 0x02, 0x04, 0x06, 0x07, 0x08, 0x0a };
	__u8 f[XL_GEN_MAX_FRAME];
	int i;

	assert_non_null(c);
	fill_spec(&fs, ipv6);
	for (i = 0; i < 5; i++) {
		qps[i].qpn = 0x100 + (__u32)i * 0x10101;
		qps[i].sport = (__u16)(49152 + i * 7);
	}
	assert_int_equal(xl_gen_class_init(c, &fs, payload, reth, 65536,
					   reth ? XL_BTH_WRITE_ONLY : XL_BTH_SEND_ONLY,
					   qps, 5), 0);
	assert_int_equal(c->len, xl_gen_frame_len(ipv6, reth, payload));
	assert_int_equal((c->len - ETH - (ipv6 ? 40 : 20) - 8 - 4) % 4, 0);
	for (i = 0; i < 2000; i++) {
		__u32 qi = rnd() % 5;
		__u32 psn = i < 4 ? XL_PSN_MASK - 1 + (__u32)i : rnd();
		__u8 op = ops[rnd() % sizeof(ops)];
		/* AckReq and the resent mark, alone, together or neither */
		__u8 flags = (__u8)((rnd() & 1 ? XL_BTH2_ACKREQ : 0) |
				    (rnd() & 1 ? XL_BTH2_RESENT : 0));
		struct xl_gen_desc d;

		xl_gen_desc_fill(c, qi, &qps[qi], op, psn, flags, &d);
		memcpy(f, c->frame, c->len);
		xl_gen_desc_apply(c, &d, f);
		/* fields */
		assert_int_equal(f[c->bth_off], op);
		assert_int_equal((f[c->bth_off + 1] >> 4) & 3, c->pad);
		assert_int_equal(f[c->bth_off + 2] << 8 | f[c->bth_off + 3], 0xffff);
		assert_int_equal((__u32)(f[c->bth_off + 5] << 16 | f[c->bth_off + 6] << 8 |
					 f[c->bth_off + 7]), qps[qi].qpn);
		assert_int_equal((__u32)(f[c->bth_off + 9] << 16 | f[c->bth_off + 10] << 8 |
					 f[c->bth_off + 11]), psn & XL_PSN_MASK);
		assert_int_equal(f[c->bth_off + 8], flags);
		assert_int_equal(f[c->udp_off] << 8 | f[c->udp_off + 1], qps[qi].sport);
		/* ICRC */
		assert_int_equal(xl_icrc_get(f + c->icrc_off), ref_icrc(f, c->len, ipv6));
		/* checksums */
		if (ipv6) {
			assert_int_equal(f[c->udp_off + 6] << 8 | f[c->udp_off + 7],
					 ref_udp6(f, c->len));
		} else {
			assert_int_equal(f[c->udp_off + 6] | f[c->udp_off + 7], 0);
			assert_int_equal(ref_csum(0, f + ETH, 20), 0);
			assert_int_equal(f[ETH + 1], 26 << 2 | 2);
			assert_int_equal(f[ETH + 8], 64);
			assert_int_equal(f[ETH + 6], 0x40); /* DF */
		}
	}
	xl_gen_class_free(c);
	free(c);
}

static void test_gen_ipv4_send(void **state) { (void)state; check_class(false, false, 1024); }
static void test_gen_ipv4_write_pad(void **state) { (void)state; check_class(false, true, 1001); }
static void test_gen_ipv6_send_pad(void **state) { (void)state; check_class(true, false, 37); }
static void test_gen_ipv6_write(void **state) { (void)state; check_class(true, true, 4); }
static void test_gen_ipv6_empty(void **state) { (void)state; check_class(true, false, 0); }

static void test_gen_too_big(void **state)
{
	struct xl_gen_qpid q = { 0x100, 49152 };
	struct xl_gen_flowspec fs;
	struct xl_gen_class *c = malloc(sizeof(*c));

	(void)state;
	assert_non_null(c);
	fill_spec(&fs, true);
	assert_int_equal(xl_gen_class_init(c, &fs, XL_GEN_MAX_FRAME, false, 0,
					   XL_BTH_SEND_ONLY, &q, 1), -1);
	free(c);
}

static void test_psn_diff(void **state)
{
	(void)state;
	assert_int_equal(xl_psn_diff(5, 3), 2);
	assert_int_equal(xl_psn_diff(3, 5), -2);
	assert_int_equal(xl_psn_diff(0, XL_PSN_MASK), 1);       /* wrap */
	assert_int_equal(xl_psn_diff(XL_PSN_MASK, 0), -1);
	assert_int_equal(xl_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(xl_psn_diff(0x800000, 0), -0x800000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scapy_ipv4_vector),
		cmocka_unit_test(test_ipv6_vector),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_put_is_little_endian),
		cmocka_unit_test(test_variant_fields_ignored),
		cmocka_unit_test(test_gen_ipv4_send),
		cmocka_unit_test(test_gen_ipv4_write_pad),
		cmocka_unit_test(test_gen_ipv6_send_pad),
		cmocka_unit_test(test_gen_ipv6_write),
		cmocka_unit_test(test_gen_ipv6_empty),
		cmocka_unit_test(test_gen_too_big),
		cmocka_unit_test(test_psn_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
