// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/percpu.h"

int xl_percpu_sum_u64(int map_fd, const void *key, size_t vsz, void *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t fields = vsz / sizeof(__u64), f;
	__u64 *vals, *s = sum;
	int c;

	memset(sum, 0, vsz);
	if (ncpu <= 0 || vsz % sizeof(__u64)) {
		errno = EINVAL;
		return -1;
	}
	/* the kernel lays per-CPU values out 8-byte aligned: these already are */
	vals = calloc((size_t)ncpu, vsz);
	if (!vals)
		return -1;
	if (bpf_map_lookup_elem(map_fd, key, vals)) {
		int e = errno;

		free(vals);
		errno = e;
		return -1;
	}
	for (c = 0; c < ncpu; c++)
		for (f = 0; f < fields; f++)
			s[f] += vals[(size_t)c * fields + f];
	free(vals);
	return 0;
}
