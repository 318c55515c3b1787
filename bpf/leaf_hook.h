/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The leaf's path through one hook, included by bpf/leaf.bpf.c once per
 * hook it can be attached at (config `hook`): XDP (XL_HOOK_XDP), and tc
 * ingress (XL_HOOK_TC), where it sees the kernel's skb, aggregated by GRO
 * and segmented on the way out as any forwarded packet: on veths that
 * saves the per-frame path XDP_REDIRECT takes between them
 * (docs/architecture.md). Only how the packet is reached, measured,
 * copied into an event (XL_EVENT: xl_event_xdp, xl_event_skb) and sent
 * differs; each hook gets its own copy of these functions (a global
 * function's context is of one program type), named with XL_HOOKED.
 * Everything they call is common. */

#if defined(XL_HOOK_XDP)
#define XL_CTX struct xdp_md
#define XL_HOOKED(name) name##_xdp
#define XL_CTX_DATA(ctx) ((void *)(long)(ctx)->data)
#define XL_CTX_END(ctx) ((void *)(long)(ctx)->data_end)
#define XL_CTX_INGRESS(ctx) ((ctx)->ingress_ifindex)
#define XL_CTX_LEN(ctx) bpf_xdp_get_buff_len(ctx) /* all fragments */
#define XL_CTX_SEGS(ctx) 0U /* one frame */
#define XL_SEGS_AGAIN(ctx) 0U
#define XL_FWD_SEGS(l3) 0U
#define XL_EVENT xl_event_xdp
#define XL_CTX_PULL(ctx, len) ((void)0) /* the headers are in the first buffer */
#define XL_CTX_REDIRECT(ifindex) (bpf_redirect_map(&tx_ports, ifindex, 0) == XDP_REDIRECT)
#elif defined(XL_HOOK_TC)
#define XL_CTX struct __sk_buff
#define XL_HOOKED(name) name##_tc
#define XL_CTX_DATA(ctx) xl_skb_data(ctx)
#define XL_CTX_END(ctx) xl_skb_end(ctx)
#define XL_CTX_INGRESS(ctx) ((ctx)->ingress_ifindex)
#define XL_CTX_LEN(ctx) ((__u64)(ctx)->len) /* every segment */
/* a GRO aggregate is that many frames on the wire */
#define XL_CTX_SEGS(ctx) ((ctx)->gso_segs & 0x7fff)
/* ... of which all but the first carry the headers again */
#define XL_SEGS_AGAIN(ctx) (XL_CTX_SEGS(ctx) > 1 ? XL_CTX_SEGS(ctx) - 1 : 0)
#define XL_FWD_SEGS(l3) (((l3) >> XL_L3_SEGS_SHIFT) & 0x7fff)
#define XL_EVENT xl_event_skb
#define XL_CTX_PULL(ctx, len) xl_leaf_pull(ctx, len)
#define XL_CTX_REDIRECT(ifindex) (bpf_redirect(ifindex, 0) == XL_TC_ACT_REDIRECT)
#else
#error "define XL_HOOK_XDP or XL_HOOK_TC"
#endif

/* The member of group gid for the packet (xl_choose_uplink), with an
 * event for a move or a refused one: its ifindex, or 0 if the group has
 * none to give (no_member). */
static __always_inline __u32 XL_HOOKED(group_member)(XL_CTX *ctx, struct xl_flow *f,
						    __u32 gid, __u64 now, __u64 len,
						    __u32 *detail)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	int m;

	if (!g)
		return 0;
	m = xl_choose_uplink(f, gid, now, len, detail);
	if (m < 0)
		return 0;
	if (m & (XL_CHOSE_MOVED | XL_CHOSE_REFUSED))
		XL_EVENT(ctx, XL_EVENT_WHAT(m & XL_CHOSE_MOVED ? XL_EV_MOVE :
						XL_EV_MOVE_REFUSED, 0,
						g->members[m & (XL_MAX_GROUP_MEMBERS - 1)]),
			     g->members[XL_CHOSE_OTHER(m) & (XL_MAX_GROUP_MEMBERS - 1)],
			     *detail, f);
	m &= 0xff;
	if (m >= XL_MAX_GROUP_MEMBERS)
		return 0;
	/* The mask is a no-op the verifier can see (clang folds the check
	 * above into one the verifier cannot follow). */
	return g->members[m & (XL_MAX_GROUP_MEMBERS - 1)];
}

