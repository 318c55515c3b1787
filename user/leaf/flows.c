// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "leaf/flows.h"
#include "base/map_walk.h"
#include "base/output.h"
#include "base/percpu.h"
#include "instance/pins.h"
#include "xdpleaf.h"
#include "telemetry.h"


struct flow_row {
	struct xl_flow key;
	struct xl_flow_state st;
	__u64 rate_bps;
};

/* Rate over the last complete window: the dataplane keeps the bytes of the
 * window in progress and of the one before; a flow silent for two windows
 * has rate 0. */
static __u64 flow_rate(const struct xl_flow_state *s, __u64 now)
{
	__u64 age = now - s->win_start_ns;

	if (now < s->win_start_ns || age < XL_FLOW_WINDOW_NS)
		return s->prev_win_bytes * 8 * 1000000000ULL / XL_FLOW_WINDOW_NS;
	if (age < 2 * XL_FLOW_WINDOW_NS)
		return s->win_bytes * 8 * 1000000000ULL / XL_FLOW_WINDOW_NS;
	return 0;
}

static int by_rate(const void *a, const void *b)
{
	const struct flow_row *x = a, *y = b;

	if (x->rate_bps != y->rate_bps)
		return x->rate_bps < y->rate_bps ? 1 : -1;
	return x->st.bytes < y->st.bytes ? 1 : x->st.bytes > y->st.bytes ? -1 : 0;
}

static void addr_str(char *buf, size_t len, const struct xl_flow *k, bool src)
{
	inet_ntop(k->family == 4 ? AF_INET : AF_INET6, src ? k->saddr : k->daddr,
		  buf, len);
}

/* ifindex -> port name, from the ports map. */
static void port_name(int ports_fd, __u32 ifindex, char *buf, size_t len)
{
	struct xl_port p;

	if (bpf_map_lookup_elem(ports_fd, &ifindex, &p) == 0)
		snprintf(buf, len, "%s", p.name);
	else
		snprintf(buf, len, "if%u", ifindex);
}

static int by_key(const void *a, const void *b)
{
	return memcmp(&((const struct flow_row *)a)->key,
		      &((const struct flow_row *)b)->key, sizeof(struct xl_flow));
}

/* What a walk of the table keeps: every flow (cap 0), or the cap busiest
 * (by_rate) in a heap whose root is the least busy kept, so that the top
 * N of a million flows takes N rows and no sort of the million. */
struct pick {
	struct flow_row *rows;
	int n, size, cap;
	bool no_memory;
	/* each row's rate: over the dataplane's window at now; or, with
	 * before (sorted by_key), the bytes sent since before was read,
	 * dt_ns earlier; or none (before's own walk) */
	enum { RATE_NONE, RATE_WINDOW, RATE_SINCE } rate;
	__u64 now, dt_ns;
	const struct flow_row *before;
	int n_before;
};

/* Whether row a is busier than row b: first by_rate. */
static bool busier(const struct flow_row *a, const struct flow_row *b)
{
	return by_rate(a, b) < 0;
}

/* The heap of the cap busiest: no parent busier than its children, so
 * the least busy is at 0, the one a busier newcomer replaces. */
