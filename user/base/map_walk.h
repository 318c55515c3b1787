/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Reading every entry of a hash map (the flow table, the PSN table) in
 * batches: one BPF_MAP_LOOKUP_BATCH call per XL_WALK_BATCH entries
 * instead of a get_next_key and a lookup call per entry, into buffers
 * allocated once per walk. A million-entry table is read in 257
 * calls. */
#ifndef XL_MAP_WALK_H
#define XL_MAP_WALK_H

#include <stddef.h>

#define XL_WALK_BATCH 4096

/* fn(key, value, ctx) for every entry of the hash map at fd, in the map's
 * order, with key and value key_size and value_size bytes; they are only
 * valid during the call. The map's own key and value sizes must be those
 * (a map pinned by another version is refused, not misread). An entry
 * added or removed while the walk runs may or may not be seen; none is
 * seen twice. The number of entries seen, or -1 after saying why
 * (what: the map's name in the message). */
long xl_map_walk(int fd, const char *what, size_t key_size, size_t value_size,
		 void (*fn)(const void *key, const void *value, void *ctx), void *ctx);

#endif
