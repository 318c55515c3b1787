// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/neighbour.h>
#include <bpf/bpf.h>
#include "pin_names.h"
#include "leaf/netlink_watch.h"
#include "leaf/fwd_gen.h"
#include "instance/daemon.h"
#include "base/log.h"
#include "base/output.h"
#include "instance/pins.h"
#include "netlink/rtnl.h"
#include "xdpleaf.h"
#include "events.h"

struct watch_ctx {
	int neigh_fd;
	int ports_fd;
	int groups_fd;   /* -1: not following uplink state (xl_neigh_sync) */
	int down_fd;
	bool resolicit;  /* an uplink came up: resolve its next hops now */
	int event_prog_fd; /* reports uplink changes as events; -1: none */
	int gen_fd;      /* fwd_gen: a new generation per neighbour change */
};

static bool link_running(__u32 ifindex);
static bool neigh_known(int neigh_fd, __u32 ifindex, int family,
			const void *addr);
static void refresh_uplink(struct watch_ctx *ctx, __u32 ifindex, bool running);

/* "192.0.2.1 on eth1", for the log. */
static const char *neigh_str(const struct xl_neigh_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?", ifname[IF_NAMESIZE] = "?";

	inet_ntop(k->family, k->addr, a, sizeof(a));
	if_indextoname(k->ifindex, ifname);
	snprintf(buf, len, "%s on %s", a, ifname);
	return buf;
}

static const char *mac_str(const __u8 *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		 m[4], m[5]);
	return buf;
}

/* What the map learned, at info for a change a person would want to
 * find later (a new or changed MAC, a neighbour gone), debug otherwise. */
static void log_neigh(const struct xl_neigh_key *k, bool had, const struct xl_neigh *old,
		      const struct xl_neigh *now)
{
	char who[96], a[24], b[24];

	if (!xl_log_enabled(XL_LOG_INFO))
		return;
	neigh_str(k, who, sizeof(who));
	if (!now) {
		if (had)
			xl_info("neighbour %s: gone (the kernel lost it): "
				"its packets go to the kernel until it resolves again", who);
	} else if (!had) {
		xl_info("neighbour %s: %s", who, mac_str(now->mac, a, sizeof(a)));
	} else if (memcmp(old->mac, now->mac, XL_ETH_ALEN)) {
		xl_info("neighbour %s: MAC changed %s -> %s", who,
			mac_str(old->mac, a, sizeof(a)), mac_str(now->mac, b, sizeof(b)));
	} else {
		xl_debug("neighbour %s: confirmed", who);
	}
}

static bool is_our_port(int ports_fd, __u32 ifindex)
{
	struct xl_port p;

	return bpf_map_lookup_elem(ports_fd, &ifindex, &p) == 0;
}

/* A neighbour the kernel told of (a dump's entry or a change) into the
 * map, if it is on one of our ports. */
static void on_neigh(const struct xl_rtnl_neigh *n, void *data)
{
	struct watch_ctx *ctx = data;
	struct xl_neigh_key key = {};
	struct xl_neigh val = {}, old;
	bool had, changed;

	if (n->family != AF_INET && n->family != AF_INET6)
		return;
	if (!is_our_port(ctx->ports_fd, n->ifindex))
		return;
	if (!n->dst || n->dst_len > 16)
		return;
	key.ifindex = n->ifindex;
	key.family = n->family;
	memcpy(key.addr, n->dst, n->dst_len);
	/* Multicast groups appear as NOARP entries with a multicast MAC: not
	 * next hops, and the dataplane never forwards to them. */
	if (n->lladdr && n->lladdr_len == XL_ETH_ALEN && (n->lladdr[0] & 1))
		return;
	had = bpf_map_lookup_elem(ctx->neigh_fd, &key, &old) == 0;
	if (xl_rtnl_neigh_usable(n)) {
		memcpy(val.mac, n->lladdr, XL_ETH_ALEN);
		val.is_static = !!(n->state & (NUD_PERMANENT | NUD_NOARP));
		bpf_map_update_elem(ctx->neigh_fd, &key, &val, BPF_ANY);
		log_neigh(&key, had, &old, &val);
		changed = !had || memcmp(old.mac, val.mac, XL_ETH_ALEN);
	} else {
		/* Gone or failed: the dataplane hands such packets to the
		 * kernel again, which re-resolves. */
		bpf_map_delete_elem(ctx->neigh_fd, &key);
		log_neigh(&key, had, &old, NULL);
		changed = had;
	}
	/* a new generation only for a MAC that came, went or changed: the
	 * re-validations every few seconds (below) confirm most entries as
	 * they are, and each new generation makes every CPU's caches fill
	 * again from the maps */
	if (changed && xl_fwd_changed(ctx->gen_fd))
		xl_err("cannot write fwd_gen: %s", strerror(errno));
	/* an uplink's next hop appeared or went: it may change its use */
	refresh_uplink(ctx, key.ifindex, link_running(key.ifindex));
}

