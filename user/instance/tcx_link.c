// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "instance/pins.h"
#include "pin_names.h"
#include "instance/tcx_link.h"

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

void xl_tcx_link_read(const char *instance, const char *prefix,
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

bool xl_tcx_ingress_pinned(const char *instance)
{
	char dir[256];
	struct dirent *e;
	bool tc = false;
	DIR *d;

	xl_pin_path(dir, sizeof(dir), instance, NULL);
	d = opendir(dir);
	if (!d)
		return false;
	while (!tc && (e = readdir(d)))
		tc = !strncmp(e->d_name, XL_PIN_LINK_TCX_IN, strlen(XL_PIN_LINK_TCX_IN));
	closedir(d);
	return tc;
}
