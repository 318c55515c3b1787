// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <time.h>
#include <bpf/bpf.h>
#include <linux/types.h>
#include "leaf/fwd_gen.h"

int xl_fwd_changed(int gen_fd)
{
	static __u64 last;
	struct timespec ts;
	__u32 zero = 0;
	__u64 gen;

	if (gen_fd < 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	gen = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	if (gen <= last)
		gen = last + 1;
	last = gen;
	return bpf_map_update_elem(gen_fd, &zero, &gen, BPF_ANY);
}
