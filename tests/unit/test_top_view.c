// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for xdpleaf top's numbers (user/views/top_view.c) and frame
 * layout (top_render.c), from two hand-written reads in the readers' JSON
 * shapes (stats --json, flows --json, qps --json without the header):
 * rates are the differences over the time between the reads, flows and
 * QPs are matched by key whatever their order, a counter that went down
 * gives no rate, the first read has none, and a short terminal still gets
 * the events section. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "views/top_render.h"
#include "views/top_view.h"

#define NS 1000000000ULL

static struct json_object *parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

/* A leaf port as stats --json has it; queue NULL: no rate configured. */
static void port(char *buf, size_t len, const char *name, const char *role,
		 unsigned long long rx_p, unsigned long long rx_b, unsigned long long tx_p,
		 unsigned long long tx_b, unsigned long long drop, unsigned long long tail,
		 unsigned long long trunc, unsigned long long no_route, const char *queue)
{
	snprintf(buf, len,
		 "{\"name\":\"%s\",\"role\":\"%s\",\"rx_packets\":%llu,\"rx_bytes\":%llu,"
		 "\"tx_packets\":%llu,\"tx_bytes\":%llu,\"flowlets\":%llu,\"moves_in\":%llu,"
		 "\"moves_refused\":0,\"verdicts\":{\"aborted\":0,\"drop\":%llu,\"pass\":%llu},"
		 "\"reasons\":{\"forwarded\":0,\"no_route\":%llu,\"tail_drop\":%llu,"
		 "\"trunc_eth\":%llu},\"queue\":%s}",
		 name, role, rx_p, rx_b, tx_p, tx_b, tx_p / 10, tx_p / 100, drop, no_route,
		 no_route, tail, trunc, queue);
}

static struct top_sample leaf_sample(__u64 t_ns, int step, const char *flows)
{
	char s1[512], u1[512], u2[512], q1[64], stats[2048];
	struct top_sample s = { .role = XL_INST_LEAF, .t_ns = t_ns };
	unsigned long long k = step;

	/* per step: s1 receives 2000 packets, 1 MB; drops 40 (30 tail_drop,
	 * 10 trunc_eth), passes 500 no_route; u1 sends 3 MB, u2 1 MB */
	port(s1, sizeof(s1), "s1", "downlink", 2000 * k, 1000000 * k, 0, 0, 40 * k, 30 * k,
	     10 * k, 500 * k, "null");
	/* u1 has a queue: 4096 bytes long now, 50 marks per step */
	snprintf(q1, sizeof(q1), "{\"length_bytes\":4096,\"marked\":%llu}", 50 * k);
	port(u1, sizeof(u1), "u1", "uplink", 0, 0, 3000 * k, 3000000 * k, 0, 0, 0, 0, q1);
	port(u2, sizeof(u2), "u2", "uplink", 0, 0, 1000 * k, 1000000 * k, 0, 0, 0, 0, "null");
	snprintf(stats, sizeof(stats),
		 "{\"instance\":\"t\",\"mode\":\"leaf\",\"ports\":[%s,%s,%s],"
		 "\"groups\":[{\"name\":\"spine\",\"members\":["
		 "{\"port\":\"u1\",\"capacity_bps\":100000000000,\"up\":true},"
		 "{\"port\":\"u2\",\"capacity_bps\":0,\"up\":false}]}],"
		 "\"events\":{\"drop\":{\"emitted\":%llu,\"limited\":%llu,\"ring_full\":0},"
		 "\"mark\":{\"emitted\":0,\"limited\":0,\"ring_full\":0}}}",
		 s1, u1, u2, 20 * k, 5 * k);
	s.stats = parse(stats);
	s.flows = parse(flows);
	return s;
}

static const char flows_before[] =
	"{\"flows\":["
	"{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":1,\"dport\":4791,"
	"\"qp\":256,\"uplink\":\"u1\",\"bytes\":1000000,\"moves\":7},"
	"{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":2,\"dport\":4791,"
	"\"qp\":257,\"uplink\":\"u2\",\"bytes\":5000000,\"moves\":1}]}";
