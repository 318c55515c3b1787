// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen --reliable` (gen.h): the requester's side of go-back-N
 * that user/traffic/rc.c does not hold: the socket ACKs and NAKs arrive
 * on, matching them to QPs, the ACK timeouts, and the wait for a reply
 * when nothing may be sent. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "base/log.h"
#include "telemetry.h" /* XL_AETH_KIND */
#include "base/clock.h"
#include "traffic/gen.h"

/* The socket ACKs and NAKs arrive on: every IP packet of --dst's family
 * that comes in on --dev (the requester's own are left out), read without
 * blocking. */
int gen_setup_acks(struct gen_state *g)
{
	int proto = htons(g->f.fs.ipv6 ? ETH_P_IPV6 : ETH_P_IP), one = 1;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = (__u16)proto,
		.sll_ifindex = (int)g->f.ifindex,
	};

	g->acks.fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, proto);
	if (g->acks.fd < 0 || bind(g->acks.fd, (struct sockaddr *)&sll, sizeof(sll))) {
		xl_err("--reliable: a socket for ACKs on %s: %s", g->o.dev, strerror(errno));
		return -1;
	}
	setsockopt(g->acks.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return 0;
}

/* After r.nxt moved back (or forward over what was acknowledged): the
 * position of the new r.nxt in its message, counted back from r.max's. */
static void follow_psn(const struct gen_state *g, struct gen_qp *q)
{
	__u32 back = (__u32)xl_psn_diff(q->rc.max, q->rc.nxt) % g->f.npkts;

	q->pkt = (q->max_pkt + g->f.npkts - back) % g->f.npkts;
}

/* One reply: ours if it comes from --dst to our address for one of our
 * QPs, and its ICRC verifies (a NIC drops it otherwise). */
static void take_reply(struct gen_state *g, const __u8 *l3, size_t len)
{
	struct xl_rc_reply_in in;
	size_t alen = g->f.fs.ipv6 ? 16 : 4;
	struct gen_qp *q;
	int moved;

	if (xl_rc_parse_reply(l3, len, g->f.fs.ipv6 ? 6 : 4, &in))
		return; /* not an ACK: not counted, a host receives all sorts */
	if (memcmp(in.saddr, g->f.fs.daddr, alen) || memcmp(in.daddr, g->f.fs.saddr, alen) ||
	    in.qp < g->o.qp_base || in.qp - g->o.qp_base >= g->o.qps) {
		g->acks.other++;
		return;
	}
	if (!in.icrc_ok) {
		g->acks.bad_icrc++;
		return;
	}
	q = &g->qp[in.qp - g->o.qp_base];
	if (XL_AETH_KIND(in.syndrome) == 0)
		moved = xl_rc_on_ack(&q->rc, in.psn, (double)xl_monotonic_ns());
	else if (in.syndrome == XL_AETH_NAK_PSN_SEQ)
		moved = xl_rc_on_nak(&q->rc, in.psn);
	else
		moved = (g->acks.other++, 0);
	if (moved)
		follow_psn(g, q);
}

/* Everything the socket holds now. */
void gen_read_replies(struct gen_state *g)
{
	__u8 buf[2048];
	ssize_t n;

	while ((n = recv(g->acks.fd, buf, sizeof(buf), 0)) > 0)
		take_reply(g, buf, (size_t)n);
}

/* QPs whose ACK is overdue go back to their oldest PSN not acknowledged;
 * the earliest deadline still ahead goes to *first (0: none). -1 when a
 * QP that never had a reply has timed out XL_RC_RETRY_MAX times in a row:
 * nobody answers, and resending would go on for ever. */
int gen_check_timeouts(struct gen_state *g, double now, double *first)
{
	double timeout = (double)g->o.ack_timeout_ns, d;
	char dst[INET6_ADDRSTRLEN];
	__u32 i;

	*first = 0;
	for (i = 0; i < g->o.qps; i++) {
		struct gen_qp *q = &g->qp[i];

		if (xl_rc_check_timeout(&q->rc, now, timeout))
			follow_psn(g, q);
		if (q->rc.timeouts_in_row >= XL_RC_RETRY_MAX && !q->rc.acks && !q->rc.naks) {
			xl_err("--reliable: no ACK or NAK from %s for QP 0x%06x "
			       "after %u timeouts of %.3g ms: is the receiver answering "
			       "(xdpleaf sink --respond)?",
			       inet_ntop(g->f.family, g->f.fs.daddr, dst, sizeof(dst)), q->id.qpn,
			       q->rc.timeouts_in_row, timeout / 1e6);
			return -1;
		}
		d = xl_rc_deadline(&q->rc, timeout);
		if (d && (!*first || d < *first))
			*first = d;
	}
	return 0;
}

/* --reliable, nothing to send: until wake (ns; HUGE_VAL: no time set) or
 * a reply arrives, whichever is first. */
void gen_wait_reply(const struct gen_acks *a, double now, double wake)
{
	struct pollfd p = { .fd = a->fd, .events = POLLIN };
	struct timespec ts, *tp = NULL;
	double w = wake - now;

	if (w < 0)
		w = 0;
	if (wake != HUGE_VAL) {
		ts.tv_sec = (time_t)(w / 1e9);
		ts.tv_nsec = (long)(w - (double)ts.tv_sec * 1e9);
		tp = &ts;
	}
	ppoll(&p, 1, tp, NULL);
}

struct xl_rc_req gen_rc_totals(const struct gen_state *g)
{
	struct xl_rc_req t = { 0 };
	__u32 i;

	for (i = 0; i < g->o.qps; i++) {
		t.resent += g->qp[i].rc.resent;
		t.acks += g->qp[i].rc.acks;
		t.naks += g->qp[i].rc.naks;
		t.timeouts += g->qp[i].rc.timeouts;
	}
	return t;
}
