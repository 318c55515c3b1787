/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* DCQCN's congestion point: a phantom queue per egress port and the
 * RED/WRED marking curve. Pure C over plain integers, shared by the
 * dataplane, the unit tests and `xdpleaf sim`.
 *
 * The phantom queue is kept as the time at which it would be empty
 * ("virtual finish time", as a token bucket keeps its tokens): a packet of
 * L bytes moves it to max(vtime, now) + L / (γ · rate). The backlog at any
 * moment follows from (vtime − now) · γ · rate, so draining needs no
 * bookkeeping and one 64-bit word is the whole shared state, which makes a
 * lock-free compare-and-swap update possible when CPUs forward to the same
 * port at once. Time is in units of 1/64 ns, fine enough for a 64-byte
 * packet at 400 Gb/s (82 units), and wraps after 9 years of uptime, which
 * the signed differences below tolerate. */
#ifndef XL_ECN_H
#define XL_ECN_H

#define XL_VT_SHIFT 6                 /* vtime units per ns = 1 << 6 */
#define XL_VT_PER_BYTE_NUM (8ULL * 1000000000ULL << XL_VT_SHIFT)
#define XL_PROB_ONE (1ULL << 32)      /* probability 1.0 in 2^-32 units */
#define XL_ECN_MASK 0x3
#define XL_ECN_NOT_ECT 0x0
#define XL_ECN_ECT1 0x1
#define XL_ECN_ECT0 0x2
#define XL_ECN_CE 0x3
/* Queues longer than this (18 minutes: nothing real) are read as this
 * long, which keeps every product in xl_backlog inside 64 bits. */
#define XL_VT_MAX_AHEAD (1ULL << (40 + XL_VT_SHIFT))
#define XL_VT_PER_MS (1000000ULL << XL_VT_SHIFT)

#ifndef XL_MAX_CLASSES
#define XL_MAX_CLASSES 8
#endif
#define XL_QHIST_BUCKETS 24 /* log2 buckets of queue bytes: 0, 1, 2-3, ..., >= 4 MiB */

/* Marking profile of one traffic class (WRED with ECN). */
struct xl_wred {
	__u32 kmin;      /* bytes: at or below, never mark */
	__u32 kmax;      /* bytes: above, always mark */
	__u32 pmax;      /* probability at kmax, in 2^-32 units */
	__u32 flags;     /* XL_CLASS_* */
};

/* The paper's profile (docs/dcqcn-spec.md): Kmin 5 KB, Kmax 200 KB,
 * Pmax 1 % (rounded to 2^-32 units). */
#define XL_WRED_PAPER_KMIN (5 * 1024)
#define XL_WRED_PAPER_KMAX (200 * 1024)
#define XL_WRED_PAPER_PMAX ((__u32)((XL_PROB_ONE + 50) / 100))

#define XL_CLASS_NO_MARK (1U << 0) /* never CE-marked (CNPs) */
#define XL_CLASS_NO_DROP (1U << 1) /* never tail-dropped (CNPs) */
#define XL_CLASS_LATENCY (1U << 3) /* latency = yes: requests that want the least-queued path (include/lb.h) */
/* Kmin and Kmax fitted to each port's buffer (xl_wred_fit): the built-in
 * roce class's while it keeps the default thresholds. Thresholds a user
 * set are used as they are. */
#define XL_CLASS_FIT (1U << 2)

/* A fitted profile's Kmax is at most this share of the port's buffer: the
 * rest is room for what arrives while the senders react to the marks. A
 * DCQCN sender hears of a mark only after the marked packet has crossed
 * the queue, and its rate recovers in steps sized for 40 Gbit/s links:
 * measured in the lab (docs/ecn.md), a Kmax at 4/5 of the buffer still
 * let RoCE steps lose 0.5-1 % of their packets, one at 1/2 0.1 % or less. */
#define XL_WRED_FIT_NUM 1
#define XL_WRED_FIT_DEN 2

/* The profile a port with `buffer` bytes applies. A profile to be fitted
 * (XL_CLASS_FIT: the built-in roce class's, while its kmin and kmax are
 * the defaults) that the buffer cannot hold is compressed into it: Kmax
 * at half the buffer, Kmin scaled by the same factor. Without this the
 * paper's 200 KB Kmax on a 25 KB port (100 Mbit/s, 2 ms) would mark
 * almost nothing before the buffer is full, so senders would hear of
 * congestion only as it overflows. A buffer that holds twice Kmax (1 MiB,
 * the default at 4.2 Gbit/s and up) keeps the profile as it is. */
