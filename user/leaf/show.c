// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pin_names.h"
#include "instance/tcx_link.h"
#include "base/names.h"
#include "config/key_show.h"
#include "base/percpu.h"
#include "instance/pins.h"
#include "leaf/queue_report.h"
#include "lb.h"
#include <time.h>
#include "leaf/show.h"
#include "leaf/flows.h"
#include "base/output.h"
#include "instance/status.h"
#include "base/version.h"
#include "instance/daemon.h"
#include "instance/heartbeat.h"
#include "instance/map_memory.h"
#include "xdpleaf.h"
#include "telemetry.h"
#include "instance/telemetry_json.h"


/* All ports of the instance, ordered by counter slot. */
struct port_list {
	struct xl_port p[XL_MAX_PORTS];
	int n;
};

static int by_slot(const void *a, const void *b)
{
	return (int)((const struct xl_port *)a)->slot -
	       (int)((const struct xl_port *)b)->slot;
}

static int read_ports(const char *instance, struct port_list *pl)
{
	int fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_PORTS));
	__u32 key, next;
	void *prev = NULL;

	if (fd < 0)
		return -1;
	pl->n = 0;
	while (pl->n < XL_MAX_PORTS &&
	       bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &pl->p[pl->n]) == 0)
			pl->n++;
	}
	close(fd);
	qsort(pl->p, pl->n, sizeof(pl->p[0]), by_slot);
	return 0;
}

static void fmt_mac(char *buf, const __u8 *m)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		m[4], m[5]);
}

/* Sum one port slot's per-CPU counters. */
static int read_port_stats(int fd, __u32 slot, struct xl_port_stats *sum)
{
	return xl_percpu_sum(fd, &slot, sizeof(*sum), XL_PORT_STATS_COUNTERS, sum);
}

/* An uplink's measured rate, its slow (10 ms) average, its pending rate
 * (flowlets placed, not yet measured) and its held load as the dataplane
 * would see them now: all decay while no sample is taken (include/lb.h). */
static void uplink_rate_now(int rates_fd, __u32 slot, __u64 *rate,
			    __u64 *slow, __u64 *pending, __u64 *held)
{
	struct xl_uplink_rate r = {};
	__u64 now, idle;

	*rate = *slow = *pending = *held = 0;
	if (rates_fd < 0 || bpf_map_lookup_elem(rates_fd, &slot, &r))
		return;
	if (!r.sample_ns) {
		*pending = r.pending_bps;
		return;
	}
	now = xl_monotonic_ns();
	idle = now > r.sample_ns ? now - r.sample_ns : 0;
	*rate = xl_rate_now(r.rate_bps, idle, XL_RATE_TAU_NS);
	*slow = xl_rate_now(r.rate_slow_bps, idle, XL_RATE_SLOW_TAU_NS);
	*pending = xl_rate_now(r.pending_bps, idle, XL_RATE_TAU_NS);
	*held = xl_rate_now(r.held_bps, idle, XL_HELD_LOAD_TAU_NS);
}

/* Data flows the uplink counts now (include/lb.h, "flow counts"): the
 * larger of this epoch's and the last one's, as the dataplane reads it. */
static __u32 uplink_flows_now(int flows_fd, __u32 slot)
{
	struct xl_member_flows mf = {};

	if (flows_fd < 0 || bpf_map_lookup_elem(flows_fd, &slot, &mf))
		return 0;
	return xl_member_flows_now(mf.epoch, mf.flows, xl_flow_epoch(xl_monotonic_ns()));
}

/* A group's latency_dscp (the DSCPs of latency classes) as a JSON array
 * into o, and with text as "; latency DSCPs 18,20" on stdout (nothing
 * without one). */
static void latency_dscp_out(const struct xl_group *g, json_object *o, bool text)
{
	json_object *arr = json_object_new_array();

	for (int d = 0; d < 64; d++) {
		if (!(g->latency_dscp >> d & 1))
			continue;
		json_object_array_add(arr, json_object_new_int(d));
		if (text)
			printf("%s%d", json_object_array_length(arr) == 1 ? "; latency DSCPs " : ",",
			       d);
	}
	json_object_object_add(o, "latency_dscp", arr);
}

