// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for `xdpleaf sim flowlet` (user/sim/flowlet.c): the uplink
 * choice of include/lb.h over the balance benchmark's NCCL-like on/off
 * flows, in synthetic time. The shares asked for are the targets
 * (within 5 % of the capacity proportions, max/mean <= 1.05); the model's
 * option without the flowlet's own rate shows what that term is for. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/types.h>

#include "sim/sim.h"

static double share(const struct xl_lb_sim *s, int i)
{
	return (double)s->bytes[i] / (double)s->total_bytes;
}

static double cap_share(const struct xl_lb_sim *s, int i)
{
	__u64 total = 0;
	__u32 k;

	for (k = 0; k < s->n; k++)
		total += s->cap_bps[k];
	return (double)s->cap_bps[i] / (double)total;
}

static void report(const char *what, const struct xl_lb_sim *s)
{
	__u32 i;

	print_message("# %s:", what);
	for (i = 0; i < s->n; i++)
		print_message(" %.2f", 100 * share(s, i));
	print_message(" %%\n");
}

/* Workload 3 (2:1:1:1, 16 flows, 70 % load), several seeds: every
 * member's share within 5 % of its capacity's. */
static void unequal_capacities_proportional(void **state)
{
	struct xl_lb_sim s;
	__u32 seed, i;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		xl_lb_sim_defaults(&s);
		s.seed = seed * 2 + 1;
		s.duration_ns = 30000000000ULL;
		assert_int_equal(xl_lb_sim_run(&s), 0);
		report("2:1:1:1", &s);
		/* 30 s at 350 Mbit/s offered */
		assert_true(fabs(s.total_bytes * 8 / 30.0 / 350e6 - 1) < 0.02);
		for (i = 0; i < s.n; i++)
			if (fabs(share(&s, i) / cap_share(&s, i) - 1) > 0.05)
				fail_msg("seed %u: member %u has %.2f %%, want %.0f %% +- 5 %%",
					 seed, i, 100 * share(&s, i), 100 * cap_share(&s, i));
	}
}

/* The flowlet's own rate in the comparison (xl_flowlet_extra) was what
 * brought the big member from 38 % to its 40 % share while flows moved at
 * every tie. Since a flow leaves its member only for clearly more room
 * (xl_move_worth), the big member keeps its flows and reaches its share
 * without the term too (40.4 %; with it 41.5-41.8 %, seeds 1-3): both
 * within 2.5 points of 40 %, the term no longer needed for it. */
static void flowlet_rate_term_within_target(void **state)
{
	struct xl_lb_sim with, without;

	(void)state;
	xl_lb_sim_defaults(&with);
	xl_lb_sim_defaults(&without);
	without.no_flowlet_rate = 1;
	assert_int_equal(xl_lb_sim_run(&with), 0);
	assert_int_equal(xl_lb_sim_run(&without), 0);
	report("2:1:1:1 without the flowlet's rate", &without);
	assert_true(share(&without, 0) > 0.375 && share(&without, 0) < 0.425);
	assert_true(share(&with, 0) > 0.375 && share(&with, 0) < 0.425);
}

/* Workload 1: one sender's 8 QPs over 4 equal uplinks: max/mean <= 1.05;
 * and flowlet switching keeps every member under its capacity for far
 * less time than random flowlets (LetFlow) do. */
static void equal_capacities_balanced(void **state)
{
	struct xl_lb_sim s, rnd;
	double max = 0, over = 0, over_rnd = 0;
	__u32 i;

	(void)state;
	xl_lb_sim_defaults(&s);
	for (i = 0; i < 4; i++)
		s.cap_bps[i] = 100000000;
	s.flows = 8;
	s.peak_bps = 43750000; /* 400M x 0.7 / 8 / duty */
	rnd = s;
	rnd.mode = XL_LB_FLOWLET_RANDOM;
	assert_int_equal(xl_lb_sim_run(&s), 0);
	assert_int_equal(xl_lb_sim_run(&rnd), 0);
	report("1:1:1:1, 8 flows", &s);
	for (i = 0; i < s.n; i++) {
		if (share(&s, i) > max)
			max = share(&s, i);
		over += s.overloaded_ns[i] / 1e9;
		over_rnd += rnd.overloaded_ns[i] / 1e9;
	}
	print_message("# overloaded member-seconds: flowlet %.2f, random %.2f\n",
		      over, over_rnd);
	assert_true(max * 4 <= 1.05);
	assert_true(over * 5 < over_rnd);
	/* every message a flowlet: 60 s, 8 flows, 48 ms + 12 ms apiece */
	assert_true(s.flowlets > 7500 && s.flowlets < 8500);
}

/* Counting a placed flowlet as pending on its member at once keeps the
 * members under capacity: with it the offered load exceeded a member's
 * capacity for less than a tenth of the time it did without (workload 3,
 * 60 s). */
static void pending_avoids_overload(void **state)
{
	struct xl_lb_sim with, without;
	double over = 0, over_without = 0;
	__u32 i;

	(void)state;
	xl_lb_sim_defaults(&with);
	xl_lb_sim_defaults(&without);
	without.no_pending = 1;
	assert_int_equal(xl_lb_sim_run(&with), 0);
	assert_int_equal(xl_lb_sim_run(&without), 0);
	for (i = 0; i < with.n; i++) {
		over += with.overloaded_ns[i] / 1e9;
		over_without += without.overloaded_ns[i] / 1e9;
	}
	print_message("# overloaded member-seconds: %.3f with pending, %.3f without\n",
		      over, over_without);
	assert_true(over_without > 0.1);
	assert_true(over * 10 < over_without);
}

