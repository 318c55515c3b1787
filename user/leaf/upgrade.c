// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/tcx_link.h"
#include "leaf.skel.h"
#include "instance/upgrade.h"
#include "leaf/upgrade.h"
#include "leaf/netlink_watch.h"
#include "instance/daemon.h"
#include "instance/heartbeat.h"
#include "instance/pins.h"

int xl_leaf_upgrade(const char *instance)
{
	/* an instance has one kind of link or the other (config `hook`) */
	static const char *const links[] = { XL_PIN_LINK_XDP, XL_PIN_LINK_TCX_IN };
	static const char *const progs[] = { XL_PIN_PROG_LEAF, XL_PIN_PROG_LEAF_TC };
	struct leaf *skel = leaf__open();
	char gen_pin[256];
	bool had_gen, had_beat;
	int err;

	if (!skel) {
		xl_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	/* the load-time knob the loader sets too (the sampler's CPU count) */
	skel->rodata->nr_cpus = libbpf_num_possible_cpus();
	xl_pin_path(gen_pin, sizeof(gen_pin), instance, XL_MAP_NAME(XL_MAP_FWD_GEN));
	had_gen = access(gen_pin, F_OK) == 0;
	had_beat = xl_heartbeat_pinned(instance);
	err = xl_upgrade(skel->obj, instance, links, progs, 2,
			 xl_tcx_ingress_pinned(instance) ? "tc" : "XDP");
	leaf__destroy(skel);
	/* From a build without forwarding caches (bpf/fwd_cache.h) or
	 * heartbeats: its daemon does not tell the new programs of neighbour
	 * changes (no fwd_gen) or does not beat, so this build's takes over. */
	if (!err && (!had_gen || !had_beat))
		err = xl_upgrade_daemon(instance, xl_watch);
	return err;
}
