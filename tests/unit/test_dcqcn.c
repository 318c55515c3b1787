// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for include/dcqcn.h, DCQCN's reaction point in both variants
 * of docs/dcqcn-spec.md (`paper` and `nvidia`):
 *
 *  1. values computed by hand from the specification (the paper cut and
 *     its recovery to C in 495 µs; the nvidia first cut at +4 µs + 1 ns);
 *  2. each state machine step by step (clamp, alpha before the cut, floor,
 *     byte counter, phases and their timer periods, the Rt/8 rule, caps,
 *     the nvidia sampler and alpha window, same-nanosecond ordering);
 *  3. the Q32 fixed point against an independent double-precision model of
 *     both variants, written here from the specification with its own
 *     timer loop, over 20 ms traces (rates within 0.1 %, alpha 1e-6);
 *  4. lazy timers: xl_dcqcn_advance in small steps equals one call, and the
 *     idle skips equal firing every expiry one by one (1 s idle);
 *  5. xl_rate_cut and the alpha updates against exact 128-bit arithmetic.
 *
 * Expected values never come from dcqcn.h's own formulas: they are hand
 * computed (see the comments) or come from the models below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "dcqcn.h"
#include "base/rng.h"

typedef unsigned __int128 u128;

#define G100 100000000000ULL /* C = 100 Gb/s */
#define ONE_Q32 4294967296ULL
#define NOSTEP (1U << 30)     /* max_steps that never runs out here */

static __u64 rng_state = 0x9e3779b97f4a7c15ull;

static __u64 rnd64(void)
{
	return xl_rand64(&rng_state);
}

/* uniform in [0, n] */
static __u64 rnd_upto(__u64 n)
{
	return n == ~0ULL ? rnd64() : rnd64() % (n + 1);
}

/* ---- driving the header ----------------------------------------------- */

static void params(struct xl_dcqcn_params *p, int variant)
{
	xl_dcqcn_defaults(p, variant, G100);
}

static void start(struct xl_dcqcn_state *s, struct xl_dcqcn_params *p,
		  int variant)
{
	params(p, variant);
	xl_dcqcn_init(s, p);
}

/* Every timer due at or before t, then nothing else. */
static void at(struct xl_dcqcn_state *s, const struct xl_dcqcn_params *p,
	       __u64 t)
{
	assert_int_equal(xl_dcqcn_advance(s, p, t, NOSTEP), 0);
}

static void cnp_at(struct xl_dcqcn_state *s, const struct xl_dcqcn_params *p,
		   __u64 t)
{
	at(s, p, t);
	xl_dcqcn_cnp(s, p, t);
}

static void send_at(struct xl_dcqcn_state *s, const struct xl_dcqcn_params *p,
		    __u64 t, __u64 bytes)
{
	at(s, p, t);
	xl_dcqcn_sent(s, p, bytes);
}

/* The same without the skips: every expiry fired one by one. */
static void at_one_by_one(struct xl_dcqcn_state *s,
			  const struct xl_dcqcn_params *p, __u64 t)
{
	for (;;) {
		__u64 due;
		int which = xl_dcqcn_next_timer(s, &due);

		if (which == XL_TIMER_NONE || due > t)
			return;
		xl_dcqcn_fire(s, p, which);
	}
}

static void assert_state_eq(const struct xl_dcqcn_state *a,
			    const struct xl_dcqcn_state *b)
{
	assert_int_equal(a->rc, b->rc);
	assert_int_equal(a->rt, b->rt);
	assert_int_equal(a->alpha, b->alpha);
	assert_int_equal(a->alpha_due, b->alpha_due);
	assert_int_equal(a->inc_due, b->inc_due);
	assert_int_equal(a->dec_due, b->dec_due);
	assert_int_equal(a->bytes_left, b->bytes_left);
	assert_int_equal(a->b_cnt, b->b_cnt);
	assert_int_equal(a->t_cnt, b->t_cnt);
	assert_int_equal(a->phase, b->phase);
	assert_int_equal(a->cnp_seen, b->cnp_seen);
	assert_int_equal(a->alpha_cnp, b->alpha_cnp);
	assert_int_equal(a->dec_cnp, b->dec_cnp);
}

/* trunc(rc (1 − α/2)) for α = a / 2^32, exactly: floor(rc (2^33 − a) / 2^33)
 * in 128 bits. */
static __u64 exact_cut(__u64 rc, __u64 a)
{
	return (__u64)(((u128)rc * ((1ULL << 33) - a)) >> 33);
}

/* No libm (the unit-test rule links none): the few helpers needed. */
static double dabs(double x)
{
	return x < 0 ? -x : x;
}

/* trunc() for the non-negative values of this file (all < 2^63) */
static double dtrunc(double x)
{
	return (double)(long long)x;
}

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

/* |a / 2^32 − x| in units of 2^-32 */
static double q32_off(__u64 a, double x)
{
	return dabs((double)a - x * 4294967296.0);
}

/* ---- 0. defaults -------------------------------------------------------- */

/* The parameters docs/dcqcn-spec.md lists (B "10 MB" = 10,000,000 bytes:
 * the specification's sizes are decimal, not 10 * 2^20). */
static void defaults_match_spec(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	assert_int_equal(p.line_rate, G100);
	assert_int_equal(p.g, ONE_Q32 / 256);
	assert_int_equal(p.k_ns, 55000);
	assert_int_equal(p.t_ns, 55000);
	assert_int_equal(p.b_bytes, 10000000);
	assert_int_equal(p.f, 5);
	assert_int_equal(p.r_ai, 40000000);
	assert_int_equal(p.r_hai, 200000000);
	assert_int_equal(p.min_rate, 100000000);
	assert_int_equal(p.clamp, 1);
	assert_int_equal(s.rc, G100);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.alpha, ONE_Q32);

	start(&s, &p, XL_DCQCN_NVIDIA);
	assert_int_equal(p.g, ONE_Q32 / 1024 * 5);
	assert_int_equal(p.alpha_first, ONE_Q32 / 1024 * 1023);
	assert_int_equal(p.k_ns, 1000);
	assert_int_equal(p.t_dec_ns, 4000);
	assert_int_equal(p.t_ns, 300000);
	assert_int_equal(p.b_bytes, 0);
	assert_int_equal(p.f, 1);
	assert_int_equal(p.r_ai, 5000000);
	assert_int_equal(p.r_hai, 50000000);
	assert_int_equal(p.min_rate, 1000000);
	assert_int_equal(s.rc, G100);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.alpha, ONE_Q32);
	/* nvidia: no timer running at start */
	assert_int_equal(s.alpha_due, XL_DCQCN_OFF);
	assert_int_equal(s.dec_due, XL_DCQCN_OFF);
	assert_int_equal(s.inc_due, XL_DCQCN_OFF);
}

/* ---- 1. hand-computed values --------------------------------------------- */

/* Paper, C = 100 G, one CNP at t0, no packets sent (B_cnt stays 0):
 *   CNP: Rt <- Rc = 100 G; α = (1 − 1/256)·1 + 1/256 = 1;
 *        Rc = trunc(100 G·(1 − 1/2)) = 50 G.
 *   Increase timer every T = 55 µs; B_cnt = 0 < F so select is always
 *   additive; the Rt/8 rule never applies (Rt = 100 G <= 10·Rc).
 *   +55  T_cnt 1 FR:  Rc = 25 G + 50 G                     = 75 G
 *   +110 T_cnt 2 FR:  Rc = 37.5 G + 50 G                   = 87.5 G
 *   +165 T_cnt 3 FR:  Rc = 43.75 G + 50 G                  = 93.75 G
 *   +220 T_cnt 4 FR:  Rc = 46.875 G + 50 G                 = 96.875 G
 *   +275 T_cnt 5 select -> AI: Rt = 100.04 G,
 *                     Rc = 48.4375 G + 50.02 G             = 98.4575 G
 *   +330 T_cnt 6 AI:  Rt = 100.08 G, Rc = 49.22875 + 50.04 = 99.26875 G
 *   +385 T_cnt 7 AI:  Rt = 100.12 G, Rc = 49.634375 + 50.06 = 99.694375 G
 *   +440 T_cnt 8 AI:  Rt = 100.16 G, Rc = 49.8471875 + 50.08 = 99.9271875 G
 *   +495 T_cnt 9 AI:  Rt = 100.20 G, Rc = min(49.96359375 + 50.10, 100) G
 *                                                          = 100 G (C)
 *   +550 T_cnt 10 AI: Rt = 100.24 G, Rc = C (Rt is not capped in paper).
 * Every halving above is exact in integers, so these are exact bit/s.
 * Alpha decays by (255/256) at every K = 55 µs: 255/256 = 0xff000000 Q32
 * exactly after the first. */