/* Groups: their settings, members with capacity and link state. */
static json_object *groups_json(const char *instance, const struct port_list *pl)
{
	int gfd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUPS));
	int dfd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUP_DOWN));
	json_object *arr = json_object_new_array();

	for (__u32 id = 0; gfd >= 0 && dfd >= 0 && id < XL_MAX_GROUPS; id++) {
		struct xl_group g;
		struct xl_group_down down = {};
		json_object *o, *members;

		if (bpf_map_lookup_elem(gfd, &id, &g) || !g.n_members)
			continue;
		bpf_map_lookup_elem(dfd, &id, &down);
		o = json_object_new_object();
		members = json_object_new_array();
		json_object_object_add(o, "name", json_object_new_string(g.name));
		xl_keys_json(XL_OBJ_GROUP, &g, o); /* the [group] keys' values */
		latency_dscp_out(&g, o, false);
		for (__u32 i = 0; i < g.n_members && i < XL_MAX_GROUP_MEMBERS; i++) {
			json_object *m = json_object_new_object();
			const char *name = "?";

			for (int k = 0; k < pl->n; k++)
				if (pl->p[k].ifindex == g.members[i])
					name = pl->p[k].name;
			json_object_object_add(m, "port", json_object_new_string(name));
			json_object_object_add(m, "capacity_bps", json_object_new_uint64(g.capacity_bps[i]));
			/* the reorder-free rule's margin for a move here */
			json_object_object_add(m, "skew_ns", json_object_new_uint64(g.skew_ns[i]));
			/* up: usable for some family; per family as chosen */
			json_object_object_add(m, "up", json_object_new_boolean(
				!(down.v4 & down.v6 & (1U << i))));
			json_object_object_add(m, "up_ipv4", json_object_new_boolean(!(down.v4 & (1U << i))));
			json_object_object_add(m, "up_ipv6", json_object_new_boolean(!(down.v6 & (1U << i))));
			json_object_array_add(members, m);
		}
		json_object_object_add(o, "members", members);
		json_object_array_add(arr, o);
	}
	if (gfd >= 0)
		close(gfd);
	if (dfd >= 0)
		close(dfd);
	return arr;
}

/* One port's counters (and its queue) as stats --json shows them. */
static json_object *port_json(const struct xl_port *p, const struct xl_port_stats *s,
			      int rates_fd, int flows_fd, struct xl_queue_reader *qr)
{
	json_object *o = json_object_new_object();
	json_object *v = json_object_new_object();
	json_object *r = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(p->name));
	json_object_object_add(o, "ifindex", json_object_new_int64(p->ifindex));
	json_object_object_add(o, "role", json_object_new_string(xl_role_name(p->role)));
	json_object_object_add(o, "rx_packets", json_object_new_uint64(s->rx_packets));
	json_object_object_add(o, "rx_bytes", json_object_new_uint64(s->rx_bytes));
	json_object_object_add(o, "tx_packets", json_object_new_uint64(s->tx_packets));
	json_object_object_add(o, "tx_bytes", json_object_new_uint64(s->tx_bytes));
	if (p->role == XL_ROLE_UPLINK) {
		__u64 rate, slow, pending, held;

		uplink_rate_now(rates_fd, p->slot, &rate, &slow, &pending, &held);
		json_object_object_add(o, "rate_bps", json_object_new_uint64(rate));
		json_object_object_add(o, "rate_slow_bps", json_object_new_uint64(slow));
		json_object_object_add(o, "pending_bps", json_object_new_uint64(pending));
		json_object_object_add(o, "held_load_bps", json_object_new_uint64(held));
		json_object_object_add(o, "flows", json_object_new_uint64(
			uplink_flows_now(flows_fd, p->slot)));
		json_object_object_add(o, "flowlets", json_object_new_uint64(s->flowlets));
		json_object_object_add(o, "moves_in", json_object_new_uint64(s->moves_in));
		json_object_object_add(o, "moves_out", json_object_new_uint64(s->moves_out));
		json_object_object_add(o, "moves_refused", json_object_new_uint64(s->moves_refused));
	}
	for (int k = 0; k < XL_VERDICT_MAX; k++)
		json_object_object_add(v, xl_verdict_names[k], json_object_new_uint64(
			*xl_verdict_counter((struct xl_verdict_counts *)&s->verdict, k)));
	for (int k = 0; k < XL_REASON_MAX; k++)
		json_object_object_add(r, xl_reason_names[k], json_object_new_uint64(
			*xl_reason_counter((struct xl_reason_counts *)&s->reason, k)));
	json_object_object_add(o, "verdicts", v);
	json_object_object_add(o, "reasons", r);
	xl_keys_json(XL_OBJ_PORT, p, o); /* the [port] keys' values */
	json_object_object_add(o, "queue", xl_queue_json(qr, p));
	return o;
}

