// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"
#include "base/clock.h"
#include "observe/log_limit.h"

bool xl_log_limit_line(struct xl_log_limit *l, __u64 now, unsigned long *report)
{
	*report = 0;
	if (l->wrote && now - l->last_ns < XL_LOG_LIMIT_NS) {
		l->held++;
		return false;
	}
	*report = l->held;
	l->held = 0;
	l->wrote = true;
	l->last_ns = now;
	return true;
}

unsigned long xl_log_limit_tick(struct xl_log_limit *l, __u64 now)
{
	unsigned long n = l->held;

	if (!n || now - l->last_ns < XL_LOG_LIMIT_NS)
		return 0;
	l->held = 0;
	l->last_ns = now;
	return n;
}

#define LINE_MAX_BYTES 1024

static struct {
	int out;     /* the real stderr */
	int in;      /* the pipe's read end */
	pthread_t thread;
	struct xl_log_limit rule;
	char line[LINE_MAX_BYTES];
	size_t len;
} lim = { .out = -1, .in = -1 };

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(lim.out, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nowhere to say it */
		s += w;
		n -= w;
	}
}

static void report(unsigned long held)
{
	char buf[160];
	int n;

	if (!held)
		return;
	n = snprintf(buf, sizeof(buf), "xdpleaf exporter: %lu more line%s not shown "
		     "(at most one a second)\n", held, held == 1 ? "" : "s");
	put(buf, (size_t)n);
}

/* One whole line (a longer one cut at LINE_MAX_BYTES). */
static void line_done(void)
{
	unsigned long held;

	if (xl_log_limit_line(&lim.rule, xl_monotonic_ns(), &held)) {
		report(held);
		put(lim.line, lim.len);
		put("\n", 1);
	}
	lim.len = 0;
}

static void *drain(void *arg)
{
	struct pollfd p = { .fd = lim.in, .events = POLLIN };
	char buf[4096];

	(void)arg;
	for (;;) {
		ssize_t n;

		/* a second without lines: report what was held back */
		if (poll(&p, 1, 1000) == 0) {
			report(xl_log_limit_tick(&lim.rule, xl_monotonic_ns()));
			continue;
		}
		n = read(lim.in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* every writer closed: stopping */
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n')
				line_done();
			else if (lim.len < sizeof(lim.line))
				lim.line[lim.len++] = buf[i];
		}
	}
	if (lim.len)
		line_done();
	report(lim.rule.held);
	return NULL;
}

int xl_log_limit_start(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		xl_err("pipe: %s", strerror(errno));
		return -1;
	}
	lim.out = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (lim.out < 0 || dup2(p[1], 2) < 0) {
		xl_err("cannot redirect stderr: %s", strerror(errno));
		goto fail;
	}
	close(p[1]);
	lim.in = p[0];
	errno = pthread_create(&lim.thread, NULL, drain, NULL);
	if (errno) {
		dup2(lim.out, 2);
		xl_err("thread: %s", strerror(errno));
		p[1] = -1;
		goto fail;
	}
	return 0;
fail:
	if (lim.out >= 0)
		close(lim.out);
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	lim.out = lim.in = -1;
	return -1;
}

void xl_log_limit_stop(void)
{
	if (lim.in < 0)
		return;
	/* stderr back: the pipe's last writer is gone, the thread drains
	 * what is left and ends */
	dup2(lim.out, 2);
	pthread_join(lim.thread, NULL);
	close(lim.in);
	close(lim.out);
	lim.in = lim.out = -1;
}
