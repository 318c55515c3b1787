// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for include/ecn.h, the congestion point's pure functions: the
 * WRED curve (docs/dcqcn-spec.md), the phantom queue kept as a virtual
 * finish time (drain arithmetic, very long queues, clock wrap), the log2
 * histogram and the mark / enqueue / drop decision.
 *
 * Expected values come from an independent model: exact rational
 * arithmetic in 128-bit integers (bytes x 8e9 against bit/s x ns), never
 * from ecn.h's own formulas. Tolerances are stated where the model and the
 * fixed-point time unit (1/64 ns) must differ. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "ecn.h"
#include "base/rng.h"

/* ---- helpers ------------------------------------------------------------ */

typedef unsigned __int128 u128;
typedef __int128 s128;

static __u64 rng_state = 0x2545f4914f6cdd1dull;

static __u32 rnd32(void)
{
	return xl_rand32(&rng_state);
}

#define NS_PER_S 1000000000ULL
#define KIB 1024U
/* Longest queue xl_backlog reads, in ns. */
#define CAP_NS (XL_VT_MAX_AHEAD >> XL_VT_SHIFT)
/* Probability p (0..1) in the curve's 2^-32 units, rounded. */
#define PROB(p) ((__u32)((p) * 4294967296.0 + 0.5))

static const struct xl_wred paper = { /* 5K / 200K / 1 % */
	.kmin = 5 * KIB, .kmax = 200 * KIB, .pmax = PROB(0.01),
};

/* Exact reference for the queue: bytes still queued t_ns after n packets
 * of len bytes arrived together at an empty port draining at drain bit/s,
 * as a fraction num / 8e9 (num = n·len·8e9 − t·drain, floored at 0), and
 * the readout cap (2^40 ns, include/ecn.h) applied to the remaining time. */
static s128 ref_backlog_num(__u64 n, __u64 len, __u64 t_ns, __u64 drain)
{
	s128 num = (s128)n * len * 8 * NS_PER_S - (s128)t_ns * drain;
	s128 cap = (s128)CAP_NS * drain;

	if (num < 0)
		return 0;
	return num > cap ? cap : num;
}

/* |got − ref| <= tol bytes, with ref = num / 8e9. */
static int close_to(__u64 got, s128 num, long double tol)
{
	long double ref = (long double)num / (8.0L * NS_PER_S);

	long double d = (long double)got - ref;

	return d <= tol && -d <= tol;
}

/* Bytes that one vtime unit (1/64 ns) stands for at this rate. */
static long double bytes_per_unit(__u64 drain)
{
	return (long double)drain / (8.0L * NS_PER_S * (1 << XL_VT_SHIFT));
}

static long double bytes_per_ns(__u64 drain)
{
	return (long double)drain / (8.0L * NS_PER_S);
}

/* Enqueue n packets of len bytes at t0_ns (vt units derived here), then
 * read the backlog t_ns later. */
static __u64 backlog_after(__u64 t0_ns, __u64 n, __u64 len, __u64 t_ns,
			   __u64 drain)
{
	__u64 now = xl_vt_now(t0_ns), vt = 0;
	__u64 i;

	for (i = 0; i < n; i++)
		vt = xl_vt_enqueue(vt, now, len, drain);
	return xl_backlog(vt, xl_vt_now(t0_ns + t_ns), drain);
}

static const __u64 rates[] = {
	1000000ULL,       /* 1 Mb/s: the smallest rate the config takes */
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	25000000000ULL,
	100000000000ULL,
	400000000000ULL,
	800000000000ULL,
};
#define N_RATES (sizeof(rates) / sizeof(rates[0]))

/* ---- the WRED curve ----------------------------------------------------- */

/* docs/dcqcn-spec.md: p = Pmax (q − Kmin) / (Kmax − Kmin), in 2^-32 units,
 * computed here in 128 bits and rounded down. */
static __u64 ref_prob(__u64 q, const struct xl_wred *w)
{
	if (q <= w->kmin)
		return 0;
	if (q > w->kmax)
		return XL_PROB_ONE;
	return (__u64)((u128)w->pmax * (q - w->kmin) / (w->kmax - w->kmin));
}

static void check_curve(const struct xl_wred *w)
{
	__u64 mid2 = (__u64)w->kmin + w->kmax; /* 2 x midpoint */
	__u64 p;

	assert_int_equal(xl_wred_prob(0, w), 0);
	assert_int_equal(xl_wred_prob(w->kmin, w), 0);
	if (w->kmin)
		assert_int_equal(xl_wred_prob(w->kmin - 1, w), 0);
	/* one byte above Kmin: the smallest step of the slope */
	p = xl_wred_prob((__u64)w->kmin + 1, w);
	assert_true(p <= (__u64)w->pmax / (w->kmax - w->kmin) + 1);
	assert_true(p <= (__u64)w->pmax);
	assert_int_equal(p, ref_prob((__u64)w->kmin + 1, w));
	/* midpoint: Pmax / 2, within the rounding of an odd range */
	p = xl_wred_prob(mid2 / 2, w);
	if (mid2 % 2 == 0)
		assert_true(p + 1 >= w->pmax / 2 && p <= w->pmax / 2 + 1);
	else /* half a byte below the midpoint */
		assert_true(p <= w->pmax / 2 + 1 &&
			    p + 1 + (__u64)w->pmax / (w->kmax - w->kmin) >=
				    w->pmax / 2);
	assert_int_equal(xl_wred_prob(w->kmax, w), w->pmax);
	assert_int_equal(xl_wred_prob((__u64)w->kmax + 1, w), XL_PROB_ONE);
	assert_int_equal(xl_wred_prob((__u64)w->kmax + 1000, w), XL_PROB_ONE);
	assert_int_equal(xl_wred_prob(1ULL << 40, w), XL_PROB_ONE);
	assert_int_equal(xl_wred_prob(~0ULL, w), XL_PROB_ONE);
}

static void wred_curve_paper(void **state)
{
	(void)state;
	check_curve(&paper);
	/* Kmin + 1: 1 % over 199680 bytes of slope */
	assert_int_equal(xl_wred_prob(paper.kmin + 1, &paper),
			 PROB(0.01) / (195 * KIB));
	assert_true(xl_wred_prob(paper.kmin + 1, &paper) > 0);
}

