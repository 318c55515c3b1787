// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "instance/map_memory.h"
#include "instance/pins.h"

/* A pinned object's fdinfo: a map's has map_type and memlock (a
 * program's and a link's have no map_type). false if fd is no map. */
static bool read_fdinfo(int fd, struct xl_map_mem *m)
{
	char path[64], line[128];
	bool map = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		map |= sscanf(line, "map_type: %u", &m->type) == 1;
		sscanf(line, "max_entries: %u", &m->max_entries);
		sscanf(line, "memlock: %llu", &m->bytes);
	}
	fclose(f);
	return map;
}

static int by_bytes(const void *a, const void *b)
{
	const struct xl_map_mem *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->name, y->name);
}

int xl_map_memory(const char *instance, struct xl_map_mem *maps, int max,
		  __u64 *total)
{
	char dir[256], path[512];
	struct dirent *e;
	int n = 0;
	DIR *d;

	*total = 0;
	xl_pin_path(dir, sizeof(dir), instance, NULL);
	d = opendir(dir);
	if (!d) {
		xl_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && n < max) {
		struct xl_map_mem m = {};
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue; /* unpinned under us (an upgrade's repin) */
		if (read_fdinfo(fd, &m)) {
			snprintf(m.name, sizeof(m.name), "%.63s", e->d_name);
			*total += m.bytes;
			maps[n++] = m;
		}
		close(fd);
	}
	closedir(d);
	qsort(maps, n, sizeof(*maps), by_bytes);
	return n;
}

json_object *xl_map_memory_json(const char *instance)
{
	struct xl_map_mem maps[XL_MAP_MEMORY_MAX];
	json_object *o, *arr;
	__u64 total;
	int n = xl_map_memory(instance, maps, XL_MAP_MEMORY_MAX, &total);

	if (n < 0)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "bytes", json_object_new_uint64(total));
	for (int i = 0; i < n; i++) {
		json_object *m = json_object_new_object();
		const char *type = libbpf_bpf_map_type_str(maps[i].type);

		json_object_object_add(m, "name", json_object_new_string(maps[i].name));
		json_object_object_add(m, "type", json_object_new_string(type ? type : "?"));
		json_object_object_add(m, "max_entries", json_object_new_int64(maps[i].max_entries));
		json_object_object_add(m, "bytes", json_object_new_uint64(maps[i].bytes));
		json_object_array_add(arr, m);
	}
	json_object_object_add(o, "maps", arr);
	return o;
}

static const char *fmt_bytes(char *buf, size_t len, __u64 bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024.0));
	else
		snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
	return buf;
}

void xl_map_memory_print(FILE *f, const char *instance, int top)
{
	struct xl_map_mem maps[XL_MAP_MEMORY_MAX];
	__u64 total;
	int n = xl_map_memory(instance, maps, XL_MAP_MEMORY_MAX, &total);
	char b[32];

	if (n < 0)
		return;

	fprintf(f, "kernel memory: %s in %d maps", fmt_bytes(b, sizeof(b), total), n);
	for (int i = 0; i < n && i < top; i++) {
		fprintf(f, "%s %s %s", i ? "," : "; largest:", maps[i].name,
			fmt_bytes(b, sizeof(b), maps[i].bytes));
		if (maps[i].type != BPF_MAP_TYPE_RINGBUF) /* its size is its bytes */
			fprintf(f, " (%u entries)", maps[i].max_entries);
	}
	fprintf(f, "\n");
}
