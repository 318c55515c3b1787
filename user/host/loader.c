// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Loading an instance in host mode: DCQCN's notification point (CE ->
 * CNP) and reaction point (CNP -> rate, EDT) as two tc programs on every
 * host port, attached with tcx BPF links (docs/dcqcn.md). */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "pin_names.h"
#include "host/loader.h"
#include "common/attach.h"
#include "common/pins.h"

#include "host.skel.h"


/* Every address of every configured port, now, into host_addrs: the NP
 * answers and the RP believes only packets sent to one of them. (An
 * address added later needs a reload.) */
static int fill_addrs(struct host *skel, const struct xl_config *cfg)
{
	struct ifaddrs *ifa, *a;
	int n = 0, err = 0;
	__u8 one = 1;

	if (getifaddrs(&ifa)) {
		fprintf(stderr, "xdpleaf: cannot read the ports' addresses: %s\n",
			strerror(errno));
		return -1;
	}
	for (a = ifa; a && !err; a = a->ifa_next) {
		struct xl_host_addr_key k = { 0 };
		int i;

		if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET &&
				     a->ifa_addr->sa_family != AF_INET6))
			continue;
		for (i = 0; i < cfg->n_ports; i++)
			if (!strcmp(a->ifa_name, cfg->ports[i].ifname))
				break;
		if (i == cfg->n_ports)
			continue;
		k.ifindex = cfg->ports[i].ifindex;
		if (a->ifa_addr->sa_family == AF_INET) {
			k.family = 4;
			memcpy(k.addr, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
		} else {
			k.family = 6;
			memcpy(k.addr, &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr, 16);
		}
		if (bpf_map__update_elem(skel->maps.host_addrs, &k, sizeof(k), &one,
					 sizeof(one), BPF_ANY)) {
			fprintf(stderr, "xdpleaf: cannot write host_addrs: %s\n",
				strerror(errno));
			err = -1;
		}
		n++;
	}
	freeifaddrs(ifa);
	if (!err && !n)
		fprintf(stderr, "xdpleaf: warning: the ports have no IP address: the "
			"NP answers no CE mark and the RP believes no CNP until one is "
			"added and the instance loaded again\n");
	return err;
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
		fprintf(stderr, "xdpleaf: %s: cannot attach tc (tcx) programs: %s%s\n",
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
		fprintf(stderr, "xdpleaf: cannot write host_cfg: %s\n",
			strerror(errno));
		return -1;
	}
	if (bpf_map__update_elem(skel->maps.event_cfg, &zero, sizeof(zero), &ev,
				 sizeof(ev), BPF_ANY)) {
		fprintf(stderr, "xdpleaf: cannot write event_cfg: %s\n",
			strerror(errno));
		return -1;
	}
	return fill_addrs(skel, cfg);
}

int xl_host_load(const struct xl_config *cfg, const char *instance)
{
	struct xl_attach_state st = { .n_links = 0 };
	struct host *skel;
	bool pinned = false;
	int err = -1;

	if (xl_check_new_instance(instance))
		return -1;
	skel = host__open_and_load();
	if (!skel) {
		fprintf(stderr, "xdpleaf: cannot load the host programs: %s\n",
			strerror(errno));
		return -1;
	}
	if (xl_record_instance(skel->maps.instance) || xl_host_fill_maps(skel, cfg))
		goto out;
	if (attach_tcx(skel, cfg, &st))
		goto out;
	pinned = true;
	if (xl_pin_object(skel->obj, &st, instance))
		goto out;
	err = 0;
out:
	xl_attach_close(&st);
	host__destroy(skel);
	if (err && pinned)
		xl_remove_pins(instance);
	return err;
}