struct stats_maps;
static json_object *pfc_json(const struct stats_maps *m, __u32 slot);

static void flow_table_print(const char *instance)
{
	json_object *o = xl_flow_table_json(instance);

	if (!o)
		return;
	printf("flow table: %llu of %llu entries; %llu created, %llu evicted\n",
	       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "entries")),
	       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "capacity")),
	       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "created")),
	       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "evicted")));
	json_object_put(o);
}

/* A port's PFC line, for the priorities that saw frames. */
static void pfc_print(const struct stats_maps *m, __u32 slot)
{
	json_object *arr = pfc_json(m, slot);

	for (size_t p = 0; p < json_object_array_length(arr); p++) {
		json_object *o = json_object_array_get_idx(arr, p);
		__u64 frames = json_object_get_uint64(json_object_object_get(o, "frames"));

		if (frames)
			printf("  pfc: priority %zu frames %llu xoff %llu storms %llu%s\n", p,
			       (unsigned long long)frames,
			       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "xoff")),
			       (unsigned long long)json_object_get_uint64(json_object_object_get(o, "storms")),
			       json_object_get_boolean(json_object_object_get(o, "storm")) ?
				       " STORM NOW" : "");
	}
	json_object_put(arr);
}

/* The maps stats reads, opened together. */
struct stats_maps {
	struct port_list pl;
	int stats_fd, rates_fd, flows_fd, pfc_fd, pfc_counts_fd;
	struct xl_queue_reader *qr;
};

/* A port's PFC counters per priority (bpf/pfc.h): frames, pauses asked
 * (xoff), quanta, storms, and whether it is paused now. */
