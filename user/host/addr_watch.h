/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Keeps a host instance's `host_addrs` map (the addresses the NP answers
 * for and the RP believes CNPs to: bpf/host_trust.h) equal to the ports'
 * addresses as the kernel has them, at load and reload and, in the
 * instance's daemon, at every address change rtnetlink reports. */
#ifndef XL_HOST_ADDR_WATCH_H
#define XL_HOST_ADDR_WATCH_H

#include <linux/types.h>

/* Make the map hold exactly the current IPv4/IPv6 addresses of the ports
 * (by ifindex): add the missing, delete the gone. added/removed (may be
 * NULL) get the counts; *total the entries now. 0, or -1 after saying
 * why (the map is left as far as it got). */
int xl_host_addrs_sync(int addrs_fd, const __u32 *ifindex, int n_ports,
		       int *added, int *removed, int *total);
/* The host daemon's work: follow address changes until the instance is
 * unloaded (instance/daemon.h). */
int xl_host_watch(const char *instance);

#endif
