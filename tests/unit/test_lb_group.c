// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for user/sim/lb_group.c, the uplink group's choices that
 * `xdpleaf sim flowlet` and the ns-3 fabric's leaves (sim/fabric/) both
 * drive: one code, two drivers. A captured lab trace replayed packet by
 * packet, as the ns-3 leaf sees packets, gives every figure `sim flowlet
 * --trace` gives over the same trace, in every mode; through the ns-3
 * leaf's own entry (sim/fabric/leaf_shim.c) too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <linux/types.h>

#include "base/rng.h"
#include "sim/flow_trace.h"
#include "sim/lb_group.h"
#include "sim/sim.h"
#include "leaf_shim.h"

#define TRACE_GZ "tests/fixtures/flow-traces/dc-unequal-allreduce-4M.csv.gz"

/* The fixture, gunzipped into a temporary file (the reader takes CSV). */
static int read_fixture(struct xl_flow_trace *tr)
{
	char path[] = "/tmp/xl-lb-group-XXXXXX", buf[65536];
	gzFile gz = gzopen(TRACE_GZ, "rb");
	int fd = mkstemp(path), n, rc = -1;

	if (gz && fd >= 0) {
		while ((n = gzread(gz, buf, sizeof(buf))) > 0)
			if (write(fd, buf, (size_t)n) != n)
				break;
		rc = n == 0 ? xl_flow_trace_read(path, tr) : -1;
	}
	if (gz)
		gzclose(gz);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return rc;
}

/* Packets by step, and within a step by flow: the order sim flowlet
 * takes a step's flows in (a flow's packets keep their times' order). */
static int by_step_flow(const void *x, const void *y)
{
	const struct xl_flow_packet *a = x, *b = y;
	__u64 sa = a->t_ns / XL_LB_STEP_NS, sb = b->t_ns / XL_LB_STEP_NS;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (a->flow != b->flow)
		return a->flow < b->flow ? -1 : 1;
	return a->t_ns < b->t_ns ? -1 : a->t_ns > b->t_ns;
}

/* The trace's packets one at a time into a group whose flows are
 * numbered and hashed as sim flowlet numbers and hashes them; the last
 * packet's step ends as sim flowlet's run does. */
static void packet_driver(struct xl_lb_sim *s, const struct xl_flow_trace *tr)
{
	struct xl_lb_group g;
	__u64 i, total = 0;
	__u32 k;

	assert_int_equal(xl_lb_group_init(&g, s, 0), 0);
	for (k = 0; k < tr->flows; k++)
		assert_int_equal(xl_lb_group_add_flow(&g, xl_rand32(&s->seed)), (int)k);
	for (i = 0; i < tr->n; i++)
		assert_true(xl_lb_group_packet(&g, tr->pk[i].flow, tr->pk[i].t_ns,
					       tr->pk[i].bytes) >= 0);
	xl_lb_group_step_end(&g);
	for (k = 0; k < s->n; k++)
		total += s->bytes[k];
	s->total_bytes = total;
	xl_lb_group_free(&g);
}

static void same_choices_as_sim_flowlet(void **state)
{
	static const __u32 modes[] = { XL_LB_FLOWLET, XL_LB_HASH, XL_LB_FLOWLET_RANDOM };
	struct xl_flow_trace tr;
	__u32 m, i;

	(void)state;
	assert_int_equal(read_fixture(&tr), 0);
	assert_true(tr.n > 1000 && tr.flows == 4);
	/* the leaf takes packets as they come; sim flowlet takes a step's
	 * flows by number, and the order of two flowlets starting in one
	 * 50 us step changes the pick (pending rates, the tie-break's
	 * rotation): the same packets in sim flowlet's order */
	qsort(tr.pk, tr.n, sizeof(tr.pk[0]), by_step_flow);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct xl_lb_sim a, b;

		xl_lb_sim_defaults(&a);
		a.mode = modes[m];
		a.trace = &tr;
		b = a;
		b.trace = NULL;
		assert_int_equal(xl_lb_sim_run(&a), 0);
		packet_driver(&b, &tr);
		print_message("# mode %u: flowlets %llu/%llu moves %llu/%llu refused %llu/%llu\n",
			      modes[m], a.flowlets, b.flowlets, a.moves, b.moves, a.refused,
			      b.refused);
		/* the trace must exercise the rules, or equality shows little */
		if (modes[m] == XL_LB_FLOWLET)
			assert_true(a.moves > 0 && a.refused > 0);
		assert_int_equal(a.total_bytes, b.total_bytes);
		assert_int_equal(a.flowlets, b.flowlets);
		assert_int_equal(a.moves, b.moves);
		assert_int_equal(a.refused, b.refused);
		for (i = 0; i < a.n; i++) {
			assert_int_equal(a.bytes[i], b.bytes[i]);
			assert_int_equal(a.overloaded_ns[i], b.overloaded_ns[i]);
			assert_int_equal(a.longest_overload_ns[i], b.longest_overload_ns[i]);
		}
	}
	xl_flow_trace_free(&tr);
}

