// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests of the exporter's text (user/observe/): the exposition
 * writer (escaping, one header per family, values), the metrics table's
 * rules, and the metrics made of fixture documents shaped as stats, flows
 * and qps --json print them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "base/version.h"
#include "config/key_show.h"
#include "observe/metrics.h"
#include "observe/prom.h"

/* What f (an open_memstream) holds, closed. */
static char *take(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

static void label_values_escaped(void **state)
{
	struct xl_prom_labels l = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct xl_prom p = { .f = f };

	(void)state;
	xl_prom_label(&l, "port", "a\\b\"c\nd");
	xl_prom_family(&p, "t_x", XL_PROM_GAUGE, "help with \\ and\nnewline and \"quote\"");
	xl_prom_sample(&p, "", &l, NULL, NULL, "1");
	assert_string_equal(take(f, &buf),
		"# HELP t_x help with \\\\ and\\nnewline and \"quote\"\n"
		"# TYPE t_x gauge\n"
		"t_x{port=\"a\\\\b\\\"c\\nd\"} 1\n");
	free(buf);
}

static void header_once_and_only_with_samples(void **state)
{
	struct xl_prom_labels l = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct xl_prom p = { .f = f };

	(void)state;
	xl_prom_family(&p, "t_empty_total", XL_PROM_COUNTER, "no samples");
	xl_prom_family(&p, "t_total", XL_PROM_COUNTER, "two samples");
	xl_prom_label(&l, "a", "1");
	xl_prom_sample(&p, "", &l, NULL, NULL, "5");
	xl_prom_sample(&p, "", NULL, NULL, NULL, "6");
	xl_prom_family(&p, "t_h", XL_PROM_HISTOGRAM, "h");
	xl_prom_sample(&p, "_bucket", &l, "le", "+Inf", "7");
	assert_string_equal(take(f, &buf),
		"# HELP t_total two samples\n# TYPE t_total counter\n"
		"t_total{a=\"1\"} 5\nt_total 6\n"
		"# HELP t_h h\n# TYPE t_h histogram\n"
		"t_h_bucket{a=\"1\",le=\"+Inf\"} 7\n");
	free(buf);
}

static void values_exact(void **state)
{
	char b[XL_PROM_VALUE_MAX];

	(void)state;
	assert_string_equal(xl_prom_u64(b, ~0ULL), "18446744073709551615");
	assert_string_equal(xl_prom_u64(b, 0), "0");
	assert_string_equal(xl_prom_f64(b, 0.1), "0.1");
	assert_string_equal(xl_prom_f64(b, 2000000 * 1e-9), "0.002");
	assert_string_equal(xl_prom_f64(b, 1.0 / 3), "0.33333333333333331");
	assert_string_equal(xl_prom_f64(b, 0.0 / 0.0), "NaN");
	assert_string_equal(xl_prom_f64(b, 1.0 / 0.0), "+Inf");
	assert_string_equal(xl_prom_f64(b, -1.0 / 0.0), "-Inf");
}

static void names(void **state)
{
	const char *bad = "unset";

	(void)state;
	assert_true(xl_prom_name_ok("xdpleaf_up", 0));
	assert_true(xl_prom_name_ok("a:b", 0));
	assert_false(xl_prom_name_ok("a:b", 1));
	assert_false(xl_prom_name_ok("9a", 0));
	assert_false(xl_prom_name_ok("a-b", 0));
	assert_false(xl_prom_name_ok("", 1));
	assert_int_equal(xl_metrics_table_check(&bad), 0);
	assert_null(bad);
}

/* A leaf: one downlink with a queue (two classes), one uplink in group
 * spine, one flow; a host with its counters and one RP flow. */
static const char leaf_stats[] = "{\"instance\":\"l1\",\"mode\":\"leaf\",\"ports\":["
	"{\"name\":\"s1\",\"role\":\"downlink\",\"rx_packets\":10,\"rx_bytes\":1000,"
	" \"tx_packets\":9,\"tx_bytes\":900,"
	" \"verdicts\":{\"drop\":1,\"redirect\":9},\"reasons\":{\"forwarded\":9,\"tail_drop\":1},"
	" \"pfc\":[{\"priority\":3,\"frames\":2,\"xoff\":1,\"quanta\":100,\"storms\":0,"
	"  \"paused\":true,\"storm\":false}],"
	" \"queue\":{\"line_rate_bps\":8000,\"drain_bps\":8000,\"buffer_bytes\":100,"
	"  \"line_overhead_bytes\":24,\"length_bytes\":7,\"classes\":["
	"   {\"name\":\"default\",\"packets\":6,\"bytes\":600,\"marked\":2,\"dropped\":1,"
	"    \"peak_bytes\":90,\"hist\":[2,0,3,1],\"hist_le_bytes\":[0,1,3,null]},"
	"   {\"name\":\"we\\\"ird\",\"packets\":0,\"bytes\":0,\"marked\":0,\"dropped\":0,"
	"    \"peak_bytes\":0,\"hist\":[0,0,0,0],\"hist_le_bytes\":[0,1,3,null]}]}},"
	"{\"name\":\"u1\",\"role\":\"uplink\",\"rx_packets\":1,\"rx_bytes\":2,"
	" \"tx_packets\":3,\"tx_bytes\":4,\"rate_bps\":16,\"pending_bps\":0,"
	" \"flowlets\":5,\"moves_in\":1,\"moves_out\":2,\"moves_refused\":3,"
	" \"verdicts\":{},\"reasons\":{},\"queue\":null}],"
	"\"groups\":[{\"name\":\"spine\",\"lb_mode\":\"flowlet\",\"flowlet_timeout_ns\":2000000,"
	" \"members\":[{\"port\":\"u1\",\"capacity_bps\":80,\"up\":true}]}],"
	"\"events\":{\"drop\":{\"emitted\":3,\"limited\":1,\"ring_full\":0}},"
	"\"roce_psn\":{\"flows\":1,\"packets\":50,\"gaps\":2,\"missing\":5,\"old\":0,"
	" \"naks\":0,\"rnr_naks\":0}}";
static const char leaf_flows[] = "{\"instance\":\"l1\",\"rate_interval_ms\":0,\"flows\":["
	"{\"src\":\"10.1.1.2\",\"dst\":\"10.2.1.2\",\"proto\":17,\"sport\":49152,"
	" \"dport\":4791,\"qp\":256,\"uplink\":\"u1\",\"bytes\":5000,\"rate_bps\":800}]}";
static const char host_stats[] = "{\"instance\":\"h1\",\"mode\":\"host\",\"counters\":"
	"{\"ce_seen\":4,\"cnps_sent\":3,\"cnps_suppressed\":1,\"cnps_received\":2,"
	" \"cnps_unknown\":0,\"edt_stamped\":0,\"cnp_clone_failed\":0,"
	" \"cnp_build_failed\":0,\"rp_no_room\":0},"
	"\"events\":{\"cnp_sent\":{\"emitted\":3,\"limited\":0,\"ring_full\":0}},"
	"\"roce_psn\":null}";
static const char host_qps[] = "{\"instance\":\"h1\",\"np_total\":1,\"rp_total\":1,"
	"\"np_flows\":[],\"rp_flows\":[{\"remote\":\"10.77.0.1\",\"qp\":256,"
	" \"rc_bps\":50000000000,\"rt_bps\":100000000000,\"alpha\":1,\"cnps\":1,"
	" \"published_rate_bps\":null}]}";

static char *write_fixture(struct xl_scraped *s, int n)
{
	static char *buf;
	static size_t len;
	FILE *f = open_memstream(&buf, &len);
	json_object *read = json_tokener_parse("{\"began\":1795858431.25,\"duration\":0.5}");

	xl_metrics_write(f, s, n, read);
	fclose(f);
	json_object_put(read);
	return buf;
}

static void contains(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("missing: %s\nin:\n%s", line, text);
}

static void fixture_metrics(void **state)
{
	struct xl_scraped s[2] = {
		{ .name = "h1", .role = XL_INST_HOST, .ok = true,
		  .stats = json_tokener_parse(host_stats), .more = json_tokener_parse(host_qps) },
		{ .name = "l1", .role = XL_INST_LEAF, .ok = true,
		  .stats = json_tokener_parse(leaf_stats), .more = json_tokener_parse(leaf_flows) },
	};
	char *t, want[256];

	(void)state;
	assert_non_null(s[0].stats);
	assert_non_null(s[0].more);
	assert_non_null(s[1].stats);
	assert_non_null(s[1].more);
	t = write_fixture(s, 2);
	snprintf(want, sizeof(want), "xdpleaf_build_info{version=\"%s\",git_commit=\"%s\"} 1\n",
		 xl_version, xl_git_commit);
	contains(t, want);
	contains(t, "xdpleaf_up{instance=\"h1\",mode=\"host\"} 1\n"
		    "xdpleaf_up{instance=\"l1\",mode=\"leaf\"} 1\n");
	contains(t, "xdpleaf_port_rx_packets_total{instance=\"l1\",port=\"s1\",role=\"downlink\"} 10\n");
	contains(t, "xdpleaf_port_verdict_packets_total{instance=\"l1\",port=\"s1\",role=\"downlink\",verdict=\"drop\"} 1\n");
	contains(t, "xdpleaf_port_reason_packets_total{instance=\"l1\",port=\"s1\",role=\"downlink\",reason=\"tail_drop\"} 1\n");
	/* uplinks only, with their group; rates in bytes per second */
	contains(t, "xdpleaf_uplink_rate_bytes_per_second{instance=\"l1\",group=\"spine\",port=\"u1\"} 2\n");
	contains(t, "xdpleaf_uplink_capacity_bytes_per_second{instance=\"l1\",group=\"spine\",port=\"u1\"} 10\n");
	contains(t, "xdpleaf_uplink_up{instance=\"l1\",group=\"spine\",port=\"u1\"} 1\n");
	assert_null(strstr(t, "xdpleaf_uplink_flowlets_total{instance=\"l1\",group=\"\",port=\"s1\"}"));
	contains(t, "xdpleaf_group_info{instance=\"l1\",group=\"spine\",lb_mode=\"flowlet\"} 1\n");
	contains(t, "xdpleaf_group_flowlet_timeout_seconds{instance=\"l1\",group=\"spine\"} 0.002\n");
	contains(t, "xdpleaf_queue_length_bytes{instance=\"l1\",port=\"s1\"} 7\n");
	contains(t, "xdpleaf_queue_line_overhead_bytes{instance=\"l1\",port=\"s1\"} 24\n");
	/* no queue, no queue samples */
	assert_null(strstr(t, "xdpleaf_queue_length_bytes{instance=\"l1\",port=\"u1\"}"));
	/* cumulative buckets, the null bound is +Inf, _count is all */
	contains(t, "xdpleaf_queue_enqueue_length_bytes_bucket{instance=\"l1\",port=\"s1\",class=\"default\",le=\"0\"} 2\n"
		    "xdpleaf_queue_enqueue_length_bytes_bucket{instance=\"l1\",port=\"s1\",class=\"default\",le=\"1\"} 2\n"
		    "xdpleaf_queue_enqueue_length_bytes_bucket{instance=\"l1\",port=\"s1\",class=\"default\",le=\"3\"} 5\n"
		    "xdpleaf_queue_enqueue_length_bytes_bucket{instance=\"l1\",port=\"s1\",class=\"default\",le=\"+Inf\"} 6\n"
		    "xdpleaf_queue_enqueue_length_bytes_count{instance=\"l1\",port=\"s1\",class=\"default\"} 6\n");
	contains(t, "xdpleaf_queue_marked_packets_total{instance=\"l1\",port=\"s1\",class=\"we\\\"ird\"} 0\n");
	contains(t, "xdpleaf_flow_bytes_total{instance=\"l1\",src=\"10.1.1.2\",dst=\"10.2.1.2\",proto=\"17\","
		    "sport=\"49152\",dport=\"4791\",qp=\"256\",uplink=\"u1\"} 5000\n");
	contains(t, "xdpleaf_flow_rate_bytes_per_second{instance=\"l1\",src=\"10.1.1.2\"");
	contains(t, "xdpleaf_host_ce_seen_total{instance=\"h1\"} 4\n");
	contains(t, "xdpleaf_host_rp_no_room_total{instance=\"h1\"} 0\n");
	contains(t, "xdpleaf_rp_flows{instance=\"h1\"} 1\n");
	contains(t, "xdpleaf_rp_current_rate_bytes_per_second{instance=\"h1\",remote=\"10.77.0.1\",qp=\"256\"} 6250000000\n");
	contains(t, "xdpleaf_rp_alpha{instance=\"h1\",remote=\"10.77.0.1\",qp=\"256\"} 1\n");
	/* published_rate_bps null: not published, no sample (nor header) */
	assert_null(strstr(t, "xdpleaf_rp_published_rate"));
	/* both modes' events and PSN totals; PFC per port and priority */
	contains(t, "xdpleaf_events_total{instance=\"h1\",kind=\"cnp_sent\"} 3\n"
		    "xdpleaf_events_total{instance=\"l1\",kind=\"drop\"} 3\n");
	contains(t, "xdpleaf_events_limited_total{instance=\"l1\",kind=\"drop\"} 1\n");
	contains(t, "xdpleaf_roce_psn_gaps{instance=\"l1\"} 2\n");
	assert_null(strstr(t, "xdpleaf_roce_psn_gaps{instance=\"h1\"}")); /* null: no table */
	contains(t, "xdpleaf_pfc_frames_total{instance=\"l1\",port=\"s1\",priority=\"3\"} 2\n");
	contains(t, "xdpleaf_pfc_paused{instance=\"l1\",port=\"s1\",priority=\"3\"} 1\n");
	contains(t, "xdpleaf_pfc_storm{instance=\"l1\",port=\"s1\",priority=\"3\"} 0\n");
	/* the exporter's read: when it began and how long it took */
	contains(t, "xdpleaf_exporter_read_timestamp_seconds 1795858431.25\n");
	contains(t, "xdpleaf_exporter_read_duration_seconds 0.5\n");
	/* leaf metrics never for the host, nor host metrics for the leaf */
	assert_null(strstr(t, "xdpleaf_port_rx_packets_total{instance=\"h1\""));
	assert_null(strstr(t, "xdpleaf_host_ce_seen_total{instance=\"l1\""));
	free(t);
	for (int i = 0; i < 2; i++) {
		json_object_put(s[i].stats);
		json_object_put(s[i].more);
	}
}

/* The groups' and ports' settings come from the key table: a group and a
 * port map entry put into stats' JSON as stats --json does (xl_keys_json)
 * give a gauge per number and yes/no key, in base units, and the choice
 * keys as labels of one info family; every such key of the table has its
 * family, so a new key is exported without a row of its own. */
static void settings_from_key_table(void **state)
{
	struct xl_group g = { .lb_mode = XL_LB_SPRAY, .flowlet_timeout_ns = 50000,
			      .flowlet_auto = 1, .path_skew_ns = 25000,
			      .spray_reorder = XL_SPRAY_SAFE };
	struct xl_port p = { .role = XL_ROLE_UPLINK, .has_nexthop4 = 1,
			     .nexthop4 = { 10, 0, 0, 1 }, .line_rate_bps = 10000000000ULL,
			     .gamma_ppm = 950000, .buffer_bytes = 250000,
			     .overflow = XL_OVERFLOW_MARK, .line_overhead = 24,
			     .psn_tracking = 1 };
	json_object *stats = json_object_new_object(), *ports = json_object_new_array();
	json_object *groups = json_object_new_array(), *port = json_object_new_object();
	json_object *group = json_object_new_object();
	struct xl_scraped s = { .name = "l1", .role = XL_INST_LEAF, .ok = true, .stats = stats };
	char *t, help[128];
	int n = 0;

	(void)state;
	json_object_object_add(port, "name", json_object_new_string("u1"));
	json_object_object_add(port, "role", json_object_new_string("uplink"));
	xl_keys_json(XL_OBJ_PORT, &p, port);
	json_object_array_add(ports, port);
	json_object_object_add(group, "name", json_object_new_string("spine"));
	xl_keys_json(XL_OBJ_GROUP, &g, group);
	json_object_array_add(groups, group);
	json_object_object_add(stats, "ports", ports);
	json_object_object_add(stats, "groups", groups);
	t = write_fixture(&s, 1);
	contains(t, "xdpleaf_group_info{instance=\"l1\",group=\"spine\",lb_mode=\"spray\","
		    "spray_reorder=\"safe\"} 1\n");
	contains(t, "xdpleaf_group_flowlet_timeout_seconds{instance=\"l1\",group=\"spine\"} 5e-05\n");
	contains(t, "xdpleaf_group_path_skew_seconds{instance=\"l1\",group=\"spine\"} 2.5e-05\n");
	/* role is the scope's label already: not twice */
	contains(t, "xdpleaf_port_info{instance=\"l1\",port=\"u1\",role=\"uplink\",overflow=\"mark\"} 1\n");
	contains(t, "xdpleaf_port_line_rate_bytes_per_second{instance=\"l1\",port=\"u1\",role=\"uplink\"} 1250000000\n");
	contains(t, "xdpleaf_port_gamma_ratio{instance=\"l1\",port=\"u1\",role=\"uplink\"} 0.95\n");
	contains(t, "xdpleaf_port_buffer_bytes{instance=\"l1\",port=\"u1\",role=\"uplink\"} 250000\n");
	contains(t, "xdpleaf_port_line_overhead_bytes{instance=\"l1\",port=\"u1\",role=\"uplink\"} 24\n");
	contains(t, "xdpleaf_port_psn_tracking{instance=\"l1\",port=\"u1\",role=\"uplink\"} 1\n");
	/* every number and yes/no key of both maps has its family, with a sample */
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];

		if ((k->map != XL_OBJ_GROUP && k->map != XL_OBJ_PORT) || k->type == T_CHOICE ||
		    k->type == T_ADDR4 || k->type == T_ADDR6)
			continue;
		snprintf(help, sizeof(help), " The [%s] key %s in effect",
			 k->map == XL_OBJ_GROUP ? "group" : "port", k->name);
		contains(t, help);
		n++;
	}
	assert_true(n >= 7); /* the seven above at least */
	/* a group that does not spray has no spray_reorder label */
	free(t);
	g.lb_mode = XL_LB_FLOWLET;
	json_object_object_del(group, "spray_reorder");
	json_object_object_del(group, "lb_mode");
	xl_keys_json(XL_OBJ_GROUP, &g, group);
	t = write_fixture(&s, 1);
	contains(t, "xdpleaf_group_info{instance=\"l1\",group=\"spine\",lb_mode=\"flowlet\"} 1\n");
	free(t);
	json_object_put(stats);
}

