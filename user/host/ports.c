// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/pins.h"
#include "instance/tcx_link.h"
#include "host/ports.h"

#define LINK_IN XL_PIN_LINK_TCX_IN
#define LINK_OUT XL_PIN_LINK_TCX_OUT

static int by_port_name(const void *a, const void *b)
{
	return strcmp(((const struct xl_host_port *)a)->name,
		      ((const struct xl_host_port *)b)->name);
}

/* The instance's ports: every PORT with a link_tcx_in_PORT or
 * link_tcx_out_PORT pin, sorted by name. */
int xl_host_read_ports(const char *instance, struct xl_host_port *ports, int max)
{
	char dir[256];
	struct dirent *de;
	DIR *d;
	int n = 0;

	xl_pin_path(dir, sizeof(dir), instance, NULL);
	d = opendir(dir);
	if (!d) {
		xl_err("instance '%s': cannot read %s: %s", instance, dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		const char *port;
		int i;

		if (!strncmp(de->d_name, LINK_IN, strlen(LINK_IN)))
			port = de->d_name + strlen(LINK_IN);
		else if (!strncmp(de->d_name, LINK_OUT, strlen(LINK_OUT)))
			port = de->d_name + strlen(LINK_OUT);
		else
			continue;
		if (!*port || strlen(port) > XL_IFNAMSIZ)
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(ports[i].name, port))
				break;
		if (i < n || n == max)
			continue;
		memset(&ports[n], 0, sizeof(ports[n]));
		snprintf(ports[n].name, sizeof(ports[n].name), "%s", port);
		n++;
	}
	closedir(d);
	qsort(ports, n, sizeof(ports[0]), by_port_name);
	for (int i = 0; i < n; i++) {
		xl_tcx_link_read(instance, LINK_IN, ports[i].name, &ports[i].in);
		xl_tcx_link_read(instance, LINK_OUT, ports[i].name, &ports[i].out);
	}
	return n;
}

__u32 xl_host_port_ifindex(const struct xl_host_port *p)
{
	return p->in.ifindex ? p->in.ifindex : p->out.ifindex;
}

/* The port's current name from the links' ifindex (this network
 * namespace's view), else the name it was loaded with. */
const char *xl_host_port_ifname(const struct xl_host_port *p, char *buf)
{
	__u32 ifindex = xl_host_port_ifindex(p);

	if (ifindex && if_indextoname(ifindex, buf))
		return buf;
	return p->name;
}