static void hand_paper_cut_and_recovery(void **st)
{
	static const __u64 rc_at[] = {
		50000000000ULL, 75000000000ULL, 87500000000ULL, 93750000000ULL,
		96875000000ULL, 98457500000ULL, 99268750000ULL, 99694375000ULL,
		99927187500ULL, 100000000000ULL, 100000000000ULL,
	};
	static const __u64 rt_at[] = {
		G100, G100, G100, G100, G100, 100040000000ULL, 100080000000ULL,
		100120000000ULL, 100160000000ULL, 100200000000ULL,
		100240000000ULL,
	};
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	const __u64 t0 = 1000;
	double a = 1.0;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, t0);
	assert_int_equal(s.rc, 50000000000ULL);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.alpha, ONE_Q32);
	for (unsigned k = 1; k < sizeof(rc_at) / sizeof(rc_at[0]); k++) {
		/* one nanosecond early: still the previous step */
		at(&s, &p, t0 + k * 55000 - 1);
		assert_int_equal(s.rc, rc_at[k - 1]);
		assert_int_equal(s.rt, rt_at[k - 1]);
		at(&s, &p, t0 + k * 55000);
		assert_int_equal(s.rc, rc_at[k]);
		assert_int_equal(s.rt, rt_at[k]);
		assert_int_equal(s.t_cnt, k);
		assert_int_equal(s.phase, k < 5 ? XL_PHASE_FR : XL_PHASE_AI);
		a *= 255.0 / 256.0;
		assert_true(q32_off(s.alpha, a) <= 1.0 * k);
		if (k == 1)
			assert_int_equal(s.alpha, 0xff000000ULL);
	}
	/* back at exactly C 495 µs after the cut, not a nanosecond before */
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, t0);
	at(&s, &p, t0 + 495000 - 1);
	assert_int_equal(s.rc, 99927187500ULL);
	at(&s, &p, t0 + 495000);
	assert_int_equal(s.rc, G100);
}

/* Nvidia, C = 100 G, one CNP at t0:
 *   CNP: α = 1023/1024 (Q32 0xffc00000 exactly), no cut, alpha_cnp cleared
 *   (the first CNP does not count), α timer at t0 + 1 µs, sampler at
 *   t0 + 4 µs + 1 ns.
 *   α timers at +1, +2, +3, +4 µs with no CNP in the window: decay,
 *   α_k = (1023/1024)·(1019/1024)^k:
 *     α_1 = 1042437/1048576           = 0.994140625      (Q32 4269821952)
 *     α_2 = 1062243303/1073741824     = 0.98929119110107 (Q32 4248973212)
 *     α_3 = 1082425925757/2^40        = 0.98445868025... (Q32 ~4228226272.4)
 *     α_4 = 1102992018346383/2^50     = 0.97965370779674 (Q32 ~4207580636.3)
 *   The first two are exact in Q32; α_3 and α_4 carry the truncation of
 *   the decrement (Q32 rounds α up by < 1 unit per update).
 *   Cut at t0 + 4001 ns: Rc = trunc(100 G·(1 − α_4/2)):
 *     with the exact α_4           51017314610 bit/s,
 *     with α_4 in Q32 (4207580637) 51017314603 bit/s (Q32 α_4 is 0.7 unit
 *     above the real value, 0.7·2^-33·100 G = 8 bit/s, 1.4e-10 relative).
 *   Rt stays C (T_cnt = 0: no increase since the last cut).
 *   Increase at cut + 300 µs: T_cnt 0 < F = 1, fast recovery:
 *     Rc = trunc(51017314603/2) + 50 G = 75508657301.
 *   Then at +600 µs: T_cnt 1 == F, additive, Rt = min(C + 5 M, C) = C:
 *     Rc = 37754328650 + 50 G = 87754328650. */
static void hand_nvidia_first_cut(void **st)
{
	static const double exact_alpha[] = {
		1023.0 / 1024, 1042437.0 / 1048576, 1062243303.0 / 1073741824,
		1082425925757.0 / 1099511627776.0,
		1102992018346383.0 / 1125899906842624.0,
	};
	/* the same in Q32: each decay subtracts floor(α·5/1024) */
	static const __u64 q32_alpha[] = {
		4290772992ULL, 4269821952ULL, 4248973212ULL, 4228226273ULL,
		4207580637ULL,
	};
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	const __u64 t0 = 1000;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, t0);
	assert_int_equal(s.rc, G100);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.alpha, 0xffc00000ULL);
	for (unsigned k = 1; k <= 4; k++) {
		at(&s, &p, t0 + k * 1000 - 1);
		assert_int_equal(s.alpha, q32_alpha[k - 1]);
		at(&s, &p, t0 + k * 1000);
		assert_int_equal(s.alpha, q32_alpha[k]);
		assert_true(q32_off(s.alpha, exact_alpha[k]) < 1.0);
		assert_true(s.alpha >= (__u64)(exact_alpha[k] * 4294967296.0));
		assert_int_equal(s.rc, G100); /* no cut yet */
	}
	assert_int_equal(s.alpha, 4207580637ULL);
	at(&s, &p, t0 + 4000); /* the sampler is 1 ns after the 4th α timer */
	assert_int_equal(s.rc, G100);
	at(&s, &p, t0 + 4001);
	assert_int_equal(s.rc, 51017314603ULL);
	assert_true(51017314610ULL - s.rc <= 10);
	assert_int_equal(s.rc, exact_cut(G100, s.alpha));
	assert_int_equal(s.rt, G100);
	at(&s, &p, t0 + 4001 + 300000 - 1);
	assert_int_equal(s.rc, 51017314603ULL);
	at(&s, &p, t0 + 4001 + 300000);
	assert_int_equal(s.rc, 75508657301ULL);
	assert_int_equal(s.rt, G100);
	at(&s, &p, t0 + 4001 + 600000);
	assert_int_equal(s.rc, 87754328650ULL);
	assert_int_equal(s.rt, G100);
}

/* ---- 2a. paper step by step ----------------------------------------------- */

/* A CNP clamps Rt to Rc and refills bytes-left; clamp = 0 does neither. */
static void paper_cnp_clamp(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 1000);
	assert_int_equal(s.rc, 50000000000ULL);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.bytes_left, 10000000);
	assert_int_equal(s.phase, XL_PHASE_FR);
	assert_int_equal(s.alpha_due, 1000 + 55000);
	assert_int_equal(s.inc_due, 1000 + 55000);
	send_at(&s, &p, 1500, 4000);
	assert_int_equal(s.bytes_left, 10000000 - 4000);
	cnp_at(&s, &p, 2000);
	assert_int_equal(s.rt, 50000000000ULL); /* Rt <- Rc before the cut */
	assert_int_equal(s.rc, 25000000000ULL);
	assert_int_equal(s.bytes_left, 10000000);
	assert_int_equal(s.alpha_due, 2000 + 55000); /* restarted */
	assert_int_equal(s.inc_due, 2000 + 55000);

	start(&s, &p, XL_DCQCN_PAPER);
	p.clamp = 0;
	cnp_at(&s, &p, 1000);
	send_at(&s, &p, 1500, 4000);
	cnp_at(&s, &p, 2000);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.rc, 25000000000ULL);
	assert_int_equal(s.bytes_left, 10000000 - 4000);
}

