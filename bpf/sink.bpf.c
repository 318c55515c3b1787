// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf sink: receiver-side RoCEv2 counters. Counts every RoCEv2 packet
 * per (source address, destination QP, UDP source port): packets, bytes,
 * CE marks, reordering, duplicates, and enough PSN state for user space to
 * compute losses. Non-RoCE traffic passes untouched; RoCE packets are
 * consumed (XDP_DROP), like a NIC's RDMA engine would, unless pass_roce.
 *
 * With respond, the program is also an RC responder's receive half
 * (docs/traffic-tools.md, "Go-back-N"): per flow it expects one PSN
 * (epsn); the packet with that PSN is accepted, and answered with an ACK
 * when it asks for one (AckReq); one ahead of it is discarded (as a
 * go-back-N responder discards it) and answered, once per gap, with a NAK
 * that names epsn; one behind it is a duplicate, ACKed again if it asks.
 * The replies go through a ring buffer to `xdpleaf sink`, which sends
 * them: XDP cannot both hand a packet on and send another.
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
#include "telemetry.h"
#include "parse.h"
#include "csum.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load. */
const volatile __u32 pass_roce = 0;
const volatile __u32 respond = 0;

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

/* respond: ACKs and NAKs for user space to send. Sized for bursts of
 * replies while user space sleeps: a reply per 64 packets and per gap. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} XL_MAP_SINK_REPLIES SEC(".maps");

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

static __always_inline void count_psn(struct xl_sink_flow *f, __u32 psn,
				      int resent)
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
	/* A resend of a lost packet arrives behind the highest too: not the
	 * fabric's reordering. Older than the window: cannot tell; counted
	 * as reordered. */
	if (!resent)
		f->reordered++;
}

/* The fields of the BTH that parse.h does not keep. */
struct bth_extra {
	__u16 pkey;    /* network order */
	__u8 flags;    /* BTH word 2's top byte: AckReq, reserved */
};

/* Queue an ACK or NAK answering packet p. */
static __always_inline void reply(const struct xl_pkt *p, const struct bth_extra *x,
				  __u8 syndrome, __u32 psn, __u32 msn,
				  struct xl_sink_stats *st)
{
	struct xl_sink_reply *r;

	r = bpf_ringbuf_reserve(&sink_replies, sizeof(*r), 0);
	if (!r) {
		st->replies_lost++;
		return;
	}
	__builtin_memcpy(r->data_smac, p->eth->h_source, 6);
	__builtin_memcpy(r->data_dmac, p->eth->h_dest, 6);
	__builtin_memcpy(r->data_saddr, p->flow.saddr, 16);
	__builtin_memcpy(r->data_daddr, p->flow.daddr, 16);
	r->qp = p->flow.qp;
	r->psn = psn & XL_PSN_MASK;
	r->msn = msn & XL_PSN_MASK;
	r->sport = p->flow.sport;
	r->pkey = x->pkey;
	r->family = p->flow.family;
	r->dscp = p->dscp;
	r->syndrome = syndrome;
	r->pad = 0;
	bpf_ringbuf_submit(r, 0);
}

/* The opcodes that end a message: what the MSN counts. */
static __always_inline int message_end(__u8 opcode)
{
	return opcode == XL_BTH_SEND_LAST || opcode == XL_BTH_SEND_LAST_IMM ||
	       opcode == XL_BTH_SEND_ONLY || opcode == XL_BTH_SEND_ONLY_IMM ||
	       opcode == XL_BTH_WRITE_LAST || opcode == XL_BTH_WRITE_LAST_IMM ||
	       opcode == XL_BTH_WRITE_ONLY || opcode == XL_BTH_WRITE_ONLY_IMM;
}

/* respond: the RC responder's rule for one packet of flow f (see the top
 * of the file). New flows start with epsn = their first packet's PSN. */
static __always_inline void respond_to(struct xl_sink_flow *f, const struct xl_pkt *p,
				       const struct bth_extra *x,
				       struct xl_sink_stats *st)
{
	int d = xl_psn_diff(p->psn, f->epsn);

	if (d == 0) {
		f->epsn = (p->psn + 1) & XL_PSN_MASK;
		f->nak_open = 0;
		if (message_end(p->bth_opcode))
			f->msn = (f->msn + 1) & XL_PSN_MASK;
		if (x->flags & XL_BTH2_ACKREQ) {
			f->acks++;
			reply(p, x, XL_AETH_ACK, p->psn, f->msn, st);
		}
	} else if (d > 0) {
		f->out_of_seq++;
		if (!f->nak_open) {
			f->nak_open = 1;
			f->naks++;
			reply(p, x, XL_AETH_NAK_PSN_SEQ, f->epsn, f->msn, st);
		}
	} else if (x->flags & XL_BTH2_ACKREQ) {
		/* a duplicate: its ACK may have been lost */
		f->acks++;
		reply(p, x, XL_AETH_ACK, f->epsn - 1, f->msn, st);
	}
}

/* A RoCEv2 packet whose headers do not agree with each other: an IPv4
 * header checksum that does not verify (options-free headers, all that a
 * RoCE sender writes), or a UDP length that is not the IP payload's. A
 * sender that went out with a stale or half-written header shows up here
 * rather than as a flow that happens to parse. Otherwise (0) the BTH
 * fields parse.h does not keep go to *x, read on the same walk. */
static __always_inline int malformed(const struct xl_pkt *p, void *end,
				     struct bth_extra *x)
{
	struct udphdr *udp;
	__u8 *bth;
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
	bth = (__u8 *)(udp + 1);
	if ((void *)(bth + XL_BTH_LEN) > end)
		return 1; /* (parse.h has seen a whole BTH there) */
	if (bpf_ntohs(udp->len) != ip_payload)
		return 1;
	__builtin_memcpy(&x->pkey, bth + 2, 2);
	x->flags = bth[8];
	return 0;
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
	struct bth_extra x = {};
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
	if (malformed(&p, end, &x)) {
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
			.resent = !!(x.flags & XL_BTH2_RESENT),
			.epsn = p.psn,
		};

		nf.seen[(p.psn >> 6) & (XL_SINK_WINDOW_WORDS - 1)] =
			1ULL << (p.psn & 63);
		/* NOEXIST: if another CPU created it meanwhile, fall back
		 * to counting into that one. */
		if (bpf_map_update_elem(&sink_flows, &key, &nf, BPF_NOEXIST) == 0) {
			f = bpf_map_lookup_elem(&sink_flows, &key);
			if (f && respond && xl_psn_sequenced(p.bth_opcode))
				respond_to(f, &p, &x, st);
			goto counted;
		}
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
	if (x.flags & XL_BTH2_RESENT)
		f->resent++;
	count_psn(f, p.psn, x.flags & XL_BTH2_RESENT);
	if (respond && xl_psn_sequenced(p.bth_opcode))
		respond_to(f, &p, &x, st);
counted:
	st->roce++;
verdict:
	return pass_roce ? XDP_PASS : XDP_DROP;
}
