// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* An uplink group's choices in steps (lb_group.h): the pick, the move
 * rules and the counting of bpf/uplink.h over include/lb.h, for `xdpleaf
 * sim flowlet` and the ns-3 fabric's leaves alike. */
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "lb.h"
#include "base/rng.h"
#include "sim/lb_group.h"

#define STEP_NS XL_LB_STEP_NS

/* The member a new flowlet of f would take, as bpf/uplink.h picks it. */
static int pick(struct xl_lb_sim *s, struct xl_sim_flow *f, struct xl_sim_member *mb,
		const double *queue, __u32 *rr)
{
	__u32 util[XL_MAX_GROUP_MEMBERS];
	__u32 i, unknown_mbps;

	switch (s->mode) {
	case XL_LB_FLOWLET_RANDOM:
		return xl_pick_random(s->n, XL_ALL_UP, xl_rand32(&s->seed));
	case XL_LB_HASH:
		return xl_pick_hash_up(f->hash, s->n, XL_ALL_UP);
	default:
		unknown_mbps = xl_unknown_flow_mbps(s->cap_bps, s->n);
		for (i = 0; i < s->n; i++)
			util[i] = xl_member_util(mb[i].rate + mb[i].pending +
							 (s->no_flowlet_rate ?
								  0 :
								  xl_placement_extra(f->rate_bps,
										     s->cap_bps[i],
										     unknown_mbps)),
						 (__u64)queue[i], s->cap_bps[i], XL_RATE_TAU_NS);
		return xl_pick_least(util, s->n, XL_ALL_UP, (*rr)++, XL_LB_TIE);
	}
}

__u32 xl_lb_delay_ns(double q, __u64 cap_bps)
{
	double d = q * 8e9 / (double)cap_bps;

	return d >= XL_QDELAY_MAX ? XL_QDELAY_MAX : (__u32)d;
}

/* Flows other than f that member i counts at time t: bpf/uplink.h counts
 * a flow in each epoch it sends in and reads the larger of the current and
 * the previous epoch's count; here, those sending or quiet for less than
 * one epoch. */
static __u32 flows_on(const struct xl_sim_flow *fl, __u32 nflows, const struct xl_sim_flow *f,
		      int i, __u64 t)
{
	__u32 k, n = 0;

	for (k = 0; k < nflows; k++)
		n += &fl[k] != f && fl[k].member == i &&
		     (fl[k].sending || t - fl[k].last_ns < (1ULL << XL_FLOW_EPOCH_SHIFT));
	return n;
}

/* A flow the rates keep on its member cur leaves for the member where
 * its fair share by flow count is clearly larger, if it wants more than
 * its share (xl_pick_fair_g); else cur. */
static int fair_pick(const struct xl_lb_sim *s, const struct xl_sim_flow *fl,
		     const struct xl_sim_flow *f, int cur, __u64 t)
{
	__u32 here = xl_fair_share(s->cap_bps[cur], flows_on(fl, s->flows, f, cur, t));
	__u32 top = 0, sh, i;
	int best = -1;

	if (!xl_wants_more_share(xl_expected_rate(f->rate_bps, s->cap_bps[cur]), here))
		return cur;
	for (i = 0; i < s->n; i++) {
		if ((int)i == cur)
			continue;
		sh = xl_fair_share(s->cap_bps[i], flows_on(fl, s->flows, f, (int)i, t));
		if (sh > top) {
			top = sh;
			best = (int)i;
		}
	}
	return best >= 0 && xl_share_move_worth(here, top) ? best : cur;
}

/* The rule's margin for a move onto member i (--path-skew). */
static __u32 skew_to(const struct xl_lb_sim *s, __u32 i)
{
	return s->skew_auto ? xl_auto_skew_ns(s->skew_ns, XL_DEFAULT_FRAME, s->cap_bps[i]) :
			      s->skew_ns;
}

/* Whether f may move at time t onto member i without overtaking its last
 * packet (xl_move_safe over the fluid queues' delays). */
static int move_safe(const struct xl_lb_sim *s, const struct xl_sim_flow *f, __u32 i,
		     const double *queue, __u64 t)
{
	return xl_move_safe((__s64)(t - f->last_ns), s->floor_ns, skew_to(s, i), f->qdelay_ns,
			    xl_lb_delay_ns(queue[i], s->cap_bps[i]), 1);
}

/* A flow that has shared its member cur long enough yields its place: to
 * the member where its share is no smaller and the move is safe, by
 * xl_yield_key, the first of equals (xl_pick_yield_g); else cur. */