/* The CNP updates α first and cuts with the new α:
 *   CNP at 1000 (α = 1, Rc 50 G); at 56000 α = 255/256, Rc = 75 G;
 *   CNP at 60000: α = (255/256)^2 + 1/256 = 65281/65536 (Q32 exact
 *   4278255616); Rt <- 75 G; Rc = trunc(75 G·(1 − 65281/131072))
 *   = trunc(75 G·65791/131072) = 37645912170 (the old α would give
 *   75 G·257/512 = 37646484375). */
static void paper_alpha_before_cut(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 1000);
	at(&s, &p, 56000);
	assert_int_equal(s.alpha, 255ULL << 24);
	assert_int_equal(s.rc, 75000000000ULL);
	cnp_at(&s, &p, 60000);
	assert_int_equal(s.alpha, 4278255616ULL);
	assert_int_equal(s.rt, 75000000000ULL);
	assert_int_equal(s.rc, 37645912170ULL);
}

/* Rc never goes below min_rate: ten back-to-back CNPs (α stays 1) halve
 * 100 G down to 97.65625 M, floored at 100 M; min_rate = 60 G floors the
 * first cut. */
static void paper_min_rate(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 want = G100;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	for (int i = 0; i < 12; i++) {
		cnp_at(&s, &p, 1000 + i);
		want /= 2;
		assert_int_equal(s.rc, want < 100000000 ? 100000000 : want);
	}
	assert_int_equal(s.rc, 100000000);

	start(&s, &p, XL_DCQCN_PAPER);
	p.min_rate = 60000000000ULL;
	cnp_at(&s, &p, 1000);
	assert_int_equal(s.rc, 60000000000ULL);
}

/* Rc/2 + Rt/2 capped at C, the paper adjust's second half */
static __u64 avg_cap(__u64 rc, __u64 rt)
{
	__u64 v = rc / 2 + rt / 2;

	return v < G100 ? v : G100;
}

/* The byte counter through FR, AI and HAI, with B = 10001 bytes (odd, so
 * the HAI refill trunc(B/2) = 5000 shows), sends and timers interleaved. */
static void paper_byte_counter(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 rc, rt = G100;
	const __u64 B = 10001;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	p.b_bytes = B;
	xl_dcqcn_init(&s, &p);
	/* before any CNP every send refills bytes-left; nothing else moves */
	for (int i = 0; i < 30; i++) {
		send_at(&s, &p, 10 + i, 1500);
		assert_int_equal(s.bytes_left, B);
		assert_int_equal(s.b_cnt, 0);
		assert_int_equal(s.rc, G100);
		assert_int_equal(s.rt, G100);
	}
	cnp_at(&s, &p, 1000);
	rc = 50000000000ULL;
	/* down to exactly 0: not below, no count */
	send_at(&s, &p, 1000, B);
	assert_int_equal(s.bytes_left, 0);
	assert_int_equal(s.b_cnt, 0);
	assert_int_equal(s.rc, rc);
	/* one more byte: -1 < 0, B_cnt 1, fast recovery, refill B */
	send_at(&s, &p, 1001, 1);
	assert_int_equal(s.b_cnt, 1);
	assert_int_equal(s.bytes_left, B);
	assert_int_equal(s.phase, XL_PHASE_FR);
	rc = avg_cap(rc, rt);
	assert_int_equal(s.rc, 75000000000ULL);
	/* B_cnt 2..4: fast recovery (87.5, 93.75, 96.875 G) */
	for (unsigned b = 2; b <= 4; b++) {
		send_at(&s, &p, 1000 + b, B + 1);
		rc = avg_cap(rc, rt);
		assert_int_equal(s.b_cnt, b);
		assert_int_equal(s.rc, rc);
		assert_int_equal(s.rt, G100);
		assert_int_equal(s.phase, XL_PHASE_FR);
	}
	assert_int_equal(s.rc, 96875000000ULL);
	/* B_cnt 5 = F in FR: select; T_cnt 0 < F: additive, phase AI */
	send_at(&s, &p, 1005, B + 1);
	rt += 40000000;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.b_cnt, 5);
	assert_int_equal(s.phase, XL_PHASE_AI);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, 98457500000ULL);
	assert_int_equal(s.bytes_left, B);
	/* AI, byte counter: additive (no select), refill B */
	send_at(&s, &p, 1006, B + 1);
	rt += 40000000;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.b_cnt, 6);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.bytes_left, B);
	/* increase timer in AI, T_cnt 1..4: select -> additive (T_cnt < F),
	 * period T; the Rt/8 rule does not fire (Rt < 10 Rc) */
	for (unsigned k = 1; k <= 4; k++) {
		at(&s, &p, 1000 + k * 55000);
		rt += 40000000;
		rc = avg_cap(rc, rt);
		assert_int_equal(s.t_cnt, k);
		assert_int_equal(s.phase, XL_PHASE_AI);
		assert_int_equal(s.rt, rt);
		assert_int_equal(s.rc, rc);
		assert_int_equal(s.inc_due, 1000 + (k + 1) * 55000);
	}
	/* T_cnt 5: select, both >= F: hyper, inc = R_HAI (min(6, 5) − 5 + 1),
	 * phase HAI; this expiry ran in AI, so it restarted at now + T; the
	 * HAI expiries after it restart at now + trunc(T/2) */
	at(&s, &p, 1000 + 5 * 55000);
	rt += 200000000ULL * 1;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.t_cnt, 5);
	assert_int_equal(s.phase, XL_PHASE_HAI);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.inc_due, 1000 + 6 * 55000);
	/* HAI, byte counter: B_cnt 7, refill trunc(B/2) = 5000, hyper with
	 * min(7, 5) − 4 = 1 */
	send_at(&s, &p, 1000 + 5 * 55000 + 1, B + 1);
	rt += 200000000ULL * 1;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.b_cnt, 7);
	assert_int_equal(s.bytes_left, 5000);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	/* HAI timer T_cnt 6: min(7, 6) − 4 = 2 */
	at(&s, &p, 1000 + 6 * 55000 - 1);
	assert_int_equal(s.t_cnt, 5);
	at(&s, &p, 1000 + 6 * 55000);
	rt += 200000000ULL * 2;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.t_cnt, 6);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.inc_due, 1000 + 6 * 55000 + 27500);
	/* HAI sends: 5000 bytes leave 0 (nothing), one more byte: B_cnt 8,
	 * min(8, 6) − 4 = 2 */
	send_at(&s, &p, 1000 + 6 * 55000 + 1, 5000);
	assert_int_equal(s.b_cnt, 7);
	assert_int_equal(s.rt, rt);
	send_at(&s, &p, 1000 + 6 * 55000 + 2, 1);
	rt += 200000000ULL * 2;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.b_cnt, 8);
	assert_int_equal(s.bytes_left, 5000);
	assert_int_equal(s.rt, rt);
	/* HAI timer T_cnt 7: min(8, 7) − 4 = 3 */
	at(&s, &p, 1000 + 6 * 55000 + 27500);
	rt += 200000000ULL * 3;
	rc = avg_cap(rc, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.t_cnt, 7);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.inc_due, 1000 + 6 * 55000 + 2 * 27500);
	assert_int_equal(s.rc, G100); /* Rc capped at C, Rt is not */
	assert_true(s.rt > G100);
	/* a CNP ends HAI: counters reset, FR, Rt clamped to Rc = C */
	cnp_at(&s, &p, 400000);
	assert_int_equal(s.phase, XL_PHASE_FR);
	assert_int_equal(s.b_cnt, 0);
	assert_int_equal(s.t_cnt, 0);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.bytes_left, B);
}

/* The default B is 10^7 bytes: after a CNP, 10,000,000 bytes sent bring
 * bytes-left to exactly 0 (no event), the next byte is the first
 * byte-counter event (fast recovery, Rc 50 G -> 75 G). With 10 * 2^20
 * there would be 485,760 bytes left. */
static void paper_default_b_is_decimal(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 1000);
	assert_int_equal(s.bytes_left, 10000000);
	for (int i = 0; i < 10000; i++) /* 10^4 packets of 1000 bytes */
		send_at(&s, &p, 1001 + i, 1000);
	assert_int_equal(s.bytes_left, 0);
	assert_int_equal(s.b_cnt, 0);
	assert_int_equal(s.rc, 50000000000ULL);
	send_at(&s, &p, 20000, 1);
	assert_int_equal(s.b_cnt, 1);
	assert_int_equal(s.phase, XL_PHASE_FR);
	assert_int_equal(s.rc, 75000000000ULL);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.bytes_left, 10000000);
}

