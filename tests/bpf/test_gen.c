// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The XDP program `xdpleaf_gen` (bpf/gen.bpf.c) under a plain
 * BPF_PROG_TEST_RUN (no live frames): it stamps descriptor gen_next into
 * the template exactly as user space's xl_gen_desc_apply() does, advances
 * gen_next and redirects to gen_ifindex; frames arriving on any other
 * interface pass untouched (the program is also attached to gen's anchor
 * TAP device). gen_ifindex is the loopback (1), which exists in every
 * network namespace. Needs root (BPF).
 *
 * In live-frames mode the kernel hands the program recycled pages whose
 * bytes a later hop rewrote (bpf/gen.bpf.c explains why), so the input
 * here is often not the template: the output must be the template plus
 * the descriptor whatever the input held. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "roce.h"
#include "gen.skel.h"
#include "traffic/gen_pkt.h"
#include "icrc.h"

#define LO 1

/* gen_ifindex = loopback, for IPv4 and IPv6 templates; and one whose
 * gen_ifindex is some other interface. */
static struct gen *skel4, *skel6, *skel_other;

/* What gen does before a run: the template and its ICRC offset into the
 * program's .bss. */
static void set_template(struct gen *skel, const struct xl_gen_class *c)
{
	skel->bss->gen_icrc_off = c->icrc_off;
	memcpy(skel->bss->gen_frame, c->frame, c->len);
}

/* Run the program once on the frame `in` (c->len bytes). */
static int run_on(struct gen *skel, const struct xl_gen_class *c, const __u8 *in,
		  __u32 ifindex, __u8 *out, __u32 *out_len)
{
	struct xdp_md ctx = { .data_end = c->len, .ingress_ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in,
		.data_size_in = c->len,
		.data_out = out,
		.data_size_out = XL_GEN_MAX_FRAME,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = 1,
	);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xdpleaf_gen),
						&opts), 0);
	*out_len = opts.data_size_out;
	return (int)opts.retval;
}

static int run(struct gen *skel, const struct xl_gen_class *c, __u32 ifindex, __u8 *out,
	       __u32 *out_len)
{
	return run_on(skel, c, c->frame, ifindex, out, out_len);
}

static void make_class(struct xl_gen_class *c, bool ipv6, bool reth, __u32 payload)
{
	struct xl_gen_flowspec fs = {
		.ipv6 = ipv6,
		.src_mac = { 2, 0, 0, 0, 0, 1 },
		.dst_mac = { 2, 0, 0, 0, 0, 2 },
		.saddr = { 10, 1, 1, 2 },
		.daddr = { 10, 2, 1, 2 },
		.tos = 26 << 2 | 2,
		.ttl = 64,
	};
	struct xl_gen_qpid q[2] = { { 0x100, 49152 }, { 0xabcdef, 65535 } };

	if (ipv6) {
		memcpy(fs.saddr, (const __u8[16]){ 0xfd, 0, 0, 1, [15] = 2 }, 16);
		memcpy(fs.daddr, (const __u8[16]){ 0xfd, 0, 0, 2, [15] = 2 }, 16);
	}
	assert_int_equal(xl_gen_class_init(c, &fs, payload, reth, 4096,
					   XL_BTH_SEND_ONLY, q, 2), 0);
}

static void check(bool ipv6, bool reth, __u32 payload)
{
	struct xl_gen_class *c = malloc(sizeof(*c));
	struct xl_gen_qpid q[2] = { { 0x100, 49152 }, { 0xabcdef, 65535 } };
	struct gen *skel = ipv6 ? skel6 : skel4;
	__u8 out[XL_GEN_MAX_FRAME], want[XL_GEN_MAX_FRAME];
	__u32 i, len;

	assert_non_null(c);
	make_class(c, ipv6, reth, payload);
	/* the .bss is mmapped: write descriptors as gen does */
	for (i = 0; i < 8; i++)
		xl_gen_desc_fill(c, i & 1, &q[i & 1], (__u8)(i % 3), 0xfffffc + i,
				 (__u8)(i & 2 ? XL_BTH2_ACKREQ | XL_BTH2_RESENT : 0),
				 &skel->bss->gen_descs[i]);
	set_template(skel, c);
	skel->bss->gen_next = 0;
	for (i = 0; i < 8; i++) {
		assert_int_equal(run(skel, c, LO, out, &len), XDP_REDIRECT);
		assert_int_equal(len, c->len);
		memcpy(want, c->frame, c->len);
		xl_gen_desc_apply(c, &skel->bss->gen_descs[i], want);
		assert_memory_equal(out, want, c->len);
		assert_int_equal(skel->bss->gen_next, i + 1);
		/* and the result is a valid packet: the ICRC checks */
		assert_int_equal(xl_icrc_get(out + c->icrc_off),
				 xl_icrc(out + c->l3_off, c->icrc_off - c->l3_off,
					 c->udp_off - c->l3_off, ipv6));
	}
	xl_gen_class_free(c);
	free(c);
}

static void stamps_ipv4(void **state) { (void)state; check(false, false, 1024); }
static void stamps_ipv4_reth(void **state) { (void)state; check(false, true, 256); }
static void stamps_ipv6_pad(void **state) { (void)state; check(true, false, 99); }

