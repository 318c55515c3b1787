// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The leaf's forwarding program, attached at XDP to every configured port:
 * parse, route, choose the egress port, rewrite, redirect, count. Anything
 * it does not handle goes to the kernel, which acts as a router would. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpleaf.h"
#include "lb.h"
#include "parse.h"
#include "maps.h"
#include "rewrite.h"
#include "queue.h"
#include "uplink.h"
#include "event_ring.h"
#include "psn.h"
#include "pfc.h"

#define AF_INET_ 2
#define AF_INET6_ 10

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline struct xl_port_stats *stats_of(__u32 slot)
{
	return bpf_map_lookup_elem(&port_stats, &slot);
}

/* Count the verdict and its reason on the ingress port. */
static __always_inline int verdict(struct xl_port_stats *st, int reason,
				   int action)
{
	if (st) {
		if (reason >= 0 && reason < XL_REASON_MAX)
			(*xl_reason_counter(&st->reason, reason))++;
		if (action >= 0 && action < XL_VERDICT_MAX)
			(*xl_verdict_counter(&st->verdict, action))++;
	}
	return action;
}

static __always_inline struct xl_settings *settings_now(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&settings, &zero);
}

static __always_inline int malformed_action(void)
{
	struct xl_settings *s = settings_now();

	return s && s->malformed == XL_MALFORMED_DROP ? XDP_DROP : XDP_PASS;
}

/* Write an event (XL_EVENT_WHAT, bpf/event_ring.h) with the frame's first
 * bytes. A global function: verified once, whatever its callers. */
__noinline int xl_event_xdp(struct xdp_md *ctx, __u64 what, __u32 aux,
			    __u32 aux2, const struct xl_flow *f)
{
	struct xl_event *e;
	__u64 len;
	__u32 n;

	if (!ctx)
		return 0;
	e = xl_event_start(what, aux, aux2, f);
	if (!e)
		return 0;
	len = bpf_xdp_get_buff_len(ctx);
	n = xl_event_snap_len(len);
	e->h.pkt_len = (__u32)len;
	if (n >= 1 && n <= XL_EVENT_SNAP && !bpf_xdp_load_bytes(ctx, 0, e->pkt, n))
		e->h.snap_len = n;
	bpf_ringbuf_submit(e, 0);
	return 1;
}

static __always_inline struct xl_route *route_lookup(const struct xl_flow *f)
{
	if (f->family == 4) {
		struct xl_lpm4_key k = { .prefixlen = 32 };

		__builtin_memcpy(k.addr, f->daddr, 4);
		return bpf_map_lookup_elem(&routes4, &k);
	} else {
		struct xl_lpm6_key k = { .prefixlen = 128 };

		__builtin_memcpy(k.addr, f->daddr, 16);
		return bpf_map_lookup_elem(&routes6, &k);
	}
}

/* Resolve the route to an egress port and the neighbour key of its next
 * hop. Returns XL_R_FORWARDED or the reason it could not. */
