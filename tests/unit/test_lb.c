// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the uplink choice of include/lb.h with synthetic values:
 * the utilization of a member (capacity weighting, the queue term,
 * saturation), the least-utilized pick and its tie rotation, the
 * capacity-weighted spray, ECMP over the members that are up, the flowlet
 * gap at its boundaries, the reorder-free rule for moves and the queueing
 * delays it compares, the uplink rate estimator, and a small synthetic
 * simulation of flowlet switching for NCCL-like traffic that drives the
 * same functions the dataplane uses (bpf/uplink.h), with its constants.
 *
 * Expected values come from the definitions (shares, exact fractions in
 * double or 128-bit arithmetic), not from lb.h's own fixed-point formulas;
 * tolerances are stated where the fixed point must differ. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "lb.h"
#include "base/rng.h"

/* ---- helpers ------------------------------------------------------------ */

typedef unsigned __int128 u128;

#define NS_PER_S 1000000000ULL
#define NS_PER_US 1000ULL
#define GBPS 1000000000ULL
#define TAU XL_RATE_TAU_NS
#define TIE XL_LB_TIE

static __u64 rng_state;

static void rng_seed(__u64 s)
{
	rng_state = s ? s : 0x2545f4914f6cdd1dull;
}

static __u32 rnd32(void)
{
	return xl_rand32(&rng_state);
}

/* Utilization by the definition: (rate + queue * 8 / tau) / cap, in
 * 1/65536, floored, saturated at 0xfffffffe; cap 0 counts as 1 Gb/s. */
static __u32 ref_util(__u64 rate, __u64 qbytes, __u64 cap, __u64 tau)
{
	u128 load = (u128)rate * tau + (u128)qbytes * 8 * NS_PER_S;
	u128 u;

	if (!cap)
		cap = XL_LB_UNKNOWN_CAP;
	u = (load << 16) / ((u128)cap * tau);
	return u > 0xfffffffeU ? 0xfffffffeU : (__u32)u;
}

/* ---- xl_member_util ----------------------------------------------------- */

/* Equal rates on 2:1:1:1 capacities: the big member is half as utilized. */
static void util_capacity_weighting(void **state)
{
	static const __u64 cap[4] = { 200 * GBPS, 100 * GBPS, 100 * GBPS,
				      100 * GBPS };
	static const __u64 rates[] = { 1, 1000, 1000000, GBPS, 37 * GBPS,
				       50 * GBPS, 100 * GBPS, 400 * GBPS };
	__u32 u[4];
	size_t r;
	int i;

	(void)state;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (i = 0; i < 4; i++) {
			u[i] = xl_member_util(rates[r], 0, cap[i], TAU);
			assert_int_equal(u[i],
					 ref_util(rates[r], 0, cap[i], TAU));
		}
		/* floor(x / 2) vs floor(x): within one unit of exactly half */
		assert_true(u[0] * 2ULL <= u[1] && u[1] <= u[0] * 2ULL + 1);
		assert_int_equal(u[1], u[2]);
		assert_int_equal(u[1], u[3]);
	}
	/* 50 Gb/s on 200 G is a quarter, on 100 G a half, exactly */
	assert_int_equal(xl_member_util(50 * GBPS, 0, 200 * GBPS, TAU),
			 XL_UTIL_ONE / 4);
	assert_int_equal(xl_member_util(50 * GBPS, 0, 100 * GBPS, TAU),
			 XL_UTIL_ONE / 2);
	assert_int_equal(xl_member_util(100 * GBPS, 0, 100 * GBPS, TAU),
			 XL_UTIL_ONE);
	assert_int_equal(xl_member_util(0, 0, 100 * GBPS, TAU), 0);
	/* the big member carrying twice the rate is as utilized as a small
	 * one: that is the balance flowlet switching aims for */
	assert_int_equal(xl_member_util(60 * GBPS, 0, 200 * GBPS, TAU),
			 xl_member_util(30 * GBPS, 0, 100 * GBPS, TAU));
}

/* Unknown capacity (0): every member counts the same capacity, so members
 * compare by rate alone. */
static void util_unknown_capacity(void **state)
{
	__u32 a, b, c;

	(void)state;
	a = xl_member_util(1 * GBPS, 0, 0, TAU);
	b = xl_member_util(2 * GBPS, 0, 0, TAU);
	c = xl_member_util(2 * GBPS + 1000000, 0, 0, TAU);
	assert_int_equal(a, ref_util(1 * GBPS, 0, 0, TAU));
	assert_int_equal(a, XL_UTIL_ONE); /* 1 Gb/s on the 1 Gb/s stand-in */
	assert_true(a < b && b < c);
	assert_true(b >= 2 * a - 1 && b <= 2 * a + 1);
	assert_int_equal(xl_member_util(0, 0, 0, TAU), 0);
	/* equal rates, unknown capacities: equal utilization */
	assert_int_equal(xl_member_util(7 * GBPS, 0, 0, TAU),
			 xl_member_util(7 * GBPS, 0, 0, TAU));
}

/* The queue term: q bytes add q * 8 / tau to the load (what the queue
 * needs to drain within tau). */
static void util_queue_term(void **state)
{
	const __u64 cap = 100 * GBPS;
	/* 500 us at 100 Gb/s is 6.25 MB: that queue alone is a full load */
	const __u64 q_full = cap / 8 * TAU / NS_PER_S;
	static const __u64 qs[] = { 1, 64, 1500, 4096, 65536, 1000000,
				    6250000, 50000000,
				    268435456 /* 256 MiB: largest buffer */ };
	size_t i;

	(void)state;
	assert_int_equal(q_full, 6250000);
	assert_int_equal(xl_member_util(0, q_full, cap, TAU), XL_UTIL_ONE);
	assert_int_equal(xl_member_util(0, q_full / 2, cap, TAU),
			 XL_UTIL_ONE / 2);
	/* half the rate plus a queue worth the other half: full */
	assert_int_equal(xl_member_util(cap / 2, q_full / 2, cap, TAU),
			 XL_UTIL_ONE);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		assert_int_equal(xl_member_util(10 * GBPS, qs[i], cap, TAU),
				 ref_util(10 * GBPS, qs[i], cap, TAU));
		assert_int_equal(xl_member_util(0, qs[i], 0, TAU),
				 ref_util(0, qs[i], 0, TAU));
		/* a queue never makes a member look less busy */
		assert_true(xl_member_util(10 * GBPS, qs[i], cap, TAU) >=
			    xl_member_util(10 * GBPS, 0, cap, TAU));
	}
	/* a shorter tau weighs the same queue more */
	assert_true(xl_member_util(0, 100000, cap, TAU / 10) >
		    xl_member_util(0, 100000, cap, TAU));
}

/* Saturation: a load of 65536 x capacity or more reads 0xfffffffe (one
 * below the 0xffffffff the dataplane uses for "no such member"). */
static void util_saturation(void **state)
{
	const __u64 cap = 65536; /* 1 unit of utilization per bit/s */

	(void)state;
	assert_int_equal(xl_member_util(0xfffffffdULL, 0, cap, TAU),
			 0xfffffffdU);
	assert_int_equal(xl_member_util(0xfffffffeULL, 0, cap, TAU),
			 0xfffffffeU);
	assert_int_equal(xl_member_util(0xffffffffULL, 0, cap, TAU),
			 0xfffffffeU);
	assert_int_equal(xl_member_util(0x100000000ULL, 0, cap, TAU),
			 0xfffffffeU);
	/* 1.6 Tb/s on a 1 Mb/s port, on an unknown one, on 1 b/s */
	assert_int_equal(xl_member_util(1600 * GBPS, 0, 1000000, TAU),
			 0xfffffffeU);
	assert_int_equal(xl_member_util(1600 * GBPS, 0, 1, TAU), 0xfffffffeU);
	assert_int_equal(xl_member_util(1600 * GBPS, 0, 0, TAU),
			 ref_util(1600 * GBPS, 0, 0, TAU));
	/* a queue far larger than the port drains in tau */
	assert_int_equal(xl_member_util(0, 1ULL << 30, 1000000, TAU),
			 0xfffffffeU);
}

/* The queue term must not wrap for any queue the dataplane can read.
 * Tail drop keeps a queue within its buffer (at most 256 MiB, checked in
 * util_queue_term), but the "cnp" class is never tail-dropped, so its
 * phantom queue may pass the buffer, and xl_backlog reads up to 2^40 ns of
 * it (about 1.4e13 bytes at 100 Gb/s). From 2^64 / 8e9 = 2305843009 bytes
 * on, queue_bytes * 8 * 1e9 no longer fits 64 bits in xl_member_util and
 * the utilization wraps to a smaller value: a member with a 3 GB queue
 * then looks less busy than one with 2 GB. Want: exact (the 128-bit
 * reference), which saturates long before 2^40 ns of queue. */
static void util_queue_no_wrap(void **state)
{
	const __u64 cap = 100 * GBPS;
	static const __u64 qs[] = {
		268435456ULL,           /* 256 MiB: the largest buffer */
		2000000000ULL,
		2305843009ULL,          /* the last that fits */
		2305843010ULL,          /* the first that does not */
		3000000000ULL,
		1ULL << 40,
		(1ULL << 40) / 8 * 100, /* 2^40 ns at 100 Gb/s */
	};
	__u32 prev = 0, got;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		got = xl_member_util(0, qs[i], cap, TAU);
		if (got != ref_util(0, qs[i], cap, TAU) || got < prev)
			fail_msg("queue %llu bytes on 100 Gb/s: util 0x%x, "
				 "want 0x%x (previous, shorter queue: 0x%x)",
				 (unsigned long long)qs[i], got,
				 ref_util(0, qs[i], cap, TAU), prev);
		prev = got;
	}
}

/* ---- xl_pick_least ------------------------------------------------------ */

static void least_lowest_wins(void **state)
{
	__u32 util[4] = { 30000, 20000, 10000, 40000 };
	__u32 s;

	(void)state;
	for (s = 0; s < 8; s++)
		assert_int_equal(xl_pick_least(util, 4, XL_ALL_UP, s, TIE), 2);
	util[0] = 0;
	for (s = 0; s < 8; s++)
		assert_int_equal(xl_pick_least(util, 4, XL_ALL_UP, s, TIE), 0);
	/* the lowest is clear of the rest by more than the tie */
	util[0] = 5000;
	util[1] = 5000 + TIE + 1;
	util[2] = 5000 + TIE + 2;
	util[3] = 0xfffffffeU;
	for (s = 0; s < 8; s++)
		assert_int_equal(xl_pick_least(util, 4, XL_ALL_UP, s, TIE), 0);
}

/* Members within tie of the lowest rotate with start; 4 equal members and
 * start 0..7 give each member twice, in order. */
static void least_ties_rotate(void **state)
{
	__u32 equal[4] = { 1234, 1234, 1234, 1234 };
	/* 0 and 2 within the tie (2 exactly at best + tie), 1 and 3 not */
	__u32 near[4] = { 1000, 1000 + TIE + 1, 1000 + TIE, 900000 };
	unsigned int count[4] = { 0 };
	__u32 s;
	int m;

	(void)state;
	for (s = 0; s < 8; s++) {
		m = xl_pick_least(equal, 4, XL_ALL_UP, s, TIE);
		assert_int_equal(m, (int)(s % 4));
		count[m]++;
	}
	for (m = 0; m < 4; m++)
		assert_int_equal(count[m], 2);
	memset(count, 0, sizeof(count));
	for (s = 0; s < 8; s++) {
		m = xl_pick_least(near, 4, XL_ALL_UP, s, TIE);
		assert_true(m == 0 || m == 2);
		count[m]++;
	}
	assert_int_equal(count[0], 4); /* even starts: the first tied */
	assert_int_equal(count[2], 4); /* odd starts: the second */
	assert_int_equal(xl_pick_least(near, 4, XL_ALL_UP, 1, TIE), 2);
	assert_int_equal(xl_pick_least(near, 4, XL_ALL_UP, 4, TIE), 0);
	/* tie 0: only the exact lowest */
	for (s = 0; s < 8; s++)
		assert_int_equal(xl_pick_least(near, 4, XL_ALL_UP, s, 0), 0);
	/* start wraps around 2^32 without bias toward member 0 */
	assert_int_equal(xl_pick_least(equal, 4, XL_ALL_UP, 0xffffffffU, TIE),
			 3);
}

/* A member marked down is never chosen, however good it looks; all down
 * gives -1. The tie rotation counts only the members that are up: with
 * member 0 of 4 down and the others equal, starts 0..11 give each of them
 * a third (a rotation over all four would give the member after the down
 * one its turns too: 6, 3, 3). */
