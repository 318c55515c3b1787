/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The congestion point: offer a packet to its egress port's phantom queue,
 * decide mark / pass / drop with the class's WRED profile (include/ecn.h),
 * and count it; on a port with a bulk guard, the guard's queue first. */
#ifndef XL_QUEUE_H
#define XL_QUEUE_H

#include "ecn.h"
#include "maps.h"
#include "parse.h"

#define XL_CAS_TRIES 4
/* A fresh load each time round the loop, never a cached one. */
#define XL_READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))

static __always_inline void count_queue(__u32 slot, __u32 cls, __u64 q,
					__u64 len, int d)
{
	__u32 key = slot * XL_MAX_CLASSES + cls;
	struct xl_queue_stats *qs = bpf_map_lookup_elem(&queue_stats, &key);
	__u32 b = xl_qhist_bucket(q);

	if (!qs)
		return;
	qs->enq_packets++;
	qs->enq_bytes += len;
	if (d & XL_Q_MARK)
		qs->marked++;
	if (d & XL_Q_DROP)
		qs->dropped++;
	if (q > qs->peak_bytes)
		qs->peak_bytes = q; /* per CPU: readers take the max */
	if (b < XL_QHIST_BUCKETS)
		qs->hist[b]++;
}

/* Offer a packet of wire bytes to one virtual queue: the word *vtime,
 * draining at drain_bps (a port's queue, or its bulk guard). Returns
 * XL_Q_* bits, decided by the class's profile w (guard: the guard's step
 * at mark_bytes, xl_guard_decide, a constant at each call); *q_seen: the
 * backlog the decision found. Both CPUs may run this for one port at
 * once: the queue is one word moved by compare-and-swap, and the decision
 * is taken again from the fresh value when another CPU got there first,
 * so no byte is lost or counted twice. After XL_CAS_TRIES lost races
 * (another CPU enqueued each time, so the queue is busy and its vtime
 * lies ahead of now) the packet's time is added atomically, which is the
 * same update for a non-empty queue.
 *
 * now_ns: the clock the packet's program read already (0: none). The
 * first round decides with it, saving a clock read. That clock is older
 * than the queue word, which may hold another CPU's later enqueue, so the
 * queue it sees is at most the program's run time too long: a plain
 * enqueue found with it is what a fresh clock finds too (marks and drops
 * only grow with the queue), and anything else is decided again on a
 * fresh clock. A queue that was empty starts its busy period up to that
 * run time early (tens of ns), once per busy period. The guard's call
 * (guard, a constant) returns in *now_ns the clock it last used: older
 * than any queue word read after, so the port's queue may take it the
 * same way. */
static __always_inline int vq_offer(__u64 *vtime, __u64 drain_bps, const struct xl_port *out,
				    const struct xl_wred *w, int guard, __u32 mark_bytes, int ect,
				    __u64 wire, __u64 *now_ns, __u64 *q_seen)
{
	int d = XL_Q_ENQUEUE, i, done = 0, drawn = 0, stale = *now_ns != 0;
	int mark_only = out->overflow == XL_OVERFLOW_MARK;
	__u64 old = 0, q = 0, now, ns = *now_ns;
	__u32 rnd = 0;

	/* one round more: a stale clock's round that decided nothing */
	for (i = 0; i < XL_CAS_TRIES + 1 && !done; i++) {
		/* A fresh clock is read after the queue word: a clock
		 * read before it would see another CPU's later enqueue as
		 * queue (above). */
		old = XL_READ_ONCE(*vtime);
		if (!stale)
			ns = bpf_ktime_get_ns();
		now = xl_vt_now(ns);
		q = xl_backlog(old, now, drain_bps);
		/* a random number only where WRED can use one: an empty
		 * queue marks with probability 0, the guard's step never */
		if (!guard && q && !drawn) {
			rnd = bpf_get_prandom_u32();
			drawn = 1;
		}
		d = guard ? xl_guard_decide(q, wire, out->buffer_bytes, mark_bytes, w->flags, ect,
					    mark_only) :
			    xl_queue_decide(q, wire, out->buffer_bytes, w, ect, mark_only, rnd);
		if (stale && d != XL_Q_ENQUEUE) {
			stale = 0;
			continue;
		}
		stale = 0;
		if (!(d & XL_Q_ENQUEUE))
			done = 1;
		else if (__sync_val_compare_and_swap(vtime, old,
				xl_vt_enqueue(old, now, wire, drain_bps)) == old)
			done = 1;
	}
	if (!done) /* lost every race: the queue is busy */
		__sync_fetch_and_add(vtime, xl_vt_of_bytes(wire, drain_bps));
	*q_seen = q;
	if (guard)
		*now_ns = ns;
	return d;
}

