// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "events.h"
#include "leaf.skel.h"
#include "lb.h"
#include "config/config_keys.h"
#include "leaf/loader.h"
#include "leaf/fwd_gen.h"
#include "leaf/hook_choice.h"
#include "instance/attach.h"
#include "instance/heartbeat.h"
#include "leaf/netlink_watch.h"
#include "instance/netns.h"
#include "base/percpu.h"
#include "instance/pins.h"
#include "netlink/rtnl.h"
#include "base/version.h"
#include "instance/xdp_owner.h"


static int get_mac(const char *ifname, __u8 mac[XL_ETH_ALEN])
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (!err)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, XL_ETH_ALEN);
	return err;
}

#define MAP_SET(map, k, v)                                                \
	do {                                                              \
		if (bpf_map__update_elem(map, k, sizeof(*(k)), v,         \
					 sizeof(*(v)), BPF_ANY)) {        \
			xl_err("cannot write %s: %s",  \
				bpf_map__name(map), strerror(errno));     \
			return -1;                                        \
		}                                                         \
	} while (0)

/* Ports, routes or neighbours changed: the dataplane's caches are stale. */
static int fwd_changed(struct leaf *skel)
{
	if (xl_fwd_changed(bpf_map__fd(skel->maps.fwd_gen))) {
		xl_err("cannot write fwd_gen: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* What a port's phantom queue drains at: gamma x its rate (0: none). */
static __u64 drain_bps(const struct xl_cfg_port *cp)
{
	return cp->rate_bps * cp->gamma_ppm / 1000000;
}

/* The longest frame a port sends: its MTU, Ethernet header and one VLAN
 * tag (XL_DEFAULT_FRAME when the MTU cannot be read). */
static __u32 max_frame_bytes(__u32 ifindex)
{
	struct xl_link_info li;

	if (!ifindex || xl_link_get(ifindex, &li) || !li.mtu)
		return XL_DEFAULT_FRAME;
	return li.mtu + XL_FRAME_OVERHEAD;
}

/* A default buffer holds at least two of the port's largest frames. */
static __u32 buffer_bytes(const struct xl_cfg_port *cp, __u32 frame)
{
	return cp->buffer_default && cp->buffer_bytes < 2 * frame ? 2 * frame
								     : cp->buffer_bytes;
}

/* The DSCPs whose class has latency = yes (struct xl_group's
 * latency_dscp). */
static __u64 latency_dscp(const struct xl_config *cfg)
{
	__u64 mask = 0;

	for (__u32 d = 0; d < 64; d++)
		if (cfg->classes[cfg->dscp_class[d]].wred.flags & XL_CLASS_LATENCY)
			mask |= 1ULL << d;
	return mask;
}

/* The port's bulk guard (docs/ecn.md): on with a rate, bulk_gamma < 1
 * and a latency class, its step xl_guard_step's; else
 * zero, which the dataplane reads as off. The entry's vtime is kept, so
 * a reload does not empty a guard that holds a backlog. Returns whether
 * the guard is on: never in an instance pinned before the guard, whose
 * reload finds no `guards` map (and whose programs have no guard). */
static int fill_guard(struct leaf *skel, __u32 slot, const struct xl_cfg_port *cp, __u32 frame,
		      bool latency)
{
	struct xl_guard g = {}, was;

	if (bpf_map__fd(skel->maps.guards) < 0)
		return 0;
	if (!bpf_map__lookup_elem(skel->maps.guards, &slot, sizeof(slot), &was, sizeof(was), 0))
		g.vtime = was.vtime;
	if (latency && cp->rate_bps && cp->bulk_gamma_ppm < 1000000) {
		g.drain_bps = drain_bps(cp) * cp->bulk_gamma_ppm / 1000000;
		g.mark_bytes = xl_guard_step(g.drain_bps, frame, buffer_bytes(cp, frame));
		g.gamma_ppm = cp->bulk_gamma_ppm;
	}
	if (bpf_map__update_elem(skel->maps.guards, &slot, sizeof(slot), &g, sizeof(g),
				 BPF_ANY)) {
		xl_err("cannot write guards: %s", strerror(errno));
		return -1;
	}
	return g.drain_bps != 0;
}

static int fill_ports(struct leaf *skel, const struct xl_config *cfg)
{
	/* bulk guards run only beside a latency class some DSCP is in:
	 * without one there is no traffic to keep the queues short for */
	bool latency = latency_dscp(cfg) != 0;

	for (int i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *cp = &cfg->ports[i];
		__u32 frame = max_frame_bytes(cp->ifindex);
		struct xl_port p = {
			.ifindex = cp->ifindex,
			.slot = i,
			.group = cp->group_id < 0 ? 0 : cp->group_id,
			.drain_bps = drain_bps(cp),
			.buffer_bytes = buffer_bytes(cp, frame),
		};
		int guard = fill_guard(skel, i, cp, frame, latency);

		if (guard < 0)
			return -1;
		/* the guard's entry is written before the port points at it */
		p.bulk_guard = (__u8)guard;

		/* the [port] keys the dataplane reads as they are */
		xl_keys_fill(XL_OBJ_PORT, cp, &p);
		snprintf(p.name, sizeof(p.name), "%s", cp->ifname);
		if (get_mac(cp->ifname, p.mac)) {
			xl_err_at(cfg->path, cp->line, "%s: cannot read MAC: %s", cp->ifname,
				  strerror(errno));
			return -1;
		}
		MAP_SET(skel->maps.ports, &p.ifindex, &p);
		MAP_SET(skel->maps.tx_ports, &p.ifindex, &p.ifindex);
	}
	return 0;
}

static int fill_groups(struct leaf *skel, const struct xl_config *cfg)
{
	for (int g = 0; g < cfg->n_groups; g++) {
		struct xl_group grp = { .latency_dscp = latency_dscp(cfg) };
		__u32 id = g;

		/* the [group] keys; then what the members add (auto) */
		xl_keys_fill(XL_OBJ_GROUP, &cfg->groups[g], &grp);
		snprintf(grp.name, sizeof(grp.name), "%s", cfg->groups[g].name);
		for (int i = 0; i < cfg->n_ports; i++) {
			const struct xl_cfg_port *cp = &cfg->ports[i];
			__u32 frame;

			if (cp->role != XL_ROLE_UPLINK || cp->group_id != g)
				continue;
			grp.members[grp.n_members] = cp->ifindex;
			grp.member_slot[grp.n_members] = i; /* slot = port index */
			grp.capacity_bps[grp.n_members] = cp->rate_bps;
			grp.drain_bps[grp.n_members] = drain_bps(cp);
			frame = max_frame_bytes(cp->ifindex);
			if (grp.flowlet_auto)
				grp.flowlet_timeout_ns = xl_auto_floor_ns(grp.flowlet_timeout_ns,
						buffer_bytes(cp, frame), drain_bps(cp));
			grp.skew_ns[grp.n_members] = cfg->groups[g].path_skew_auto ?
				xl_auto_skew_ns(grp.path_skew_ns, frame + cp->line_overhead,
						cp->rate_bps) :
				grp.path_skew_ns;
			grp.n_members++;
		}
		grp.unknown_rate_mbps = xl_unknown_flow_mbps(grp.capacity_bps, grp.n_members);
		MAP_SET(skel->maps.groups, &id, &grp);
	}
	return 0;
}

static int fill_classes(struct leaf *skel, const struct xl_config *cfg)
{
	for (__u32 id = 0; id < (__u32)cfg->n_classes; id++) {
		struct xl_class c = { .wred = cfg->classes[id].wred };

		snprintf(c.name, sizeof(c.name), "%s", cfg->classes[id].name);
		MAP_SET(skel->maps.classes, &id, &c);
	}
	for (__u32 dscp = 0; dscp < 64; dscp++) {
		__u32 id = cfg->dscp_class[dscp];

		MAP_SET(skel->maps.dscp_class, &dscp, &id);
	}
	return 0;
}

static int fill_routes(struct leaf *skel, const struct xl_config *cfg)
{
	for (int i = 0; i < cfg->n_routes; i++) {
		const struct xl_cfg_route *r = &cfg->routes[i];
		struct xl_route v = { .kind = r->kind };

		v.target = r->kind == XL_ROUTE_PORT ?
				   cfg->ports[r->target_id].ifindex :
				   (__u32)r->target_id;
		if (r->family == AF_INET) {
			struct xl_lpm4_key k = { .prefixlen = r->prefixlen };

			memcpy(k.addr, r->addr, 4);
			MAP_SET(skel->maps.routes4, &k, &v);
		} else {
			struct xl_lpm6_key k = { .prefixlen = r->prefixlen };

			memcpy(k.addr, r->addr, 16);
			MAP_SET(skel->maps.routes6, &k, &v);
		}
	}
	return 0;
}

/* Name the counter entries of every port and (port, class), so that a
 * dump of port_stats or queue_stats says whose counters it shows. */
static int fill_labels(struct leaf *skel, const struct xl_config *cfg)
{
	int ps = bpf_map__fd(skel->maps.port_stats);
	int qs = bpf_map__fd(skel->maps.queue_stats);

	for (__u32 slot = 0; slot < (__u32)cfg->n_ports; slot++) {
		char port[XL_IFNAMSIZ] = "";

		snprintf(port, sizeof(port), "%s", cfg->ports[slot].ifname);
		if (xl_percpu_set_label(ps, &slot, sizeof(struct xl_port_stats),
					XL_PORT_STATS_COUNTERS, port, sizeof(port)))
			goto fail;
		for (__u32 cls = 0; cls < (__u32)cfg->n_classes; cls++) {
			struct xl_queue_stats l = {};
			__u32 key = slot * XL_MAX_CLASSES + cls;

			memcpy(l.port, port, sizeof(l.port));
			snprintf(l.class_name, sizeof(l.class_name), "%s",
				 cfg->classes[cls].name);
			if (xl_percpu_set_label(qs, &key, sizeof(l), XL_QUEUE_STATS_COUNTERS,
						l.port, sizeof(l) - XL_QUEUE_STATS_COUNTERS))
				goto fail;
		}
	}
	return 0;
fail:
	xl_err("cannot label the counter maps: %s", strerror(errno));
	return -1;
}

/* The VLANs each port forwards tagged frames of. */
static int fill_vlans(struct leaf *skel, const struct xl_config *cfg)
{
	__u8 one = 1;

	for (int i = 0; i < cfg->n_ports; i++)
		for (__u32 vid = 1; vid < 4095; vid++) {
			struct xl_vlan_key k = { .ifindex = cfg->ports[i].ifindex, .vid = vid };

			if (cfg->ports[i].vlans[vid / 8] & (1U << (vid % 8)))
				MAP_SET(skel->maps.port_vlans, &k, &one);
		}
	return 0;
}

int xl_leaf_fill_maps(struct leaf *skel, const struct xl_config *cfg)
{
	struct xl_settings s = {};
	struct xl_event_cfg ev = {};
	__u32 zero = 0;

	xl_keys_fill(XL_OBJ_SETTINGS, cfg, &s);
	xl_keys_fill(XL_OBJ_EVENT_CFG, cfg, &ev);
	MAP_SET(skel->maps.settings, &zero, &s);
	MAP_SET(skel->maps.event_cfg, &zero, &ev);
	if (fill_ports(skel, cfg) || fill_groups(skel, cfg) ||
	    fill_classes(skel, cfg) || fill_routes(skel, cfg) ||
	    fill_labels(skel, cfg) || fill_vlans(skel, cfg))
		return -1;
	return fwd_changed(skel);
}

/* The config's maps, then what the kernel knows now: neighbours and the
 * uplinks' link state (the daemon keeps them current from here on). */
static int fill_maps(struct leaf *skel, const struct xl_config *cfg)
{
	if (xl_record_instance(skel->maps.instance) ||
	    xl_heartbeat_init(skel->maps.heartbeat) || xl_leaf_fill_maps(skel, cfg))
		return -1;
	if (xl_neigh_sync(bpf_map__fd(skel->maps.neigh),
			  bpf_map__fd(skel->maps.ports),
			  bpf_map__fd(skel->maps.fwd_gen)) ||
	    xl_link_sync(bpf_map__fd(skel->maps.neigh),
			 bpf_map__fd(skel->maps.ports),
			 bpf_map__fd(skel->maps.groups),
			 bpf_map__fd(skel->maps.group_down)))
		return -1;
	return 0;
}

static void explain_attach_error(const struct xl_cfg_port *cp, int err)
{
	if (err == EBUSY || err == EEXIST) {
		xl_explain_xdp_busy(cp->ifname, cp->ifindex);
	} else if (err == EOPNOTSUPP || err == EINVAL) {
		xl_err("%s: native XDP not supported by this driver "
		       "(%s); remove hook = xdp (auto then runs at tc here), or set "
		       "xdp_mode = generic in [xdpleaf]",
		       cp->ifname, strerror(err));
	} else {
		xl_err("%s: cannot attach XDP: %s", cp->ifname, strerror(err));
	}
}

/* hook = tc: the program at each port's tc ingress, through a tcx link
 * (Linux 6.6; it runs beside other tc programs, so nothing there is in
 * the way). */
static int attach_all_tc(struct leaf *skel, const struct xl_config *cfg,
			 struct xl_attach_state *st)
{
	int prog_fd = bpf_program__fd(skel->progs.xdpleaf_leaf_tc);

	for (int i = 0; i < cfg->n_ports; i++) {
		int fd = bpf_link_create(prog_fd, cfg->ports[i].ifindex,
					 XL_TCX_INGRESS, NULL);

		if (fd < 0) {
			xl_err("%s: cannot attach at tc ingress (tcx): %s%s",
			       cfg->ports[i].ifname, strerror(errno),
			       errno == EINVAL ? " (tcx needs Linux 6.6 or later)" : "");
			return -1;
		}
		xl_attach_add(st, fd, XL_PIN_LINK_TCX_IN, cfg->ports[i].ifname);
	}
	return 0;
}

/* XDP in native (driver) mode, or generic when the config says so. */
static int attach_all_xdp(struct leaf *skel, const struct xl_config *cfg,
			  struct xl_attach_state *st, bool quiet_unsupported)
{
	int prog_fd = bpf_program__fd(skel->progs.xdpleaf_leaf);
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	opts.flags = cfg->attach_mode == XL_ATTACH_GENERIC ? XDP_FLAGS_SKB_MODE :
						       XDP_FLAGS_DRV_MODE;
	for (int i = 0; i < cfg->n_ports; i++) {
		int fd = bpf_link_create(prog_fd, cfg->ports[i].ifindex,
					 BPF_XDP, &opts);

		if (fd < 0) {
			int err = errno;

			if (!(quiet_unsupported && (err == EOPNOTSUPP || err == EINVAL)))
				explain_attach_error(&cfg->ports[i], err);
			errno = err;
			return -1;
		}
		xl_attach_add(st, fd, XL_PIN_LINK_XDP, cfg->ports[i].ifname);
	}
	return 0;
}

/* One BPF link per port, at the hook the config asks for or, with
 * `hook = auto`, the one leaf/hook_choice.c picks: tc on veths, else
 * native XDP, and tc after all where a driver has no native XDP (generic
 * XDP would run on the skb anyway, later and with more to convert). Links
 * close (and so detach) with their fd until pinned, which makes rollback
 * a matter of closing what we opened. */
static int attach_all(struct leaf *skel, const struct xl_config *cfg,
		      struct xl_attach_state *st)
{
	char why[64], inst[256];
	enum xl_hook hook = xl_leaf_hook_choice(cfg, why, sizeof(why));
	const char *where;

	for (int i = 0; i < cfg->n_ports; i++) {
		where = xl_port_leaf_instance(cfg->ports[i].ifindex, inst, sizeof(inst));
		if (where) {
			xl_err("%s: held by xdpleaf instance '%s' (at %s); "
			       "unload it first: xdpleaf unload --instance %s",
			       cfg->ports[i].ifname, inst, where, inst);
			return -1;
		}
	}
	if (hook == XL_HOOK_AT_TC) {
		if (why[0])
			printf("xdpleaf: hook = auto: tc (%s)\n", why);
		return attach_all_tc(skel, cfg, st);
	}
	if (!attach_all_xdp(skel, cfg, st, cfg->hook == XL_HOOK_AUTO))
		return 0;
	if (cfg->hook != XL_HOOK_AUTO || (errno != EOPNOTSUPP && errno != EINVAL))
		return -1;
	xl_attach_close(st);
	printf("xdpleaf: hook = auto: tc (a port's driver has no native XDP)\n");
	return attach_all_tc(skel, cfg, st);
}

int xl_leaf_load(const struct xl_config *cfg, const char *instance)
{
	struct xl_attach_state st = { .n_links = 0 };
	struct leaf *skel;
	int err = -1;

	if (xl_check_new_instance(instance))
		return -1;
	skel = leaf__open();
	if (!skel) {
		xl_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	/* Load-time knobs: the flow table's size, and how many CPUs' counters
	 * the rate sampler sums. */
	skel->rodata->nr_cpus = libbpf_num_possible_cpus();
	if (bpf_map__set_max_entries(skel->maps.flows, cfg->flow_table_size ?
					     cfg->flow_table_size :
					     XL_FLOW_TABLE_SIZE)) {
		xl_err("cannot size the flow table");
		goto out;
	}
	if (leaf__load(skel)) {
		xl_err("cannot load BPF program: %s", strerror(errno));
		goto out;
	}
	if (fill_maps(skel, cfg) || attach_all(skel, cfg, &st))
		goto out;
	if (xl_pin_object(skel->obj, &st, instance))
		goto out;
	err = 0;
out:
	xl_attach_close(&st);
	leaf__destroy(skel);
	return err;
}
