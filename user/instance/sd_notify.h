/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* systemd's service notification (sd_notify(3)) without libsystemd: one
 * datagram to the unix socket named by $NOTIFY_SOCKET, which systemd sets
 * for a Type=notify service (scripts/xdpleaf-daemon@.service). The daemon
 * sends READY=1 once its loop runs, WATCHDOG=1 with each heartbeat and
 * STOPPING=1 when it ends. */
#ifndef XL_SD_NOTIFY_H
#define XL_SD_NOTIFY_H

/* Send state ("READY=1", ...) to $NOTIFY_SOCKET: a path, or an abstract
 * name written with a leading '@'. 1 sent; 0 when NOTIFY_SOCKET is unset
 * or empty (not under systemd: nothing to do); -1 on failure (an address
 * that is neither, too long, or a send that failed; errno says). */
int xl_sd_notify(const char *state);

#endif
