/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The instance's record (struct xl_instance) and its daemon's heartbeat
 * (struct xl_heartbeat), declared in both modes' objects so that they are
 * created, pinned and described by BTF like their other maps. The record
 * is written once by the loader, the heartbeat by the daemon
 * (user/instance/heartbeat.c); no program touches either. */
#ifndef XL_INSTANCE_H
#define XL_INSTANCE_H

#include "pin_names.h"
#include "xdpleaf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_instance);
} XL_MAP_INSTANCE SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_heartbeat);
} XL_MAP_HEARTBEAT SEC(".maps");

#endif