static json_object *pfc_json(const struct stats_maps *m, __u32 slot)
{
	json_object *arr = json_object_new_array();
	__u64 now = xl_monotonic_ns();

	for (__u32 p = 0; p < XL_PFC_PRIORITIES; p++) {
		__u32 key = slot * XL_PFC_PRIORITIES + p;
		struct xl_pfc_counts c = {};
		struct xl_pfc_state s = {};
		json_object *o = json_object_new_object();

		if (m->pfc_counts_fd >= 0)
			xl_percpu_sum_u64(m->pfc_counts_fd, &key, sizeof(c), &c);
		if (m->pfc_fd >= 0)
			bpf_map_lookup_elem(m->pfc_fd, &key, &s);
		json_object_object_add(o, "priority", json_object_new_int(p));
		json_object_object_add(o, "frames", json_object_new_uint64(c.frames));
		json_object_object_add(o, "xoff", json_object_new_uint64(c.xoff));
		json_object_object_add(o, "quanta", json_object_new_uint64(c.quanta));
		json_object_object_add(o, "storms", json_object_new_uint64(s.storms));
		json_object_object_add(o, "paused", json_object_new_boolean(
			s.pause_start_ns && s.paused_until_ns > now));
		json_object_object_add(o, "storm", json_object_new_boolean(
			s.storm && s.paused_until_ns > now));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int stats_open(const char *instance, struct stats_maps *m)
{
	char path[256];

	if (read_ports(instance, &m->pl))
		return -1;
	m->stats_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_PORT_STATS));
	if (m->stats_fd < 0)
		return -1;
	m->qr = xl_queue_reader_open(instance);
	if (!m->qr) {
		close(m->stats_fd);
		return -1;
	}
	m->rates_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_UPLINK_RATES));
	/* quietly absent in an instance pinned before flow counting and
	 * before PFC counting */
	m->flows_fd = bpf_obj_get((xl_pin_path(path, sizeof(path), instance,
					       XL_MAP_NAME(XL_MAP_MEMBER_FLOWS)), path));
	m->pfc_fd = bpf_obj_get((xl_pin_path(path, sizeof(path), instance,
					     XL_MAP_NAME(XL_MAP_PFC_STATE)), path));
	m->pfc_counts_fd = bpf_obj_get((xl_pin_path(path, sizeof(path), instance,
						    XL_MAP_NAME(XL_MAP_PFC_COUNTS)), path));
	return 0;
}

static void stats_close(struct stats_maps *m)
{
	xl_queue_reader_close(m->qr);
	close(m->stats_fd);
	if (m->rates_fd >= 0)
		close(m->rates_fd);
	if (m->flows_fd >= 0)
		close(m->flows_fd);
	if (m->pfc_fd >= 0)
		close(m->pfc_fd);
	if (m->pfc_counts_fd >= 0)
		close(m->pfc_counts_fd);
}

static json_object *stats_json(const char *instance, bool flow_table)
{
	json_object *root, *arr;
	struct stats_maps m;

	if (stats_open(instance, &m))
		return NULL;
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "instance", json_object_new_string(instance));
	json_object_object_add(root, "mode", json_object_new_string("leaf"));
	for (int i = 0; i < m.pl.n; i++) {
		struct xl_port_stats s;

		json_object *o;

		if (read_port_stats(m.stats_fd, m.pl.p[i].slot, &s))
			continue;
		o = port_json(&m.pl.p[i], &s, m.rates_fd, m.flows_fd, m.qr);
		json_object_object_add(o, "pfc", pfc_json(&m, m.pl.p[i].slot));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "ports", arr);
	json_object_object_add(root, "groups", groups_json(instance, &m.pl));
	if (flow_table)
		json_object_object_add(root, "flow_table", xl_flow_table_json(instance));
	json_object_object_add(root, "events", xl_event_counts_json(instance));
	json_object_object_add(root, "roce_psn", xl_psn_totals_json(instance));
	json_object_object_add(root, "daemon", xl_daemon_json(instance));
	stats_close(&m);
	return root;
}

json_object *xl_leaf_stats_json(const char *instance)
{
	return stats_json(instance, true);
}

json_object *xl_leaf_stats_no_flow_table_json(const char *instance)
{
	return stats_json(instance, false);
}

