/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The event ring buffer and its limiter (include/events.h), for the leaf
 * (XDP) and host (tc) programs alike: xl_event_start() decides and
 * reserves, the program copies the packet's first bytes with its own
 * helper, xl_event_commit() submits. */
#ifndef XL_BPF_EVENT_RING_H
#define XL_BPF_EVENT_RING_H

#include "pin_names.h"
#include "events.h"

#ifndef XL_EVENT_RING_BYTES
#define XL_EVENT_RING_BYTES (1 << 20) /* ~4,800 events */
#endif

/* Events for `xdpleaf events`: one consumer at a time. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XL_EVENT_RING_BYTES);
} XL_MAP_EVENTS SEC(".maps");

/* Entry 0: struct xl_event_cfg, written by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_event_cfg);
} XL_MAP_EVENT_CFG SEC(".maps");

/* Per kind, per CPU: the rate limiter's state. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_EVENT_KIND_MAX);
	__type(key, __u32);
	__type(value, struct xl_event_limit);
} XL_MAP_EVENT_LIMITS SEC(".maps");

/* Per kind, per CPU: emitted, rate-limited, ring full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_EVENT_KIND_MAX);
	__type(key, __u32);
	__type(value, struct xl_event_counts);
} XL_MAP_EVENT_COUNTS SEC(".maps");

static __always_inline struct xl_event_cfg *xl_event_cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&XL_MAP_EVENT_CFG, &zero);
}

/* Whether this ECN mark is one of the sampled ones. */
static __always_inline int xl_mark_sampled(void)
{
	struct xl_event_cfg *c = xl_event_cfg();

	return c && c->rate && c->mark_sample &&
	       bpf_get_prandom_u32() % c->mark_sample == 0;
}

/* Who, where and why of an event, in one word (the emitters take few
 * arguments: BPF calls have five, and no stack to spare). */
#define XL_EVENT_WHAT(kind, reason, ifindex) \
	((__u64)(kind) | (__u64)(reason) << 8 | (__u64)(ifindex) << 32)

/* A record for an event `what` (XL_EVENT_WHAT) with its aux words and,
 * if f, its flow, or NULL when events are off, the kind is over its rate
 * or the ring is full (each counted). The caller adds the packet's bytes
 * and submits it. */
static __always_inline struct xl_event *
xl_event_start(__u64 what, __u32 aux, __u32 aux2, const struct xl_flow *f)
{
	__u32 kind = what & 0xff;
	struct xl_event_limit *l;
	struct xl_event_counts *c;
	struct xl_event_cfg *cfg;
	struct xl_event *e;
	__u64 now;

	if (kind >= XL_EVENT_KIND_MAX)
		return NULL;
	cfg = xl_event_cfg();
	if (!cfg || !cfg->rate)
		return NULL;
	l = bpf_map_lookup_elem(&XL_MAP_EVENT_LIMITS, &kind);
	c = bpf_map_lookup_elem(&XL_MAP_EVENT_COUNTS, &kind);
	if (!l || !c)
		return NULL;
	now = bpf_ktime_get_ns();
	if (!xl_event_allow(l, now, cfg->rate)) {
		c->limited++;
		return NULL;
	}
	e = bpf_ringbuf_reserve(&XL_MAP_EVENTS, sizeof(*e), 0);
	if (!e) {
		c->ring_full++;
		return NULL;
	}
	e->h.time_ns = now;
	e->h.kind = kind;
	e->h.reason = (what >> 8) & 0xff;
	e->h.ifindex = what >> 32;
	e->h.aux = aux;
	e->h.aux2 = aux2;
	e->h.pkt_len = 0;
	e->h.snap_len = 0;
	e->h.has_flow = f != NULL;
	if (f)
		__builtin_memcpy(&e->h.flow, f, sizeof(e->h.flow));
	else
		__builtin_memset(&e->h.flow, 0, sizeof(e->h.flow));
	c->emitted++;
	return e;
}

/* How many of a frame's len bytes an event keeps: a bound the verifier
 * sees (1..XL_EVENT_SNAP), or 0. */
static __always_inline __u32 xl_event_snap_len(__u64 len)
{
	__u32 n = len < XL_EVENT_SNAP ? (__u32)len : XL_EVENT_SNAP;

	return n & (2 * XL_EVENT_SNAP - 1);
}

#endif /* XL_BPF_EVENT_RING_H */