/* Everything after the parser: route, choose the uplink, resolve the next
 * hop, apply the egress queue, rewrite and redirect. The route, the ports
 * and the next hops' MACs come from this CPU's caches (bpf/fwd_cache.h),
 * filled from the maps on a miss. A global function: the verifier checks
 * it once with unknown arguments, instead of once per combination of
 * header facts (family, VLAN, L4, RoCE) the parser leaves behind, which
 * kept loading slow. flow is the parsed flow, l3 the offset of the IP
 * header with XL_PURE_ACK set in it for a pure acknowledgement and the
 * frames the packet is on the wire (a GRO aggregate's segments, at tc; 0
 * for 1) in bits XL_L3_SEGS_SHIFT up (no argument more: the program's
 * stack is at its limit), len the packet's bytes on the wire (all
 * fragments, or all segments each with its headers: the caller has them
 * already).
 * Returns (XDP action << 8) | reason. */
__noinline int XL_HOOKED(xl_forward)(XL_CTX *ctx, struct xl_flow *flow, __u32 l3, __u32 len)
{
	void *data = XL_CTX_DATA(ctx);
	void *end = XL_CTX_END(ctx);
	__u64 gen = xl_fwd_gen(), now = 0;
	struct ethhdr *eth = data;
	/* [0] in: the packet's kind and DSCP, for xl_choose_uplink
	 * (XL_DETAIL_DSCP), out: what a move weighed; [1] the packet's
	 * frames. Side by side: the stack has no room for another slot of
	 * its own. */
	__u32 detail[2] = { l3 & XL_PURE_ACK, XL_FWD_SEGS(l3) };
	__u32 off = l3 & ((1U << XL_L3_SEGS_SHIFT) - 1);
	struct xl_port_stats *tx_st;
	struct xl_route_cached *rt;
	struct xl_port_cached *out;
	const __u8 *nh_mac;
	__u32 ifindex;
	__u8 tos;
	void *l3h;

	if (!flow || off > sizeof(struct ethhdr) + sizeof(struct vlan_hdr))
		return XDP_PASS << 8 | XL_R_NO_ROUTE;
	/* The parser checked these bounds; the verifier needs to see them
	 * again here, where the offset is just a number. */
	l3h = data + off;
	if ((void *)(eth + 1) > end)
		return XDP_PASS << 8 | XL_R_TRUNC_ETH;
	if (flow->family == 4) {
		struct iphdr *iph = l3h;

		if ((void *)(iph + 1) > end)
			return XDP_PASS << 8 | XL_R_TRUNC_IP4;
		tos = iph->tos;
	} else {
		struct ipv6hdr *ip6 = l3h;

		if ((void *)(ip6 + 1) > end)
			return XDP_PASS << 8 | XL_R_TRUNC_IP6;
		tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	}
	detail[0] |= XL_DETAIL_DSCP(tos >> 2);

	rt = route_cached(flow, gen);
	if (!rt)
		return XDP_PASS << 8 | XL_R_NO_ROUTE;
	if (rt->kind == XL_ROUTE_GROUP) {
		/* the clock only where something keeps time: the flowlets,
		 * an uplink's rate, a queue (which reads one itself if none) */
		now = bpf_ktime_get_ns();
		ifindex = XL_HOOKED(group_member)(ctx, flow, rt->target, now, len, &detail[0]);
		if (!ifindex)
			return XDP_PASS << 8 | XL_R_NO_MEMBER;
		out = port_cached(ifindex, gen);
		if (!out)
			return XDP_PASS << 8 | XL_R_UNKNOWN_PORT;
		/* through an uplink: its next hop */
		if (flow->family == 4 ? !out->port.has_nexthop4 || !out->nh_ok[0] :
					!out->port.has_nexthop6 || !out->nh_ok[1])
			return XDP_PASS << 8 | XL_R_NO_NEIGH;
		nh_mac = out->nh_mac[flow->family == 4 ? 0 : 1];
	} else {
		/* on-link: the destination host is the neighbour */
		int known = rt->nh_ok;

		nh_mac = rt->nh_mac;
		out = port_cached(rt->target, gen);
		if (!out)
			return XDP_PASS << 8 | XL_R_UNKNOWN_PORT;
		if (!known)
			return XDP_PASS << 8 | XL_R_NO_NEIGH;
		/* a queue reads its own clock (bpf/queue.h) */
		if (out->port.role == XL_ROLE_UPLINK)
			now = bpf_ktime_get_ns();
	}

	if (out->port.drain_bps) {
		/* every segment of an aggregate pays its line overhead */
		__u64 qlen = len + (detail[1] > 1 ? detail[1] - 1 : 0) * out->port.line_overhead;
		/* the bulk guard's queue only on a port that has one */
		int q = out->port.bulk_guard ?
				xl_guarded_queue(&out->port, tos >> 2, tos & XL_ECN_MASK, qlen, now) :
				xl_phantom_queue(&out->port, tos >> 2, tos & XL_ECN_MASK, qlen, now);

		if (q & XL_Q_DROP)
			return XDP_DROP << 8 | XL_R_TAIL_DROP;
		if (q & XL_Q_MARK) {
			xl_set_ce(l3h, flow->family == 4 ? XL_ETH_P_IP : XL_ETH_P_IPV6);
			if (xl_mark_sampled())
				XL_EVENT(ctx, XL_EVENT_WHAT(XL_EV_MARK, 0, out->port.ifindex),
					     tos >> 2, 0, flow);
		}
	}
	xl_decrement_ttl(l3h, flow->family == 4 ? XL_ETH_P_IP : XL_ETH_P_IPV6);
	xl_rewrite_l2(eth, out->port.mac, nh_mac);
	if (!XL_CTX_REDIRECT(out->port.ifindex))
		return XDP_DROP << 8 | XL_R_REDIRECT_FAILED;
	tx_st = stats_of(out->port.slot);
	if (tx_st) {
		tx_st->tx_packets++;
		tx_st->tx_bytes += len;
	}
	if (out->port.role == XL_ROLE_UPLINK)
		xl_sample_uplink_rate(out->port.slot, now);
	return XDP_REDIRECT << 8 | XL_R_FORWARDED;
}

