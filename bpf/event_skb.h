/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* An event carrying an skb's first bytes: host mode's, and the leaf's at
 * hook = tc (the leaf's XDP program has xl_event_xdp). */
#ifndef XL_BPF_EVENT_SKB_H
#define XL_BPF_EVENT_SKB_H

#include "event_ring.h"
#include "tc_parse.h"

/* Write an event (XL_EVENT_WHAT, bpf/event_ring.h) with the packet's first
 * bytes. Global: verified once. */
__noinline int xl_event_skb(struct __sk_buff *skb, __u64 what, __u32 aux,
			    __u32 aux2, const struct xl_flow *f)
{
	struct xl_event *e;
	__u32 n;

	if (!skb)
		return 0;
	e = xl_event_start(what, aux, aux2, f);
	if (!e)
		return 0;
	e->h.pkt_len = XL_SKB_U32(skb, len);
	n = xl_event_snap_len(e->h.pkt_len);
	if (n >= 1 && n <= XL_EVENT_SNAP && !bpf_skb_load_bytes(skb, 0, e->pkt, n))
		e->h.snap_len = n;
	bpf_ringbuf_submit(e, 0);
	return 1;
}

#endif