static void least_down_members(void **state)
{
	__u32 util[4] = { 0, 100, 100, 100 };
	unsigned int count[4] = { 0 };
	__u32 s, up;
	int m;

	(void)state;
	up = XL_ALL_UP & ~1U; /* the best one is down */
	for (s = 0; s < 12; s++) {
		m = xl_pick_least(util, 4, up, s, TIE);
		assert_true(m >= 1 && m <= 3);
		count[m]++;
	}
	print_message("# member 0 down, 1..3 equal, start 0..11: %u %u %u\n",
		      count[1], count[2], count[3]);
	assert_int_equal(count[1], 4);
	assert_int_equal(count[2], 4);
	assert_int_equal(count[3], 4);
	for (up = 0; up < 16; up++)
		for (s = 0; s < 8; s++) {
			m = xl_pick_least(util, 4, up, s, TIE);
			if (!up) {
				assert_int_equal(m, -1);
				continue;
			}
			assert_true(m >= 0 && m < 4);
			assert_true(up & (1U << m));
		}
	assert_int_equal(xl_pick_least(util, 4, 0, 0, TIE), -1);
	/* bits at or above n mean nothing */
	assert_int_equal(xl_pick_least(util, 4, 0xfffffff0U, 0, TIE), -1);
	assert_int_equal(xl_pick_least(util, 0, XL_ALL_UP, 0, TIE), -1);
}

static void least_one_and_sixteen(void **state)
{
	__u32 util[16];
	unsigned int count[16] = { 0 };
	__u32 s;
	int i, m;

	(void)state;
	util[0] = 30000;
	for (s = 0; s < 5; s++)
		assert_int_equal(xl_pick_least(util, 1, XL_ALL_UP, s, TIE), 0);
	assert_int_equal(xl_pick_least(util, 1, 0x2, 0, TIE), -1);

	for (i = 0; i < 16; i++)
		util[i] = 50000 + (__u32)i * 3000;
	util[13] = 100;
	for (s = 0; s < 32; s++)
		assert_int_equal(xl_pick_least(util, 16, XL_ALL_UP, s, TIE), 13);
	/* the last member can be chosen, and down is honoured up there */
	assert_int_equal(xl_pick_least(util, 16, XL_ALL_UP & ~(1U << 13), 0,
				       TIE), 0);
	util[13] = 50000;
	util[15] = 0;
	assert_int_equal(xl_pick_least(util, 16, XL_ALL_UP, 0, TIE), 15);
	for (i = 0; i < 16; i++)
		util[i] = 7;
	for (s = 0; s < 32; s++) {
		m = xl_pick_least(util, 16, XL_ALL_UP, s, TIE);
		assert_int_equal(m, (int)(s % 16));
		count[m]++;
	}
	for (i = 0; i < 16; i++)
		assert_int_equal(count[i], 2);
	/* n above the array size: no member */
	assert_int_equal(xl_pick_least(util, 0, XL_ALL_UP, 0, TIE), -1);
}

/* Members whose utilization is saturated (xl_member_util's 0xfffffffe:
 * a load of 65536 x capacity or more) are still members: with every up
 * member saturated the least utilized must still be one of them. In
 * xl_pick_least, `best + tie` is 32-bit: once best > 0xffffffff - tie it
 * wraps to a small number, no member satisfies util <= best + tie, and the
 * pick is -1 although members are up (the dataplane then passes the packet
 * to the kernel as XL_R_NO_MEMBER; see test_flowlet's
 * flowlet_saturated_members). Reachable with configured rates: a 1 Mb/s
 * member with a queue of more than 4.1 MB (buffer allows 256M) is
 * saturated by the queue term alone. */
static void least_saturated_members(void **state)
{
	static const __u32 lows[] = { 0xfffffffeU, 0xfffff800U,
				      0xffffffffU - TIE, 0xffffffffU - TIE + 1 };
	__u32 util[4], sat;
	size_t k;
	int i, m;

	(void)state;
	/* what a saturated member reads */
	sat = xl_member_util(0, 256ULL << 20, 1000000, TAU);
	assert_int_equal(sat, 0xfffffffeU);
	for (k = 0; k < sizeof(lows) / sizeof(lows[0]); k++) {
		for (i = 0; i < 4; i++)
			util[i] = lows[k];
		m = xl_pick_least(util, 4, XL_ALL_UP, 1, TIE);
		if (m != 1)
			fail_msg("4 members at util 0x%x, start 1: picked %d, "
				 "want 1", lows[k], m);
		/* one of them a little less loaded: that one */
		util[2] = lows[k] - 1;
		m = xl_pick_least(util, 4, XL_ALL_UP, 3, 0);
		if (m != 2)
			fail_msg("member 2 at 0x%x, the rest 0x%x, tie 0: "
				 "picked %d, want 2", util[2], lows[k], m);
		m = xl_pick_least(util, 1, XL_ALL_UP, 0, TIE);
		if (m != 0)
			fail_msg("1 member at util 0x%x: picked %d, want 0",
				 lows[k], m);
	}
}

/* ---- xl_pick_weighted --------------------------------------------------- */

#define N_RND 100000

static void weighted_shares(const __u64 *cap, __u32 up, const double *want,
			    const char *what)
{
	unsigned int count[4] = { 0 };
	int i, m;

	rng_seed(0x9e3779b97f4a7c15ull);
	for (i = 0; i < N_RND; i++) {
		m = xl_pick_weighted(cap, 4, up, rnd32());
		assert_true(m >= 0 && m < 4);
		count[m]++;
	}
	for (i = 0; i < 4; i++) {
		double share = (double)count[i] / N_RND;

		print_message("# %s: member %d %.2f %% (want %.0f %%)\n", what,
			      i, 100 * share, 100 * want[i]);
		if (!want[i])
			assert_int_equal(count[i], 0);
		else if (fabs(share - want[i]) > 0.01)
			fail_msg("%s: member %d got %.2f %%, want %.0f +- 1 %%",
				 what, i, 100 * share, 100 * want[i]);
	}
}