/* The verdict, and an event when it is a drop (with the flow when the
 * packet had one parsed). */
static __always_inline int XL_HOOKED(dropped)(XL_CTX *ctx, struct xl_port_stats *st,
				   int reason, int action, const struct xl_flow *f,
				   __u32 ifindex)
{
	if (action == XDP_DROP)
		XL_EVENT(ctx, XL_EVENT_WHAT(XL_EV_DROP, reason, ifindex), 0, 0, f);
	return verdict(st, reason, action);
}

/* A MAC control frame on the port `in`: PFC counters, and an event per
 * priority this frame made a storm of (the watchdog, bpf/pfc.h). Global:
 * rare, and kept out of the main program's paths. */
__noinline int XL_HOOKED(xl_pfc_received)(XL_CTX *ctx, __u32 in_ifindex)
{
	void *data = XL_CTX_DATA(ctx);
	void *end = XL_CTX_END(ctx);
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
			XL_EVENT(ctx, XL_EVENT_WHAT(XL_EV_PFC_STORM, 0, in_ifindex), p,
				     (__u32)(watchdog / 1000000), NULL);
	return 0;
}

/* A RoCEv2 packet about to be forwarded: its QP's PSN sequence and NAKs
 * (bpf/psn.h), an event when out of the ordinary. op_psn: the BTH opcode
 * << 24 | PSN. Global, as xl_pfc_received. */
