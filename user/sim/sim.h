/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf sim`: the dataplane's algorithms run offline over traces, from
 * the same headers the BPF programs compile. */
#ifndef XL_SIM_H
#define XL_SIM_H

#include <linux/types.h>
#include "xdpleaf.h"
#include "base/cli.h"

/* `xdpleaf sim MODEL`: the models are its subs (base/cli.h), each with its
 * own options, as `sim --help` and completion list them. */
extern const struct xl_cmd xl_sim_cmd;
extern const struct xl_cmd xl_sim_queue_cmd, xl_sim_flowlet_cmd, xl_sim_dcqcn_cmd;

struct xl_flow_trace;

/* `xdpleaf sim flowlet` (user/sim/flowlet.c): on/off flows over a group of
 * n members, in synthetic time, or a trace's flows replayed. */
struct xl_lb_sim {
	/* in */
	__u32 n;
	__u64 cap_bps[XL_MAX_GROUP_MEMBERS];
	__u32 flows;
	__u64 peak_bps;         /* a flow's rate while it sends a message */
	__u64 message_bytes;
	double duty;            /* fraction of the time a flow sends */
	__u64 duration_ns;
	__u32 mode;             /* XL_LB_FLOWLET, _FLOWLET_RANDOM or _HASH */
	int no_flowlet_rate;    /* compare without the flowlet's own rate */
	int no_pending;         /* do not count placed flowlets as pending */
	int sync;               /* all flows start their messages together */
	__u64 floor_ns;         /* flowlet_timeout: shorter gaps are no flowlet */
	__u32 skew_ns;          /* path_skew of the reorder-free rule */
	int skew_auto;          /* path_skew = auto: + two XL_DEFAULT_FRAMEs per member */
	int reorder_free;       /* moves ignore the rule (and count as unsafe) */
	__u64 seed;
	/* replay these packets instead of on/off flows (flows, peak_bps,
	 * message_bytes, duty, sync and duration_ns then come from it) */
	const struct xl_flow_trace *trace;
	__u64 window_ns;        /* overload is judged per window this long */
	/* out */
	__u64 bytes[XL_MAX_GROUP_MEMBERS];
	__u64 overloaded_ns[XL_MAX_GROUP_MEMBERS]; /* offered > capacity */
	/* the longest run of windows in which a member was offered more
	 * than its capacity carries in a window */
	__u64 longest_overload_ns[XL_MAX_GROUP_MEMBERS];
	__u64 total_bytes, flowlets, moves;
	__u64 refused;          /* moves the rule kept back */
	__u64 unsafe;           /* with reorder_free: moves the rule would have */
};

/* The defaults: the balance benchmark's workload 3 (2:1:1:1, 70 % load). */
void xl_lb_sim_defaults(struct xl_lb_sim *s);
/* 0, or -1 (bad group size, no memory). */
int xl_lb_sim_run(struct xl_lb_sim *s);

#endif
