/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Reading per-CPU counter maps. */
#ifndef XL_PERCPU_H
#define XL_PERCPU_H

#include <stddef.h>

/* The value at key of a per-CPU map into sum (vsz bytes): its first
 * counter_bytes, __u64 counters, summed over every possible CPU; the rest
 * (labels such as struct xl_port_stats' port name) as CPU 0 holds it. 0,
 * or -1 with errno set (the lookup failed, or counter_bytes is not a whole
 * number of __u64 within vsz). */
int xl_percpu_sum(int map_fd, const void *key, size_t vsz,
		  size_t counter_bytes, void *sum);
/* The same for values made of __u64 counters only. */
static inline int xl_percpu_sum_u64(int map_fd, const void *key, size_t vsz,
				    void *sum)
{
	return xl_percpu_sum(map_fd, key, vsz, vsz, sum);
}

/* Write len bytes of label at offset off of every CPU's copy of the value
 * at key, its counters kept: the names that make a dump of a counter map
 * readable (struct xl_port_stats). A read-modify-write of the whole entry,
 * which loses what the dataplane counts meanwhile, so done only where a
 * copy's label differs. 0, or -1 with errno set. */
int xl_percpu_set_label(int map_fd, const void *key, size_t vsz, size_t off,
			const void *label, size_t len);

#endif