/* An uplink is usable for a family when its link is up and its next hop
 * of that family has a MAC: a link that just came back has none yet (the
 * kernel flushed them with the carrier), and taking it into use before
 * they are resolved would send its traffic to the kernel's slow path,
 * which queues only a few packets per unresolved neighbour and drops the
 * rest. Per family, because ARP and ND need not finish together (one
 * mask let IPv4 onto a link whose ND was done and ARP was not). A family
 * without a configured next hop has nothing to wait for. */
static bool uplink_usable(struct watch_ctx *ctx, const struct xl_port *p,
			  bool running, int family)
{
	bool has = family == AF_INET ? p->has_nexthop4 : p->has_nexthop6;

	if (!running)
		return false;
	return !has || neigh_known(ctx->neigh_fd, p->ifindex, family,
				   family == AF_INET ? (const void *)p->nexthop4 :
						       (const void *)p->nexthop6);
}

/* An uplink that became unusable for every family, or usable again for
 * one, as an event in the dataplane's ring (bpf/leaf.bpf.c's
 * xdpleaf_leaf_event), stamped with the time the change was applied.
 * Without the program (an instance pinned before events) nothing is
 * reported. */
static void link_event(struct watch_ctx *ctx, __u32 ifindex, __u32 group, bool down,
		       __u64 applied_ns)
{
	struct xl_event_head h = { .time_ns = applied_ns,
				   .kind = down ? XL_EV_LINK_DOWN : XL_EV_LINK_UP,
				   .ifindex = ifindex, .aux = group };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &h, .ctx_size_in = sizeof(h));

	if (ctx->event_prog_fd >= 0)
		bpf_prog_test_run_opts(ctx->event_prog_fd, &opts);
}

static void set_member_bit(__u32 *mask, __u32 i, bool down)
{
	if (down)
		*mask |= 1U << i;
	else
		*mask &= ~(1U << i);
}

/* Set or clear an uplink's bits in its group's down masks from its link
 * state and next hops. The daemon is the only writer, so a
 * read-modify-write is safe. */