static void weighted_by_capacity(void **state)
{
	static const __u64 cap[4] = { 200 * GBPS, 100 * GBPS, 100 * GBPS,
				      100 * GBPS };
	static const __u64 zero[4] = { 0 };
	static const __u64 c400[4] = { 400 * GBPS, 400 * GBPS, 400 * GBPS,
				       400 * GBPS };
	static const double w2111[4] = { 0.4, 0.2, 0.2, 0.2 };
	static const double w_down0[4] = { 0, 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	static const double w_down1[4] = { 0.5, 0, 0.25, 0.25 };
	static const double w_eq[4] = { 0.25, 0.25, 0.25, 0.25 };
	static const double w_eq_down3[4] = { 1.0 / 3, 1.0 / 3, 1.0 / 3, 0 };

	(void)state;
	weighted_shares(cap, XL_ALL_UP, w2111, "2:1:1:1");
	weighted_shares(cap, XL_ALL_UP & ~1U, w_down0, "2:1:1:1, 0 down");
	weighted_shares(cap, XL_ALL_UP & ~2U, w_down1, "2:1:1:1, 1 down");
	weighted_shares(zero, XL_ALL_UP, w_eq, "capacities 0");
	weighted_shares(zero, XL_ALL_UP & ~8U, w_eq_down3, "capacities 0, 3 down");
	/* 4 x 400 Gb/s: the sum of the weights still fits */
	weighted_shares(c400, XL_ALL_UP, w_eq, "4 x 400G");
}

static void weighted_edges(void **state)
{
	static const __u64 cap[4] = { 200 * GBPS, 100 * GBPS, 100 * GBPS,
				      100 * GBPS };
	__u64 c16[16];
	__u32 up;
	int i;

	(void)state;
	/* the ends of the random range reach the first and the last up */
	assert_int_equal(xl_pick_weighted(cap, 4, XL_ALL_UP, 0), 0);
	assert_int_equal(xl_pick_weighted(cap, 4, XL_ALL_UP, 0xffffffffU), 3);
	assert_int_equal(xl_pick_weighted(cap, 4, 0x6, 0), 1);
	assert_int_equal(xl_pick_weighted(cap, 4, 0x6, 0xffffffffU), 2);
	/* all down, no members */
	assert_int_equal(xl_pick_weighted(cap, 4, 0, 12345), -1);
	assert_int_equal(xl_pick_weighted(cap, 4, 0xfffffff0U, 12345), -1);
	assert_int_equal(xl_pick_weighted(cap, 0, XL_ALL_UP, 12345), -1);
	/* every answer is an up member, for any up set */
	rng_seed(7);
	for (up = 0; up < 16; up++)
		for (i = 0; i < 200; i++) {
			int m = xl_pick_weighted(cap, 4, up, rnd32());

			if (!up)
				assert_int_equal(m, -1);
			else
				assert_true(m >= 0 && m < 4 && (up & (1U << m)));
		}
	/* 16 x 1.6 Tb/s: the Mb/s weights sum to 25.6 M, no overflow */
	for (i = 0; i < 16; i++)
		c16[i] = 1600 * GBPS;
	assert_int_equal(xl_pick_weighted(c16, 16, XL_ALL_UP, 0), 0);
	assert_int_equal(xl_pick_weighted(c16, 16, XL_ALL_UP, 0xffffffffU), 15);
	assert_int_equal(xl_pick_weighted(c16, 16, XL_ALL_UP, 0x80000000U), 8);
}

/* ---- xl_pick_hash_up ---------------------------------------------------- */

#define N_FLOWS 20000

static __u32 flow_hash_of(int i)
{
	struct xl_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	f.proto = 17;
	f.saddr[0] = 10;
	f.saddr[1] = 0;
	f.saddr[2] = (__u8)(i >> 8);
	f.saddr[3] = (__u8)i;
	f.daddr[0] = 10;
	f.daddr[1] = 2;
	f.daddr[3] = 4;
	f.sport = (__u16)(49152 + i % 16000);
	f.dport = XL_ROCEV2_PORT;
	return xl_flow_hash(&f, 0);
}

/* A flow keeps its member while the up set does not change; when one of
 * four goes down, every flow on it moves to an up member, and the up
 * members share the flows evenly again.
 *
 * What it does not guarantee: mapping the hash onto the k-th up member
 * renumbers the members and rescales the hash ranges, so flows on members
 * that stayed up move too. Measured here (and printed), 20000 flows: with
 * member 0 or 3 of 4 down about 1/3 of the flows on the other members
 * move as well (33.9 %, 32.6 %), with member 1 or 2 down about 1/9
 * (11.2 %, 11.0 %), where a resilient hash would move none. Known
 * limitation; asserted: at most 40 %. */
static void hash_up_stability(void **state)
{
	static int before[N_FLOWS];
	__u32 down_member, up;
	unsigned int count[4], on_down, moved_other, others;
	int i, m;

	(void)state;
	for (i = 0; i < N_FLOWS; i++) {
		__u32 h = flow_hash_of(i);

		before[i] = xl_pick_hash_up(h, 4, XL_ALL_UP);
		assert_true(before[i] >= 0 && before[i] < 4);
		/* same up set, same answer; bits above n change nothing */
		assert_int_equal(xl_pick_hash_up(h, 4, XL_ALL_UP), before[i]);
		assert_int_equal(xl_pick_hash_up(h, 4, 0xf), before[i]);
		/* equal to plain ECMP when everything is up */
		assert_int_equal(before[i], xl_pick_by_hash(h, 4));
	}
	for (down_member = 0; down_member < 4; down_member++) {
		up = XL_ALL_UP & ~(1U << down_member);
		memset(count, 0, sizeof(count));
		on_down = moved_other = others = 0;
		for (i = 0; i < N_FLOWS; i++) {
			__u32 h = flow_hash_of(i);

			m = xl_pick_hash_up(h, 4, up);
			assert_true(m >= 0 && m < 4);
			assert_true(m != (int)down_member);
			/* and stable while this up set lasts */
			assert_int_equal(xl_pick_hash_up(h, 4, up), m);
			count[m]++;
			if (before[i] == (int)down_member) {
				on_down++;
			} else {
				others++;
				moved_other += m != before[i];
			}
		}
		print_message("# member %u down: %u flows on it moved; %u of "
			      "%u (%.1f %%) of the others moved too\n",
			      down_member, on_down, moved_other, others,
			      100.0 * moved_other / others);
		assert_true(on_down > N_FLOWS / 5);
		assert_true(moved_other <= others * 40 / 100);
		for (i = 0; i < 4; i++) {
			if (i == (int)down_member)
				continue;
			if (count[i] < N_FLOWS * 30 / 100 ||
			    count[i] > N_FLOWS * 37 / 100)
				fail_msg("member %u down: member %d has %u of "
					 "%d flows, want about a third",
					 down_member, i, count[i], N_FLOWS);
		}
	}
	/* back up: every flow returns to where it was */
	for (i = 0; i < N_FLOWS; i++)
		assert_int_equal(xl_pick_hash_up(flow_hash_of(i), 4, XL_ALL_UP),
				 before[i]);
	/* all down, or no members */
	assert_int_equal(xl_pick_hash_up(12345, 4, 0), -1);
	assert_int_equal(xl_pick_hash_up(12345, 4, 0xfffffff0U), -1);
	assert_int_equal(xl_pick_hash_up(12345, 0, XL_ALL_UP), -1);
	/* one up member takes everything */
	for (i = 0; i < 100; i++)
		assert_int_equal(xl_pick_hash_up(flow_hash_of(i), 4, 0x4), 2);
	/* random picks (LetFlow) are the same mapping */
	assert_int_equal(xl_pick_random(4, 0x5, 0), 0);
	assert_int_equal(xl_pick_random(4, 0x5, 0xffffffffU), 2);
}

/* ---- xl_flowlet_expired ------------------------------------------------- */

static void flowlet_boundary(void **state)
{
	const __u64 to = 100 * NS_PER_US;
	const __u64 t = 5 * NS_PER_S;

	(void)state;
	assert_false(xl_flowlet_expired(t, t, to));
	assert_false(xl_flowlet_expired(t + 1, t, to));
	assert_false(xl_flowlet_expired(t + to - 1, t, to));
	assert_false(xl_flowlet_expired(t + to, t, to));   /* exactly */
	assert_true(xl_flowlet_expired(t + to + 1, t, to));
	assert_true(xl_flowlet_expired(t + 10 * to, t, to));
	/* the clock went back (another CPU's later timestamp): never */
	assert_false(xl_flowlet_expired(t - 1, t, to));
	assert_false(xl_flowlet_expired(t - to - 1, t, to));
	assert_false(xl_flowlet_expired(t - 1000 * to, t, to));
	/* across the wrap of the 64-bit clock */
	assert_false(xl_flowlet_expired(49, UINT64_MAX - 50, to)); /* 100 */
	assert_false(xl_flowlet_expired(to - 51, UINT64_MAX - 50, to));
	assert_true(xl_flowlet_expired(to - 50, UINT64_MAX - 50, to));
	assert_false(xl_flowlet_expired(UINT64_MAX - 50, 49, to)); /* back */
	/* timeout 0: any gap at all starts a flowlet */
	assert_false(xl_flowlet_expired(t, t, 0));
	assert_true(xl_flowlet_expired(t + 1, t, 0));
	/* a first packet (last 0) long after boot */
	assert_true(xl_flowlet_expired(t, 0, to));
}

/* ---- reorder-free moves -------------------------------------------------- */

#define US NS_PER_US
#define MBPS 1000000ULL

/* vtime units of t ns (include/ecn.h) */
static __u64 vt(__u64 t_ns)
{
	return t_ns << XL_VT_SHIFT;
}

/* The rule by its definition, in 128-bit signed arithmetic: a member that
 * is down lets the flow go; otherwise the gap (a negative one counts as 0)
 * must exceed the floor and reach old - new + skew. */
static int ref_move_safe(__s64 gap, __u64 floor, __u32 skew, __u32 old_qd,
			 __u32 new_qd, int old_up)
{
	__int128 g = gap > 0 ? gap : 0;

	if (!old_up)
		return 1;
	return g > (__int128)floor &&
	       g >= (__int128)old_qd - (__int128)new_qd + (__int128)skew;
}

/* Equal queues: the gap must cover the skew alone. */
static void move_equal_queues(void **state)
{
	(void)state;
	assert_false(xl_move_safe(25 * US - 1, 0, 25 * US, 300 * US, 300 * US, 1));
	assert_true(xl_move_safe(25 * US, 0, 25 * US, 300 * US, 300 * US, 1));
	assert_true(xl_move_safe(1, 0, 0, 300 * US, 300 * US, 1));
}

/* The old member's queue longer: the gap must also cover the difference
 * (the flow's last packet is still in that queue), whatever the floor. */
static void move_old_queue_longer(void **state)
{
	(void)state;
	/* 2 ms queued up to the last packet, the new member empty */
	assert_false(xl_move_safe(2025 * US - 1, 50 * US, 25 * US, 2000 * US, 0, 1));
	assert_true(xl_move_safe(2025 * US, 50 * US, 25 * US, 2000 * US, 0, 1));
	/* 300 us on the new one shortens the wait by as much */
	assert_false(xl_move_safe(1725 * US - 1, 50 * US, 25 * US, 2000 * US, 300 * US, 1));
	assert_true(xl_move_safe(1725 * US, 50 * US, 25 * US, 2000 * US, 300 * US, 1));
}

/* The new member's queue longer by more than the skew: the rule asks
 * nothing, the floor still does. */
static void move_new_queue_longer(void **state)
{
	(void)state;
	assert_true(xl_move_safe(50 * US + 1, 50 * US, 25 * US, 100 * US, 1000 * US, 1));
	assert_false(xl_move_safe(50 * US, 50 * US, 25 * US, 100 * US, 1000 * US, 1));
	/* no floor (spray): any gap, even 1 ns */
	assert_true(xl_move_safe(1, 0, 25 * US, 100 * US, 1000 * US, 1));
	/* longer by less than the skew: the rest from the gap */
	assert_false(xl_move_safe(10 * US - 1, 0, 25 * US, 100 * US, 115 * US, 1));
	assert_true(xl_move_safe(10 * US, 0, 25 * US, 100 * US, 115 * US, 1));
}

/* The flow's member is down: it goes at once, gap or not. */
static void move_from_down_member(void **state)
{
	(void)state;
	assert_true(xl_move_safe(0, 50 * US, 25 * US, XL_QDELAY_MAX, 0, 0));
	assert_true(xl_move_safe(-1, 50 * US, 25 * US, 2000 * US, 0, 0));
	assert_true(xl_move_safe(INT64_MIN, UINT64_MAX, UINT32_MAX, UINT32_MAX, 0, 0));
	/* the same member up: refused */
	assert_false(xl_move_safe(0, 50 * US, 25 * US, 2000 * US, 0, 1));
}

/* What a move's event carries: the gap and the old queue in whole us,
 * each saturated at 65535 us; a negative gap (another CPU's older clock)
 * reads 0. */
static void move_detail_packs(void **state)
{
	__u32 d;

	(void)state;
	d = xl_move_detail(75 * US + 999, 1900 * US);
	assert_int_equal(XL_MOVE_GAP_US(d), 75);
	assert_int_equal(XL_MOVE_OLD_QUEUE_US(d), 1900);
	d = xl_move_detail(-5, 0);
	assert_int_equal(XL_MOVE_GAP_US(d), 0);
	assert_int_equal(XL_MOVE_OLD_QUEUE_US(d), 0);
	d = xl_move_detail(INT64_MAX, XL_QDELAY_MAX);
	assert_int_equal(XL_MOVE_GAP_US(d), XL_MOVE_US_MAX);
	assert_int_equal(XL_MOVE_OLD_QUEUE_US(d), XL_MOVE_US_MAX);
	/* just under the top: exact, not saturated */
	d = xl_move_detail(65534 * US, 65534 * US);
	assert_int_equal(XL_MOVE_GAP_US(d), 65534);
	assert_int_equal(XL_MOVE_OLD_QUEUE_US(d), 65534);
}

/* ---- staying put: xl_move_worth, xl_expected_rate, xl_window_rate ------ */

#define M100 100000000ULL

/* Four equal TCP flows on four equal members: a flow at 100M on its full
 * member (1.0) would make another full one 2.0, and one whose flow
 * pauses (20M measured) 1.2: it stays. Its own member reading far above
 * capacity (a burst) counts as 1 + 1/16 only. */
static void worth_equal_flows_stay(void **state)
{
	(void)state;
	assert_false(xl_move_worth(M100, M100, M100, 0, M100, M100, M100));
	assert_false(xl_move_worth(M100, M100, M100, 0, M100, M100 / 5, M100));
	assert_false(xl_move_worth(M100, M100, 5 * M100, 0, M100, M100 / 5, M100));
	/* onto an idle member: 1.0 there is no better than 1.0 here */
	assert_false(xl_move_worth(M100, M100, M100, 0, M100, 0, M100));
}

/* Two flows share a full member (50M each), another is idle: 0.5 there
 * against 1.0 here, one leaves. A flow alone on a full 50M member next to
 * a 200M one carrying 100M: (100 + 50) / 200 = 0.75 against 1.0. Three
 * flows of 43.75M on one member (1.31, counted as 1.0625) and one on
 * another (0.875 with the flow): it goes. */
static void worth_collision_moves(void **state)
{
	const __u64 f = 43750000ULL;

	(void)state;
	assert_true(xl_move_worth(M100 / 2, M100 / 2, M100, 0, M100, 0, M100));
	assert_true(xl_move_worth(M100 / 2, M100 / 2, M100 / 2, 0, M100 / 2, M100, 2 * M100));
	assert_true(xl_move_worth(f, f, 3 * f, 0, M100, f, M100));
	/* the margin: 1/16 of capacity (there 15/16 against 1 here) */
	assert_false(xl_move_worth(M100 / 2, M100 / 2, M100, 0, M100, 43750000ULL, M100));
	assert_true(xl_move_worth(M100 / 2, M100 / 2, M100, 0, M100, 43750000ULL - 200, M100));
	/* a flow back from a pause is no longer in its member's average:
	 * its member (others at 87.5M) gets it back on top */
	assert_true(xl_move_worth(f, 0, 2 * f, 0, M100, f, M100));
	assert_false(xl_move_worth(f, f, 2 * f, 0, M100, f, M100));
	/* a small flow: only for a member less loaded by more than 1/16 */
	assert_false(xl_move_worth(M100 / 10, M100 / 10, M100 * 3 / 20, 0, M100, 0, M100));
	assert_true(xl_move_worth(M100 / 10, M100 / 10, M100 / 2, 0, M100, 0, M100));
	/* unknown capacities count alike; huge rates saturate, never wrap */
	assert_true(xl_move_worth(M100, M100, 2 * XL_LB_UNKNOWN_CAP,
				  2 * XL_LB_UNKNOWN_CAP, 0, 0, 0));
	assert_false(xl_move_worth(UINT64_MAX, 0, UINT64_MAX, 0, M100, UINT64_MAX, M100));
	assert_true(xl_move_worth(M100, M100, UINT64_MAX, 0, M100, 0, UINT64_MAX));
}

/* Sustained overload: the own member counts as utilized as its slow
 * average says when that is over 1 + 1/16. Two RoCE QPs of 112.5 Mbit/s
 * on a 100 Mbit/s member (2.25 on both averages): one leaves for an idle
 * 100 Mbit/s member (1.0 there); capped at 1 + 1/16 it stayed. A burst
 * that lifts only the fast average still counts as 1 + 1/16. */
static void worth_sustained_overload_moves(void **state)
{
	const __u64 q = 112500000ULL;

	(void)state;
	assert_true(xl_move_worth(M100, M100, 2 * q, 2 * q, M100, 0, M100));
	assert_false(xl_move_worth(M100, M100, 2 * q, 0, M100, 0, M100));
	/* a slow average at 1 + 1/16 or below changes nothing */
	assert_false(xl_move_worth(M100, M100, 2 * q, M100, M100, 0, M100));
	/* three QPs on a 200M member (1.69) and an idle 100M one (1.125
	 * with the QP) */
	assert_true(xl_move_worth(q, q, 3 * q, 3 * q, 2 * M100, 0, M100));
	/* only for clearly less: a 50M member carrying 25M would be 2.5 */
	assert_false(xl_move_worth(M100, M100, 2 * q, 2 * q, M100, M100 / 4, M100 / 2));
	/* huge slow averages saturate, never wrap */
	assert_true(xl_move_worth(M100, M100, UINT64_MAX, UINT64_MAX, M100, 0, M100));
}

/* Unknown capacities (the lab's own config has no rates): a 200 Mbit/s
 * flow whose flowlets lift its member's fast average to 761 Mbit/s while
 * its slow one reads its 200 stays off an idle member (it counted 561
 * Mbit/s of itself as other load and moved 310 times in 500 ms). Load the
 * two averages agree on still moves it: three flows of 300 Mbit/s on one
 * member, one on another. Known capacities go by the fast average as
 * before (a burst there counts as at most 1 + 1/16). */
static void worth_unknown_capacity_by_both_averages(void **state)
{
	const __u64 w = 200000000ULL, burst = 761000000ULL, t = 300000000ULL;
	const __u64 gap = 900000ULL; /* its next burst, 0.9 ms on */

	(void)state;
	assert_false(xl_move_worth(w, w, burst, w, 0, 0, 0));
	/* between its bursts the fast average has faded with the flow's
	 * part of it; the slow one holds all of the flow still */
	assert_false(xl_move_worth(w, xl_rate_still_counted(w, gap),
				   xl_rate_now(burst, gap, XL_RATE_TAU_NS), w, 0, 0, 0));
	assert_true(xl_move_worth(t, t, 3 * t, 3 * t, 0, t, 0));
	/* either average alone is not enough */
	assert_false(xl_move_worth(t, t, 3 * t, t, 0, t, 0));
	assert_false(xl_move_worth(t, t, t, 3 * t, 0, t, 0));
	/* known capacity: the fast average alone still moves a flow */
	assert_true(xl_move_worth(t, t, 3 * t, t, XL_LB_UNKNOWN_CAP, t,
				  XL_LB_UNKNOWN_CAP));
}

/* Held load: a flow that leaves takes its rate out of it, never below 0;
 * a move weighs the higher of the fast average and the held load. */
static void held_load_leave_and_target(void **state)
{
	(void)state;
	assert_int_equal(xl_held_load_leave(2 * M100, M100), M100);
	assert_int_equal(xl_held_load_leave(M100, 2 * M100), 0);
	assert_int_equal(xl_move_target_rate(M100, 2 * M100), 2 * M100);
	assert_int_equal(xl_move_target_rate(3 * M100, 2 * M100), 3 * M100);
	/* the 100 ms average still holds most of a load that paused for
	 * 10 ms (one sample over the pause) */
	assert_true(xl_rate_update(2 * M100, 0, 10000000ULL, XL_HELD_LOAD_TAU_NS) >
		    2 * M100 * 9 / 10);
}

/* A flow's share of the held load follows 1 - e^-t/tau from below:
 * nothing for no stay, ~0.63 of its rate after one tau, all of it past
 * eight; never more than its rate, never less with a longer stay. */
static void held_share_grows_with_the_stay(void **state)
{
	const __u64 tau = XL_HELD_LOAD_TAU_NS;
	__u64 t, prev = 0;

	(void)state;
	assert_int_equal(xl_held_share(M100, 0), 0);
	assert_int_equal(xl_held_share(M100, 8 * tau), M100);
	assert_int_equal(xl_held_share(M100, 1ULL << 52), M100);
	assert_int_equal(xl_held_share(UINT64_MAX, 8 * tau), XL_LB_RATE_MAX);
	for (t = 0; t < 8 * tau; t += tau / 50) {
		__u64 share = xl_held_share(M100, t);
		double exact = M100 * (1.0 - exp(-(double)t / (double)tau));

		assert_true(share >= prev);
		assert_true((double)share <= exact + 1.0);
		assert_true((double)share >= exact - 0.04 * M100);
		prev = share;
	}
}

/* ---- flow counts (include/lb.h, "flow counts") --------------------------- */

/* A share is the capacity over the flows there, the flow included, in
 * units of 1024 bit/s; unknown capacities count as XL_LB_UNKNOWN_CAP; a
 * share past 32 bits saturates. */
static void fair_share_values(void **state)
{
	(void)state;
	assert_int_equal(xl_fair_share(M100, 0), M100 >> 10);
	assert_int_equal(xl_fair_share(M100, 3), (M100 >> 10) / 4);
	assert_int_equal(xl_fair_share(2 * M100, 2), ((2 * M100) >> 10) / 3);
	assert_int_equal(xl_fair_share(0, 1), (XL_LB_UNKNOWN_CAP >> 10) / 2);
	assert_int_equal(xl_fair_share(1ULL << 60, 0), 0xffffffffU);
	assert_int_equal(xl_fair_share(1ULL << 60, 0xffffffffU), (1ULL << 50) >> 32);
}

/* Equal members: a flow moves to a member with at least two flows fewer
 * than its own (itself counted): 5 and 3 become 4 and 4, 4 and 3 stay
 * (that would make 3 and 4). Unequal: a lone flow on a 100M member does
 * not join two on a 200M one (66.7 against 100), and takes an idle 200M
 * one (200 against 100); two on a 100M member do not go to an idle 50M
 * one (50 against 50). */
static void share_move_by_count(void **state)
{
	(void)state;
	assert_true(xl_share_move_worth(xl_fair_share(M100, 4), xl_fair_share(M100, 2)));
	assert_false(xl_share_move_worth(xl_fair_share(M100, 3), xl_fair_share(M100, 3)));
	assert_true(xl_share_move_worth(xl_fair_share(M100, 3), xl_fair_share(M100, 1)));
	assert_false(xl_share_move_worth(xl_fair_share(M100, 0), xl_fair_share(M100, 0)));
	assert_false(xl_share_move_worth(xl_fair_share(M100, 0), xl_fair_share(2 * M100, 2)));
	assert_true(xl_share_move_worth(xl_fair_share(M100, 0), xl_fair_share(2 * M100, 0)));
	assert_false(xl_share_move_worth(xl_fair_share(M100, 1), xl_fair_share(M100 / 2, 0)));
	/* the margin: 1/16 more is not enough, a little over it is */
	assert_false(xl_share_move_worth(16000, 17000));
	assert_true(xl_share_move_worth(16000, 17001));
	/* no overflow at the top */
	assert_false(xl_share_move_worth(0xfffffff0U, 0xffffffffU));
	assert_true(xl_share_move_worth(1, 0xffffffffU));
}

/* Only a flow that sends at half again its share or more moves for one:
 * a TCP flow that reads 100M where its share is 25M does; a QP paced at
 * 27.3M does not (bench-balance's workload 3). */
static void wants_more_share(void **state)
{
	__u32 share = xl_fair_share(M100, 3);

	(void)state;
	assert_true(xl_wants_more_share(M100, share));
	assert_false(xl_wants_more_share(27300000ULL, share));
	assert_true(xl_wants_more_share((__u64)(3 * (__u64)share / 2) << 10, share));
	assert_false(xl_wants_more_share(((__u64)(3 * (__u64)share / 2) << 10) - 1024, share));
}

/* ---- time-sharing (include/lb.h) ------------------------------------------ */

/* A flow looks for a member to yield to only when it shares its own
 * (others there), has stayed XL_LB_YIELD_NS, wants more than its share
 * and its last packet waited at least the member's skew in its queue: a
 * ring flow reading 100M beside one other on 100M, behind the pair's 2 ms
 * queue, does after 20 ms, not after 19; a lone one, one paced at its
 * share, or one that waited less than the skew (counted beside flows that
 * have stopped sending, at 100G), never. */
static void yield_when_shared_long_enough(void **state)
{
	__u32 pair = xl_fair_share(M100, 1), q = 2000000, skew = 271000;

	(void)state;
	assert_true(xl_may_yield(1, XL_LB_YIELD_NS, M100, pair, q, skew));
	assert_true(xl_may_yield(3, 1ULL << 40, M100, xl_fair_share(M100, 3), q, skew));
	assert_false(xl_may_yield(1, XL_LB_YIELD_NS - 1, M100, pair, q, skew));
	assert_false(xl_may_yield(1, 19000000ULL, M100, pair, q, skew));
	assert_false(xl_may_yield(0, 1ULL << 40, M100, xl_fair_share(M100, 0), q, skew));
	assert_false(xl_may_yield(1, 1ULL << 40, M100 / 2, pair, q, skew));
	/* half again its share is wanting more (xl_wants_more_share) */
	assert_true(xl_may_yield(1, XL_LB_YIELD_NS, (__u64)(3 * (__u64)pair / 2) << 10, pair, q,
				 skew));
	/* the queue: the skew is enough, less is not */
	assert_true(xl_may_yield(1, XL_LB_YIELD_NS, M100, pair, skew, skew));
	assert_false(xl_may_yield(1, XL_LB_YIELD_NS, M100, pair, skew - 1, skew));
	assert_false(xl_may_yield(20, 1ULL << 40, 100 * M100, xl_fair_share(100 * M100, 20), 0,
				  25240));
}

/* 100/100/100/25M with four flows: from the pair's member (a share of
 * 50) to a lone flow's (50) or an idle 100M one (100) yes, to the idle
 * 25M one (25) no. 200/100/100/50M: from the big member's pair (100) to
 * a lone flow's 100M member (50) or the idle 50M one (50) no. Within the
 * move margin (1/16) less still counts as no smaller. */
static void yield_to_no_smaller_share(void **state)
{
	__u32 pair = xl_fair_share(M100, 1);

	(void)state;
	assert_true(xl_yield_to(pair, xl_fair_share(M100, 1)));
	assert_true(xl_yield_to(pair, xl_fair_share(M100, 0)));
	assert_false(xl_yield_to(pair, xl_fair_share(M100 / 4, 0)));
	assert_false(xl_yield_to(xl_fair_share(2 * M100, 1), xl_fair_share(M100, 1)));
	assert_false(xl_yield_to(xl_fair_share(2 * M100, 1), xl_fair_share(M100 / 2, 0)));
	assert_true(xl_yield_to(17000, 16000));
	assert_false(xl_yield_to(17001, 16000));
	assert_true(xl_yield_to(0xffffffffU, 0xfffffff0U));
	assert_false(xl_yield_to(0xffffffffU, 1));
}

/* The larger share wins, then the less utilized; equals tie (the first
 * found stays); 0, "none", only for no share on a member that could not
 * be read (xl_member_util_now's 0xffffffff). */
static void yield_key_share_then_util(void **state)
{
	(void)state;
	assert_true(xl_yield_key(2, 0xfffffffeU) > xl_yield_key(1, 0));
	assert_true(xl_yield_key(2, XL_UTIL_ONE / 2) > xl_yield_key(2, XL_UTIL_ONE));
	assert_true(xl_yield_key(2, XL_UTIL_ONE) == xl_yield_key(2, XL_UTIL_ONE));
	assert_true(xl_yield_key(0, 0xfffffffeU) > 0);
	assert_true(xl_yield_key(0, 0xffffffffU) == 0);
	assert_true(xl_yield_key(0xffffffffU, 0) == UINT64_MAX);
	/* 100/100/100/25M: a lone flow's idle member before a busy one */
	assert_true(xl_yield_key(xl_fair_share(M100, 1), 0) >
		    xl_yield_key(xl_fair_share(M100, 1), XL_UTIL_ONE));
}

/* A member's count in epoch e: the larger of e's and e - 1's while its
 * newest epoch is e (or e + 1: a CPU whose clock read later rolled it);
 * e - 1's alone while that is its newest; nothing from before. */
static void member_flows_epochs(void **state)
{
	const __u32 e = 1001; /* odd: e's count in slot 1, e - 1's in slot 0 */
	__u32 flows[2] = { 5, 3 };

	(void)state;
	assert_int_equal(xl_member_flows_now(e, flows, e), 5);
	flows[1] = 7;
	assert_int_equal(xl_member_flows_now(e, flows, e), 7);
	assert_int_equal(xl_member_flows_now(e + 1, flows, e), 7);
	/* the member's newest epoch is e - 1: slot 0 holds it */
	assert_int_equal(xl_member_flows_now(e - 1, flows, e), 5);
	assert_int_equal(xl_member_flows_now(e - 2, flows, e), 0);
	assert_int_equal(xl_member_flows_now(0, flows, e), 0);
}

/* Epochs of 2^XL_FLOW_EPOCH_SHIFT ns, never 0 (a flow's "not counted");
 * a packet counts its flow if it carries data. */
static void flow_epoch_and_data(void **state)
{
	const __u64 len = 1ULL << XL_FLOW_EPOCH_SHIFT;

	(void)state;
	assert_int_equal(xl_flow_epoch(0), 1);
	assert_int_equal(xl_flow_epoch(len - 1), 1);
	assert_int_equal(xl_flow_epoch(len), 1);
	assert_int_equal(xl_flow_epoch(2 * len), 2);
	assert_int_equal(xl_flow_epoch(5 * len + len / 2), 5);
	assert_true(len >= 50000000ULL); /* a step's 50 ms pause is one epoch at most */
	assert_false(xl_counts_flow(66));  /* a pure acknowledgement */
	assert_false(xl_counts_flow(XL_COUNT_MIN_LEN - 1));
	assert_true(xl_counts_flow(XL_COUNT_MIN_LEN));
	assert_true(xl_counts_flow(1514));
}

/* A flow's stay on its uplink in placed ticks (about a ms): a tick
 * apart reads one tick; right across the u32's wrap. */
static void placed_ns_across_the_wrap(void **state)
{
	const __u64 tick = 1ULL << XL_PLACED_TICK_SHIFT;
	const __u64 t = 0xffffffffULL * tick; /* the last tick before the wrap */

	(void)state;
	assert_int_equal(xl_placed_tick(t), 0xffffffffU);
	assert_int_equal(xl_placed_ns(xl_placed_tick(t), t + tick - 1), 0);
	assert_int_equal(xl_placed_ns(xl_placed_tick(t), t + 3 * tick), 3 * tick);
	assert_int_equal(xl_placed_tick(t + 3 * tick), 2);
}

/* The flapping the share ends (make bench-jct run 15 of 26 November
 * 2026, bench/results/2026-11-28-jct-notebook; unequal 1 MiB
 * all-reduce): the 200M member's held load is two ring flows averaging
 * 75M, and a third that stayed 83 ms. When it leaves, taking its whole
 * rate out left 92M, and a 100M flow alone on its 100M member (its burst
 * read 130M there) moved in beside the two (0.96 + 1/16 < 1 + 1/16),
 * left when they met, and came back. Taking its share out leaves ~136M:
 * it stays. */
static void held_share_ends_flapping(void **state)
{
	const __u64 ms = 1000000ULL, stay = 83 * ms;
	__u64 held = 150 * MBPS + xl_held_share(75 * MBPS, stay);
	__u64 whole = xl_held_load_leave(held, M100);
	__u64 share = xl_held_load_leave(held, xl_held_share(M100, stay));

	(void)state;
	assert_true(xl_move_worth(M100, M100, 130 * MBPS, 75 * MBPS, M100,
				  xl_move_target_rate(10 * MBPS, whole), 2 * M100));
	assert_false(xl_move_worth(M100, M100, 130 * MBPS, 75 * MBPS, M100,
				   xl_move_target_rate(10 * MBPS, share), 2 * M100));
}

/* The case it is for: a ring flow of 100M alone on its 100M member
 * pauses with everyone else; the 200M member's two flows paused too, its
 * fast average reads 10M. By that alone the flow moved there (0.55 + 1/16
 * against 1.0); with the 200M held, it stays (1.5). Once those two flows
 * left (held 0), it goes. */
static void held_load_keeps_paused_member(void **state)
{
	const __u64 ms = 1000000ULL;
	__u64 still = xl_rate_still_counted(M100, 5 * ms);

	(void)state;
	assert_true(xl_move_worth(M100, still, still, M100, M100, M100 / 10, 2 * M100));
	assert_false(xl_move_worth(M100, still, still, M100, M100,
				   xl_move_target_rate(M100 / 10, 2 * M100), 2 * M100));
	assert_true(xl_move_worth(M100, still, still, M100, M100,
				  xl_move_target_rate(M100 / 10,
						      xl_held_load_leave(
							      xl_held_load_leave(2 * M100, M100), M100)),
				  2 * M100));
}

/* A flow that sends in phases: its window reads 20M, its flowlets 100M.
 * Judged by the window, an idle 50M member looked better than the 200M
 * member it shares with another 100M flow (0.4 + 1/16 < 0.6); judged by
 * what it sends at, it stays (2.0 there against 1.0 here). */
static void flow_demand_is_the_higher(void **state)
{
	(void)state;
	assert_int_equal(xl_flow_demand(30000000ULL, M100, 2 * M100), M100);
	assert_int_equal(xl_flow_demand(M100, 30000000ULL, 2 * M100), M100);
	assert_int_equal(xl_flow_demand(0, 0, M100), 0);
	/* at most the member's capacity: a back-to-back flowlet reads Gbit/s */
	assert_int_equal(xl_flow_demand(30000000ULL, 14000000000ULL, M100), M100);
	assert_true(xl_move_worth(20000000ULL, 20000000ULL, M100 + 20000000ULL, 0,
				  2 * M100, 0, M100 / 2));
	assert_false(xl_move_worth(xl_flow_demand(20000000ULL, M100, 2 * M100),
				   xl_flow_demand(20000000ULL, M100, 2 * M100), 2 * M100, 0,
				   2 * M100, 0, M100 / 2));
}

/* Members of unknown capacity (no `rate`): a TCP flowlet through unshaped
 * links reads at the host link's rate, 14 Gbit/s here. Taken as the
 * demand, a flow on a member carrying 3 such flows (900M) could not move
 * to one carrying 1 (300M): 300M + 1G is not below 900M. Its window
 * (300M) is what it carries, and it moves. Without a window (paused for
 * a whole one), the flowlet counts, at most the stand-in capacity. A
 * known capacity keeps the flowlet's reading, capped (staying put). */
static void flow_demand_unknown_capacity(void **state)
{
	const __u64 m300 = 3 * M100, g14 = 14000000000ULL;

	(void)state;
	assert_int_equal(xl_flow_demand(m300, g14, 0), m300);
	assert_int_equal(xl_flow_demand(0, g14, 0), XL_LB_UNKNOWN_CAP);
	assert_int_equal(xl_flow_demand(0, M100, 0), M100);
	assert_true(xl_move_worth(xl_flow_demand(m300, g14, 0), m300, 9 * M100,
				  9 * M100, 0, m300, 0));
	/* a known 1G capacity keeps the flowlet's reading (capped): it stays */
	assert_false(xl_move_worth(xl_flow_demand(m300, g14, XL_LB_UNKNOWN_CAP), m300,
				   9 * M100, 0, XL_LB_UNKNOWN_CAP, m300, XL_LB_UNKNOWN_CAP));
	/* pending: the flowlet capped at a known capacity, the window at
	 * an unknown one */
	assert_int_equal(xl_pending_rate(m300, g14, M100), M100);
	assert_int_equal(xl_pending_rate(m300, 30000000ULL, M100), 30000000ULL);
	assert_int_equal(xl_pending_rate(m300, g14, 0), m300);
	assert_int_equal(xl_pending_rate(0, g14, 0), XL_LB_UNKNOWN_CAP);
	/* two flows against one: no better there, it stays */
	assert_false(xl_move_worth(xl_flow_demand(m300, g14, 0), m300, 6 * M100,
				   6 * M100, 0, m300, 0));
}

/* A flow's bytes stay whole in its member's average for tau after it
 * pauses, then fade as the average does (xl_rate_now). */
static void rate_still_counted(void **state)
{
	(void)state;
	assert_int_equal(xl_rate_still_counted(M100, 0), M100);
	assert_int_equal(xl_rate_still_counted(M100, XL_RATE_TAU_NS), M100);
	assert_int_equal(xl_rate_still_counted(M100, 2 * XL_RATE_TAU_NS), M100 / 2);
	assert_int_equal(xl_rate_still_counted(M100, 100 * XL_RATE_TAU_NS), M100 / 100);
	/* another CPU's older clock: a negative gap, still all of it */
	assert_int_equal(xl_rate_still_counted(M100, (__u64)-5), M100);
}

/* flowlet_timeout = auto: the group's floor covers its slowest member's
 * whole buffer; a flow's own floor four of its packet spacings. */
static void auto_floors(void **state)
{
	(void)state;
	/* 25,000 bytes at 100 Mbit/s: 2 ms; 1 MiB at 100 Gbit/s: 83.9 us */
	assert_int_equal(xl_auto_floor_ns(50000, 25000, 100000000ULL), 2000000);
	assert_int_equal(xl_auto_floor_ns(50000, 1048576, 100000000000ULL), 83886);
	assert_int_equal(xl_auto_floor_ns(50000, 1048576, 400000000000ULL), 50000);
	assert_int_equal(xl_auto_floor_ns(50000, 1048576, 0), 50000);     /* no queue */
	assert_int_equal(xl_auto_floor_ns(50000, 256 << 20, 1000000ULL), 1000000000);
	/* 1458-byte frames paced at 34 Mbit/s: 343 us apart, 1.37 ms */
	assert_int_equal(xl_flowlet_floor_ns(50000, 1458, 34000000ULL), 1372235);
	/* the pace: the higher of the flowlet's and the window's rate; a
	 * handshake's 2 Mbit/s flowlet would give a 24 ms floor, the
	 * window's 150 Mbit/s gives 323 us */
	assert_int_equal(xl_flow_pace_bps(2000000ULL, 150000000ULL), 150000000ULL);
	assert_int_equal(xl_flow_pace_bps(10000000000ULL, 150000000ULL), 10000000000ULL);
	assert_int_equal(xl_flow_pace_bps(34000000ULL, 0), 34000000ULL);
	assert_int_equal(xl_flow_pace_bps(0, 0), 0);
	assert_int_equal(xl_flowlet_floor_ns(50000, 1514, 2000000ULL), 24224000);
	assert_int_equal(xl_flowlet_floor_ns(50000, 1514, xl_flow_pace_bps(2000000ULL, 150000000ULL)),
			 322986);
	/* at 100 Gbit/s the floor decides; no rate yet: the floor */
	assert_int_equal(xl_flowlet_floor_ns(50000, 4096, 100000000000ULL), 50000);
	assert_int_equal(xl_flowlet_floor_ns(50000, 1458, 0), 50000);
	assert_int_equal(xl_flowlet_floor_ns(0, 65535, 1), 1000000000);
	assert_int_equal(xl_flowlet_floor_ns(0, 1ULL << 40, 10000000000ULL), 209712); /* len: at most 65535 */
}

/* path_skew = auto: the base plus two frames at the member's rate. */
static void auto_skew(void **state)
{
	(void)state;
	/* 25 us + 2 x 1518 B at 100 Gbit/s: 242.88 ns, rounded down */
	assert_int_equal(xl_auto_skew_ns(25000, 1518, 100000000000ULL), 25242);
	/* at the lab's 50 Mbit/s: 2 x 1518 B take 485.76 us */
	assert_int_equal(xl_auto_skew_ns(25000, 1518, 50000000ULL), 25000 + 485760);
	assert_int_equal(xl_auto_skew_ns(25000, 1518, 0), 25000);      /* no rate */
	assert_int_equal(xl_auto_skew_ns(0, 9018, 1000000ULL), 144288000);
	assert_int_equal(xl_auto_skew_ns(25000, 9018, 1), 1000000000); /* saturates */
	assert_int_equal(xl_auto_skew_ns(0xffffffffU, 1518, 1000000000ULL), 1000000000);
}

/* A flowlet never counts for more than the member can carry; an unknown
 * capacity caps nothing. */
static void expected_rate_capped(void **state)
{
	(void)state;
	assert_int_equal(xl_expected_rate(14000000000ULL, 100000000ULL), 100000000ULL);
	assert_int_equal(xl_expected_rate(30000000ULL, 100000000ULL), 30000000ULL);
	assert_int_equal(xl_expected_rate(14000000000ULL, 0), 14000000000ULL);
	assert_int_equal(xl_expected_rate(0, 100000000ULL), 0);
}

/* Bytes of one 10 ms window as bit/s. */
static void window_rate(void **state)
{
	(void)state;
	assert_int_equal(xl_window_rate(125000), 100000000ULL);
	assert_int_equal(xl_window_rate(0), 0);
	assert_int_equal(xl_window_rate(2000000000ULL), 1600000000000ULL);
}

/* The floor: a gap up to it (inclusive, as xl_flowlet_expired) never
 * moves, however empty the queues. */
static void move_floor(void **state)
{
	const __u64 floor = XL_DEFAULT_FLOWLET_TIMEOUT_NS;

	(void)state;
	assert_false(xl_move_safe((__s64)floor, floor, 0, 0, 0, 1));
	assert_true(xl_move_safe((__s64)floor + 1, floor, 0, 0, 0, 1));
	/* where the flowlet boundary is */
	assert_false(xl_flowlet_expired(5 * NS_PER_S + floor, 5 * NS_PER_S, floor));
	assert_true(xl_flowlet_expired(5 * NS_PER_S + floor + 1, 5 * NS_PER_S, floor));
	/* above the floor the rule decides */
	assert_false(xl_move_safe((__s64)floor + 1, floor, XL_DEFAULT_PATH_SKEW_NS,
				  (__u32)floor, 0, 1));
	assert_true(xl_move_safe((__s64)(floor + XL_DEFAULT_PATH_SKEW_NS), floor,
				 XL_DEFAULT_PATH_SKEW_NS, (__u32)floor, 0, 1));
	/* the largest floor the config takes (1 s) */
	assert_false(xl_move_safe(NS_PER_S, NS_PER_S, 0, 0, 0, 1));
	assert_true(xl_move_safe(NS_PER_S + 1, NS_PER_S, 0, 0, 0, 1));
}

/* Members without a rate have no queue the leaf knows: delay 0 whatever
 * their (unused) queue word says, so only the skew and floor count. */
static void move_unlimited_members(void **state)
{
	const __u64 now = 7 * NS_PER_S;

	(void)state;
	assert_int_equal(xl_queue_delay(vt(now + NS_PER_S), vt(now), 1500, 0), 0);
	assert_int_equal(xl_queue_delay(0, vt(now), 0, 0), 0);
	assert_false(xl_move_safe(25 * US - 1, 0, 25 * US, 0, 0, 1));
	assert_true(xl_move_safe(25 * US, 0, 25 * US, 0, 0, 1));
	/* an unlimited old member, a queued new one: 1 ns of gap will do */
	assert_true(xl_move_safe(1, 0, 25 * US,
				 xl_queue_delay(0, vt(now), 1500, 0),
				 xl_queue_delay(vt(now + 30 * US), vt(now), 0, 100 * GBPS), 1));
}

/* The queueing delay of a phantom queue: until it is empty (len 0), or
 * until a packet joining it has left, its own transmission included. */
/* ---- latency class: xl_latency_dscp, xl_least_delay_mask, xl_may_stay -- */

static void latency_dscp_bits(void **state)
{
	const __u64 mask = 1ULL << 18 | 1ULL << 0 | 1ULL << 63;

	(void)state;
	assert_true(xl_latency_dscp(mask, 18));
	assert_true(xl_latency_dscp(mask, 0));
	assert_true(xl_latency_dscp(mask, 63));
	assert_false(xl_latency_dscp(mask, 26));
	assert_false(xl_latency_dscp(mask, 17));
	assert_false(xl_latency_dscp(0, 18)); /* no latency class */
	for (__u32 d = 0; d < 64; d++)
		assert_true(xl_latency_dscp(~0ULL, d));
}

#define LAT_TIE XL_LB_LATENCY_TIE_NS

static void least_delay_mask_values(void **state)
{
	/* 1 and 3 have no queue (or no rate); 0 and 2 wait */
	__u32 d[4] = { 2000 * US, 0, 120 * US, 0 };
	__u32 near[4] = { 5000, 5000 + LAT_TIE, 5000 + LAT_TIE + 1, 9 * US };
	__u32 sat[3] = { XL_QDELAY_MAX, XL_QDELAY_MAX, XL_QDELAY_MAX - LAT_TIE - 1 };
	__u32 d16[16];

	(void)state;
	assert_int_equal(xl_least_delay_mask(d, 4, XL_ALL_UP, LAT_TIE), 0xa);
	/* down members are never chosen, however short their queue */
	assert_int_equal(xl_least_delay_mask(d, 4, 0xd, LAT_TIE), 0x8);
	assert_int_equal(xl_least_delay_mask(d, 4, 0x5, LAT_TIE), 0x4);
	assert_int_equal(xl_least_delay_mask(d, 4, 0, LAT_TIE), 0);
	assert_int_equal(xl_least_delay_mask(d, 0, XL_ALL_UP, LAT_TIE), 0);
	/* within the tie (exactly at it) counts, beyond it does not */
	assert_int_equal(xl_least_delay_mask(near, 4, XL_ALL_UP, LAT_TIE), 0x3);
	assert_int_equal(xl_least_delay_mask(near, 4, XL_ALL_UP, 0), 0x1);
	/* saturated delays: no wrap of best + tie */
	assert_int_equal(xl_least_delay_mask(sat, 3, XL_ALL_UP, LAT_TIE), 0x4);
	assert_int_equal(xl_least_delay_mask(sat, 2, XL_ALL_UP, LAT_TIE), 0x3);
	/* members past n are not members */
	assert_int_equal(xl_least_delay_mask(d, 1, XL_ALL_UP, LAT_TIE), 0x1);
	/* sixteen members, the last one the only empty queue */
	for (int i = 0; i < 16; i++)
		d16[i] = 100 * US;
	d16[15] = 0;
	assert_int_equal(xl_least_delay_mask(d16, 16, XL_ALL_UP, LAT_TIE), 0x8000);
	d16[15] = 100 * US;
	assert_int_equal(xl_least_delay_mask(d16, 16, XL_ALL_UP, LAT_TIE), 0xffff);
}

/* The choice for a latency class: headroom (xl_pick_least) among the
 * least delayed only. Where the two disagree: member 0 is the least
 * utilized (a burst filled its queue, little rate) but waits 1 ms; 1
 * carries more and has no queue. */
static void latency_choice_vs_headroom(void **state)
{
	/* what xl_member_util_now gives: 0 has 0.25 (a queue counted in),
	 * 1 and 2 0.6 and 0.5, 3 is 0.9 with a short queue */
	const __u32 util[4] = { XL_UTIL_ONE / 4, XL_UTIL_ONE * 6 / 10, XL_UTIL_ONE / 2,
				XL_UTIL_ONE * 9 / 10 };
	const __u32 delay[4] = { 1000 * US, 0, 0, 50 * US };
	__u32 lat = xl_least_delay_mask(delay, 4, XL_ALL_UP, LAT_TIE);

	(void)state;
	for (__u32 s = 0; s < 8; s++) {
		/* headroom alone: member 0, behind the queue */
		assert_int_equal(xl_pick_least(util, 4, XL_ALL_UP, s, TIE), 0);
		/* the latency class: 1 and 2 tie on delay, and the normal
		 * pick takes the less utilized of them */
		assert_int_equal(xl_pick_least(util, 4, lat, s, TIE), 2);
	}
	/* with 2 down, 1 (the only empty queue left) */
	lat = xl_least_delay_mask(delay, 4, 0xb, LAT_TIE);
	assert_int_equal(xl_pick_least(util, 4, lat, 0, TIE), 1);
	/* every queue empty: the normal pick as it is */
	{
		const __u32 none[4] = { 0, 0, 0, 0 };

		lat = xl_least_delay_mask(none, 4, XL_ALL_UP, LAT_TIE);
		assert_int_equal(lat, 0xf);
		for (__u32 s = 0; s < 4; s++)
			assert_int_equal(xl_pick_least(util, 4, lat, s, TIE),
					 xl_pick_least(util, 4, XL_ALL_UP, s, TIE));
	}
}

/* The delays the dataplane compares (member_delay: xl_queue_delay, len
 * 0): a member without a rate counts as no delay, however its vtime
 * reads; one whose queue emptied, too. */
static void latency_delays_from_queues(void **state)
{
	const __u64 now = 3 * NS_PER_S;
	__u32 d[3];

	(void)state;
	d[0] = xl_queue_delay(vt(now + 500 * US), vt(now), 0, 100 * MBPS); /* 500 us */
	d[1] = xl_queue_delay(vt(now + 500 * US), vt(now), 0, 0);          /* no rate */
	d[2] = xl_queue_delay(vt(now - 500 * US), vt(now), 0, 100 * MBPS); /* emptied */
	assert_int_equal(d[0], 500 * US);
	assert_int_equal(d[1], 0);
	assert_int_equal(d[2], 0);
	assert_int_equal(xl_least_delay_mask(d, 3, XL_ALL_UP, LAT_TIE), 0x6);
}

static void latency_may_stay(void **state)
{
	(void)state;
	assert_true(xl_may_stay(2, 1, 0x4));
	assert_true(xl_may_stay(2, 1, XL_ALL_UP));
	assert_false(xl_may_stay(2, 1, 0x3)); /* not among the least delayed */
	assert_false(xl_may_stay(2, 0, 0x4)); /* down */
	assert_false(xl_may_stay(-1, 1, XL_ALL_UP)); /* a new flow: nowhere */
	assert_true(xl_may_stay(15, 1, 0x8000));
}

static void queue_delay_values(void **state)
{
	const __u64 now = 7 * NS_PER_S;

	(void)state;
	/* empty queue (its empty time past, or now) */
	assert_int_equal(xl_queue_delay(vt(now - 5 * US), vt(now), 0, 100 * MBPS), 0);
	assert_int_equal(xl_queue_delay(vt(now), vt(now), 0, 100 * MBPS), 0);
	/* 1500 bytes at 100 Mb/s: 120 us; at 1600 Gb/s: 7.5 ns, floored */
	assert_int_equal(xl_queue_delay(0, vt(now), 1500, 100 * MBPS), 120 * US);
	assert_int_equal(xl_queue_delay(vt(now - 1), vt(now), 1500, 100 * MBPS), 120 * US);
	assert_int_equal(xl_queue_delay(vt(now), vt(now), 1500, 1600 * GBPS), 7);
	/* 2 ms queued: 2 ms, and a packet joining it 120 us more */
	assert_int_equal(xl_queue_delay(vt(now + 2000 * US), vt(now), 0, 100 * MBPS), 2000 * US);
	assert_int_equal(xl_queue_delay(vt(now + 2000 * US), vt(now), 1500, 100 * MBPS),
			 2120 * US);
	/* 1/64 ns units: 63 of them are less than a nanosecond */
	assert_int_equal(xl_queue_delay(vt(now) + 63, vt(now), 0, 100 * MBPS), 0);
	assert_int_equal(xl_queue_delay(vt(now) + 64, vt(now), 0, 100 * MBPS), 1);
	/* across the wrap of the vtime clock (2^58 ns of uptime) */
	assert_int_equal(xl_queue_delay(vt(100), UINT64_MAX - vt(50) + 1, 0, 100 * MBPS), 150);
	assert_int_equal(xl_queue_delay(UINT64_MAX - vt(50) + 1, vt(100), 0, 100 * MBPS), 0);
	/* longer than 32 bits of ns (4.3 s): saturated, never wrapped */
	assert_int_equal(xl_queue_delay(vt(now + 5 * NS_PER_S), vt(now), 0, 100 * MBPS),
			 XL_QDELAY_MAX);
	assert_int_equal(xl_queue_delay(vt(now) + (1ULL << 62), vt(now), 9000, 1 * MBPS),
			 XL_QDELAY_MAX);
	assert_int_equal(xl_queue_delay(vt(now + XL_QDELAY_MAX), vt(now), 0, 100 * MBPS),
			 XL_QDELAY_MAX);
	assert_int_equal(xl_queue_delay(vt(now + XL_QDELAY_MAX - 1), vt(now), 0, 100 * MBPS),
			 XL_QDELAY_MAX - 1);
	/* a jumbo frame at the slowest configurable rate (1 Mb/s): 72 ms */
	assert_int_equal(xl_queue_delay(0, vt(now), 9000, 1 * MBPS), 72000 * US);
}

/* A clock that went back (another CPU's later timestamp) gives a negative
 * gap: it counts as 0, so it never moves a flow whose member is up. */
static void move_clock_back(void **state)
{
	(void)state;
	assert_false(xl_move_safe(-1, 0, 0, 0, 0, 1));
	assert_false(xl_move_safe(-1, 0, 0, 0, UINT32_MAX, 1));
	assert_false(xl_move_safe(INT64_MIN, 0, 0, 0, UINT32_MAX, 1));
	assert_false(xl_move_safe(0, 0, 0, 0, UINT32_MAX, 1)); /* 0 is no gap */
	/* the gap as uplink.h takes it: signed, across the clock's wrap */
	assert_true(xl_move_safe((__s64)(49 - (UINT64_MAX - 50)), 0, 0, 0, 0, 1));
	assert_false(xl_move_safe((__s64)((UINT64_MAX - 50) - 49), 0, 0, 0, 0, 1));
}

/* Extreme values cannot wrap the sums: the rule against its definition in
 * 128 bits, at the edges and over random draws. */
static void move_no_overflow(void **state)
{
	static const __s64 gaps[] = { INT64_MIN, -1, 0, 1, 25000, INT32_MAX,
				      (__s64)UINT32_MAX, (__s64)UINT32_MAX + 1,
				      2 * (__s64)UINT32_MAX, INT64_MAX - 1, INT64_MAX };
	static const __u64 floors[] = { 0, 1, 50000, UINT32_MAX, INT64_MAX, UINT64_MAX };
	static const __u32 q[] = { 0, 1, 25000, INT32_MAX, UINT32_MAX - 1, UINT32_MAX };
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
	size_t a, b, c, d, e;
	int i;

	(void)state;
	for (a = 0; a < N_OF(gaps); a++)
		for (b = 0; b < N_OF(floors); b++)
			for (c = 0; c < N_OF(q); c++)
				for (d = 0; d < N_OF(q); d++)
					for (e = 0; e < N_OF(q); e++)
						if (xl_move_safe(gaps[a], floors[b], q[c], q[d], q[e], 1) !=
						    ref_move_safe(gaps[a], floors[b], q[c], q[d], q[e], 1))
							fail_msg("gap %lld floor %llu skew %u old %u new %u",
								 (long long)gaps[a],
								 (unsigned long long)floors[b], q[c], q[d], q[e]);
	/* the largest of everything */
	assert_true(xl_move_safe(INT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0, 1));
	assert_false(xl_move_safe((__s64)UINT32_MAX * 2 - 1, 0, UINT32_MAX, UINT32_MAX, 0, 1));
	assert_true(xl_move_safe((__s64)UINT32_MAX * 2, 0, UINT32_MAX, UINT32_MAX, 0, 1));
	rng_seed(10);
	for (i = 0; i < 200000; i++) {
		/* spread over all magnitudes, so both outcomes occur */
		__u32 old_qd = rnd32() >> (rnd32() & 31), new_qd = rnd32() >> (rnd32() & 31);
		__u32 skew = rnd32() >> (rnd32() & 31);
		__s64 gap = (__s64)((__u64)rnd32() << (rnd32() % 31)) - (rnd32() % 4 ? 0 : 1000);
		__u64 floor = rnd32() % 2 ? 0 : (__u64)(rnd32() >> (rnd32() & 31));

		if (xl_move_safe(gap, floor, skew, old_qd, new_qd, 1) !=
		    ref_move_safe(gap, floor, skew, old_qd, new_qd, 1))
			fail_msg("gap %lld floor %llu skew %u old %u new %u", (long long)gap,
				 (unsigned long long)floor, skew, old_qd, new_qd);
	}
#undef N_OF
}

/* ---- the rate estimator ------------------------------------------------- */

/* bytes sent in dt ns at rate bit/s */
static __u64 bytes_at(double rate, __u64 dt)
{
	return (__u64)(rate * (double)dt / 8e9 + 0.5);
}

/* A constant rate fed in 50 us samples converges to within 2 % of it
 * after 5 tau, from below and from above, and does not overshoot. */
static void rate_converges(void **state)
{
	/* each a whole number of bytes per 50 us */
	static const double rates[] = { 1.6e6, 1e9, 25e9, 100e9, 400e9,
					1.6e12 };
	const __u64 dt = XL_RATE_SAMPLE_NS;
	const int n = (int)(5 * TAU / dt);
	size_t r;
	int i;

	(void)state;
	assert_int_equal(n, 50);
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		__u64 b = bytes_at(rates[r], dt), up = 0, prev;
		double R = (double)b * 8e9 / (double)dt;
		__u64 down = (__u64)(3 * R);

		assert_true(R == rates[r]);

		for (i = 0; i < n; i++) {
			prev = up;
			up = xl_rate_update(up, b, dt, TAU);
			assert_true(up >= prev && up <= (__u64)(R * 1.0001));
			prev = down;
			down = xl_rate_update(down, b, dt, TAU);
			assert_true(down <= prev && down >= (__u64)(R * 0.9999));
			if (i == 9) /* after one tau: well on the way */
				assert_true(up > 0.5 * R && up < 0.7 * R);
		}
		print_message("# %.3g b/s: from 0 %.4f, from 3x %.4f after 5 tau\n",
			      R, up / R, down / R);
		if (fabs(up / R - 1) > 0.02 || fabs(down / R - 1) > 0.02)
			fail_msg("%.3g b/s: %.4f and %.4f of the rate after 5 "
				 "tau, want within 2 %%", R, up / R, down / R);
	}
}