static void sift_down(struct flow_row *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct flow_row t;

		if (l < n && busier(&h[m], &h[l]))
			m = l;
		if (r < n && busier(&h[m], &h[r]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(struct flow_row *h, int i)
{
	while (i > 0 && busier(&h[(i - 1) / 2], &h[i])) {
		struct flow_row t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static __u64 rate_since(const struct pick *p, const struct flow_row *r)
{
	const struct flow_row *b = bsearch(r, p->before, p->n_before, sizeof(*r), by_key);
	/* an entry evicted and re-created in between starts again */
	__u64 was = b && b->st.bytes <= r->st.bytes ? b->st.bytes : 0;

	return (r->st.bytes - was) * 8 * 1000000000ULL / p->dt_ns;
}

static void offer(const void *key, const void *value, void *ctx)
{
	struct pick *p = ctx;
	struct flow_row r;

	memcpy(&r.key, key, sizeof(r.key));
	memcpy(&r.st, value, sizeof(r.st));
	r.rate_bps = p->rate == RATE_WINDOW ? flow_rate(&r.st, p->now) :
		     p->rate == RATE_SINCE ? rate_since(p, &r) : 0;
	if (p->cap && p->n == p->cap) {
		if (busier(&r, &p->rows[0])) {
			p->rows[0] = r;
			sift_down(p->rows, p->n, 0);
		}
		return;
	}
	if (p->n == p->size) {
		int size = p->size ? 2 * p->size : 1024;
		struct flow_row *more;

		if (p->cap && size > p->cap)
			size = p->cap;
		more = realloc(p->rows, size * sizeof(*more));
		if (!more) {
			p->no_memory = true;
			return;
		}
		p->rows = more;
		p->size = size;
	}
	p->rows[p->n] = r;
	if (p->cap)
		sift_up(p->rows, p->n);
	p->n++;
}

/* Walk the table into p; the entries it has, or -1 after saying why. */
static long walk_flows(int fd, struct pick *p)
{
	long entries = xl_map_walk(fd, XL_MAP_NAME(XL_MAP_FLOWS), sizeof(struct xl_flow),
				   sizeof(struct xl_flow_state), offer, p);

	if (entries < 0)
		return -1;
	if (p->no_memory) {
		xl_err("flow table: out of memory for %d flows", p->n);
		return -1;
	}
	return entries;
}

/* The top flows (top 0: all), unsorted, and in *entries how many the
 * table has; NULL after saying why. Rates:
 * with an interval, the bytes each flow sent between two reads of the
 * table interval_ms apart (a flow that appeared in between: all its
 * bytes); without, the dataplane's last complete 10 ms window, which is 0
 * between the bursts of a flow that sends in bursts. */
static struct flow_row *read_rated(int fd, int top, unsigned interval_ms, int *n,
				   long *entries)
{
	struct pick before = { .rate = RATE_NONE };
	struct pick p = { .cap = top > 0 ? top : 0, .rate = RATE_WINDOW };
	__u64 t0 = 0;

	if (interval_ms) {
		t0 = xl_monotonic_ns();
		if (walk_flows(fd, &before) < 0) {
			free(before.rows);
			return NULL;
		}
		qsort(before.rows, before.n, sizeof(*before.rows), by_key);
		usleep(interval_ms * 1000U);
		p.rate = RATE_SINCE;
		p.before = before.rows;
		p.n_before = before.n;
	}
	p.now = xl_monotonic_ns();
	if (interval_ms)
		p.dt_ns = p.now - t0;
	*entries = walk_flows(fd, &p);
	free(before.rows);
	if (*entries < 0) {
		free(p.rows);
		return NULL;
	}
	*n = p.n;
	/* an empty table: a row array all the same */
	return p.rows ? p.rows : calloc(1, sizeof(*p.rows));
}

/* ms the flow has been on its uplink, now; -1 for an entry written by a
 * program older than placed_tick. */
static __s64 on_uplink_ms(const struct xl_flow_state *s, __u64 now)
{
	return s->placed_tick ? (__s64)(xl_placed_ns(s->placed_tick, now) / 1000000) : -1;
}

static json_object *flow_json(const struct flow_row *r, const char *src,
			      const char *dst, const char *up, int psn_fd)
{
	__s64 on_uplink = on_uplink_ms(&r->st, xl_monotonic_ns());
	json_object *o = json_object_new_object();
	struct xl_psn_state ps;

	json_object_object_add(o, "src", json_object_new_string(src));
	json_object_object_add(o, "dst", json_object_new_string(dst));
	json_object_object_add(o, "proto", json_object_new_int(r->key.proto));
	json_object_object_add(o, "sport", json_object_new_int(r->key.sport));
	json_object_object_add(o, "dport", json_object_new_int(r->key.dport));
	json_object_object_add(o, "qp", json_object_new_int64(r->key.qp));
	json_object_object_add(o, "uplink", json_object_new_string(up));
	/* since it came there: a flow that keeps moving shows it */
	if (on_uplink >= 0)
		json_object_object_add(o, "on_uplink_ms", json_object_new_int64(on_uplink));
	json_object_object_add(o, "packets", json_object_new_uint64(r->st.packets));
	json_object_object_add(o, "bytes", json_object_new_uint64(r->st.bytes));
	json_object_object_add(o, "flowlets", json_object_new_uint64(r->st.flowlets));
	json_object_object_add(o, "moves", json_object_new_uint64(r->st.moves));
	json_object_object_add(o, "moves_refused", json_object_new_uint64(r->st.moves_refused));
	/* what its next move must wait out (xl_move_safe) */
	json_object_object_add(o, "qdelay_ns", json_object_new_uint64(r->st.qdelay_ns));
	json_object_object_add(o, "rate_bps", json_object_new_uint64(r->rate_bps));
	/* what the flowlet choice expects of its next flowlet */
	json_object_object_add(o, "flowlet_rate_bps",
			       json_object_new_uint64(r->st.flowlet_rate_bps));
	/* RoCEv2: what its PSNs said at this leaf (docs/events.md) */
	if (r->key.qp && psn_fd >= 0 && !bpf_map_lookup_elem(psn_fd, &r->key, &ps)) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "gaps", json_object_new_uint64(ps.gaps));
		json_object_object_add(p, "missing", json_object_new_uint64(ps.missing));
		json_object_object_add(p, "old", json_object_new_uint64(ps.old));
		json_object_object_add(p, "naks", json_object_new_uint64(ps.naks));
		json_object_object_add(o, "psn", p);
	}
	return o;
}

/* {capacity, entries, created, evicted} of the table at fd, which a walk
 * found entries in. */
static json_object *table_json(const char *instance, int fd, long entries)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info), zero = 0;
	struct xl_leaf_counters lc = {};
	char path[256];
	json_object *o;
	int cfd;

	bpf_obj_get_info_by_fd(fd, &info, &info_len);
	/* quietly absent in an instance pinned before the counter */
	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_LEAF_COUNTERS));
	cfd = bpf_obj_get(path);
	if (cfd >= 0) {
		xl_percpu_sum_u64(cfd, &zero, sizeof(lc), &lc);
		close(cfd);
	}
	o = json_object_new_object();
	json_object_object_add(o, "capacity", json_object_new_uint64(info.max_entries));
	json_object_object_add(o, "entries", json_object_new_uint64(entries));
	if (cfd >= 0) {
		json_object_object_add(o, "created", json_object_new_uint64(lc.flows_created));
		/* every entry but a few racing CPUs' is one created and not
		 * yet evicted */
		json_object_object_add(o, "evicted", json_object_new_uint64(
			lc.flows_created > (__u64)entries ? lc.flows_created - entries : 0));
	}
	return o;
}

