// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Two reads of an instance's state -> the rates `xdpleaf top` shows. */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "base/names.h"
#include "base/output.h"
#include "instance/readers.h"
#include "views/top_view.h"

int top_sample_read(struct top_sample *s, const struct xl_readers *r,
		    const char *instance)
{
	memset(s, 0, sizeof(*s));
	s->role = xl_instance_role(instance);
	if (s->role == XL_INST_ABSENT)
		return 1;
	s->t_ns = xl_monotonic_ns();
	if (s->role == XL_INST_LEAF) {
		s->stats = r->leaf_stats(instance);
		/* interval 0: no wait; top takes its own rates between frames */
		s->flows = s->stats ? r->leaf_flows(instance, 0, 0) : NULL;
	} else {
		s->stats = r->host_stats(instance);
		s->flows = s->stats ? r->host_qps(instance, 0) : NULL;
	}
	if (s->stats && s->flows)
		return 0;
	top_sample_free(s);
	/* unloaded between the mode check and the reads: not an error */
	s->role = xl_instance_role(instance);
	return s->role == XL_INST_ABSENT ? 1 : -1;
}

void top_sample_free(struct top_sample *s)
{
	json_object_put(s->stats);
	json_object_put(s->flows);
	s->stats = s->flows = NULL;
	s->role = XL_INST_ABSENT;
}

static const char *const sort_names[][TOP_SORTS] = {
	[XL_INST_LEAF] = { "rate", "moves", "flowlets" },
	[XL_INST_HOST] = { "rate", "lowest Rc", "alpha" },
};

const char *top_sort_name(enum xl_inst_role mode, enum top_sort sort)
{
	if (mode != XL_INST_LEAF && mode != XL_INST_HOST)
		return "-";
	return sort_names[mode][sort];
}

/* --- reading the readers' JSON ------------------------------------ */

/* A member by a dotted path ("verdicts.drop"), or NULL. */
static json_object *jget(json_object *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path),
			 path);
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : NULL;
	}
	return o;
}

static __u64 ju64(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v ? json_object_get_uint64(v) : 0;
}

static double jdouble(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v ? json_object_get_double(v) : 0;
}

static void jstr(char *buf, size_t len, json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	snprintf(buf, len, "%s", v && json_object_is_type(v, json_type_string) ?
		 json_object_get_string(v) : "");
}

/* An element of array arr whose `name` (or `port`) member is name. */
static json_object *find_named(json_object *arr, const char *key, const char *name)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		json_object *v = jget(e, key);

		if (v && !strcmp(json_object_get_string(v), name))
			return e;
	}
	return NULL;
}

/* The rate of a counter at path between the element before (may be NULL)
 * and now, per second. A counter that went down belongs to a reloaded
 * instance: no rate. */
static double per_s(json_object *before, json_object *now, const char *path,
		    double dt)
{
	__u64 a, b;

	if (!before || dt <= 0)
		return 0;
	a = ju64(before, path);
	b = ju64(now, path);
	return b >= a ? (b - a) / dt : 0;
}

/* --- leaf ----------------------------------------------------------- */

static bool drop_reason(int r)
{
	/* the dataplane's only XDP_DROP reasons: its queue, a failed
	 * redirect and malformed input under malformed = drop */
	return r == XL_R_TAIL_DROP || r == XL_R_REDIRECT_FAILED || r >= XL_FIRST_MALFORMED;
}

static void leaf_port(struct top_port *p, json_object *before, json_object *now,
		      double dt)
{
	json_object *q = jget(now, "queue");
	double best = 0;
	char key[64];

	jstr(p->name, sizeof(p->name), now, "name");
	jstr(p->role, sizeof(p->role), now, "role");
	p->rx_pps = per_s(before, now, "rx_packets", dt);
	p->tx_pps = per_s(before, now, "tx_packets", dt);
	p->rx_mbps = per_s(before, now, "rx_bytes", dt) * 8 / 1e6;
	p->tx_mbps = per_s(before, now, "tx_bytes", dt) * 8 / 1e6;
	p->marks_ps = per_s(before, now, "queue.marked", dt);
	p->drops_ps = per_s(before, now, "verdicts.drop", dt) +
		      per_s(before, now, "verdicts.aborted", dt);
	p->drop_reason = NULL;
	for (int r = 0; r < XL_REASON_MAX; r++) {
		double v;

		if (!drop_reason(r))
			continue;
		snprintf(key, sizeof(key), "reasons.%s", xl_reason_names[r]);
		v = per_s(before, now, key, dt);
		if (v > best) {
			best = v;
			p->drop_reason = xl_reason_names[r];
		}
	}
	p->queue_bytes = q && json_object_is_type(q, json_type_object) ?
			 (long long)ju64(q, "length_bytes") : -1;
}