/* One sample moves the average toward the sample's rate by dt/(dt+tau)
 * (weight in 1/1024, rounded down: off by at most 1/1024 of the step). */
static void rate_step(void **state)
{
	static const __u64 dts[] = { 1, 1000, 50000, 100000, 500000, 1000000,
				     5000000, 100000000 };
	static const double pairs[][2] = { /* avg, sample rate */
		{ 10e9, 50e9 }, { 50e9, 10e9 }, { 0, 100e9 }, { 100e9, 0 },
		{ 400e9, 1.6e12 }, { 1.6e12, 1e9 },
	};
	size_t d, p;

	(void)state;
	for (d = 0; d < sizeof(dts) / sizeof(dts[0]); d++)
		for (p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
			__u64 dt = dts[d], avg = (__u64)pairs[p][0];
			/* bytes that make the sample rate exact */
			__u64 b = (__u64)(pairs[p][1] / 8e9 * (double)dt);
			double inst = (double)b * 8e9 / (double)dt;
			double want = avg + (inst - avg) * dt / (dt + (double)TAU);
			double got = (double)xl_rate_update(avg, b, dt, TAU);
			double slack = fabs(inst - avg) / 1024 + 2;

			if (fabs(got - want) > slack)
				fail_msg("avg %.4g, sample %.4g b/s over %llu ns: "
					 "%.6g, want %.6g +- %.3g", (double)avg,
					 inst, (unsigned long long)dt, got,
					 want, slack);
		}
	/* dt = tau: exactly half way */
	assert_int_equal(xl_rate_update(10 * GBPS, bytes_at(30e9, TAU), TAU,
					TAU), 20 * GBPS);
	/* dt >= 1024 tau: the average is the sample */
	assert_int_equal(xl_rate_update(10 * GBPS, bytes_at(2e9, 1024 * TAU),
					1024 * TAU, TAU), 2 * GBPS);
	/* no time passed: no change */
	assert_int_equal(xl_rate_update(10 * GBPS, 12345, 0, TAU), 10 * GBPS);
	/* nothing sent for a while: down by dt/(dt+tau) */
	assert_int_equal(xl_rate_update(11 * GBPS, 0, TAU, TAU), 11 * GBPS / 2);
	/* bytes since the last sample; a count behind the stored one (a
	 * racing sample's) is none, also across the 64-bit wrap */
	assert_int_equal(xl_bytes_since(1500, 500), 1000);
	assert_int_equal(xl_bytes_since(500, 500), 0);
	assert_int_equal(xl_bytes_since(500, 1500), 0);
	assert_int_equal(xl_bytes_since(5, ~0ULL - 4), 10);
	assert_int_equal(xl_bytes_since(~0ULL - 4, 5), 0);
}