static void refresh_uplink(struct watch_ctx *ctx, __u32 ifindex, bool running)
{
	struct xl_group_down mask = {};
	struct xl_group g;
	struct xl_port p;
	bool down4, down6, changed = false;
	__u64 applied_ns;

	if (ctx->groups_fd < 0 ||
	    bpf_map_lookup_elem(ctx->ports_fd, &ifindex, &p) ||
	    p.role != XL_ROLE_UPLINK ||
	    bpf_map_lookup_elem(ctx->groups_fd, &p.group, &g))
		return;
	down4 = !uplink_usable(ctx, &p, running, AF_INET);
	down6 = !uplink_usable(ctx, &p, running, AF_INET6);
	bpf_map_lookup_elem(ctx->down_fd, &p.group, &mask);
	for (__u32 i = 0; i < g.n_members && i < XL_MAX_GROUP_MEMBERS; i++) {
		if (g.members[i] != ifindex)
			continue;
		bool was_down = (mask.v4 & mask.v6) & (1U << i);

		set_member_bit(&mask.v4, i, down4);
		set_member_bit(&mask.v6, i, down6);
		if (was_down != (down4 && down6))
			changed = true;
	}
	/* Read before the mask takes effect: the event is written after it
	 * (the flows move first, failover waits for nothing), and a move it
	 * caused may be in the ring before it, but its time precedes them. */
	applied_ns = xl_monotonic_ns();
	bpf_map_update_elem(ctx->down_fd, &p.group, &mask, BPF_ANY);
	if (changed) {
		char ifname[IF_NAMESIZE] = "?";

		if_indextoname(ifindex, ifname);
		link_event(ctx, ifindex, p.group, down4 && down6, applied_ns);
		if (down4 && down6)
			xl_log(running ? XL_LOG_INFO : XL_LOG_WARN,
			       "uplink %s (group %u) is out of use (%s): its "
			       "flows move to the others", ifname, p.group,
			       running ? "no next hop resolved" : "link down");
		else
			xl_info("uplink %s (group %u) is in use again", ifname, p.group);
	}
}

static void on_link(const struct xl_rtnl_link *l, void *data)
{
	struct watch_ctx *ctx = data;
	bool running = !l->deleted && (l->flags & IFF_UP) && (l->flags & IFF_RUNNING);

	refresh_uplink(ctx, l->ifindex, running);
	if (running)
		ctx->resolicit = true;
}

/* The event socket carries both kinds. */
static const struct xl_rtnl_handlers on_event = { .neigh = on_neigh, .link = on_link };

static int dump_neighbours(struct xl_rtnl *nl, struct watch_ctx *ctx)
{
	return xl_rtnl_neigh_dump(nl, AF_UNSPEC, on_neigh, ctx);
}

/* Every XL_NEIGH_REVALIDATE_S, each neighbour the dataplane forwards to is
 * put to the kernel's PROBE state: the kernel then checks it with unicast
 * ARP/ND probes, as it does for entries its own forwarding uses. Without
 * this, an entry only the fast path uses is never re-checked: a host that
 * changed its MAC (no gratuitous ARP) stayed unreachable for good while
 * the kernel's entry sat STALE with the old MAC. A host that answers is
 * REACHABLE again at its first probe; one that does not (a new MAC) fails
 * after ucast_probes (3 s), leaves the map, and the kernel resolves its
 * address anew for the next packet: healed within about 3 + 3 + 1 s. */
#define XL_NEIGH_REVALIDATE_S 3
static void revalidate_neighbours(struct xl_rtnl *nl, struct watch_ctx *ctx)
{
	struct xl_neigh_key key, next;
	void *prev = NULL;
	int n = 0;

	while (bpf_map_get_next_key(ctx->neigh_fd, prev, &next) == 0) {
		struct xl_neigh val;

		key = next;
		prev = &key;
		/* a static entry is the operator's: never turned into a probe */
		if (bpf_map_lookup_elem(ctx->neigh_fd, &key, &val) || val.is_static)
			continue;
		xl_rtnl_neigh_request(nl, XL_RTNL_NEIGH_PROBE, key.ifindex, key.family,
				      key.addr);
		n++;
	}
	xl_debug("re-validating %d neighbours (kernel PROBE)", n);
}

/* NTF_USE makes the kernel start resolution (ARP/ND) for an address as if a
 * packet were waiting for it, without us sending any traffic. */
static void solicit(struct xl_rtnl *nl, __u32 ifindex, int family,
		    const void *addr)
{
	xl_rtnl_neigh_request(nl, XL_RTNL_NEIGH_SOLICIT, ifindex, family, addr);
}

/* Drop the kernel's entry for an address that the map does not have: an
 * entry left INCOMPLETE by a probe into the link while it was dead (a
 * periodic solicitation can race the link's going down) would make the
 * next solicitation wait for that entry's next probe, up to a second
 * (measured once: IPv6 back 1.1 s after the link, where 3-100 ms is the
 * rule). Deleted first, the entry is resolved from scratch at once. */