/* A page that comes back from the fabric: a later hop rewrote it in place
 * (other MACs, TTL and checksum, CE, another QP and PSN), or it holds
 * anything at all. Every byte of the output must be gen's. */
static void recycled_page(bool ipv6, bool reth, __u32 payload)
{
	struct xl_gen_class *c = malloc(sizeof(*c));
	struct xl_gen_qpid q = { 0x100, 49152 };
	struct gen *skel = ipv6 ? skel6 : skel4;
	__u8 in[XL_GEN_MAX_FRAME], out[XL_GEN_MAX_FRAME], want[XL_GEN_MAX_FRAME];
	__u32 i, len, round;

	assert_non_null(c);
	make_class(c, ipv6, reth, payload);
	set_template(skel, c);
	for (round = 0; round < 3; round++) {
		memcpy(in, c->frame, c->len);
		if (round == 0) {
			/* as a spine's forwarding leaves it */
			memset(in, 0xaa, 12);
			in[c->l3_off + (ipv6 ? 7 : 8)] -= 2;       /* TTL / hop limit */
			in[c->l3_off + 1] |= ipv6 ? 0x30 : 3;      /* CE */
			in[c->l3_off + (ipv6 ? 9 : 10)] ^= 0x5a;   /* addr / checksum */
			in[c->udp_off + 1] ^= 0xff;                /* source port */
			in[c->bth_off + 7] ^= 0xff;                /* QP */
		} else {
			/* anything: every byte */
			for (i = 0; i < c->len; i++)
				in[i] = (__u8)(round == 1 ? 0xff : i * 131 + 17);
		}
		xl_gen_desc_fill(c, 0, &q, XL_BTH_SEND_ONLY, 1000 + round, 0,
				 &skel->bss->gen_descs[0]);
		skel->bss->gen_next = 0;
		assert_int_equal(run_on(skel, c, in, LO, out, &len), XDP_REDIRECT);
		assert_int_equal(len, c->len);
		memcpy(want, c->frame, c->len);
		xl_gen_desc_apply(c, &skel->bss->gen_descs[0], want);
		assert_memory_equal(out, want, c->len);
	}
	xl_gen_class_free(c);
	free(c);
}

static void recycled_ipv4(void **state) { (void)state; recycled_page(false, false, 1024); }
static void recycled_ipv6_reth(void **state) { (void)state; recycled_page(true, true, 3000); }

static void other_ingress_passes(void **state)
{
	struct xl_gen_class *c = malloc(sizeof(*c));
	__u8 out[XL_GEN_MAX_FRAME];
	__u32 len;

	(void)state;
	assert_non_null(c);
	make_class(c, false, false, 64);
	set_template(skel_other, c);
	skel_other->bss->gen_next = 0;
	/* arriving on the loopback, which is not this one's gen_ifindex */
	assert_int_equal(run(skel_other, c, LO, out, &len), XDP_PASS);
	assert_memory_equal(out, c->frame, c->len);
	assert_int_equal(skel_other->bss->gen_next, 0);
	xl_gen_class_free(c);
	free(c);
}

static void end_of_descriptors_aborts(void **state)
{
	struct xl_gen_class *c = malloc(sizeof(*c));
	__u8 out[XL_GEN_MAX_FRAME];
	__u32 len;

	(void)state;
	assert_non_null(c);
	make_class(c, false, false, 64);
	set_template(skel4, c);
	skel4->bss->gen_next = XL_GEN_MAX_BATCH;
	assert_int_equal(run(skel4, c, LO, out, &len), XDP_ABORTED);
	assert_int_equal(skel4->bss->gen_next, XL_GEN_MAX_BATCH);
	/* an ICRC offset past the frame is refused too */
	skel4->bss->gen_next = 0;
	skel4->bss->gen_icrc_off = c->len - 3;
	assert_int_equal(run(skel4, c, LO, out, &len), XDP_ABORTED);
	assert_int_equal(skel4->bss->gen_next, 0);
	xl_gen_class_free(c);
	free(c);
}

static struct gen *load(__u32 ifindex, __u32 udp_off)
{
	struct gen *g = gen__open();
	int err;

	if (!g)
		return NULL;
	g->rodata->gen_ifindex = ifindex;
	g->rodata->gen_udp_off = udp_off;
	err = gen__load(g);
	if (err) {
		print_error("setup: loading gen: %s (needs root)\n", strerror(-err));
		gen__destroy(g);
		return NULL;
	}
	return g;
}

static int group_setup(void **state)
{
	(void)state;
	skel4 = load(LO, XL_GEN_ETH_LEN + 20);
	skel6 = load(LO, XL_GEN_ETH_LEN + 40);
	skel_other = load(12345, XL_GEN_ETH_LEN + 20);
	return skel4 && skel6 && skel_other ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	gen__destroy(skel4);
	gen__destroy(skel6);
	gen__destroy(skel_other);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stamps_ipv4),
		cmocka_unit_test(stamps_ipv4_reth),
		cmocka_unit_test(stamps_ipv6_pad),
		cmocka_unit_test(recycled_ipv4),
		cmocka_unit_test(recycled_ipv6_reth),
		cmocka_unit_test(other_ingress_passes),
		cmocka_unit_test(end_of_descriptors_aborts),
	};

	return cmocka_run_group_tests_name("xdpleaf_gen", tests, group_setup,
					   group_teardown);
}