/* Hash mode never moves a flow, and counts no flowlets (as the dataplane). */
static void hash_mode_never_moves(void **state)
{
	struct xl_lb_sim s;

	(void)state;
	xl_lb_sim_defaults(&s);
	s.mode = XL_LB_HASH;
	assert_int_equal(xl_lb_sim_run(&s), 0);
	assert_int_equal(s.flowlets, 0);
	assert_int_equal(s.moves, 0);
	assert_true(s.total_bytes > 0);
}

/* The reorder-free rule. In the default workload (gaps of milliseconds,
 * short queues) it keeps nothing back and changes nothing. With gaps of
 * about a millisecond between messages at 99 % duty, where queues build,
 * it refuses moves, and without it (--reorder free) moves are made that
 * it would have refused: those could have reordered their flows. */
static void rule_refuses_unsafe_moves(void **state)
{
	struct xl_lb_sim safe, free_run;
	__u32 i;

	(void)state;
	xl_lb_sim_defaults(&safe);
	free_run = safe;
	free_run.reorder_free = 1;
	assert_int_equal(xl_lb_sim_run(&safe), 0);
	assert_int_equal(xl_lb_sim_run(&free_run), 0);
	assert_int_equal(safe.refused, 0);
	assert_int_equal(free_run.unsafe, 0);
	assert_memory_equal(safe.bytes, free_run.bytes, sizeof(safe.bytes));

	xl_lb_sim_defaults(&safe);
	safe.duty = 0.99;
	safe.message_bytes = 16384;
	safe.peak_bps = 30000000;
	safe.duration_ns = 10000000000ULL;
	free_run = safe;
	free_run.reorder_free = 1;
	assert_int_equal(xl_lb_sim_run(&safe), 0);
	assert_int_equal(xl_lb_sim_run(&free_run), 0);
	print_message("# 99 %% duty, 16K messages: %llu flowlets; reorder-free: %llu moves, "
		      "%llu refused; free: %llu moves, %llu unsafe\n",
		      (unsigned long long)safe.flowlets, (unsigned long long)safe.moves,
		      (unsigned long long)safe.refused, (unsigned long long)free_run.moves,
		      (unsigned long long)free_run.unsafe);
	report("reorder-free", &safe);
	report("free", &free_run);
	assert_true(safe.refused > 0);
	assert_int_equal(safe.unsafe, 0);
	assert_int_equal(free_run.refused, 0);
	assert_true(free_run.unsafe > 0 && free_run.unsafe <= free_run.moves);
	assert_true(safe.moves + safe.refused <= safe.flowlets);
	/* a floor above every gap: no flowlet after the first, no move */
	safe.floor_ns = 1000000000ULL;
	assert_int_equal(xl_lb_sim_run(&safe), 0);
	assert_int_equal(safe.moves, 0);
	assert_int_equal(safe.refused, 0);
	assert_int_equal(safe.flowlets, safe.flows);
	for (i = 0; i < safe.n; i++)
		assert_true(safe.bytes[i] > 0 || safe.flows < safe.n);
}

/* The same seed gives the same run; another seed another. */
static void reproducible(void **state)
{
	struct xl_lb_sim a, b, c;

	(void)state;
	xl_lb_sim_defaults(&a);
	a.duration_ns = 2000000000ULL;
	b = a;
	c = a;
	c.seed = 12345;
	assert_int_equal(xl_lb_sim_run(&a), 0);
	assert_int_equal(xl_lb_sim_run(&b), 0);
	assert_int_equal(xl_lb_sim_run(&c), 0);
	assert_memory_equal(a.bytes, b.bytes, sizeof(a.bytes));
	assert_memory_not_equal(a.bytes, c.bytes, sizeof(a.bytes));
}

/* Bad options: usage error (2), nothing run. */
static void bad_options(void **state)
{
	static const char *bad[][3] = {
		{ "flowlet", "--caps", "100M,,200M" },
		{ "flowlet", "--caps", "100M,x" },
		{ "flowlet", "--caps", "" },
		{ "flowlet", "--mode", "ecmp" },
		{ "flowlet", "--duty", "0" },
		{ "flowlet", "--duty", "1.5" },
		{ "flowlet", "--flows", "0" },
		{ "flowlet", "--rate", "fast" },
		{ "flowlet", "--duration", "10" },
		{ "flowlet", "--reorder", "maybe" },
		{ "flowlet", "--path-skew", "2s" },
		{ "flowlet", "--path-skew", "25" },
		{ "flowlet", "--flowlet-timeout", "0us" },
		{ "flowlet", "--flowlet-timeout", "Auto" },
	};
	size_t i;

	int saved = dup(STDERR_FILENO), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	/* the usage text each prints is not this test's output */
	assert_true(saved >= 0 && devnull >= 0);
	fflush(stderr);
	dup2(devnull, STDERR_FILENO);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)bad[i][0], (char *)bad[i][1], (char *)bad[i][2], NULL };
		const struct xl_cmd_ctx outer = { NULL, "", 0, NULL, NULL };
		int rc = xl_cmd_main(&xl_sim_flowlet_cmd, "sim flowlet", 3, argv, &outer);

		if (rc != 2) {
			fflush(stderr);
			dup2(saved, STDERR_FILENO);
			fail_msg("%s %s: exit %d, want 2", bad[i][1], bad[i][2], rc);
		}
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(devnull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unequal_capacities_proportional),
		cmocka_unit_test(flowlet_rate_term_within_target),
		cmocka_unit_test(equal_capacities_balanced),
		cmocka_unit_test(pending_avoids_overload),
		cmocka_unit_test(hash_mode_never_moves),
		cmocka_unit_test(rule_refuses_unsafe_moves),
		cmocka_unit_test(reproducible),
		cmocka_unit_test(bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
