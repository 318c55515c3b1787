// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "pin_names.h"
#include "host.skel.h"
#include "common/upgrade.h"
#include "common/version.h"
#include "host/upgrade.h"

int xl_host_upgrade(const char *instance)
{
	static const char *const links[] = { XL_PIN_LINK_TCX_IN, XL_PIN_LINK_TCX_OUT };
	static const char *const progs[] = { XL_PIN_PROG_HOST_IN, XL_PIN_PROG_HOST_OUT };
	struct host *skel = host__open();
	int err = -1, n = 0;

	if (!skel) {
		fprintf(stderr, "xdpleaf: cannot open BPF object: %s\n", strerror(errno));
		return -1;
	}
	if (xl_upgrade_adopt_maps(skel->obj, instance))
		goto out;
	if (host__load(skel)) {
		fprintf(stderr, "xdpleaf: cannot load the new programs: %s\n", strerror(errno));
		goto out;
	}
	if (xl_upgrade_switch(skel->obj, instance, links, progs, 2, &n) ||
	    xl_upgrade_record(instance))
		goto out;
	printf("xdpleaf: instance '%s' upgraded to %s (%s): %d tcx links switched, "
	       "maps kept\n", instance, xl_version, xl_git_commit, n);
	err = 0;
out:
	host__destroy(skel);
	return err;
}