static __always_inline int next_hop(struct xdp_md *ctx, struct xl_flow *f,
				    const struct xl_route *rt,
				    struct xl_port **out,
				    struct xl_neigh_key *nk,
				    __u64 now, __u64 len, __u32 *detail)
{
	__u32 ifindex = rt->target;
	struct xl_port *port;

	if (rt->kind == XL_ROUTE_GROUP) {
		__u32 gid = rt->target;
		struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
		int m;

		if (!g)
			return XL_R_NO_MEMBER;
		m = xl_choose_uplink(f, gid, now, len, detail);
		if (m < 0)
			return XL_R_NO_MEMBER;
		if (m & (XL_CHOSE_MOVED | XL_CHOSE_REFUSED))
			xl_event_xdp(ctx, XL_EVENT_WHAT(m & XL_CHOSE_MOVED ? XL_EV_MOVE :
							XL_EV_MOVE_REFUSED, 0,
							g->members[m & (XL_MAX_GROUP_MEMBERS - 1)]),
				     g->members[XL_CHOSE_OTHER(m) & (XL_MAX_GROUP_MEMBERS - 1)],
				     *detail, f);
		m &= 0xff;
		if (m >= XL_MAX_GROUP_MEMBERS)
			return XL_R_NO_MEMBER;
		/* The mask is a no-op the verifier can see (clang folds the
		 * check above into one the verifier cannot follow). */
		ifindex = g->members[m & (XL_MAX_GROUP_MEMBERS - 1)];
	}
	port = bpf_map_lookup_elem(&ports, &ifindex);
	if (!port)
		return XL_R_UNKNOWN_PORT;
	nk->ifindex = ifindex;
	if (rt->kind == XL_ROUTE_PORT) {
		/* On-link: the destination host is the neighbour. */
		__builtin_memcpy(nk->addr, f->daddr, 16);
	} else if (f->family == 4) {
		if (!port->has_nexthop4)
			return XL_R_NO_NEIGH;
		__builtin_memcpy(nk->addr, port->nexthop4, 4);
	} else {
		if (!port->has_nexthop6)
			return XL_R_NO_NEIGH;
		__builtin_memcpy(nk->addr, port->nexthop6, 16);
	}
	nk->family = f->family == 4 ? AF_INET_ : AF_INET6_;
	*out = port;
	return XL_R_FORWARDED;
}

static __always_inline int is_port_mac(const __u8 *m, const struct xl_port *in)
{
	return m[0] == in->mac[0] && m[1] == in->mac[1] && m[2] == in->mac[2] &&
	       m[3] == in->mac[3] && m[4] == in->mac[4] && m[5] == in->mac[5];
}

/* Packets a router must not forward on its fast path. */
static __always_inline int not_for_fast_path(const struct xl_pkt *p,
					     const struct xl_port *in)
{
	if (!is_port_mac(p->eth->h_dest, in))
		return XL_R_NOT_OUR_MAC;
	/* our own frame come back (a loop), or a station spoofing us */
	if (is_port_mac(p->eth->h_source, in))
		return XL_R_BAD_SRC_MAC;
	if (p->martian)
		return XL_R_MARTIAN;
	if (p->has_vlan && p->vid) {
		struct xl_vlan_key vk = { .ifindex = in->ifindex, .vid = p->vid };

		if (!bpf_map_lookup_elem(&port_vlans, &vk))
			return XL_R_VLAN_UNKNOWN;
	}
	if (p->flow.family == 6) {
		/* ff00::/8 multicast, fe80::/10 link-local */
		if (p->flow.daddr[0] == 0xff ||
		    (p->flow.daddr[0] == 0xfe && (p->flow.daddr[1] & 0xc0) == 0x80))
			return XL_R_LINK_LOCAL;
		if (p->flow.proto == XL_IPPROTO_ICMPV6 && p->icmp6_type >= 133 &&
		    p->icmp6_type <= 137)
			return XL_R_ND;
	}
	if (p->ttl <= 1)
		return XL_R_TTL_EXPIRED;
	return XL_R_FORWARDED;
}

/* Everything after the parser: route, choose the uplink, resolve the next
 * hop, apply the egress queue, rewrite and redirect. A global function:
 * the verifier checks it once with unknown arguments, instead of once per
 * combination of header facts (family, VLAN, L4, RoCE) the parser leaves
 * behind, which kept loading slow. flow is the parsed flow, l3 the offset
 * of the IP header with XL_PURE_ACK set in it for a pure acknowledgement
 * (no argument more: the program's stack is at its limit), len the
 * frame's whole length (all fragments: the caller has it already).
 * Returns (XDP action << 8) | reason. */