static void wred_curve_profiles(void **state)
{
	static const struct xl_wred ws[] = {
		{ 100 * KIB, 400 * KIB, PROB(0.2), 0 }, /* common at 100 G */
		{ 0, 1, PROB(0.5), 0 },                 /* one byte wide */
		{ 0, 2, PROB(0.5), 0 },
		{ 1000, 1001, PROB(0.3), 0 },
		{ 1, 4000001, PROB(0.07), 0 },          /* odd range */
		{ 0, 256U << 20, 0xffffffffu, 0 },      /* config maximum */
		{ 0xfffffffeu, 0xffffffffu, 0xffffffffu, 0 },
		{ 0, 0xffffffffu, 0xffffffffu, 0 },     /* widest product */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		check_curve(&ws[i]);
}

/* The curve is non-decreasing and equals the 128-bit reference at every
 * byte of a small profile and at sampled points of the paper's. */
static void wred_curve_matches_reference(void **state)
{
	static const struct xl_wred small = { 100, 1100, PROB(0.37), 0 };
	__u64 q, prev = 0, p;

	(void)state;
	for (q = 0; q <= 1200; q++) {
		p = xl_wred_prob(q, &small);
		assert_int_equal(p, ref_prob(q, &small));
		assert_true(p >= prev);
		prev = p;
	}
	prev = 0;
	for (q = 0; q <= paper.kmax + 4096; q += 7) {
		p = xl_wred_prob(q, &paper);
		assert_int_equal(p, ref_prob(q, &paper));
		assert_true(p >= prev);
		prev = p;
	}
}

static void wred_pmax_zero(void **state)
{
	const struct xl_wred w = { 1000, 5000, 0, 0 };
	__u64 q;

	(void)state;
	for (q = 0; q <= w.kmax; q++)
		assert_int_equal(xl_wred_prob(q, &w), 0);
	assert_int_equal(xl_wred_prob(w.kmax + 1, &w), XL_PROB_ONE);
	/* never marked in the slope, whatever the random number */
	assert_false(xl_wred_decide(xl_wred_prob(3000, &w), 0));
	assert_true(xl_wred_decide(xl_wred_prob(w.kmax + 1, &w), 0xffffffffu));
}

/* Pmax = 1 − 2^-32, the largest the curve can hold below certainty. */
static void wred_pmax_almost_one(void **state)
{
	const struct xl_wred w = { 1000, 5000, 0xffffffffu, 0 };
	__u64 p;

	(void)state;
	assert_int_equal(xl_wred_prob(w.kmax, &w), 0xffffffffu);
	p = xl_wred_prob(3000, &w); /* midpoint */
	assert_true(p >= 0x7fffffffu && p <= 0x80000000u);
	/* at Kmax only the very last random number escapes */
	assert_true(xl_wred_decide(xl_wred_prob(w.kmax, &w), 0));
	assert_true(xl_wred_decide(xl_wred_prob(w.kmax, &w), 0xfffffffeu));
	assert_false(xl_wred_decide(xl_wred_prob(w.kmax, &w), 0xffffffffu));
	/* above Kmax: always */
	assert_true(xl_wred_decide(xl_wred_prob(w.kmax + 1, &w), 0xffffffffu));
}

/* Kmin == Kmax: a step, no division by zero. */
static void wred_step_profile(void **state)
{
	const struct xl_wred w = { 3000, 3000, PROB(0.5), 0 };

	(void)state;
	assert_int_equal(xl_wred_prob(0, &w), 0);
	assert_int_equal(xl_wred_prob(3000, &w), 0);
	assert_int_equal(xl_wred_prob(3001, &w), XL_PROB_ONE);
	{
		const struct xl_wred z = { 0, 0, 0, 0 };

		assert_int_equal(xl_wred_prob(0, &z), 0);
		assert_int_equal(xl_wred_prob(1, &z), XL_PROB_ONE);
	}
}

static void wred_decide_edges(void **state)
{
	static const __u32 rs[] = { 0, 1, 2, 0x7fffffffu, 0x80000000u,
				    0xfffffffeu, 0xffffffffu };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		assert_false(xl_wred_decide(0, rs[i]));
		assert_true(xl_wred_decide(XL_PROB_ONE, rs[i]));
		assert_int_equal(xl_wred_decide(1, rs[i]), rs[i] == 0);
		assert_int_equal(xl_wred_decide(0x80000000u, rs[i]),
				 rs[i] < 0x80000000u);
	}
	/* any probability above one is certain too */
	assert_true(xl_wred_decide(XL_PROB_ONE + 1, 0xffffffffu));
	assert_true(xl_wred_decide(~0ULL, 0xffffffffu));
}

/* 200 000 random numbers at the midpoint: the marked fraction lies within
 * 3 sigma of Pmax / 2 (binomial). */
static void wred_midpoint_statistics(void **state)
{
	static const double pmaxes[] = { 0.01, 0.2, 0.5, 1.0 - 1e-9 };
	const int n = 200000;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(pmaxes) / sizeof(pmaxes[0]); k++) {
		struct xl_wred w = { 5 * KIB, 205 * KIB, PROB(pmaxes[k]), 0 };
		__u64 mid = (w.kmin + w.kmax) / 2;
		/* 3 sigma, squared: (3 sigma)^2 = 9 p (1 - p) / n */
		double p = pmaxes[k] / 2, var9 = 9 * p * (1 - p) / n, frac;
		int i, marked = 0;

		if (pmaxes[k] > 0.9)
			w.pmax = 0xffffffffu;
		for (i = 0; i < n; i++) {
			int d = xl_queue_decide(mid, 1000, 1U << 30, &w, 1, 0,
						rnd32());

			assert_true(d & XL_Q_ENQUEUE);
			marked += !!(d & XL_Q_MARK);
		}
		frac = (double)marked / n;
		print_message("# pmax %.4f: %d of %d marked at the midpoint "
			      "(%.5f, want %.5f, 3 sigma^2 %.3g)\n", pmaxes[k],
			      marked, n, frac, p, var9);
		assert_true((frac - p) * (frac - p) <= var9);
	}
}

/* ---- drain arithmetic --------------------------------------------------- */

