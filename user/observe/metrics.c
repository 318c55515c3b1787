// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Turning the readers' JSON objects into metric families. Each row of
 * `metrics` names one family and where its samples come from: a scope
 * (which objects of which document, and the labels that tell them apart)
 * and a field of those objects. The writer (observe/prom.c) emits a
 * family's header once, so every family is written whole: the outer loop
 * is the table, the inner one the instances. */
#include <string.h>
#include <json-c/json.h>
#include "instance/heartbeat.h"
#include "base/version.h"
#include "config/config_keys.h"
#include "observe/metrics.h"
#include "observe/prom.h"

/* Which objects a row's samples come from, with which labels. */
enum scope {
	SC_BUILD,    /* once per text */
	SC_EXPORTER, /* once per text: the exporter's read of the maps */
	SC_INSTANCE, /* each instance */
	SC_PORT,     /* leaf stats .ports[] */
	SC_UPLINK,   /* leaf stats .ports[] with role uplink */
	SC_GROUP,    /* leaf stats .groups[] */
	SC_MEMBER,   /* leaf stats .groups[].members[] */
	SC_QUEUE,    /* leaf stats .ports[].queue (ports with a rate) */
	SC_CLASS,    /* leaf stats .ports[].queue.classes[] */
	SC_FLOW,     /* leaf flows .flows[], the top N by rate */
	SC_HOST,     /* host stats .counters */
	SC_QPS,      /* host qps (root) */
	SC_RP,       /* host qps .rp_flows[], the first N */
	SC_EVENT,    /* stats .events.KIND (either mode) */
	SC_PSN,      /* stats .roce_psn (either mode) */
	SC_PFC,      /* leaf stats .ports[].pfc[], one per priority */
	SC_FLOW_TABLE, /* leaf stats .flow_table */
	SC_DAEMON,   /* stats .daemon (either mode) */
	SC_COUNT
};

static const struct {
	const char *labels; /* for docs: the labels every sample carries */
	enum xl_inst_role role; /* 0: any (build, instance) */
} scopes[SC_COUNT] = {
	[SC_BUILD] = { "version, git_commit", 0 },
	[SC_EXPORTER] = { "none", 0 },
	[SC_INSTANCE] = { "instance, mode", 0 },
	[SC_PORT] = { "instance, port, role", XL_INST_LEAF },
	[SC_UPLINK] = { "instance, group, port", XL_INST_LEAF },
	[SC_GROUP] = { "instance, group", XL_INST_LEAF },
	[SC_MEMBER] = { "instance, group, port", XL_INST_LEAF },
	[SC_QUEUE] = { "instance, port", XL_INST_LEAF },
	[SC_CLASS] = { "instance, port, class", XL_INST_LEAF },
	[SC_FLOW] = { "instance, src, dst, proto, sport, dport, qp, uplink", XL_INST_LEAF },
	[SC_HOST] = { "instance", XL_INST_HOST },
	[SC_QPS] = { "instance", XL_INST_HOST },
	[SC_RP] = { "instance, remote, qp", XL_INST_HOST },
	[SC_EVENT] = { "instance, kind", 0 },
	[SC_PSN] = { "instance", 0 },
	[SC_PFC] = { "instance, port, priority", XL_INST_LEAF },
	[SC_FLOW_TABLE] = { "instance", XL_INST_LEAF },
	[SC_DAEMON] = { "instance", 0 },
};

/* What a row makes of its field. */
enum how {
	VALUE, /* the number (a boolean is 1 or 0; missing or null: no sample) */
	KEYED, /* an object: one sample per key, the key in label `label` */
	INFO,  /* a string, into label `label`; the value is 1 */
	ONE,   /* no field: 1 (build_info) */
	UP,    /* no field: whether the instance's reads succeeded */
	HIST,  /* an array of bucket counts, their upper bounds in `label`'s
	        * field: a cumulative histogram */
	CHOICES, /* no field: 1, with a label per choice key (config/key_table.h)
		  * of the scope's map kind (setting_obj) the object has: its word */
};

struct metric {
	const char *name;
	enum xl_prom_type type;
	enum scope scope;
	enum how how;
	const char *field;
	const char *label; /* KEYED, INFO: the label; HIST: the bounds' field */
	double scale;      /* 0: the value as it is */
	const char *help;
};

#define C XL_PROM_COUNTER
#define G XL_PROM_GAUGE
#define H XL_PROM_HISTOGRAM
/* Rates are in bytes per second, the JSON's bit/s divided by 8: Prometheus
 * names base units, and promtool check metrics rejects bits. */
