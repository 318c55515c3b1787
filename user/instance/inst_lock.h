/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* One command at a time changes an instance: load, unload, upgrade,
 * reload, and the daemon's start and replacement hold an exclusive flock
 * on /run/xdpleaf/INSTANCE.lock from before they look at the pins until
 * their changes are done. (bpffs takes no regular files, and the pin
 * directory comes and goes with the instance: neither can hold the lock.)
 * docs/operations.md, "One change at a time". */
#ifndef XL_INST_LOCK_H
#define XL_INST_LOCK_H

/* How long a command waits for another to finish by default; the
 * environment's XDPLEAF_LOCK_WAIT (seconds, 0..3600) overrides it. */
#define XL_LOCK_WAIT_S 30

/* The instance's lock, waited for while another process holds it (saying
 * once who, base/log.h). The fd to give xl_inst_unlock, or -1 after saying
 * why, naming the instance and the holder's pid and command line. */
int xl_inst_lock(const char *instance);
/* The lock if it is free now, else -1; says nothing. */
int xl_inst_trylock(const char *instance);
/* Release it. An instance that is not loaded keeps no lock file: it goes
 * first, while still held (a waiter on it then takes the lock on a file
 * no longer there, sees so, and starts again on a new one). */
void xl_inst_unlock(int fd, const char *instance);

#endif