/* n packets of len bytes arrive together; t ns later the backlog is
 * max(0, n·len − t·drain/8), for every rate,
 * γ = 1 and γ = 0.95. The readout resolves whole nanoseconds, and each
 * enqueue rounds the packet's time down to a vtime unit, so the tolerance
 * is 1 byte + n + 1 units + 1 ns worth of bytes (backlog_sub_ns_resolution
 * checks the finer bound the time unit promises). */
static void drain_matches_rate(void **state)
{
	static const __u64 lens[] = { 64, 1500, 9000 };
	static const __u64 ns[] = { 1, 10, 100 };
	static const __u32 gammas[] = { 1000000, 950000 };
	const __u64 t0 = 123456789012345ULL;
	size_t r, g, l, k, j;

	(void)state;
	for (r = 0; r < N_RATES; r++)
	for (g = 0; g < 2; g++)
	for (l = 0; l < 3; l++)
	for (k = 0; k < 3; k++) {
		__u64 drain = rates[r] * gammas[g] / 1000000;
		__u64 n = ns[k], len = lens[l];
		/* exact time to drain the whole burst, rounded down */
		__u64 empty_ns = (__u64)((u128)n * len * 8 * NS_PER_S / drain);
		__u64 ts[] = { 0, 1, 2, 999, 1000, 123457, empty_ns / 3,
			       empty_ns / 2, empty_ns ? empty_ns - 1 : 0,
			       empty_ns, empty_ns + 1, empty_ns + 1000,
			       3600ULL * NS_PER_S };
		long double tol = 1 + (n + 1) * bytes_per_unit(drain) +
				  bytes_per_ns(drain);

		for (j = 0; j < sizeof(ts) / sizeof(ts[0]); j++) {
			__u64 got = backlog_after(t0, n, len, ts[j], drain);
			s128 num = ref_backlog_num(n, len, ts[j], drain);

			if (!close_to(got, num, tol))
				fail_msg("rate %llu gamma %u: %llu x %llu B, "
					 "%llu ns later: backlog %llu, want "
					 "%.3Lf +- %.3Lf",
					 (unsigned long long)rates[r],
					 gammas[g], (unsigned long long)n,
					 (unsigned long long)len,
					 (unsigned long long)ts[j],
					 (unsigned long long)got,
					 (long double)num / (8.0L * NS_PER_S),
					 tol);
		}
	}
}

/* Arrivals spread over time (some finding the queue empty): at every
 * arrival the backlog equals an exact fluid model of the queue. */
static void drain_random_arrivals(void **state)
{
	size_t r;

	(void)state;
	for (r = 0; r < N_RATES; r++) {
		__u64 drain = rates[r] / 100 * 95; /* γ = 0.95 */
		__u64 t = 5000000000ULL, vt = 0, busy = 0;
		/* exact queue: bytes x 8e9 */
		s128 q = 0;
		__u64 mean_len = 800;
		/* mean gap: about the time of one mean packet */
		__u64 gap = mean_len * 8 * NS_PER_S / drain + 1;
		int i;

		for (i = 0; i < 20000; i++) {
			__u64 dt = rnd32() % (2 * gap + 1);
			__u64 len = 64 + rnd32() % 1437;
			s128 cap = (s128)CAP_NS * drain;
			__u64 got;

			t += dt;
			q -= (s128)dt * drain;
			if (q <= 0) {
				q = 0;
				busy = 0; /* rounding restarts with the queue */
			}
			got = xl_backlog(vt, xl_vt_now(t), drain);
			if (!close_to(got, q > cap ? cap : q,
				      1 + (busy + 1) * bytes_per_unit(drain) +
					      bytes_per_ns(drain)))
				fail_msg("drain %llu, arrival %d: backlog %llu, "
					 "want %.3Lf",
					 (unsigned long long)drain, i,
					 (unsigned long long)got,
					 (long double)q / (8.0L * NS_PER_S));
			vt = xl_vt_enqueue(vt, xl_vt_now(t), len, drain);
			q += (s128)len * 8 * NS_PER_S;
			busy++;
		}
	}
}

/* A queue left alone for hours, days or a year is empty, and the next
 * packet starts a fresh queue at now. */
static void drain_long_gaps(void **state)
{
	static const __u64 gaps_s[] = { 1, 60, 3600, 7 * 3600, 86400,
					365ULL * 86400 };
	size_t r, g;

	(void)state;
	for (r = 0; r < N_RATES; r++) {
		for (g = 0; g < sizeof(gaps_s) / sizeof(gaps_s[0]); g++) {
			__u64 t0 = 1000000ULL, t1 = t0 + gaps_s[g] * NS_PER_S;
			__u64 vt = xl_vt_enqueue(0, xl_vt_now(t0), 9000,
						 rates[r]);
			long double tol = 1 + 2 * bytes_per_unit(rates[r]) +
					  bytes_per_ns(rates[r]);

			vt = xl_vt_enqueue(vt, xl_vt_now(t0), 9000, rates[r]);
			assert_int_equal(xl_backlog(vt, xl_vt_now(t1), rates[r]),
					 0);
			vt = xl_vt_enqueue(vt, xl_vt_now(t1), 1500, rates[r]);
			assert_true(close_to(xl_backlog(vt, xl_vt_now(t1),
							rates[r]),
					     ref_backlog_num(1, 1500, 0,
							     rates[r]),
					     tol));
		}
	}
}

/* Long queues read exactly (slow ports with big buffers: 1 MiB at 1 Mb/s
 * is 8.4 s), up to the 2^40 ns cap, at every rate up to the config's
 * maximum, without overflow. */
