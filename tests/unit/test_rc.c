// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests of go-back-N (user/traffic/rc.c): the requester's flags
 * (AckReq, the resent mark), ACKs and NAKs moving its PSNs, stale replies
 * changing nothing, the ACK timeout, PSN wrap at 2^24; the ACK/NAK frame
 * built by the responder and parsed by the requester (ICRC, IPv4 header
 * checksum, IPv6 UDP checksum recomputed here from their definitions); and
 * a simulated go-back-N exchange over a lossy, reordering channel whose
 * receiver follows bpf/sink.bpf.c's rule, which must deliver every PSN
 * once, in order. The frames are also checked by scapy in
 * tests/lab/rc.bats. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>

#include "traffic/rc.h"
#include "telemetry.h"
#include "icrc.h"

#define MS 1000000.0

/* ---- requester -------------------------------------------------------------- */

static void test_flags(void **state)
{
	struct xl_rc_req r;
	__u8 f;
	int i;

	(void)state;
	xl_rc_init(&r, 60);
	/* 60, 61, 62: none; 63: every 64th; 64: none; a message end: AckReq */
	for (i = 0; i < 3; i++)
		assert_int_equal(xl_rc_send(&r, false, 1), 0);
	assert_int_equal(xl_rc_send(&r, false, 2), XL_BTH2_ACKREQ);
	assert_int_equal(r.req_psn, 63);
	assert_true(r.req_at == 2);
	assert_int_equal(xl_rc_send(&r, false, 3), 0);
	assert_int_equal(xl_rc_send(&r, true, 4), XL_BTH2_ACKREQ);
	assert_int_equal(r.req_psn, 65);
	assert_true(r.req_at == 2); /* sending more does not push the timer back */
	assert_int_equal(r.nxt, 66);
	assert_int_equal(r.max, 66);
	assert_int_equal(r.una, 60);
	/* a NAK for 62: everything from 62 goes again, marked resent */
	assert_int_equal(xl_rc_on_nak(&r, 62), 1);
	assert_int_equal(r.una, 62);
	assert_int_equal(r.nxt, 62);
	assert_true(r.req_at == 0);
	f = xl_rc_send(&r, false, 5);
	assert_int_equal(f, XL_BTH2_RESENT);
	f = xl_rc_send(&r, false, 5);
	assert_int_equal(f, XL_BTH2_RESENT | XL_BTH2_ACKREQ); /* 63 */
	assert_int_equal(r.resent, 2);
	assert_int_equal(r.max, 66);
}

static void test_ack(void **state)
{
	struct xl_rc_req r;
	int i;

	(void)state;
	xl_rc_init(&r, 0);
	for (i = 0; i < 64; i++)
		xl_rc_send(&r, false, 1);
	assert_false(xl_rc_idle(&r));
	/* stale: outside una..max - 1 (64 was never sent) */
	assert_int_equal(xl_rc_on_ack(&r, 64, 7), 0);
	assert_int_equal(xl_rc_on_ack(&r, XL_PSN_MASK, 7), 0);
	assert_int_equal(r.acks, 0);
	assert_int_equal(xl_rc_on_ack(&r, 10, 7), 0);
	assert_int_equal(r.una, 11);
	assert_true(r.req_at == 7); /* progress, and 63 still waits: from now */
	assert_int_equal(xl_rc_on_ack(&r, 63, 7), 0);
	assert_true(xl_rc_idle(&r));
	assert_true(r.req_at == 0);
	assert_int_equal(r.acks, 2);
	/* an ACK behind una now is stale */
	assert_int_equal(xl_rc_on_ack(&r, 20, 7), 0);
	assert_int_equal(r.una, 64);
	/* a NAK for a PSN not outstanding changes nothing */
	assert_int_equal(xl_rc_on_nak(&r, 64), 0);
	assert_int_equal(r.naks, 0);
}

/* Resending, and an ACK covers part of what is being resent: skip it. */
static void test_ack_while_resending(void **state)
{
	struct xl_rc_req r;
	int i;

	(void)state;
	xl_rc_init(&r, 100);
	for (i = 0; i < 20; i++)
		xl_rc_send(&r, false, 1);
	assert_int_equal(xl_rc_on_nak(&r, 105), 1);
	xl_rc_send(&r, false, 2); /* 105 again */
	assert_int_equal(r.nxt, 106);
	assert_int_equal(xl_rc_on_ack(&r, 110, 7), 1);
	assert_int_equal(r.nxt, 111);
	assert_int_equal(r.una, 111);
	/* a second NAK ahead of nxt does not move nxt forward */
	assert_int_equal(xl_rc_on_nak(&r, 115), 0);
	assert_int_equal(r.nxt, 111);
	assert_int_equal(r.una, 115);
}

