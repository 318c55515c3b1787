// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf gen: the transmit half of the RoCEv2 traffic generator.
 *
 * Never attached to an interface: `xdpleaf gen` runs it with
 * BPF_PROG_TEST_RUN and BPF_F_TEST_XDP_LIVE_FRAMES, repeat = the batch
 * size. The kernel copies the template frame (data_in) into a page per
 * packet, runs this program on it and transmits whatever it redirects,
 * without an skb or a socket on the way.
 *
 * Per packet the program first writes the whole frame from the run's
 * template (gen_frame, every byte from the Ethernet header to the ICRC),
 * then the fields of one descriptor (struct xl_gen_desc) that user space
 * prepared in gen_descs[]: UDP source port and checksum, the three BTH
 * words and the ICRC. Everything that needs arithmetic (PSN sequence,
 * opcodes, checksums, the ICRC) is done in user space, which knows the
 * whole batch; the program stays a copy and a few stores.
 *
 * Why every byte, every time: the kernel copies the template into a page
 * only when its page pool allocates the page (net/bpf/test_run.c,
 * xdp_test_run_init_page); a page that comes back is handed out again
 * with only the xdp_buff pointers reset (reset_ctx), its bytes as the
 * last user left them. A frame redirected into a veth is one page all the
 * way: the next hop's XDP program rewrites MACs and TTL in place, a spine
 * that forwards it as an skb does too, and the page returns to gen's pool
 * after the last hop frees it. So a recycled page holds a later hop's
 * headers, and any byte the program did not write would go out stale.
 * All frames of one run have the template's length, so the ICRC always
 * sits at gen_icrc_off.
 *
 * xdpleaf_gen_rp (only with `--rate-map`, loaded on demand): DCQCN's
 * reaction point for gen's own packets, which never pass tc egress where
 * host mode's RP sees a sender's packets. User space runs it with a plain
 * BPF_PROG_RUN after every batch: per QP of the batch, the packets it sent
 * (all of the batch's frames have one length) go through the same
 * bpf/rp.h event as tc egress uses (learning the flow on first sight, the
 * paper variant's byte counter packet by packet), and it returns each QP's
 * published rate, which gen then paces by. Its maps (rp_flows, rp_rates,
 * host_cfg) are the host's pinned ones (bpf_map__reuse_fd). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "roce.h"
#include "host.h"
#include "rp.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Fixed for a whole `xdpleaf gen` run: set before load. */
const volatile __u32 gen_ifindex = 0;  /* redirect target (--dev) */
const volatile __u32 gen_udp_off = 34; /* UDP header offset in the frame */

/* Per BPF_PROG_RUN call, written by user space through the mmapped .bss. */
__u32 gen_icrc_off;                    /* ICRC offset in this run's frames */
__u32 gen_next;                        /* next descriptor; = packets done */
__u8 gen_frame[XL_GEN_MAX_FRAME];      /* this run's template frame */
struct xl_gen_desc gen_descs[XL_GEN_MAX_BATCH];

SEC("xdp")
int xdpleaf_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 i = gen_next, uoff = gen_udp_off & 0xff;
	__u32 ioff = gen_icrc_off & 0x3fff, len;
	struct xl_gen_desc *d;
	__u16 *udp;
	__u32 *bth;
	__u8 *tail;

	/* Attached to gen's private TAP device only to stay in the XDP
	 * dispatcher (user/traffic/gen.c, anchor_program): anything arriving there
	 * is not ours. Test runs come in on gen_ifindex. */
	if (ctx->ingress_ifindex != gen_ifindex)
		return XDP_PASS;
	if (i >= XL_GEN_MAX_BATCH)
		return XDP_ABORTED;
	/* Every byte of the frame: a recycled page holds a later hop's
	 * rewrite (see the top of this file). The length is the template's,
	 * and the frame is never shorter than its headers. */
	len = (__u32)(end - data);
	/* Separate tests, so clang cannot merge them into one unsigned
	 * compare of len - 4 that leaves the verifier no bounds on len. */
	if (len > XL_GEN_MAX_FRAME)
		return XDP_ABORTED;
	barrier_var(len);
	if (len < ioff + 4 || len < 4)
		return XDP_ABORTED;
	barrier_var(len);
	if (bpf_xdp_store_bytes(ctx, 0, gen_frame, len))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	d = &gen_descs[i];
	udp = data + uoff;
	bth = (void *)(udp + 4);
	if ((void *)(bth + 3) > end)
		return XDP_ABORTED;
	tail = data + ioff;
	if ((void *)(tail + 4) > end)
		return XDP_ABORTED;
	udp[0] = d->sport;
	udp[3] = d->udp_check;
	bth[0] = d->bth0;
	bth[1] = d->bth1;
	bth[2] = d->bth2;
	__builtin_memcpy(tail, &d->icrc, 4);
	gen_next = i + 1;
	return bpf_redirect(gen_ifindex, 0);
}

/* ---- DCQCN accounting (--rate-map) -------------------------------------- */

/* The flows' remote address and family: gen's --dst. */
const volatile __u32 gen_rp_family = 0;
const volatile __u32 gen_rp_daddr[4] = { 0 };

/* Per call: gen_rp_n entries (QP number, packets sent since the last call,
 * each of gen_rp_len frame bytes; 0 packets: only read the rate); the
 * program writes each entry's published rate (bit/s, 0: none) back. */
__u32 gen_rp_len;
__u32 gen_rp_n;
__u32 gen_rp_qpn[XL_GEN_MAX_BATCH];
__u32 gen_rp_pkts[XL_GEN_MAX_BATCH];
__u64 gen_rp_rate[XL_GEN_MAX_BATCH];

struct gen_rp_ctx {
	struct xl_host_cfg *cfg;
	__u64 now;
	__u64 len;
};

static long gen_rp_one(__u64 i, void *c)
{
	struct gen_rp_ctx *x = c;
	struct xl_rp_rate *r;
	struct xl_rp_flow *f;
	struct xl_qp_key k;
	__u64 rate = 0;
	__u32 n, j;

	if (i >= XL_GEN_MAX_BATCH)
		return 1;
	__builtin_memset(&k, 0, sizeof(k));
	for (j = 0; j < 4; j++) {
		__u32 w = gen_rp_daddr[j];

		__builtin_memcpy(k.addr + 4 * j, &w, 4);
	}
	k.family = gen_rp_family;
	k.qp = gen_rp_qpn[i];
	n = gen_rp_pkts[i];
	if (x->cfg->rp_enabled) {
		/* Registered before its first packet leaves (n = 0 on gen's
		 * first call), so a CNP provoked by that packet finds it. */
		f = xl_rp_flow_get(&k, x->cfg, x->now, 1);
		if (f && n) {
			xl_rp_event(f, &x->cfg->rp, x->now, XL_RP_EV_SENT,
				    x->len | (__u64)n << 32, &rate);
			xl_rp_publish(&k, rate, x->now);
			gen_rp_rate[i] = rate;
			return 0;
		}
	}
	r = bpf_map_lookup_elem(&rp_rates, &k);
	gen_rp_rate[i] = r ? r->rate_bps : 0;
	return 0;
}

SEC("?xdp")
int xdpleaf_gen_rp(struct xdp_md *ctx)
{
	struct gen_rp_ctx x = { .now = bpf_ktime_get_ns(), .len = gen_rp_len & 0xffff };
	__u32 zero = 0, n = gen_rp_n;

	(void)ctx;
	x.cfg = bpf_map_lookup_elem(&host_cfg, &zero);
	if (!x.cfg)
		return XDP_ABORTED;
	bpf_loop(n < XL_GEN_MAX_BATCH ? n : XL_GEN_MAX_BATCH, gen_rp_one, &x, 0);
	return XDP_DROP;
}