/* Increase timer periods by the phase the expiry runs in: T in FR and AI,
 * trunc(T/2) in HAI (the expiry that selects HAI runs in AI: T); an odd
 * T = 55001 ns shows the truncation. B = 100 bytes so five sends bring
 * B_cnt to F first. */
static void paper_timer_periods(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 t;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	p.t_ns = 55001;
	p.b_bytes = 100;
	xl_dcqcn_init(&s, &p);
	cnp_at(&s, &p, 0);
	assert_int_equal(s.inc_due, 55001);
	for (int i = 0; i < 5; i++) /* B_cnt 1..5: select at 5, AI */
		send_at(&s, &p, 1, 101);
	assert_int_equal(s.phase, XL_PHASE_AI);
	assert_int_equal(s.b_cnt, 5);
	t = 0;
	for (unsigned k = 1; k <= 4; k++) { /* FR/AI: period T */
		t += 55001;
		at(&s, &p, t);
		assert_int_equal(s.t_cnt, k);
		assert_int_equal(s.phase, XL_PHASE_AI);
		assert_int_equal(s.inc_due, t + 55001);
	}
	t += 55001;
	at(&s, &p, t); /* T_cnt 5: select -> hyper, restarted in AI: T */
	assert_int_equal(s.phase, XL_PHASE_HAI);
	assert_int_equal(s.inc_due, t + 55001);
	t += 55001;
	at(&s, &p, t); /* T_cnt 6 in HAI: trunc(T/2) */
	assert_int_equal(s.t_cnt, 6);
	assert_int_equal(s.inc_due, t + 27500);
	at(&s, &p, t + 27499);
	assert_int_equal(s.t_cnt, 6);
	at(&s, &p, t + 27500);
	assert_int_equal(s.t_cnt, 7);
	assert_int_equal(s.inc_due, t + 55000);

	/* FR: period T, fast recovery while T_cnt < F, select at F */
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 0);
	for (unsigned k = 1; k <= 5; k++) {
		at(&s, &p, k * 55000);
		assert_int_equal(s.inc_due, (k + 1) * 55000);
		assert_int_equal(s.phase, k < 5 ? XL_PHASE_FR : XL_PHASE_AI);
	}
}

/* adjust(): (B_cnt == 1 or T_cnt == 1) and Rt > 10·Rc -> Rt = trunc(Rt/8)
 * instead of Rt += inc. With clamp = 0 four CNPs leave Rt = 100 G,
 * Rc = 6.25 G (Rt > 62.5 G). */
static void paper_adjust_rule(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, s0;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	p.clamp = 0;
	p.b_bytes = 1000;
	xl_dcqcn_init(&s, &p);
	for (int i = 0; i < 4; i++)
		cnp_at(&s, &p, 1000 + i);
	assert_int_equal(s.rc, 6250000000ULL);
	assert_int_equal(s.rt, G100);
	s0 = s;

	/* T_cnt becomes 1 at 56003: Rt = 100 G / 8 = 12.5 G,
	 * Rc = 3.125 G + 6.25 G = 9.375 G */
	at(&s, &p, 56003);
	assert_int_equal(s.t_cnt, 1);
	assert_int_equal(s.rt, 12500000000ULL);
	assert_int_equal(s.rc, 9375000000ULL);

	/* B_cnt becomes 1 (T_cnt 0): the same */
	s = s0;
	send_at(&s, &p, 2000, 1001);
	assert_int_equal(s.b_cnt, 1);
	assert_int_equal(s.rt, 12500000000ULL);
	assert_int_equal(s.rc, 9375000000ULL);

	/* trunc(Rt/8): Rt = 100 G + 7 -> 12.5 G */
	s = s0;
	s.rt = G100 + 7;
	send_at(&s, &p, 2000, 1001);
	assert_int_equal(s.rt, 12500000000ULL);

	/* counters at 2: no division, even with Rt > 10 Rc */
	s = s0;
	s.t_cnt = 1; /* the timer makes T_cnt 2 */
	s.b_cnt = 2;
	at(&s, &p, 56003);
	assert_int_equal(s.t_cnt, 2);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.rc, 3125000000ULL + 50000000000ULL);

	/* Rt == 10·Rc exactly is not "greater": no division */
	s = s0;
	s.rc = 10000000000ULL;
	at(&s, &p, 56003);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.rc, 55000000000ULL);
	/* Rt = 10·Rc + 1 is */
	s = s0;
	s.rc = 10000000000ULL;
	s.rt = G100 + 1;
	at(&s, &p, 56003);
	assert_int_equal(s.rt, 12500000000ULL);
}

/* The α timer only runs K after the last CNP: a CNP restarts it. */
/* The paper variant's Rt has no cap and, in hyper increase, grows with
 * the square of the byte counter's events: a flow cut once and then
 * sending at C for two minutes (a B event per 0.8 ms, 2.2 million timer
 * expiries) must keep Rc at C and Rt growing or saturated, never wrapped
 * (it wrapped after about 90 s). */
static void paper_rt_saturates(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 prev_rt, t;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 1000);
	prev_rt = s.rt;
	for (t = 1000; t <= 120000000000ULL; t += 1000000) {
		at_one_by_one(&s, &p, t);
		xl_dcqcn_sent(&s, &p, s.rc / 8 / 1000); /* a ms at Rc */
		assert_true(s.rt >= prev_rt);
		prev_rt = s.rt;
	}
	assert_int_equal(s.rt, XL_DCQCN_RT_MAX);
	assert_int_equal(s.rc, G100);
}

static void paper_alpha_timer_restart(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_PAPER);
	assert_int_equal(s.alpha_due, XL_DCQCN_OFF);
	at(&s, &p, 10000000);   /* no timer before the first CNP */
	assert_int_equal(s.alpha, ONE_Q32);
	cnp_at(&s, &p, 10000000);
	cnp_at(&s, &p, 10000000 + 50000); /* 5 µs before K: restart */
	at(&s, &p, 10000000 + 55000);
	assert_int_equal(s.alpha, ONE_Q32);
	at(&s, &p, 10000000 + 50000 + 55000 - 1);
	assert_int_equal(s.alpha, ONE_Q32);
	at(&s, &p, 10000000 + 50000 + 55000);
	assert_int_equal(s.alpha, 255ULL << 24);
}

/* ---- 2b. nvidia step by step ---------------------------------------------- */

/* First CNP: α_first, no cut, timers start; later CNPs neither move the
 * free-running timers nor reset α; alpha_first is a parameter (HPCC: 1). */
static void nvidia_first_cnp(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 1000);
	assert_int_equal(s.rc, G100);
	assert_int_equal(s.alpha, 1023ULL << 22);
	assert_int_equal(s.alpha_cnp, 0);
	assert_int_equal(s.dec_cnp, 1);
	assert_int_equal(s.alpha_due, 2000);
	assert_int_equal(s.dec_due, 5001);
	assert_int_equal(s.inc_due, XL_DCQCN_OFF);
	cnp_at(&s, &p, 1500);
	assert_int_equal(s.alpha, 1023ULL << 22); /* no α jump again */
	assert_int_equal(s.alpha_cnp, 1);
	assert_int_equal(s.alpha_due, 2000);
	assert_int_equal(s.dec_due, 5001);
	assert_int_equal(s.rc, G100);

	start(&s, &p, XL_DCQCN_NVIDIA);
	p.alpha_first = ONE_Q32;
	cnp_at(&s, &p, 1000);
	assert_int_equal(s.alpha, ONE_Q32);
	at(&s, &p, 5001); /* decays 1 -> (1019/1024)^4 first */
	assert_true(q32_off(s.alpha, (1019.0 / 1024) * (1019.0 / 1024) *
					     (1019.0 / 1024) * (1019.0 / 1024)) < 2.0);
	assert_int_equal(s.rc, exact_cut(G100, s.alpha));
}

