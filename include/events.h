/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Events: what the dataplane saw that an operator wants one by one rather
 * than as a count (a drop and its reason, an ECN mark, a CNP, a PSN gap, a
 * flow's move, an uplink going down, a PFC storm), each with the packet's
 * first bytes. The leaf and host programs write them into a BPF ring
 * buffer (bpf/event_ring.h); `xdpleaf events` reads it (docs/events.md). Rate
 * limited per kind and CPU so that a storm of drops costs the dataplane
 * one compare per packet, not a ring buffer write; what the limit or a
 * full ring keeps out is counted. Fixed-width kernel types only. */
#ifndef XL_EVENTS_H
#define XL_EVENTS_H

#include "xdpleaf.h"

/* The kinds, as one list that makes the enum and the names (user space:
 * xl_event_kind_names). aux and aux2 per kind are in the comments. */
#define XL_EVENT_KINDS(X)                                                     \
	X(DROP, drop)                 /* reason: enum xl_reason */            \
	X(MARK, mark)                 /* ifindex egress; aux DSCP (sampled) */ \
	X(CNP_SENT, cnp_sent)         /* host NP: for the marked packet */     \
	X(CNP_RECEIVED, cnp_received) /* host RP; aux the rate after, Mb/s */  \
	X(PSN_GAP, psn_gap)           /* aux expected PSN, aux2 PSNs missing */ \
	X(PSN_OLD, psn_old)           /* behind the expected PSN (aux):      \
				       * reordered or retransmitted */        \
	X(NAK, nak)                   /* aux AETH syndrome */                 \
	X(MOVE, move)                 /* ifindex the new uplink, aux the old, \
				       * aux2 xl_move_detail */               \
	X(MOVE_REFUSED, move_refused) /* ifindex kept, aux the one refused, \
				       * aux2 xl_move_detail */               \
	X(LINK_DOWN, link_down)       /* uplink; aux group (from the daemon) */ \
	X(LINK_UP, link_up)                                                   \
	X(PFC_STORM, pfc_storm)       /* aux priority, aux2 paused for, ms */

enum xl_event_kind {
#define XL_EVENT_ENUM(U, l) XL_EV_##U,
	XL_EVENT_KINDS(XL_EVENT_ENUM)
#undef XL_EVENT_ENUM
	XL_EVENT_KIND_MAX,
};

/* Bytes of the packet an event carries (from its start, Ethernet
 * header on: enough for Ethernet, a VLAN tag, IPv6, UDP, BTH and AETH). */
#define XL_EVENT_SNAP 128

/* What the program that saw it says of an event; the emitter adds the
 * time and the packet's bytes. */
struct xl_event_head {
	__u64 time_ns;          /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	enum xl_event_kind kind;
	__u32 ifindex;          /* the port it happened on (per kind) */
	__u32 reason;           /* drop: enum xl_reason */
	__u32 aux, aux2;        /* per kind: XL_EVENT_KINDS */
	__u32 pkt_len;          /* the whole frame's length; 0: no packet */
	__u32 snap_len;         /* bytes of it in pkt */
	__u32 has_flow;         /* flow is set (an IP packet) */
	struct xl_flow flow;    /* RoCEv2: flow.qp is the destination QP */
};

/* A record of the ring buffer. For RoCEv2 the BTH (opcode, QP, PSN) is in
 * pkt: `xdpleaf events` decodes it from there. */
struct xl_event {
	struct xl_event_head h;
	__u8 pkt[XL_EVENT_SNAP];
};

/* The events' settings (entry 0 of the event_cfg array, both modes). */
struct xl_event_cfg {
	__u32 rate;        /* per kind and CPU per second; 0: no events */
	__u32 mark_sample; /* one mark in this many is an event */
};

/* Per kind, per CPU: what was written, what the rate limit kept out,
 * what found the ring full. */
struct xl_event_counts {
	__u64 emitted;
	__u64 limited;
	__u64 ring_full;
};

/* Per-CPU rate limit of one kind: generic cell rate, one state word. */
struct xl_event_limit {
	__u64 tat_ns; /* theoretical arrival time of the next allowed event */
};

/* Events per second per kind and CPU (`event_rate`), and the burst
 * allowed above it. */
#define XL_EVENT_RATE_DEFAULT 1000
#define XL_EVENT_BURST 64
/* One ECN mark in this many becomes an event (`mark_event_sample`). */
#define XL_MARK_SAMPLE_DEFAULT 100

/* Whether an event may go out now at `rate` per second with a burst of
 * XL_EVENT_BURST, and if so take its place (GCRA: the state is the time
 * the next one would be due at exactly the rate; up to burst intervals
 * ahead of it pass). rate 0: events are off. */
static inline int xl_event_allow(struct xl_event_limit *l, __u64 now, __u32 rate)
{
	__u64 interval, tat;

	if (!rate)
		return 0;
	interval = 1000000000ULL / rate;
	tat = l->tat_ns > now ? l->tat_ns : now;
	if (tat - now > (XL_EVENT_BURST - 1) * interval)
		return 0;
	l->tat_ns = tat + interval;
	return 1;
}

#endif /* XL_EVENTS_H */
