// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/opt_instance.h"
#include "instance/pins.h"
#include "xdpleaf.h"

bool xl_instance_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= XL_INSTANCE_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!(c == '_' || c == '-' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

int xl_opt_instance(const char *v, void *field, char *err, size_t errlen)
{
	if (!xl_instance_name_ok(v)) {
		snprintf(err, errlen, "bad instance name '%s': use 1-31 of [A-Za-z0-9_-]", v);
		return -1;
	}
	*(const char **)field = v;
	return 0;
}

void xl_pin_path(char *buf, size_t len, const char *instance, const char *leaf)
{
	if (leaf)
		snprintf(buf, len, "%s/%s/%s", XL_PIN_ROOT, instance, leaf);
	else
		snprintf(buf, len, "%s/%s", XL_PIN_ROOT, instance);
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == BPF_FS_MAGIC;
}

/* The process whose view of the mounts counts as the host's: pid 1, or,
 * where pid 1 is hidden from us (some sandboxes), our parent, since `ip
 * netns exec` unshares the mount namespace of the command it execs, not
 * of the shell that runs it. */
static void reference_proc(char *buf, size_t len)
{
	if (access("/proc/1/ns/mnt", R_OK) == 0)
		snprintf(buf, len, "/proc/1");
	else
		snprintf(buf, len, "/proc/%d", (int)getppid());
}

static bool in_host_mount_ns(void)
{
	struct stat self, ref;
	char path[64];

	reference_proc(path, sizeof(path) - 8);
	strcat(path, "/ns/mnt");
	if (stat("/proc/self/ns/mnt", &self) || stat(path, &ref))
		return true; /* cannot tell: assume the usual case */
	return self.st_ino == ref.st_ino && self.st_dev == ref.st_dev;
}

/* True when our /sys/fs/bpf is the same bpffs the host sees. */
static bool sees_host_bpffs(void)
{
	struct stat ours, host;
	char path[64];

	reference_proc(path, sizeof(path) - 20);
	strcat(path, "/root" XL_BPFFS);
	return is_bpffs(XL_BPFFS) && stat(XL_BPFFS, &ours) == 0 &&
	       stat(path, &host) == 0 && ours.st_dev == host.st_dev;
}

int xl_ensure_bpffs(void)
{
	if (in_host_mount_ns()) {
		if (is_bpffs(XL_BPFFS))
			return 0;
		if (mount("bpf", XL_BPFFS, "bpf", 0, "mode=0700")) {
			xl_err("cannot mount bpffs at %s: %s", XL_BPFFS, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* `ip netns exec` runs us in a private mount namespace with a fresh
	 * /sys (and, with some iproute2 versions, a fresh empty bpffs): pins
	 * made there vanish with the process and existing ones are hidden. */
	if (sees_host_bpffs())
		return 0;
	xl_err("%s here is not the host's bpffs (started with 'ip "
	       "netns exec'? it remounts /sys). Use 'nsenter --net=/run/netns/"
	       "NAME xdpleaf ...' instead.", XL_BPFFS);
	return -1;
}

int xl_dir_is_ours(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a directory (a symlink or a file): xdpleaf "
			 "did not make it; remove it and load again", path);
		return -1;
	}
	if (st.st_uid != 0 || (st.st_mode & 077)) {
		snprintf(why, len, "%s is owned by uid %u with mode %04o, not by root "
			 "with 0700: another user made it or can write it, and could "
			 "rename or replace what xdpleaf pins there; remove it (or chown "
			 "root and chmod 0700 if you made it) and load again", path,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int xl_check_pin_dirs(const char *instance)
{
	char path[256], why[512];
	struct stat st;

	if (lstat(XL_PIN_ROOT, &st) == 0 && xl_dir_is_ours(XL_PIN_ROOT, why, sizeof(why)))
		goto unsafe;
	xl_pin_path(path, sizeof(path), instance, NULL);
	if (lstat(path, &st) == 0 && xl_dir_is_ours(path, why, sizeof(why)))
		goto unsafe;
	return 0;
unsafe:
	xl_err("refusing to use the pins: %s", why);
	return -1;
}

bool xl_instance_exists(const char *instance)
{
	char path[256];
	struct stat st;

	xl_pin_path(path, sizeof(path), instance, NULL);
	return stat(path, &st) == 0;
}

int xl_open_pinned_map(const char *instance, const char *map)
{
	char path[256];
	int fd;

	xl_pin_path(path, sizeof(path), instance, map);
	fd = bpf_obj_get(path);
	if (fd < 0)
		xl_err("instance '%s': cannot open %s: %s", instance, path, strerror(errno));
	return fd;
}

static int remove_tree(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		char sub[512];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (de->d_type == DT_DIR)
			err |= remove_tree(sub);
		else if (unlink(sub))
			err = -1;
	}
	closedir(d);
	if (rmdir(path))
		err = -1;
	return err;
}

int xl_remove_pins(const char *instance)
{
	char path[256];

	xl_pin_path(path, sizeof(path), instance, NULL);
	return remove_tree(path);
}

bool xl_read_instance_record(const char *instance, struct xl_instance *rec)
{
	char path[256];
	__u32 zero = 0;
	int fd, err;

	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_INSTANCE));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	err = bpf_map_lookup_elem(fd, &zero, rec);
	close(fd);
	return !err && rec->netns_ino;
}

enum xl_inst_role xl_instance_role(const char *instance)
{
	char path[256];
	struct stat st;

	if (!xl_instance_exists(instance))
		return XL_INST_ABSENT;
	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_HOST_CFG));
	return stat(path, &st) == 0 ? XL_INST_HOST : XL_INST_LEAF;
}

__u32 xl_pinned_prog_id(const char *instance, const char *pin)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	int fd;

	xl_pin_path(path, sizeof(path), instance, pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int xl_list_instances(char names[][XL_INSTANCE_MAX], int max)
{
	DIR *d = opendir(XL_PIN_ROOT);
	struct dirent *e;
	int n = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		xl_err("%s: %s", XL_PIN_ROOT, strerror(errno));
		return -1;
	}
	while (n < max && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !xl_instance_name_ok(e->d_name))
			continue;
		/* xl_instance_name_ok: at most 31 characters */
		snprintf(names[n++], XL_INSTANCE_MAX, "%.31s", e->d_name);
	}
	closedir(d);
	qsort(names, n, XL_INSTANCE_MAX, by_name);
	return n;
}
