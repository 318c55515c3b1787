/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* PFC frames received on a leaf port (IEEE 802.1Qbb: MAC control
 * ethertype 0x8808, opcode 0x0101): counted per port and priority, and
 * the PFC watchdog's storm detection (include/telemetry.h). The frames
 * themselves go to the kernel, which drops MAC control frames. */
#ifndef XL_BPF_PFC_H
#define XL_BPF_PFC_H

#include "pin_names.h"
#include "telemetry.h"

/* Key: port slot * XL_PFC_PRIORITIES + priority. Shared pause state: one
 * port's PFC frames arrive on one CPU (its receive queue), so plain
 * updates do. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_PORTS * XL_PFC_PRIORITIES);
	__type(key, __u32);
	__type(value, struct xl_pfc_state);
} XL_MAP_PFC_STATE SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_MAX_PORTS * XL_PFC_PRIORITIES);
	__type(key, __u32);
	__type(value, struct xl_pfc_counts);
} XL_MAP_PFC_COUNTS SEC(".maps");

/* The PFC frame body after the ethertype. */
struct xl_pfc_body {
	__be16 opcode;
	__be16 class_enable; /* bit p: time[p] applies */
	__be16 time[XL_PFC_PRIORITIES];
};

/* Count a MAC control frame whose body starts at body, from the port in
 * slot of line_bps. Returns a bit mask of the priorities this frame made
 * a storm of (xl_pfc_pause). */
static __always_inline __u32 xl_pfc_frame(void *body, void *end, __u32 slot,
					  __u64 line_bps, __u64 watchdog_ns,
					  __u64 now)
{
	struct xl_pfc_body *b = body;
	__u32 storms = 0, enable;
	int p;

	if ((void *)(b + 1) > end || b->opcode != bpf_htons(XL_PFC_OPCODE) ||
	    slot >= XL_MAX_PORTS)
		return 0;
	enable = bpf_ntohs(b->class_enable);
#pragma unroll
	for (p = 0; p < XL_PFC_PRIORITIES; p++) {
		__u32 key = slot * XL_PFC_PRIORITIES + p, quanta;
		struct xl_pfc_counts *c;
		struct xl_pfc_state *s;

		if (!(enable & (1U << p)))
			continue;
		quanta = bpf_ntohs(b->time[p]);
		c = bpf_map_lookup_elem(&XL_MAP_PFC_COUNTS, &key);
		s = bpf_map_lookup_elem(&XL_MAP_PFC_STATE, &key);
		if (c) {
			c->frames++;
			c->xoff += quanta != 0;
			c->quanta += quanta;
		}
		if (s && xl_pfc_pause(s, now, xl_pfc_pause_ns(quanta, line_bps),
				      watchdog_ns))
			storms |= 1U << p;
	}
	return storms;
}

#endif /* XL_BPF_PFC_H */
