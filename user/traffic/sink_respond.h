/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf sink --respond`: the send half of the RC responder. The
 * program (bpf/sink.bpf.c) decides which ACKs and NAKs to send and queues
 * them in its ring buffer; a thread of this process builds each one's
 * frame (traffic/rc.h) and sends it out of the interface the data came in
 * on, through an AF_PACKET socket. */
#ifndef XL_TRAFFIC_SINK_RESPOND_H
#define XL_TRAFFIC_SINK_RESPOND_H

#include <linux/types.h>

struct xl_sink_responder;

struct xl_sink_responder_counts {
	__u64 sent;        /* ACK and NAK frames sent */
	__u64 send_errors; /* frames the socket refused */
};

/* Start sending the replies queued in ring_fd out of ifindex. NULL (errno
 * set) if the socket, the ring's reader or the thread cannot be had. */
struct xl_sink_responder *xl_sink_responder_start(int ring_fd, int ifindex);

/* Stop the thread (after sending what is queued) and free; counts may be
 * NULL. */
void xl_sink_responder_stop(struct xl_sink_responder *s,
			    struct xl_sink_responder_counts *counts);

#endif
