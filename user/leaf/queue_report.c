// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pin_names.h"
#include "instance/pins.h"
#include "leaf/queue_report.h"
#include "base/output.h"

struct xl_queue_reader {
	int queues_fd, classes_fd, stats_fd;
	/* the bulk guards' maps; -1 in an instance of a build without them */
	int guards_fd, gstats_fd;
	int ncpu;
	struct xl_class classes[XL_MAX_CLASSES];
	int n_classes;
};


struct xl_queue_reader *xl_queue_reader_open(const char *instance)
{
	struct xl_queue_reader *r = calloc(1, sizeof(*r));
	char path[256];

	if (!r)
		return NULL;
	r->queues_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_QUEUES));
	r->classes_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_CLASSES));
	r->stats_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_QUEUE_STATS));
	/* quietly absent in an instance pinned before the bulk guard */
	r->guards_fd = bpf_obj_get((xl_pin_path(path, sizeof(path), instance,
						XL_MAP_NAME(XL_MAP_GUARDS)), path));
	r->gstats_fd = bpf_obj_get((xl_pin_path(path, sizeof(path), instance,
						XL_MAP_NAME(XL_MAP_GUARD_STATS)), path));
	r->ncpu = libbpf_num_possible_cpus();
	if (r->queues_fd < 0 || r->classes_fd < 0 || r->stats_fd < 0 ||
	    r->ncpu <= 0) {
		xl_queue_reader_close(r);
		return NULL;
	}
	for (__u32 id = 0; id < XL_MAX_CLASSES; id++) {
		if (bpf_map_lookup_elem(r->classes_fd, &id, &r->classes[id]) ||
		    !r->classes[id].name[0])
			break;
		r->n_classes = id + 1;
	}
	return r;
}

void xl_queue_reader_close(struct xl_queue_reader *r)
{
	if (!r)
		return;
	if (r->queues_fd >= 0)
		close(r->queues_fd);
	if (r->classes_fd >= 0)
		close(r->classes_fd);
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	if (r->guards_fd >= 0)
		close(r->guards_fd);
	if (r->gstats_fd >= 0)
		close(r->gstats_fd);
	free(r);
}

static int read_class(struct xl_queue_reader *r, __u32 slot, __u32 cls,
		      struct xl_queue_stats *sum)
{
	__u32 key = slot * XL_MAX_CLASSES + cls;
	struct xl_queue_stats *percpu = calloc(r->ncpu, sizeof(*percpu));

	memset(sum, 0, sizeof(*sum));
	if (!percpu || bpf_map_lookup_elem(r->stats_fd, &key, percpu)) {
		free(percpu);
		return -1;
	}
	for (int c = 0; c < r->ncpu; c++) {
		const struct xl_queue_stats *s = &percpu[c];

		sum->enq_packets += s->enq_packets;
		sum->enq_bytes += s->enq_bytes;
		sum->marked += s->marked;
		sum->dropped += s->dropped;
		if (s->peak_bytes > sum->peak_bytes)
			sum->peak_bytes = s->peak_bytes;
		for (int b = 0; b < XL_QHIST_BUCKETS; b++)
			sum->hist[b] += s->hist[b];
	}
	memcpy(sum->port, percpu[0].port, sizeof(sum->port));
	memcpy(sum->class_name, percpu[0].class_name, sizeof(sum->class_name));
	free(percpu);
	return 0;
}

/* The port's bulk guard, if it is on: its entry, and bytes in it now. */
static bool read_guard(struct xl_queue_reader *r, const struct xl_port *p, struct xl_guard *g,
		       __u64 *now_bytes)
{
	if (!p->bulk_guard || r->guards_fd < 0 ||
	    bpf_map_lookup_elem(r->guards_fd, &p->slot, g) || !g->drain_bps)
		return false;
	*now_bytes = xl_backlog(g->vtime, xl_vt_now(xl_monotonic_ns()), g->drain_bps);
	return true;
}

/* The guard's counters of (slot, class), summed over CPUs (peak: max). */
static int read_guard_class(struct xl_queue_reader *r, __u32 slot, __u32 cls,
			    struct xl_guard_stats *sum)
{
	__u32 key = slot * XL_MAX_CLASSES + cls;
	struct xl_guard_stats *percpu = calloc(r->ncpu, sizeof(*percpu));

	memset(sum, 0, sizeof(*sum));
	if (!percpu || r->gstats_fd < 0 || bpf_map_lookup_elem(r->gstats_fd, &key, percpu)) {
		free(percpu);
		return -1;
	}
	for (int c = 0; c < r->ncpu; c++) {
		sum->packets += percpu[c].packets;
		sum->marked += percpu[c].marked;
		sum->dropped += percpu[c].dropped;
		if (percpu[c].peak_bytes > sum->peak_bytes)
			sum->peak_bytes = percpu[c].peak_bytes;
	}
	free(percpu);
	return 0;
}