static void backlog_long_queues(void **state)
{
	static const __u64 aheads_ns[] = {
		1ULL << 26, 100000000ULL, 8400000000ULL, 3600ULL * NS_PER_S,
		CAP_NS - 1, CAP_NS, CAP_NS + 1, 1ULL << 50,
	};
	const __u64 now_ns = 777777777777ULL;
	__u64 r_all[N_RATES + 1];
	size_t r, a;

	(void)state;
	memcpy(r_all, rates, sizeof(rates));
	r_all[N_RATES] = 1600000000000ULL; /* the config's maximum */
	for (r = 0; r < N_RATES + 1; r++) {
		for (a = 0; a < sizeof(aheads_ns) / sizeof(aheads_ns[0]); a++) {
			__u64 vt = xl_vt_now(now_ns + aheads_ns[a]);
			__u64 got = xl_backlog(vt, xl_vt_now(now_ns), r_all[r]);
			__u64 ahead = aheads_ns[a] < CAP_NS ? aheads_ns[a] : CAP_NS;
			s128 num = (s128)ahead * r_all[r];

			if (!close_to(got, num, 2))
				fail_msg("rate %llu, %llu ns ahead: %llu bytes, "
					 "want %.3Lf",
					 (unsigned long long)r_all[r],
					 (unsigned long long)aheads_ns[a],
					 (unsigned long long)got,
					 (long double)num / (8.0L * NS_PER_S));
		}
	}
	/* one second of queue: 125000 bytes at 1 Mb/s, 12.5 MB at 100 Mb/s */
	assert_int_equal(xl_backlog(xl_vt_now(now_ns + NS_PER_S),
				    xl_vt_now(now_ns), 1000000), 125000);
	assert_int_equal(xl_backlog(xl_vt_now(now_ns + NS_PER_S),
				    xl_vt_now(now_ns), 100000000), 12500000);
}

/* The vtime clock (ns << 6) wraps after 2^58 ns: enqueue just before the
 * wrap, read just after it, and the backlog is still right; a stale vtime
 * from before the wrap reads as an empty queue. */
static void backlog_across_wrap(void **state)
{
	const __u64 wrap_ns = 1ULL << (64 - XL_VT_SHIFT);
	static const __u64 before_ns[] = { 1, 1000, 5999, 6000, 6001, 100000 };
	static const __u64 after_ns[] = { 0, 1, 1000, 5000, 100000 };
	const __u64 rate = 1000000000ULL; /* 1500 B = 12000 ns */
	size_t b, a;

	(void)state;
	/* the clock itself wraps to 0 */
	assert_int_equal(xl_vt_now(wrap_ns), 0);
	assert_int_equal(xl_vt_now(wrap_ns - 1), ~0ULL - 63);
	for (b = 0; b < sizeof(before_ns) / sizeof(before_ns[0]); b++) {
		for (a = 0; a < sizeof(after_ns) / sizeof(after_ns[0]); a++) {
			__u64 t0 = wrap_ns - before_ns[b];
			__u64 t1 = wrap_ns + after_ns[a];
			/* an idle queue: its vtime a second in the past */
			__u64 vt = xl_vt_enqueue(xl_vt_now(t0 - NS_PER_S),
						 xl_vt_now(t0), 1500, rate);
			__u64 got = xl_backlog(vt, xl_vt_now(t1), rate);
			s128 num = ref_backlog_num(1, 1500, t1 - t0, rate);

			if (!close_to(got, num, 1 + 2 * bytes_per_unit(rate)))
				fail_msg("enqueued %llu ns before the wrap, "
					 "read %llu ns after: %llu bytes, "
					 "want %.3Lf",
					 (unsigned long long)before_ns[b],
					 (unsigned long long)after_ns[a],
					 (unsigned long long)got,
					 (long double)num / (8.0L * NS_PER_S));
		}
	}
	/* A vtime from just before the wrap, read well after it: empty,
	 * and the next packet starts at now, not at the stale vtime. */
	{
		__u64 stale = xl_vt_now(wrap_ns - 1000);
		__u64 now = xl_vt_now(wrap_ns + 50000);

		assert_int_equal(xl_backlog(stale, now, rate), 0);
		assert_int_equal(xl_vt_enqueue(stale, now, 1500, rate),
				 now + xl_vt_of_bytes(1500, rate));
	}
	/* A vtime on the far side of the wrap while now has not wrapped */
	{
		__u64 now = xl_vt_now(wrap_ns - 100);
		__u64 vt = now + xl_vt_of_bytes(3000, rate); /* wraps */

		assert_true(vt < now);
		assert_true(close_to(xl_backlog(vt, now, rate),
				     ref_backlog_num(1, 3000, 0, rate), 1));
	}
}

static void vt_of_bytes_values(void **state)
{
	(void)state;
	/* 1500 B at 1 Gb/s = 12 us = 768000 units */
	assert_int_equal(xl_vt_of_bytes(1500, 1000000000ULL), 768000);
	/* 64 B at 400 Gb/s = 1.28 ns = 81.92 units, rounded down */
	assert_int_equal(xl_vt_of_bytes(64, 400000000000ULL), 81);
	/* 1 B at 1 Mb/s = 8 us */
	assert_int_equal(xl_vt_of_bytes(1, 1000000ULL), 8000ULL << 6);
	/* a 64 KiB + frags frame at the smallest rate: no overflow */
	assert_int_equal(xl_vt_of_bytes(1 << 18, 1000000ULL),
			 (__u64)(1 << 18) * 8000 << 6);
	assert_int_equal(xl_vt_of_bytes(0, 1000000ULL), 0);
}

static void vt_enqueue_empty_vs_busy(void **state)
{
	const __u64 rate = 10000000000ULL; /* 10 Gb/s */
	const __u64 now = xl_vt_now(5000000000ULL);
	const __u64 pkt = xl_vt_of_bytes(1000, rate); /* 800 ns */

	(void)state;
	assert_int_equal(pkt, 800 << 6);
	/* never used (0), idle (in the past), just emptied (== now): the
	 * packet starts at now */
	assert_int_equal(xl_vt_enqueue(0, now, 1000, rate), now + pkt);
	assert_int_equal(xl_vt_enqueue(now - 1, now, 1000, rate), now + pkt);
	assert_int_equal(xl_vt_enqueue(now - (1ULL << 40), now, 1000, rate),
			 now + pkt);
	assert_int_equal(xl_vt_enqueue(now, now, 1000, rate), now + pkt);
	/* busy: it queues behind what is there */
	assert_int_equal(xl_vt_enqueue(now + 1, now, 1000, rate),
			 now + 1 + pkt);
	assert_int_equal(xl_vt_enqueue(now + 5 * pkt, now, 1000, rate),
			 now + 6 * pkt);
	/* and the backlog right after is the packet (resp. six) */
	assert_int_equal(xl_backlog(xl_vt_enqueue(0, now, 1000, rate), now,
				    rate), 1000);
	assert_int_equal(xl_backlog(now + 6 * pkt, now, rate), 6000);
	/* an empty queue reads 0 whether vtime is now or long gone */
	assert_int_equal(xl_backlog(now, now, rate), 0);
	assert_int_equal(xl_backlog(0, now, rate), 0);
}

