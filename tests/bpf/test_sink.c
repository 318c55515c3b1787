// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The XDP program `xdpleaf_sink` (bpf/sink.bpf.c) under BPF_PROG_TEST_RUN:
 * per-flow counters for in-order, reordered, lost, duplicate and CE-marked
 * RoCEv2 packets, PSN wrap at 2^24, the duplicate window, IPv6, and the
 * verdicts (RoCE dropped or passed, everything else passed untouched),
 * and RoCE packets with inconsistent headers counted as malformed; with
 * respond, the RC responder's rule: ACKs for in-order packets that ask,
 * one NAK per gap naming the expected PSN, duplicates ACKed again, the
 * replies in the ring buffer with what their frames need, and packets
 * marked as resent kept out of the reorder count.
 *
 * Packets come from tests/bpf/packets.h (independent of the dataplane).
 * The program needs no interface: a plain test run (not live frames)
 * executes it on the caller's loopback rx queue. Needs root (BPF). Lost
 * packets are computed as `xdpleaf sink` does: span + 1 - (packets -
 * duplicates). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "roce.h"
#include "sink.skel.h"
#include "packets.h"

#define SRC4 { 10, 1, 1, 2 }
#define SRC4B { 10, 1, 2, 2 }
#define DST4 { 10, 2, 1, 2 }
#define SRC6 { 0xfd, 0, 0, 1, 0, 1, [15] = 2 }
#define DST6 { 0xfd, 0, 0, 2, 0, 1, [15] = 2 }

static struct sink *skel;      /* RoCE dropped */
static struct sink *skel_pass; /* pass_roce = 1 */
static struct sink *skel_rc;   /* respond = 1 */
static struct ring_buffer *replies;

/* The replies the program queued, as ring_buffer__consume hands them over. */
static struct xl_sink_reply got[64];
static int n_got;

struct sent {
	int family;
	__u8 src[16];
	__u32 qp;
	__u16 sport;
};

static const struct sent F4 = { 4, SRC4, 0x100, 49152 };
static const struct sent F6 = { 6, SRC6, 0x2ab, 50000 };

/* ---- helpers ------------------------------------------------------------- */

static size_t build(const struct sent *f, __u32 psn, __u8 tos, __u8 *buf)
{
	struct pkt_spec s = {
		.dst = { 2, 0, 0, 0, 0, 2 },
		.src = { 2, 0, 0, 0, 0, 1 },
		.family = f->family,
		.daddr = DST4,
		.ttl = 64,
		.tos = tos,
		.proto = PKT_UDP,
		.sport = f->sport,
		.dport = PKT_ROCEV2_PORT,
		.bth = 1,
		.bth_opcode = XL_BTH_SEND_ONLY,
		.dest_qp = f->qp,
		.psn = psn,
		.payload_len = 64,
	};
	static const __u8 d6[16] = DST6;

	memcpy(s.saddr, f->src, 16);
	if (f->family == 6)
		memcpy(s.daddr, d6, 16);
	return pkt_build(&s, buf, NULL);
}

static int take_reply(void *ctx, void *data, size_t size)
{
	(void)ctx;
	assert_int_equal(size, sizeof(struct xl_sink_reply));
	assert_true(n_got < 64);
	memcpy(&got[n_got++], data, sizeof(got[0]));
	return 0;
}

static int run(struct sink *sk, const void *pkt, size_t len)
{
	__u8 out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = pkt,
		.data_size_in = (__u32)len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = 1,
	);
	int err = bpf_prog_test_run_opts(bpf_program__fd(sk->progs.xdpleaf_sink), &opts);

	assert_int_equal(err, 0);
	/* whatever the verdict, the packet is not modified */
	assert_int_equal(opts.data_size_out, len);
	assert_memory_equal(out, pkt, len);
	return (int)opts.retval;
}

/* Send PSNs of flow f (all ECT(0) unless ce_mask bit i marks packet i). */
static void send_psns(const struct sent *f, const __u32 *psns, int n,
		      __u32 ce_mask)
{
	__u8 buf[PKT_MAX];
	int i;

	for (i = 0; i < n; i++) {
		__u8 tos = (26 << 2) | ((ce_mask >> i) & 1 ? 3 : 2);
		size_t len = build(f, psns[i], tos, buf);

		assert_int_equal(run(skel, buf, len), XDP_DROP);
	}
}