/* Every family whole: its samples follow its one # TYPE line, none
 * elsewhere (the format's rule; Prometheus rejects a split family). */
static void families_whole(void **state)
{
	struct xl_scraped s[2] = {
		{ .name = "a", .role = XL_INST_LEAF, .ok = true,
		  .stats = json_tokener_parse(leaf_stats), .more = json_tokener_parse(leaf_flows) },
		{ .name = "b", .role = XL_INST_LEAF, .ok = true,
		  .stats = json_tokener_parse(leaf_stats), .more = json_tokener_parse(leaf_flows) },
	};
	char *t = write_fixture(s, 2), *line, *save = NULL, family[128] = "";
	char seen[8192] = " ";

	(void)state;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], key[132];

		if (sscanf(line, "# TYPE %127s", name) == 1) {
			snprintf(key, sizeof(key), " %s ", name);
			assert_null(strstr(seen, key)); /* a second # TYPE */
			strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
			snprintf(family, sizeof(family), "%s", name);
			continue;
		}
		if (line[0] == '#')
			continue;
		/* a sample: its name starts with the current family's */
		assert_int_equal(strncmp(line, family, strlen(family)), 0);
	}
	free(t);
	for (int i = 0; i < 2; i++) {
		json_object_put(s[i].stats);
		json_object_put(s[i].more);
	}
}

/* A failed read: up 0, and nothing else of that instance. */
static void failed_read(void **state)
{
	struct xl_scraped s = { .name = "gone", .role = XL_INST_LEAF, .ok = false };
	char *t = write_fixture(&s, 1);

	(void)state;
	contains(t, "xdpleaf_up{instance=\"gone\",mode=\"leaf\"} 0\n");
	assert_null(strstr(strstr(t, "instance=\"gone\"") + 1, "instance=\"gone\""));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(label_values_escaped),
		cmocka_unit_test(header_once_and_only_with_samples),
		cmocka_unit_test(values_exact),
		cmocka_unit_test(names),
		cmocka_unit_test(fixture_metrics),
		cmocka_unit_test(settings_from_key_table),
		cmocka_unit_test(families_whole),
		cmocka_unit_test(failed_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
