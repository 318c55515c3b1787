/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* An instance's daemon as a process: at most one per instance, its pid in
 * /run/xdpleaf/INSTANCE.pid, in the background (started by load, log in
 * /run/xdpleaf/INSTANCE.log) or in the foreground (`xdpleaf daemon`, for a
 * service manager: xdpleaf-daemon@.service, from
 * scripts/xdpleaf-daemon@.service.in). What it does is the
 * mode's: a leaf's follows neighbours and uplinks (leaf/netlink_watch.c),
 * a host's the ports' addresses (host/addr_watch.c). It holds no state of
 * its own: a new one adopts the pinned maps as they are. */
#ifndef XL_DAEMON_H
#define XL_DAEMON_H

#include <stdbool.h>
#include "base/log.h"

/* The mode's work: runs until the instance is unloaded; 0 then, or -1. */
typedef int (*xl_daemon_work)(const char *instance);

/* True once the daemon was asked to stop (SIGTERM, SIGINT): the work
 * functions end their loop then, as when the instance is unloaded. */
bool xl_daemon_stopping(void);

/* The work's loop calls this at least once a second: the heartbeat
 * (instance/heartbeat.h) and, under systemd, READY=1 the first time and
 * WATCHDOG=1 with each beat (instance/sd_notify.h). Outside a daemon it
 * does nothing. */
void xl_daemon_beat(void);

/* The state letter of /proc/PID/stat (R, S, T stopped, Z, ...), 0 if
 * there is no such process. */
char xl_process_state(int pid);

/* Pid of the instance's running daemon, 0 if none: a pid on file counts
 * only if that process is alive and is our daemon (its name). */
int xl_daemon_pid(const char *instance);
/* A daemon that was started (its pid file is there) but is gone (killed,
 * crashed; or the pid on file is now another process's): start a new one
 * in the background; left alone while a command holds the instance's
 * lock (that command sees to the daemon). The caller runs in the
 * instance's network namespace. 0, or -1 after saying why. */
int xl_daemon_revive(const char *instance, xl_daemon_work work);
/* Fork it into the background at level info. 0, or -1 after saying why. */
int xl_daemon_start(const char *instance, xl_daemon_work work);
/* Stop it, if running (SIGTERM to a verified pid only), and remove its
 * pid and log files. */
void xl_daemon_stop(const char *instance);
/* Run it in this process until the instance is unloaded, logging at level
 * to stderr (the journal under systemd). With a daemon already running:
 * refuse (saying which), or with replace stop it first. */
int xl_daemon_run(const char *instance, bool replace, enum xl_log_level level,
		  xl_daemon_work work);

#endif