/* Bytes queued right now: the dataplane's clock is CLOCK_MONOTONIC. */
static __u64 queue_now(struct xl_queue_reader *r, const struct xl_port *p)
{
	struct xl_queue q = {};
	__u64 now = xl_monotonic_ns();

	if (bpf_map_lookup_elem(r->queues_fd, &p->slot, &q))
		return 0;
	return xl_backlog(q.vtime, xl_vt_now(now), p->drain_bps);
}

static const char *overflow_name(__u32 o)
{
	return o == XL_OVERFLOW_MARK ? "mark" : "drop";
}

/* A class's marking profile as this port applies it: a profile to be
 * fitted (the built-in roce class's) is worked out for the port's buffer,
 * as the dataplane does per packet (xl_queue_decide), so what is shown is
 * what marks. *fitted: the thresholds differ from the configured ones. */
static struct xl_wred port_profile(const struct xl_class *c, const struct xl_port *p,
				   bool *fitted)
{
	struct xl_wred w = xl_wred_fit(&c->wred, p->buffer_bytes);

	*fitted = w.kmin != c->wred.kmin || w.kmax != c->wred.kmax;
	return w;
}

static double pmax_percent(__u32 pmax)
{
	return 100.0 * pmax / XL_PROB_ONE;
}

static void profile_json(json_object *co, const struct xl_class *c, const struct xl_port *p)
{
	bool fitted;
	struct xl_wred w = port_profile(c, p, &fitted);

	json_object_object_add(co, "kmin_bytes", json_object_new_uint64(w.kmin));
	json_object_object_add(co, "kmax_bytes", json_object_new_uint64(w.kmax));
	json_object_object_add(co, "pmax", json_object_new_double(pmax_percent(w.pmax) / 100));
	json_object_object_add(co, "fitted", json_object_new_boolean(fitted));
	json_object_object_add(co, "marks", json_object_new_boolean(!(w.flags & XL_CLASS_NO_MARK)));
	json_object_object_add(co, "drops", json_object_new_boolean(!(w.flags & XL_CLASS_NO_DROP)));
	json_object_object_add(co, "latency", json_object_new_boolean(!!(w.flags & XL_CLASS_LATENCY)));
}

static void profile_print(const struct xl_class *c, const struct xl_port *p)
{
	bool fitted;
	struct xl_wred w = port_profile(c, p, &fitted);

	if (w.flags & XL_CLASS_NO_MARK)
		printf("never marked%s", w.flags & XL_CLASS_NO_DROP ? ", never dropped" : "");
	else
		printf("marks %u..%u bytes, up to %.2f%%%s", w.kmin, w.kmax, pmax_percent(w.pmax),
		       fitted ? " (fitted to the buffer)" : "");
	if (w.flags & XL_CLASS_LATENCY)
		printf(", latency class");
}

/* Lower bound of histogram bucket b in bytes (bucket 0 holds q = 0). */
static __u64 bucket_low(int b)
{
	return b == 0 ? 0 : 1ULL << (b - 1);
}

