/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The clocks user space reads, in ns. CLOCK_MONOTONIC is
 * bpf_ktime_get_ns()'s clock: ages of map entries, and every interval or
 * deadline a command keeps. Inline: `xdpleaf gen` reads it per batch. */
#ifndef XL_CLOCK_H
#define XL_CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 xl_clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

static inline __u64 xl_monotonic_ns(void)
{
	return xl_clock_ns(CLOCK_MONOTONIC);
}

#endif
