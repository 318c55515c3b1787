// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the pure helpers the dataplane shares with user space:
 * include/csum.h (checked against an independent RFC 1071 reference) and
 * include/lb.h (bounds, sensitivity and spread of the uplink choice). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>

#include "csum.h"
#include "lb.h"
#include "base/rng.h"

/* The member lb_mode = hash picks with every member up (bpf/uplink.h). */
static inline int hash_member(const struct xl_group *g, const struct xl_flow *f)
{
	return xl_pick_hash_up(xl_flow_hash(f, 0), g->n_members, XL_ALL_UP);
}

/* ---- helpers ------------------------------------------------------------ */

static __u64 rng_state = 0x9e3779b97f4a7c15ull;

static __u32 rnd(void)
{
	return xl_rand32(&rng_state);
}

/* Reference Internet checksum: big-endian words, end-around carry. */
static __u16 ref_csum(const __u8 *p, size_t len)
{
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static __u16 get_be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* The header checksum written from scratch, as the reference does. */
static void ref_fill(__u8 *h)
{
	size_t hlen = (size_t)(h[0] & 0xf) * 4;

	put_be16(h + 10, 0);
	put_be16(h + 10, ref_csum(h, hlen));
}

/* A random, well-formed IPv4 header (IHL 5..15, options random bytes)
 * with a correct checksum. Returns its length. */
static size_t random_header(__u8 *h)
{
	size_t hlen = 20 + 4 * (rnd() % 11), i;

	for (i = 0; i < hlen; i++)
		h[i] = (__u8)rnd();
	h[0] = (__u8)(0x40 | hlen / 4);
	ref_fill(h);
	return hlen;
}

/* Set the IP ID so that the header's checksum field is 0x0000, i.e. the
 * one's complement sum of the other words is 0xFFFF. */
static void force_zero_csum(__u8 *h, size_t hlen)
{
	__u16 rest;

	put_be16(h + 4, 0);
	put_be16(h + 10, 0);
	rest = (__u16)~ref_csum(h, hlen); /* folded sum without the ID */
	put_be16(h + 4, (__u16)~rest);
	ref_fill(h);
	assert_int_equal(get_be16(h + 10), 0x0000);
}

/* The dataplane works on raw (network order) 16-bit words loaded from
 * the packet: emulate that with native loads/stores. */
static __u16 load16(const __u8 *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return v;
}

static void store16(__u8 *p, __u16 v)
{
	memcpy(p, &v, 2);
}

/* Decrement the TTL the way bpf/rewrite.h may: over the whole TTL+protocol
 * word (full_word) or over the TTL byte alone (protocol byte zero). */
static void decrement_ttl(__u8 *h, int full_word)
{
	__u8 ttl = h[8];
	__u16 old, new;

	if (full_word) {
		old = load16(h + 8);
		h[8] = (__u8)(ttl - 1);
		new = load16(h + 8);
	} else {
		h[8] = (__u8)(ttl - 1);
		old = htons((__u16)(ttl << 8));
		new = htons((__u16)((__u8)(ttl - 1) << 8));
	}
	store16(h + 10, xl_csum_replace16(load16(h + 10), old, new));
}

/* After an incremental update, the header must equal a full recompute. */
static void assert_csum_is_full(const __u8 *h, size_t hlen, const char *what,
				unsigned int ttl)
{
	__u8 ref[60];

	memcpy(ref, h, hlen);
	ref_fill(ref);
	if (get_be16(h + 10) != get_be16(ref + 10))
		fail_msg("%s, TTL %u -> %u: incremental 0x%04x, full 0x%04x",
			 what, ttl, (ttl - 1) & 0xff, get_be16(h + 10),
			 get_be16(ref + 10));
}

/* ---- csum.h ------------------------------------------------------------- */

static void csum_fold_values(void **state)
{
	(void)state;
	assert_int_equal(xl_csum_fold(0), 0x0000);
	assert_int_equal(xl_csum_fold(0xffff), 0xffff);
	assert_int_equal(xl_csum_fold(0x10000), 0x0001);
	assert_int_equal(xl_csum_fold(0x1fffe), 0xffff);
	assert_int_equal(xl_csum_fold(0x2fffd), 0xffff);
	assert_int_equal(xl_csum_fold(0xffffffff), 0xffff);
	assert_int_equal(xl_csum_fold(0x12345678), 0x68ac);
}

static void csum_full_matches_reference(void **state)
{
	__u8 h[60];
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		size_t hlen = random_header(h);
		__u16 want = get_be16(h + 10);

		store16(h + 10, 0);
		store16(h + 10, xl_csum_full(h, (int)hlen));
		if (get_be16(h + 10) != want)
			fail_msg("header %d (%zu bytes): xl_csum_full 0x%04x, "
				 "reference 0x%04x", i, hlen, get_be16(h + 10),
				 want);
		/* and a correct header sums to zero */
		assert_int_equal(xl_csum_full(h, (int)hlen), 0);
	}
}