static void send_range(const struct sent *f, __u32 from, __u32 n)
{
	__u8 buf[PKT_MAX];
	__u32 i;

	for (i = 0; i < n; i++) {
		size_t len = build(f, (from + i) & XL_PSN_MASK, 26 << 2 | 2, buf);

		assert_int_equal(run(skel, buf, len), XDP_DROP);
	}
}

static int get_flow(struct sink *sk, const struct sent *f, struct xl_sink_flow *v)
{
	struct xl_sink_key k = { .qp = f->qp, .sport = f->sport,
				 .family = (__u8)f->family };

	memcpy(k.saddr, f->src, f->family == 4 ? 4 : 16);
	return bpf_map__lookup_elem(sk->maps.sink_flows, &k, sizeof(k), v,
				    sizeof(*v), 0);
}

static __u64 lost(const struct xl_sink_flow *v)
{
	__u64 distinct = v->packets - v->duplicates;

	return v->span + 1 > distinct ? v->span + 1 - distinct : 0;
}

static struct xl_sink_stats stats(struct sink *sk)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct xl_sink_stats per[256], t = { 0 };
	__u32 zero = 0;

	assert_true(ncpu > 0 && ncpu <= 256);
	assert_int_equal(bpf_map__lookup_elem(sk->maps.sink_stats, &zero, sizeof(zero),
					      per, sizeof(per[0]) * ncpu, 0), 0);
	for (i = 0; i < ncpu; i++) {
		t.roce += per[i].roce;
		t.other += per[i].other;
		t.trunc_bth += per[i].trunc_bth;
		t.table_full += per[i].table_full;
		t.malformed += per[i].malformed;
	}
	return t;
}

/* Empty the flow table and zero the counters before each test. */
static int reset(void **state)
{
	struct sink *sks[3] = { skel, skel_pass, skel_rc };
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		int fd = bpf_map__fd(sks[i]->maps.sink_flows);
		struct xl_sink_key k;
		struct xl_sink_stats zero[256] = { 0 };
		__u32 z = 0;

		while (bpf_map_get_next_key(fd, NULL, &k) == 0)
			bpf_map_delete_elem(fd, &k);
		if (sks[i] == skel_rc) /* what a failed test left queued */
			ring_buffer__consume(replies);
		bpf_map__update_elem(sks[i]->maps.sink_stats, &z, sizeof(z), zero,
				     sizeof(zero[0]) * libbpf_num_possible_cpus(), 0);
	}
	return 0;
}

/* ---- tests ---------------------------------------------------------------- */

static void in_order(void **state)
{
	struct xl_sink_flow v;
	__u8 buf[PKT_MAX];
	size_t len = build(&F4, 0, 0, buf);

	(void)state;
	send_range(&F4, 0, 100);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.packets, 100);
	assert_int_equal(v.bytes, 100 * len);
	assert_int_equal(v.reordered, 0);
	assert_int_equal(v.duplicates, 0);
	assert_int_equal(v.ce, 0);
	assert_int_equal(v.span, 99);
	assert_int_equal(v.highest, 99);
	assert_int_equal(lost(&v), 0);
	assert_true(v.last_ns >= v.first_ns);
	assert_int_equal(stats(skel).roce, 100);
}

static void reordered(void **state)
{
	static const __u32 p[] = { 0, 1, 3, 2, 4, 7, 5, 6, 8 };
	struct xl_sink_flow v;

	(void)state;
	send_psns(&F4, p, 9, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.packets, 9);
	assert_int_equal(v.reordered, 3); /* 2, 5, 6 */
	assert_int_equal(v.duplicates, 0);
	assert_int_equal(lost(&v), 0);
	assert_int_equal(v.highest, 8);
}

static void gap(void **state)
{
	static const __u32 p[] = { 10, 11, 12, 15, 16, 20 };
	struct xl_sink_flow v;

	(void)state;
	send_psns(&F4, p, 6, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.packets, 6);
	assert_int_equal(v.reordered, 0);
	assert_int_equal(lost(&v), 5); /* 13, 14, 17, 18, 19 */
	/* a late one fills a hole: reordered, one fewer lost */
	send_psns(&F4, (const __u32[]){ 18 }, 1, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.reordered, 1);
	assert_int_equal(lost(&v), 4);
}