/* ---- histogram ----------------------------------------------------------- */

static __u32 ref_bucket(__u64 q)
{
	__u32 b = 0;

	while (q) {
		b++;
		q >>= 1;
	}
	return b < XL_QHIST_BUCKETS ? b : XL_QHIST_BUCKETS - 1;
}

static void qhist_buckets(void **state)
{
	__u32 k;
	int i;

	(void)state;
	assert_int_equal(XL_QHIST_BUCKETS, 24);
	assert_int_equal(xl_qhist_bucket(0), 0);
	assert_int_equal(xl_qhist_bucket(1), 1);
	assert_int_equal(xl_qhist_bucket(2), 2);
	assert_int_equal(xl_qhist_bucket(3), 2);
	assert_int_equal(xl_qhist_bucket(4), 3);
	for (k = 1; k < 64; k++) {
		__u32 hi = k < XL_QHIST_BUCKETS ? k : XL_QHIST_BUCKETS - 1;
		__u32 up = k + 1 < XL_QHIST_BUCKETS ? k + 1 :
						      XL_QHIST_BUCKETS - 1;

		/* 2^k − 1 is the top of bucket k, 2^k opens bucket k + 1 */
		assert_int_equal(xl_qhist_bucket((1ULL << k) - 1), hi);
		assert_int_equal(xl_qhist_bucket(1ULL << k), up);
		assert_int_equal(xl_qhist_bucket((1ULL << k) + 1),
				 ref_bucket((1ULL << k) + 1));
	}
	/* >= 4 MiB: the last bucket */
	assert_int_equal(xl_qhist_bucket((4ULL << 20) - 1),
			 XL_QHIST_BUCKETS - 2);
	assert_int_equal(xl_qhist_bucket(4ULL << 20), XL_QHIST_BUCKETS - 1);
	assert_int_equal(xl_qhist_bucket(256ULL << 20), XL_QHIST_BUCKETS - 1);
	assert_int_equal(xl_qhist_bucket(0xffffffffULL), XL_QHIST_BUCKETS - 1);
	assert_int_equal(xl_qhist_bucket(1ULL << 32), XL_QHIST_BUCKETS - 1);
	assert_int_equal(xl_qhist_bucket(~0ULL), XL_QHIST_BUCKETS - 1);
	for (i = 0; i < 100000; i++) {
		__u64 q = ((__u64)rnd32() << 32 | rnd32()) >> (rnd32() % 64);

		assert_int_equal(xl_qhist_bucket(q), ref_bucket(q));
	}
}

/* ---- the decision -------------------------------------------------------- */

#define ECT 1
#define NOT_ECT 0
#define DROPS 0
#define MARKS 1

static const struct xl_wred dflt = { 1000, 5000, PROB(0.2), 0 };
static const struct xl_wred cnp = {
	1000, 5000, PROB(0.2), XL_CLASS_NO_MARK | XL_CLASS_NO_DROP,
};
static const struct xl_wred nomark = { 1000, 5000, PROB(0.2),
				       XL_CLASS_NO_MARK };
static const struct xl_wred nodrop = { 1000, 5000, PROB(0.2),
				       XL_CLASS_NO_DROP };

static void decide_below_kmin(void **state)
{
	(void)state;
	assert_int_equal(xl_queue_decide(0, 1500, 100000, &dflt, ECT, DROPS, 0),
			 XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(1000, 1500, 100000, &dflt, ECT, MARKS,
					 0), XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(1000, 1500, 100000, &dflt, NOT_ECT,
					 DROPS, 0), XL_Q_ENQUEUE);
}

static void decide_slope_follows_rnd(void **state)
{
	__u64 p = xl_wred_prob(3000, &dflt); /* Pmax / 2 */

	(void)state;
	assert_true(p > 0 && p < XL_PROB_ONE);
	assert_int_equal(xl_queue_decide(3000, 100, 100000, &dflt, ECT, DROPS,
					 (__u32)(p - 1)),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_queue_decide(3000, 100, 100000, &dflt, ECT, DROPS,
					 (__u32)p), XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(3000, 100, 100000, &dflt, ECT, DROPS,
					 0), XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_queue_decide(3000, 100, 100000, &dflt, ECT, DROPS,
					 0xffffffffu), XL_Q_ENQUEUE);
}

static void decide_above_kmax(void **state)
{
	__u32 r;

	(void)state;
	for (r = 0; r < 64; r++) {
		__u32 x = r == 0 ? 0xffffffffu : rnd32();

		assert_int_equal(xl_queue_decide(5001, 1500, 100000, &dflt, ECT,
						 DROPS, x),
				 XL_Q_ENQUEUE | XL_Q_MARK);
		assert_int_equal(xl_queue_decide(90000, 1500, 100000, &dflt,
						 ECT, MARKS, x),
				 XL_Q_ENQUEUE | XL_Q_MARK);
	}
}

/* Not-ECT: never marked, at any queue length and random number; only a
 * full buffer drops it (overflow = drop), or lets it through unqueued
 * (overflow = mark). */
static void decide_not_ect_never_marked(void **state)
{
	static const __u64 qs[] = { 0, 1000, 1001, 3000, 5000, 5001, 50000,
				    98499, 98500 };
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		for (k = 0; k < 256; k++) {
			__u32 x = k == 0 ? 0 : k == 1 ? 0xffffffffu : rnd32();

			assert_int_equal(xl_queue_decide(qs[i], 1500, 100000,
							 &dflt, NOT_ECT, DROPS,
							 x), XL_Q_ENQUEUE);
			assert_int_equal(xl_queue_decide(qs[i], 1500, 100000,
							 &dflt, NOT_ECT, MARKS,
							 x), XL_Q_ENQUEUE);
		}
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &dflt, NOT_ECT,
					 DROPS, 0), XL_Q_DROP);
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &dflt, NOT_ECT,
					 MARKS, 0), 0);
}