static void forget(struct xl_rtnl *nl, __u32 ifindex, int family,
		   const void *addr)
{
	xl_rtnl_neigh_request(nl, XL_RTNL_NEIGH_FORGET, ifindex, family, addr);
}

static bool neigh_known(int neigh_fd, __u32 ifindex, int family,
			const void *addr)
{
	if (neigh_fd < 0)
		return false;
	struct xl_neigh_key key = { .ifindex = ifindex, .family = family };
	struct xl_neigh val;

	memcpy(key.addr, addr, family == AF_INET ? 4 : 16);
	return bpf_map_lookup_elem(neigh_fd, &key, &val) == 0;
}

/* Ask for every uplink next hop that the map does not have yet, on links
 * that are up. Not on a link that is down: the request would leave an
 * INCOMPLETE entry probing once a second into the dead link, and when the
 * link came back, resolution would wait for that entry's next probe
 * (0.5 s on average, measured) instead of starting at once. fresh (a link
 * just came back): forget the kernel's entry first. */
static void solicit_next_hops(struct xl_rtnl *nl, struct watch_ctx *ctx,
			      bool fresh)
{
	__u32 key, next;
	struct xl_port p;
	void *prev = NULL;

	while (bpf_map_get_next_key(ctx->ports_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(ctx->ports_fd, &key, &p) ||
		    !link_running(p.ifindex))
			continue;
		if (p.has_nexthop4 &&
		    !neigh_known(ctx->neigh_fd, p.ifindex, AF_INET, p.nexthop4)) {
			if (fresh)
				forget(nl, p.ifindex, AF_INET, p.nexthop4);
			solicit(nl, p.ifindex, AF_INET, p.nexthop4);
		}
		if (p.has_nexthop6 &&
		    !neigh_known(ctx->neigh_fd, p.ifindex, AF_INET6, p.nexthop6)) {
			if (fresh)
				forget(nl, p.ifindex, AF_INET6, p.nexthop6);
			solicit(nl, p.ifindex, AF_INET6, p.nexthop6);
		}
	}
}

/* The link state of an interface right now. */
static bool link_running(__u32 ifindex)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up = false;

	if (fd < 0)
		return true; /* cannot tell: do not take it out of service */
	if (if_indextoname(ifindex, ifr.ifr_name) &&
	    ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	close(fd);
	return up;
}