/* The group member entry of an uplink, from stats' groups. */
static json_object *group_member(json_object *groups, const char *port)
{
	size_t n = groups ? json_object_array_length(groups) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *m = find_named(jget(json_object_array_get_idx(groups, i),
						 "members"), "port", port);
		if (m)
			return m;
	}
	return NULL;
}

static void leaf_uplink(struct top_uplink *u, json_object *before, json_object *now,
			json_object *groups, double dt)
{
	json_object *m;

	jstr(u->name, sizeof(u->name), now, "name");
	m = group_member(groups, u->name);
	u->tx_mbps = per_s(before, now, "tx_bytes", dt) * 8 / 1e6;
	u->capacity_bps = m ? ju64(m, "capacity_bps") : 0;
	if (!u->capacity_bps)
		u->capacity_bps = ju64(now, "queue.line_rate_bps");
	u->flowlets_ps = per_s(before, now, "flowlets", dt);
	u->moves_ps = per_s(before, now, "moves_in", dt);
	u->refused_ps = per_s(before, now, "moves_refused", dt);
	u->up = m ? json_object_get_boolean(jget(m, "up")) : -1;
}

/* Flows and QPs are matched across reads by their key as a string. */
struct keyed {
	char key[128];
	json_object *o;
};

static int keyed_cmp(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

typedef void (*key_fn)(char *buf, size_t len, json_object *o);

static void flow_key(char *buf, size_t len, json_object *o)
{
	snprintf(buf, len, "%s %s %llu %llu %llu %llu", json_object_get_string(jget(o, "src")),
		 json_object_get_string(jget(o, "dst")), ju64(o, "proto"), ju64(o, "sport"),
		 ju64(o, "dport"), ju64(o, "qp"));
}

static void qp_key(char *buf, size_t len, json_object *o)
{
	json_object *remote = jget(o, "remote");

	if (remote && json_object_is_type(remote, json_type_string))
		snprintf(buf, len, "%s %llu", json_object_get_string(remote), ju64(o, "qp"));
	else /* per-port limiter: keyed by ifindex */
		snprintf(buf, len, "port %llu", ju64(o, "ifindex"));
}

/* The entries of arr, sorted by key, for index_find. NULL arr: none. */
static struct keyed *index_build(json_object *arr, key_fn key, size_t *n)
{
	struct keyed *ix;

	*n = arr ? json_object_array_length(arr) : 0;
	ix = calloc(*n ? *n : 1, sizeof(*ix));
	if (!ix)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		ix[i].o = json_object_array_get_idx(arr, i);
		key(ix[i].key, sizeof(ix[i].key), ix[i].o);
	}
	qsort(ix, *n, sizeof(*ix), keyed_cmp);
	return ix;
}

static json_object *index_find(const struct keyed *ix, size_t n, key_fn key,
			       json_object *o)
{
	struct keyed k, *hit;

	key(k.key, sizeof(k.key), o);
	hit = bsearch(&k, ix, n, sizeof(*ix), keyed_cmp);
	return hit ? hit->o : NULL;
}

static int flow_cmp(const void *a, const void *b, void *sort)
{
	const struct top_flow *x = a, *y = b;

	switch (*(enum top_sort *)sort) {
	case TOP_SORT_SECOND:
		if (x->moves != y->moves)
			return x->moves < y->moves ? 1 : -1;
		break;
	case TOP_SORT_THIRD:
		if (x->flowlets != y->flowlets)
			return x->flowlets < y->flowlets ? 1 : -1;
		break;
	default:
		break;
	}
	return (x->mbps < y->mbps) - (x->mbps > y->mbps);
}