/* RFC 1624 section 4: m 0x5555 -> 0x3285 with HC 0xDD2F must give 0x0000
 * (eqn. 2 gives 0xFFFF). The function is byte-order agnostic. */
static void csum_replace16_rfc1624_example(void **state)
{
	(void)state;
	assert_int_equal(xl_csum_replace16(0xdd2f, 0x5555, 0x3285), 0x0000);
	assert_int_equal(xl_csum_replace16(htons(0xdd2f), htons(0x5555),
					   htons(0x3285)),
			 0x0000);
	/* and back */
	assert_int_equal(xl_csum_replace16(0x0000, 0x3285, 0x5555), 0xdd2f);
	/* no change, no change (incl. the two zeros) */
	assert_int_equal(xl_csum_replace16(0x1234, 0xabcd, 0xabcd), 0x1234);
	assert_int_equal(xl_csum_replace16(0x0000, 0xabcd, 0xabcd), 0x0000);
}

static void csum_replace16_every_ttl(void **state)
{
	__u8 h[60], orig[60];
	unsigned int ttl;
	int i, full;

	(void)state;
	for (i = 0; i < 1000; i++) {
		size_t hlen = random_header(orig);

		for (full = 0; full <= 1; full++) {
			for (ttl = 1; ttl <= 255; ttl++) {
				memcpy(h, orig, hlen);
				h[8] = (__u8)ttl;
				ref_fill(h);
				decrement_ttl(h, full);
				assert_int_equal(h[8], ttl - 1);
				assert_csum_is_full(h, hlen,
						    full ? "TTL+proto word" :
							   "TTL byte",
						    ttl);
				/* a correct checksum is never 0xFFFF */
				assert_int_not_equal(get_be16(h + 10), 0xffff);
			}
		}
	}
}

/* Checksums at 0x0000 before or after the update, and 0xFFFF (the other
 * zero, which receivers accept) before it, for every TTL. */
static void csum_replace16_zero_edges(void **state)
{
	__u8 h[60];
	unsigned int ttl;
	int i, full;

	(void)state;
	for (i = 0; i < 50; i++) {
		for (full = 0; full <= 1; full++) {
			for (ttl = 1; ttl <= 255; ttl++) {
				size_t hlen = random_header(h);

				/* 0x0000 in */
				h[8] = (__u8)ttl;
				force_zero_csum(h, hlen);
				decrement_ttl(h, full);
				assert_csum_is_full(h, hlen, "0x0000 in", ttl);

				/* 0xFFFF in */
				h[8] = (__u8)ttl;
				force_zero_csum(h, hlen);
				put_be16(h + 10, 0xffff);
				decrement_ttl(h, full);
				assert_csum_is_full(h, hlen, "0xFFFF in", ttl);

				/* 0x0000 out: tune the ID with the new TTL */
				h[8] = (__u8)(ttl - 1);
				force_zero_csum(h, hlen);
				h[8] = (__u8)ttl;
				ref_fill(h);
				decrement_ttl(h, full);
				if (get_be16(h + 10) != 0x0000)
					fail_msg("TTL %u -> %u: want 0x0000, "
						 "got 0x%04x", ttl, ttl - 1,
						 get_be16(h + 10));
			}
		}
	}
}

/* Any word of the header, any new value. */
static void csum_replace16_any_word(void **state)
{
	__u8 h[60];
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		size_t hlen = random_header(h), w;
		__u16 old, new;

		if (i % 11 == 0)
			force_zero_csum(h, hlen);
		do
			w = 2 * (rnd() % (hlen / 2));
		while (w == 10);
		old = load16(h + w);
		new = (__u16)rnd();
		if (i % 7 == 0)
			new = (__u16)~old; /* biggest change */
		store16(h + w, new);
		if (w == 0) { /* keep version and IHL: they give the length */
			h[0] = (__u8)(0x40 | hlen / 4);
			new = load16(h);
		}
		store16(h + 10, xl_csum_replace16(load16(h + 10), old, new));
		assert_csum_is_full(h, hlen, "random word", h[8]);
	}
}

