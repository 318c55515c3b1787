// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`'s setup (gen.h): where the frames go (addresses, next
 * hop), what they look like (the classes), how they leave (the BPF object
 * anchored on a TAP device, or an AF_PACKET socket; --rate-map's RP maps),
 * the QPs; and the teardown of all of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "roce.h"   /* before the skeleton: struct xl_gen_desc */
#include "gen.skel.h"
#include <linux/bpf.h> /* struct bpf_spin_lock, for host.h */
#include "host.h"
#include "base/rng.h"
#include "netlink/rtnl.h"
#include "traffic/gen.h"
#include "traffic/traffic.h"

/* The first address of family on ifname: global before link-local (v6). */
static int dev_addr(const char *ifname, int family, __u8 addr[16])
{
	struct ifaddrs *ifa, *i;
	int found = 0;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family ||
		    strcmp(i->ifa_name, ifname))
			continue;
		if (family == AF_INET) {
			memcpy(addr, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
			found = 1;
			break;
		} else {
			const struct in6_addr *a =
				&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (IN6_IS_ADDR_LINKLOCAL(a)) {
				if (!found) {
					memcpy(addr, a, 16);
					found = 2;
				}
				continue;
			}
			memcpy(addr, a, 16);
			found = 1;
			break;
		}
	}
	freeifaddrs(ifa);
	return found ? 0 : -1;
}

int gen_resolve(struct gen_frames *f, const struct gen_opts *o, struct xl_link_info *li)
{
	char b1[INET6_ADDRSTRLEN], b2[INET6_ADDRSTRLEN];
	__u8 dst[16], nh[16];
	struct xl_route_info rt;
	int r;

	f->family = xl_parse_ip(o->dst, dst);
	if (!f->family) {
		xl_err("--dst '%s' is not an IPv4 or IPv6 address", o->dst);
		return -1;
	}
	f->fs.ipv6 = f->family == AF_INET6;
	memcpy(f->fs.daddr, dst, 16);
	f->ifindex = if_nametoindex(o->dev);
	if (!f->ifindex) {
		xl_err("no interface '%s' in this network namespace", o->dev);
		return -1;
	}
	if (xl_link_get(f->ifindex, li) || !li->has_mac) {
		xl_err("%s: cannot read its MAC and MTU: %s", o->dev, strerror(errno));
		return -1;
	}
	if (!(li->flags & IFF_UP)) {
		xl_err("%s is down", o->dev);
		return -1;
	}
	memcpy(f->fs.src_mac, li->mac, 6);
	if (o->src) {
		if (xl_parse_ip(o->src, f->fs.saddr) != f->family) {
			xl_err("--src '%s' is not an address of --dst's family", o->src);
			return -1;
		}
	} else if (dev_addr(o->dev, f->family, f->fs.saddr)) {
		xl_err("%s has no %s address; give --src", o->dev,
		       f->fs.ipv6 ? "IPv6" : "IPv4");
		return -1;
	}
	if (o->gw_mac) {
		if (xl_parse_mac(o->gw_mac, f->fs.dst_mac)) {
			xl_err("--gw-mac '%s' is not a MAC (aa:bb:cc:dd:ee:ff)", o->gw_mac);
			return -1;
		}
		return 0;
	}
	if (xl_route_get(f->family, dst, f->ifindex, &rt)) {
		xl_err("no route to %s via %s: %s", o->dst, o->dev, strerror(errno));
		return -1;
	}
	memcpy(nh, rt.has_gw ? rt.gw : dst, 16);
	r = xl_neigh_resolve(f->ifindex, f->family, nh, f->fs.dst_mac, 1000);
	if (r) {
		xl_err("no MAC for next hop %s on %s%s%s (neighbour %s); "
		       "give --gw-mac", inet_ntop(f->family, nh, b1, sizeof(b1)), o->dev,
		       rt.has_gw ? ", the gateway to " : "",
		       rt.has_gw ? inet_ntop(f->family, dst, b2, sizeof(b2)) : "",
		       r > 0 ? "unresolved after 1 s" : strerror(errno));
		return -1;
	}
	return 0;
}