static int leaf_flows(struct top_view *v, json_object *before, json_object *now,
		      double dt, enum top_sort sort)
{
	json_object *arr = jget(now, "flows");
	size_t n = arr ? json_object_array_length(arr) : 0, n_ix;
	struct keyed *ix = index_build(jget(before, "flows"), flow_key, &n_ix);

	v->flows = calloc(n ? n : 1, sizeof(*v->flows));
	if (!ix || !v->flows) {
		free(ix);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct top_flow *f = &v->flows[i];

		jstr(f->src, sizeof(f->src), o, "src");
		jstr(f->dst, sizeof(f->dst), o, "dst");
		jstr(f->uplink, sizeof(f->uplink), o, "uplink");
		f->proto = (int)ju64(o, "proto");
		f->sport = (int)ju64(o, "sport");
		f->dport = (int)ju64(o, "dport");
		f->qp = (__u32)ju64(o, "qp");
		f->packets = ju64(o, "packets");
		f->flowlets = ju64(o, "flowlets");
		f->moves = ju64(o, "moves");
		f->refused = ju64(o, "moves_refused");
		f->mbps = per_s(index_find(ix, n_ix, flow_key, o), o, "bytes", dt) * 8 / 1e6;
	}
	v->n_flows = (int)n;
	qsort_r(v->flows, n, sizeof(*v->flows), flow_cmp, &sort);
	free(ix);
	return 0;
}

static int leaf_view(struct top_view *v, const struct top_sample *prev,
		     const struct top_sample *cur, enum top_sort sort)
{
	json_object *ports = jget(cur->stats, "ports");
	json_object *groups = jget(cur->stats, "groups");
	json_object *prev_ports = v->have_rates ? jget(prev->stats, "ports") : NULL;
	size_t n = ports ? json_object_array_length(ports) : 0;
	double dt = v->interval_s;

	v->ports = calloc(n ? n : 1, sizeof(*v->ports));
	v->uplinks = calloc(n ? n : 1, sizeof(*v->uplinks));
	if (!v->ports || !v->uplinks)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_object *now = json_object_array_get_idx(ports, i);
		json_object *before;
		char name[TOP_NAME_LEN];

		jstr(name, sizeof(name), now, "name");
		before = find_named(prev_ports, "name", name);
		leaf_port(&v->ports[v->n_ports++], before, now, dt);
		if (strcmp(json_object_get_string(jget(now, "role")), "uplink"))
			continue;
		leaf_uplink(&v->uplinks[v->n_uplinks], before, now, groups, dt);
		v->uplinks_tx_mbps += v->uplinks[v->n_uplinks++].tx_mbps;
	}
	for (int i = 0; i < v->n_uplinks; i++)
		v->uplinks[i].share = v->uplinks_tx_mbps > 0 ?
				      v->uplinks[i].tx_mbps / v->uplinks_tx_mbps : 0;
	return leaf_flows(v, v->have_rates ? prev->flows : NULL, cur->flows, dt, sort);
}

/* --- host ----------------------------------------------------------- */

static int rp_cmp(const void *a, const void *b, void *sort)
{
	const struct top_rp *x = a, *y = b;

	switch (*(enum top_sort *)sort) {
	case TOP_SORT_SECOND: /* most throttled first, as `xdpleaf qps` */
		return (x->rc_gbps > y->rc_gbps) - (x->rc_gbps < y->rc_gbps);
	case TOP_SORT_THIRD:
		return (x->alpha < y->alpha) - (x->alpha > y->alpha);
	default:
		return (x->send_mbps < y->send_mbps) - (x->send_mbps > y->send_mbps);
	}
}

static int np_cmp(const void *a, const void *b)
{
	const struct top_np *x = a, *y = b;

	return (x->ce_ps < y->ce_ps) - (x->ce_ps > y->ce_ps);
}