static int yield_pick(const struct xl_lb_sim *s, const struct xl_sim_flow *fl,
		      const struct xl_sim_flow *f, const struct xl_sim_member *mb,
		      const double *queue, int cur, __u64 t)
{
	__u32 others = flows_on(fl, s->flows, f, cur, t), here, sh, i;
	__u64 key, top = 0;
	int best = -1;

	here = xl_fair_share(s->cap_bps[cur], others);
	if (!xl_may_yield(others, t - f->placed_ns, xl_expected_rate(f->rate_bps, s->cap_bps[cur]),
			  here, f->qdelay_ns, skew_to(s, (__u32)cur)))
		return cur;
	for (i = 0; i < s->n; i++) {
		if ((int)i == cur)
			continue;
		sh = xl_fair_share(s->cap_bps[i], flows_on(fl, s->flows, f, (int)i, t));
		if (!xl_yield_to(here, sh) || !move_safe(s, f, i, queue, t))
			continue;
		key = xl_yield_key(sh, xl_member_util(mb[i].rate + mb[i].pending, (__u64)queue[i],
						      s->cap_bps[i], XL_RATE_TAU_NS));
		if (key > top) {
			top = key;
			best = (int)i;
		}
	}
	return best >= 0 ? best : cur;
}

/* The member of f's new flowlet at time t: the pick, unless the move
 * breaks the reorder-free rule; then (unless the rule is off, which only
 * counts the move as unsafe) f stays. In flowlet mode it is counted as
 * pending on the member it takes. */
static int place(struct xl_lb_sim *s, const struct xl_sim_flow *fl, struct xl_sim_flow *f,
		 struct xl_sim_member *mb, const double *queue, __u32 *rr, __u64 t)
{
	int m = pick(s, f, mb, queue, rr), cur = f->member;

	/* a flow leaves its member only for clearly less load
	 * (xl_move_worth; its message rate stands for its window rate) */
	if (s->mode == XL_LB_FLOWLET && cur >= 0 && m != cur &&
	    !xl_move_worth(xl_expected_rate(f->rate_bps, s->cap_bps[cur]),
			   xl_rate_still_counted(xl_expected_rate(f->rate_bps, s->cap_bps[cur]),
						 t - f->last_ns),
			   mb[cur].rate + mb[cur].pending, mb[cur].slow, s->cap_bps[cur],
			   xl_move_target_rate(mb[m].rate + mb[m].pending, mb[m].held),
			   s->cap_bps[m]))
		m = cur;
	/* ... and by the flows it would share a member with */
	if (s->mode == XL_LB_FLOWLET && cur >= 0 && m == cur)
		m = fair_pick(s, fl, f, cur, t);
	/* ... and takes turns at sharing one (include/lb.h, time-sharing) */
	if (s->mode == XL_LB_FLOWLET && cur >= 0 && m == cur)
		m = yield_pick(s, fl, f, mb, queue, cur, t);
	if (s->mode != XL_LB_HASH && f->member >= 0 && m != f->member &&
	    !move_safe(s, f, (__u32)m, queue, t)) {
		if (s->reorder_free) {
			s->unsafe++;
		} else {
			s->refused++;
			m = f->member;
		}
	}
	/* pending where the average has not seen the flow: a member it
	 * arrives at, or returns to after its bytes faded (as bpf/uplink.h) */
	if (s->mode == XL_LB_FLOWLET && !s->no_pending &&
	    (m != cur || t - f->last_ns > XL_RATE_TAU_NS))
		mb[m].pending += xl_expected_rate(f->rate_bps, s->cap_bps[m]);
	/* a flow that left takes its share of the held load along */
	if (s->mode == XL_LB_FLOWLET && cur >= 0 && m != cur)
		mb[cur].held = xl_held_load_leave(mb[cur].held,
						  xl_held_share(xl_expected_rate(f->rate_bps,
										 s->cap_bps[cur]),
								f->last_ns - f->placed_ns));
	if (m != cur)
		f->placed_ns = t;
	return m;
}

void xl_lb_new_flowlet(struct xl_lb_group *g, struct xl_sim_flow *f, __u64 t)
{
	struct xl_lb_sim *s = g->s;
	int m;

	if (f->flowlet_bytes)
		f->rate_bps = xl_flowlet_rate(f->flowlet_bytes, f->flowlet_ns, f->rate_bps);
	f->flowlet_bytes = f->flowlet_ns = 0;
	m = place(s, g->fl, f, g->mb, g->queue, &g->rr, t);
	if (s->mode != XL_LB_HASH) {
		s->flowlets++;
		s->moves += f->member >= 0 && m != f->member;
	}
	f->member = m;
}

double xl_lb_trace_step(struct xl_lb_group *g, struct xl_sim_flow *f, __u64 t, __u64 b)
{
	f->sending = b > 0;
	if (f->sending && (f->member < 0 || xl_flowlet_expired(t, f->last_ns, g->s->floor_ns)))
		xl_lb_new_flowlet(g, f, t);
	return (double)b;
}

void xl_lb_group_account(struct xl_lb_group *g, struct xl_sim_flow *f, double b)
{
	if (f->sending && f->member >= 0) {
		g->sent[f->member] += b;
		f->flowlet_bytes += (__u64)b;
		f->flowlet_ns += STEP_NS;
	}
}