/* The port's bulk guard for a packet of class cls_id (include/ecn.h):
 * XL_Q_* bits, counted per (slot, class). 0 for a latency class, which
 * passes the guard by, and when the guard has no entry or no rate (the
 * loader's fill under way). A function of its own, so that a port
 * without a guard pays one test of a byte and not for the registers the
 * guard's code needs. */
static __noinline int bulk_guard(const struct xl_port *out, __u32 cls_id, int ect, __u64 wire,
				 __u64 *now_ns)
{
	__u32 slot = out->slot, key = slot * XL_MAX_CLASSES + cls_id;
	struct xl_guard *g = bpf_map_lookup_elem(&guards, &slot);
	struct xl_class *cls = bpf_map_lookup_elem(&classes, &cls_id);
	struct xl_guard_stats *gs;
	__u64 drain, q = 0;
	int d;

	if (!g || !cls || (cls->wred.flags & XL_CLASS_LATENCY))
		return 0;
	drain = XL_READ_ONCE(g->drain_bps); /* one value: reload may write it */
	if (!drain)
		return 0;
	d = vq_offer(&g->vtime, drain, out, &cls->wred, 1, g->mark_bytes, ect, wire, now_ns, &q);
	gs = bpf_map_lookup_elem(&guard_stats, &key);
	if (gs) {
		gs->packets++;
		if (d & XL_Q_MARK)
			gs->marked++;
		if (d & XL_Q_DROP)
			gs->dropped++;
		if (q > gs->peak_bytes)
			gs->peak_bytes = q; /* per CPU: readers take the max */
	}
	return d;
}

/* Returns XL_Q_* bits for a packet of len bytes, DSCP dscp and ECN field
 * ecn leaving through out (now_ns: as vq_offer's). A global function,
 * verified on its own. On a port whose bulk guard is on, a packet of a
 * class that is no latency class goes through the guard first: one the
 * guard drops never reaches the port's queue, a guard's mark is the
 * packet's whatever the queue decides, and the clock the guard read is
 * the queue's too (one clock read per packet, as without a guard). */
__noinline int xl_phantom_queue(const struct xl_port *out, __u32 dscp,
				__u32 ecn, __u64 len, __u64 now_ns)
{
	__u32 slot, cls_id = XL_CLASS_DEFAULT;
	int d, g = 0, ect = ecn != XL_ECN_NOT_ECT;
	struct xl_queue *queue;
	struct xl_class *cls;
	__u64 wire, q = 0;
	__u32 *id;

	if (!out)
		return XL_Q_ENQUEUE;
	slot = out->slot;
	/* the queue holds line time: the frame and its line overhead */
	wire = len + out->line_overhead;
	id = bpf_map_lookup_elem(&dscp_class, &dscp);
	if (id && *id < XL_MAX_CLASSES)
		cls_id = *id;
	cls = bpf_map_lookup_elem(&classes, &cls_id);
	queue = bpf_map_lookup_elem(&queues, &slot);
	if (!cls || !queue)
		return XL_Q_ENQUEUE;
	if (out->bulk_guard) {
		g = bulk_guard(out, cls_id, ect, wire, &now_ns);
		if (g & XL_Q_DROP)
			return g;
	}
	d = vq_offer(&queue->vtime, out->drain_bps, out, &cls->wred, 0, 0, ect, wire, &now_ns, &q);
	count_queue(slot, cls_id, q, len, d);
	return d | (g & XL_Q_MARK);
}

#endif /* XL_QUEUE_H */
