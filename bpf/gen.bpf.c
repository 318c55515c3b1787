// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf gen: the transmit half of the RoCEv2 traffic generator.
 *
 * Never attached to an interface: `xdpleaf gen` runs it with
 * BPF_PROG_TEST_RUN and BPF_F_TEST_XDP_LIVE_FRAMES, repeat = the batch
 * size. The kernel copies the template frame (data_in) into a page per
 * packet, runs this program on it and transmits whatever it redirects,
 * without an skb or a socket on the way.
 *
 * Per packet the program copies one descriptor (struct xl_gen_desc) that
 * user space prepared in gen_descs[]: UDP source port and checksum, the
 * three BTH words and the ICRC. Everything that needs arithmetic (PSN
 * sequence, opcodes, checksums, the ICRC) is done in user space, which
 * knows the whole batch; the program stays a few stores.
 *
 * Pages are recycled within one run, so a page may hold the previous
 * packet's fields: the program writes every field that varies, every time.
 * All frames of one run have the same length (the template's), so the
 * ICRC always sits at the same offset, gen_icrc_off. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "roce.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Fixed for a whole `xdpleaf gen` run: set before load. */
const volatile __u32 gen_ifindex = 0;  /* redirect target (--dev) */
const volatile __u32 gen_udp_off = 34; /* UDP header offset in the frame */

/* Per BPF_PROG_RUN call, written by user space through the mmapped .bss. */
__u32 gen_icrc_off;                    /* ICRC offset in this run's frames */
__u32 gen_next;                        /* next descriptor; = packets done */
struct xl_gen_desc gen_descs[XL_GEN_MAX_BATCH];

SEC("xdp")
int xdpleaf_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 i = gen_next, uoff = gen_udp_off & 0xff;
	__u32 ioff = gen_icrc_off & 0x3fff;
	struct xl_gen_desc *d;
	__u16 *udp;
	__u32 *bth;
	__u8 *tail;

	/* Attached to gen's private TAP device only to stay in the XDP
	 * dispatcher (user/gen.c, anchor_program): anything arriving there
	 * is not ours. Test runs come in on gen_ifindex. */
	if (ctx->ingress_ifindex != gen_ifindex)
		return XDP_PASS;
	if (i >= XL_GEN_MAX_BATCH)
		return XDP_ABORTED;
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