/* The ns-3 leaf's shim, with the shipped defaults (its auto flowlet
 * timeout) and the trace's flows hashed as sim flowlet hashes them, takes
 * the members sim flowlet --trace takes with that timeout: the same bytes
 * on each member, the same flowlets, moves and refusals. (flowlet-random
 * draws its picks from the seed sim flowlet has drawn the hashes from:
 * the group-level test above covers it.) */
static void shim_same_choices(void **state)
{
	static const __u32 modes[] = { XL_LB_FLOWLET, XL_LB_HASH };
	struct xl_flow_trace tr;
	__u32 m, i, k;

	(void)state;
	assert_int_equal(read_fixture(&tr), 0);
	qsort(tr.pk, tr.n, sizeof(tr.pk[0]), by_step_flow);
	for (m = 0; m < 2; m++) {
		struct xl_lb_sim a;
		struct xlf_leaf *l;
		__u64 bytes[XL_MAX_GROUP_MEMBERS] = { 0 }, st, total = 0;
		uint64_t caps[XL_MAX_GROUP_MEMBERS], c[4];

		xl_lb_sim_defaults(&a);
		a.mode = modes[m];
		a.trace = &tr;
		for (i = 0; i < a.n; i++)
			caps[i] = a.cap_bps[i];
		l = xlf_leaf_new(a.n, caps, (int)modes[m], 1);
		assert_non_null(l);
		/* the shipped auto floor is the loader's, not sim flowlet's 50 us */
		assert_true(xlf_leaf_floor_ns(l) > a.floor_ns);
		a.floor_ns = xlf_leaf_floor_ns(l);
		st = a.seed;
		for (k = 0; k < tr.flows; k++)
			assert_int_equal(xlf_leaf_add_flow(l, xl_rand32(&st)), (int)k);
		for (i = 0; i < tr.n; i++) {
			int mb = xlf_leaf_packet(l, tr.pk[i].flow, tr.pk[i].t_ns, tr.pk[i].bytes,
						 0);

			assert_true(mb >= 0 && mb < (int)a.n);
			bytes[mb] += tr.pk[i].bytes;
			total += tr.pk[i].bytes;
		}
		assert_int_equal(xl_lb_sim_run(&a), 0);
		xlf_leaf_counts(l, c);
		print_message(
			"# shim mode %u: flowlets %llu/%llu moves %llu/%llu refused %llu/%llu\n",
			modes[m], a.flowlets, (__u64)c[0], a.moves, (__u64)c[1], a.refused,
			(__u64)c[2]);
		assert_int_equal(a.total_bytes, total);
		assert_int_equal(a.flowlets, c[0]);
		assert_int_equal(a.moves, c[1]);
		assert_int_equal(a.refused, c[2]);
		for (i = 0; i < a.n; i++)
			assert_int_equal(a.bytes[i], bytes[i]);
		if (modes[m] == XL_LB_FLOWLET)
			assert_true(c[0] > 100 && c[1] > 0);
		xlf_leaf_free(l);
	}
	xl_flow_trace_free(&tr);
}

/* A packet driver's bad flow index is refused, not followed. */
static void bad_flow_refused(void **state)
{
	struct xl_lb_sim s;
	struct xl_lb_group g;

	(void)state;
	xl_lb_sim_defaults(&s);
	assert_int_equal(xl_lb_group_init(&g, &s, 0), 0);
	assert_int_equal(xl_lb_group_packet(&g, 0, 0, 1500), -1);
	assert_int_equal(xl_lb_group_add_flow(&g, 7), 0);
	assert_true(xl_lb_group_packet(&g, 0, 0, 1500) >= 0);
	assert_int_equal(xl_lb_group_packet(&g, 1, 0, 1500), -1);
	xl_lb_group_free(&g);
	s.n = 0;
	assert_int_equal(xl_lb_group_init(&g, &s, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_choices_as_sim_flowlet),
		cmocka_unit_test(shim_same_choices),
		cmocka_unit_test(bad_flow_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
