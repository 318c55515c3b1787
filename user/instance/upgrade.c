// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Replacing a loaded instance's programs with this build's, keeping its
 * state: the new object adopts every pinned map (flow table, rates,
 * queues, counters), each link is switched to the new program
 * atomically (bpf_link_update: no packet sees no program), and the new
 * programs are pinned over the old. Both modes; docs/operations.md. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "xdpleaf.h"
#include "instance/pins.h"
#include "instance/upgrade.h"
#include "base/version.h"

int xl_upgrade_adopt_maps(struct bpf_object *obj, const char *instance)
{
	struct bpf_map *map;
	int err = 0;

	bpf_object__for_each_map(map, obj) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		char path[256];
		int fd;

		if (bpf_map__is_internal(map))
			continue; /* .rodata/.bss: the new build's own */
		xl_pin_path(path, sizeof(path), instance, bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* new in this build: created, pinned after */
			xl_err("cannot open %s: %s", path, strerror(errno));
			return -1;
		}
		if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    info.type != bpf_map__type(map) ||
		    info.key_size != bpf_map__key_size(map) ||
		    info.value_size != bpf_map__value_size(map)) {
			xl_err("map %s changed layout (pinned: type %u, "
			       "key %u, value %u bytes; this build: type %u, key %u, value "
			       "%u): upgrading would lose or misread it; unload and load "
			       "instead", bpf_map__name(map), info.type, info.key_size,
			       info.value_size, bpf_map__type(map), bpf_map__key_size(map),
			       bpf_map__value_size(map));
			err = -1;
		} else if (bpf_map__reuse_fd(map, fd)) {
			xl_err("cannot adopt %s: %s", path, strerror(errno));
			err = -1;
		}
		close(fd);
		if (err)
			return -1;
	}
	return 0;
}

/* The new program for a link pin, from the prefixes[i] -> progs[i]
 * table; -1 if the pin is no link of ours. */
static int prog_for_link(const char *name, const char *const *prefixes,
			 const int *progs, int n)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return progs[i];
	return -1;
}

/* Switch every link pin of the instance to its new program; on a
 * failure, the links switched so far go back to old_progs. */
static int update_links(const char *instance, const char *const *prefixes,
			const int *progs, const int *old_progs, int n, int *switched)
{
	char dir[256], path[512];
	struct dirent *e;
	DIR *d;
	int err = 0;

	xl_pin_path(dir, sizeof(dir), instance, NULL);
	d = opendir(dir);
	if (!d) {
		xl_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	*switched = 0;
	while (!err && (e = readdir(d))) {
		int prog = prog_for_link(e->d_name, prefixes, progs, n), fd;

		if (prog < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0 || bpf_link_update(fd, prog, NULL)) {
			xl_err("cannot switch %s to the new program: %s",
			       path, strerror(errno));
			err = -1;
		} else {
			(*switched)++;
		}
		if (fd >= 0)
			close(fd);
	}
	if (err) { /* back to the old programs, as far as we got */
		rewinddir(d);
		while ((e = readdir(d))) {
			int old = prog_for_link(e->d_name, prefixes, old_progs, n), fd;

			if (old < 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				bpf_link_update(fd, old, NULL);
				close(fd);
			}
		}
	}
	closedir(d);
	return err;
}

/* Pin fd as name, in place of what was pinned there (bpffs renames no
 * pin over another: for a moment the name is free, which readers of the
 * pins, status and the like, may see as a missing program). */
static int repin(int fd, const char *instance, const char *name)
{
	char path[256];

	xl_pin_path(path, sizeof(path), instance, name);
	if ((unlink(path) && errno != ENOENT) || bpf_obj_pin(fd, path)) {
		xl_err("cannot pin %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int switch_links(struct bpf_object *obj, const char *instance,
		      const char *const *link_prefixes, const char *const *prog_pins,
		      int n, int *n_links)
{
	int progs[4], old[4], err = 0;
	struct bpf_program *prog;
	struct bpf_map *map;
	char path[256];

	if (n > 4)
		return -1;
	for (int i = 0; i < n; i++) {
		struct bpf_program *p = NULL;
		const char *want = prog_pins[i] + strlen(XL_PIN_PROG_PREFIX);

		bpf_object__for_each_program(prog, obj) {
			const char *nm = bpf_program__name(prog);

			if (!strncmp(nm, "xdpleaf_", 8) && !strcmp(nm + 8, want))
				p = prog;
		}
		xl_pin_path(path, sizeof(path), instance, prog_pins[i]);
		old[i] = bpf_obj_get(path);
		/* a program the instance never had (an older build's leaf
		 * has no tc program) has no links to switch either */
		if (!p || (old[i] < 0 && errno != ENOENT)) {
			xl_err("%s: no %s in the instance or in this build",
			       instance, prog_pins[i]);
			err = -1;
		}
		progs[i] = p ? bpf_program__fd(p) : -1;
	}
	if (!err)
		err = update_links(instance, link_prefixes, progs, old, n, n_links);
	for (int i = 0; i < n; i++)
		if (old[i] >= 0)
			close(old[i]);
	if (err)
		return -1;
	/* the links run the new programs: pin them, and the maps new in
	 * this build, over or beside the old */
	bpf_object__for_each_program(prog, obj) {
		char name[64];
		const char *nm = bpf_program__name(prog);

		snprintf(name, sizeof(name), XL_PIN_PROG_PREFIX "%s",
			 strncmp(nm, "xdpleaf_", 8) ? nm : nm + 8);
		if (repin(bpf_program__fd(prog), instance, name))
			err = -1;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue;
		xl_pin_path(path, sizeof(path), instance, bpf_map__name(map));
		if (access(path, F_OK) && repin(bpf_map__fd(map), instance, bpf_map__name(map)))
			err = -1;
	}
	return err;
}

int xl_upgrade_daemon(const char *instance, xl_daemon_work work)
{
	int old = xl_daemon_pid(instance);

	if (!old)
		return 0;
	xl_daemon_stop(instance);
	if (xl_daemon_start(instance, work))
		return -1;
	printf("xdpleaf: instance '%s': its daemon (pid %d) was an older build's; "
	       "replaced by this build's, pid %d\n", instance, old,
	       xl_daemon_pid(instance));
	return 0;
}

/* The instance record's version and commit become this build's. */
static int record_version(const char *instance)
{
	struct xl_instance rec;
	__u32 zero = 0;
	int fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_INSTANCE)), err;

	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, &rec);
	if (!err) {
		snprintf(rec.version, sizeof(rec.version), "%s", xl_version);
		snprintf(rec.git_commit, sizeof(rec.git_commit), "%s", xl_git_commit);
		err = bpf_map_update_elem(fd, &zero, &rec, BPF_ANY);
	}
	close(fd);
	return err;
}

int xl_upgrade(struct bpf_object *obj, const char *instance,
	       const char *const *link_prefixes, const char *const *prog_pins,
	       int n, const char *kind)
{
	int n_links = 0;

	if (xl_upgrade_adopt_maps(obj, instance))
		return -1;
	if (bpf_object__load(obj)) {
		xl_err("cannot load the new programs: %s", strerror(errno));
		return -1;
	}
	if (switch_links(obj, instance, link_prefixes, prog_pins, n, &n_links) ||
	    record_version(instance))
		return -1;
	printf("xdpleaf: instance '%s' upgraded to %s (%s): %d %s links switched, "
	       "maps kept\n", instance, xl_version, xl_git_commit, n_links, kind);
	return 0;
}
