/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* RoCEv2 and PFC telemetry that tells the network's faults from the
 * hosts': PSN tracking per QP (a gap is a packet lost or overtaken before
 * this point, an old PSN a reordered or retransmitted one), NAKs seen on
 * the wire, and PFC pause frames per port and priority with the PFC
 * watchdog's storm detection (a priority paused without a break for
 * longer than `pfc_watchdog`; counted and reported, no action taken).
 * Pure functions over plain structs, shared by bpf/psn.h and the
 * unit tests; docs/events.md. */
#ifndef XL_TELEMETRY_H
#define XL_TELEMETRY_H

#include "xdpleaf.h"
#include "roce.h"

/* ---- PSNs ---------------------------------------------------------------- */

/* BTH opcodes that do not advance their QP's PSN sequence one by one:
 * acknowledgements (their PSN is the one acknowledged, and ACKs coalesce)
 * and CNPs. */
#define XL_BTH_ACK        0x11
#define XL_BTH_ATOMIC_ACK 0x12
static inline int xl_psn_sequenced(__u8 opcode)
{
	return opcode != XL_BTH_ACK && opcode != XL_BTH_ATOMIC_ACK &&
	       opcode != XL_BTH_CNP;
}

/* AETH syndrome (IBTA 9.3.5): bits 6-5 say ACK (00), RNR NAK (01) or NAK
 * (11). */
#define XL_AETH_KIND(s) (((s) >> 5) & 3)
#define XL_AETH_RNR_NAK 1
#define XL_AETH_NAK 3

/* One RoCE flow's PSN state (a QP's packets in one direction), keyed like
 * the flow table (struct xl_flow). */
struct xl_psn_state {
	__u64 packets;   /* sequenced packets seen */
	__u64 gaps;      /* times the PSN jumped ahead */
	__u64 missing;   /* PSNs jumped over, in all */
	__u64 old;       /* PSNs behind the expected one */
	__u64 naks;      /* NAKs (AETH) seen on this flow */
	__u64 rnr_naks;
	__u64 resyncs;   /* runs of old PSNs taken as a new sequence */
	__u32 next_psn;  /* the PSN expected next */
	__u32 started;   /* next_psn is known */
	__u32 last_psn;  /* the previous packet's */
	__u32 old_run;   /* old PSNs in a row, each the one after the last */
};

/* A QP that starts again (a new connection on the same QP number, or a
 * sender restarted) sends PSNs from a new start, usually behind the one
 * expected: every packet would be "old" until the new sequence caught up.
 * This many old PSNs in a row, each following the previous, are a new
 * sequence instead. A go-back-N retransmission is such a run too, until
 * it reaches the PSN expected; taking a long one as a new sequence only
 * stops counting it as old. */
#define XL_PSN_RESYNC_RUN 64

enum xl_psn_result {
	XL_PSN_IN_ORDER = 0,
	XL_PSN_GAP,      /* ahead: *n PSNs were skipped */
	XL_PSN_OLD,      /* behind: *n PSNs behind the expected one */
	XL_PSN_RESYNC,   /* behind, ending a run: the sequence follows it */
};

/* Account one sequenced packet's PSN. The first packet sets the sequence;
 * after a gap the sequence follows the new PSN (the next gap is counted
 * from there); an old PSN leaves it as it was, unless it ends a run of
 * XL_PSN_RESYNC_RUN (a new sequence, which it then follows). */
static inline int xl_psn_track(struct xl_psn_state *s, __u32 psn, __u32 *n)
{
	int d;

	psn &= XL_PSN_MASK;
	d = xl_psn_diff(psn, s->next_psn);
	s->packets++;
	*n = 0;
	if (s->started && d < 0)
		s->old_run = psn == ((s->last_psn + 1) & XL_PSN_MASK) ? s->old_run + 1 : 1;
	else
		s->old_run = 0;
	s->last_psn = psn;
	if (!s->started || d == 0) {
		s->started = 1;
		s->next_psn = (psn + 1) & XL_PSN_MASK;
		return XL_PSN_IN_ORDER;
	}
	if (d > 0) {
		s->gaps++;
		s->missing += (__u32)d;
		*n = (__u32)d;
		s->next_psn = (psn + 1) & XL_PSN_MASK;
		return XL_PSN_GAP;
	}
	*n = (__u32)-d;
	if (s->old_run >= XL_PSN_RESYNC_RUN) {
		s->resyncs++;
		s->old_run = 0;
		s->next_psn = (psn + 1) & XL_PSN_MASK;
		return XL_PSN_RESYNC;
	}
	s->old++;
	return XL_PSN_OLD;
}

/* ---- PFC ----------------------------------------------------------------- */

#define XL_PFC_OPCODE 0x0101
#define XL_PFC_PRIORITIES 8
/* PFC pause times are quanta of 512 bit times at the port's speed; a port
 * without a configured rate is taken to run at this one. */
#define XL_PFC_DEFAULT_LINE_BPS 100000000000ULL
/* `pfc_watchdog`: a priority paused without a break for longer is a storm
 * (SONiC's PFC watchdog detects at 200 ms by default). */
#define XL_PFC_WATCHDOG_DEFAULT_NS 200000000ULL

/* One (port, priority)'s pause state, shared by all CPUs. */
struct xl_pfc_state {
	__u64 pause_start_ns;  /* the current pause began (0: not paused) */
	__u64 paused_until_ns; /* the last frame's pause ends */
	__u64 storms;          /* storms detected */
	__u32 storm;           /* the current pause is one */
	__u32 pad;
};

/* Per-CPU counters of one (port, priority). */
struct xl_pfc_counts {
	__u64 frames;      /* PFC frames with this priority's enable bit */
	__u64 xoff;        /* ... with a non-zero pause time */
	__u64 quanta;      /* pause quanta requested, in all */
};

/* The pause, in ns, that `quanta` ask for on a port of line_bps. */
static inline __u64 xl_pfc_pause_ns(__u32 quanta, __u64 line_bps)
{
	if (!line_bps)
		line_bps = XL_PFC_DEFAULT_LINE_BPS;
	return (__u64)quanta * 512 * 1000000000ULL / line_bps;
}

/* A PFC frame asks this priority to pause for pause_ns (0: resume) at
 * `now`. Returns 1 when this frame makes the pause a storm: paused
 * without a break (each frame arriving before the previous pause ended)
 * for longer than watchdog_ns. */
static inline int xl_pfc_pause(struct xl_pfc_state *s, __u64 now,
			       __u64 pause_ns, __u64 watchdog_ns)
{
	if (!pause_ns) {
		s->pause_start_ns = 0;
		s->paused_until_ns = now;
		s->storm = 0;
		return 0;
	}
	if (!s->pause_start_ns || s->paused_until_ns < now) {
		s->pause_start_ns = now;
		s->storm = 0;
	}
	s->paused_until_ns = now + pause_ns;
	if (!s->storm && watchdog_ns && now - s->pause_start_ns > watchdog_ns) {
		s->storm = 1;
		s->storms++;
		return 1;
	}
	return 0;
}

#endif /* XL_TELEMETRY_H */
