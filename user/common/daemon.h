/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The netlink watcher of a leaf instance as a process (what it does is
 * user/leaf/netlink_watch.c): at most one per instance, its pid in
 * /run/xdpleaf/INSTANCE.pid, in the background (started by load) or in
 * the foreground (`xdpleaf watch`, for a service manager). */
#ifndef XL_WATCHER_H
#define XL_WATCHER_H

#include <stdbool.h>

/* Pid of the instance's running watcher, 0 if none. */
int xl_watcher_pid(const char *instance);
/* A watcher that was started (its pid file is there) but is gone (killed,
 * crashed; or the pid on file is now another process's): start a new one
 * in the background. The caller runs in the instance's network namespace.
 * 0, or -1 after saying why. */
int xl_watcher_revive(const char *instance);
/* Fork it into the background (log in /run/xdpleaf/INSTANCE.log). */
int xl_watcher_start(const char *instance);
/* Stop it, if running, and remove its pid and log files. */
void xl_watcher_stop(const char *instance);
/* Run it in this process until the instance is unloaded. With a watcher
 * already running: refuse (saying which), or with replace stop it first. */
int xl_watcher_run(const char *instance, bool replace);

#endif