__noinline int XL_HOOKED(xl_roce_seen)(XL_CTX *ctx, const struct xl_flow *f,
			    __u32 op_psn, int aeth_kind, __u32 ifindex)
{
	__u32 aux = 0, aux2 = 0;
	int kind;

	if (!f)
		return 0;
	kind = xl_psn_account(f, op_psn >> 24, op_psn & XL_PSN_MASK, aeth_kind,
			      &aux, &aux2);
	if (kind >= 0)
		XL_EVENT(ctx, XL_EVENT_WHAT(kind, 0, ifindex), aux, aux2, f);
	return 0;
}

/* The program: parse, check, forward, count; returns an XDP action (the
 * tc program translates it). */
static __always_inline int XL_HOOKED(leaf)(XL_CTX *ctx)
{
	__u32 in_ifindex = XL_CTX_INGRESS(ctx);
	__u64 len = XL_CTX_LEN(ctx); /* all fragments, or all segments */
	void *data, *end;
	struct xl_port_stats *st;
	struct xl_pkt p = {};
	struct xl_port_cached *in_c;
	struct xl_port *in;
	__u32 again; /* header bytes a GRO aggregate's segments repeat */
	int reason, r;

	in_c = port_cached(in_ifindex, xl_fwd_gen());
	if (!in_c)
		return XDP_PASS; /* not ours: attached by mistake, stay harmless */
	in = &in_c->port;
	XL_CTX_PULL(ctx, len);
	data = XL_CTX_DATA(ctx);
	end = XL_CTX_END(ctx);
	st = stats_of(in->slot);
	if (st) {
		st->rx_packets++;
		st->rx_bytes += len;
	}

	reason = xl_parse(&p, data, end, len);
	if (reason >= XL_FIRST_MALFORMED)
		return XL_HOOKED(dropped)(ctx, st, reason, malformed_action(), NULL, in_ifindex);
	if (reason == XL_R_MAC_CONTROL)
		XL_HOOKED(xl_pfc_received)(ctx, in_ifindex);
	if (reason != XL_R_FORWARDED)
		return verdict(st, reason, XDP_PASS);

	/* PSNs are tracked only where the port asks (its `psn_tracking`);
	 * decided here, while `in` is at hand (no stack for it later) */
	p.is_roce &= in->psn_tracking;
	reason = not_for_fast_path(&p, in);
	if (reason >= XL_FIRST_MALFORMED)
		return XL_HOOKED(dropped)(ctx, st, reason, malformed_action(), &p.flow, in_ifindex);
	if (reason != XL_R_FORWARDED)
		return verdict(st, reason, XDP_PASS);
	if (p.is_roce)
		XL_HOOKED(xl_roce_seen)(ctx, &p.flow, (__u32)p.bth_opcode << 24 | p.psn,
			     p.aeth_kind, in_ifindex);

	/* a GRO aggregate came, and leaves, as XL_CTX_SEGS frames, each
	 * with its own headers: its wire bytes are what rx_bytes, the
	 * uplink's rate, the phantom queue and tx_bytes count (here: no
	 * stack left for it in xl_forward) */
	again = XL_SEGS_AGAIN(ctx) * p.hdr_len;
	if (st)
		st->rx_bytes += again;
	r = XL_HOOKED(xl_forward)(ctx, &p.flow, (__u32)((long)p.l3 - (long)data) |
					     XL_CTX_SEGS(ctx) << XL_L3_SEGS_SHIFT |
					     (p.pure_ack ? XL_PURE_ACK : 0),
				  (__u32)len + again);
	return XL_HOOKED(dropped)(ctx, st, r & 0xff, (r >> 8) & 0xff, &p.flow, in_ifindex);
}


#undef XL_CTX
#undef XL_HOOKED
#undef XL_CTX_DATA
#undef XL_CTX_END
#undef XL_CTX_INGRESS
#undef XL_CTX_LEN
#undef XL_CTX_SEGS
#undef XL_SEGS_AGAIN
#undef XL_FWD_SEGS
#undef XL_EVENT
#undef XL_CTX_PULL
#undef XL_CTX_REDIRECT