int xl_leaf_stats(const char *instance, bool json)
{
	struct stats_maps m;

	if (json) {
		json_object *o = xl_leaf_stats_json(instance);

		if (!o)
			return -1;
		xl_print_json("stats", o);
		return 0;
	}
	if (stats_open(instance, &m))
		return -1;
	printf("%-8s %-8s %12s %14s %12s %14s %10s %10s %8s  %s\n",
	       "port", "role", "rx_pkts", "rx_bytes", "tx_pkts",
	       "tx_bytes", "redirect", "pass", "drop", "pass/drop reasons");
	for (int i = 0; i < m.pl.n; i++) {
		const struct xl_port *p = &m.pl.p[i];
		struct xl_port_stats s;

		if (read_port_stats(m.stats_fd, p->slot, &s))
			continue;
		printf("%-8s %-8s %12llu %14llu %12llu %14llu %10llu %10llu %8llu ",
		       p->name, xl_role_name(p->role), s.rx_packets, s.rx_bytes,
		       s.tx_packets, s.tx_bytes, s.verdict.redirect, s.verdict.pass,
		       s.verdict.drop + s.verdict.aborted);
		for (int k = 1; k < XL_REASON_MAX; k++)
			if (*xl_reason_counter(&s.reason, k))
				printf(" %s=%llu", xl_reason_names[k],
				       *xl_reason_counter(&s.reason, k));
		printf("\n");
		if (p->role == XL_ROLE_UPLINK) {
			__u64 rate, slow, pending, held;

			uplink_rate_now(m.rates_fd, p->slot, &rate, &slow, &pending, &held);
			printf("  uplink: rate now %.1f Mbit/s (+%.1f pending; %.1f over 10 ms; "
			       "held %.1f), flows %u, flowlets %llu, moved in %llu, moved out "
			       "%llu, moves refused %llu\n",
			       rate / 1e6, pending / 1e6, slow / 1e6, held / 1e6,
			       uplink_flows_now(m.flows_fd, p->slot), s.flowlets,
			       s.moves_in, s.moves_out, s.moves_refused);
		}
		xl_queue_print(m.qr, p);
		pfc_print(&m, p->slot);
	}
	stats_close(&m);
	flow_table_print(instance);
	xl_telemetry_print(instance);
	return 0;
}

/* A route's target by name: the port's, or the group's as in the config
 * (and stats); "?" for one the maps do not know. */
static const char *route_target(const struct xl_route *r,
				const struct port_list *pl, int groups_fd,
				struct xl_group *g)
{
	if (r->kind == XL_ROUTE_GROUP)
		return bpf_map_lookup_elem(groups_fd, &r->target, g) ? "?" : g->name;
	for (int i = 0; i < pl->n; i++)
		if (pl->p[i].ifindex == r->target)
			return pl->p[i].name;
	return "?";
}

static void add_route(json_object *arr, const char *prefix,
		      const struct xl_route *r, const struct port_list *pl,
		      int groups_fd)
{
	bool group = r->kind == XL_ROUTE_GROUP;
	struct xl_group g;
	const char *target = route_target(r, pl, groups_fd, &g);

	if (!arr) {
		printf("%-44s %s %s\n", prefix, group ? "group" : "port", target);
		return;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "prefix", json_object_new_string(prefix));
	json_object_object_add(o, "kind", json_object_new_string(group ? "group" : "port"));
	json_object_object_add(o, "target", json_object_new_string(target));
	/* the map's key: group id, or the port's ifindex */
	json_object_object_add(o, group ? "group_id" : "ifindex",
			       json_object_new_int64(r->target));
	json_object_array_add(arr, o);
}

/* Walk one LPM trie; family decides the key layout. */
static int walk_routes(const char *instance, const char *map, int family,
		       json_object *arr, const struct port_list *pl,
		       int groups_fd)
{
	int fd = xl_open_pinned_map(instance, map);
	struct xl_lpm6_key key, next; /* large enough for both layouts */
	void *prev = NULL;

	if (fd < 0)
		return -1;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		char addr[INET6_ADDRSTRLEN], prefix[64];
		struct xl_route r;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &r))
			continue;
		inet_ntop(family, key.addr, addr, sizeof(addr));
		snprintf(prefix, sizeof(prefix), "%s/%u", addr, key.prefixlen);
		add_route(arr, prefix, &r, pl, groups_fd);
	}
	close(fd);
	return 0;
}

int xl_leaf_routes(const char *instance, bool json)
{
	json_object *arr = NULL;
	struct port_list pl;
	int err, groups_fd;

	if (read_ports(instance, &pl))
		return -1;
	groups_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUPS));
	if (groups_fd < 0)
		return -1;
	if (json)
		arr = json_object_new_array();
	else
		printf("%-44s %s\n", "prefix", "target");
	err = walk_routes(instance, XL_MAP_NAME(XL_MAP_ROUTES4), AF_INET, arr, &pl, groups_fd);
	err |= walk_routes(instance, XL_MAP_NAME(XL_MAP_ROUTES6), AF_INET6, arr, &pl, groups_fd);
	close(groups_fd);
	if (json)
		xl_print_json("routes", arr);
	return err;
}