static void window_end(struct xl_lb_sim *s, struct xl_sim_window *w, __u32 i)
{
	if (w->bytes * 8e9 > (double)s->cap_bps[i] * s->window_ns) {
		w->run_ns += s->window_ns;
		if (w->run_ns > s->longest_overload_ns[i])
			s->longest_overload_ns[i] = w->run_ns;
	} else {
		w->run_ns = 0;
	}
	w->bytes = 0;
}

void xl_lb_group_step_end(struct xl_lb_group *g)
{
	struct xl_lb_sim *s = g->s;
	struct xl_sim_member *mb = g->mb;
	double *queue = g->queue, *sent = g->sent;
	__u64 t = g->t;
	__u32 i, k;

	for (i = 0; i < s->n; i++) {
		double drain = (double)s->cap_bps[i] * STEP_NS / 8e9;

		mb[i].rate = xl_rate_update(mb[i].rate, (__u64)sent[i], STEP_NS, XL_RATE_TAU_NS);
		mb[i].slow = xl_rate_update(mb[i].slow, (__u64)sent[i], STEP_NS,
					    XL_RATE_SLOW_TAU_NS);
		mb[i].held = xl_rate_update(mb[i].held, (__u64)sent[i], STEP_NS,
					    XL_HELD_LOAD_TAU_NS);
		mb[i].pending -= xl_pending_taken(mb[i].pending, STEP_NS, XL_RATE_TAU_NS);
		/* each member's phantom queue holds the shipped default
		 * buffer (overflow = mark: what does not fit passes
		 * unqueued), as the dataplane's would; unbounded, one
		 * overloaded member's queue, and so the delay a move off
		 * it must wait out, grew without end */
		queue[i] += sent[i] - drain;
		if (queue[i] < 0)
			queue[i] = 0;
		if (queue[i] > xl_default_buffer(s->cap_bps[i]))
			queue[i] = xl_default_buffer(s->cap_bps[i]);
		if (sent[i] > drain)
			s->overloaded_ns[i] += STEP_NS;
		s->bytes[i] += sent[i];
		g->win[i].bytes += sent[i];
		if ((t + STEP_NS) % s->window_ns == 0)
			window_end(s, &g->win[i], i);
	}
	/* what the next move of each flow that sent must wait out */
	for (k = 0; k < g->nflows; k++)
		if (g->fl[k].sending && g->fl[k].member >= 0) {
			g->fl[k].last_ns = t + STEP_NS;
			g->fl[k].qdelay_ns = xl_lb_delay_ns(queue[g->fl[k].member],
							    s->cap_bps[g->fl[k].member]);
		}
	memset(g->sent, 0, sizeof(g->sent));
	g->t = t + STEP_NS;
}

int xl_lb_group_init(struct xl_lb_group *g, struct xl_lb_sim *s, __u32 nflows)
{
	__u32 k;

	memset(g, 0, sizeof(*g));
	if (s->n == 0 || s->n > XL_MAX_GROUP_MEMBERS || s->window_ns < STEP_NS)
		return -1;
	g->s = s;
	g->cap_flows = nflows ? nflows : 16;
	g->fl = calloc(g->cap_flows, sizeof(*g->fl));
	if (!g->fl)
		return -1;
	g->nflows = nflows;
	s->flows = nflows;
	memset(s->bytes, 0, sizeof(s->bytes));
	memset(s->overloaded_ns, 0, sizeof(s->overloaded_ns));
	memset(s->longest_overload_ns, 0, sizeof(s->longest_overload_ns));
	s->flowlets = s->moves = s->refused = s->unsafe = 0;
	for (k = 0; k < nflows; k++)
		g->fl[k].member = -1;
	return 0;
}

void xl_lb_group_free(struct xl_lb_group *g)
{
	free(g->fl);
	g->fl = NULL;
	g->nflows = g->cap_flows = 0;
}

int xl_lb_group_add_flow(struct xl_lb_group *g, __u32 hash)
{
	if (g->nflows == g->cap_flows) {
		struct xl_sim_flow *fl = realloc(g->fl, 2 * g->cap_flows * sizeof(*fl));

		if (!fl)
			return -1;
		g->fl = fl;
		g->cap_flows *= 2;
	}
	memset(&g->fl[g->nflows], 0, sizeof(g->fl[0]));
	g->fl[g->nflows].member = -1;
	g->fl[g->nflows].hash = hash;
	g->s->flows = g->nflows + 1;
	return (int)g->nflows++;
}

int xl_lb_group_packet(struct xl_lb_group *g, __u32 k, __u64 now_ns, __u64 b)
{
	struct xl_sim_flow *f;
	__u32 j;

	if (k >= g->nflows)
		return -1;
	while (now_ns >= g->t + STEP_NS) {
		xl_lb_group_step_end(g);
		/* a traced flow sends in a step only if a packet says so */
		for (j = 0; j < g->nflows; j++)
			g->fl[j].sending = 0;
	}
	f = &g->fl[k];
	if (!f->sending) {
		xl_lb_trace_step(g, f, g->t, b);
		xl_lb_group_account(g, f, (double)b);
	} else {
		g->sent[f->member] += (double)b;
		f->flowlet_bytes += b;
	}
	return f->member;
}