/* q + len > buffer: tail drop; exactly full still fits. */
static void decide_tail_drop(void **state)
{
	(void)state;
	assert_int_equal(xl_queue_decide(98500, 1500, 100000, &dflt, ECT, DROPS,
					 0xffffffffu), XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &dflt, ECT, DROPS,
					 0), XL_Q_DROP);
	assert_int_equal(xl_queue_decide(0, 1500, 1499, &dflt, ECT, DROPS, 0),
			 XL_Q_DROP);
	assert_int_equal(xl_queue_decide(0, 1500, 1500, &dflt, NOT_ECT, DROPS,
					 0), XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(1ULL << 40, 64, 100000, &dflt, NOT_ECT,
					 DROPS, 0), XL_Q_DROP);
	/* a no-mark class is still dropped */
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &nomark, ECT,
					 DROPS, 0), XL_Q_DROP);
}

/* overflow = mark: a packet that does not fit is marked if ECT and passed
 * unqueued either way; nothing is dropped. */
static void decide_overflow_mark(void **state)
{
	(void)state;
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &dflt, ECT, MARKS,
					 0xffffffffu), XL_Q_MARK);
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &dflt, NOT_ECT,
					 MARKS, 0), 0);
	/* a no-mark class passes unmarked and unqueued */
	assert_int_equal(xl_queue_decide(98501, 1500, 100000, &nomark, ECT,
					 MARKS, 0), 0);
	/* even below Kmin (a buffer smaller than Kmin) */
	assert_int_equal(xl_queue_decide(0, 1500, 500, &dflt, ECT, MARKS, 0),
			 XL_Q_MARK);
}

/* no-mark: never CE, at any length; no-drop: queued past the buffer. */
/* xl_wred_fit: a profile to be fitted that a port's buffer cannot hold is
 * compressed into its lower half, Kmin by the same factor; a buffer that
 * holds it, or a profile not to be fitted, keeps the thresholds. */
static void wred_fit_into_buffer(void **state)
{
	const struct xl_wred roce = { XL_WRED_PAPER_KMIN, XL_WRED_PAPER_KMAX,
				      XL_WRED_PAPER_PMAX, XL_CLASS_FIT };
	struct xl_wred literal = roce, f;

	(void)state;
	literal.flags = 0;
	f = xl_wred_fit(&roce, 25000); /* 100 Mbit/s, 2 ms */
	assert_int_equal(f.kmax, 12500);
	assert_int_equal(f.kmin, 5120ULL * 12500 / 204800); /* 312 */
	assert_int_equal(f.pmax, XL_WRED_PAPER_PMAX);
	assert_int_equal(f.flags, XL_CLASS_FIT);
	f = xl_wred_fit(&literal, 25000);
	assert_int_equal(f.kmin, XL_WRED_PAPER_KMIN);
	assert_int_equal(f.kmax, XL_WRED_PAPER_KMAX);
	/* 1 MiB holds twice 200K: kept; 400K (2 x 200K) exactly: kept */
	f = xl_wred_fit(&roce, 1 << 20);
	assert_int_equal(f.kmax, XL_WRED_PAPER_KMAX);
	assert_int_equal(f.kmin, XL_WRED_PAPER_KMIN);
	f = xl_wred_fit(&roce, 2 * XL_WRED_PAPER_KMAX);
	assert_int_equal(f.kmax, XL_WRED_PAPER_KMAX);
	f = xl_wred_fit(&roce, 2 * XL_WRED_PAPER_KMAX - 2);
	assert_int_equal(f.kmax, XL_WRED_PAPER_KMAX - 1);
	assert_true(f.kmin < f.kmax);
	/* the decision follows: on the 25K port a fitted profile marks
	 * every ECT packet above 12.5K, the literal one marks none at 20K
	 * with a draw above Pmax's slope */
	assert_int_equal(xl_queue_decide(12600, 1000, 25000, &roce, ECT, DROPS, 0xfffffffeu),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_queue_decide(20000, 1000, 25000, &literal, ECT, DROPS,
					 0xfffffffeu), XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(300, 1000, 25000, &roce, ECT, DROPS, 0), XL_Q_ENQUEUE);
}

static void decide_class_flags(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < 256; k++) {
		__u32 x = k == 0 ? 0 : rnd32();

		assert_int_equal(xl_queue_decide(3000, 1500, 100000, &nomark,
						 ECT, DROPS, x), XL_Q_ENQUEUE);
		assert_int_equal(xl_queue_decide(50000, 1500, 100000, &nomark,
						 ECT, DROPS, x), XL_Q_ENQUEUE);
		/* CNP: neither marked nor dropped, full buffer or not */
		assert_int_equal(xl_queue_decide(50000, 1500, 100000, &cnp,
						 ECT, DROPS, x), XL_Q_ENQUEUE);
		assert_int_equal(xl_queue_decide(200000, 1500, 100000, &cnp,
						 ECT, DROPS, x), XL_Q_ENQUEUE);
		assert_int_equal(xl_queue_decide(200000, 1500, 100000, &cnp,
						 ECT, MARKS, x), XL_Q_ENQUEUE);
		assert_int_equal(xl_queue_decide(1ULL << 40, 1500, 100000, &cnp,
						 NOT_ECT, DROPS, x),
				 XL_Q_ENQUEUE);
	}
	/* no-drop but markable: queued past the buffer and marked from the
	 * curve (far above Kmax) */
	assert_int_equal(xl_queue_decide(200000, 1500, 100000, &nodrop, ECT,
					 DROPS, 0xffffffffu),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_queue_decide(200000, 1500, 100000, &nodrop,
					 NOT_ECT, DROPS, 0), XL_Q_ENQUEUE);
	assert_int_equal(xl_queue_decide(200000, 1500, 100000, &nodrop, ECT,
					 MARKS, 0xffffffffu),
			 XL_Q_ENQUEUE | XL_Q_MARK);
}

/* ---- properties the model promises -------------------------------------- */

/* docs/ecn.md: the time unit "resolves a 64-byte packet at 400 Gb/s to 82
 * units". The readout should keep that resolution: n packets read back
 * within 1 byte plus the n + 1 vtime units of rounding. */