static const struct metric metrics[] = {
	{ "xdpleaf_build_info", G, SC_BUILD, ONE, NULL, NULL, 0,
	  "Always 1: the labels say which xdpleaf serves these metrics." },
	{ "xdpleaf_up", G, SC_INSTANCE, UP, NULL, NULL, 0,
	  "1 when every read of the instance's pinned maps in the exporter's last read "
	  "succeeded, 0 when one failed (the exporter's stderr says why). An "
	  "instance that is not loaded is not exported." },

	{ "xdpleaf_port_rx_packets_total", C, SC_PORT, VALUE, "rx_packets", NULL, 0,
	  "Packets received on the port (every one the leaf program saw)." },
	{ "xdpleaf_port_rx_bytes_total", C, SC_PORT, VALUE, "rx_bytes", NULL, 0,
	  "Bytes received on the port." },
	{ "xdpleaf_port_tx_packets_total", C, SC_PORT, VALUE, "tx_packets", NULL, 0,
	  "Packets the leaf program redirected out of the port." },
	{ "xdpleaf_port_tx_bytes_total", C, SC_PORT, VALUE, "tx_bytes", NULL, 0,
	  "Bytes the leaf program redirected out of the port." },
	{ "xdpleaf_port_verdict_packets_total", C, SC_PORT, KEYED, "verdicts", "verdict", 0,
	  "Packets received on the port by the XDP verdict they got (aborted, "
	  "drop, pass, tx, redirect); the verdicts of a port sum to its rx packets." },
	{ "xdpleaf_port_reason_packets_total", C, SC_PORT, KEYED, "reasons", "reason", 0,
	  "Packets received on the port by the reason for their verdict "
	  "(forwarded, tail_drop, no_route, arp, ...: docs/architecture.md); the "
	  "reasons of a port sum to its rx packets." },

	{ "xdpleaf_uplink_rate_bytes_per_second", G, SC_UPLINK, VALUE, "rate_bps", NULL, 0.125,
	  "The uplink's measured transmit rate, as the flowlet choice sees it." },
	{ "xdpleaf_uplink_slow_rate_bytes_per_second", G, SC_UPLINK, VALUE, "rate_slow_bps", NULL, 0.125,
	  "The uplink's transmit rate averaged over 10 ms: the sustained load "
	  "a flow's own member is judged by when a move is weighed." },
	{ "xdpleaf_uplink_held_load_bytes_per_second", G, SC_UPLINK, VALUE, "held_load_bps", NULL, 0.125,
	  "The uplink's held load: its transmit rate averaged over 100 ms, less "
	  "the flows that left it since; a move onto the uplink weighs it, so "
	  "that flows which only paused keep their room." },
	{ "xdpleaf_uplink_pending_rate_bytes_per_second", G, SC_UPLINK, VALUE, "pending_bps", NULL, 0.125,
	  "Rate of the flowlets just placed on the uplink that its measured "
	  "rate has not taken in yet." },
	{ "xdpleaf_uplink_flows", G, SC_UPLINK, VALUE, "flows", NULL, 0,
	  "Data flows the uplink counts: those that sent on it in the current "
	  "or the previous 67 ms epoch (flowlet mode); a flow that wants more "
	  "than its share moves to where fewer flows share more capacity." },
	{ "xdpleaf_uplink_flowlets_total", C, SC_UPLINK, VALUE, "flowlets", NULL, 0,
	  "Flowlets started on the uplink." },
	{ "xdpleaf_uplink_moves_in_total", C, SC_UPLINK, VALUE, "moves_in", NULL, 0,
	  "Flowlets that moved to the uplink from another member of its group." },
	{ "xdpleaf_uplink_moves_out_total", C, SC_UPLINK, VALUE, "moves_out", NULL, 0,
	  "Flowlets that moved away from the uplink." },
	{ "xdpleaf_uplink_moves_refused_total", C, SC_UPLINK, VALUE, "moves_refused", NULL, 0,
	  "Moves away from the uplink that the reorder-free rule refused." },
	{ "xdpleaf_uplink_capacity_bytes_per_second", G, SC_MEMBER, VALUE, "capacity_bps", NULL, 0.125,
	  "The uplink's capacity in its group (configured or its link speed): "
	  "the flowlet choice's weight." },
	{ "xdpleaf_uplink_up", G, SC_MEMBER, VALUE, "up", NULL, 0,
	  "1 when the group may use the uplink (link up, next hop known), 0 when "
	  "it avoids it." },
	/* the groups' and ports' settings: the families settings_rows()
	 * makes from the key table follow this table */

	{ "xdpleaf_queue_line_rate_bytes_per_second", G, SC_QUEUE, VALUE, "line_rate_bps", NULL, 0.125,
	  "The line rate the port emulates (its rate key)." },
	{ "xdpleaf_queue_drain_rate_bytes_per_second", G, SC_QUEUE, VALUE, "drain_bps", NULL, 0.125,
	  "The rate the port's phantom queue drains at: gamma times the line rate." },
	{ "xdpleaf_queue_buffer_bytes", G, SC_QUEUE, VALUE, "buffer_bytes", NULL, 0,
	  "The port's buffer: past it the phantom queue tail-drops (or marks)." },
	{ "xdpleaf_queue_line_overhead_bytes", G, SC_QUEUE, VALUE, "line_overhead_bytes", NULL, 0,
	  "Bytes each frame also takes on the port's line (its line_overhead), "
	  "counted by the phantom queue." },
	{ "xdpleaf_queue_length_bytes", G, SC_QUEUE, VALUE, "length_bytes", NULL, 0,
	  "Bytes in the port's phantom queue at the exporter's last read." },
	{ "xdpleaf_queue_guard_drain_rate_bytes_per_second", G, SC_QUEUE, VALUE, "guard_drain_bps",
	  NULL, 0.125,
	  "The rate the port's bulk guard drains at: bulk_gamma times the queue's drain rate. "
	  "Only on ports whose guard is on (a rate, bulk_gamma < 1, a latency class)." },
	{ "xdpleaf_queue_guard_mark_bytes", G, SC_QUEUE, VALUE, "guard_mark_bytes", NULL, 0,
	  "The bulk guard's threshold: above it every ECN-capable bulk packet is marked." },
	{ "xdpleaf_queue_guard_length_bytes", G, SC_QUEUE, VALUE, "guard_length_bytes", NULL, 0,
	  "Bytes in the port's bulk guard at the exporter's last read." },
	{ "xdpleaf_queue_packets_total", C, SC_CLASS, VALUE, "packets", NULL, 0,
	  "Packets of the traffic class offered to the port's phantom queue." },
	{ "xdpleaf_queue_bytes_total", C, SC_CLASS, VALUE, "bytes", NULL, 0,
	  "Bytes of the traffic class offered to the port's phantom queue." },
	{ "xdpleaf_queue_marked_packets_total", C, SC_CLASS, VALUE, "marked", NULL, 0,
	  "Packets of the class the port's queue CE-marked." },
	{ "xdpleaf_queue_dropped_packets_total", C, SC_CLASS, VALUE, "dropped", NULL, 0,
	  "Packets of the class the port's queue tail-dropped." },
	{ "xdpleaf_queue_peak_length_bytes", G, SC_CLASS, VALUE, "peak_bytes", NULL, 0,
	  "The longest queue a packet of the class met, since the instance was loaded." },
	{ "xdpleaf_queue_guard_packets_total", C, SC_CLASS, VALUE, "guard_packets", NULL, 0,
	  "Packets of the class offered to the port's bulk guard (latency classes pass it by)." },
	{ "xdpleaf_queue_guard_marked_packets_total", C, SC_CLASS, VALUE, "guard_marked", NULL, 0,
	  "Packets of the class the port's bulk guard CE-marked." },
	{ "xdpleaf_queue_guard_dropped_packets_total", C, SC_CLASS, VALUE, "guard_dropped", NULL, 0,
	  "Packets of the class the port's bulk guard dropped (its buffer full; reason tail_drop)." },
	{ "xdpleaf_queue_mark_min_bytes", G, SC_CLASS, VALUE, "kmin_bytes", NULL, 0,
	  "Kmin of the class's marking profile as the port applies it (the roce "
	  "class's fitted to the port's buffer): at or below it nothing is marked." },
	{ "xdpleaf_queue_mark_max_bytes", G, SC_CLASS, VALUE, "kmax_bytes", NULL, 0,
	  "Kmax of the class's marking profile as the port applies it: above it "
	  "every ECN-capable packet is marked." },
	{ "xdpleaf_queue_mark_max_probability", G, SC_CLASS, VALUE, "pmax", NULL, 0,
	  "Pmax of the class's marking profile: the marking probability at Kmax." },
	{ "xdpleaf_queue_enqueue_length_bytes", H, SC_CLASS, HIST, "hist", "hist_le_bytes", 0,
	  "Queue length each packet of the class met at enqueue, in log2 "
	  "buckets. No _sum: the dataplane counts the buckets, not the lengths." },

	{ "xdpleaf_flow_bytes_total", C, SC_FLOW, VALUE, "bytes", NULL, 0,
	  "Bytes of the flow through the leaf. Only the top N flows by rate are "
	  "exported (--top-flows, default 10)." },
	{ "xdpleaf_flow_rate_bytes_per_second", G, SC_FLOW, VALUE, "rate_bps", NULL, 0.125,
	  "The flow's rate over the dataplane's last complete 10 ms window. "
	  "Only the top N flows by this rate are exported (--top-flows, default "
	  "10); rate() of xdpleaf_flow_bytes_total gives averages." },

	{ "xdpleaf_host_ce_seen_total", C, SC_HOST, VALUE, "ce_seen", NULL, 0,
	  "CE-marked RoCEv2 data packets received (DCQCN NP)." },
	{ "xdpleaf_host_cnps_sent_total", C, SC_HOST, VALUE, "cnps_sent", NULL, 0,
	  "CNPs sent (NP)." },
	{ "xdpleaf_host_cnps_suppressed_total", C, SC_HOST, VALUE, "cnps_suppressed", NULL, 0,
	  "CE-marked packets within the CNP interval of the last CNP: no CNP sent." },
	{ "xdpleaf_host_cnps_received_total", C, SC_HOST, VALUE, "cnps_received", NULL, 0,
	  "CNPs received (DCQCN RP)." },
	{ "xdpleaf_host_cnps_unknown_total", C, SC_HOST, VALUE, "cnps_unknown", NULL, 0,
	  "CNPs received for no known sending flow (ignored)." },
	{ "xdpleaf_host_edt_stamped_total", C, SC_HOST, VALUE, "edt_stamped", NULL, 0,
	  "Packets given a departure time (EDT pacing) at egress." },
	{ "xdpleaf_host_cnp_clone_failed_total", C, SC_HOST, VALUE, "cnp_clone_failed", NULL, 0,
	  "CNPs not sent: bpf_clone_redirect() refused the copy." },
	{ "xdpleaf_host_cnp_build_failed_total", C, SC_HOST, VALUE, "cnp_build_failed", NULL, 0,
	  "CNPs not sent: a marked packet's copy could not become a CNP." },
	{ "xdpleaf_host_rp_no_room_total", C, SC_HOST, VALUE, "rp_no_room", NULL, 0,
	  "New sending flows that found the RP's flow table full." },
	{ "xdpleaf_host_np_not_ours_total", C, SC_HOST, VALUE, "np_not_ours", NULL, 0,
	  "CE-marked data not unicast to the host's MAC and one of its addresses: "
	  "the NP sent no CNP for it." },
	{ "xdpleaf_host_np_malformed_total", C, SC_HOST, VALUE, "np_malformed", NULL, 0,
	  "CE-marked packets whose lengths do not hold or whose opcode is no "
	  "request: the NP sent no CNP for them." },
	{ "xdpleaf_host_np_port_capped_total", C, SC_HOST, VALUE, "np_port_capped", NULL, 0,
	  "CNPs the port's cap (cnp_port_rate) held back." },
	{ "xdpleaf_host_rp_not_ours_total", C, SC_HOST, VALUE, "rp_not_ours", NULL, 0,
	  "CNPs not unicast to the host's MAC and one of its addresses: ignored." },
	{ "xdpleaf_host_rp_malformed_total", C, SC_HOST, VALUE, "rp_malformed", NULL, 0,
	  "CNPs of the wrong shape or length: ignored." },
	{ "xdpleaf_host_rp_bad_icrc_total", C, SC_HOST, VALUE, "rp_bad_icrc", NULL, 0,
	  "CNPs whose ICRC is wrong: ignored." },
	{ "xdpleaf_host_np_bad_icrc_total", C, SC_HOST, VALUE, "np_bad_icrc", NULL, 0,
	  "CE-marked packets whose ICRC is wrong: the NP sent no CNP for them." },
	{ "xdpleaf_np_flows", G, SC_QPS, VALUE, "np_total", NULL, 0,
	  "Flows (QPs, or ports with per-port CNP scope) the NP keeps state for." },
	{ "xdpleaf_rp_flows", G, SC_QPS, VALUE, "rp_total", NULL, 0,
	  "Sending flows the RP keeps DCQCN state for." },
	{ "xdpleaf_rp_published_rate_bytes_per_second", G, SC_RP, VALUE, "published_rate_bps", NULL, 0.125,
	  "The rate the RP publishes for the flow's sender to pace by. Only the "
	  "first N RP flows by Rc (most throttled first) are exported "
	  "(--top-flows, default 10)." },
	{ "xdpleaf_rp_current_rate_bytes_per_second", G, SC_RP, VALUE, "rc_bps", NULL, 0.125,
	  "DCQCN's current rate Rc of the flow, as of its last event (top N by "
	  "lowest Rc only)." },
	{ "xdpleaf_rp_target_rate_bytes_per_second", G, SC_RP, VALUE, "rt_bps", NULL, 0.125,
	  "DCQCN's target rate Rt of the flow, as of its last event (top N by "
	  "lowest Rc only)." },
	{ "xdpleaf_rp_alpha", G, SC_RP, VALUE, "alpha", NULL, 0,
	  "DCQCN's congestion estimate alpha (0..1) of the flow, as of its last "
	  "event (top N by lowest Rc only)." },
	{ "xdpleaf_rp_cnps_total", C, SC_RP, VALUE, "cnps", NULL, 0,
	  "CNPs the flow received (top N by lowest Rc only)." },

	{ "xdpleaf_flow_table_capacity", G, SC_FLOW_TABLE, VALUE, "capacity", NULL, 0,
	  "Entries the flow table holds at most (flow_table_size)." },
	{ "xdpleaf_flow_table_entries", G, SC_FLOW_TABLE, VALUE, "entries", NULL, 0,
	  "Flows in the flow table now." },
	{ "xdpleaf_flow_table_created_total", C, SC_FLOW_TABLE, VALUE, "created", NULL, 0,
	  "Flow table entries created (a flow's first packet toward an uplink group)." },
	{ "xdpleaf_flow_table_evictions_total", C, SC_FLOW_TABLE, VALUE, "evicted", NULL, 0,
	  "Flows the full table's LRU evicted for new ones (created minus entries now): "
	  "an evicted flow loses its uplink and flowlet state." },
	{ "xdpleaf_events_total", C, SC_EVENT, VALUE, "emitted", NULL, 0,
	  "Events of the kind written to the event ring (xdpleaf events, "
	  "docs/events.md)." },
	{ "xdpleaf_events_limited_total", C, SC_EVENT, VALUE, "limited", NULL, 0,
	  "Events of the kind the per-kind rate limit kept out of the ring." },
	{ "xdpleaf_events_ring_full_total", C, SC_EVENT, VALUE, "ring_full", NULL, 0,
	  "Events of the kind lost because the ring was full." },
	{ "xdpleaf_roce_psn_tracked_flows", G, SC_PSN, VALUE, "flows", NULL, 0,
	  "RoCEv2 flows the PSN table holds now." },
	{ "xdpleaf_roce_psn_packets", G, SC_PSN, VALUE, "packets", NULL, 0,
	  "RoCEv2 packets of the flows the PSN table holds now. A gauge: the sum "
	  "over the table, which forgets evicted flows." },
	{ "xdpleaf_roce_psn_gaps", G, SC_PSN, VALUE, "gaps", NULL, 0,
	  "PSN gaps (a PSN ahead of the expected one) of the flows the PSN table "
	  "holds now (a gauge, as xdpleaf_roce_psn_packets)." },
	{ "xdpleaf_roce_psn_missing_packets", G, SC_PSN, VALUE, "missing", NULL, 0,
	  "PSNs skipped by those gaps, of the flows the PSN table holds now (a gauge)." },
	{ "xdpleaf_roce_psn_old_packets", G, SC_PSN, VALUE, "old", NULL, 0,
	  "Packets behind the expected PSN (retransmissions, reordering), of the "
	  "flows the PSN table holds now (a gauge)." },
	{ "xdpleaf_roce_psn_naks", G, SC_PSN, VALUE, "naks", NULL, 0,
	  "AETH NAKs (sequence error) of the flows the PSN table holds now (a gauge)." },
	{ "xdpleaf_roce_psn_rnr_naks", G, SC_PSN, VALUE, "rnr_naks", NULL, 0,
	  "AETH RNR NAKs (receiver not ready) of the flows the PSN table holds "
	  "now (a gauge)." },
	{ "xdpleaf_pfc_frames_total", C, SC_PFC, VALUE, "frames", NULL, 0,
	  "PFC frames received on the port with the priority's enable bit set." },
	{ "xdpleaf_pfc_xoff_frames_total", C, SC_PFC, VALUE, "xoff", NULL, 0,
	  "Of those, frames asking for a pause (a non-zero pause time)." },
	{ "xdpleaf_pfc_pause_quanta_total", C, SC_PFC, VALUE, "quanta", NULL, 0,
	  "Pause quanta (512 bit times each) the priority's frames asked for." },
	{ "xdpleaf_pfc_storms_total", C, SC_PFC, VALUE, "storms", NULL, 0,
	  "PFC storms the watchdog detected on the port and priority." },
	{ "xdpleaf_pfc_paused", G, SC_PFC, VALUE, "paused", NULL, 0,
	  "1 while the port's peer asks the priority to pause, at the exporter's last read." },
	{ "xdpleaf_pfc_storm", G, SC_PFC, VALUE, "storm", NULL, 0,
	  "1 while the watchdog counts the priority's pause as a storm, at the "
	  "exporter's last read." },

	{ "xdpleaf_daemon_heartbeat_age_seconds", G, SC_DAEMON, VALUE, "heartbeat_age_seconds", NULL, 0,
	  "Seconds since the instance's daemon last wrote its heartbeat (about "
	  "once a second; since the load if none has). Past "
	  XL_HEARTBEAT_LIMIT_TEXT " the daemon is "
	  "stopped, hung or gone: neighbour, link and address changes are not "
	  "followed. As of the exporter's last read; no sample for an instance "
	  "loaded by a build without heartbeats." },

	{ "xdpleaf_exporter_read_timestamp_seconds", G, SC_EXPORTER, VALUE, "began", NULL, 0,
	  "When the exporter's last read of the maps began (Unix time): every "
	  "other sample is as the maps were then. time() minus it is their age "
	  "(docs/metrics.md, \"Freshness\")." },
	{ "xdpleaf_exporter_read_duration_seconds", G, SC_EXPORTER, VALUE, "duration", NULL, 0,
	  "How long the exporter's last read of every instance's maps took, the "
	  "walk of each flow table included." },
};
#undef C
#undef G
#undef H
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* The settings of every group and port as the dataplane holds them, one
 * family per [group] or [port] key whose value reaches the groups or ports
 * map (config/key_table.h), from the fields xl_keys_json puts into stats
 * --json's groups[] and ports[]. A number is a gauge in base units, its
 * unit from the end of its JSON name; yes/no is 1 or 0; the choice keys are
 * the labels of the scope's one info family. Made from the table once, so
 * a new key is exported, listed and checked with no row of its own. */
