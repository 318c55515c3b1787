/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Reading an event's packet bytes and flow key: the RoCEv2 BTH (opcode,
 * destination QP, PSN) from the first bytes of a frame, and a flow as text
 * or JSON. */
#ifndef XL_EVENTS_DECODE_H
#define XL_EVENTS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "xdpleaf.h"

struct xl_decoded {
	bool has_bth;
	__u8 opcode;
	__u32 qp, psn;
};

/* Ethernet, one VLAN tag, IPv4 (IHL) or IPv6, UDP to 4791, BTH, within
 * len bytes; d->has_bth false if the frame is something else or cut. */
void xl_decode(const __u8 *pkt, size_t len, struct xl_decoded *d);
/* "10.1.1.2:40000 > 10.2.1.2:4791 udp qp 0x100" */
void xl_flow_str(const struct xl_flow *f, char *buf, size_t len);
struct json_object;
struct json_object *xl_flow_json(const struct xl_flow *f);

#endif
