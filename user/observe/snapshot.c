// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/log.h"
#include "base/clock.h"
#include "observe/snapshot.h"

struct xl_snapshot {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* stop */
	pthread_t thread;
	bool stop;
	char *text;  /* the latest */
	size_t len;
	__u64 took; /* how long the last read took, ns */
	unsigned interval_ms;
	xl_snapshot_make make;
	void *ctx;
};

/* One read, timed into s->took (only the refresh thread, or the start
 * before it, reads it). */
static void refresh(struct xl_snapshot *s)
{
	__u64 t0 = xl_clock_ns(CLOCK_MONOTONIC);
	size_t len;
	char *text = s->make(s->ctx, xl_clock_ns(CLOCK_REALTIME), &len), *old;

	if (text) {
		pthread_mutex_lock(&s->lock);
		old = s->text;
		s->text = text;
		s->len = len;
		pthread_mutex_unlock(&s->lock);
		free(old);
	}
	s->took = xl_clock_ns(CLOCK_MONOTONIC) - t0;
}

static void *run(void *arg)
{
	struct xl_snapshot *s = arg;
	__u64 start = xl_clock_ns(CLOCK_MONOTONIC) - s->took; /* the first read's */

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		__u64 next = start + s->interval_ms * 1000000ULL;
		__u64 rest = start + (1 + XL_SNAPSHOT_IDLE_FACTOR) * s->took;
		struct timespec at;

		if (rest > next)
			next = rest;
		at.tv_sec = next / 1000000000ULL;
		at.tv_nsec = next % 1000000000ULL;
		if (pthread_cond_timedwait(&s->wake, &s->lock, &at) != ETIMEDOUT)
			continue; /* stop, or spurious: look again */
		pthread_mutex_unlock(&s->lock);
		start = xl_clock_ns(CLOCK_MONOTONIC);
		refresh(s);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct xl_snapshot *xl_snapshot_start(unsigned interval_ms, xl_snapshot_make make,
				      void *ctx)
{
	struct xl_snapshot *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	int err;

	if (!s) {
		xl_err("out of memory");
		return NULL;
	}
	s->interval_ms = interval_ms;
	s->make = make;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	/* the waits are on the monotonic clock: a clock step neither
	 * stalls nor rushes the refresh */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	refresh(s);
	if (!s->text) {
		xl_err("out of memory for the metrics");
		goto fail;
	}
	err = pthread_create(&s->thread, NULL, run, s);
	if (err) {
		xl_err("thread: %s", strerror(err));
		goto fail;
	}
	/* named, so that its CPU time can be told apart (/proc/PID/task) */
	pthread_setname_np(s->thread, XL_SNAPSHOT_THREAD);
	return s;
fail:
	free(s->text);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

char *xl_snapshot_copy(struct xl_snapshot *s, size_t *len)
{
	char *c;

	pthread_mutex_lock(&s->lock);
	c = malloc(s->len ? s->len : 1);
	if (c) {
		memcpy(c, s->text, s->len);
		*len = s->len;
	}
	pthread_mutex_unlock(&s->lock);
	return c;
}

void xl_snapshot_stop(struct xl_snapshot *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	free(s->text);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