static const struct {
	enum xl_map_obj obj;
	enum scope scope;
	const char *prefix, *section;
} setting_maps[] = {
	{ XL_OBJ_GROUP, SC_GROUP, "xdpleaf_group_", "group" },
	{ XL_OBJ_PORT, SC_PORT, "xdpleaf_port_", "port" },
};
#define N_SETTING_MAPS (sizeof(setting_maps) / sizeof(setting_maps[0]))

static const struct {
	const char *json, *prom; /* the JSON name's end, the family's */
	double scale;
	const char *unit;
} setting_units[] = {
	{ "_ns", "_seconds", 1e-9, "in seconds" },
	{ "_bps", "_bytes_per_second", 0.125, "in bytes per second" },
	{ "_ppm", "_ratio", 1e-6, "as a fraction of 1" },
	{ "_bytes", "_bytes", 0, "in bytes" },
};

#define SETTINGS_MAX (K_COUNT + N_SETTING_MAPS)
static struct metric settings[SETTINGS_MAX];
static char setting_text[SETTINGS_MAX][2][256]; /* each row's name, help */
static size_t n_settings;

/* The family of key k, a number or yes/no: its name, scale and help. */
static void setting_row(const struct xl_key_def *k, size_t map, struct metric *m,
			char name[256], char help[256])
{
	const char *json = k->json ? k->json : k->name, *unit = NULL;
	size_t len = strlen(json);

	m->scale = 0;
	snprintf(name, 256, "%s%s", setting_maps[map].prefix, json);
	for (size_t u = 0; u < sizeof(setting_units) / sizeof(setting_units[0]); u++) {
		size_t tail = strlen(setting_units[u].json);

		if (len > tail && !strcmp(json + len - tail, setting_units[u].json)) {
			snprintf(name, 256, "%s%.*s%s", setting_maps[map].prefix,
				 (int)(len - tail), json, setting_units[u].prom);
			m->scale = setting_units[u].scale;
			unit = setting_units[u].unit;
			break;
		}
	}
	if (k->type == T_YES_NO)
		snprintf(help, 256, "The [%s] key %s in effect: 1 yes, 0 no (docs/config.md).",
			 setting_maps[map].section, k->name);
	else
		snprintf(help, 256, "The [%s] key %s in effect%s%s%s (docs/config.md).",
			 setting_maps[map].section, k->name, unit ? ", " : "", unit ? unit : "",
			 k->type == T_RATE ? "; 0 where not set" : "");
	m->name = name;
	m->type = XL_PROM_GAUGE;
	m->scope = setting_maps[map].scope;
	m->how = VALUE;
	m->field = json;
	m->help = help;
}

