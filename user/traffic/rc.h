/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Go-back-N, the reliable connection (RC) transport of RoCE as far as the
 * traffic tools need it (docs/traffic-tools.md, "Go-back-N"): the
 * requester's state per QP (`xdpleaf gen --reliable`) and the ACK/NAK
 * frames between it and the responder (`xdpleaf sink --respond`, whose
 * receive half is bpf/sink.bpf.c). Pure functions, no I/O: unit-tested
 * (tests/unit/test_rc.c), the frames also against scapy (tests/lab). */
#ifndef XL_TRAFFIC_RC_H
#define XL_TRAFFIC_RC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "roce.h"

/* One QP's requester. PSNs are 24-bit serial numbers (xl_psn_diff). */
struct xl_rc_req {
	__u32 una;      /* the oldest PSN not acknowledged */
	__u32 nxt;      /* the PSN to send next (behind max: resending) */
	__u32 max;      /* one past the highest PSN sent */
	__u32 req_psn;  /* the latest PSN sent with AckReq */
	/* The ACK timer (ns), 0 when no PSN that asked for an ACK is waiting
	 * for it: started by the first such PSN sent after the last progress
	 * (or at the progress itself, while some still wait). As a requester's
	 * transport timer, it is not pushed back by sending more. */
	double req_at;
	__u64 acks, naks, timeouts;
	__u32 timeouts_in_row; /* since the last progress (an ACK or NAK taken) */
	__u64 resent;   /* packets sent again */
};

void xl_rc_init(struct xl_rc_req *r, __u32 first_psn);

/* The BTH word-2 flags for the packet with PSN r->nxt, which is a
 * message's last packet or not, then r->nxt moves on: AckReq on a
 * message's last packet and every XL_RC_ACKREQ_EVERY PSNs, the resent
 * mark on a PSN sent before. now: when it is sent (ns). */
__u8 xl_rc_send(struct xl_rc_req *r, bool message_end, double now);

/* An ACK for psn (everything up to it arrived) or a NAK naming psn (the
 * responder expects it: resend from there). Stale ones (outside
 * una..max) change nothing. Returns 1 when r->nxt moved: the caller's
 * position in its message must follow. */
int xl_rc_on_ack(struct xl_rc_req *r, __u32 psn, double now);
int xl_rc_on_nak(struct xl_rc_req *r, __u32 psn);

/* No progress within timeout_ns of the timer's start (r->req_at): go back
 * to una. Returns 1 when it did (r->nxt moved). */
int xl_rc_check_timeout(struct xl_rc_req *r, double now, double timeout_ns);

/* A QP that never had a reply after this many timeouts in a row: nobody is
 * answering (7: InfiniBand's largest retry count). */
#define XL_RC_RETRY_MAX 7

/* When xl_rc_check_timeout would fire (ns), 0 if it cannot. */
double xl_rc_deadline(const struct xl_rc_req *r, double timeout_ns);

/* Everything sent is acknowledged. */
static inline bool xl_rc_idle(const struct xl_rc_req *r)
{
	return r->una == r->max;
}

/* ---- frames --------------------------------------------------------------- */

#define XL_RC_REPLY_L4_LEN (8 + XL_BTH_LEN + XL_AETH_LEN + XL_ICRC_LEN)
#define XL_RC_REPLY_MAX (14 + 40 + XL_RC_REPLY_L4_LEN)

/* The Ethernet frame of the ACK or NAK r describes, into buf (at least
 * XL_RC_REPLY_MAX bytes); returns its length. Back the way the data came:
 * MACs and addresses swapped, the data's UDP source port and destination
 * QP, DSCP kept with Not-ECT, TTL 64; headers and ICRC as gen's frames
 * (traffic/gen_pkt.h: IPv4 id 0 and DF). */
size_t xl_rc_reply_frame(const struct xl_sink_reply *r, __u8 *buf);

/* An ACK or NAK as the requester reads it. */
struct xl_rc_reply_in {
	__u8 saddr[16], daddr[16]; /* IPv4: first 4 bytes */
	__u32 qp, psn, msn;
	__u8 syndrome;
	bool icrc_ok;
};

/* Parse an IP packet (from its IP header, len bytes) of family 4 or 6.
 * Returns 0 for a RoCEv2 ACK (BTH opcode 0x11 with an AETH), -1 for
 * anything else. */
int xl_rc_parse_reply(const __u8 *l3, size_t len, int family,
		      struct xl_rc_reply_in *out);

#endif