static void duplicate(void **state)
{
	static const __u32 p[] = { 0, 1, 1, 2, 0, 3, 2 };
	struct xl_sink_flow v;

	(void)state;
	send_psns(&F4, p, 7, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.packets, 7);
	assert_int_equal(v.duplicates, 3); /* 1 (same as highest), 0, 2 */
	assert_int_equal(v.reordered, 0);
	assert_int_equal(lost(&v), 0);
}

static void ce_marks(void **state)
{
	static const __u32 p[] = { 0, 1, 2, 3, 4 };
	struct xl_sink_flow v;

	(void)state;
	send_psns(&F4, p, 5, 0x16); /* packets 1, 2, 4 */
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.ce, 3);
	assert_int_equal(v.packets, 5);
}

static void psn_wrap(void **state)
{
	struct xl_sink_flow v;

	(void)state;
	send_range(&F4, XL_PSN_MASK - 2, 6); /* 0xfffffd .. 0x000002 */
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.packets, 6);
	assert_int_equal(v.reordered, 0);
	assert_int_equal(v.duplicates, 0);
	assert_int_equal(v.span, 5);
	assert_int_equal(v.highest, 2);
	assert_int_equal(lost(&v), 0);
	/* across the wrap, a late 0xffffff is a duplicate, 0x000001 too */
	send_psns(&F4, (const __u32[]){ XL_PSN_MASK, 1 }, 2, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.duplicates, 2);
	assert_int_equal(v.reordered, 0);
	/* a gap across the wrap */
	send_psns(&F4, (const __u32[]){ 5 }, 1, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(lost(&v), 2); /* 3, 4 */
}

static void window(void **state)
{
	struct xl_sink_flow v;

	(void)state;
	send_range(&F4, 0, 3000);
	/* 500 back: inside the 1024-PSN window, known duplicate */
	send_psns(&F4, (const __u32[]){ 2500 }, 1, 0);
	/* 2500 back: older than the window, cannot tell: reordered */
	send_psns(&F4, (const __u32[]){ 499 }, 1, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.duplicates, 1);
	assert_int_equal(v.reordered, 1);
	/* a jump far ahead clears the window: the PSNs below are late,
	 * not duplicates */
	send_psns(&F4, (const __u32[]){ 100000, 99990, 99990 }, 3, 0);
	assert_int_equal(get_flow(skel, &F4, &v), 0);
	assert_int_equal(v.reordered, 2);
	assert_int_equal(v.duplicates, 2);
	assert_int_equal(v.highest, 100000);
}

static void flows_apart(void **state)
{
	struct sent a = F4, b = F4, c = F4;
	struct xl_sink_flow v;

	(void)state;
	b.sport = F4.sport + 1;                       /* other UDP source port */
	c.qp = F4.qp + 1;                             /* other QP */
	memcpy(c.src, (const __u8[])SRC4B, 4);        /* and other source */
	send_range(&a, 0, 3);
	send_range(&b, 100, 4);
	send_range(&c, 7, 5);
	assert_int_equal(get_flow(skel, &a, &v), 0);
	assert_int_equal(v.packets, 3);
	assert_int_equal(get_flow(skel, &b, &v), 0);
	assert_int_equal(v.packets, 4);
	assert_int_equal(get_flow(skel, &c, &v), 0);
	assert_int_equal(v.packets, 5);
	assert_int_equal(lost(&v), 0);
}

static void ipv6(void **state)
{
	static const __u32 p[] = { 7, 8, 10, 9, 9 };
	struct xl_sink_flow v;

	(void)state;
	send_psns(&F6, p, 5, 0x01);
	assert_int_equal(get_flow(skel, &F6, &v), 0);
	assert_int_equal(v.packets, 5);
	assert_int_equal(v.ce, 1);
	assert_int_equal(v.reordered, 1);
	assert_int_equal(v.duplicates, 1);
	assert_int_equal(lost(&v), 0);
	assert_int_equal(v.span, 3);
	/* the IPv4 key with the same low bytes is another flow */
	assert_int_not_equal(get_flow(skel, &F4, &v), 0);
}