static void settings_rows(void)
{
	if (n_settings)
		return;
	for (size_t map = 0; map < N_SETTING_MAPS; map++) {
		struct metric *info = &settings[n_settings];
		char *info_help = setting_text[n_settings][1];
		bool first = true;
		size_t used;

		snprintf(setting_text[n_settings][0], 256, "%sinfo", setting_maps[map].prefix);
		used = (size_t)snprintf(info_help, 256, "Always 1: its labels are the [%s] keys",
					setting_maps[map].section);
		*info = (struct metric){ .name = setting_text[n_settings][0],
					 .type = XL_PROM_GAUGE, .scope = setting_maps[map].scope,
					 .how = CHOICES, .help = info_help };
		n_settings++;
		for (int i = 0; i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];

			if (k->map != setting_maps[map].obj || k->type == T_ADDR4 ||
			    k->type == T_ADDR6 || k->type == T_SPECIAL)
				continue;
			if (k->type == T_CHOICE) {
				if (used < 256)
					used += (size_t)snprintf(info_help + used, 256 - used,
								 "%s %s", first ? "" : ",",
								 k->name);
				first = false;
				continue;
			}
			setting_row(k, map, &settings[n_settings], setting_text[n_settings][0],
				    setting_text[n_settings][1]);
			n_settings++;
		}
		if (used < 256)
			snprintf(info_help + used, 256 - used, " in effect, each as its word "
				 "(docs/config.md); a key the %s's settings do not use is left out.",
				 setting_maps[map].section);
	}
}