static void test_timeout(void **state)
{
	struct xl_rc_req r;
	int i;

	(void)state;
	xl_rc_init(&r, 0);
	assert_true(xl_rc_deadline(&r, 10 * MS) == 0);
	for (i = 0; i < 10; i++)
		xl_rc_send(&r, i == 9, 1 * MS); /* 9 asks */
	assert_true(xl_rc_deadline(&r, 10 * MS) == 11 * MS);
	assert_int_equal(xl_rc_check_timeout(&r, 10.9 * MS, 10 * MS), 0);
	assert_int_equal(xl_rc_check_timeout(&r, 11 * MS, 10 * MS), 1);
	assert_int_equal(r.timeouts, 1);
	assert_int_equal(r.nxt, 0);
	assert_int_equal(r.timeouts_in_row, 1);
	assert_true(xl_rc_deadline(&r, 10 * MS) == 0); /* until 9 asks again */
	for (i = 0; i < 10; i++)
		assert_int_equal(xl_rc_send(&r, i == 9, 12 * MS) & XL_BTH2_RESENT,
				 XL_BTH2_RESENT);
	assert_true(xl_rc_deadline(&r, 10 * MS) == 22 * MS);
	assert_int_equal(xl_rc_on_ack(&r, 9, 7), 0);
	assert_true(xl_rc_deadline(&r, 10 * MS) == 0);
	assert_int_equal(r.timeouts_in_row, 0); /* progress */
	/* a long message: the first PSN that asks starts the timer, later
	 * ones do not restart it; progress short of the last does */
	for (i = 0; i < 200; i++)
		xl_rc_send(&r, false, (30 + i) * MS);
	assert_int_equal(r.req_psn, 191);
	assert_true(xl_rc_deadline(&r, 10 * MS) == (30 + 53 + 10) * MS); /* PSN 63 */
	assert_int_equal(xl_rc_on_ack(&r, 63, 95 * MS), 0);
	assert_true(xl_rc_deadline(&r, 10 * MS) == 105 * MS);
	assert_int_equal(xl_rc_check_timeout(&r, 105 * MS, 10 * MS), 1);
	assert_int_equal(r.nxt, 64);
	assert_int_equal(xl_rc_check_timeout(&r, 100 * MS, 10 * MS), 0);
}

static void test_wrap(void **state)
{
	struct xl_rc_req r;
	int i;

	(void)state;
	xl_rc_init(&r, XL_PSN_MASK - 2);
	for (i = 0; i < 6; i++)
		xl_rc_send(&r, false, 1);
	assert_int_equal(r.max, 3);
	assert_int_equal(xl_rc_on_nak(&r, XL_PSN_MASK), 1);
	assert_int_equal(r.nxt, XL_PSN_MASK);
	/* 0xffffff ends in six ones: it asks for an ACK */
	assert_int_equal(xl_rc_send(&r, false, 2), XL_BTH2_RESENT | XL_BTH2_ACKREQ);
	assert_int_equal(r.nxt, 0);
	assert_int_equal(xl_rc_on_ack(&r, 1, 7), 1);
	assert_int_equal(r.una, 2);
	assert_int_equal(r.nxt, 2);
}

/* ---- frames ----------------------------------------------------------------- */