static void backlog_sub_ns_resolution(void **state)
{
	static const __u64 lens[] = { 64, 100, 1500 };
	int failures = 0;
	size_t r, l;

	(void)state;
	for (r = 0; r < N_RATES; r++) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			__u64 got = backlog_after(1000000, 1, lens[l], 0,
						  rates[r]);
			long double tol = 1 + 2 * bytes_per_unit(rates[r]);
			s128 num = ref_backlog_num(1, lens[l], 0, rates[r]);

			if (close_to(got, num, tol))
				continue;
			print_error("rate %llu bit/s: one %llu-byte packet "
				    "reads back as %llu bytes queued (want "
				    "%llu +- %.2Lf)\n",
				    (unsigned long long)rates[r],
				    (unsigned long long)lens[l],
				    (unsigned long long)got,
				    (unsigned long long)lens[l], tol);
			failures++;
		}
	}
	if (failures)
		fail_msg("%d readouts off by more than the time unit's "
			 "resolution (xl_backlog truncates to whole ns)",
			 failures);
}

/* docs/ecn.md, step 2: "the buffer cannot take the packet (q + len >
 * buffer): tail drop". Offer 1500-byte packets at 10x the drain rate to
 * ports whose buffer the config accepts (rate >= 1M, buffer <= 256M): the
 * queue must reach the buffer and drop. */
static void tail_drop_reaches_buffer(void **state)
{
	static const struct { __u64 rate; __u32 buffer; } ps[] = {
		{ 1000000000ULL, 1U << 20 },  /* 8.4 ms of buffer */
		{ 100000000ULL, 1U << 20 },   /* 84 ms: the config default */
		{ 10000000ULL, 1U << 20 },
		{ 1000000ULL, 1U << 20 },
		{ 10000000000ULL, 256U << 20 },
	};
	const struct xl_wred w = { 5 * KIB, 200 * KIB, PROB(0.01), 0 };
	int failures = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		__u64 rate = ps[i].rate, t = 1000000000ULL, vt = 0, qmax = 0;
		/* arrivals at 10x the rate, until 3 buffers were offered */
		__u64 gap = 1500ULL * 8 * NS_PER_S / rate / 10;
		__u64 n = 3ULL * ps[i].buffer / 1500, k, drops = 0;

		for (k = 0; k < n; k++, t += gap) {
			__u64 q = xl_backlog(vt, xl_vt_now(t), rate);
			int d = xl_queue_decide(q, 1500, ps[i].buffer, &w, 1, 0,
						rnd32());

			if (q > qmax)
				qmax = q;
			if (d & XL_Q_DROP)
				drops++;
			if (d & XL_Q_ENQUEUE)
				vt = xl_vt_enqueue(vt, xl_vt_now(t), 1500, rate);
		}
		if (drops && qmax + 1500 > ps[i].buffer)
			continue;
		print_error("rate %llu bit/s, buffer %u: %llu packets at 10x "
			    "the rate, %llu dropped, longest queue seen %llu "
			    "bytes, queue time now %.1f s\n",
			    (unsigned long long)rate, ps[i].buffer,
			    (unsigned long long)n, (unsigned long long)drops,
			    (unsigned long long)qmax,
			    (double)((__s64)(vt - xl_vt_now(t)) >>
				     XL_VT_SHIFT) / 1e9);
		failures++;
	}
	if (failures)
		fail_msg("%d port(s) never tail-drop: the backlog readout "
			 "cannot reach the buffer", failures);
}

/* ---- the bulk guard (xl_guard_decide) ----------------------------------- */

#define G_MARK 3036 /* two 1518-byte frames */
#define G_BUF 25000
static const __u32 latency = XL_CLASS_LATENCY;

/* A step at mark_bytes: nothing marked at or below it, every ECN-capable
 * packet above, whatever the class's own WRED profile would do there. */