/* A flow with no rate yet weighs the members' mean capacity, uncapped; a
 * flow with a rate, its rate capped at the candidate's capacity; both
 * halved (xl_flowlet_extra). */
static void placement_extra(void **state)
{
	const __u64 caps[4] = { 200000000, 100000000, 100000000, 50000000 };
	const __u64 none[2] = { 0, 0 };
	__u32 mbps = xl_unknown_flow_mbps(caps, 4);

	(void)state;
	assert_int_equal(mbps, 112); /* 450 / 4, whole Mbit/s */
	assert_int_equal(xl_unknown_flow_mbps(none, 2), 0);
	assert_int_equal(xl_unknown_flow_mbps(caps, 0), 0);
	{ /* a member without a rate is not averaged in */
		const __u64 some[3] = { 200000000, 0, 100000000 };

		assert_int_equal(xl_unknown_flow_mbps(some, 3), 150);
	}
	assert_int_equal(xl_placement_extra(0, 50000000, mbps), 56000000);
	assert_int_equal(xl_placement_extra(0, 200000000, mbps), 56000000);
	assert_int_equal(xl_placement_extra(80000000, 50000000, mbps), 25000000);
	assert_int_equal(xl_placement_extra(80000000, 200000000, mbps), 40000000);
	/* idle members: the 200 (0.28) before the 100s (0.56) and the 50
	 * (1.12) */
	{
		__u32 util[4], i;

		for (i = 0; i < 4; i++)
			util[i] = xl_member_util(xl_placement_extra(0, caps[i], mbps), 0,
						 caps[i], XL_RATE_TAU_NS);
		assert_true(util[0] < util[1] && util[1] == util[2] && util[2] < util[3]);
		assert_true(util[3] > XL_UTIL_ONE);
	}
}

