// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "host.skel.h"
#include "instance/upgrade.h"
#include "host/upgrade.h"
#include "host/addr_watch.h"
#include "instance/heartbeat.h"

int xl_host_upgrade(const char *instance)
{
	static const char *const links[] = { XL_PIN_LINK_TCX_IN, XL_PIN_LINK_TCX_OUT };
	static const char *const progs[] = { XL_PIN_PROG_HOST_IN, XL_PIN_PROG_HOST_OUT };
	struct host *skel = host__open();
	bool had_beat = xl_heartbeat_pinned(instance);
	int err;

	if (!skel) {
		xl_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	err = xl_upgrade(skel->obj, instance, links, progs, 2, "tcx");
	host__destroy(skel);
	/* from a build without heartbeats: its daemon does not beat */
	if (!err && !had_beat)
		err = xl_upgrade_daemon(instance, xl_host_watch);
	return err;
}
