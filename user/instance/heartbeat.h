/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The daemon's heartbeat (struct xl_heartbeat in the instance's pinned
 * `heartbeat` map): the daemon writes it from its loop (instance/daemon.c),
 * status, stats --json and the exporter read its age. A daemon whose pid
 * is alive but whose heartbeat is older than XL_HEARTBEAT_LIMIT_S is
 * "not responding" (stopped, hung): it follows no neighbour, link or
 * address change, and status exits XL_EXIT_DAEMON_STALE. */
#ifndef XL_HEARTBEAT_H
#define XL_HEARTBEAT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "xdpleaf.h"

/* How often the daemon beats, and the age past which status says it is
 * not responding: beats are 0.5-1.5 s apart (instance/daemon.c), so 5 s is
 * three missed beats at the least. The systemd unit's WatchdogSec is the
 * same limit. */
#define XL_HEARTBEAT_INTERVAL_MS 1000
#define XL_HEARTBEAT_LIMIT_S 5
#define XL_HEARTBEAT_STR_(x) #x
#define XL_HEARTBEAT_STR(x) XL_HEARTBEAT_STR_(x)
#define XL_HEARTBEAT_LIMIT_TEXT XL_HEARTBEAT_STR(XL_HEARTBEAT_LIMIT_S) " s" /* "5 s" */

/* status of an instance whose daemon is not responding: the exit code
 * (after 3, not loaded: base/output.h). */
#define XL_EXIT_DAEMON_STALE 4

/* The instance's heartbeat map, opened; -1 without one (an instance
 * loaded by a build without heartbeats: not an error, nothing said) or
 * after saying why it could not be opened. */
int xl_heartbeat_open(const char *instance);
/* Whether the instance has a heartbeat map pinned. */
bool xl_heartbeat_pinned(const char *instance);
/* One beat: now (CLOCK_MONOTONIC), pid and the count so far. 0 or -1. */
int xl_heartbeat_write(int fd, __u32 pid, __u64 beats);
/* The loader's entry in a new instance's map: the load's time, pid 0, so
 * that an instance whose daemon never beats ages from its load. */
struct bpf_map;
int xl_heartbeat_init(struct bpf_map *map);
/* 0 read; 1 the instance has no heartbeat map; -1 after saying why. */
int xl_heartbeat_read(const char *instance, struct xl_heartbeat *hb);

enum xl_daemon_state {
	XL_DAEMON_NOT_RUNNING,    /* no daemon process */
	XL_DAEMON_RUNNING,        /* alive, beating (or no heartbeat to judge) */
	XL_DAEMON_NOT_RESPONDING, /* alive, heartbeat past the limit */
};

/* The daemon of an instance as status, stats and the exporter see it. */
struct xl_daemon_health {
	int pid;             /* the running daemon's, 0: none */
	bool stopped;        /* its process is stopped (state T: SIGSTOP) */
	bool has_map;        /* the instance has a heartbeat map */
	struct xl_heartbeat hb;
	double age_s;        /* of hb.time_ns; < 0: unknown (no map, or never written) */
	enum xl_daemon_state state;
};

/* The state from the daemon's pid (0: none) and its heartbeat's age in
 * seconds (< 0: unknown, which is not judged). */
enum xl_daemon_state xl_daemon_judge(int pid, double age_s);
void xl_daemon_health(const char *instance, struct xl_daemon_health *h);
/* {"state", "pid", "stopped", "heartbeat_age_seconds" (null: unknown),
 * "heartbeat_pid", "heartbeats", "heartbeat_limit_seconds"} */
struct json_object *xl_daemon_health_json(const struct xl_daemon_health *h);
/* xl_daemon_health of the instance as JSON (stats --json, the exporter). */
struct json_object *xl_daemon_json(const char *instance);
/* What status prints after "daemon ": "running, pid N, heartbeat 0.4 s
 * ago", "NOT RESPONDING, pid N ...", "NOT running". */
void xl_daemon_health_print(FILE *f, const struct xl_daemon_health *h);
/* status' exit for it: 0, or XL_EXIT_DAEMON_STALE. */
int xl_daemon_health_exit(const struct xl_daemon_health *h);

#endif
