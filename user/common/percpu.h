/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Reading per-CPU counter maps. */
#ifndef XL_PERCPU_H
#define XL_PERCPU_H

#include <stddef.h>

/* The value at key of a per-CPU map, summed field by field over every
 * possible CPU into sum (vsz bytes). For values made of __u64 counters
 * only, which is every counter struct in include/. 0, or -1 with errno set
 * (the lookup failed, or vsz is not a whole number of __u64). */
int xl_percpu_sum_u64(int map_fd, const void *key, size_t vsz, void *sum);

#endif
