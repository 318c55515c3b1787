/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The network namespace an instance was loaded in, and how to get there.
 * Interfaces, ifindexes and XDP hooks belong to one namespace, while the
 * pins are seen from all: `status` elsewhere would look at the wrong
 * interfaces, a daemon elsewhere would mirror the wrong neighbours. */
#ifndef XL_NETNS_H
#define XL_NETNS_H

#include <stddef.h>
#include <linux/types.h>

/* This process's network namespace: inode and device of its nsfs file,
 * and its name under /run/netns ("" if it has none). */
int xl_netns_self(__u64 *ino, __u64 *dev, char *name, size_t len);

/* 0 when this process runs in the namespace the instance was loaded in,
 * or that is unknown (not loaded, or pinned by a version that did not
 * record it). Else prints which namespace it is and the nsenter line that
 * runs argv there, and returns -1. */
int xl_netns_check(const char *instance, int argc, char **argv);

#endif