/* The map kind whose keys a settings scope shows. */
static enum xl_map_obj setting_obj(enum scope sc)
{
	for (size_t map = 0; map < N_SETTING_MAPS; map++)
		if (setting_maps[map].scope == sc)
			return setting_maps[map].obj;
	return XL_OBJ_NONE;
}

/* Whether the scope's labels have name already: a choice key that is
 * (a port's role) is not a label of the info family twice. */
static bool scope_has_label(const struct xl_prom_labels *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return true;
	return false;
}

/* Row r of the families: the table's, then the settings'. */
static size_t n_rows(void)
{
	settings_rows();
	return N_METRICS + n_settings;
}

static const struct metric *row(size_t r)
{
	return r < N_METRICS ? &metrics[r] : &settings[r - N_METRICS];
}

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v ? json_object_get_string(v) : "";
}

/* A JSON number or boolean as a sample value; NULL for anything else. */
static const char *value_text(char buf[XL_PROM_VALUE_MAX], json_object *v, double scale)
{
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return xl_prom_u64(buf, json_object_get_boolean(v));
	case json_type_int:
		if (scale)
			return xl_prom_f64(buf, (double)json_object_get_uint64(v) * scale);
		if (json_object_get_int64(v) < 0)
			return xl_prom_f64(buf, (double)json_object_get_int64(v));
		return xl_prom_u64(buf, json_object_get_uint64(v));
	case json_type_double:
		return xl_prom_f64(buf, json_object_get_double(v) * (scale ? scale : 1));
	default:
		return NULL;
	}
}