static void non_roce_passes(void **state)
{
	__u8 buf[PKT_MAX];
	struct pkt_spec s = {
		.family = 4, .saddr = SRC4, .daddr = DST4, .ttl = 64,
		.proto = PKT_UDP, .sport = 4791, .dport = 53, .payload_len = 40,
	};
	struct pkt_spec tcp = {
		.family = 6, .saddr = SRC6, .daddr = DST6, .ttl = 64,
		.proto = PKT_TCP, .sport = 1000, .dport = 4791, .payload_len = 10,
	};
	struct pkt_spec arp = { .ethertype = PKT_ETH_ARP, .payload_len = 28 };
	size_t len;

	(void)state;
	len = pkt_build(&s, buf, NULL);
	assert_int_equal(run(skel, buf, len), XDP_PASS);
	len = pkt_build(&tcp, buf, NULL);
	assert_int_equal(run(skel, buf, len), XDP_PASS);
	len = pkt_build(&arp, buf, NULL);
	assert_int_equal(run(skel, buf, len), XDP_PASS);
	assert_int_equal(stats(skel).other, 3);
	assert_int_equal(stats(skel).roce, 0);
	assert_int_not_equal(get_flow(skel, &F4, &(struct xl_sink_flow){ 0 }), 0);
}

static void truncated_bth_passes(void **state)
{
	__u8 buf[PKT_MAX];
	struct pkt_off off;
	struct pkt_spec s = {
		.family = 4, .saddr = SRC4, .daddr = DST4, .ttl = 64,
		.proto = PKT_UDP, .sport = 49152, .dport = 4791, .payload_len = 8,
	};
	size_t len = pkt_build(&s, buf, &off);

	(void)state;
	/* 8 bytes after UDP: shorter than a 12-byte BTH */
	assert_int_equal(len - off.l4_end, 8);
	assert_int_equal(run(skel, buf, len), XDP_PASS);
	assert_int_equal(stats(skel).trunc_bth, 1);
	assert_int_equal(stats(skel).roce, 0);
}

/* A RoCEv2 packet whose headers disagree (a stale or half-written
 * header): a bad IPv4 checksum, or a UDP length that is not the IP
 * payload's, IPv4 and IPv6. Passed, counted as malformed, on no flow. */
static void malformed_passes(void **state)
{
	__u8 buf[PKT_MAX];
	struct pkt_off off;
	struct xl_sink_flow v;
	const struct sent *fs[2] = { &F4, &F6 };
	size_t len;
	int i;

	(void)state;
	/* IPv4 header checksum off by one (the TTL a hop changed without
	 * fixing it) */
	len = build(&F4, 7, 26 << 2 | 2, buf);
	buf[14 + 8]--;
	assert_int_equal(run(skel, buf, len), XDP_PASS);
	assert_int_equal(stats(skel).malformed, 1);
	/* UDP length one short of the IP payload's */
	for (i = 0; i < 2; i++) {
		struct pkt_spec s = {
			.family = fs[i]->family, .ttl = 64, .proto = PKT_UDP,
			.sport = fs[i]->sport, .dport = PKT_ROCEV2_PORT, .bth = 1,
			.bth_opcode = XL_BTH_SEND_ONLY, .dest_qp = fs[i]->qp,
			.psn = 7, .payload_len = 64,
		};

		memcpy(s.saddr, fs[i]->src, 16);
		len = pkt_build(&s, buf, &off);
		buf[off.l4 + 5]--;
		assert_int_equal(run(skel, buf, len), XDP_PASS);
		assert_int_equal(stats(skel).malformed, 2 + i);
		assert_int_not_equal(get_flow(skel, fs[i], &v), 0);
	}
	assert_int_equal(stats(skel).roce, 0);
	/* and the same packets unharmed are counted */
	send_range(&F4, 7, 1);
	assert_int_equal(stats(skel).roce, 1);
	assert_int_equal(stats(skel).malformed, 3);
}