int gen_setup_classes(struct gen_frames *f, const struct gen_opts *o, __u32 mtu)
{
	struct xl_gen_qpid *ids;
	__u32 last, i;
	__u32 payload[N_CLASSES] = { 0 };
	bool reth[N_CLASSES] = { false };
	__u8 op_ref[N_CLASSES] = { 0 };
	__u8 base = o->write ? XL_BTH_WRITE_FIRST : XL_BTH_SEND_FIRST;

	f->fs.tos = (__u8)(o->dscp << 2 | o->ecn);
	f->fs.ttl = 64;
	f->fs.reth_va = 0x00007f0000000000ULL;
	f->fs.reth_rkey = 0x00001234;
	f->npkts = o->size ? (o->message + o->size - 1) / o->size : 1;
	if (f->npkts == 0)
		f->npkts = 1;
	last = o->message - (f->npkts - 1) * o->size;
	if (f->npkts == 1) {
		f->cls_used[C_ONLY] = true;
		payload[C_ONLY] = o->message;
		reth[C_ONLY] = o->write;
		op_ref[C_ONLY] = o->write ? XL_BTH_WRITE_ONLY : XL_BTH_SEND_ONLY;
		f->k_only = (struct gen_kind){ C_ONLY, op_ref[C_ONLY] };
	} else {
		/* FIRST: with a RETH for WRITE, else the same layout as MIDDLE */
		int first = o->write ? C_FIRST : C_FULL;
		int lastc = last == o->size ? C_FULL : C_LAST;

		f->cls_used[first] = f->cls_used[C_FULL] = f->cls_used[lastc] = true;
		payload[C_FIRST] = payload[C_FULL] = o->size;
		reth[C_FIRST] = true;
		payload[C_LAST] = last;
		op_ref[C_FIRST] = base;
		op_ref[C_FULL] = base + 1;
		op_ref[C_LAST] = base + 2;
		f->k_first = (struct gen_kind){ first, base };
		f->k_mid = (struct gen_kind){ C_FULL, (__u8)(base + 1) };
		f->k_last = (struct gen_kind){ lastc, (__u8)(base + 2) };
	}
	ids = calloc(o->qps, sizeof(*ids));
	if (!ids)
		return -1;
	for (i = 0; i < o->qps; i++) {
		ids[i].qpn = o->qp_base + i;
		ids[i].sport = (__u16)(o->sport_base + i);
	}
	for (i = 0; i < N_CLASSES; i++) {
		__u32 flen;

		if (!f->cls_used[i])
			continue;
		flen = xl_gen_frame_len(f->fs.ipv6, reth[i], payload[i]);
		if (flen - XL_GEN_ETH_LEN > mtu || flen > XL_GEN_MAX_FRAME) {
			xl_err("a %u-byte frame does not fit %s (MTU %u, "
			       "at most %u bytes per frame here); use a smaller --size",
			       flen, o->dev, mtu, XL_GEN_MAX_FRAME);
			free(ids);
			return -1;
		}
		if (xl_gen_class_init(&f->cls[i], &f->fs, payload[i], reth[i],
				      o->message, op_ref[i], ids, o->qps)) {
			xl_err("building packets: %s", strerror(errno));
			free(ids);
			return -1;
		}
	}
	free(ids);
	return 0;
}

/* --rate-map: the host's pinned maps stand in for the object's own. */
static int rp_reuse(struct bpf_map *m, const char *path, __u32 key_size,
		    __u32 value_size)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_obj_get(path);
	if (fd < 0) {
		xl_err("--rate-map: %s: %s (host mode pins rp_rates, "
		       "rp_flows and host_cfg under /sys/fs/bpf/xdpleaf/INSTANCE/)",
		       path, strerror(errno));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.key_size != key_size || info.value_size != value_size) {
		xl_err("--rate-map: %s is not host mode's %s map "
		       "(key %u, value %u bytes; expected %u, %u)", path,
		       bpf_map__name(m), info.key_size, info.value_size, key_size,
		       value_size);
		close(fd);
		return -1;
	}
	err = bpf_map__reuse_fd(m, fd);
	close(fd);
	if (err) {
		xl_err("--rate-map: %s: %s", path, strerror(-err));
		return -1;
	}
	return 0;
}