static __u16 sum16(const __u8 *p, size_t n, __u32 s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (__u32)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

static struct xl_sink_reply reply_of(int family)
{
	struct xl_sink_reply r = {
		.data_smac = { 2, 0, 0, 0, 0, 0xaa },
		.data_dmac = { 2, 0, 0, 0, 0, 0xbb },
		.qp = 0x123456, .psn = 0xabcdef, .msn = 7, .sport = 50001,
		.pkey = htons(0xffff), .family = (__u8)family, .dscp = 26,
		.syndrome = XL_AETH_NAK_PSN_SEQ,
	};
	static const __u8 s6[16] = { 0xfd, 0, [15] = 1 }, d6[16] = { 0xfd, 0, [15] = 2 };

	if (family == 4) {
		memcpy(r.data_saddr, (__u8[]){ 10, 1, 1, 2 }, 4);
		memcpy(r.data_daddr, (__u8[]){ 10, 2, 1, 2 }, 4);
	} else {
		memcpy(r.data_saddr, s6, 16);
		memcpy(r.data_daddr, d6, 16);
	}
	return r;
}

static void check_frame(int family)
{
	struct xl_sink_reply r = reply_of(family);
	__u8 f[XL_RC_REPLY_MAX];
	size_t len = xl_rc_reply_frame(&r, f);
	size_t ipl = family == 4 ? 20 : 40;
	const __u8 *l3 = f + 14, *udp = l3 + ipl, *bth = udp + 8;
	struct xl_rc_reply_in in;

	assert_int_equal(len, 14 + ipl + 28);
	assert_memory_equal(f, r.data_smac, 6);     /* back where it came from */
	assert_memory_equal(f + 6, r.data_dmac, 6);
	if (family == 4) {
		assert_int_equal(f[12] << 8 | f[13], 0x0800);
		assert_int_equal(l3[1], 26 << 2);     /* Not-ECT */
		assert_int_equal(l3[2] << 8 | l3[3], 48);
		assert_int_equal(sum16(l3, 20, 0), 0xffff);
		assert_memory_equal(l3 + 12, r.data_daddr, 4);
		assert_memory_equal(l3 + 16, r.data_saddr, 4);
		assert_int_equal(udp[6] | udp[7], 0);
	} else {
		__u32 ps = 0;

		assert_int_equal(f[12] << 8 | f[13], 0x86dd);
		assert_int_equal(((l3[0] & 15) << 4 | l3[1] >> 4), 26 << 2);
		assert_memory_equal(l3 + 8, r.data_daddr, 16);
		assert_memory_equal(l3 + 24, r.data_saddr, 16);
		/* pseudo-header: addresses, length, next header */
		ps = sum16(l3 + 8, 32, 0) + 28 + 17;
		assert_int_equal(sum16(udp, 28, ps), 0xffff);
	}
	assert_int_equal(udp[0] << 8 | udp[1], 50001);
	assert_int_equal(udp[2] << 8 | udp[3], 4791);
	assert_int_equal(udp[4] << 8 | udp[5], 28);
	assert_int_equal(bth[0], XL_BTH_ACK);
	assert_int_equal(bth[5] << 16 | bth[6] << 8 | bth[7], 0x123456);
	assert_int_equal(bth[9] << 16 | bth[10] << 8 | bth[11], 0xabcdef);
	assert_int_equal(bth[12], XL_AETH_NAK_PSN_SEQ);
	assert_int_equal(bth[13] << 16 | bth[14] << 8 | bth[15], 7);
	/* the requester reads back what was built */
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family, &in), 0);
	assert_true(in.icrc_ok);
	assert_int_equal(in.qp, 0x123456);
	assert_int_equal(in.psn, 0xabcdef);
	assert_int_equal(in.msn, 7);
	assert_int_equal(in.syndrome, XL_AETH_NAK_PSN_SEQ);
	assert_memory_equal(in.saddr, r.data_daddr, family == 4 ? 4 : 16);
	assert_memory_equal(in.daddr, r.data_saddr, family == 4 ? 4 : 16);
	/* a flipped payload bit fails the ICRC; a DSCP change does not */
	f[14 + ipl + 8 + 14] ^= 1;
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family, &in), 0);
	assert_false(in.icrc_ok);
	f[14 + ipl + 8 + 14] ^= 1;
	f[15] ^= 0x04;
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family, &in), 0);
	assert_true(in.icrc_ok);
	/* not an ACK: a CNP's opcode, a truncated packet, another port */
	f[14 + ipl + 8] = XL_BTH_CNP;
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family, &in), -1);
	f[14 + ipl + 8] = XL_BTH_ACK;
	assert_int_equal(xl_rc_parse_reply(l3, len - 15, family, &in), -1);
	f[14 + ipl + 3] ^= 1;
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family, &in), -1);
	assert_int_equal(xl_rc_parse_reply(l3, len - 14, family == 4 ? 6 : 4, &in), -1);
}

static void test_frame4(void **state) { (void)state; check_frame(4); }
static void test_frame6(void **state) { (void)state; check_frame(6); }