/* ---- lb.h --------------------------------------------------------------- */

static void pick_by_hash_bounds(void **state)
{
	__u32 n, k;
	int i;

	(void)state;
	assert_int_equal(xl_pick_by_hash(0, 0), -1);
	assert_int_equal(xl_pick_by_hash(0xffffffff, 0), -1);
	assert_int_equal(xl_pick_by_hash(12345, XL_MAX_GROUP_MEMBERS + 1), -1);
	assert_int_equal(xl_pick_by_hash(12345, 0xffffffff), -1);
	for (n = 1; n <= 16; n++) {
		assert_int_equal(xl_pick_by_hash(0, n), 0);
		assert_int_equal(xl_pick_by_hash(0xffffffff, n), (int)n - 1);
		/* the first hash of bucket k is ceil(k * 2^32 / n) */
		for (k = 1; k < n; k++) {
			__u64 first = (((__u64)k << 32) + n - 1) / n;

			assert_int_equal(xl_pick_by_hash((__u32)first, n),
					 (int)k);
			assert_int_equal(xl_pick_by_hash((__u32)(first - 1), n),
					 (int)k - 1);
		}
		for (i = 0; i < 10000; i++) {
			__u32 a = rnd(), b = rnd();
			int pa = xl_pick_by_hash(a, n), pb = xl_pick_by_hash(b, n);

			assert_in_range(pa, 0, n - 1);
			/* monotonic in the hash */
			if (a <= b)
				assert_true(pa <= pb);
		}
	}
}

static void pick_by_hash_even(void **state)
{
	const int samples = 160000;
	unsigned int count[16];
	__u32 n, k;
	int i;

	(void)state;
	for (n = 1; n <= 16; n++) {
		double want = (double)samples / n;

		memset(count, 0, sizeof(count));
		for (i = 0; i < samples; i++)
			count[xl_pick_by_hash(rnd(), n)]++;
		for (k = 0; k < n; k++)
			if (count[k] < want * 0.9 || count[k] > want * 1.1)
				fail_msg("n=%u: member %u got %u of %d, "
					 "want about %.0f", n, k, count[k],
					 samples, want);
	}
}

static void random_flow(struct xl_flow *f, int family)
{
	int i, alen = family == 4 ? 4 : 16;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < alen; i++) {
		f->saddr[i] = (__u8)rnd();
		f->daddr[i] = (__u8)rnd();
	}
	f->sport = (__u16)rnd();
	f->dport = (__u16)rnd();
	f->proto = (rnd() & 1) ? 6 : 17;
	f->family = (__u8)family;
}

static void flow_hash_deterministic(void **state)
{
	struct xl_flow a, b;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		random_flow(&a, i & 1 ? 4 : 6);
		memcpy(&b, &a, sizeof(a));
		assert_int_equal(xl_flow_hash(&a, 0), xl_flow_hash(&b, 0));
		assert_int_equal(xl_flow_hash(&a, 7), xl_flow_hash(&b, 7));
		assert_int_not_equal(xl_flow_hash(&a, 0), xl_flow_hash(&a, 1));
	}
}

/* Changing any single field (every bit of every field, and the family)
 * changes the hash. */
static void flow_hash_any_field_changes(void **state)
{
	struct xl_flow base, f;
	__u32 h0;
	int i, bit;

	(void)state;
	for (i = 0; i < 400; i++) {
		random_flow(&base, i & 1 ? 4 : 6);
		h0 = xl_flow_hash(&base, 0);
		for (bit = 0; bit < 128; bit++) {
			f = base;
			f.saddr[bit / 8] ^= (__u8)(1u << (bit % 8));
			if (xl_flow_hash(&f, 0) == h0)
				fail_msg("flow %d: saddr bit %d", i, bit);
			f = base;
			f.daddr[bit / 8] ^= (__u8)(1u << (bit % 8));
			if (xl_flow_hash(&f, 0) == h0)
				fail_msg("flow %d: daddr bit %d", i, bit);
		}
		for (bit = 0; bit < 16; bit++) {
			f = base;
			f.sport ^= (__u16)(1u << bit);
			if (xl_flow_hash(&f, 0) == h0)
				fail_msg("flow %d: sport bit %d", i, bit);
			f = base;
			f.dport ^= (__u16)(1u << bit);
			if (xl_flow_hash(&f, 0) == h0)
				fail_msg("flow %d: dport bit %d", i, bit);
		}
		for (bit = 0; bit < 8; bit++) {
			f = base;
			f.proto ^= (__u8)(1u << bit);
			if (xl_flow_hash(&f, 0) == h0)
				fail_msg("flow %d: proto bit %d", i, bit);
		}
		f = base;
		f.family = base.family == 4 ? 6 : 4;
		if (xl_flow_hash(&f, 0) == h0)
			fail_msg("flow %d: family", i);
		/* ports are not interchangeable, nor are the directions */
		f = base;
		f.sport = base.dport;
		f.dport = base.sport;
		if (base.sport != base.dport && xl_flow_hash(&f, 0) == h0)
			fail_msg("flow %d: swapped ports", i);
		/* source and destination are not interchangeable */
		f = base;
		memcpy(f.saddr, base.daddr, 16);
		memcpy(f.daddr, base.saddr, 16);
		f.sport = base.dport;
		f.dport = base.sport;
		if (xl_flow_hash(&f, 0) == h0)
			fail_msg("flow %d: swapped direction", i);
	}
}