static const char *port_name(const struct port_list *pl, __u32 ifindex)
{
	for (int i = 0; i < pl->n; i++)
		if (pl->p[i].ifindex == ifindex)
			return pl->p[i].name;
	return "?";
}

int xl_leaf_neigh(const char *instance, bool json)
{
	struct xl_neigh_key key, next;
	json_object *arr = NULL;
	struct port_list pl;
	void *prev = NULL;
	int fd;

	if (read_ports(instance, &pl))
		return -1;
	fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_NEIGH));
	if (fd < 0)
		return -1;
	if (json)
		arr = json_object_new_array();
	else
		printf("%-8s %-40s %s\n", "port", "address", "mac");
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		char addr[INET6_ADDRSTRLEN], mac[18];
		struct xl_neigh n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n))
			continue;
		inet_ntop(key.family, key.addr, addr, sizeof(addr));
		fmt_mac(mac, n.mac);
		if (!json) {
			printf("%-8s %-40s %s\n", port_name(&pl, key.ifindex), addr, mac);
			continue;
		}
		json_object *o = json_object_new_object();
		json_object_object_add(o, "port", json_object_new_string(port_name(&pl, key.ifindex)));
		json_object_object_add(o, "address", json_object_new_string(addr));
		json_object_object_add(o, "mac", json_object_new_string(mac));
		json_object_array_add(arr, o);
	}
	close(fd);
	if (json)
		xl_print_json("neigh", arr);
	return 0;
}

/* The XDP program attached to an interface right now, 0 if none. */
static __u32 attached_prog(__u32 ifindex)
{
	__u32 id = 0;

	bpf_xdp_query_id(ifindex, 0, &id);
	return id;
}

/* How a port runs the instance's program `prog_id`: "attached", "OTHER
 * PROGRAM" or "DETACHED"; at XDP by what the interface has, at tc by the
 * port's pinned tcx link (others may share the hook). */
static const char *port_state(const char *instance, const struct xl_port *p,
			      bool tc, __u32 prog_id)
{
	struct xl_tcx_state t;
	__u32 cur;

	if (!tc) {
		cur = attached_prog(p->ifindex);
		return !cur ? "DETACHED" : cur == prog_id ? "attached" : "OTHER PROGRAM";
	}
	xl_tcx_link_read(instance, XL_PIN_LINK_TCX_IN, p->name, &t);
	if (!t.pinned || t.ifindex != p->ifindex || t.attach_type != XL_TCX_INGRESS)
		return "DETACHED";
	return t.prog_id && t.prog_id == prog_id ? "attached" : "OTHER PROGRAM";
}

/* The groups' settings as status shows them (the [group] keys, from the
 * groups map; the DSCPs of latency classes, latency_dscp) and their member
 * ports: into arr and, with text, a line each on stdout. */
static void status_groups(const char *instance, const struct port_list *pl,
			  json_object *arr, bool text)
{
	int fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUPS));
	char line[512];

	for (__u32 id = 0; fd >= 0 && id < XL_MAX_GROUPS; id++) {
		struct xl_group g;
		json_object *o, *members;

		if (bpf_map_lookup_elem(fd, &id, &g) || !g.n_members)
			continue;
		o = json_object_new_object();
		members = json_object_new_array();
		json_object_object_add(o, "name", json_object_new_string(g.name));
		xl_keys_json(XL_OBJ_GROUP, &g, o);
		xl_keys_text(XL_OBJ_GROUP, &g, line, sizeof(line));
		if (text)
			printf("group %s: %s", g.name, line);
		latency_dscp_out(&g, o, text);
		if (text)
			printf("; members");
		for (__u32 i = 0; i < g.n_members && i < XL_MAX_GROUP_MEMBERS; i++) {
			const char *name = port_name(pl, g.members[i]);

			json_object_array_add(members, json_object_new_string(name));
			if (text)
				printf(" %s", name);
		}
		if (text)
			printf("\n");
		json_object_object_add(o, "members", members);
		json_object_array_add(arr, o);
	}
	if (fd >= 0)
		close(fd);
}