/* ---- a go-back-N exchange ------------------------------------------------------- */

/* The responder's rule of bpf/sink.bpf.c (respond_to), over one QP. */
struct responder {
	__u32 epsn;
	int nak_open;
	__u32 delivered[4096];
	int n;
};

enum { NONE, ACK, NAK };

static int respond_to(struct responder *s, __u32 psn, __u8 flags, __u32 *reply_psn)
{
	int d = xl_psn_diff(psn, s->epsn);

	if (d == 0) {
		s->delivered[s->n++] = psn;
		s->epsn = (psn + 1) & XL_PSN_MASK;
		s->nak_open = 0;
		*reply_psn = psn;
		return flags & XL_BTH2_ACKREQ ? ACK : NONE;
	}
	if (d > 0) {
		if (s->nak_open)
			return NONE;
		s->nak_open = 1;
		*reply_psn = s->epsn;
		return NAK;
	}
	*reply_psn = (s->epsn - 1) & XL_PSN_MASK;
	return flags & XL_BTH2_ACKREQ ? ACK : NONE;
}

/* A fixed pseudo-random sequence (a periodic one can lock into dropping
 * the same PSN every round). */
static __u32 lcg(__u32 *x)
{
	*x = *x * 1664525U + 1013904223U;
	return *x >> 16;
}

/* 1000 PSNs (15 messages of 64, then one of 40) from near the wrap, over
 * a channel that drops one frame in 7 (and one reply in 5) and lets one
 * in 11 be overtaken by the next; replies arrive one step later. Every PSN
 * must be delivered once and in order, by NAKs and timeouts alone. */
static void test_exchange(void **state)
{
	const __u32 first = XL_PSN_MASK - 300, total = 1000;
	struct xl_rc_req r;
	static struct responder s;
	struct { __u32 psn; __u8 flags; } held = { 0, 0 };
	int have_held = 0, sent = 0, replies = 0, pending = NONE;
	__u32 pending_psn = 0, i, x = 12345;
	double now = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.epsn = first;
	xl_rc_init(&r, first);
	while (s.n < (int)total && now < 1e12) {
		now += 0.01 * MS;
		/* the reply of the last step arrives (unless dropped) */
		if (pending != NONE && (replies++, lcg(&x) % 5 != 0)) {
			if (pending == ACK)
				xl_rc_on_ack(&r, pending_psn, now);
			else
				xl_rc_on_nak(&r, pending_psn);
		}
		pending = NONE;
		xl_rc_check_timeout(&r, now, 1 * MS);
		if (xl_psn_diff((first + total) & XL_PSN_MASK, r.nxt) > 0) {
			__u32 psn = r.nxt;
			__u32 k = (__u32)xl_psn_diff(psn, first);
			__u8 fl = xl_rc_send(&r, k % 64 == 63 || k == total - 1, now);
			__u32 rp;
			int what;

			sent++;
			if (lcg(&x) % 7 == 0)
				continue; /* dropped */
			if (lcg(&x) % 11 == 0 && !have_held) {
				held.psn = psn; /* overtaken by the next */
				held.flags = fl;
				have_held = 1;
				continue;
			}
			what = respond_to(&s, psn, fl, &rp);
			if (what != NONE) {
				pending = what;
				pending_psn = rp;
			}
			if (have_held) {
				have_held = 0;
				what = respond_to(&s, held.psn, held.flags, &rp);
				if (what != NONE && pending == NONE) {
					pending = what;
					pending_psn = rp;
				}
			}
		}
	}
	if (s.n != (int)total)
		fprintf(stderr, "stuck: delivered %d, epsn %u nak_open %d; una %u nxt %u max %u req_at %.0f now %.0f\n",
			s.n, s.epsn, s.nak_open, r.una, r.nxt, r.max, r.req_at, now);
	assert_int_equal(s.n, total);
	for (i = 0; i < total; i++)
		assert_int_equal(s.delivered[i], (first + i) & XL_PSN_MASK);
	assert_true(r.naks > 0);
	assert_true(r.resent > 0);
	/* the last ACK may still be on its way; the sender knows all was sent */
	assert_int_equal(r.max, (first + total) & XL_PSN_MASK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_ack_while_resending),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_frame4),
		cmocka_unit_test(test_frame6),
		cmocka_unit_test(test_exchange),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