/* Before load: enable xdpleaf_gen_rp and point its maps at the host's
 * (PATH is rp_rates; rp_flows and host_cfg are pinned next to it). Without
 * --rate-map the object's own copies are created at one entry each. */
static int rp_prepare(const struct gen_frames *f, const char *rate_map, struct gen *skel)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	const char *slash;
	size_t dlen;

	if (!rate_map) {
		bpf_map__set_max_entries(skel->maps.rp_flows, 1);
		bpf_map__set_max_entries(skel->maps.rp_rates, 1);
		return 0;
	}
	slash = strrchr(rate_map, '/');
	dlen = slash ? (size_t)(slash - rate_map) : 1;
	if (dlen >= sizeof(dir))
		return -1;
	memcpy(dir, slash ? rate_map : ".", dlen);
	dir[dlen] = 0;
	bpf_program__set_autoload(skel->progs.xdpleaf_gen_rp, true);
	skel->rodata->gen_rp_family = f->fs.ipv6 ? 6 : 4;
	memcpy((void *)skel->rodata->gen_rp_daddr, f->fs.daddr, 16);
	if (rp_reuse(skel->maps.rp_rates, rate_map,
		     sizeof(struct xl_qp_key), sizeof(struct xl_rp_rate)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, XL_MAP_NAME(XL_MAP_RP_FLOWS));
	if (rp_reuse(skel->maps.rp_flows, path, sizeof(struct xl_qp_key),
		     sizeof(struct xl_rp_flow)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, XL_MAP_NAME(XL_MAP_HOST_CFG));
	return rp_reuse(skel->maps.host_cfg, path, sizeof(__u32),
			sizeof(struct xl_host_cfg));
}

/* Open, prepare the RP maps, load: the frame sender (xdpleaf_gen) with it
 * or, for --afpacket, only xdpleaf_gen_rp. NULL after saying why. */
static struct gen *open_and_load(const struct gen_frames *f, const char *rate_map,
				  bool sender)
{
	struct gen *skel = gen__open();
	int err;

	if (!skel) {
		xl_err("opening the BPF program: %s", strerror(errno));
		return NULL;
	}
	if (sender) {
		skel->rodata->gen_ifindex = f->ifindex;
		skel->rodata->gen_udp_off = XL_GEN_ETH_LEN + (f->fs.ipv6 ? 40 : 20);
	} else {
		bpf_program__set_autoload(skel->progs.xdpleaf_gen, false);
	}
	if (rp_prepare(f, rate_map, skel)) {
		gen__destroy(skel);
		return NULL;
	}
	err = gen__load(skel);
	if (err) {
		xl_err("loading the BPF program: %s", strerror(-err));
		gen__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Why gen attaches its program to a TAP device of its own:
 *
 * BPF_PROG_RUN with repeat > 1 enters the program into the kernel's XDP
 * dispatcher before the run and takes it out after, unless it is already
 * there; each change waits for an RCU grace period (synchronize_rcu), about
 * 12 ms here, so every run would cost ~24 ms of sleeping: ~40 runs a
 * second. A program that is attached to some interface in XDP mode stays in
 * the dispatcher, and then the runs skip both changes. So gen creates a TAP
 * device (named xlgenN, down, never carrying traffic; the program also
 * passes anything not injected by gen itself) and attaches the program to
 * it with a BPF link. Both belong to this process's file descriptors: they
 * disappear when gen exits, however it exits. */
static void anchor_program(struct gen_tx *tx)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	__u32 idx;

	tx->anchor_tap = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (tx->anchor_tap < 0)
		goto fail;
	strcpy(ifr.ifr_name, "xlgen%d"); /* the kernel picks N */
	if (ioctl(tx->anchor_tap, TUNSETIFF, &ifr) < 0)
		goto fail;
	idx = if_nametoindex(ifr.ifr_name);
	if (!idx)
		goto fail;
	tx->anchor_link = bpf_link_create(bpf_program__fd(tx->bpf->progs.xdpleaf_gen),
					 (int)idx, BPF_XDP, &lo);
	if (tx->anchor_link < 0)
		goto fail;
	return;
fail:
	xl_warn("cannot anchor the program on a TAP device "
		"(%s); every BPF_PROG_RUN will wait ~2 RCU grace periods, so "
		"expect far fewer packets per second", strerror(errno));
	if (tx->anchor_tap >= 0)
		close(tx->anchor_tap);
	tx->anchor_tap = -1;
}

int gen_setup_bpf(struct gen_state *g)
{
	struct gen *skel = open_and_load(&g->f, g->o.rate_map, true);

	if (!skel)
		return -1;
	g->tx.bpf = skel;
	g->tx.descs = skel->bss->gen_descs;
	if (g->o.rate_map)
		g->rp.skel = skel;
	anchor_program(&g->tx);
	return 0;
}

int gen_setup_afpacket(struct gen_state *g)
{
	struct gen_tx *tx = &g->tx;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = 0, /* send only */
		.sll_ifindex = (int)g->f.ifindex,
	};
	int one = 1;

	tx->pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx->pkt_fd < 0 || bind(tx->pkt_fd, (struct sockaddr *)&sll, sizeof(sll))) {
		xl_err("AF_PACKET socket on %s: %s", g->o.dev, strerror(errno));
		return -1;
	}
	/* straight to the driver, like live frames: no qdisc */
	setsockopt(tx->pkt_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	tx->descs = calloc(XL_GEN_MAX_BATCH, sizeof(*tx->descs));
	tx->pkt_bufs = malloc((size_t)XL_GEN_MAX_BATCH * XL_GEN_MAX_FRAME);
	if (!tx->descs || !tx->pkt_bufs)
		return -1;
	/* --rate-map: an object of its own for xdpleaf_gen_rp */
	if (g->o.rate_map) {
		g->rp.skel = open_and_load(&g->f, g->o.rate_map, false);
		if (!g->rp.skel)
			return -1;
	}
	return 0;
}

int gen_setup_qps(struct gen_state *g)
{
	const struct gen_opts *o = &g->o;
	__u32 i;

	g->qp = calloc(o->qps, sizeof(*g->qp));
	if (!g->qp)
		return -1;
	if (g->rp.skel) {
		g->rp.touched = calloc(XL_GEN_MAX_BATCH, sizeof(*g->rp.touched));
		g->rp.idx = calloc(XL_GEN_MAX_BATCH, sizeof(*g->rp.idx));
		if (!g->rp.touched || !g->rp.idx)
			return -1;
	}
	for (i = 0; i < o->qps; i++) {
		struct gen_qp *q = &g->qp[i];
		__u64 s = o->seed ^ ((__u64)(i + 1) * 0xD1B54A32D192ED03ULL);

		q->id.qpn = o->qp_base + i;
		q->id.sport = (__u16)(o->sport_base + i);
		q->rng = xl_splitmix64(&s);
		q->first_psn = o->seed_set ? (__u32)xl_splitmix64(&q->rng) & XL_PSN_MASK : 0;
		xl_rc_init(&q->rc, q->first_psn);
	}
	return 0;
}

void gen_teardown(struct gen_state *g)
{
	__u32 i;

	for (i = 0; i < N_CLASSES; i++)
		xl_gen_class_free(&g->f.cls[i]);
	if (g->tx.anchor_link >= 0)
		close(g->tx.anchor_link);
	if (g->tx.anchor_tap >= 0)
		close(g->tx.anchor_tap);
	if (g->rp.skel && g->rp.skel != g->tx.bpf)
		gen__destroy(g->rp.skel);
	if (g->tx.bpf)
		gen__destroy(g->tx.bpf);
	else
		free(g->tx.descs);
	free(g->rp.touched);
	free(g->rp.idx);
	if (g->tx.pkt_fd >= 0)
		close(g->tx.pkt_fd);
	if (g->acks.fd >= 0)
		close(g->acks.fd);
	free(g->tx.pkt_bufs);
	free(g->qp);
}