/* Respond: one packet of F4 with these BTH word-2 flags and opcode. */
static void send_rc(__u32 psn, __u8 flags, __u8 opcode)
{
	__u8 buf[PKT_MAX];
	struct pkt_spec s = {
		.dst = { 2, 0, 0, 0, 0, 2 },
		.src = { 2, 0, 0, 0, 0, 1 },
		.family = 4, .daddr = DST4, .saddr = SRC4, .ttl = 64, .tos = 26 << 2 | 2,
		.proto = PKT_UDP, .sport = F4.sport, .dport = PKT_ROCEV2_PORT,
		.bth = 1, .bth_opcode = opcode, .dest_qp = F4.qp, .psn = psn,
		.apsn_flags_set = 1, .apsn_flags = flags, .payload_len = 64,
	};
	size_t len = pkt_build(&s, buf, NULL);

	assert_int_equal(run(skel_rc, buf, len), XDP_DROP);
}

static int replies_now(void)
{
	n_got = 0;
	ring_buffer__consume(replies);
	return n_got;
}

static void check_reply(const struct xl_sink_reply *r, __u8 syndrome, __u32 psn, __u32 msn)
{
	static const __u8 smac[6] = { 2, 0, 0, 0, 0, 1 }, dmac[6] = { 2, 0, 0, 0, 0, 2 };
	static const __u8 sa[4] = SRC4, da[4] = DST4;

	assert_int_equal(r->syndrome, syndrome);
	assert_int_equal(r->psn, psn);
	assert_int_equal(r->msn, msn);
	assert_int_equal(r->qp, F4.qp);
	assert_int_equal(r->sport, F4.sport);
	assert_int_equal(r->family, 4);
	assert_int_equal(r->dscp, 26);
	assert_int_equal(r->pkey, 0xffff);
	assert_memory_equal(r->data_smac, smac, 6);
	assert_memory_equal(r->data_dmac, dmac, 6);
	assert_memory_equal(r->data_saddr, sa, 4);
	assert_memory_equal(r->data_daddr, da, 4);
}

/* ACKs only where asked; a gap NAKed once, naming the expected PSN; the
 * packets after it discarded until that PSN comes; a duplicate that asks
 * ACKed again with the last PSN in order; MSN counts messages ended. */
static void respond_go_back_n(void **state)
{
	const __u8 ASK = XL_BTH2_ACKREQ, RE = XL_BTH2_RESENT;
	struct xl_sink_flow v;

	(void)state;
	assert_int_equal(replies_now(), 0);
	send_rc(100, 0, XL_BTH_SEND_FIRST);
	send_rc(101, 0, XL_BTH_SEND_MIDDLE);
	assert_int_equal(replies_now(), 0);
	send_rc(102, ASK, XL_BTH_SEND_LAST);
	assert_int_equal(replies_now(), 1);
	check_reply(&got[0], XL_AETH_ACK, 102, 1);
	/* 103 lost: 104 and 105 (asking) get one NAK for 103 */
	send_rc(104, 0, XL_BTH_SEND_FIRST);
	send_rc(105, ASK, XL_BTH_SEND_MIDDLE);
	assert_int_equal(replies_now(), 1);
	check_reply(&got[0], XL_AETH_NAK_PSN_SEQ, 103, 1);
	/* the resend from 103: 103 accepted (not reordered: marked), 104
	 * accepted, 105 asks: ACK */
	send_rc(103, RE, XL_BTH_SEND_ONLY);
	send_rc(104, RE, XL_BTH_SEND_FIRST);
	send_rc(105, RE | ASK, XL_BTH_SEND_LAST);
	assert_int_equal(replies_now(), 1);
	check_reply(&got[0], XL_AETH_ACK, 105, 3);
	/* a duplicate that asks: ACKed with the last PSN in order */
	send_rc(104, RE | ASK, XL_BTH_SEND_MIDDLE);
	assert_int_equal(replies_now(), 1);
	check_reply(&got[0], XL_AETH_ACK, 105, 3);
	/* a second gap after the first was filled: NAKed again */
	send_rc(108, ASK, XL_BTH_SEND_ONLY);
	assert_int_equal(replies_now(), 1);
	check_reply(&got[0], XL_AETH_NAK_PSN_SEQ, 106, 3);
	assert_int_equal(get_flow(skel_rc, &F4, &v), 0);
	assert_int_equal(v.epsn, 106);
	assert_int_equal(v.msn, 3);
	assert_int_equal(v.naks, 2);
	assert_int_equal(v.acks, 3);
	assert_int_equal(v.out_of_seq, 3); /* 104, 105, 108 */
	assert_int_equal(v.resent, 4);
	assert_int_equal(v.reordered, 0); /* 103 came marked */
	assert_int_equal(v.duplicates, 3); /* 104, 105 again; 104 once more */
	assert_int_equal(stats(skel_rc).replies_lost, 0);
}

