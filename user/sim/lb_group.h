/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* An uplink group's choices in steps of XL_RATE_SAMPLE_NS, as bpf/uplink.h
 * makes them over include/lb.h: the code `xdpleaf sim flowlet` drives
 * with fluid flows and the ns-3 fabric's leaves (sim/fabric/) drive with
 * packets. One code, two drivers. */
#ifndef XL_SIM_LB_GROUP_H
#define XL_SIM_LB_GROUP_H

#include <linux/types.h>
#include "sim/sim.h"

#define XL_LB_STEP_NS XL_RATE_SAMPLE_NS

struct xl_sim_flow {
	__u64 left_ns; /* of the current message, or of the gap */
	int sending;
	int member;	 /* -1 before its first flowlet */
	__u64 last_ns;	 /* end of the last step it sent in */
	__u64 placed_ns; /* when it came to its member */
	__u32 qdelay_ns; /* its member's queueing delay then */
	__u64 flowlet_bytes, flowlet_ns, rate_bps;
	__u32 hash; /* hash mode: the flow's fixed 5-tuple hash */
};

/* Per member: the estimator's averages (over tau and the slow tau), the
 * pending rate of flowlets just placed there and its held load
 * (struct xl_uplink_rate). */
struct xl_sim_member {
	__u64 rate, slow, pending, held;
};

/* Per member, the bytes offered in the current window and the run of
 * windows that were over its capacity. */
struct xl_sim_window {
	double bytes;
	__u64 run_ns;
};

/* A group's state between steps: its flows, members, their fluid phantom
 * queues and what each was offered in the current step. */
struct xl_lb_group {
	struct xl_lb_sim *s; /* the inputs; its counters are the outputs */
	struct xl_sim_flow *fl;
	__u32 nflows, cap_flows;
	struct xl_sim_member mb[XL_MAX_GROUP_MEMBERS];
	struct xl_sim_window win[XL_MAX_GROUP_MEMBERS];
	double queue[XL_MAX_GROUP_MEMBERS];
	double sent[XL_MAX_GROUP_MEMBERS];
	__u32 rr;
	__u64 t; /* the current step's start */
};

/* 0, or -1 (bad group size, no memory): nflows flows (their hashes the
 * driver's to set), s's outputs zeroed. */
int xl_lb_group_init(struct xl_lb_group *g, struct xl_lb_sim *s, __u32 nflows);
void xl_lb_group_free(struct xl_lb_group *g);
/* Queueing delay of a member whose fluid queue holds q bytes, in ns (as
 * xl_queue_delay: saturated at XL_QDELAY_MAX). */
__u32 xl_lb_delay_ns(double q, __u64 cap_bps);
/* f starts a new flowlet at time t: its last flowlet's rate measured, its
 * member chosen (and counted as the dataplane counts). */
void xl_lb_new_flowlet(struct xl_lb_group *g, struct xl_sim_flow *f, __u64 t);
/* One step of a traced flow that sends b bytes in it (0: quiet). */
double xl_lb_trace_step(struct xl_lb_group *g, struct xl_sim_flow *f, __u64 t, __u64 b);
/* f put b bytes on its member in the current step. */
void xl_lb_group_account(struct xl_lb_group *g, struct xl_sim_flow *f, double b);
/* The current step ends: each member's estimator takes one sample, its
 * queue grows or drains, its overload is judged; each flow that sent
 * notes when and behind what delay. */
void xl_lb_group_step_end(struct xl_lb_group *g);
/* A packet driver's entry (the ns-3 leaf, and the trace test): flow k's
 * packet of b bytes at now_ns (not before the previous one's); the steps
 * before it end, a flow's first packet in a step is its trace step there.
 * The member it takes, or -1 (k out of range). */
int xl_lb_group_packet(struct xl_lb_group *g, __u32 k, __u64 now_ns, __u64 b);
/* A new flow for a packet driver, with this hash: its index, or -1. */
int xl_lb_group_add_flow(struct xl_lb_group *g, __u32 hash);

#endif