/* the same two flows, the other way round, plus a new one: 500 ms later,
 * flow sport 1 sent 2.5 MB (40 Mbit/s), sport 2 0.5 MB (8 Mbit/s) */
static const char flows_after[] =
	"{\"flows\":["
	"{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":2,\"dport\":4791,"
	"\"qp\":257,\"uplink\":\"u2\",\"bytes\":5500000,\"moves\":9},"
	"{\"src\":\"10.1.1.3\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":3,\"dport\":4791,"
	"\"qp\":258,\"uplink\":\"u1\",\"bytes\":900000000,\"moves\":0},"
	"{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":1,\"dport\":4791,"
	"\"qp\":256,\"uplink\":\"u1\",\"bytes\":3500000,\"moves\":7}]}";

static void test_leaf_rates(void **state)
{
	struct top_sample a = leaf_sample(10 * NS, 1, flows_before);
	struct top_sample b = leaf_sample(10 * NS + NS / 2, 2, flows_after);
	struct top_view v;

	(void)state;
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_RATE), 0);
	assert_true(v.have_rates);
	assert_float_equal(v.interval_s, 0.5, 1e-9);
	assert_int_equal(v.n_ports, 3);
	/* s1: 2000 packets, 1 MB, 40 drops in 0.5 s */
	assert_string_equal(v.ports[0].name, "s1");
	assert_float_equal(v.ports[0].rx_pps, 4000, 1e-6);
	assert_float_equal(v.ports[0].rx_mbps, 16, 1e-6);
	assert_float_equal(v.ports[0].drops_ps, 80, 1e-6);
	/* tail_drop beats trunc_eth; no_route (a pass) is not a drop reason */
	assert_string_equal(v.ports[0].drop_reason, "tail_drop");
	assert_int_equal(v.ports[0].queue_bytes, -1);
	assert_int_equal(v.ports[1].queue_bytes, 4096);
	assert_float_equal(v.ports[1].marks_ps, 100, 1e-6);
	assert_null(v.ports[1].drop_reason);
	/* uplinks: 3 MB and 1 MB in 0.5 s: 48 and 16 Mbit/s, 3/4 and 1/4 */
	assert_int_equal(v.n_uplinks, 2);
	assert_float_equal(v.uplinks[0].tx_mbps, 48, 1e-6);
	assert_float_equal(v.uplinks[1].tx_mbps, 16, 1e-6);
	assert_float_equal(v.uplinks_tx_mbps, 64, 1e-6);
	assert_float_equal(v.uplinks[0].share, 0.75, 1e-9);
	assert_float_equal(v.uplinks[1].share, 0.25, 1e-9);
	assert_true(v.uplinks[0].capacity_bps == 100000000000ULL);
	assert_true(v.uplinks[1].capacity_bps == 0);
	assert_int_equal(v.uplinks[0].up, 1);
	assert_int_equal(v.uplinks[1].up, 0);
	assert_float_equal(v.uplinks[0].flowlets_ps, 600, 1e-6);
	assert_float_equal(v.uplinks[0].moves_ps, 60, 1e-6);
	/* flows: matched by key, busiest first; the new one has no rate yet
	 * (its 900 MB are from before this interval as far as top knows) */
	assert_int_equal(v.n_flows, 3);
	assert_int_equal(v.flows[0].sport, 1);
	assert_float_equal(v.flows[0].mbps, 40, 1e-6);
	assert_int_equal(v.flows[1].sport, 2);
	assert_float_equal(v.flows[1].mbps, 8, 1e-6);
	assert_int_equal(v.flows[2].sport, 3);
	assert_float_equal(v.flows[2].mbps, 0, 0);
	/* events: drop 20 written and 5 limited per read step */
	assert_true(v.have_events);
	assert_int_equal(v.n_events, 1);
	assert_string_equal(v.events[0].kind, "drop");
	assert_float_equal(v.events[0].emitted_ps, 40, 1e-6);
	assert_float_equal(v.events[0].dropped_ps, 10, 1e-6);
	top_view_free(&v);

	/* s: by moves */
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_SECOND), 0);
	assert_int_equal(v.flows[0].moves, 9);
	assert_int_equal(v.flows[1].moves, 7);
	top_view_free(&v);

	/* counters that went down (a reloaded instance): no rates below 0 */
	assert_int_equal(top_view_build(&v, &b, &a, TOP_SORT_RATE), 0);
	assert_float_equal(v.ports[0].rx_pps, 0, 0);
	assert_float_equal(v.uplinks_tx_mbps, 0, 0);
	top_view_free(&v);

	/* the first read: no rates at all */
	assert_int_equal(top_view_build(&v, NULL, &b, TOP_SORT_RATE), 0);
	assert_false(v.have_rates);
	assert_float_equal(v.ports[0].rx_pps, 0, 0);
	top_view_free(&v);
	top_sample_free(&a);
	top_sample_free(&b);
}

