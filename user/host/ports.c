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
#include "pin_names.h"
#include "common/pins.h"
#include "host/ports.h"

#define LINK_IN XL_PIN_LINK_TCX_IN
#define LINK_OUT XL_PIN_LINK_TCX_OUT

/* struct bpf_link_info as the kernel fills it for a tcx link: the union
 * after type, id and prog_id (8-byte aligned) starts with the ifindex the
 * link is attached to (0 once the device is gone) and the attach type. */
union xl_link_info {
	struct bpf_link_info info;
	struct {
		__u32 type, id, prog_id, pad;
		__u32 ifindex, attach_type;
	} tcx;
};
_Static_assert(offsetof(union xl_link_info, tcx.ifindex) ==
	       offsetof(struct bpf_link_info, xdp.ifindex),
	       "tcx link info layout");

static void read_link(const char *instance, const char *prefix,
		      const char *port, struct xl_tcx_state *t)
{
	union xl_link_info li;
	__u32 len = sizeof(li);
	char pin[64], path[256];
	int fd;

	memset(t, 0, sizeof(*t));
	snprintf(pin, sizeof(pin), "%s%s", prefix, port);
	xl_pin_path(path, sizeof(path), instance, pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	memset(&li, 0, sizeof(li));
	if (bpf_obj_get_info_by_fd(fd, &li, &len) == 0 &&
	    li.tcx.type == XL_LINK_TYPE_TCX) {
		t->pinned = true;
		t->link_id = li.tcx.id;
		t->prog_id = li.tcx.prog_id;
		t->ifindex = li.tcx.ifindex;
		t->attach_type = li.tcx.attach_type;
	}
	close(fd);
}

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
		fprintf(stderr, "xdpleaf: instance '%s': cannot read %s: %s\n",
			instance, dir, strerror(errno));
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
		read_link(instance, LINK_IN, ports[i].name, &ports[i].in);
		read_link(instance, LINK_OUT, ports[i].name, &ports[i].out);
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