/* Read side: within tau of the last sample the average stands (that gap
 * is packet spacing, not silence); beyond, it falls as tau / idle, so it
 * halves after 2 tau of silence. */
static void rate_idle_decay(void **state)
{
	static const __u64 avgs[] = { 1000, 1 * GBPS, 100 * GBPS,
				      0xffffffffffULL, 0x10000000000ULL,
				      400 * GBPS, 1600 * GBPS };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(avgs) / sizeof(avgs[0]); i++) {
		__u64 a = avgs[i];
		double half = (double)xl_rate_now(a, 2 * TAU, TAU) / (double)a;
		double quarter = (double)xl_rate_now(a, 4 * TAU, TAU) / (double)a;
		double slack = 1.0 / (double)a + 1e-6; /* rounded down */

		assert_int_equal(xl_rate_now(a, 0, TAU), a);
		assert_int_equal(xl_rate_now(a, XL_RATE_SAMPLE_NS, TAU), a);
		assert_int_equal(xl_rate_now(a, TAU, TAU), a);
		if (fabs(half - 0.5) > slack || fabs(quarter - 0.25) > slack)
			fail_msg("avg %llu: %.7f after 2 tau, %.7f after 4 tau",
				 (unsigned long long)a, half, quarter);
		assert_true(xl_rate_now(a, TAU + 1, TAU) <= a);
		assert_true(xl_rate_now(a, 200 * TAU, TAU) < a / 100);
	}
	assert_int_equal(xl_rate_now(0, 2 * TAU, TAU), 0);
	/* an hour of silence at 1.6 Tb/s: no overflow, close to 0 */
	assert_true(xl_rate_now(1600 * GBPS, 3600 * NS_PER_S, TAU) < 1000000);
}