static struct top_sample host_sample(__u64 t_ns, int k)
{
	char stats[512], qps[2048];
	struct top_sample s = { .role = XL_INST_HOST, .t_ns = t_ns };

	snprintf(stats, sizeof(stats),
		 "{\"mode\":\"host\",\"counters\":{\"ce_seen\":%d,\"cnps_sent\":%d,"
		 "\"cnps_suppressed\":%d,\"cnps_received\":%d}}", 100 * k, 10 * k, 90 * k, 7 * k);
	snprintf(qps, sizeof(qps),
		 "{\"rp_flows\":["
		 "{\"remote\":\"10.0.0.1\",\"qp\":1,\"rc_bps\":50000000000,\"rt_bps\":100000000000,"
		 "\"alpha\":0.5,\"phase\":\"fast_recovery\",\"cnps\":%d,\"bytes\":%d},"
		 "{\"remote\":\"10.0.0.2\",\"qp\":2,\"rc_bps\":10000000000,\"rt_bps\":20000000000,"
		 "\"alpha\":0.9,\"phase\":\"additive\",\"cnps\":0,\"bytes\":%d}],"
		 "\"np_flows\":["
		 "{\"scope\":\"port\",\"remote\":null,\"ifindex\":4,\"port\":\"h0\","
		 "\"ce_packets\":%d,\"cnps_sent\":%d}]}",
		 3 * k, 1000000 * k, 250000 * k, 50 * k, 5 * k);
	s.stats = parse(stats);
	s.flows = parse(qps);
	return s;
}

static void test_host_rates(void **state)
{
	struct top_sample a = host_sample(NS, 1), b = host_sample(3 * NS, 3);
	struct top_view v;

	(void)state;
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_RATE), 0);
	assert_float_equal(v.interval_s, 2, 1e-9);
	assert_float_equal(v.ce_ps, 100, 1e-6);
	assert_float_equal(v.cnps_sent_ps, 10, 1e-6);
	assert_float_equal(v.cnps_suppressed_ps, 90, 1e-6);
	assert_float_equal(v.cnps_received_ps, 7, 1e-6);
	/* RP by what they sent: 2 MB and 0.5 MB in 2 s: 8 and 2 Mbit/s */
	assert_int_equal(v.n_rp, 2);
	assert_int_equal(v.rp[0].qp, 1);
	assert_float_equal(v.rp[0].send_mbps, 8, 1e-6);
	assert_float_equal(v.rp[0].cnps_ps, 3, 1e-6);
	assert_float_equal(v.rp[0].rc_gbps, 50, 1e-9);
	assert_string_equal(v.rp[0].phase, "fast_recovery");
	assert_float_equal(v.rp[1].send_mbps, 2, 1e-6);
	/* the per-port NP limiter: named by its port, no QP */
	assert_int_equal(v.n_np, 1);
	assert_string_equal(v.np[0].remote, "(port h0)");
	assert_int_equal(v.np[0].qp, -1);
	assert_float_equal(v.np[0].ce_ps, 50, 1e-6);
	/* no events object: an instance without event counters */
	assert_false(v.have_events);
	top_view_free(&v);

	/* s: lowest Rc first, then highest alpha first: QP 2 either way */
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_SECOND), 0);
	assert_int_equal(v.rp[0].qp, 2);
	top_view_free(&v);
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_THIRD), 0);
	assert_int_equal(v.rp[0].qp, 2);
	top_view_free(&v);

	/* a mode change between the reads (unloaded, loaded as a leaf):
	 * no rates across it */
	a.role = XL_INST_LEAF;
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_RATE), 0);
	assert_false(v.have_rates);
	top_view_free(&v);
	top_sample_free(&a);
	top_sample_free(&b);
}

