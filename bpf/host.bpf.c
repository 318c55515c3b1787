// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Host mode: DCQCN's notification point (NP) and reaction point (RP) at tc,
 * on every port of a GPU host (docs/dcqcn.md). Two programs, attached by
 * the loader with tcx links:
 *
 * xdpleaf_host_ingress
 *   NP: a CE-marked RoCEv2 data packet is counted and, at most once per
 *   cnp_interval_ns per flow (or per port), answered with a CNP. The data
 *   packet itself goes on untouched (TC_ACT_OK). The CNP is made from a
 *   clone: bpf_clone_redirect() sends a copy of the packet, marked
 *   XL_CNP_MARK, to this device's egress, where xdpleaf_host_egress rewrites
 *   it. Why not build it here: the clone leaves exactly as it is when
 *   cloned, and rewriting the original first would change the packet we
 *   must deliver (rewriting it back afterwards would cost two full rewrites
 *   and a resize per CNP, and get harder with non-linear skbs). The mark is
 *   set only for the clone call and restored right after.
 *   RP: a CNP (opcode 0x81) is matched to the flow we send on (its source
 *   address = our data's destination, its DestQP = our data's destination
 *   QP) and cuts that flow's rate (bpf/rp.h). CNPs are then dropped
 *   (TC_ACT_SHOT): the RP runs here, and a host without an RDMA NIC has no
 *   stack above that could use them. With rp_enabled = 0 they pass up
 *   untouched (an RNIC's driver may want them).
 *
 * xdpleaf_host_egress
 *   A marked clone becomes the CNP (bpf/cnp.h) and leaves through this
 *   device. Our own RoCEv2 data: the RP learns the flow on its first packet
 *   (rp_flows), accounts the bytes sent (the paper variant's byte counter)
 *   and gives the packet its earliest departure time (EDT): skb->tstamp =
 *   max(now, the flow's next departure), next departure += len * 8e9 / Rc.
 *   As in Cilium's bandwidth manager (bpf/lib/edt.h), the fq qdisc enforces
 *   these timestamps (`tc qdisc replace dev IF root fq`); without fq they
 *   are carried but not enforced, and `xdpleaf gen --rate-map` paces itself.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpleaf.h"
#include "host.h"
#include "host_maps.h"
#include "rp.h"
#include "cnp.h"
#include "instance.h"
#include "event_ring.h"
#include "host_trust.h"
#include "psn.h"
#include "tc_act.h"
#include "event_skb.h"


char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* ---- events ---------------------------------------------------------------- */

/* The flow a received RoCEv2 packet belongs to, keyed as the leaf keys it
 * (struct xl_flow). */
static __always_inline void tc_flow(const struct xl_tc_pkt *p, struct xl_flow *f)
{
	__builtin_memset(f, 0, sizeof(*f));
	__builtin_memcpy(f->saddr, p->saddr, 16);
	__builtin_memcpy(f->daddr, p->daddr, 16);
	f->sport = bpf_ntohs(p->sport);
	f->dport = XL_ROCEV2_PORT;
	f->proto = IPPROTO_UDP;
	f->family = p->family;
	f->qp = p->qp;
}

/* A received RoCEv2 packet (not a CNP): PSN sequence and NAKs
 * (bpf/psn.h), an event when out of the ordinary. Global: kept out of
 * the ingress program's paths. */
__noinline int xl_host_roce_seen(struct __sk_buff *skb, const struct xl_tc_pkt *p)
{
	__u32 aux = 0, aux2 = 0;
	struct xl_flow f;
	int kind;

	if (!skb || !p)
		return 0;
	tc_flow(p, &f);
	kind = xl_psn_account(&f, p->opcode, p->psn, p->aeth_kind, &aux, &aux2);
	if (kind >= 0)
		xl_event_skb(skb, XL_EVENT_WHAT(kind, 0, XL_SKB_U32(skb, ifindex)), aux, aux2, &f);
	return 0;
}

/* ---- NP ------------------------------------------------------------------ */

static __always_inline void np_ce(struct __sk_buff *skb,
				  const struct xl_host_cfg *cfg,
				  const struct xl_tc_pkt *p, __u32 udp_len,
				  struct xl_host_stats *st, __u64 now)
{
	struct xl_qp_key k;
	struct xl_np_flow *f, n = {};
	__u64 last;
	__u32 old_mark;
	long err;

	__builtin_memset(&k, 0, sizeof(k));
	if (cfg->cnp_scope == XL_CNP_PER_PORT) {
		k.qp = XL_SKB_U32(skb, ifindex);
	} else {
		__builtin_memcpy(k.addr, p->saddr, 16);
		k.family = p->family;
		k.qp = p->qp;
	}
	f = bpf_map_lookup_elem(&np_flows, &k);
	if (!f) {
		bpf_map_update_elem(&np_flows, &k, &n, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&np_flows, &k);
		if (!f)
			return;
	}
	__sync_fetch_and_add(&f->ce_packets, 1);
	last = *(volatile __u64 *)&f->last_cnp_ns;
	/* The compare-and-swap makes one CPU the sender when several see
	 * the interval over at once. */
	if (!xl_np_due(last, now, cfg->cnp_interval_ns) ||
	    __sync_val_compare_and_swap(&f->last_cnp_ns, last, now) != last) {
		__sync_fetch_and_add(&f->cnps_suppressed, 1);
		st->cnps_suppressed++;
		return;
	}
	/* The ICRC last, as a NIC would have checked it: only for a packet
	 * that would get a CNP (one per interval and QP), so a flood of CE
	 * marks costs one check per interval. A bad one leaves the interval
	 * to the next mark: forged packets cannot silence a QP's CNPs. */
	if (!xl_data_icrc_ok(skb, p->l2_len, p->l3_len + udp_len, p->family == 6)) {
		__sync_val_compare_and_swap(&f->last_cnp_ns, now, last);
		st->np_bad_icrc++;
		return;
	}
	if (!xl_np_port_cap_ok(skb, cfg, st, now)) {
		/* not sent: let the next CE mark try again */
		__sync_val_compare_and_swap(&f->last_cnp_ns, now, last);
		return;
	}
	old_mark = skb->mark;
	skb->mark = XL_CNP_MARK;
	err = bpf_clone_redirect(skb, XL_SKB_U32(skb, ifindex), 0);
	skb->mark = old_mark;
	if (err) {
		/* not sent: let the next CE mark try again */
		__sync_val_compare_and_swap(&f->last_cnp_ns, now, last);
		st->cnp_clone_failed++;
		return;
	}
	__sync_fetch_and_add(&f->cnps_sent, 1);
	st->cnps_sent++;
	{
		struct xl_flow fl;

		tc_flow(p, &fl);
		xl_event_skb(skb, XL_EVENT_WHAT(XL_EV_CNP_SENT, 0, XL_SKB_U32(skb, ifindex)), 0, 0, &fl);
	}
}

/* ---- RP ------------------------------------------------------------------ */

static __always_inline void rp_cnp(struct __sk_buff *skb, const struct xl_host_cfg *cfg,
				   const struct xl_tc_pkt *p,
				   struct xl_host_stats *st, __u64 now)
{
	struct xl_qp_key k;
	struct xl_rp_flow *f;
	__u64 rate;

	__builtin_memset(&k, 0, sizeof(k));
	__builtin_memcpy(k.addr, p->saddr, 16);
	k.family = p->family;
	k.qp = p->qp;
	st->cnps_received++;
	f = xl_rp_flow_get(&k, cfg, now, 0);
	if (!f) {
		st->cnps_unknown++;
		return;
	}
	xl_rp_event(f, &cfg->rp, now, XL_RP_EV_CNP, 0, &rate);
	xl_rp_publish(&k, rate, now);
	{
		struct xl_flow fl;

		tc_flow(p, &fl);
		xl_event_skb(skb, XL_EVENT_WHAT(XL_EV_CNP_RECEIVED, 0, XL_SKB_U32(skb, ifindex)),
			    (__u32)(rate / 1000000), 0, &fl);
	}
}

static __always_inline void rp_sent(struct __sk_buff *skb,
				    const struct xl_host_cfg *cfg,
				    const struct xl_tc_pkt *p,
				    struct xl_host_stats *st, __u64 now)
{
	struct xl_qp_key k;
	struct xl_rp_flow *f;
	__u64 rate, len = skb->len, gap, t;

	__builtin_memset(&k, 0, sizeof(k));
	__builtin_memcpy(k.addr, p->daddr, 16);
	k.family = p->family;
	k.qp = p->qp;
	f = xl_rp_flow_get(&k, cfg, now, 1);
	if (!f) {
		st->rp_no_room++;
		return;
	}
	xl_rp_event(f, &cfg->rp, now, XL_RP_EV_SENT, len | 1ULL << 32, &rate);
	xl_rp_publish(&k, rate, now);
	/* EDT: this packet leaves at max(now, next departure); the next one
	 * len * 8e9 / Rc later. The gap keeps 16 fractional bits (in
	 * next_tx_frac): truncating it to whole ns would pace 1082-byte
	 * frames at 100 Gbit/s 0.7 % fast. */
	if (rate) {
		__u64 bits_ns = len * 8000000000ULL; /* len < 2^32 */

		gap = (bits_ns / rate) << 16 | ((bits_ns % rate) << 16) / rate;
	} else {
		gap = 0;
	}
	bpf_spin_lock(&f->lock);
	if (f->next_tx_ns > now) {
		t = f->next_tx_ns;
		gap += f->next_tx_frac;
	} else {
		t = now;
	}
	f->next_tx_ns = t + (gap >> 16);
	f->next_tx_frac = gap & 0xffff;
	bpf_spin_unlock(&f->lock);
	/* A monotonic delivery time, kept across namespaces (veth), as fq
	 * expects; the plain store is the fallback for non-IP protocols. */
	if (bpf_skb_set_tstamp(skb, t, BPF_SKB_CLOCK_MONOTONIC))
		skb->tstamp = t;
	st->edt_stamped++;
}

/* ---- programs -------------------------------------------------------------- */

static __always_inline struct xl_host_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&host_stats, &zero);
}

SEC("tc")
int xdpleaf_host_ingress(struct __sk_buff *skb)
{
	struct xl_host_cfg *cfg;
	struct xl_host_stats *st;
	struct xl_tc_pkt p;
	__u32 zero = 0, udp_len;
	__u64 now;

	cfg = bpf_map_lookup_elem(&host_cfg, &zero);
	st = stats();
	if (!cfg || !st)
		return XL_TC_ACT_OK;
	if (xl_tc_parse(skb, &p) != XL_TC_ROCE)
		return XL_TC_ACT_OK;
	now = bpf_ktime_get_ns();
	if (p.opcode == XL_CNP_OPCODE) {
		if (!cfg->rp_enabled)
			return XL_TC_ACT_OK;
		if (xl_cnp_trusted(skb, &p, st))
			rp_cnp(skb, cfg, &p, st, now);
		return XL_TC_ACT_SHOT;
	}
	xl_host_roce_seen(skb, &p);
	if (p.ecn != XL_ECN_CE)
		return XL_TC_ACT_OK;
	st->ce_seen++;
	if (cfg->np_enabled && (udp_len = xl_np_trusted(skb, &p, st)))
		np_ce(skb, cfg, &p, udp_len, st, now);
	return XL_TC_ACT_OK;
}

SEC("tc")
int xdpleaf_host_egress(struct __sk_buff *skb)
{
	struct xl_host_cfg *cfg;
	struct xl_host_stats *st;
	struct xl_tc_pkt p;
	__u32 zero = 0;

	cfg = bpf_map_lookup_elem(&host_cfg, &zero);
	if (skb->mark == XL_CNP_MARK) {
		/* the NP's clone: becomes the CNP */
		skb->mark = 0;
		if (xl_cnp_build(skb, cfg ? cfg->cnp_dscp : XL_CNP_DSCP_DEFAULT)) {
			st = stats();
			if (st)
				st->cnp_build_failed++;
			return XL_TC_ACT_SHOT;
		}
		return XL_TC_ACT_OK;
	}
	st = stats();
	if (!cfg || !st || !cfg->rp_enabled)
		return XL_TC_ACT_OK;
	if (xl_tc_parse(skb, &p) != XL_TC_ROCE || p.opcode == XL_CNP_OPCODE)
		return XL_TC_ACT_OK;
	rp_sent(skb, cfg, &p, st, bpf_ktime_get_ns());
	return XL_TC_ACT_OK;
}