static inline struct xl_wred xl_wred_fit(const struct xl_wred *w, __u64 buffer)
{
	__u64 top = buffer * XL_WRED_FIT_NUM / XL_WRED_FIT_DEN;
	struct xl_wred f = *w;

	if ((w->flags & XL_CLASS_FIT) && w->kmax > top) {
		f.kmin = (__u32)((__u64)w->kmin * top / w->kmax);
		f.kmax = (__u32)top;
	}
	return f;
}

/* Probability (2^-32 units, XL_PROB_ONE = certain) of marking a packet that
 * finds q bytes queued, per docs/dcqcn-spec.md:
 *   q <= Kmin: 0;  Kmin < q <= Kmax: Pmax (q - Kmin) / (Kmax - Kmin);
 *   q > Kmax: 1. */
static inline __u64 xl_wred_prob(__u64 q, const struct xl_wred *w)
{
	if (q <= w->kmin)
		return 0;
	if (q > w->kmax)
		return XL_PROB_ONE;
	/* kmax > kmin here (q lies between them); the product fits in 64
	 * bits because both factors are below 2^32. */
	return (__u64)w->pmax * (q - w->kmin) / (w->kmax - w->kmin);
}

/* Decide with a uniform 32-bit random number. */
static inline int xl_wred_decide(__u64 prob, __u32 rnd)
{
	return (__u64)rnd < prob;
}

/* Time a packet of len bytes occupies the port: vtime units at rate bit/s.
 * rate must be non-zero (the caller only keeps queues on limited ports). */
static inline __u64 xl_vt_of_bytes(__u64 len, __u64 rate_bps)
{
	return len * XL_VT_PER_BYTE_NUM / rate_bps;
}

static inline __u64 xl_vt_now(__u64 now_ns)
{
	return now_ns << XL_VT_SHIFT;
}

/* Bytes still queued at vt_now when the queue empties at vtime, rounded
 * down. Signed difference: correct across the wrap of either clock. Whole
 * milliseconds and the rest are converted apart, so that neither product
 * overflows for any rate up to 2 Tb/s while the rest keeps the 1/64 ns
 * resolution (a 64-byte packet at 800 Gb/s is 0.64 ns); the two parts'
 * fractions are added back so the result is one floor, not two. */
static inline __u64 xl_backlog(__u64 vtime, __u64 vt_now, __u64 rate_bps)
{
	const __u64 rest_den = XL_VT_PER_MS * 1000; /* vtime units x 8 bits */
	__s64 ahead = (__s64)(vtime - vt_now);
	__u64 a, ms_bits, rest_num, bytes;

	if (ahead <= 0)
		return 0;
	a = (__u64)ahead < XL_VT_MAX_AHEAD ? (__u64)ahead : XL_VT_MAX_AHEAD;
	ms_bits = a / XL_VT_PER_MS * rate_bps;        /* bytes x 8000 */
	rest_num = a % XL_VT_PER_MS * (rate_bps / 8); /* bytes x rest_den */
	bytes = ms_bits / 8000 + rest_num / rest_den;
	if (ms_bits % 8000 * (rest_den / 8000) + rest_num % rest_den >= rest_den)
		bytes++;
	return bytes;
}

/* The new vtime after enqueueing len bytes at vt_now. */
static inline __u64 xl_vt_enqueue(__u64 vtime, __u64 vt_now, __u64 len,
				  __u64 rate_bps)
{
	__u64 start = (__s64)(vtime - vt_now) > 0 ? vtime : vt_now;

	return start + xl_vt_of_bytes(len, rate_bps);
}

/* Histogram bucket of a queue length: 0 for an empty queue, then
 * floor(log2(q)) + 1, capped at the last bucket. */
static inline __u32 xl_qhist_bucket(__u64 q)
{
	__u32 b = 0;

	if (q >= 1ULL << 16) { b += 16; q >>= 16; }
	if (q >= 1ULL << 8) { b += 8; q >>= 8; }
	if (q >= 1ULL << 4) { b += 4; q >>= 4; }
	if (q >= 1ULL << 2) { b += 2; q >>= 2; }
	if (q >= 1ULL << 1) { b += 1; q >>= 1; }
	b += (__u32)q; /* q is 0 or 1 now: 0 -> bucket 0, else +1 */
	return b < XL_QHIST_BUCKETS ? b : XL_QHIST_BUCKETS - 1;
}