/* Whether a line of the screen contains s. */
static bool screen_has(const struct top_screen *scr, const char *s)
{
	for (int i = 0; i < scr->n; i++)
		if (strstr(scr->lines[i].text, s))
			return true;
	return false;
}

static void test_render_fits_rows(void **state)
{
	char many[16384];
	int len = snprintf(many, sizeof(many), "{\"flows\":[");
	struct top_sample a, b;
	struct top_view v;
	struct top_frame_info info = { .instance = "t", .interval_ms = 1000 };
	struct top_screen scr = { .rows = 30 };

	(void)state;
	for (int i = 0; i < 60; i++)
		len += snprintf(many + len, sizeof(many) - len,
				"%s{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,"
				"\"sport\":%d,\"dport\":4791,\"qp\":1,\"uplink\":\"u1\","
				"\"bytes\":%d}", i ? "," : "", i, i * 1000);
	snprintf(many + len, sizeof(many) - len, "]}");
	a = leaf_sample(NS, 1, many);
	b = leaf_sample(2 * NS, 2, many);
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_RATE), 0);

	/* 30 rows: the flows get what is left, the events section stays */
	assert_int_equal(top_render(&scr, &v, &info), 0);
	assert_true(scr.n <= 30);
	assert_true(screen_has(&scr, "TOP FLOWS"));
	assert_true(screen_has(&scr, "of 60"));
	assert_true(screen_has(&scr, "RECENT EVENTS"));
	assert_true(screen_has(&scr, "per second: drop 20 (+5 not written)"));
	assert_true(screen_has(&scr, "xdpleaf events --instance t"));
	assert_true(screen_has(&scr, "keys: q quit"));

	/* --once: 10 flows, no keys line; a taller screen (resize) works */
	info.once = true;
	scr.rows = 1000;
	assert_int_equal(top_render(&scr, &v, &info), 0);
	assert_true(screen_has(&scr, "TOP FLOWS   by rate, 10 of 60"));
	assert_false(screen_has(&scr, "keys:"));
	assert_true(screen_has(&scr, "DOWN"));
	top_view_free(&v);

	/* not loaded */
	top_sample_free(&b);
	assert_int_equal(top_view_build(&v, &a, &b, TOP_SORT_RATE), 0);
	assert_int_equal(top_render(&scr, &v, &info), 0);
	assert_true(screen_has(&scr, "instance 't' is not loaded; trying again every 1000 ms"));
	assert_false(screen_has(&scr, "UPLINKS"));
	/* a read that failed before any good one: its message, not "not
	 * loaded" */
	info.error = "xdpleaf: cannot open pinned map";
	assert_int_equal(top_render(&scr, &v, &info), 0);
	assert_true(screen_has(&scr, "cannot open pinned map"));
	assert_false(screen_has(&scr, "not loaded"));
	top_view_free(&v);
	top_sample_free(&a);
	top_screen_free(&scr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_rates),
		cmocka_unit_test(test_host_rates),
		cmocka_unit_test(test_render_fits_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
