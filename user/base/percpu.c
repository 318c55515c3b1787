// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/percpu.h"

int xl_percpu_sum(int map_fd, const void *key, size_t vsz,
		  size_t counter_bytes, void *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t fields = counter_bytes / sizeof(__u64), stride, f;
	__u64 *vals, *s = sum;
	int c;

	memset(sum, 0, vsz);
	if (ncpu <= 0 || counter_bytes % sizeof(__u64) || counter_bytes > vsz) {
		errno = EINVAL;
		return -1;
	}
	/* the kernel lays per-CPU values out 8-byte aligned */
	stride = (vsz + 7) / 8;
	vals = calloc((size_t)ncpu, stride * 8);
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
			s[f] += vals[(size_t)c * stride + f];
	memcpy((char *)sum + counter_bytes, (char *)vals + counter_bytes,
	       vsz - counter_bytes);
	free(vals);
	return 0;
}

/* Whether every CPU's copy in vals already holds label at off. */
static bool label_everywhere(const char *vals, int ncpu, size_t stride, size_t off,
			     const void *label, size_t len)
{
	for (int c = 0; c < ncpu; c++)
		if (memcmp(vals + (size_t)c * stride + off, label, len))
			return false;
	return true;
}

int xl_percpu_set_label(int map_fd, const void *key, size_t vsz, size_t off,
			const void *label, size_t len)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (vsz + 7) / 8 * 8;
	char *vals;
	int err = 0;

	if (ncpu <= 0 || off + len > vsz) {
		errno = EINVAL;
		return -1;
	}
	vals = calloc((size_t)ncpu, stride);
	if (!vals)
		return -1;
	/* keep the counters: the entry may be live */
	if (bpf_map_lookup_elem(map_fd, key, vals))
		memset(vals, 0, (size_t)ncpu * stride);
	/* The write puts back every CPU's counters as the lookup read them:
	 * what the dataplane counted in between is lost. So a label already
	 * in place (a reload: the ports and classes keep their names) is
	 * not written again. */
	if (!label_everywhere(vals, ncpu, stride, off, label, len)) {
		for (int c = 0; c < ncpu; c++)
			memcpy(vals + (size_t)c * stride + off, label, len);
		if (bpf_map_update_elem(map_fd, key, vals, BPF_ANY))
			err = -1;
	}
	free(vals);
	return err;
}