/* The largest queue length, in bytes, that bucket b holds (2^b - 1: bucket
 * 0 holds 0, bucket b >= 1 holds [2^(b-1), 2^b)); the last bucket has no
 * bound and gives ~0. The edges of the histogram in JSON and Prometheus. */
static inline __u64 xl_qhist_le(__u32 b)
{
	return b >= XL_QHIST_BUCKETS - 1 ? ~0ULL : (1ULL << b) - 1;
}

/* The outcome of offering one packet to a port's phantom queue: a set of
 * these bits. No bit: forwarded as it is without being queued (buffer full
 * in mark-only mode, packet not markable). */
#define XL_Q_ENQUEUE (1 << 0) /* counts toward the queue */
#define XL_Q_MARK (1 << 1)    /* set CE */
#define XL_Q_DROP (1 << 2)    /* tail drop: the buffer is full */

/* Marking and admission for a packet of len bytes finding q bytes queued
 * (before it), by the class's profile w as fitted to the buffer
 * (xl_wred_fit). ect: the packet is ECN-capable; rnd: uniform random;
 * mark_only: a full buffer marks instead of dropping (the packet is then
 * not queued, so the queue never grows past the buffer). */
static inline int xl_queue_decide(__u64 q, __u64 len, __u64 buffer,
				  const struct xl_wred *w, int ect,
				  int mark_only, __u32 rnd)
{
	int may_mark = ect && !(w->flags & XL_CLASS_NO_MARK);
	struct xl_wred fitted;

	if (q + len > buffer && !(w->flags & XL_CLASS_NO_DROP)) {
		if (!mark_only)
			return XL_Q_DROP;
		return may_mark ? XL_Q_MARK : 0;
	}
	if (!may_mark)
		return XL_Q_ENQUEUE;
	fitted = xl_wred_fit(w, buffer);
	if (xl_wred_decide(xl_wred_prob(q, &fitted), rnd))
		return XL_Q_ENQUEUE | XL_Q_MARK;
	return XL_Q_ENQUEUE;
}

/* The bulk guard's step: a backlog of this much time at the port's drain
 * rate, or two of its largest frames if that is more (a slow port), marks
 * or drops (xl_guard_decide). 20 us: what a request may wait behind bulk
 * traffic at 100 Gbit/s and up (250 KB there), a few frames' time where
 * frames take longer. */
#define XL_GUARD_STEP_NS 20000ULL

/* The guard's step in bytes for a port draining at drain_bps whose largest
 * frame is frame bytes, at most its buffer. */
static inline __u32 xl_guard_step(__u64 drain_bps, __u32 frame, __u32 buffer)
{
	__u64 t = drain_bps * XL_GUARD_STEP_NS / 8 / 1000000000ULL, f = 2ULL * frame;
	__u64 step = t > f ? t : f;

	return step < buffer ? (__u32)step : buffer;
}

/* The bulk guard (docs/ecn.md): HULL's phantom queue, a second virtual
 * queue per port that drains at bulk_gamma x the port's drain rate and
 * only packets of classes without XL_CLASS_LATENCY enter. It keeps the
 * bulk traffic's own backlog short so that the real queue stays nearly
 * empty for the latency classes, which pass it by.
 *
 * Its decision is the port queue's (xl_queue_decide) with a step in
 * place of the WRED ramp: no mark up to mark_bytes (xl_guard_step), every
 * markable packet above, so no random number is needed. The buffer and
 * what a full one does (drop or mark) are the port's: a sender that
 * cannot hear a mark (Not-ECT) loses only when the guard is full. Drops
 * at the step instead cost the lab's reno all-reduce 14 x its step time
 * (docs/inference.md): at the tc hook a drop takes a whole GRO aggregate.
 * A latency-class packet gets no bit: forwarded as it is and not
 * queued. */
static inline int xl_guard_decide(__u64 q, __u64 len, __u64 buffer, __u32 mark_bytes,
				  __u32 class_flags, int ect, int mark_only)
{
	struct xl_wred step = {
		.kmin = mark_bytes,
		.kmax = mark_bytes,
		.pmax = 0,
		/* a step is no profile to fit into the buffer */
		.flags = class_flags & ~XL_CLASS_FIT,
	};

	if (class_flags & XL_CLASS_LATENCY)
		return 0;
	return xl_queue_decide(q, len, buffer, &step, ect, mark_only, 0);
}

#endif /* XL_ECN_H */