/* α timer: with a CNP in the window α = (1 − g)α + g, without α = (1 − g)α;
 * either way alpha_cnp is cleared.
 *   from 1023/1024: raise -> (1019·1023 + 5·1024)/2^20 = 1047557/1048576
 *   (Q32 4290793472), decay -> 1042437/1048576 (Q32 4269821952). */
static void nvidia_alpha_window(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, s0;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 1000);
	s0 = s;
	cnp_at(&s, &p, 1999);
	at(&s, &p, 2000);
	assert_int_equal(s.alpha, 4290793472ULL);
	assert_int_equal(s.alpha_cnp, 0);
	at(&s, &p, 3000); /* no CNP in (2000, 3000]: decay */
	assert_true(q32_off(s.alpha, 1047557.0 / 1048576 * 1019 / 1024) < 1.0);

	s = s0;
	at(&s, &p, 2000);
	assert_int_equal(s.alpha, 4269821952ULL);
	/* a CNP on the α timer's nanosecond falls in the next window */
	s = s0;
	cnp_at(&s, &p, 2000);
	assert_int_equal(s.alpha, 4269821952ULL);
	assert_int_equal(s.alpha_cnp, 1);
	at(&s, &p, 3000);
	assert_true(q32_off(s.alpha, (1042437.0 / 1048576) * 1019 / 1024 +
					     5.0 / 1024) < 1.0);
}

/* The sampler cuts only with a CNP since the last sample; Rt <- Rc only if
 * an increase ran since the last cut; increases FR / AI / HAI by T_cnt vs
 * F; Rt capped at C. */
static void nvidia_sampler_and_increase(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 rc, rt = G100, a, t;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 1000);
	at(&s, &p, 5000);
	a = s.alpha;
	at(&s, &p, 5001);
	rc = exact_cut(G100, a);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.rt, G100); /* T_cnt 0: no clamp */
	assert_int_equal(s.dec_cnp, 0);
	assert_int_equal(s.inc_due, 305001);
	/* no CNP: samples at 9001, 13001, ... change nothing */
	at(&s, &p, 300000);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.dec_due, 5001 + 74 * 4000);
	/* increase 1 at 305001: T_cnt 0 < F: fast recovery */
	at(&s, &p, 305001);
	rc = rc / 2 + rt / 2;
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.t_cnt, 1);
	assert_int_equal(s.inc_due, 605001);
	/* CNP at 306000: next sample at 5001 + 76·4000 = 309001; T_cnt 1 != 0:
	 * Rt <- Rc, then the cut with α as it stands */
	cnp_at(&s, &p, 306000);
	at(&s, &p, 309000);
	assert_int_equal(s.rc, rc);
	a = s.alpha;
	at(&s, &p, 309001);
	rt = rc;
	rc = exact_cut(rc, a);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.t_cnt, 0);
	assert_int_equal(s.inc_due, 609001);
	/* a second cut with no increase in between keeps Rt */
	cnp_at(&s, &p, 310000);
	at(&s, &p, 313000);
	a = s.alpha;
	at(&s, &p, 313001);
	rc = exact_cut(rc, a);
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.inc_due, 613001);
	/* 613001: FR (T_cnt 0) */
	at(&s, &p, 613001);
	rc = rc / 2 + rt / 2;
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.rt, rt);
	/* 913001: T_cnt 1 == F: additive */
	at(&s, &p, 913001);
	rt += 5000000;
	rc = rc / 2 + rt / 2;
	assert_int_equal(s.rt, rt);
	assert_int_equal(s.rc, rc);
	/* then hyper, until Rt reaches C (capped) */
	for (t = 1213001; rt < G100; t += 300000) {
		at(&s, &p, t);
		rt = rt + 50000000 < G100 ? rt + 50000000 : G100;
		rc = rc / 2 + rt / 2;
		assert_int_equal(s.rt, rt);
		assert_int_equal(s.rc, rc);
	}
	/* Rc = trunc(Rc/2) + trunc(C/2) never reaches an even C again: the
	 * gap d to C becomes ceil(d/2), which stays 1 (C − 1 -> (C − 2)/2 +
	 * C/2 = C − 1). The specification's truncation, kept. */
	for (int i = 0; i < 60; i++, t += 300000)
		at(&s, &p, t);
	assert_int_equal(s.rt, G100);
	assert_int_equal(s.rc, G100 - 1);
}

/* Sends change nothing in the nvidia variant, before or after a CNP. */
static void nvidia_sends_no_effect(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, s0;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	s0 = s;
	for (int i = 0; i < 1000; i++)
		xl_dcqcn_sent(&s, &p, 1 + rnd_upto(1u << 20));
	assert_state_eq(&s, &s0);
	cnp_at(&s, &p, 1000);
	at(&s, &p, 400000);
	s0 = s;
	for (int i = 0; i < 1000; i++)
		xl_dcqcn_sent(&s, &p, 1 + rnd_upto(1u << 20));
	assert_state_eq(&s, &s0);
}

/* Same nanosecond: the timers run before the event, alpha before decrease
 * before increase, and a decrease cancels an increase due with it. */
static void same_ns_ordering(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	__u64 due, rc, a;

	(void)st;
	/* paper: α timer and increase due at 56000, CNP at 56000. Timers
	 * first: α = 255/256, Rc = 75 G, then the CNP: α = 65281/65536,
	 * Rt = 75 G, Rc = 37645912170 (event first would give α = 1,
	 * Rc = 25 G). */
	start(&s, &p, XL_DCQCN_PAPER);
	cnp_at(&s, &p, 1000);
	cnp_at(&s, &p, 56000);
	assert_int_equal(s.alpha, 4278255616ULL);
	assert_int_equal(s.rt, 75000000000ULL);
	assert_int_equal(s.rc, 37645912170ULL);

	/* nvidia: a CNP on the sampler's nanosecond with nothing pending: the
	 * sampler (no-op) runs first, the cut waits for the next sample */
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 1000);
	at(&s, &p, 5001);
	rc = s.rc;
	cnp_at(&s, &p, 9001);
	assert_int_equal(s.rc, rc);
	assert_int_equal(s.dec_cnp, 1);
	at(&s, &p, 13000);
	a = s.alpha;
	at(&s, &p, 13001);
	assert_int_equal(s.rc, exact_cut(rc, a));

	/* nvidia: T = 75 t_dec, so the increase at cut + T falls on a sample.
	 * With a CNP pending the decrease runs first and restarts the
	 * increase timer: the increase due then does not happen. */
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 3);
	at(&s, &p, 4004);
	rc = s.rc;
	assert_int_equal(s.inc_due, 304004);
	cnp_at(&s, &p, 300500);
	at(&s, &p, 304003);
	a = s.alpha;
	assert_int_equal(s.rc, rc);
	at(&s, &p, 304004);
	assert_int_equal(s.rc, exact_cut(rc, a)); /* no fast recovery */
	assert_int_equal(s.rt, G100);            /* T_cnt 0: not clamped */
	assert_int_equal(s.t_cnt, 0);
	assert_int_equal(s.inc_due, 604004);

	/* next_timer's order on one nanosecond */
	start(&s, &p, XL_DCQCN_NVIDIA);
	assert_int_equal(xl_dcqcn_next_timer(&s, &due), XL_TIMER_NONE);
	s.alpha_due = s.dec_due = s.inc_due = 100;
	assert_int_equal(xl_dcqcn_next_timer(&s, &due), XL_TIMER_ALPHA);
	assert_int_equal(due, 100);
	s.alpha_due = 200;
	assert_int_equal(xl_dcqcn_next_timer(&s, &due), XL_TIMER_DECREASE);
	s.dec_due = 200;
	assert_int_equal(xl_dcqcn_next_timer(&s, &due), XL_TIMER_INCREASE);
	assert_int_equal(due, 100);
	s.inc_due = 300;
	assert_int_equal(xl_dcqcn_next_timer(&s, &due), XL_TIMER_ALPHA);
	assert_int_equal(due, 200);
}

/* ---- 3. an independent double-precision model ------------------------------ */