/* A placed flowlet's pending rate and the average together: while the
 * flowlet sends at its rate r, sampled every XL_RATE_SAMPLE_NS, average +
 * pending stays r (to rounding; rates with whole bytes per sample); a
 * flowlet that never sends leaves pending fading as the average would,
 * (tau / (S + tau))^k after k samples; a sample after 1024 tau or more
 * takes it all. */
static void pending_complements_average(void **state)
{
	static const __u64 rates[] = { 16000000, 1 * GBPS, 100 * GBPS,
				       1600 * GBPS };
	const __u64 S = XL_RATE_SAMPLE_NS;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		__u64 r = rates[i], avg = 0, pending = r, idle = r;
		double want;

		for (k = 1; k <= 40; k++) {
			avg = xl_rate_update(avg, r * S / 8 / NS_PER_S, S, TAU);
			pending -= xl_pending_taken(pending, S, TAU);
			idle -= xl_pending_taken(idle, S, TAU);
			if (fabs((double)(avg + pending) / (double)r - 1) > 0.005)
				fail_msg("%llu b/s, sample %d: average %llu + pending %llu",
					 (unsigned long long)r, k, (unsigned long long)avg,
					 (unsigned long long)pending);
		}
		/* 40 samples at weight floor(1024 S / (S + tau)) / 1024 */
		want = pow(1 - (double)xl_rate_weight(S, TAU) / 1024, 40);
		if (fabs((double)idle / (double)r - want) > 0.001)
			fail_msg("%llu b/s unsent: %.5f left after 40 samples, want %.5f",
				 (unsigned long long)r, (double)idle / (double)r, want);
		assert_int_equal(xl_pending_taken(r, 1024 * TAU, TAU), r);
		assert_int_equal(xl_pending_taken(r, 0, TAU), 0);
	}
	print_message("# unsent pending after 2 tau of samples: %.3f\n",
		      pow(1 - (double)xl_rate_weight(S, TAU) / 1024, 20));
}

/* 1.6 Tb/s and byte counts beyond 2^31: no overflow, small error. */
static void rate_no_overflow(void **state)
{
	static const __u64 dts[] = { 50000, 1000000, 10000000, NS_PER_S,
				     10 * NS_PER_S, 60 * NS_PER_S };
	static const double rates[] = { 1e9, 100e9, 800e9, 1.6e12 };
	size_t d, r;

	(void)state;
	for (d = 0; d < sizeof(dts) / sizeof(dts[0]); d++)
		for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			__u64 dt = dts[d], b = bytes_at(rates[r], dt);
			__u64 v = 0;
			int i;

			/* long enough to converge (fewer samples at long dt) */
			for (i = 0; i < 400; i++)
				v = xl_rate_update(v, b, dt, TAU);
			if (fabs((double)v / rates[r] - 1) > 0.01)
				fail_msg("%.3g b/s in %llu ns samples (%llu "
					 "bytes each): %.6g", rates[r],
					 (unsigned long long)dt,
					 (unsigned long long)b, (double)v);
			/* from an average above and below too */
			v = xl_rate_update(1600 * GBPS, b, dt, TAU);
			assert_true(v <= 1600 * GBPS &&
				    (double)v >= rates[r] * 0.99);
			v = xl_rate_update(1, b, dt, TAU);
			assert_true(v >= 1 && (double)v <= rates[r] * 1.01);
		}
	/* 2^40 bytes in 2^40 ns (8 b/ns) */
	{
		__u64 v = xl_rate_update(0, 1ULL << 40, 1ULL << 40, TAU);

		assert_true(fabs((double)v / 8e9 - 1) < 0.01);
	}
}

/* ---- synthetic simulation ----------------------------------------------- */

/* Eight flows of NCCL-like messages (64 KiB as 16 packets of 4 KiB, then
 * 200 us of silence: every message is a new flowlet under the 100 us
 * timeout) over 4 uplinks, decided the way bpf/uplink.h does it: on a new
 * flowlet, xl_member_util of every member (rate decayed since its last
 * sample with xl_rate_now, plus the flowlet's expected rate from
 * xl_flowlet_extra, plus its queue) and xl_pick_least with a rotating
 * start and tie XL_LB_TIE; with `safe`, a move kept back unless
 * xl_move_safe allows it (default floor and skew, the fluid queues'
 * delays; the flow's last packet's delay includes its own transmission, as
 * in bpf/uplink.h); the rate of an uplink sampled
 * after a packet it sent, at most every XL_RATE_SAMPLE_NS, with
 * xl_rate_update; the queue a fluid one draining at the capacity.
 *
 * Each flow offers 1/8 of the aggregate capacity on average (10 Gb/s:
 * 1.25 Gb/s a flow, a message every 419 us), so the uplinks together are
 * fully offered. 1 s of synthetic time. */
#define SIM_N_FLOWS 8
#define SIM_N_LINKS 4
#define SIM_MSG (64 * 1024)
#define SIM_PKT 4096
#define SIM_GAP (200 * NS_PER_US)
#define SIM_TIMEOUT XL_DEFAULT_FLOWLET_TIMEOUT_NS
#define SIM_AGG (10 * GBPS)
#define SIM_T0 NS_PER_S /* start late: sample_ns 0 means "never" */
#define SIM_LEN NS_PER_S