/* Without the resent mark, a PSN that fills a hole is a late packet. */
static void respond_late_unmarked(void **state)
{
	struct xl_sink_flow v;

	(void)state;
	send_rc(0, 0, XL_BTH_SEND_ONLY);
	send_rc(2, 0, XL_BTH_SEND_ONLY);
	send_rc(1, 0, XL_BTH_SEND_ONLY);
	assert_int_equal(replies_now(), 1); /* the NAK for 1 */
	assert_int_equal(get_flow(skel_rc, &F4, &v), 0);
	assert_int_equal(v.reordered, 1);
	assert_int_equal(v.epsn, 2);
}

/* Without respond nothing is queued, whatever the packets ask. */
static void no_replies_without_respond(void **state)
{
	struct ring_buffer *rb;

	(void)state;
	send_range(&F4, 0, 3); /* packets.h asks for an ACK on each */
	send_psns(&F4, (const __u32[]){ 7 }, 1, 0);
	n_got = 0;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.sink_replies), take_reply, NULL, NULL);
	assert_non_null(rb);
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	assert_int_equal(n_got, 0);
}

static void pass_mode(void **state)
{
	struct xl_sink_flow v;
	__u8 buf[PKT_MAX];
	size_t len = build(&F4, 42, 26 << 2 | 2, buf);

	(void)state;
	assert_int_equal(run(skel_pass, buf, len), XDP_PASS);
	assert_int_equal(get_flow(skel_pass, &F4, &v), 0);
	assert_int_equal(v.packets, 1);
	assert_int_equal(v.highest, 42);
}

static int group_setup(void **state)
{
	int err;

	(void)state;
	skel = sink__open_and_load();
	if (!skel) {
		print_error("setup: loading sink: %s (needs root)\n", strerror(errno));
		return -1;
	}
	skel_pass = sink__open();
	if (!skel_pass)
		return -1;
	skel_pass->rodata->pass_roce = 1;
	err = sink__load(skel_pass);
	if (err) {
		print_error("setup: loading sink (pass): %s\n", strerror(-err));
		return -1;
	}
	skel_rc = sink__open();
	if (!skel_rc)
		return -1;
	skel_rc->rodata->respond = 1;
	err = sink__load(skel_rc);
	if (err) {
		print_error("setup: loading sink (respond): %s\n", strerror(-err));
		return -1;
	}
	replies = ring_buffer__new(bpf_map__fd(skel_rc->maps.sink_replies), take_reply,
				   NULL, NULL);
	return replies ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	sink__destroy(skel);
	sink__destroy(skel_pass);
	ring_buffer__free(replies);
	sink__destroy(skel_rc);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(in_order, reset),
		cmocka_unit_test_setup(reordered, reset),
		cmocka_unit_test_setup(gap, reset),
		cmocka_unit_test_setup(duplicate, reset),
		cmocka_unit_test_setup(ce_marks, reset),
		cmocka_unit_test_setup(psn_wrap, reset),
		cmocka_unit_test_setup(window, reset),
		cmocka_unit_test_setup(flows_apart, reset),
		cmocka_unit_test_setup(ipv6, reset),
		cmocka_unit_test_setup(non_roce_passes, reset),
		cmocka_unit_test_setup(truncated_bth_passes, reset),
		cmocka_unit_test_setup(malformed_passes, reset),
		cmocka_unit_test_setup(pass_mode, reset),
		cmocka_unit_test_setup(respond_go_back_n, reset),
		cmocka_unit_test_setup(respond_late_unmarked, reset),
		cmocka_unit_test_setup(no_replies_without_respond, reset),
	};

	return cmocka_run_group_tests_name("xdpleaf_sink", tests, group_setup,
					   group_teardown);
}
