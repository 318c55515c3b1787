// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Loading an instance in host mode: DCQCN's notification point (CE ->
 * CNP) and reaction point (CNP -> rate, EDT) as two tc programs on every
 * host port, attached with tcx BPF links (docs/dcqcn.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "events.h"
#include "pin_names.h"
#include "host/loader.h"
#include "host/addr_watch.h"
#include "instance/attach.h"
#include "instance/heartbeat.h"
#include "instance/pins.h"

#include "host.skel.h"


/* Every address of every configured port, now, into host_addrs: the NP
 * answers and the RP believes only packets sent to one of them (the
 * daemon follows later changes). */
static int fill_addrs(struct host *skel, const struct xl_config *cfg)
{
	__u32 ifindex[XL_MAX_PORTS];
	int total;

	for (int i = 0; i < cfg->n_ports; i++)
		ifindex[i] = cfg->ports[i].ifindex;
	if (xl_host_addrs_sync(bpf_map__fd(skel->maps.host_addrs), ifindex,
			       cfg->n_ports, NULL, NULL, &total))
		return -1;
	if (!total)
		xl_warn("the ports have no IP address: the "
			"NP answers no CE mark and the RP believes no CNP until one is "
			"added (the instance's daemon follows address changes)");
	return 0;
}

static int attach_tcx(struct host *skel, const struct xl_config *cfg,
		      struct xl_attach_state *st)
{
	int in_fd = bpf_program__fd(skel->progs.xdpleaf_host_ingress);
	int out_fd = bpf_program__fd(skel->progs.xdpleaf_host_egress);

	for (int i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *cp = &cfg->ports[i];
		int fd = bpf_link_create(in_fd, cp->ifindex, XL_TCX_INGRESS, NULL);

		if (fd < 0)
			goto fail;
		xl_attach_add(st, fd, XL_PIN_LINK_TCX_IN, cp->ifname);
		fd = bpf_link_create(out_fd, cp->ifindex, XL_TCX_EGRESS, NULL);
		if (fd < 0)
			goto fail;
		xl_attach_add(st, fd, XL_PIN_LINK_TCX_OUT, cp->ifname);
		continue;
fail:
		xl_err("%s: cannot attach tc (tcx) programs: %s%s",
		       cp->ifname, strerror(errno),
		       errno == EINVAL ? " (tcx needs Linux 6.6 or later)" : "");
		return -1;
	}
	return 0;
}

int xl_host_fill_maps(struct host *skel, const struct xl_config *cfg)
{
	struct xl_host_cfg hc = cfg->host;
	struct xl_event_cfg ev = { .rate = cfg->event_rate,
				   .mark_sample = cfg->mark_event_sample };
	__u32 zero = 0;

	/* DCQCN's C: the ports' line rate (the config gives each port one;
	 * with several ports the RP uses the first's). */
	hc.rp.line_rate = cfg->n_ports ? cfg->ports[0].rate_bps : 0;
	if (bpf_map__update_elem(skel->maps.host_cfg, &zero, sizeof(zero), &hc,
				 sizeof(hc), BPF_ANY)) {
		xl_err("cannot write host_cfg: %s", strerror(errno));
		return -1;
	}
	if (bpf_map__update_elem(skel->maps.event_cfg, &zero, sizeof(zero), &ev,
				 sizeof(ev), BPF_ANY)) {
		xl_err("cannot write event_cfg: %s", strerror(errno));
		return -1;
	}
	return fill_addrs(skel, cfg);
}

int xl_host_load(const struct xl_config *cfg, const char *instance)
{
	struct xl_attach_state st = { .n_links = 0 };
	struct host *skel;
	int err = -1;

	if (xl_check_new_instance(instance))
		return -1;
	skel = host__open_and_load();
	if (!skel) {
		xl_err("cannot load the host programs: %s", strerror(errno));
		return -1;
	}
	if (xl_record_instance(skel->maps.instance) ||
	    xl_heartbeat_init(skel->maps.heartbeat) || xl_host_fill_maps(skel, cfg))
		goto out;
	if (attach_tcx(skel, cfg, &st))
		goto out;
	if (xl_pin_object(skel->obj, &st, instance))
		goto out;
	err = 0;
out:
	xl_attach_close(&st);
	host__destroy(skel);
	return err;
}
