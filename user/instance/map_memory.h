/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The kernel memory an instance's pinned maps hold: each map's memlock,
 * the kernel's own figure (/proc/self/fdinfo of the map, what bpftool map
 * show prints), for status (text and --json). docs/operations.md has the
 * default instance's, map by map. */
#ifndef XL_MAP_MEMORY_H
#define XL_MAP_MEMORY_H

#include <stdio.h>
#include <linux/types.h>

#define XL_MAP_MEMORY_MAX 64 /* maps of one instance, at most: 28 now */

struct xl_map_mem {
	char name[64];      /* its pin's name */
	__u32 type;         /* enum bpf_map_type */
	__u32 max_entries;  /* a ring buffer: its bytes */
	__u64 bytes;        /* memlock */
};

/* The instance's pinned maps, largest first, at most max; their sum in
 * *total. The count, or -1 after saying why. */
int xl_map_memory(const char *instance, struct xl_map_mem *maps, int max,
		  __u64 *total);
/* {"bytes": total, "maps": [{"name", "type", "max_entries", "bytes"},
 * largest first]}, or NULL after saying why. */
struct json_object *xl_map_memory_json(const char *instance);
/* One line: "kernel memory: 20.3 MiB in 28 maps; largest: flows 15.0 MiB
 * (65536 entries), ..." with the `top` largest. */
void xl_map_memory_print(FILE *f, const char *instance, int top);

#endif
