// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* An instance's life, the same in both modes: links held as fds until
 * pinned (closing them is the rollback), every map, program and link
 * pinned under /sys/fs/bpf/xdpleaf/INSTANCE, the `instance` record, and
 * unload. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/attach.h"
#include "instance/netns.h"
#include "instance/pins.h"
#include "base/version.h"

void xl_attach_add(struct xl_attach_state *st, int fd, const char *prefix,
		   const char *port)
{
	if (st->n_links >= (int)(sizeof(st->links) / sizeof(st->links[0]))) {
		close(fd);
		return;
	}
	st->links[st->n_links].fd = fd;
	snprintf(st->links[st->n_links].name, sizeof(st->links[0].name), "%s%s",
		 prefix, port);
	st->n_links++;
}

void xl_attach_close(struct xl_attach_state *st)
{
	for (int i = 0; i < st->n_links; i++)
		close(st->links[i].fd);
	st->n_links = 0;
}

static int pin_one(int fd, const char *instance, const char *name)
{
	char path[256];

	xl_pin_path(path, sizeof(path), instance, name);
	if (bpf_obj_pin(fd, path)) {
		xl_err("cannot pin %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int xl_pin_object(struct bpf_object *obj, const struct xl_attach_state *st,
		  const char *instance)
{
	char dir[256], name[64];
	struct bpf_program *prog;
	struct bpf_map *map;

	xl_pin_path(dir, sizeof(dir), instance, NULL);
	if (mkdir(XL_PIN_ROOT, 0700) && errno != EEXIST)
		goto fail;
	/* made by us now or before, or by someone else: checked either way */
	if (xl_check_pin_dirs(instance))
		return -1;
	/* Another's directory (made after our check by a process that
	 * holds no instance lock) is refused and left as it is. */
	if (mkdir(dir, 0700))
		goto fail;
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue; /* .rodata/.bss: nothing an operator reads */
		if (pin_one(bpf_map__fd(map), instance, bpf_map__name(map)))
			goto undo;
	}
	bpf_object__for_each_program(prog, obj) {
		/* "xdpleaf_leaf" -> XL_PIN_PROG_LEAF */
		const char *n = bpf_program__name(prog);

		snprintf(name, sizeof(name), XL_PIN_PROG_PREFIX "%s",
			 strncmp(n, "xdpleaf_", 8) ? n : n + 8);
		if (pin_one(bpf_program__fd(prog), instance, name))
			goto undo;
	}
	for (int i = 0; i < st->n_links; i++)
		if (pin_one(st->links[i].fd, instance, st->links[i].name))
			goto undo;
	return 0;
undo: /* the directory is ours, made above: it goes with what is in it */
	xl_remove_pins(instance);
	return -1;
fail:
	xl_err("cannot create %s: %s", dir, strerror(errno));
	return -1;
}

int xl_check_new_instance(const char *instance)
{
	if (xl_ensure_bpffs() || xl_check_pin_dirs(instance))
		return -1;
	if (xl_instance_exists(instance)) {
		xl_err("instance '%s' is already loaded (%s/%s); run "
		       "'xdpleaf unload --instance %s' first",
		       instance, XL_PIN_ROOT, instance, instance);
		return -1;
	}
	return 0;
}

int xl_record_instance(struct bpf_map *map)
{
	struct xl_instance rec = {};
	__u32 zero = 0;

	if (xl_netns_self(&rec.netns_ino, &rec.netns_dev, rec.netns_name,
			  sizeof(rec.netns_name))) {
		xl_err("cannot read /proc/self/ns/net: %s", strerror(errno));
		return -1;
	}
	snprintf(rec.version, sizeof(rec.version), "%s", xl_version);
	snprintf(rec.git_commit, sizeof(rec.git_commit), "%s", xl_git_commit);
	if (bpf_map__update_elem(map, &zero, sizeof(zero), &rec, sizeof(rec),
				 BPF_ANY)) {
		xl_err("cannot write %s: %s", bpf_map__name(map), strerror(errno));
		return -1;
	}
	return 0;
}

int xl_unload(const char *instance)
{
	bool loaded;

	if (xl_ensure_bpffs() || xl_check_pin_dirs(instance))
		return -1;
	loaded = xl_instance_exists(instance);
	/* Unpinning the links drops their last reference: that detaches, in
	 * whichever network namespace the ports are. */
	if (xl_remove_pins(instance)) {
		xl_err("cannot remove pins of '%s': %s", instance, strerror(errno));
		return -1;
	}
	if (loaded)
		printf("xdpleaf: instance '%s' unloaded\n", instance);
	else
		printf("xdpleaf: instance '%s' is not loaded; nothing to unload\n",
		       instance);
	return 0;
}
