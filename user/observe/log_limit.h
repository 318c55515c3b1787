/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The serving exporter's stderr, at most one line a second. Whatever
 * writes to stderr (libmicrohttpd about each connection it drops, the
 * readers about a failed read, libbpf) goes through a pipe to a thread
 * that writes a line when a second has passed since the last one, and
 * otherwise counts it: a storm of bad connections costs a line a second
 * and a count, not a line each. */
#ifndef XL_LOG_LIMIT_H
#define XL_LOG_LIMIT_H

#include <stdbool.h>
#include <linux/types.h>

#define XL_LOG_LIMIT_NS 1000000000ULL

/* The rule, pure (tests/unit/test_log_limit.c). */
struct xl_log_limit {
	__u64 last_ns;      /* when the last line was written */
	bool wrote;         /* a line has been written */
	unsigned long held; /* lines held back since then */
};
/* A line came at now: whether to write it. Returns, in *report, how many
 * held-back lines to report before it (0: none). */
bool xl_log_limit_line(struct xl_log_limit *l, __u64 now, unsigned long *report);
/* No line came for a while: how many held-back lines to report now. */
unsigned long xl_log_limit_tick(struct xl_log_limit *l, __u64 now);

/* Route this process's stderr through the rule; 0, or -1 after saying
 * why (stderr unchanged). */
int xl_log_limit_start(void);
/* Restore stderr, after writing what is left. */
void xl_log_limit_stop(void);

#endif
