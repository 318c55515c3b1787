/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The text the exporter serves, made by a thread of its own: it reads the
 * maps and writes the metrics every interval, and a scrape takes a copy
 * of the latest text. So a scrape costs a copy whatever the tables hold,
 * and scrapes never wait for each other or for a read. */
#ifndef XL_SNAPSHOT_H
#define XL_SNAPSHOT_H

#include <stddef.h>
#include <linux/types.h>

/* Makes the text (malloc'd, *len bytes; NULL: failed, the last text
 * stays), given when the reads began (CLOCK_REALTIME, ns). */
typedef char *(*xl_snapshot_make)(void *ctx, __u64 began_ns, size_t *len);

/* A read waits at least this many times its own duration after it, so
 * that the refresh never takes more than a sixth of a CPU, however big
 * the tables. */
#define XL_SNAPSHOT_IDLE_FACTOR 5

/* The reading thread's name (its comm) */
#define XL_SNAPSHOT_THREAD "exporter-read"

struct xl_snapshot;
/* Make the first text now, then one every interval_ms (or, after a long
 * read, XL_SNAPSHOT_IDLE_FACTOR times its duration after it ended) in a
 * thread. NULL after saying why. */
struct xl_snapshot *xl_snapshot_start(unsigned interval_ms, xl_snapshot_make make,
				      void *ctx);
/* A malloc'd copy of the latest text (*len bytes), NULL if out of memory. */
char *xl_snapshot_copy(struct xl_snapshot *s, size_t *len);
void xl_snapshot_stop(struct xl_snapshot *s);

#endif