/* Flows differing only in the source port spread evenly over n members. */
static void choose_member_spread(void **state)
{
	struct xl_group g;
	struct xl_flow f;
	unsigned int count[XL_MAX_GROUP_MEMBERS];
	const int nflows = 20000;
	__u32 n, k;
	int i, fam;

	(void)state;
	for (fam = 4; fam <= 6; fam += 2) {
		random_flow(&f, fam);
		for (n = 1; n <= XL_MAX_GROUP_MEMBERS; n++) {
			double want = (double)nflows / n;

			memset(&g, 0, sizeof(g));
			g.lb_mode = XL_LB_HASH;
			g.n_members = n;
			memset(count, 0, sizeof(count));
			for (i = 0; i < nflows; i++) {
				int m;

				f.sport = (__u16)(1024 + i);
				m = hash_member(&g, &f);
				assert_in_range(m, 0, n - 1);
				count[m]++;
			}
			for (k = 0; k < n; k++)
				if (count[k] < want * 0.8 ||
				    count[k] > want * 1.2)
					fail_msg("IPv%d n=%u: member %u got %u "
						 "of %d flows", fam, n, k,
						 count[k], nflows);
		}
	}
	/* the acceptance bar of the BPF test: 4 members, 1000 flows */
	random_flow(&f, 4);
	memset(&g, 0, sizeof(g));
	g.n_members = 4;
	memset(count, 0, sizeof(count));
	for (i = 0; i < 1000; i++) {
		f.sport = (__u16)(30000 + i);
		count[hash_member(&g, &f)]++;
	}
	for (k = 0; k < 4; k++)
		assert_in_range(count[k], 150, 350);
}

static void choose_member_edges(void **state)
{
	struct xl_group g;
	struct xl_flow f;
	int i;

	(void)state;
	memset(&g, 0, sizeof(g));
	random_flow(&f, 4);
	g.n_members = 0;
	assert_int_equal(hash_member(&g, &f), -1);
	g.n_members = XL_MAX_GROUP_MEMBERS + 1;
	assert_int_equal(hash_member(&g, &f), -1);
	g.n_members = 1;
	for (i = 0; i < 100; i++) {
		random_flow(&f, i & 1 ? 4 : 6);
		assert_int_equal(hash_member(&g, &f), 0);
	}
	/* with every member up, hash mode is xl_pick_by_hash(xl_flow_hash) */
	g.n_members = 7;
	for (i = 0; i < 1000; i++) {
		int want;

		random_flow(&f, i & 1 ? 4 : 6);
		want = xl_pick_by_hash(xl_flow_hash(&f, 0), 7);
		assert_int_equal(hash_member(&g, &f), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csum_fold_values),
		cmocka_unit_test(csum_full_matches_reference),
		cmocka_unit_test(csum_replace16_rfc1624_example),
		cmocka_unit_test(csum_replace16_every_ttl),
		cmocka_unit_test(csum_replace16_zero_edges),
		cmocka_unit_test(csum_replace16_any_word),
		cmocka_unit_test(pick_by_hash_bounds),
		cmocka_unit_test(pick_by_hash_even),
		cmocka_unit_test(flow_hash_deterministic),
		cmocka_unit_test(flow_hash_any_field_changes),
		cmocka_unit_test(choose_member_spread),
		cmocka_unit_test(choose_member_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