/* Both variants straight from docs/dcqcn-spec.md, in doubles, with
 * dtrunc() where the specification says trunc; its own timer loop fires
 * the due timers one by one, earliest first, ties alpha, decrease,
 * increase, all before the event. */
enum { R_ALPHA, R_DEC, R_INC, R_N };
enum { R_FR, R_AI, R_HAI };

struct ref {
	int nvidia, clamp;
	long f;
	double c, g, alpha_first, rai, rhai, minr;
	long long b, k, t, tdec;
	double rc, rt, alpha;
	long long bytes_left;
	long bcnt, tcnt;
	int phase, seen, acnp, dcnp;
	long long due[R_N]; /* -1: not running */
};

static void ref_init(struct ref *r, int nvidia, double c)
{
	memset(r, 0, sizeof(*r));
	r->nvidia = nvidia;
	r->c = c;
	if (nvidia) {
		r->g = 5.0 / 1024;
		r->k = 1000;
		r->tdec = 4000;
		r->t = 300000;
		r->f = 1;
		r->rai = 5e6;
		r->rhai = 50e6;
		r->minr = 1e6;
		r->alpha_first = 1023.0 / 1024;
	} else {
		r->g = 1.0 / 256;
		r->k = 55000;
		r->t = 55000;
		r->b = 10000000; /* 10 MB, decimal */
		r->f = 5;
		r->rai = 40e6;
		r->rhai = 200e6;
		r->minr = 100e6;
		r->clamp = 1;
	}
	r->rc = r->rt = c;
	r->alpha = 1.0;
	r->bytes_left = r->b;
	for (int i = 0; i < R_N; i++)
		r->due[i] = -1;
}

static double ref_cut(const struct ref *r)
{
	double v = dtrunc(r->rc * (1.0 - r->alpha / 2.0));

	return v > r->minr ? v : r->minr;
}

static void ref_paper_adjust(struct ref *r, double inc)
{
	if ((r->bcnt == 1 || r->tcnt == 1) && r->rt > 10.0 * r->rc)
		r->rt = dtrunc(r->rt / 8.0);
	else
		r->rt = r->rt + inc;
	r->rc = dtrunc(r->rc / 2.0) + dtrunc(r->rt / 2.0);
	if (r->rc > r->c)
		r->rc = r->c;
}

static void ref_paper_step(struct ref *r, int phase)
{
	r->phase = phase;
	if (phase == R_FR)
		ref_paper_adjust(r, 0);
	else if (phase == R_AI)
		ref_paper_adjust(r, r->rai);
	else
		ref_paper_adjust(r, r->rhai * (double)((r->bcnt < r->tcnt ?
							r->bcnt : r->tcnt) -
						       r->f + 1));
}

static void ref_paper_select(struct ref *r)
{
	ref_paper_step(r, r->bcnt < r->f || r->tcnt < r->f ? R_AI : R_HAI);
}

static void ref_fire(struct ref *r, int which)
{
	long long now = r->due[which];

	if (which == R_ALPHA) {
		if (r->nvidia && r->acnp)
			r->alpha = (1.0 - r->g) * r->alpha + r->g;
		else
			r->alpha = (1.0 - r->g) * r->alpha;
		r->acnp = 0;
		r->due[R_ALPHA] = now + r->k;
	} else if (which == R_DEC) {
		r->due[R_DEC] = now + r->tdec;
		if (r->dcnp) {
			if (r->tcnt != 0)
				r->rt = r->rc;
			r->rc = ref_cut(r);
			r->tcnt = 0;
			r->dcnp = 0;
			r->due[R_INC] = now + r->t;
		}
	} else if (r->nvidia) {
		r->due[R_INC] = now + r->t;
		if (r->tcnt == r->f)
			r->rt = dmin(r->rt + r->rai, r->c);
		else if (r->tcnt > r->f)
			r->rt = dmin(r->rt + r->rhai, r->c);
		r->rc = dtrunc(r->rc / 2.0) + dtrunc(r->rt / 2.0);
		r->tcnt++;
	} else {
		r->tcnt++;
		if (r->phase == R_FR) {
			r->due[R_INC] = now + r->t;
			if (r->tcnt < r->f)
				ref_paper_step(r, R_FR);
			else
				ref_paper_select(r);
		} else if (r->phase == R_AI) {
			r->due[R_INC] = now + r->t;
			ref_paper_select(r);
		} else {
			r->due[R_INC] = now + r->t / 2;
			ref_paper_step(r, R_HAI);
		}
	}
}

static void ref_until(struct ref *r, long long t)
{
	for (;;) {
		int w = -1;

		for (int i = 0; i < R_N; i++)
			if (r->due[i] >= 0 && r->due[i] <= t &&
			    (w < 0 || r->due[i] < r->due[w]))
				w = i;
		if (w < 0)
			return;
		ref_fire(r, w);
	}
}

static void ref_cnp(struct ref *r, long long now)
{
	if (r->nvidia) {
		r->acnp = r->dcnp = 1;
		if (!r->seen) {
			r->seen = 1;
			r->alpha = r->alpha_first;
			r->acnp = 0;
			r->due[R_ALPHA] = now + r->k;
			r->due[R_DEC] = now + r->tdec + 1;
		}
		return;
	}
	if (r->clamp) {
		r->rt = r->rc;
		r->bytes_left = r->b;
	}
	r->bcnt = r->tcnt = 0;
	r->alpha = (1.0 - r->g) * r->alpha + r->g;
	r->rc = ref_cut(r);
	r->due[R_ALPHA] = now + r->k;
	r->due[R_INC] = now + r->t;
	r->phase = R_FR;
	r->seen = 1;
}

static void ref_sent(struct ref *r, long long bytes)
{
	if (r->nvidia || !r->b)
		return;
	if (!r->seen) {
		r->bytes_left = r->b;
		return;
	}
	r->bytes_left -= bytes;
	if (r->bytes_left >= 0)
		return;
	r->bcnt++;
	if (r->phase == R_FR) {
		r->bytes_left = r->b;
		if (r->bcnt < r->f)
			ref_paper_step(r, R_FR);
		else
			ref_paper_select(r);
	} else if (r->phase == R_AI) {
		r->bytes_left = r->b;
		ref_paper_step(r, R_AI);
	} else {
		r->bytes_left = r->b / 2;
		ref_paper_step(r, R_HAI);
	}
}

/* Traces: CNP times (sorted) plus an optional paced flow from t = 0 and
 * a probe every probe_ns (a comparison without an event). */
struct trace {
	const char *name;
	__u64 *cnp;
	int n_cnp;
	__u64 pace_bytes;   /* 0: no sends */
	__u64 b_bytes;      /* paper B override (0: default) */
	__u64 probe_ns;
	__u64 end_ns;
};

struct errs {
	double rate, alpha;
	long events;
};

static void cmp(const struct xl_dcqcn_state *s, const struct ref *r,
		struct errs *e, int nvidia)
{
	double erc = dabs((double)s->rc - r->rc) / r->rc;
	double ert = dabs((double)s->rt - r->rt) / r->rt;
	double ea = dabs((double)s->alpha / 4294967296.0 - r->alpha);

	if (erc > e->rate)
		e->rate = erc;
	if (ert > e->rate)
		e->rate = ert;
	if (ea > e->alpha)
		e->alpha = ea;
	e->events++;
	assert_true(erc <= 1e-3);
	assert_true(ert <= 1e-3);
	assert_true(ea <= 1e-6);
	assert_int_equal(s->t_cnt, r->tcnt);
	if (!nvidia) {
		assert_int_equal(s->b_cnt, r->bcnt);
		assert_int_equal(s->phase, r->phase);
		assert_int_equal(s->bytes_left, r->bytes_left);
	}
}

/* Replays one trace through dcqcn.h and the model (pace times from the
 * header's Rc, as `xdpleaf sim dcqcn` paces: the next packet
 * max(1, round(BYTES·8e9 / Rc)) ns later, Rc after the packet), comparing
 * after every event and probe. If `twin` is non-null a second header
 * state replays the trace with every expiry fired one by one, and must
 * equal the lazily advanced one at every event. */
