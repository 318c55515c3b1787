// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The send half of `xdpleaf sink --respond` (traffic/sink_respond.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <bpf/libbpf.h>
#include "traffic/rc.h"
#include "traffic/sink_respond.h"

/* How long one wait for replies lasts: how soon the thread sees stop. */
#define POLL_MS 50

struct xl_sink_responder {
	struct ring_buffer *rb;
	int fd;
	pthread_t thread;
	atomic_bool stop;
	struct xl_sink_responder_counts n; /* the thread's until joined */
};

static int send_one(void *ctx, void *data, size_t size)
{
	struct xl_sink_responder *s = ctx;
	__u8 frame[XL_RC_REPLY_MAX];
	size_t len;

	if (size < sizeof(struct xl_sink_reply))
		return 0;
	len = xl_rc_reply_frame(data, frame);
	if (send(s->fd, frame, len, 0) == (ssize_t)len)
		s->n.sent++;
	else
		s->n.send_errors++;
	return 0;
}

static void *run(void *arg)
{
	struct xl_sink_responder *s = arg;

	while (!atomic_load(&s->stop))
		ring_buffer__poll(s->rb, POLL_MS);
	ring_buffer__consume(s->rb);
	return NULL;
}

struct xl_sink_responder *xl_sink_responder_start(int ring_fd, int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = 0, /* send only */
		.sll_ifindex = ifindex,
	};
	struct xl_sink_responder *s = calloc(1, sizeof(*s));
	int one = 1, err;

	if (!s)
		return NULL;
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)))
		goto fail;
	/* Straight to the driver, as a NIC's ACKs leave: no qdisc, and no tc
	 * egress, where host mode's reaction point would take an ACK for
	 * data of ours to pace. */
	setsockopt(s->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	s->rb = ring_buffer__new(ring_fd, send_one, s, NULL);
	if (!s->rb)
		goto fail;
	err = pthread_create(&s->thread, NULL, run, s);
	if (err) {
		errno = err;
		goto fail;
	}
	return s;
fail:
	err = errno;
	ring_buffer__free(s->rb);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	errno = err;
	return NULL;
}

void xl_sink_responder_stop(struct xl_sink_responder *s,
			    struct xl_sink_responder_counts *counts)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	if (counts)
		*counts = s->n;
	ring_buffer__free(s->rb);
	close(s->fd);
	free(s);
}