__noinline int xl_forward(struct xdp_md *ctx, struct xl_flow *flow, __u32 l3, __u32 len)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 now = bpf_ktime_get_ns();
	struct ethhdr *eth = data;
	struct xl_neigh_key nk = {};
	__u32 detail = l3 & XL_PURE_ACK; /* in: the packet's kind, for xl_choose_uplink */
	struct xl_port_stats *tx_st;
	struct xl_port *out = NULL;
	__u16 l3_proto;
	__u8 tos;
	struct xl_route *rt;
	struct xl_neigh *nb;
	void *l3h;
	int reason;

	l3 &= ~XL_PURE_ACK;
	if (!flow || l3 > sizeof(struct ethhdr) + sizeof(struct vlan_hdr))
		return XDP_PASS << 8 | XL_R_NO_ROUTE;
	/* The parser checked these bounds; the verifier needs to see them
	 * again here, where l3 is just a number. */
	l3h = data + l3;
	if ((void *)(eth + 1) > end)
		return XDP_PASS << 8 | XL_R_TRUNC_ETH;
	if (flow->family == 4) {
		struct iphdr *iph = l3h;

		if ((void *)(iph + 1) > end)
			return XDP_PASS << 8 | XL_R_TRUNC_IP4;
		l3_proto = XL_ETH_P_IP;
		tos = iph->tos;
	} else {
		struct ipv6hdr *ip6 = l3h;

		if ((void *)(ip6 + 1) > end)
			return XDP_PASS << 8 | XL_R_TRUNC_IP6;
		l3_proto = XL_ETH_P_IPV6;
		tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	}

	rt = route_lookup(flow);
	if (!rt)
		return XDP_PASS << 8 | XL_R_NO_ROUTE;
	reason = next_hop(ctx, flow, rt, &out, &nk, now, len, &detail);
	if (reason != XL_R_FORWARDED || !out)
		return XDP_PASS << 8 | reason;
	nb = bpf_map_lookup_elem(&neigh, &nk);
	if (!nb)
		return XDP_PASS << 8 | XL_R_NO_NEIGH;

	if (out->drain_bps) {
		int q = xl_phantom_queue(out, tos >> 2, tos & XL_ECN_MASK, len);

		if (q & XL_Q_DROP)
			return XDP_DROP << 8 | XL_R_TAIL_DROP;
		if (q & XL_Q_MARK) {
			xl_set_ce(l3h, l3_proto);
			if (xl_mark_sampled())
				xl_event_xdp(ctx, XL_EVENT_WHAT(XL_EV_MARK, 0, out->ifindex),
					     tos >> 2, 0, flow);
		}
	}
	xl_decrement_ttl(l3h, l3_proto);
	xl_rewrite_l2(eth, out->mac, nb->mac);
	if (bpf_redirect_map(&tx_ports, out->ifindex, 0) != XDP_REDIRECT)
		return XDP_DROP << 8 | XL_R_REDIRECT_FAILED;
	tx_st = stats_of(out->slot);
	if (tx_st) {
		tx_st->tx_packets++;
		tx_st->tx_bytes += len;
	}
	if (out->role == XL_ROLE_UPLINK)
		xl_sample_uplink_rate(out->slot, now);
	return XDP_REDIRECT << 8 | XL_R_FORWARDED;
}

/* The verdict, and an event when it is a drop (with the flow when the
 * packet had one parsed). */
static __always_inline int dropped(struct xdp_md *ctx, struct xl_port_stats *st,
				   int reason, int action, const struct xl_flow *f,
				   __u32 ifindex)
{
	if (action == XDP_DROP)
		xl_event_xdp(ctx, XL_EVENT_WHAT(XL_EV_DROP, reason, ifindex), 0, 0, f);
	return verdict(st, reason, action);
}

/* A MAC control frame on the port `in`: PFC counters, and an event per
 * priority this frame made a storm of (the watchdog, bpf/pfc.h). Global:
 * rare, and kept out of the main program's paths. */
