/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* RoCE PSN tracking (leaf and host) and PFC counting (leaf) over the pure
 * functions of include/telemetry.h. */
#ifndef XL_BPF_PSN_H
#define XL_BPF_PSN_H

#include "pin_names.h"
#include "telemetry.h"
#include "events.h"

#ifndef XL_PSN_FLOWS
#define XL_PSN_FLOWS 16384
#endif

/* PSN state per RoCE flow (addresses, UDP source port, destination QP),
 * least recently used evicted. Written by the CPU that sees the flow; a
 * flow's packets normally arrive on one CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XL_PSN_FLOWS);
	__type(key, struct xl_flow);
	__type(value, struct xl_psn_state);
} XL_MAP_PSN SEC(".maps");

/* Account a RoCE packet: PSN of a sequenced opcode, NAKs of an ACK
 * (aeth_kind: XL_AETH_KIND of its syndrome, or -1 without an AETH).
 * Returns the event it is (XL_EVENT_WHAT's kind, with *aux and *aux2 per
 * XL_EVENT_KINDS): a gap, an old PSN, a NAK; or -1 for none. */
static __always_inline int xl_psn_account(const struct xl_flow *f, __u8 opcode,
					  __u32 psn, int aeth_kind,
					  __u32 *aux, __u32 *aux2)
{
	struct xl_psn_state *s = bpf_map_lookup_elem(&XL_MAP_PSN, f);
	__u32 n, expected;
	int r;

	if (!s) {
		struct xl_psn_state fresh = {};

		bpf_map_update_elem(&XL_MAP_PSN, f, &fresh, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&XL_MAP_PSN, f);
		if (!s)
			return -1;
	}
	if (!xl_psn_sequenced(opcode)) {
		if (opcode != XL_BTH_ACK)
			return -1;
		if (aeth_kind == XL_AETH_RNR_NAK)
			s->rnr_naks++;
		else if (aeth_kind == XL_AETH_NAK)
			s->naks++;
		else
			return -1;
		*aux = (__u32)aeth_kind;
		return XL_EV_NAK;
	}
	expected = s->next_psn;
	r = xl_psn_track(s, psn, &n);
	if (r == XL_PSN_IN_ORDER || r == XL_PSN_RESYNC)
		return -1;
	*aux = expected;
	*aux2 = n;
	return r == XL_PSN_GAP ? XL_EV_PSN_GAP : XL_EV_PSN_OLD;
}

#endif /* XL_BPF_PSN_H */