struct sim_link {
	__u64 cap;
	__u64 tx_bytes;
	__u64 sample_ns, sample_bytes, rate; /* struct xl_uplink_rate */
	double busy_until;                   /* fluid queue, ns */
};

struct sim_flow {
	double next;     /* next packet, ns */
	int in_msg;      /* packets of the message sent */
	int has;         /* has a member */
	int member;
	__u64 last_ns;
	__u32 qdelay_ns; /* of its last packet, its own transmission included */
	double left;     /* when its last packet left its link, ns */
	__u64 flowlet_start_ns, flowlet_bytes, flowlet_rate; /* xl_flow_state */
};

struct sim_result {
	__u64 bytes[SIM_N_LINKS];
	__u64 total;
	__u64 flowlets, moves, refused;
	__u64 reordered; /* packets that left before an earlier one of their flow */
};

static __u64 sim_queue_bytes(const struct sim_link *l, __u64 now)
{
	double ahead = l->busy_until - (double)now;

	return ahead > 0 ? (__u64)(ahead * (double)l->cap / 8e9) : 0;
}

static __u32 sim_delay_ns(const struct sim_link *l, __u64 now)
{
	double ahead = l->busy_until - (double)now;

	return ahead > 0 ? (__u32)ahead : 0;
}

/* stagger: flows start evenly spread over one message period; else all
 * at once (a collective step). safe: moves follow the reorder-free rule. */
static void simulate(const __u64 *caps, int stagger, int safe, struct sim_result *res)
{
	struct sim_link link[SIM_N_LINKS];
	struct sim_flow flow[SIM_N_FLOWS];
	const double flow_rate = (double)SIM_AGG / SIM_N_FLOWS;
	const double period = SIM_MSG * 8e9 / flow_rate;
	const double spacing = (period - SIM_GAP) / (SIM_MSG / SIM_PKT);
	__u32 rr = 0, util[SIM_N_LINKS];
	int i, f, m;

	memset(link, 0, sizeof(link));
	memset(flow, 0, sizeof(flow));
	memset(res, 0, sizeof(*res));
	for (i = 0; i < SIM_N_LINKS; i++)
		link[i].cap = caps[i];
	for (f = 0; f < SIM_N_FLOWS; f++)
		flow[f].next = SIM_T0 + (stagger ? period * f / SIM_N_FLOWS : 0);

	for (;;) {
		struct sim_link *l;
		__u64 now;

		for (f = 0, i = 1; i < SIM_N_FLOWS; i++)
			if (flow[i].next < flow[f].next)
				f = i;
		now = (__u64)flow[f].next;
		if (now >= SIM_T0 + SIM_LEN)
			break;
		if (flow[f].has &&
		    !xl_flowlet_expired(now, flow[f].last_ns, SIM_TIMEOUT)) {
			m = flow[f].member;
		} else {
			if (flow[f].flowlet_bytes)
				flow[f].flowlet_rate = xl_flowlet_rate(
					flow[f].flowlet_bytes,
					flow[f].last_ns - flow[f].flowlet_start_ns,
					flow[f].flowlet_rate);
			flow[f].flowlet_start_ns = now;
			flow[f].flowlet_bytes = 0;
			for (i = 0; i < SIM_N_LINKS; i++) {
				__u64 rate = link[i].sample_ns ?
					xl_rate_now(link[i].rate,
						    now - link[i].sample_ns, TAU) : 0;

				util[i] = xl_member_util(rate +
						xl_flowlet_extra(flow[f].flowlet_rate),
						sim_queue_bytes(&link[i], now),
						link[i].cap, TAU);
			}
			m = xl_pick_least(util, SIM_N_LINKS, XL_ALL_UP, rr++,
					  TIE);
			assert_true(m >= 0 && m < SIM_N_LINKS);
			if (safe && flow[f].has && m != flow[f].member &&
			    !xl_move_safe((__s64)(now - flow[f].last_ns), SIM_TIMEOUT,
					  XL_DEFAULT_PATH_SKEW_NS, flow[f].qdelay_ns,
					  sim_delay_ns(&link[m], now), 1)) {
				m = flow[f].member;
				res->refused++;
			}
			res->flowlets++;
			res->moves += flow[f].has && m != flow[f].member;
			flow[f].has = 1;
			flow[f].member = m;
		}
		/* send it */
		l = &link[m];
		l->tx_bytes += SIM_PKT;
		l->busy_until = (l->busy_until > now ? l->busy_until : now) +
				SIM_PKT * 8e9 / (double)l->cap;
		res->reordered += l->busy_until < flow[f].left;
		flow[f].left = l->busy_until;
		if (now - l->sample_ns >= XL_RATE_SAMPLE_NS) {
			if (l->sample_ns)
				l->rate = xl_rate_update(l->rate,
						l->tx_bytes - l->sample_bytes,
						now - l->sample_ns, TAU);
			l->sample_ns = now;
			l->sample_bytes = l->tx_bytes;
		}
		res->bytes[m] += SIM_PKT;
		res->total += SIM_PKT;
		flow[f].last_ns = now;
		flow[f].qdelay_ns = sim_delay_ns(l, now);
		flow[f].flowlet_bytes += SIM_PKT;
		if (++flow[f].in_msg == SIM_MSG / SIM_PKT) {
			flow[f].in_msg = 0;
			flow[f].next += spacing + SIM_GAP;
		} else {
			flow[f].next += spacing;
		}
	}
}

static void sim_report(const char *what, const struct sim_result *r)
{
	int i;

	print_message("# %s: %llu flowlets, %llu moved, %llu moves refused; shares",
		      what, (unsigned long long)r->flowlets,
		      (unsigned long long)r->moves, (unsigned long long)r->refused);
	for (i = 0; i < SIM_N_LINKS; i++)
		print_message(" %.2f", 100.0 * r->bytes[i] / r->total);
	print_message(" %%\n");
}

static void sim_equal_capacities(void **state)
{
	static const __u64 caps[4] = { 2500000000ULL, 2500000000ULL,
				       2500000000ULL, 2500000000ULL };
	struct sim_result r;
	int stagger, i;

	(void)state;
	for (stagger = 0; stagger < 2; stagger++) {
		double mean, max = 0;

		simulate(caps, stagger, 0, &r);
		sim_report(stagger ? "1:1:1:1 staggered" : "1:1:1:1 in step", &r);
		/* 1 s at 10 Gb/s offered: about 1.25 GB sent */
		assert_true(r.total > 1200000000ULL && r.total < 1300000000ULL);
		mean = (double)r.total / SIM_N_LINKS;
		for (i = 0; i < SIM_N_LINKS; i++)
			if (r.bytes[i] > max)
				max = (double)r.bytes[i];
		if (max / mean > 1.05)
			fail_msg("1:1:1:1 (%s): max/mean %.4f, want <= 1.05",
				 stagger ? "staggered" : "in step", max / mean);
	}
}

static void sim_unequal_capacities(void **state)
{
	static const __u64 caps[4] = { 4000000000ULL, 2000000000ULL,
				       2000000000ULL, 2000000000ULL };
	static const double want[4] = { 0.4, 0.2, 0.2, 0.2 };
	struct sim_result r;
	int stagger, i;

	(void)state;
	for (stagger = 0; stagger < 2; stagger++) {
		simulate(caps, stagger, 0, &r);
		sim_report(stagger ? "2:1:1:1 staggered" : "2:1:1:1 in step", &r);
		for (i = 0; i < SIM_N_LINKS; i++) {
			double share = (double)r.bytes[i] / r.total;

			/* within 5 % of the target share (relative) */
			if (fabs(share / want[i] - 1) > 0.05)
				fail_msg("2:1:1:1 (%s): uplink %d has %.2f %%, "
					 "want %.0f %% +- 5 %%",
					 stagger ? "staggered" : "in step", i,
					 100 * share, 100 * want[i]);
		}
	}
}

/* The same packets with moves held to the reorder-free rule: no packet
 * leaves its link before an earlier one of its flow left its own, where
 * every move was free to reorder them (these links are fully offered, so
 * a flow's last packet is often still queued when its next flowlet
 * starts). What the rule costs here is printed, not asserted: at this
 * load (offered = capacity) a burst leaves a queue about as long as the
 * gap before the next message, so no move to a less loaded link is ever
 * safe, and with open-loop senders, which never slow down on a full
 * link, whatever placement the queues found stays (docs/load-balancing.md). */
static void sim_with_rule(void **state)
{
	static const __u64 caps[2][4] = {
		{ 2500000000ULL, 2500000000ULL, 2500000000ULL, 2500000000ULL },
		{ 4000000000ULL, 2000000000ULL, 2000000000ULL, 2000000000ULL },
	};
	struct sim_result free_run, safe_run;
	char what[64];
	int c, stagger;

	(void)state;
	for (c = 0; c < 2; c++)
		for (stagger = 0; stagger < 2; stagger++) {
			simulate(caps[c], stagger, 0, &free_run);
			simulate(caps[c], stagger, 1, &safe_run);
			snprintf(what, sizeof(what), "%s %s, reorder-free", c ? "2:1:1:1" : "1:1:1:1",
				 stagger ? "staggered" : "in step");
			sim_report(what, &safe_run);
			print_message("#   reordered packets: %llu free, %llu reorder-free\n",
				      (unsigned long long)free_run.reordered,
				      (unsigned long long)safe_run.reordered);
			assert_int_equal(safe_run.reordered, 0);
			assert_true(free_run.reordered > 0);
			assert_true(safe_run.refused > 0);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(util_capacity_weighting),
		cmocka_unit_test(util_unknown_capacity),
		cmocka_unit_test(util_queue_term),
		cmocka_unit_test(util_saturation),
		cmocka_unit_test(util_queue_no_wrap),
		cmocka_unit_test(least_lowest_wins),
		cmocka_unit_test(least_ties_rotate),
		cmocka_unit_test(least_down_members),
		cmocka_unit_test(least_one_and_sixteen),
		cmocka_unit_test(least_saturated_members),
		cmocka_unit_test(weighted_by_capacity),
		cmocka_unit_test(weighted_edges),
		cmocka_unit_test(hash_up_stability),
		cmocka_unit_test(flowlet_boundary),
		cmocka_unit_test(move_equal_queues),
		cmocka_unit_test(move_old_queue_longer),
		cmocka_unit_test(move_new_queue_longer),
		cmocka_unit_test(move_from_down_member),
		cmocka_unit_test(move_detail_packs),
		cmocka_unit_test(move_floor),
		cmocka_unit_test(worth_equal_flows_stay),
		cmocka_unit_test(worth_collision_moves),
		cmocka_unit_test(worth_sustained_overload_moves),
		cmocka_unit_test(worth_unknown_capacity_by_both_averages),
		cmocka_unit_test(held_load_leave_and_target),
		cmocka_unit_test(held_load_keeps_paused_member),
		cmocka_unit_test(held_share_grows_with_the_stay),
		cmocka_unit_test(held_share_ends_flapping),
		cmocka_unit_test(placed_ns_across_the_wrap),
		cmocka_unit_test(fair_share_values),
		cmocka_unit_test(share_move_by_count),
		cmocka_unit_test(wants_more_share),
		cmocka_unit_test(yield_when_shared_long_enough),
		cmocka_unit_test(yield_to_no_smaller_share),
		cmocka_unit_test(yield_key_share_then_util),
		cmocka_unit_test(member_flows_epochs),
		cmocka_unit_test(flow_epoch_and_data),
		cmocka_unit_test(flow_demand_is_the_higher),
		cmocka_unit_test(flow_demand_unknown_capacity),
		cmocka_unit_test(rate_still_counted),
		cmocka_unit_test(auto_skew),
		cmocka_unit_test(auto_floors),
		cmocka_unit_test(expected_rate_capped),
		cmocka_unit_test(window_rate),
		cmocka_unit_test(move_unlimited_members),
		cmocka_unit_test(queue_delay_values),
		cmocka_unit_test(latency_dscp_bits),
		cmocka_unit_test(least_delay_mask_values),
		cmocka_unit_test(latency_choice_vs_headroom),
		cmocka_unit_test(latency_delays_from_queues),
		cmocka_unit_test(latency_may_stay),
		cmocka_unit_test(move_clock_back),
		cmocka_unit_test(move_no_overflow),
		cmocka_unit_test(rate_converges),
		cmocka_unit_test(rate_step),
		cmocka_unit_test(placement_extra),
		cmocka_unit_test(rate_idle_decay),
		cmocka_unit_test(rate_no_overflow),
		cmocka_unit_test(pending_complements_average),
		cmocka_unit_test(sim_equal_capacities),
		cmocka_unit_test(sim_unequal_capacities),
		cmocka_unit_test(sim_with_rule),
	};

	return cmocka_run_group_tests_name("lb", tests, NULL, NULL);
}
