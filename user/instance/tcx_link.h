/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* An instance's pinned tcx links (host mode's both ways, a leaf's at
 * `hook = tc`): what each is attached to, read from the pin. */
#ifndef XL_TCX_LINK_H
#define XL_TCX_LINK_H

#include <stdbool.h>
#include <linux/types.h>

/* The kernel's link type for tcx (Linux 6.6); the system's <linux/bpf.h>
 * and libbpf 1.1 predate it. */
#define XL_LINK_TYPE_TCX 11

/* One direction of one port: its pinned tcx link. */
struct xl_tcx_state {
	bool pinned;      /* the pin exists and is a link */
	__u32 link_id;
	__u32 prog_id;
	__u32 ifindex;    /* 0: the device is gone, the link detached */
	__u32 attach_type;
};

/* The link pinned as PREFIX PORT in the instance's pin directory; all
 * zero (not pinned) if there is none. */
void xl_tcx_link_read(const char *instance, const char *prefix,
		      const char *port, struct xl_tcx_state *t);

/* Whether the instance has a tcx ingress link pinned: a leaf loaded with
 * hook = tc (a leaf at XDP has none). */
bool xl_tcx_ingress_pinned(const char *instance);

#endif