static void replay(const struct trace *tr, int nvidia, struct errs *e,
		   int twin)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, s1;
	struct ref r;
	__u64 next_pace = tr->pace_bytes ? 0 : ~0ULL;
	__u64 next_probe = tr->probe_ns ? tr->probe_ns : ~0ULL;
	int i = 0;

	params(&p, nvidia ? XL_DCQCN_NVIDIA : XL_DCQCN_PAPER);
	if (!nvidia && tr->b_bytes)
		p.b_bytes = tr->b_bytes;
	xl_dcqcn_init(&s, &p);
	s1 = s;
	ref_init(&r, nvidia, (double)G100);
	if (!nvidia && tr->b_bytes)
		r.b = r.bytes_left = (long long)tr->b_bytes;
	for (;;) {
		__u64 tc = i < tr->n_cnp ? tr->cnp[i] : ~0ULL;
		__u64 t = tc;
		int kind = 0; /* 0 cnp, 1 send, 2 probe */

		if (next_pace < t) {
			t = next_pace;
			kind = 1;
		}
		if (next_probe < t) {
			t = next_probe;
			kind = 2;
		}
		if (t > tr->end_ns)
			break;
		at(&s, &p, t);
		if (twin)
			at_one_by_one(&s1, &p, t);
		ref_until(&r, (long long)t);
		if (kind == 0) {
			xl_dcqcn_cnp(&s, &p, t);
			if (twin)
				xl_dcqcn_cnp(&s1, &p, t);
			ref_cnp(&r, (long long)t);
			i++;
		} else if (kind == 1) {
			__u64 gap;

			xl_dcqcn_sent(&s, &p, tr->pace_bytes);
			if (twin)
				xl_dcqcn_sent(&s1, &p, tr->pace_bytes);
			ref_sent(&r, (long long)tr->pace_bytes);
			/* round half up: (2·BYTES·8e9 + Rc) / (2·Rc) */
			gap = (__u64)(((u128)tr->pace_bytes * 16000000000ULL +
				       s.rc) / ((u128)s.rc * 2));
			next_pace = t + (gap ? gap : 1);
		} else {
			next_probe += tr->probe_ns;
		}
		cmp(&s, &r, e, nvidia);
		if (twin)
			assert_state_eq(&s, &s1);
	}
}

#define MS 1000000ULL
#define US 1000ULL

static __u64 train[40], rnd_cnps[200], mixed[240];

/* CNP every 50 µs for 2 ms, random CNPs (uniform gaps in [0, 200 µs],
 * one in eight on the same nanosecond as the previous), both merged. */
static void make_traces(struct trace *tr)
{
	int n = 0, a = 0, b = 0;
	__u64 t = 0;

	rng_state = 0x1234567887654321ull;
	for (int k = 0; k < 40; k++)
		train[k] = (__u64)(k + 1) * 50 * US;
	for (n = 0; n < 200; n++) {
		t += (rnd64() & 7) == 0 ? 0 : rnd_upto(200 * US);
		if (t > 20 * MS)
			break;
		rnd_cnps[n] = t;
	}
	for (int k = 0; k < 40 + n; k++)
		mixed[k] = b >= n || (a < 40 && train[a] <= rnd_cnps[b]) ?
				   train[a++] : rnd_cnps[b++];
	tr[0] = (struct trace){ "CNP train 50us x 2ms", train, 40, 0, 0,
				1 * US, 20 * MS };
	tr[1] = (struct trace){ "random CNPs", rnd_cnps, n, 0, 0, 1 * US,
				20 * MS };
	tr[2] = (struct trace){ "train + paced 1500 B", train, 40, 1500, 0,
				0, 20 * MS };
	tr[3] = (struct trace){ "train + random + paced 1000 B, B=64K",
				mixed, 40 + n, 1000, 65536, 0, 20 * MS };
	tr[4] = (struct trace){ "random + paced 4096 B", rnd_cnps, n, 4096, 0,
				7 * US, 20 * MS };
}

static void fixed_vs_double(void **st)
{
	struct trace tr[5];
	struct errs all[2] = { { 0 } };

	(void)st;
	make_traces(tr);
	for (int v = 0; v < 2; v++) {
		for (int k = 0; k < 5; k++) {
			struct errs e = { 0 };

			replay(&tr[k], v, &e, 0);
			printf("# %s, %s: %ld comparisons, max rel rate error "
			       "%.3g, max alpha error %.3g\n",
			       v ? "nvidia" : "paper", tr[k].name, e.events,
			       e.rate, e.alpha);
			if (e.rate > all[v].rate)
				all[v].rate = e.rate;
			if (e.alpha > all[v].alpha)
				all[v].alpha = e.alpha;
		}
		printf("# %s overall: max rel rate error %.3g, max alpha error "
		       "%.3g\n", v ? "nvidia" : "paper", all[v].rate,
		       all[v].alpha);
	}
}

/* ---- 4. lazy timers --------------------------------------------------------- */

/* One call, many small calls, and every expiry one by one agree; a small
 * max_steps reports that it ran out. Over 1 s idle after a CNP, at line
 * rate c. */
static void check_catch_up(int variant, __u64 c, __u64 idle, __u32 small)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state big, chunk, slow, s0;
	const __u64 t0 = 1000;
	int calls = 0, rc;

	xl_dcqcn_defaults(&p, variant, c);
	xl_dcqcn_init(&s0, &p);
	cnp_at(&s0, &p, t0);
	if (variant == XL_DCQCN_NVIDIA) /* a second CNP in the α window */
		cnp_at(&s0, &p, t0 + 500);
	big = chunk = slow = s0;
	assert_int_equal(xl_dcqcn_advance(&big, &p, t0 + idle, NOSTEP), 0);
	do {
		rc = xl_dcqcn_advance(&chunk, &p, t0 + idle, small);
		calls++;
	} while (rc == 1 && calls < 10000000);
	assert_int_equal(rc, 0);
	assert_true(calls > 1);
	assert_int_equal(xl_dcqcn_advance(&chunk, &p, t0 + idle, small), 0);
	at_one_by_one(&slow, &p, t0 + idle);
	assert_state_eq(&big, &chunk);
	assert_state_eq(&big, &slow);
	/* recovered: paper caps Rc at C; nvidia's Rc = trunc(Rc/2) +
	 * trunc(C/2) stops one below 2·trunc(C/2) (see
	 * nvidia_sampler_and_increase) */
	assert_int_equal(big.rc, variant == XL_DCQCN_NVIDIA ? c / 2 * 2 - 1 : c);
	if (variant == XL_DCQCN_NVIDIA) /* paper: Rt keeps growing */
		assert_int_equal(big.rt, c);
	/* and a CNP after the idle period lands on equal states */
	xl_dcqcn_cnp(&big, &p, t0 + idle);
	xl_dcqcn_cnp(&slow, &p, t0 + idle);
	at(&big, &p, t0 + idle + 10 * MS);
	at_one_by_one(&slow, &p, t0 + idle + 10 * MS);
	assert_state_eq(&big, &slow);
}

static void advance_chunks_and_skips(void **st)
{
	(void)st;
	check_catch_up(XL_DCQCN_PAPER, G100, 1000 * MS, 7);
	check_catch_up(XL_DCQCN_NVIDIA, G100, 1000 * MS, 7);
	check_catch_up(XL_DCQCN_PAPER, G100, 1000 * MS, 1);
	check_catch_up(XL_DCQCN_NVIDIA, G100, 1000 * MS, 1);
	check_catch_up(XL_DCQCN_NVIDIA, G100 + 1, 1000 * MS, 3);
	check_catch_up(XL_DCQCN_PAPER, 25000000001ULL, 1000 * MS, 3);
}

/* The skips make an idle nvidia flow cheap: 1 s of expiries (10^6 α
 * timers, 250000 samples, 3333 increases) catches up in under 20000 steps
 * (α timers until α stops moving, then one skip; the samples in one skip;
 * the increases one by one, since Rc stays at C − 1 and the increase skip
 * waits for Rc = C); and advancing to random intermediate times gives the
 * same state as firing one by one. */