__noinline int xl_pfc_received(struct xdp_md *ctx, __u32 in_ifindex)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct xl_settings *s = settings_now();
	__u64 watchdog = s ? s->pfc_watchdog_ns : 0;
	struct xl_port *in = bpf_map_lookup_elem(&ports, &in_ifindex);
	__u32 storms;
	int p;

	if (!in || (void *)(eth + 1) > end)
		return 0;
	storms = xl_pfc_frame(eth + 1, end, in->slot, in->line_rate_bps, watchdog,
			      bpf_ktime_get_ns());
	for (p = 0; p < XL_PFC_PRIORITIES; p++)
		if (storms & (1U << p))
			xl_event_xdp(ctx, XL_EVENT_WHAT(XL_EV_PFC_STORM, 0, in_ifindex), p,
				     (__u32)(watchdog / 1000000), NULL);
	return 0;
}

/* A RoCEv2 packet about to be forwarded: its QP's PSN sequence and NAKs
 * (bpf/psn.h), an event when out of the ordinary. op_psn: the BTH opcode
 * << 24 | PSN. Global, as xl_pfc_received. */
__noinline int xl_roce_seen(struct xdp_md *ctx, const struct xl_flow *f,
			    __u32 op_psn, int aeth_kind, __u32 ifindex)
{
	__u32 aux = 0, aux2 = 0;
	int kind;

	if (!f)
		return 0;
	kind = xl_psn_account(f, op_psn >> 24, op_psn & XL_PSN_MASK, aeth_kind,
			      &aux, &aux2);
	if (kind >= 0)
		xl_event_xdp(ctx, XL_EVENT_WHAT(kind, 0, ifindex), aux, aux2, f);
	return 0;
}

SEC("xdp.frags")
int xdpleaf_leaf(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 in_ifindex = ctx->ingress_ifindex;
	__u64 len = bpf_xdp_get_buff_len(ctx); /* all fragments */
	struct xl_port_stats *st;
	struct xl_pkt p = {};
	struct xl_port *in;
	int reason, r;

	in = bpf_map_lookup_elem(&ports, &in_ifindex);
	if (!in)
		return XDP_PASS; /* not ours: attached by mistake, stay harmless */
	st = stats_of(in->slot);
	if (st) {
		st->rx_packets++;
		st->rx_bytes += len;
	}

	reason = xl_parse(&p, data, end, len);
	if (reason >= XL_FIRST_MALFORMED)
		return dropped(ctx, st, reason, malformed_action(), NULL, in_ifindex);
	if (reason == XL_R_MAC_CONTROL)
		xl_pfc_received(ctx, in_ifindex);
	if (reason != XL_R_FORWARDED)
		return verdict(st, reason, XDP_PASS);

	reason = not_for_fast_path(&p, in);
	if (reason >= XL_FIRST_MALFORMED)
		return dropped(ctx, st, reason, malformed_action(), &p.flow, in_ifindex);
	if (reason != XL_R_FORWARDED)
		return verdict(st, reason, XDP_PASS);
	if (p.is_roce)
		xl_roce_seen(ctx, &p.flow, (__u32)p.bth_opcode << 24 | p.psn,
			     p.aeth_kind, in_ifindex);

	r = xl_forward(ctx, &p.flow, (__u32)((long)p.l3 - (long)data) |
				       (p.pure_ack ? XL_PURE_ACK : 0), (__u32)len);
	return dropped(ctx, st, r & 0xff, (r >> 8) & 0xff, &p.flow, in_ifindex);
}

/* Events the leaf's user space knows of first: an uplink that became
 * unusable or usable again (the daemon). It runs this program
 * (BPF_PROG_RUN) with the event's head as its context, so those events
 * reach the same ring, limits and counters as the dataplane's own. */
SEC("syscall")
int xdpleaf_leaf_event(struct xl_event_head *h)
{
	struct xl_event *e;

	if (h->kind != XL_EV_LINK_DOWN && h->kind != XL_EV_LINK_UP)
		return -1;
	e = xl_event_start(XL_EVENT_WHAT(h->kind, 0, h->ifindex), h->aux, 0, NULL);
	if (!e)
		return 1;
	/* the daemon's time of the change, taken before it took effect: the
	 * moves it causes come after it, even those in the ring before it */
	if (h->time_ns)
		e->h.time_ns = h->time_ns;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