/* A histogram's samples: counts per bucket in `hist`, each bucket's upper
 * bound in `le` (null: none). Prometheus' buckets are cumulative and end
 * with +Inf, whose count is _count. */
static void write_hist(struct xl_prom *p, const struct xl_prom_labels *l,
		       json_object *hist, json_object *le)
{
	char val[XL_PROM_VALUE_MAX], bound[XL_PROM_VALUE_MAX];
	size_t n = json_object_array_length(hist);
	__u64 sum = 0;

	for (size_t b = 0; b < n; b++) {
		json_object *e = le ? json_object_array_get_idx(le, b) : NULL;

		sum += json_object_get_uint64(json_object_array_get_idx(hist, b));
		if (!e)
			break; /* the last bucket: no bound */
		xl_prom_sample(p, "_bucket", l, "le", xl_prom_u64(bound, json_object_get_uint64(e)),
			       xl_prom_u64(val, sum));
	}
	/* +Inf always, also when the bounds end without a null */
	xl_prom_sample(p, "_bucket", l, "le", "+Inf", xl_prom_u64(val, sum));
	xl_prom_sample(p, "_count", l, NULL, NULL, xl_prom_u64(val, sum));
}

/* One object's samples for one row. */
static void emit(struct xl_prom *p, const struct metric *m, json_object *o,
		 const struct xl_prom_labels *l)
{
	char val[XL_PROM_VALUE_MAX];
	json_object *v = m->field ? field(o, m->field) : NULL;
	struct xl_prom_labels more;
	const char *t;

	switch (m->how) {
	case VALUE:
		if (v && (t = value_text(val, v, m->scale)))
			xl_prom_sample(p, "", l, NULL, NULL, t);
		break;
	case KEYED:
		if (!json_object_is_type(v, json_type_object))
			break;
		json_object_object_foreach(v, key, kv)
			if ((t = value_text(val, kv, m->scale)))
				xl_prom_sample(p, "", l, m->label, key, t);
		break;
	case INFO:
		if (v) {
			more = *l;
			xl_prom_label(&more, m->label, json_object_get_string(v));
			xl_prom_sample(p, "", &more, NULL, NULL, "1");
		}
		break;
	case HIST:
		if (json_object_is_type(v, json_type_array))
			write_hist(p, l, v, field(o, m->label));
		break;
	case CHOICES:
		more = *l;
		for (int i = 0; i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];
			const char *name = k->json ? k->json : k->name;

			if (k->map == setting_obj(m->scope) && k->type == T_CHOICE && field(o, name) &&
			    !scope_has_label(l, name))
				xl_prom_label(&more, name, str(o, name));
		}
		if (o)
			xl_prom_sample(p, "", &more, NULL, NULL, "1");
		break;
	case ONE:
	case UP:
		break; /* written by their scopes */
	}
}

