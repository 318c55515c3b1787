// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf sink: receiver-side RoCEv2 counters. Counts every RoCEv2 packet
 * per (source address, destination QP, UDP source port): packets, bytes,
 * CE marks, reordering, duplicates, and enough PSN state for user space to
 * compute losses. Non-RoCE traffic passes untouched; RoCE packets are
 * consumed (XDP_DROP), like a NIC's RDMA engine would, unless pass_roce.
 *
 * Concurrency: a flow's state is updated without atomics or locks. That is
 * correct as long as one flow's packets are processed on one CPU at a time:
 * a veth receives in its single NAPI context (one rx queue by default), and
 * a NIC's RSS hashes one 5-tuple to one queue. `xdpleaf sink` warns when
 * the device has more than one rx queue. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xdpleaf.h"
#include "pin_names.h"
#include "roce.h"
#include "parse.h"
#include "csum.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load. */
const volatile __u32 pass_roce = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_SINK_MAX_FLOWS);
	__type(key, struct xl_sink_key);
	__type(value, struct xl_sink_flow);
} XL_MAP_SINK_FLOWS SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_sink_stats);
} XL_MAP_SINK_STATS SEC(".maps");

/* A new window whose top word holds psn: room for late packets below it. */
static __always_inline __u32 window_base_for(__u32 psn)
{
	return ((psn & ~63U) - (XL_SINK_WINDOW - 64)) & XL_PSN_MASK;
}

static __always_inline __u64 *seen_word(struct xl_sink_flow *f, __u32 psn)
{
	return &f->seen[(psn >> 6) & (XL_SINK_WINDOW_WORDS - 1)];
}

static __always_inline int in_window(const struct xl_sink_flow *f, __u32 psn)
{
	return ((psn - f->base) & XL_PSN_MASK) < XL_SINK_WINDOW;
}

/* The highest PSN moved up to psn: slide the window so psn is in its top
 * word, clearing the words that now stand for newer PSNs. */
static __always_inline void slide_window(struct xl_sink_flow *f, __u32 psn)
{
	__u32 nbase, k, i;

	if (in_window(f, psn))
		return;
	nbase = window_base_for(psn);
	k = ((nbase - f->base) & XL_PSN_MASK) >> 6; /* words that leave */
#pragma unroll
	for (i = 0; i < XL_SINK_WINDOW_WORDS; i++) {
		if (i < k)
			f->seen[((f->base >> 6) + i) & (XL_SINK_WINDOW_WORDS - 1)] = 0;
	}
	f->base = nbase;
}

static __always_inline void count_psn(struct xl_sink_flow *f, __u32 psn)
{
	int d = xl_psn_diff(psn, f->highest);
	__u64 bit = 1ULL << (psn & 63);
	__u64 *w;

	if (d > 0) {
		f->highest = psn;
		f->span += d;
		slide_window(f, psn);
		w = seen_word(f, psn);
		*w |= bit;
		return;
	}
	if (d == 0) {
		f->duplicates++;
		return;
	}
	/* Behind the highest: late (reordered) or a duplicate. Below the
	 * lowest PSN seen so far it extends the range downward. */
	if ((__u64)(-d) > f->span)
		f->span = -d;
	if (in_window(f, psn)) {
		w = seen_word(f, psn);
		if (*w & bit) {
			f->duplicates++;
			return;
		}
		*w |= bit;
	}
	/* Older than the window: cannot tell; counted as reordered. */
	f->reordered++;
}

/* A RoCEv2 packet whose headers do not agree with each other: an IPv4
 * header checksum that does not verify (options-free headers, all that a
 * RoCE sender writes), or a UDP length that is not the IP payload's. A
 * sender that went out with a stale or half-written header shows up here
 * rather than as a flow that happens to parse. */
static __always_inline int malformed(const struct xl_pkt *p, void *end)
{
	struct udphdr *udp;
	__u32 ip_payload;

	if (p->l3_proto == XL_ETH_P_IP) {
		struct iphdr *iph = p->l3;

		if ((void *)(iph + 1) > end)
			return 1;
		if (iph->ihl == 5 && xl_csum_full(iph, sizeof(*iph)) != 0)
			return 1;
		ip_payload = bpf_ntohs(iph->tot_len) - iph->ihl * 4;
		udp = (void *)iph + iph->ihl * 4;
	} else {
		struct ipv6hdr *ip6 = p->l3;

		if ((void *)(ip6 + 1) > end)
			return 1;
		/* parse.h stops at the first header: it is UDP here */
		ip_payload = bpf_ntohs(ip6->payload_len);
		udp = (void *)(ip6 + 1);
	}
	if ((void *)(udp + 1) > end)
		return 1;
	return bpf_ntohs(udp->len) != ip_payload;
}

static __always_inline struct xl_sink_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sink_stats, &zero);
}

SEC("xdp.frags")
int xdpleaf_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct xl_sink_stats *st = stats();
	struct xl_sink_key key = {};
	struct xl_sink_flow *f;
	struct xl_pkt p = {};
	__u64 len, now;
	int r;

	if (!st)
		return XDP_PASS;
	r = xl_parse(&p, data, end, bpf_xdp_get_buff_len(ctx));
	if (r == XL_R_TRUNC_BTH) {
		st->trunc_bth++;
		return XDP_PASS;
	}
	if (r != XL_R_FORWARDED || !p.is_roce) {
		st->other++;
		return XDP_PASS;
	}
	if (malformed(&p, end)) {
		st->malformed++;
		return XDP_PASS;
	}
	len = bpf_xdp_get_buff_len(ctx);
	now = bpf_ktime_get_ns();
	__builtin_memcpy(key.saddr, p.flow.saddr, 16);
	key.qp = p.flow.qp;
	key.sport = p.flow.sport;
	key.family = p.flow.family;

	f = bpf_map_lookup_elem(&sink_flows, &key);
	if (!f) {
		struct xl_sink_flow nf = {
			.packets = 1,
			.bytes = len,
			.ce = p.ecn == XL_ECN_CE,
			.first_ns = now,
			.last_ns = now,
			.highest = p.psn,
			.base = window_base_for(p.psn),
		};

		nf.seen[(p.psn >> 6) & (XL_SINK_WINDOW_WORDS - 1)] =
			1ULL << (p.psn & 63);
		/* NOEXIST: if another CPU created it meanwhile, fall back
		 * to counting into that one. */
		if (bpf_map_update_elem(&sink_flows, &key, &nf, BPF_NOEXIST) == 0)
			goto counted;
		f = bpf_map_lookup_elem(&sink_flows, &key);
		if (!f) {
			st->table_full++;
			goto verdict;
		}
	}
	f->packets++;
	f->bytes += len;
	if (p.ecn == XL_ECN_CE)
		f->ce++;
	f->last_ns = now;
	count_psn(f, p.psn);
counted:
	st->roce++;
verdict:
	return pass_roce ? XDP_PASS : XDP_DROP;
}
