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
 * draining at *drain bit/s (a port's queue, or its bulk guard; read where
 * used, as the port's code always did). Returns
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
static __always_inline int vq_offer(__u64 *vtime, const __u64 *drain, const struct xl_port *out,
				    const struct xl_wred *w, int guard, __u32 mark_bytes, int ect,
				    __u64 wire, __u64 *now_ns, __u64 *q_seen)
{
	int d = XL_Q_ENQUEUE, i, done = 0, drawn = 0, stale = *now_ns != 0;
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
		q = xl_backlog(old, now, *drain);
		/* a random number only where WRED can use one: an empty
		 * queue marks with probability 0, the guard's step never */
		if (!guard && q && !drawn) {
			rnd = bpf_get_prandom_u32();
			drawn = 1;
		}
		d = guard ? xl_guard_decide(q, wire, out->buffer_bytes, mark_bytes, w->flags, ect,
					    out->overflow == XL_OVERFLOW_MARK) :
			    xl_queue_decide(q, wire, out->buffer_bytes, w, ect,
					    out->overflow == XL_OVERFLOW_MARK, rnd);
		if (stale && d != XL_Q_ENQUEUE) {
			stale = 0;
			continue;
		}
		stale = 0;
		if (!(d & XL_Q_ENQUEUE))
			done = 1;
		else if (__sync_val_compare_and_swap(vtime, old,
				xl_vt_enqueue(old, now, wire, *drain)) == old)
			done = 1;
	}
	if (!done) /* lost every race: the queue is busy */
		__sync_fetch_and_add(vtime, xl_vt_of_bytes(wire, *drain));
	*q_seen = q;
	if (guard)
		*now_ns = ns;
	return d;
}

/* The port's bulk guard for a packet of class cls_id, profile w
 * (include/ecn.h): XL_Q_* bits, counted per (slot, class). 0 for a
 * latency class, which
 * passes the guard by, and when the guard has no entry or no rate (the
 * loader's fill under way). */
static __always_inline int bulk_guard(const struct xl_port *out, __u32 cls_id,
				      const struct xl_wred *w, int ect, __u64 wire, __u64 *now_ns)
{
	__u32 slot = out->slot, key = slot * XL_MAX_CLASSES + cls_id;
	struct xl_guard *g;
	struct xl_guard_stats *gs;
	__u64 q = 0;
	int d;

	if (w->flags & XL_CLASS_LATENCY)
		return 0;
	g = bpf_map_lookup_elem(&guards, &slot);
	if (!g)
		return 0;
	/* off (0) while a reload writes it; a division by 0 is 0 in BPF */
	if (!g->drain_bps)
		return 0;
	d = vq_offer(&g->vtime, &g->drain_bps, out, w, 1, g->mark_bytes, ect, wire, now_ns, &q);
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

/* XL_Q_* bits for a packet of len bytes, DSCP dscp and ECN field ecn
 * leaving through out (now_ns: as vq_offer's). guarded (a constant): the
 * port's bulk guard is on, and a packet of a class that is no latency
 * class goes through it first: one the guard drops never reaches the
 * port's queue, a guard's mark is the packet's whatever the queue
 * decides, and the clock the guard read is the queue's too (one clock
 * read per packet, as without a guard). */
static __always_inline int phantom_queue(const struct xl_port *out, __u32 dscp, __u32 ecn,
					 __u64 len, __u64 now_ns, int guarded)
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
	if (guarded) {
		g = bulk_guard(out, cls_id, &cls->wred, ect, wire, &now_ns);
		if (g & XL_Q_DROP)
			return g;
	}
	d = vq_offer(&queue->vtime, &out->drain_bps, out, &cls->wred, 0, 0, ect, wire, &now_ns, &q);
	count_queue(slot, cls_id, q, len, d);
	return d | (g & XL_Q_MARK);
}

/* The port's queue alone; and with the port's bulk guard (the caller
 * chose by xl_port.bulk_guard). Global functions, verified on their own;
 * two, so that a port without a guard runs the queue's code as it was
 * and pays only the caller's test. */
__noinline int xl_phantom_queue(const struct xl_port *out, __u32 dscp, __u32 ecn, __u64 len,
				__u64 now_ns)
{
	return phantom_queue(out, dscp, ecn, len, now_ns, 0);
}

__noinline int xl_guarded_queue(const struct xl_port *out, __u32 dscp, __u32 ecn, __u64 len,
				__u64 now_ns)
{
	return phantom_queue(out, dscp, ecn, len, now_ns, 1);
}

#endif /* XL_QUEUE_H */