static void skips_cheap_and_exact(void **st)
{
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, slow;

	(void)st;
	start(&s, &p, XL_DCQCN_NVIDIA);
	cnp_at(&s, &p, 1000);
	assert_int_equal(xl_dcqcn_advance(&s, &p, 1000 + 1000 * MS, 20000), 0);
	assert_int_equal(s.rc, G100 - 1);
	assert_int_equal(s.rt, G100);

	for (int v = 0; v < 2; v++) {
		__u64 t = 1000;

		rng_state = 0xabcdef0123456789ull + v;
		start(&s, &p, v);
		cnp_at(&s, &p, t);
		slow = s;
		for (int i = 0; i < 300; i++) {
			t += rnd_upto(3 * MS);
			at(&s, &p, t);
			at_one_by_one(&slow, &p, t);
			assert_state_eq(&s, &slow);
			if ((rnd64() & 15) == 0) {
				xl_dcqcn_cnp(&s, &p, t);
				xl_dcqcn_cnp(&slow, &p, t);
			}
		}
	}
}

/* The nvidia increase skip (Rt = C, Rc = 2·trunc(C/2), T_cnt > F) against
 * one by one, from a state set by hand: after a cut Rc never gets there
 * (it stops one below), so no trace reaches this skip. Then a CNP and
 * 10 ms more. */
static void nvidia_increase_skip(void **st)
{
	static const __u64 cs[] = { G100, G100 + 1 };
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s, slow;

	(void)st;
	for (unsigned i = 0; i < 2; i++) {
		xl_dcqcn_defaults(&p, XL_DCQCN_NVIDIA, cs[i]);
		xl_dcqcn_init(&s, &p);
		s.cnp_seen = 1;
		s.rc = cs[i] / 2 * 2;
		s.t_cnt = 2;
		s.inc_due = 5000;
		slow = s;
		/* with only the increase timer running, two steps suffice */
		assert_int_equal(xl_dcqcn_advance(&s, &p, 1000 * MS + 7, 2), 0);
		at_one_by_one(&slow, &p, 1000 * MS + 7);
		assert_state_eq(&s, &slow);
		/* and with the α timer and the sampler running too */
		s = slow;
		xl_dcqcn_init(&s, &p);
		s.cnp_seen = 1;
		s.rc = cs[i] / 2 * 2;
		s.t_cnt = 2;
		s.inc_due = 5000;
		s.alpha_due = 4000;
		s.dec_due = 4001;
		slow = s;
		at(&s, &p, 1000 * MS + 7);
		at_one_by_one(&slow, &p, 1000 * MS + 7);
		assert_state_eq(&s, &slow);
		assert_int_equal(s.t_cnt, 2 + (1000 * MS + 7 - 5000) / 300000 + 1);
		xl_dcqcn_cnp(&s, &p, 1000 * MS + 7);
		xl_dcqcn_cnp(&slow, &p, 1000 * MS + 7);
		at(&s, &p, 1010 * MS);
		at_one_by_one(&slow, &p, 1010 * MS);
		assert_state_eq(&s, &slow);
	}
}

/* Traces with events (CNPs, paced sends): the lazy state with skips equals
 * the one-by-one state at every event. */
static void skips_equal_on_traces(void **st)
{
	struct trace tr[5];

	(void)st;
	make_traces(tr);
	for (int v = 0; v < 2; v++)
		for (int k = 0; k < 5; k++) {
			struct errs e = { 0 };

			replay(&tr[k], v, &e, 1);
		}
}

/* ---- 5. exact arithmetic ---------------------------------------------------- */

static void rate_cut_exact(void **st)
{
	static const __u64 rcs[] = { 0, 1, 2, 3, 7, 1000000, 99999999999ULL,
				     G100, 1600000000000ULL,
				     (1ULL << 41) - 1 };
	static const __u64 as[] = { 0, 1, 2, 65535, 65536, 65537,
				    (1ULL << 31), ONE_Q32 - 1, ONE_Q32 };

	(void)st;
	for (unsigned i = 0; i < sizeof(rcs) / sizeof(rcs[0]); i++)
		for (unsigned j = 0; j < sizeof(as) / sizeof(as[0]); j++)
			assert_int_equal(xl_rate_cut(rcs[i], as[j]),
					 exact_cut(rcs[i], as[j]));
	/* α = 1 halves (floor), α = 0 keeps */
	assert_int_equal(xl_rate_cut(G100 + 1, ONE_Q32), 50000000000ULL);
	assert_int_equal(xl_rate_cut(G100 + 1, 0), G100 + 1);
	rng_state = 0x5555aaaa5555aaaaull;
	for (int i = 0; i < 2000000; i++) {
		__u64 rc = rnd_upto(1600000000000ULL);
		__u64 a = rnd_upto(ONE_Q32);

		if (i & 1) /* also small rates and α near the ends */
			rc >>= rnd64() % 40;
		if ((i & 7) == 2)
			a = ONE_Q32 - (a >> (rnd64() % 32));
		assert_int_equal(xl_rate_cut(rc, a), exact_cut(rc, a));
	}
}

/* The α updates are the real ones truncated once in Q32: raise and decay
 * within one unit of the exact (1 − g)α + g and (1 − g)α (128-bit), for
 * g < 1. */
static void alpha_update_exact(void **st)
{
	(void)st;
	rng_state = 0x0f0f0f0f12345678ull;
	for (int i = 0; i < 1000000; i++) {
		__u64 a = rnd_upto(ONE_Q32), g = rnd_upto(ONE_Q32 - 1);
		/* exact values times 2^32 (Q64) */
		u128 dec = (u128)a * (ONE_Q32 - g);
		u128 inc = dec + (u128)g * ONE_Q32;
		u128 got_d = (u128)xl_alpha_decay(a, g) << 32;
		u128 got_r = (u128)xl_alpha_raise(a, g) << 32;

		/* Q32 truncates the step: decay rounds α up, raise down */
		assert_true(got_d >= dec && got_d - dec < ((u128)1 << 32));
		assert_true(got_r <= inc && inc - got_r < ((u128)1 << 32));
		assert_true(xl_alpha_raise(a, g) <= ONE_Q32);
	}
}

/* g = 1 is a value --set g=1/1 accepts; the specification's updates give
 * α = (1 − 1)α = 0 on decay and (1 − 1)α + 1 = 1 on raise. */
static void alpha_update_g_one(void **st)
{
	(void)st;
	assert_int_equal(xl_alpha_raise(ONE_Q32 / 2, ONE_Q32), ONE_Q32);
	assert_int_equal(xl_alpha_decay(ONE_Q32 / 2, ONE_Q32), 0);
	/* these overflow (2^32 · 2^32) in dcqcn.h */
	assert_int_equal(xl_alpha_decay(ONE_Q32, ONE_Q32), 0);
	assert_int_equal(xl_alpha_raise(0, ONE_Q32), ONE_Q32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_match_spec),
		cmocka_unit_test(hand_paper_cut_and_recovery),
		cmocka_unit_test(hand_nvidia_first_cut),
		cmocka_unit_test(paper_cnp_clamp),
		cmocka_unit_test(paper_alpha_before_cut),
		cmocka_unit_test(paper_min_rate),
		cmocka_unit_test(paper_byte_counter),
		cmocka_unit_test(paper_default_b_is_decimal),
		cmocka_unit_test(paper_timer_periods),
		cmocka_unit_test(paper_adjust_rule),
		cmocka_unit_test(paper_alpha_timer_restart),
		cmocka_unit_test(paper_rt_saturates),
		cmocka_unit_test(nvidia_first_cnp),
		cmocka_unit_test(nvidia_alpha_window),
		cmocka_unit_test(nvidia_sampler_and_increase),
		cmocka_unit_test(nvidia_sends_no_effect),
		cmocka_unit_test(same_ns_ordering),
		cmocka_unit_test(fixed_vs_double),
		cmocka_unit_test(advance_chunks_and_skips),
		cmocka_unit_test(skips_cheap_and_exact),
		cmocka_unit_test(nvidia_increase_skip),
		cmocka_unit_test(skips_equal_on_traces),
		cmocka_unit_test(rate_cut_exact),
		cmocka_unit_test(alpha_update_exact),
		cmocka_unit_test(alpha_update_g_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