static int host_view(struct top_view *v, const struct top_sample *prev,
		     const struct top_sample *cur, enum top_sort sort)
{
	json_object *before = v->have_rates ? prev->stats : NULL;
	json_object *rp = jget(cur->flows, "rp_flows"), *np = jget(cur->flows, "np_flows");
	size_t n_rp = rp ? json_object_array_length(rp) : 0;
	size_t n_np = np ? json_object_array_length(np) : 0, n_ix;
	double dt = v->interval_s;
	struct keyed *ix;

	v->ce_ps = per_s(before, cur->stats, "counters.ce_seen", dt);
	v->cnps_sent_ps = per_s(before, cur->stats, "counters.cnps_sent", dt);
	v->cnps_suppressed_ps = per_s(before, cur->stats, "counters.cnps_suppressed", dt);
	v->cnps_received_ps = per_s(before, cur->stats, "counters.cnps_received", dt);
	v->rp = calloc(n_rp ? n_rp : 1, sizeof(*v->rp));
	v->np = calloc(n_np ? n_np : 1, sizeof(*v->np));
	if (!v->rp || !v->np)
		return -1;

	ix = index_build(v->have_rates ? jget(prev->flows, "rp_flows") : NULL, qp_key, &n_ix);
	if (!ix)
		return -1;
	for (size_t i = 0; i < n_rp; i++) {
		json_object *o = json_object_array_get_idx(rp, i);
		json_object *was = index_find(ix, n_ix, qp_key, o);
		struct top_rp *r = &v->rp[i];

		jstr(r->remote, sizeof(r->remote), o, "remote");
		jstr(r->phase, sizeof(r->phase), o, "phase");
		r->qp = (__u32)ju64(o, "qp");
		r->rc_gbps = ju64(o, "rc_bps") / 1e9;
		r->rt_gbps = ju64(o, "rt_bps") / 1e9;
		r->alpha = jdouble(o, "alpha");
		r->send_mbps = per_s(was, o, "bytes", dt) * 8 / 1e6;
		r->cnps_ps = per_s(was, o, "cnps", dt);
	}
	free(ix);
	v->n_rp = (int)n_rp;
	qsort_r(v->rp, n_rp, sizeof(*v->rp), rp_cmp, &sort);

	ix = index_build(v->have_rates ? jget(prev->flows, "np_flows") : NULL, qp_key, &n_ix);
	if (!ix)
		return -1;
	for (size_t i = 0; i < n_np; i++) {
		json_object *o = json_object_array_get_idx(np, i);
		json_object *was = index_find(ix, n_ix, qp_key, o);
		json_object *remote = jget(o, "remote");
		struct top_np *p = &v->np[i];

		if (remote && json_object_is_type(remote, json_type_string)) {
			jstr(p->remote, sizeof(p->remote), o, "remote");
			p->qp = (long long)ju64(o, "qp");
		} else {
			char port[TOP_NAME_LEN];

			jstr(port, sizeof(port), o, "port");
			snprintf(p->remote, sizeof(p->remote), "(port %s)", *port ? port : "?");
			p->qp = -1;
		}
		p->ce_ps = per_s(was, o, "ce_packets", dt);
		p->cnps_ps = per_s(was, o, "cnps_sent", dt);
	}
	free(ix);
	v->n_np = (int)n_np;
	qsort(v->np, n_np, sizeof(*v->np), np_cmp);
	return 0;
}

/* --- both ----------------------------------------------------------- */

/* The event kinds written (or kept out) in the interval, from stats'
 * `events` object: kind -> {emitted, limited, ring_full}. */
static void event_rates(struct top_view *v, json_object *before, json_object *now)
{
	json_object *ev = jget(now, "events"), *was = jget(before, "events");

	v->have_events = ev && json_object_is_type(ev, json_type_object);
	if (!v->have_events || !v->have_rates)
		return;
	json_object_object_foreach(ev, kind, counts) {
		json_object *c0 = jget(was, kind);
		struct top_event_rate *r = &v->events[v->n_events];
		double dt = v->interval_s;

		if (v->n_events == TOP_EVENT_KINDS)
			break;
		r->emitted_ps = per_s(c0, counts, "emitted", dt);
		r->dropped_ps = per_s(c0, counts, "limited", dt) +
				per_s(c0, counts, "ring_full", dt);
		if (r->emitted_ps > 0 || r->dropped_ps > 0) {
			snprintf(r->kind, sizeof(r->kind), "%s", kind);
			v->n_events++;
		}
	}
}

int top_view_build(struct top_view *v, const struct top_sample *prev,
		   const struct top_sample *cur, enum top_sort sort)
{
	int err;

	memset(v, 0, sizeof(*v));
	v->role = cur->role;
	if (v->role == XL_INST_ABSENT)
		return 0;
	v->have_rates = prev && prev->role == cur->role && cur->t_ns > prev->t_ns;
	v->interval_s = v->have_rates ? (cur->t_ns - prev->t_ns) / 1e9 : 0;
	err = v->role == XL_INST_LEAF ? leaf_view(v, prev, cur, sort) :
					host_view(v, prev, cur, sort);
	event_rates(v, v->have_rates ? prev->stats : NULL, cur->stats);
	if (err)
		top_view_free(v);
	return err;
}

void top_view_free(struct top_view *v)
{
	free(v->uplinks);
	free(v->ports);
	free(v->flows);
	free(v->rp);
	free(v->np);
	memset(v, 0, sizeof(*v));
}