static json_object *array(json_object *o, const char *key)
{
	json_object *a = field(o, key);

	return json_object_is_type(a, json_type_array) ? a : NULL;
}

#define FOR_EACH(a, i, e) \
	for (size_t i = 0, n_##i = (a) ? json_object_array_length(a) : 0; \
	     i < n_##i && ((e) = json_object_array_get_idx(a, i)); i++)

/* The group whose members list the uplink, "" if none does. */
static const char *uplink_group(json_object *stats, const char *port)
{
	json_object *g, *m;

	FOR_EACH(array(stats, "groups"), i, g)
		FOR_EACH(array(g, "members"), j, m)
			if (!strcmp(str(m, "port"), port))
				return str(g, "name");
	return "";
}

/* One row's samples from one instance: the scope's objects, each with its
 * labels. */
static void write_instance(struct xl_prom *p, const struct metric *m,
			   const struct xl_scraped *s)
{
	struct xl_prom_labels base = { 0 }, l;
	json_object *e, *f, *c;

	xl_prom_label(&base, "instance", s->name);
	switch (m->scope) {
	case SC_BUILD:
	case SC_EXPORTER:
	case SC_COUNT:
		break;
	case SC_INSTANCE:
		xl_prom_label(&base, "mode", s->role == XL_INST_HOST ? "host" : "leaf");
		xl_prom_sample(p, "", &base, NULL, NULL, s->ok ? "1" : "0");
		break;
	case SC_PORT:
		FOR_EACH(array(s->stats, "ports"), i, e) {
			l = base;
			xl_prom_label(&l, "port", str(e, "name"));
			xl_prom_label(&l, "role", str(e, "role"));
			emit(p, m, e, &l);
		}
		break;
	case SC_UPLINK:
		FOR_EACH(array(s->stats, "ports"), i, e) {
			if (strcmp(str(e, "role"), "uplink"))
				continue;
			l = base;
			xl_prom_label(&l, "group", uplink_group(s->stats, str(e, "name")));
			xl_prom_label(&l, "port", str(e, "name"));
			emit(p, m, e, &l);
		}
		break;
	case SC_GROUP:
		FOR_EACH(array(s->stats, "groups"), i, e) {
			l = base;
			xl_prom_label(&l, "group", str(e, "name"));
			emit(p, m, e, &l);
		}
		break;
	case SC_MEMBER:
		FOR_EACH(array(s->stats, "groups"), i, e)
			FOR_EACH(array(e, "members"), j, f) {
				l = base;
				xl_prom_label(&l, "group", str(e, "name"));
				xl_prom_label(&l, "port", str(f, "port"));
				emit(p, m, f, &l);
			}
		break;
	case SC_QUEUE:
	case SC_CLASS:
		FOR_EACH(array(s->stats, "ports"), i, e) {
			json_object *q = field(e, "queue");

			if (!json_object_is_type(q, json_type_object))
				continue; /* a port without a rate has no queue */
			l = base;
			xl_prom_label(&l, "port", str(e, "name"));
			if (m->scope == SC_QUEUE) {
				emit(p, m, q, &l);
				continue;
			}
			FOR_EACH(array(q, "classes"), j, c) {
				struct xl_prom_labels lc = l;

				xl_prom_label(&lc, "class", str(c, "name"));
				emit(p, m, c, &lc);
			}
		}
		break;
	case SC_FLOW:
		FOR_EACH(array(s->more, "flows"), i, e) {
			static const char *const keys[] = { "src", "dst", "proto", "sport",
							    "dport", "qp", "uplink" };

			l = base;
			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				xl_prom_label(&l, keys[k], str(e, keys[k]));
			emit(p, m, e, &l);
		}
		break;
	case SC_HOST:
		emit(p, m, field(s->stats, "counters"), &base);
		break;
	case SC_QPS:
		emit(p, m, s->more, &base);
		break;
	case SC_RP:
		FOR_EACH(array(s->more, "rp_flows"), i, e) {
			l = base;
			xl_prom_label(&l, "remote", str(e, "remote"));
			xl_prom_label(&l, "qp", str(e, "qp"));
			emit(p, m, e, &l);
		}
		break;
	case SC_EVENT:
		f = field(s->stats, "events");
		if (!json_object_is_type(f, json_type_object))
			break; /* pinned by a version without events */
		json_object_object_foreach(f, kind, counts) {
			l = base;
			xl_prom_label(&l, "kind", kind);
			emit(p, m, counts, &l);
		}
		break;
	case SC_PSN:
		emit(p, m, field(s->stats, "roce_psn"), &base);
		break;
	case SC_FLOW_TABLE:
		emit(p, m, field(s->stats, "flow_table"), &base);
		break;
	case SC_DAEMON:
		emit(p, m, field(s->stats, "daemon"), &base);
		break;
	case SC_PFC:
		FOR_EACH(array(s->stats, "ports"), i, e)
			FOR_EACH(array(e, "pfc"), j, c) {
				l = base;
				xl_prom_label(&l, "port", str(e, "name"));
				xl_prom_label(&l, "priority", str(c, "priority"));
				emit(p, m, c, &l);
			}
		break;
	}
}

void xl_metrics_write(FILE *f, const struct xl_scraped *inst, int n, json_object *read)
{
	struct xl_prom p = { .f = f };

	for (size_t r = 0; r < n_rows(); r++) {
		const struct metric *m = row(r);

		xl_prom_family(&p, m->name, m->type, m->help);
		if (m->scope == SC_BUILD) {
			struct xl_prom_labels l = { 0 };

			xl_prom_label(&l, "version", xl_version);
			xl_prom_label(&l, "git_commit", xl_git_commit);
			xl_prom_sample(&p, "", &l, NULL, NULL, "1");
			continue;
		}
		if (m->scope == SC_EXPORTER) {
			struct xl_prom_labels none = { 0 };

			emit(&p, m, read, &none);
			continue;
		}
		for (int i = 0; i < n; i++) {
			enum xl_inst_role want = scopes[m->scope].role;

			if (want && want != inst[i].role)
				continue;
			/* a failed read leaves its document NULL: no samples */
			write_instance(&p, m, &inst[i]);
		}
	}
}

/* Whether name is one of the ", "-separated words of list. */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *w = list; w; w = strstr(w, ", ") ? strstr(w, ", ") + 2 : NULL)
		if (!strncmp(w, name, len) && (w[len] == ',' || !w[len]))
			return true;
	return false;
}

