// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/daemon.h"
#include "instance/heartbeat.h"
#include "base/output.h"
#include "instance/pins.h"

int xl_heartbeat_open(const char *instance)
{
	char path[256];
	int fd;

	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_HEARTBEAT));
	fd = bpf_obj_get(path);
	if (fd < 0 && errno != ENOENT)
		xl_err("instance '%s': cannot open %s: %s", instance, path, strerror(errno));
	return fd;
}

bool xl_heartbeat_pinned(const char *instance)
{
	char path[256];

	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_HEARTBEAT));
	return access(path, F_OK) == 0;
}

int xl_heartbeat_write(int fd, __u32 pid, __u64 beats)
{
	struct xl_heartbeat hb = { .time_ns = xl_monotonic_ns(), .beats = beats,
				   .pid = pid };
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, &hb, BPF_ANY) ? -1 : 0;
}

int xl_heartbeat_init(struct bpf_map *map)
{
	struct xl_heartbeat hb = { .time_ns = xl_monotonic_ns() };
	__u32 zero = 0;

	if (bpf_map__update_elem(map, &zero, sizeof(zero), &hb, sizeof(hb), BPF_ANY)) {
		xl_err("cannot write %s: %s", bpf_map__name(map), strerror(errno));
		return -1;
	}
	return 0;
}

int xl_heartbeat_read(const char *instance, struct xl_heartbeat *hb)
{
	__u32 zero = 0;
	int fd = xl_heartbeat_open(instance), err;

	memset(hb, 0, sizeof(*hb));
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	err = bpf_map_lookup_elem(fd, &zero, hb);
	if (err)
		xl_err("instance '%s': cannot read its heartbeat: %s",
		       instance, strerror(errno));
	close(fd);
	return err ? -1 : 0;
}

enum xl_daemon_state xl_daemon_judge(int pid, double age_s)
{
	if (pid <= 0)
		return XL_DAEMON_NOT_RUNNING;
	return age_s > XL_HEARTBEAT_LIMIT_S ? XL_DAEMON_NOT_RESPONDING : XL_DAEMON_RUNNING;
}

void xl_daemon_health(const char *instance, struct xl_daemon_health *h)
{
	__u64 now;

	memset(h, 0, sizeof(*h));
	/* the pid first: a daemon beats before its pid is on file
	 * (instance/daemon.c), so a live pid read here has beaten by now */
	h->pid = xl_daemon_pid(instance);
	h->stopped = h->pid && xl_process_state(h->pid) == 'T';
	h->has_map = xl_heartbeat_read(instance, &h->hb) == 0;
	now = xl_monotonic_ns();
	h->age_s = !h->has_map || !h->hb.time_ns ? -1 :
		   now > h->hb.time_ns ? (now - h->hb.time_ns) / 1e9 : 0;
	h->state = xl_daemon_judge(h->pid, h->age_s);
}

json_object *xl_daemon_health_json(const struct xl_daemon_health *h)
{
	static const char *const names[] = {
		[XL_DAEMON_NOT_RUNNING] = "not running",
		[XL_DAEMON_RUNNING] = "running",
		[XL_DAEMON_NOT_RESPONDING] = "not responding",
	};
	json_object *o = json_object_new_object();

	json_object_object_add(o, "state", json_object_new_string(names[h->state]));
	json_object_object_add(o, "pid", json_object_new_int64(h->pid));
	json_object_object_add(o, "stopped", json_object_new_boolean(h->stopped));
	json_object_object_add(o, "heartbeat_age_seconds", h->age_s < 0 ? NULL :
			       json_object_new_double(h->age_s));
	json_object_object_add(o, "heartbeat_pid", json_object_new_int64(h->hb.pid));
	json_object_object_add(o, "heartbeats", json_object_new_uint64(h->hb.beats));
	json_object_object_add(o, "heartbeat_limit_seconds",
			       json_object_new_int(XL_HEARTBEAT_LIMIT_S));
	return o;
}

json_object *xl_daemon_json(const char *instance)
{
	struct xl_daemon_health h;

	xl_daemon_health(instance, &h);
	return xl_daemon_health_json(&h);
}

void xl_daemon_health_print(FILE *f, const struct xl_daemon_health *h)
{
	if (h->state == XL_DAEMON_NOT_RUNNING) {
		fprintf(f, "NOT running");
	} else if (h->state == XL_DAEMON_NOT_RESPONDING) {
		fprintf(f, "NOT RESPONDING, pid %d%s: ", h->pid,
			h->stopped ? " (process stopped)" : "");
		if (h->hb.pid)
			fprintf(f, "last heartbeat %.1f s ago", h->age_s);
		else
			fprintf(f, "no heartbeat since the load %.1f s ago", h->age_s);
		fprintf(f, " (limit %d s); neighbour, link and address changes are "
			"not followed (kill -CONT %d if stopped; kill -9 %d: the next "
			"status starts a new one)", XL_HEARTBEAT_LIMIT_S, h->pid, h->pid);
	} else {
		fprintf(f, "running, pid %d, ", h->pid);
		if (!h->has_map)
			fprintf(f, "no heartbeat (the instance was loaded by a build "
				"without one: xdpleaf upgrade adds it)");
		else if (h->age_s < 0)
			fprintf(f, "no heartbeat yet");
		else
			fprintf(f, "heartbeat %.1f s ago", h->age_s);
	}
}

int xl_daemon_health_exit(const struct xl_daemon_health *h)
{
	return h->state == XL_DAEMON_NOT_RESPONDING ? XL_EXIT_DAEMON_STALE : 0;
}
