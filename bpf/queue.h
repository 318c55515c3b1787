/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The congestion point: offer a packet to its egress port's phantom queue,
 * decide mark / pass / drop with the class's WRED profile (include/ecn.h),
 * and count it. */
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

/* Returns XL_Q_* bits for a packet of len bytes, DSCP dscp and ECN field
 * ecn leaving through out. A global function, verified on its own. Both
 * CPUs may run this for one port at once: the queue is one word moved by
 * compare-and-swap, and the decision is taken again from the fresh value
 * when another CPU got there first, so no byte is lost or counted twice.
 * After XL_CAS_TRIES lost races (another CPU enqueued each time, so the
 * queue is busy and its vtime lies ahead of now) the packet's time is
 * added atomically, which is the same update for a non-empty queue.
 *
 * now_ns: the clock the packet's program read already (0: none). The
 * first round decides with it, saving a clock read. That clock is older
 * than the queue word, which may hold another CPU's later enqueue, so the
 * queue it sees is at most the program's run time too long: a plain
 * enqueue found with it is what a fresh clock finds too (marks and drops
 * only grow with the queue), and anything else is decided again on a
 * fresh clock. A queue that was empty starts its busy period up to that
 * run time early (tens of ns), once per busy period. */
__noinline int xl_phantom_queue(const struct xl_port *out, __u32 dscp,
				__u32 ecn, __u64 len, __u64 now_ns)
{
	__u32 slot, cls_id = XL_CLASS_DEFAULT;
	__u32 rnd = 0;
	struct xl_queue *queue;
	struct xl_class *cls;
	__u32 *id;
	__u64 old = 0, q = 0, now;
	int d = XL_Q_ENQUEUE, i, done = 0, drawn = 0, stale = now_ns != 0;
	__u64 wire;

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
	/* one round more: a stale clock's round that decided nothing */
	for (i = 0; i < XL_CAS_TRIES + 1 && !done; i++) {
		/* A fresh clock is read after the queue word: a clock
		 * read before it would see another CPU's later enqueue as
		 * queue (above). */
		old = XL_READ_ONCE(queue->vtime);
		now = xl_vt_now(stale ? now_ns : bpf_ktime_get_ns());
		q = xl_backlog(old, now, out->drain_bps);
		/* a random number only where WRED can use one: an empty
		 * queue marks with probability 0 */
		if (q && !drawn) {
			rnd = bpf_get_prandom_u32();
			drawn = 1;
		}
		d = xl_queue_decide(q, wire, out->buffer_bytes, &cls->wred,
				    ecn != XL_ECN_NOT_ECT,
				    out->overflow == XL_OVERFLOW_MARK, rnd);
		if (stale && d != XL_Q_ENQUEUE) {
			stale = 0;
			continue;
		}
		stale = 0;
		if (!(d & XL_Q_ENQUEUE))
			done = 1;
		else if (__sync_val_compare_and_swap(&queue->vtime, old,
				xl_vt_enqueue(old, now, wire, out->drain_bps)) == old)
			done = 1;
	}
	if (!done) /* lost every race: the queue is busy */
		__sync_fetch_and_add(&queue->vtime,
				     xl_vt_of_bytes(wire, out->drain_bps));
	count_queue(slot, cls_id, q, len, d);
	return d;
}

#endif /* XL_QUEUE_H */