void xl_metrics_list(FILE *f)
{
	for (size_t r = 0; r < n_rows(); r++) {
		const struct metric *m = row(r);

		fprintf(f, "| `%s` | %s | %s%s%s%s", m->name,
			xl_prom_type_name(m->type), scopes[m->scope].labels,
			m->how == KEYED || m->how == INFO ? ", " : "",
			m->how == KEYED || m->how == INFO ? m->label : "",
			m->how == HIST ? ", le" : "");
		for (int i = 0; m->how == CHOICES && i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];
			const char *name = k->json ? k->json : k->name;

			if (k->map == setting_obj(m->scope) && k->type == T_CHOICE &&
			    !listed(scopes[m->scope].labels, name))
				fprintf(f, ", %s", name);
		}
		fprintf(f, " | %s |\n", m->help);
	}
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

int xl_metrics_table_check(const char **bad)
{
	for (size_t r = 0; r < n_rows(); r++) {
		const struct metric *m = row(r);
		bool needs_field = m->how != ONE && m->how != UP && m->how != CHOICES;

		*bad = m->name;
		if (!xl_prom_name_ok(m->name, 0) || strncmp(m->name, "xdpleaf_", 8) ||
		    (m->type == XL_PROM_COUNTER) != ends_with(m->name, "_total") ||
		    (needs_field && !m->field) || !m->help || !*m->help ||
		    ((m->how == KEYED || m->how == INFO) && !xl_prom_name_ok(m->label, 1)) ||
		    (m->how == HIST) != (m->type == XL_PROM_HISTOGRAM))
			return -1;
		for (size_t o = 0; o < r; o++)
			if (!strcmp(row(o)->name, m->name))
				return -1;
	}
	*bad = NULL;
	return 0;
}