int xl_link_sync(int neigh_fd, int ports_fd, int groups_fd, int down_fd)
{
	struct watch_ctx ctx = { neigh_fd, ports_fd, groups_fd, down_fd, false, -1, -1 };
	__u32 key, next;
	void *prev = NULL;

	while (bpf_map_get_next_key(ports_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		refresh_uplink(&ctx, key, link_running(key));
	}
	return 0;
}

int xl_neigh_sync(int neigh_fd, int ports_fd, int gen_fd)
{
	struct watch_ctx ctx = { neigh_fd, ports_fd, -1, -1, false, -1, gen_fd };
	struct xl_rtnl *nl = xl_rtnl_open(0);
	int err;

	if (!nl) {
		xl_err("netlink: %s", strerror(errno));
		return -1;
	}
	err = dump_neighbours(nl, &ctx);
	solicit_next_hops(nl, &ctx, false);
	xl_rtnl_close(nl);
	return err;
}

/* After an uplink comes back, its next hops are solicited again (from
 * scratch: solicit_next_hops' fresh) every QUICK_RETRY_NS until they
 * resolve, for QUICK_WINDOW_NS: a solicitation sent the instant the
 * carrier returns can reach a peer whose end is not answering yet, and
 * the kernel's own retry comes a second later (RetransTimer): IPv6 was
 * back 1.1 s after the link once in five CI runs, IPv4 in 52 ms. The
 * interval is well above what a resolution takes in the lab (50-100 ms),
 * so that a retry does not cancel one on its way. */
#define QUICK_RETRY_NS 250000000ULL
#define QUICK_WINDOW_NS 1000000000ULL

int xl_watch(const char *instance)
{
	struct watch_ctx ctx = { .resolicit = false };
	char path[256];
	struct xl_rtnl *events, *req;
	time_t last_solicit = 0, last_revalidate = time(NULL);
	__u64 quick_until = 0, last_quick = 0;
	int err = 0;

	ctx.neigh_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_NEIGH));
	ctx.ports_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_PORTS));
	ctx.groups_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUPS));
	ctx.down_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_GROUP_DOWN));
	/* an instance of a build without caches has none (bpf/fwd_cache.h) */
	xl_pin_path(path, sizeof(path), instance, XL_MAP_NAME(XL_MAP_FWD_GEN));
	ctx.gen_fd = bpf_obj_get(path);
	if (ctx.neigh_fd < 0 || ctx.ports_fd < 0 || ctx.groups_fd < 0 ||
	    ctx.down_fd < 0)
		return -1;
	xl_pin_path(path, sizeof(path), instance, XL_PIN_PROG_LEAF_EVENT);
	ctx.event_prog_fd = bpf_obj_get(path);
	events = xl_rtnl_open(XL_RTNL_NEIGH | XL_RTNL_LINK);
	req = xl_rtnl_open(0);
	if (!events || !req) {
		xl_err("netlink: %s", strerror(errno));
		return -1;
	}
	/* Subscribe first, then read the state: a change between the two is
	 * seen. */
	dump_neighbours(req, &ctx);
	xl_link_sync(ctx.neigh_fd, ctx.ports_fd, ctx.groups_fd, ctx.down_fd);
	while (xl_instance_exists(instance) && !xl_daemon_stopping()) {
		struct pollfd pfd = { xl_rtnl_fd(events), POLLIN, 0 };
		time_t now = time(NULL);
		int n;

		xl_daemon_beat();
		/* At most once a second: the kernel rate-limits probes anyway. */
		if (now != last_solicit) {
			solicit_next_hops(req, &ctx, false);
			last_solicit = now;
		}
		if (now - last_revalidate >= XL_NEIGH_REVALIDATE_S) {
			revalidate_neighbours(req, &ctx);
			last_revalidate = now;
		}
		if (quick_until && xl_monotonic_ns() >= quick_until)
			quick_until = 0;
		if (quick_until && xl_monotonic_ns() - last_quick >= QUICK_RETRY_NS) {
			solicit_next_hops(req, &ctx, true);
			last_quick = xl_monotonic_ns();
		}
		if (poll(&pfd, 1, quick_until ? QUICK_RETRY_NS / 1000000 : 1000) <= 0)
			continue;
		n = xl_rtnl_read(events, &on_event, &ctx);
		if (n < 0 && errno == ENOBUFS) {
			/* Missed events: start again from the full state. */
			xl_warn("netlink events lost (ENOBUFS): reading "
				"the neighbours and links again");
			dump_neighbours(req, &ctx);
			xl_link_sync(ctx.neigh_fd, ctx.ports_fd, ctx.groups_fd, ctx.down_fd);
			continue;
		}
		if (n < 0) {
			xl_err("netlink: %s", strerror(errno));
			err = -1;
			break;
		}
		if (ctx.resolicit) { /* an uplink is back: resolve it now */
			solicit_next_hops(req, &ctx, true);
			ctx.resolicit = false;
			last_quick = xl_monotonic_ns();
			quick_until = last_quick + QUICK_WINDOW_NS;
		}
	}
	xl_rtnl_close(events);
	xl_rtnl_close(req);
	close(ctx.neigh_fd);
	if (ctx.gen_fd >= 0)
		close(ctx.gen_fd);
	close(ctx.ports_fd);
	close(ctx.groups_fd);
	close(ctx.down_fd);
	if (ctx.event_prog_fd >= 0)
		close(ctx.event_prog_fd);
	return err;
}
