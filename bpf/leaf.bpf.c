// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The leaf's forwarding program, attached to every configured port at XDP
 * or at tc ingress (config `hook`): parse, route, choose the egress port,
 * rewrite, redirect, count. Anything it does not handle goes to the
 * kernel, which acts as a router would. */
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
#include "tc_parse.h"
#include "tc_act.h"
#include "event_skb.h"
#include "fwd_cache.h"

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

/* Headers the tc program pulls into an skb's linear part when they are
 * not all there: Ethernet with a tag, IPv6 or IPv4 with options, a TCP
 * header or UDP with RoCE's BTH and AETH. */
#define XL_LEAF_PULL 128

/* The parser's headers into the skb's linear part, where they may not
 * all be. Global: its frame is not on the stack of the calls that
 * follow (the program's stack is at its limit). */
__noinline int xl_leaf_pull(struct __sk_buff *skb, __u64 len)
{
	if (!skb)
		return 0;
	if (xl_skb_data(skb) + XL_LEAF_PULL > xl_skb_end(skb) &&
	    len > (__u64)(xl_skb_end(skb) - xl_skb_data(skb)))
		bpf_skb_pull_data(skb, len < XL_LEAF_PULL ? len : XL_LEAF_PULL);
	return 0;
}

/* Where xl_forward's l3 argument carries the packet's frame count. */
#define XL_L3_SEGS_SHIFT 16

#define XL_HOOK_XDP
#include "leaf_hook.h"
#undef XL_HOOK_XDP

#define XL_HOOK_TC
#include "leaf_hook.h"
#undef XL_HOOK_TC

SEC("xdp.frags")
int xdpleaf_leaf(struct xdp_md *ctx)
{
	return leaf_xdp(ctx);
}

/* The same at tc ingress (tcx): the XDP action as tc's. */
SEC("tc")
int xdpleaf_leaf_tc(struct __sk_buff *skb)
{
	int action = leaf_tc(skb);

	return action == XDP_REDIRECT ? XL_TC_ACT_REDIRECT :
	       action == XDP_DROP     ? XL_TC_ACT_SHOT :
					XL_TC_ACT_OK;
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