json_object *xl_queue_json(struct xl_queue_reader *r, const struct xl_port *p)
{
	json_object *o, *classes, *total_hist;
	struct xl_queue_stats total = {};
	struct xl_guard g;
	__u64 g_now = 0;
	bool guard;

	if (!p->drain_bps)
		return NULL;
	guard = read_guard(r, p, &g, &g_now);
	o = json_object_new_object();
	classes = json_object_new_array();
	json_object_object_add(o, "line_rate_bps", json_object_new_uint64(p->line_rate_bps));
	json_object_object_add(o, "gamma", json_object_new_double(p->gamma_ppm / 1e6));
	json_object_object_add(o, "drain_bps", json_object_new_uint64(p->drain_bps));
	json_object_object_add(o, "buffer_bytes", json_object_new_uint64(p->buffer_bytes));
	json_object_object_add(o, "overflow", json_object_new_string(overflow_name(p->overflow)));
	json_object_object_add(o, "line_overhead_bytes", json_object_new_uint64(p->line_overhead));
	json_object_object_add(o, "length_bytes", json_object_new_uint64(queue_now(r, p)));
	if (guard) { /* only where it is on (docs/ecn.md, "The bulk guard") */
		json_object_object_add(o, "guard_gamma", json_object_new_double(g.gamma_ppm / 1e6));
		json_object_object_add(o, "guard_drain_bps", json_object_new_uint64(g.drain_bps));
		json_object_object_add(o, "guard_mark_bytes", json_object_new_uint64(g.mark_bytes));
		json_object_object_add(o, "guard_length_bytes", json_object_new_uint64(g_now));
	}
	for (int c = 0; c < r->n_classes; c++) {
		struct xl_queue_stats s;
		struct xl_guard_stats gs;
		json_object *co, *hist;

		if (read_class(r, p->slot, c, &s))
			continue;
		co = json_object_new_object();
		hist = json_object_new_array();
		json_object_object_add(co, "name", json_object_new_string(r->classes[c].name));
		profile_json(co, &r->classes[c], p);
		json_object_object_add(co, "packets", json_object_new_uint64(s.enq_packets));
		json_object_object_add(co, "bytes", json_object_new_uint64(s.enq_bytes));
		json_object_object_add(co, "marked", json_object_new_uint64(s.marked));
		json_object_object_add(co, "dropped", json_object_new_uint64(s.dropped));
		json_object_object_add(co, "peak_bytes", json_object_new_uint64(s.peak_bytes));
		for (int b = 0; b < XL_QHIST_BUCKETS; b++)
			json_object_array_add(hist, json_object_new_uint64(s.hist[b]));
		json_object_object_add(co, "hist", hist);
		json_object_object_add(co, "hist_le_bytes", xl_json_hist_le(XL_QHIST_BUCKETS));
		if (guard && !read_guard_class(r, p->slot, c, &gs)) {
			json_object_object_add(co, "guard_packets", json_object_new_uint64(gs.packets));
			json_object_object_add(co, "guard_marked", json_object_new_uint64(gs.marked));
			json_object_object_add(co, "guard_dropped", json_object_new_uint64(gs.dropped));
			json_object_object_add(co, "guard_peak_bytes",
					       json_object_new_uint64(gs.peak_bytes));
		}
		json_object_array_add(classes, co);
		total.enq_packets += s.enq_packets;
		total.marked += s.marked;
		total.dropped += s.dropped;
		if (s.peak_bytes > total.peak_bytes)
			total.peak_bytes = s.peak_bytes;
		for (int b = 0; b < XL_QHIST_BUCKETS; b++)
			total.hist[b] += s.hist[b];
	}
	total_hist = json_object_new_array();
	for (int b = 0; b < XL_QHIST_BUCKETS; b++)
		json_object_array_add(total_hist, json_object_new_uint64(total.hist[b]));
	json_object_object_add(o, "packets", json_object_new_uint64(total.enq_packets));
	json_object_object_add(o, "marked", json_object_new_uint64(total.marked));
	json_object_object_add(o, "dropped", json_object_new_uint64(total.dropped));
	json_object_object_add(o, "peak_bytes", json_object_new_uint64(total.peak_bytes));
	/* hist[0]: empty queue; hist[b]: [2^(b-1), 2^b) bytes; last: and up */
	json_object_object_add(o, "hist", total_hist);
	json_object_object_add(o, "hist_le_bytes", xl_json_hist_le(XL_QHIST_BUCKETS));
	json_object_object_add(o, "classes", classes);
	return o;
}

static void print_rate(char *buf, size_t len, __u64 bps)
{
	if (bps >= 1000000000ULL)
		snprintf(buf, len, "%.3gG", bps / 1e9);
	else
		snprintf(buf, len, "%.3gM", bps / 1e6);
}

void xl_queue_print(struct xl_queue_reader *r, const struct xl_port *p)
{
	struct xl_guard g;
	__u64 g_now = 0;
	char rate[16];
	bool guard;

	if (!p->drain_bps)
		return;
	guard = read_guard(r, p, &g, &g_now);
	print_rate(rate, sizeof(rate), p->line_rate_bps);
	printf("  queue: rate %s gamma %.2f buffer %u overflow %s line overhead %u, "
	       "now %llu bytes\n", rate, p->gamma_ppm / 1e6, p->buffer_bytes,
	       overflow_name(p->overflow), p->line_overhead, queue_now(r, p));
	if (guard) {
		print_rate(rate, sizeof(rate), g.drain_bps);
		printf("  bulk guard: bulk_gamma %.2f drain %s, marks above %u bytes, "
		       "now %llu bytes\n", g.gamma_ppm / 1e6, rate, g.mark_bytes, g_now);
	}
	for (int c = 0; c < r->n_classes; c++) {
		struct xl_guard_stats gs;
		struct xl_queue_stats s;

		if (read_class(r, p->slot, c, &s))
			continue;
		printf("    class %-8s ", r->classes[c].name);
		profile_print(&r->classes[c], p);
		printf("\n");
		if (!s.enq_packets)
			continue;
		printf("      packets %llu marked %llu (%.2f%%) dropped %llu "
		       "(%.2f%%) peak %llu bytes\n",
		       s.enq_packets, s.marked, 100.0 * s.marked / s.enq_packets,
		       s.dropped, 100.0 * s.dropped / s.enq_packets, s.peak_bytes);
		printf("      queue at enqueue:");
		for (int b = 0; b < XL_QHIST_BUCKETS; b++)
			if (s.hist[b])
				printf(" >=%llu:%llu", bucket_low(b), s.hist[b]);
		printf("\n");
		if (guard && !read_guard_class(r, p->slot, c, &gs) && gs.packets)
			printf("      guard: packets %llu marked %llu (%.2f%%) dropped %llu "
			       "(%.2f%%) peak %llu bytes\n", gs.packets, gs.marked,
			       100.0 * gs.marked / gs.packets, gs.dropped,
			       100.0 * gs.dropped / gs.packets, gs.peak_bytes);
	}
}