/* What status --json says in both modes about xdpleaf itself and, when
 * the instance recorded it, who loaded it and where. */
int xl_leaf_status(const char *instance, bool json)
{
	char path[256];
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	struct port_list pl;
	json_object *root, *ports, *groups;
	struct xl_daemon_health dh;
	int prog_fd;
	bool tc;

	if (read_ports(instance, &pl))
		return -1;
	tc = xl_tcx_ingress_pinned(instance);
	xl_pin_path(path, sizeof(path), instance, tc ? XL_PIN_PROG_LEAF_TC : XL_PIN_PROG_LEAF);
	prog_fd = bpf_obj_get(path);
	if (prog_fd >= 0) {
		bpf_obj_get_info_by_fd(prog_fd, &info, &info_len);
		close(prog_fd);
	}
	xl_daemon_health(instance, &dh);
	root = json_object_new_object();
	ports = json_object_new_array();
	json_object_object_add(root, "instance", json_object_new_string(instance));
	json_object_object_add(root, "loaded", json_object_new_boolean(1));
	xl_status_json_about(root, instance);
	json_object_object_add(root, "pin_dir", json_object_new_string(
		(xl_pin_path(path, sizeof(path), instance, NULL), path)));
	json_object_object_add(root, "hook", json_object_new_string(tc ? "tc" : "xdp"));
	json_object_object_add(root, "prog_id", json_object_new_int64(info.id));
	json_object_object_add(root, "daemon_pid", json_object_new_int64(dh.pid));
	json_object_object_add(root, "daemon", xl_daemon_health_json(&dh));
	json_object_object_add(root, "memory", xl_map_memory_json(instance));
	for (int i = 0; i < pl.n; i++) {
		json_object *o = json_object_new_object();
		const char *state = port_state(instance, &pl.p[i], tc, info.id);

		json_object_object_add(o, "name", json_object_new_string(pl.p[i].name));
		json_object_object_add(o, "ifindex", json_object_new_int64(pl.p[i].ifindex));
		json_object_object_add(o, "role", json_object_new_string(xl_role_name(pl.p[i].role)));
		json_object_object_add(o, "attached",
				       json_object_new_boolean(!strcmp(state, "attached")));
		xl_keys_json(XL_OBJ_PORT, &pl.p[i], o); /* the [port] keys' values */
		json_object_array_add(ports, o);
	}
	json_object_object_add(root, "ports", ports);
	if (json) {
		groups = json_object_new_array();
		status_groups(instance, &pl, groups, false);
		json_object_object_add(root, "groups", groups);
		xl_print_json("status", root);
		return xl_daemon_health_exit(&dh);
	}
	printf("instance %s: loaded, pins in %s\n", instance, path);
	printf("program id %u, daemon ", info.id);
	xl_daemon_health_print(stdout, &dh);
	printf("\n");
	xl_map_memory_print(stdout, instance, 3);
	printf("%-8s %-8s %-8s %s\n", "port", "ifindex", "role", tc ? "tc" : "xdp");
	for (int i = 0; i < pl.n; i++)
		printf("%-8s %-8u %-8s %s\n", pl.p[i].name, pl.p[i].ifindex,
		       xl_role_name(pl.p[i].role), port_state(instance, &pl.p[i], tc, info.id));
	groups = json_object_new_array();
	status_groups(instance, &pl, groups, true);
	json_object_put(groups);
	json_object_put(root);
	return xl_daemon_health_exit(&dh);
}