static void guard_threshold(void **state)
{
	(void)state;
	assert_int_equal(xl_guard_decide(0, 1500, G_BUF, G_MARK, 0, ECT, DROPS), XL_Q_ENQUEUE);
	assert_int_equal(xl_guard_decide(G_MARK, 1500, G_BUF, G_MARK, 0, ECT, DROPS),
			 XL_Q_ENQUEUE);
	assert_int_equal(xl_guard_decide(G_MARK + 1, 1500, G_BUF, G_MARK, 0, ECT, DROPS),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_guard_decide(G_BUF - 1500, 1500, G_BUF, G_MARK, 0, ECT, DROPS),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	/* the class's flags count, its thresholds do not: the roce class's
	 * fit to the buffer leaves the step where it is */
	assert_int_equal(xl_guard_decide(G_MARK + 1, 1500, G_BUF, G_MARK, XL_CLASS_FIT, ECT,
					 DROPS),
			 XL_Q_ENQUEUE | XL_Q_MARK);
	assert_int_equal(xl_guard_decide(G_MARK, 1500, G_BUF, G_MARK, XL_CLASS_FIT, ECT, DROPS),
			 XL_Q_ENQUEUE);
}

/* Not-ECT and no-mark classes are queued, never marked, above the step. */
static void guard_ect_vs_not(void **state)
{
	(void)state;
	assert_int_equal(xl_guard_decide(G_MARK + 1, 1500, G_BUF, G_MARK, 0, NOT_ECT, DROPS),
			 XL_Q_ENQUEUE);
	assert_int_equal(xl_guard_decide(20000, 1500, G_BUF, G_MARK, XL_CLASS_NO_MARK, ECT,
					 DROPS),
			 XL_Q_ENQUEUE);
}

/* The step: 20 us of the drain rate, at least two of the largest frames,
 * at most the buffer. */
static void guard_step_bytes(void **state)
{
	(void)state;
	assert_int_equal(xl_guard_step(100000000ULL, 1518, 25000), 3036);
	assert_int_equal(xl_guard_step(100000000000ULL, 1518, 1 << 20), 250000);
	assert_int_equal(xl_guard_step(800000000000ULL, 1518, 1 << 20), 1 << 20);
	assert_int_equal(xl_guard_step(10000000000ULL, 9018, 1 << 20), 25000);
	assert_int_equal(xl_guard_step(10000000000ULL, 9018, 1 << 20) > 2 * 9018, 1);
}

/* A packet that does not fit the buffer: dropped when the port drops and
 * the class may drop; with overflow = mark forwarded unqueued, CE if
 * ECN-capable; a no-drop class is queued past it as at the port queue. */
static void guard_full(void **state)
{
	(void)state;
	assert_int_equal(xl_guard_decide(G_BUF - 1500, 1500, G_BUF, G_MARK, 0, NOT_ECT, DROPS),
			 XL_Q_ENQUEUE);
	assert_int_equal(xl_guard_decide(G_BUF - 1499, 1500, G_BUF, G_MARK, 0, NOT_ECT, DROPS),
			 XL_Q_DROP);
	assert_int_equal(xl_guard_decide(G_BUF - 1499, 1500, G_BUF, G_MARK, 0, ECT, DROPS),
			 XL_Q_DROP);
	assert_int_equal(xl_guard_decide(G_BUF, 1500, G_BUF, G_MARK, 0, ECT, MARKS), XL_Q_MARK);
	assert_int_equal(xl_guard_decide(G_BUF, 1500, G_BUF, G_MARK, 0, NOT_ECT, MARKS), 0);
	assert_int_equal(xl_guard_decide(G_BUF, 1500, G_BUF, G_MARK, XL_CLASS_NO_MARK, ECT, MARKS),
			 0);
	assert_int_equal(xl_guard_decide(G_BUF, 1500, G_BUF, G_MARK, XL_CLASS_NO_DROP, NOT_ECT,
					 DROPS),
			 XL_Q_ENQUEUE);
	assert_int_equal(xl_guard_decide(G_BUF, 1500, G_BUF, G_MARK, XL_CLASS_NO_DROP, ECT, DROPS),
			 XL_Q_ENQUEUE | XL_Q_MARK);
}

/* A latency-class packet passes the guard by: no bit (not queued, not
 * marked, not dropped), however full the guard is. */
static void guard_latency_bypass(void **state)
{
	static const __u64 qs[] = { 0, G_MARK + 1, G_BUF, 1ULL << 40 };

	(void)state;
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		for (int ect = 0; ect < 2; ect++)
			for (int mo = 0; mo < 2; mo++) {
				assert_int_equal(xl_guard_decide(qs[i], 1500, G_BUF, G_MARK,
								 latency, ect, mo),
						 0);
				assert_int_equal(xl_guard_decide(qs[i], 1500, G_BUF, G_MARK,
								 latency | XL_CLASS_NO_DROP,
								 ect, mo),
						 0);
			}
}

/* HULL's point, with the same pure functions the dataplane runs: bulk
 * traffic arriving at 97 % of the port's drain rate never builds the
 * port's queue past one frame, so WRED (Kmin 5 KB) marks nothing, while
 * the guard draining at 0.95 of it grows by 2 % of what arrives and
 * marks once it holds two frames. */
static void guard_marks_below_line_rate(void **state)
{
	const __u64 drain = 10000000000ULL, guard_drain = drain * 95 / 100;
	const __u64 gap_ns = 1500ULL * 8 * 1000000000ULL * 100 / 97 / drain;
	struct xl_wred paper = { XL_WRED_PAPER_KMIN, XL_WRED_PAPER_KMAX, XL_WRED_PAPER_PMAX, 0 };
	__u64 vq = 0, vg = 0, now, first_mark = 0;
	int port_marks = 0, guard_marks = 0;

	(void)state;
	for (int i = 0; i < 2000; i++) {
		int d, g;

		now = xl_vt_now(1000000 + (__u64)i * gap_ns);
		g = xl_guard_decide(xl_backlog(vg, now, guard_drain), 1500, 1 << 20, G_MARK, 0,
				    ECT, DROPS);
		d = xl_queue_decide(xl_backlog(vq, now, drain), 1500, 1 << 20, &paper, ECT, DROPS,
				    0);
		assert_true(xl_backlog(vq, now, drain) <= 1500);
		if (g & XL_Q_MARK && !guard_marks++)
			first_mark = (__u64)i;
		port_marks += !!(d & XL_Q_MARK);
		vg = xl_vt_enqueue(vg, now, 1500, guard_drain);
		vq = xl_vt_enqueue(vq, now, 1500, drain);
	}
	assert_int_equal(port_marks, 0);
	/* the guard gains 31 bytes a packet (1500 x (1 - 0.95 / 0.97)):
	 * past 3036 bytes after about 100 packets, and then stays marked */
	assert_in_range(first_mark, 50, 120);
	assert_true(guard_marks > 1800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wred_curve_paper),
		cmocka_unit_test(wred_curve_profiles),
		cmocka_unit_test(wred_curve_matches_reference),
		cmocka_unit_test(wred_pmax_zero),
		cmocka_unit_test(wred_pmax_almost_one),
		cmocka_unit_test(wred_step_profile),
		cmocka_unit_test(wred_decide_edges),
		cmocka_unit_test(wred_midpoint_statistics),
		cmocka_unit_test(drain_matches_rate),
		cmocka_unit_test(drain_random_arrivals),
		cmocka_unit_test(drain_long_gaps),
		cmocka_unit_test(backlog_long_queues),
		cmocka_unit_test(backlog_across_wrap),
		cmocka_unit_test(vt_of_bytes_values),
		cmocka_unit_test(vt_enqueue_empty_vs_busy),
		cmocka_unit_test(qhist_buckets),
		cmocka_unit_test(decide_below_kmin),
		cmocka_unit_test(decide_slope_follows_rnd),
		cmocka_unit_test(decide_above_kmax),
		cmocka_unit_test(decide_not_ect_never_marked),
		cmocka_unit_test(decide_tail_drop),
		cmocka_unit_test(decide_overflow_mark),
		cmocka_unit_test(decide_class_flags),
		cmocka_unit_test(wred_fit_into_buffer),
		cmocka_unit_test(backlog_sub_ns_resolution),
		cmocka_unit_test(tail_drop_reaches_buffer),
		cmocka_unit_test(guard_threshold),
		cmocka_unit_test(guard_ect_vs_not),
		cmocka_unit_test(guard_step_bytes),
		cmocka_unit_test(guard_full),
		cmocka_unit_test(guard_latency_bypass),
		cmocka_unit_test(guard_marks_below_line_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
