/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* A host instance's ports, read from its pins: it has no `ports` map, its
 * ports are the ones it has tcx links for (link_tcx_in_PORT,
 * link_tcx_out_PORT), each link telling its device and program. */
#ifndef XL_HOST_PORTS_H
#define XL_HOST_PORTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "xdpleaf.h"
#include "instance/tcx_link.h"

struct xl_host_port {
	char name[XL_IFNAMSIZ + 1]; /* as in the pin names (the config's) */
	struct xl_tcx_state in, out;
};

/* The instance's ports, sorted by name: the count (at most max), or -1
 * after printing why. */
int xl_host_read_ports(const char *instance, struct xl_host_port *ports, int max);
/* The port's device now: its ifindex from either link, 0 if both are
 * detached. */
__u32 xl_host_port_ifindex(const struct xl_host_port *p);
/* The port's current name from the links' ifindex (this network
 * namespace's view), else the name it was loaded with; buf holds
 * IF_NAMESIZE. */
const char *xl_host_port_ifname(const struct xl_host_port *p, char *buf);

#endif