/* The listing as a table, or (out non-NULL) as a JSON array into *out and
 * the table's summary (xl_flow_table_json's) from the same walk into
 * *table. */
static int flows_listing(const char *instance, int top, unsigned interval_ms,
			 json_object **out, json_object **table)
{
	int fd, ports_fd, psn_fd, n = 0;
	struct flow_row *rows;
	char path[256];
	long entries;

	fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_FLOWS));
	if (fd < 0)
		return -1;
	ports_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_PORTS));
	rows = ports_fd < 0 ? NULL : read_rated(fd, top, interval_ms, &n, &entries);
	if (!rows) {
		close(fd);
		if (ports_fd >= 0)
			close(ports_fd);
		return -1;
	}
	/* quietly absent in an instance pinned before PSN tracking */
	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_PSN));
	psn_fd = bpf_obj_get(path);
	qsort(rows, n, sizeof(*rows), by_rate); /* the top ones only */
	if (out) {
		*out = json_object_new_array();
		*table = table_json(instance, fd, entries);
	} else
		printf("%-26s %-26s %5s %5s %5s %8s %-6s %11s %10s %8s %6s %7s %12s\n",
		       "src", "dst", "proto", "sport", "dport", "qp", "uplink",
		       "packets", "MB", "flowlets", "moves", "refused", "rate_Mbps");
	for (int i = 0; i < n; i++) {
		const struct flow_row *r = &rows[i];
		char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], up[XL_IFNAMSIZ + 8];

		addr_str(src, sizeof(src), &r->key, true);
		addr_str(dst, sizeof(dst), &r->key, false);
		port_name(ports_fd, r->st.uplink, up, sizeof(up));
		if (out)
			json_object_array_add(*out, flow_json(r, src, dst, up, psn_fd));
		else
			printf("%-26s %-26s %5u %5u %5u %8u %-6s %11llu %10.2f %8llu %6llu %7llu %12.1f\n",
			       src, dst, r->key.proto, r->key.sport, r->key.dport,
			       r->key.qp, up, r->st.packets, r->st.bytes / 1e6,
			       r->st.flowlets, r->st.moves, r->st.moves_refused,
			       r->rate_bps / 1e6);
	}
	free(rows);
	close(fd);
	close(ports_fd);
	if (psn_fd >= 0)
		close(psn_fd);
	return 0;
}

json_object *xl_leaf_flows_json(const char *instance, int top, unsigned interval_ms)
{
	json_object *arr = NULL, *table = NULL, *o;

	if (flows_listing(instance, top, interval_ms, &arr, &table))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "instance", json_object_new_string(instance));
	json_object_object_add(o, "rate_interval_ms", json_object_new_int(interval_ms));
	json_object_object_add(o, "flow_table", table);
	json_object_object_add(o, "flows", arr);
	return o;
}

int xl_leaf_flows(const char *instance, int top, unsigned interval_ms, bool json)
{
	json_object *o;

	if (!json)
		return flows_listing(instance, top, interval_ms, NULL, NULL);
	o = xl_leaf_flows_json(instance, top, interval_ms);
	if (!o)
		return -1;
	xl_print_json("flows", o);
	return 0;
}

static void count_one(const void *key, const void *value, void *ctx)
{
	(void)key;
	(void)value;
	(void)ctx;
}

json_object *xl_flow_table_json(const char *instance)
{
	int fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_FLOWS));
	json_object *o = NULL;
	long entries;

	if (fd < 0)
		return NULL;
	entries = xl_map_walk(fd, XL_MAP_NAME(XL_MAP_FLOWS), sizeof(struct xl_flow),
			      sizeof(struct xl_flow_state), count_one, NULL);
	if (entries >= 0)
		o = table_json(instance, fd, entries);
	close(fd);
	return o;
}
