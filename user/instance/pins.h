/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Where an instance's pinned maps and links live, and the bpffs under them. */
#ifndef XL_PINS_H
#define XL_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define XL_BPFFS "/sys/fs/bpf"
#define XL_PIN_ROOT XL_BPFFS "/xdpleaf"
#define XL_RUN_DIR "/run/xdpleaf"
#define XL_INSTANCE_MAX 32

/* Instance names become directory names: [A-Za-z0-9_-], 1..31 chars. */
bool xl_instance_name_ok(const char *name);
/* PIN_ROOT/instance[/leaf] into buf. */
void xl_pin_path(char *buf, size_t len, const char *instance,
		 const char *leaf);
/* Make sure bpffs is mounted at /sys/fs/bpf; mounts it when this mount
 * namespace is the host's. Returns 0 or -1 after printing why. */
int xl_ensure_bpffs(void);
bool xl_instance_exists(const char *instance);
/* Whether path is a directory (not a symlink) owned by root with no
 * access for group or others, as xdpleaf makes its pin directories: one
 * another user made or can write could be renamed or filled under us.
 * 0, or -1 with why (path, owner, mode, what to do) in why. */
int xl_dir_is_ours(const char *path, char *why, size_t len);
/* xl_dir_is_ours of the pin root and, if it exists, the instance's
 * directory; prints why not. 0 or -1. */
int xl_check_pin_dirs(const char *instance);
/* Open a pinned map of an instance; prints a clear error on failure. */
int xl_open_pinned_map(const char *instance, const char *map);
/* Remove the instance's pin directory and everything in it. */
int xl_remove_pins(const char *instance);
/* The instance's `instance` map (where and by what it was loaded); false
 * when not loaded, or pinned by a version without it. */
struct xl_instance;
bool xl_read_instance_record(const char *instance, struct xl_instance *rec);

enum xl_inst_role {
	XL_INST_ABSENT = 0, /* nothing pinned under the instance's name */
	XL_INST_LEAF,
	XL_INST_HOST,
};
/* What kind of instance is loaded under this name: host mode pins
 * `host_cfg`, leaf mode never does. */
enum xl_inst_role xl_instance_role(const char *instance);

/* The names of the instances pinned under XL_PIN_ROOT, sorted, at most
 * max; the count, or -1 after printing why (no bpffs is 0 instances). */
int xl_list_instances(char names[][XL_INSTANCE_MAX], int max);

/* The id of a program pinned under the instance (pin: XL_PIN_PROG_*), 0
 * if there is none. */
__u32 xl_pinned_prog_id(const char *instance, const char *pin);

#endif
