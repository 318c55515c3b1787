// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "base/log.h"
#include "base/map_walk.h"

long xl_map_walk(int fd, const char *what, size_t key_size, size_t value_size,
		 void (*fn)(const void *key, const void *value, void *ctx), void *ctx)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info), token = 0;
	char *keys = NULL, *vals = NULL;
	long seen = 0;
	bool first = true, done = false;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len)) {
		xl_err("map %s: %s", what, strerror(errno));
		return -1;
	}
	if (info.key_size != key_size || info.value_size != value_size) {
		xl_err("map %s: key and value of %u and %u bytes, "
		       "this build reads %zu and %zu (pinned by another version?)",
		       what, info.key_size, info.value_size, key_size, value_size);
		return -1;
	}
	keys = malloc(XL_WALK_BATCH * key_size);
	vals = malloc(XL_WALK_BATCH * value_size);
	if (!keys || !vals) {
		xl_err("map %s: out of memory", what);
		seen = -1;
		done = true;
	}
	/* The hash map's batch token is the next bucket to read: entries
	 * come a bucket at a time, so a batch ends early rather than split
	 * one (ENOSPC only if one bucket held more than a whole batch).
	 * ENOENT: the last batch, possibly with entries. Batch lookups of
	 * hash maps came in Linux 5.6, before the BPF links xdpleaf needs. */
	while (!done) {
		__u32 n = XL_WALK_BATCH;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
					       keys, vals, &n, NULL);

		if (err && errno != ENOENT) {
			xl_err("map %s: batch lookup: %s", what, strerror(errno));
			seen = -1;
			break;
		}
		done = err != 0;
		first = false;
		for (__u32 i = 0; i < n; i++)
			fn(keys + i * key_size, vals + i * value_size, ctx);
		seen += n;
	}
	free(keys);
	free(vals);
	return seen;
}
