// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf sim flowlet`: the uplink choice of include/lb.h (the code the
 * dataplane runs) driven by on/off flows in synthetic time, the way the
 * balance benchmark's NCCL-like QPs load the lab: each flow sends messages
 * at a peak rate with idle gaps between them, every message a flowlet.
 * Fluid model in steps of XL_RATE_SAMPLE_NS: each step every sending flow
 * puts rate x step bytes on its member, each member's rate estimator takes
 * one sample (xl_rate_update, and xl_pending_taken off the pending rate of
 * the flowlets placed there) and its queue (a fluid phantom queue at the
 * member's capacity, holding at most the default buffer) grows or drains. A flowlet moves only as the
 * reorder-free rule allows (xl_move_safe, over those queues' delays). */
#include <json-c/json.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/output.h"
#include "base/cli.h"
#include "config/config.h"
#include "lb.h"
#include "base/rng.h"
#include "sim/flow_trace.h"
#include "sim/sim.h"
#include "base/units.h"

#define STEP_NS XL_RATE_SAMPLE_NS

struct sim_flow {
	__u64 left_ns;        /* of the current message, or of the gap */
	int sending;
	int member;           /* -1 before its first flowlet */
	__u64 last_ns;        /* end of the last step it sent in */
	__u64 placed_ns;      /* when it came to its member */
	__u32 qdelay_ns;      /* its member's queueing delay then */
	__u64 flowlet_bytes, flowlet_ns, rate_bps;
	__u32 hash;           /* hash mode: the flow's fixed 5-tuple hash */
};

static __u64 uniform_ns(__u64 *rng, __u64 lo, __u64 hi)
{
	return lo + (__u64)(((double)xl_rand32(rng) / 4294967296.0) * (hi - lo));
}

/* Per member: the estimator's averages (over tau and the slow tau), the
 * pending rate of flowlets just placed there and its held load
 * (struct xl_uplink_rate). */
struct sim_member {
	__u64 rate, slow, pending, held;
};

/* The member a new flowlet of f would take, as bpf/uplink.h picks it. */
static int pick(struct xl_lb_sim *s, struct sim_flow *f, struct sim_member *mb,
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
						 (s->no_flowlet_rate ? 0 : xl_placement_extra(
							f->rate_bps, s->cap_bps[i], unknown_mbps)),
						 (__u64)queue[i], s->cap_bps[i], XL_RATE_TAU_NS);
		return xl_pick_least(util, s->n, XL_ALL_UP, (*rr)++, XL_LB_TIE);
	}
}

/* Queueing delay of a member whose fluid queue holds q bytes, in ns (as
 * xl_queue_delay: saturated at XL_QDELAY_MAX). */
static __u32 delay_ns(double q, __u64 cap_bps)
{
	double d = q * 8e9 / (double)cap_bps;

	return d >= XL_QDELAY_MAX ? XL_QDELAY_MAX : (__u32)d;
}

/* Flows other than f that member i counts at time t: bpf/uplink.h counts
 * a flow in each epoch it sends in and reads the larger of the current and
 * the previous epoch's count; here, those sending or quiet for less than
 * one epoch. */
static __u32 flows_on(const struct sim_flow *fl, __u32 nflows,
		      const struct sim_flow *f, int i, __u64 t)
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
static int fair_pick(const struct xl_lb_sim *s, const struct sim_flow *fl,
		     const struct sim_flow *f, int cur, __u64 t)
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

/* The member of f's new flowlet at time t: the pick, unless the move
 * breaks the reorder-free rule; then (unless the rule is off, which only
 * counts the move as unsafe) f stays. In flowlet mode it is counted as
 * pending on the member it takes. */
static int place(struct xl_lb_sim *s, const struct sim_flow *fl, struct sim_flow *f,
		 struct sim_member *mb, const double *queue, __u32 *rr, __u64 t)
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
	if (s->mode != XL_LB_HASH && f->member >= 0 && m != f->member &&
	    !xl_move_safe((__s64)(t - f->last_ns), s->floor_ns,
			  s->skew_auto ? xl_auto_skew_ns(s->skew_ns, XL_DEFAULT_FRAME, s->cap_bps[m]) : s->skew_ns,
			  f->qdelay_ns,
			  delay_ns(queue[m], s->cap_bps[m]), 1)) {
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

/* f starts a new flowlet at time t: its last flowlet's rate measured, its
 * member chosen (and counted as the dataplane counts). */
static void new_flowlet(struct xl_lb_sim *s, const struct sim_flow *fl, struct sim_flow *f,
			struct sim_member *mb, const double *queue, __u32 *rr, __u64 t)
{
	int m;

	if (f->flowlet_bytes)
		f->rate_bps = xl_flowlet_rate(f->flowlet_bytes, f->flowlet_ns, f->rate_bps);
	f->flowlet_bytes = f->flowlet_ns = 0;
	m = place(s, fl, f, mb, queue, rr, t);
	if (s->mode != XL_LB_HASH) {
		s->flowlets++;
		s->moves += f->member >= 0 && m != f->member;
	}
	f->member = m;
}

/* One step of on/off flow f: its message or gap goes on or ends; the
 * bytes it sends in the step. */
static double on_off_step(struct xl_lb_sim *s, const struct sim_flow *fl, struct sim_flow *f,
			  struct sim_member *mb, const double *queue, __u32 *rr, __u64 t,
			  __u64 msg_ns, __u64 gap_ns)
{
	if (f->left_ns <= STEP_NS) { /* the message or gap ends */
		f->sending = !f->sending;
		/* a gap within the floor continues the flowlet */
		if (f->sending && (f->member < 0 || s->mode == XL_LB_HASH ||
				   xl_flowlet_expired(t, f->last_ns, s->floor_ns)))
			new_flowlet(s, fl, f, mb, queue, rr, t);
		if (f->sending)
			f->left_ns = msg_ns;
		else
			f->left_ns = s->sync ? gap_ns : uniform_ns(&s->seed, gap_ns / 2, gap_ns * 3 / 2);
	} else {
		f->left_ns -= STEP_NS;
	}
	return f->sending ? (double)s->peak_bps * STEP_NS / 8e9 : 0;
}

/* One step of a traced flow that sends b bytes in it (0: quiet). */
static double trace_step(struct xl_lb_sim *s, const struct sim_flow *fl, struct sim_flow *f,
			 struct sim_member *mb, const double *queue, __u32 *rr, __u64 t, __u64 b)
{
	f->sending = b > 0;
	if (f->sending && (f->member < 0 || xl_flowlet_expired(t, f->last_ns, s->floor_ns)))
		new_flowlet(s, fl, f, mb, queue, rr, t);
	return (double)b;
}

/* Per member, the bytes offered in the current window and the run of
 * windows that were over its capacity. */
struct sim_window {
	double bytes;
	__u64 run_ns;
};

static void window_end(struct xl_lb_sim *s, struct sim_window *w, __u32 i)
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

int xl_lb_sim_run(struct xl_lb_sim *s)
{
	const struct xl_flow_trace *tr = s->trace;
	__u32 nflows = tr ? (s->flows = tr->flows) : s->flows;
	struct sim_flow *fl = calloc(nflows, sizeof(*fl));
	__u64 *step_bytes = tr ? calloc(nflows, sizeof(*step_bytes)) : NULL;
	struct sim_member mb[XL_MAX_GROUP_MEMBERS] = { 0 };
	struct sim_window win[XL_MAX_GROUP_MEMBERS] = { 0 };
	__u64 t, total = 0, next_pk = 0, duration = s->duration_ns;
	double queue[XL_MAX_GROUP_MEMBERS] = { 0 };
	double sent[XL_MAX_GROUP_MEMBERS];
	/* message and mean gap times follow from the peak rate and duty */
	__u64 msg_ns = s->message_bytes * 8 * 1000000000ULL / s->peak_bps;
	__u64 gap_ns = (__u64)(msg_ns * (1 - s->duty) / s->duty);
	__u32 rr = 0, i, k;

	if (!fl || (tr && !step_bytes) || s->n == 0 || s->n > XL_MAX_GROUP_MEMBERS ||
	    s->window_ns < STEP_NS) {
		free(fl);
		free(step_bytes);
		return -1;
	}
	memset(s->bytes, 0, sizeof(s->bytes));
	memset(s->overloaded_ns, 0, sizeof(s->overloaded_ns));
	memset(s->longest_overload_ns, 0, sizeof(s->longest_overload_ns));
	s->flowlets = s->moves = s->refused = s->unsafe = 0;
	if (tr)
		duration = tr->pk[tr->n - 1].t_ns + STEP_NS;
	for (k = 0; k < nflows; k++) {
		fl[k].member = -1;
		fl[k].hash = xl_rand32(&s->seed);
		/* staggered: each flow starts somewhere in its first cycle;
		 * in steps, all together */
		if (!tr)
			fl[k].left_ns = s->sync ? 0 : uniform_ns(&s->seed, 0, msg_ns + gap_ns);
	}
	for (t = 0; t < duration; t += STEP_NS) {
		memset(sent, 0, sizeof(sent));
		if (tr && step_bytes) /* the trace's bytes of each flow in this step */
			for (; next_pk < tr->n && tr->pk[next_pk].t_ns < t + STEP_NS; next_pk++)
				step_bytes[tr->pk[next_pk].flow] += tr->pk[next_pk].bytes;
		for (k = 0; k < nflows; k++) {
			struct sim_flow *f = &fl[k];
			double b;

			if (step_bytes) { /* a trace replayed */
				b = trace_step(s, fl, f, mb, queue, &rr, t, step_bytes[k]);
				step_bytes[k] = 0;
			} else {
				b = on_off_step(s, fl, f, mb, queue, &rr, t, msg_ns, gap_ns);
			}
			if (f->sending && f->member >= 0) {
				sent[f->member] += b;
				f->flowlet_bytes += (__u64)b;
				f->flowlet_ns += STEP_NS;
			}
		}
		for (i = 0; i < s->n; i++) {
			double drain = (double)s->cap_bps[i] * STEP_NS / 8e9;

			mb[i].rate = xl_rate_update(mb[i].rate, (__u64)sent[i], STEP_NS,
						    XL_RATE_TAU_NS);
			mb[i].slow = xl_rate_update(mb[i].slow, (__u64)sent[i], STEP_NS,
						    XL_RATE_SLOW_TAU_NS);
			mb[i].held = xl_rate_update(mb[i].held, (__u64)sent[i], STEP_NS,
						    XL_HELD_LOAD_TAU_NS);
			mb[i].pending -= xl_pending_taken(mb[i].pending, STEP_NS,
							  XL_RATE_TAU_NS);
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
			win[i].bytes += sent[i];
			if ((t + STEP_NS) % s->window_ns == 0)
				window_end(s, &win[i], i);
		}
		/* what the next move of each flow that sent must wait out */
		for (k = 0; k < nflows; k++)
			if (fl[k].sending && fl[k].member >= 0) {
				fl[k].last_ns = t + STEP_NS;
				fl[k].qdelay_ns = delay_ns(queue[fl[k].member],
							   s->cap_bps[fl[k].member]);
			}
	}
	for (i = 0; i < s->n; i++)
		total += s->bytes[i];
	s->total_bytes = total;
	free(fl);
	free(step_bytes);
	return 0;
}

/* --caps R1,R2,...: the members and their capacities. */
static int parse_caps(const char *v, void *field, char *err, size_t len)
{
	struct xl_lb_sim *s = field;
	char *copy = strdup(v), *rest = copy, *tok;
	int bad = !copy;

	s->n = 0;
	while (!bad && (tok = strsep(&rest, ",")) != NULL) {
		if (s->n == XL_MAX_GROUP_MEMBERS) {
			snprintf(err, len, "at most %d members", XL_MAX_GROUP_MEMBERS);
			bad = 1;
		} else if (!*tok) {
			snprintf(err, len, "a rate per member, comma separated");
			bad = 1;
		} else {
			bad = xl_parse_rate(tok, &s->cap_bps[s->n++], err, len);
		}
	}
	free(copy);
	return bad ? -1 : 0;
}

/* --flowlet-timeout T|auto: the rule's floor. */
static int parse_floor(const char *v, void *field, char *err, size_t len)
{
	if (!strcmp(v, "auto")) {
		*(__u64 *)field = XL_DEFAULT_FLOWLET_TIMEOUT_NS;
		return 0;
	}
	return xl_parse_duration(v, 1000, 1000000000ULL, field, err, len);
}

/* --path-skew T|auto: the rule's margin, and whether it grows by frames. */
static int parse_skew(const char *v, void *field, char *err, size_t len)
{
	struct xl_lb_sim *s = field;
	__u64 ns;

	s->skew_auto = !strcmp(v, "auto");
	if (s->skew_auto) {
		s->skew_ns = XL_DEFAULT_PATH_SKEW_NS;
		return 0;
	}
	if (xl_parse_duration(v, 0, 1000000000ULL, &ns, err, len))
		return -1;
	s->skew_ns = (__u32)ns;
	return 0;
}

/* --window T: windows end on a step. */
static int parse_window(const char *v, void *field, char *err, size_t len)
{
	if (xl_parse_duration(v, STEP_NS, 3600000000000ULL, field, err, len))
		return -1;
	if (*(__u64 *)field % STEP_NS) {
		snprintf(err, len, "a multiple of %lluus", STEP_NS / 1000);
		return -1;
	}
	return 0;
}

/* The command line: the simulation's inputs, and how to print. */
struct flowlet_opts {
	struct xl_lb_sim s;
	__u32 seed;
	const char *trace_path;
	bool json;
};

static const struct xl_opt_word lb_modes[] = {
	{ "flowlet", XL_LB_FLOWLET }, { "flowlet-random", XL_LB_FLOWLET_RANDOM },
	{ "hash", XL_LB_HASH }, { NULL, 0 }
};
static const struct xl_opt_word reorders[] = { { "safe", 0 }, { "free", 1 }, { NULL, 0 } };

#define F(f) XL_FIELD(struct flowlet_opts, f)
static const struct xl_opt flowlet_opts[] = {
	{ "caps", 0, XL_T_FUNC, F(s), "R1,R2,...", "the members' capacities (default 200M,100M,100M,100M)",
	  .parse = parse_caps },
	{ "flows", 0, XL_T_UINT, F(s.flows), "N", "on/off flows (default 16)", .min = 1, .max = 65536 },
	{ "rate", 0, XL_T_RATE, F(s.peak_bps), "PEAK", "a flow's rate while it sends (default 27.3M: 70 % load)" },
	{ "message", 0, XL_T_BYTES, F(s.message_bytes), "BYTES", "message size (default 256K)", .min = 64 },
	{ "duty", 0, XL_T_DOUBLE, F(s.duty), "D", "the fraction of the time a flow sends (default 0.8)",
	  .dmin = 0, .dmax = 1, .open_min = true },
	{ "duration", 0, XL_T_DURATION, F(s.duration_ns), "T", "simulated time (default 60s)",
	  .min = 1000000, .max = 3600000000000ULL },
	{ "mode", 0, XL_T_ENUM, F(s.mode), "flowlet|flowlet-random|hash", "the uplink choice (default flowlet)",
	  .words = lb_modes },
	{ "steps", 0, XL_T_FLAG, F(s.sync), NULL, "every flow starts its messages at the same moments\n"
						  "(collective steps) instead of at random ones" },
	{ "flowlet-timeout", 0, XL_T_FUNC, F(s.floor_ns), "T|auto",
	  "the rule's floor (default auto = 50us: the model has no\n"
	  "packets, and auto adds no buffer or pacing term here)", .parse = parse_floor },
	{ "path-skew", 0, XL_T_FUNC, F(s), "T|auto", "the rule's margin (default auto = 25us plus two\n"
						     "1518-byte frames at the member's rate)",
	  .parse = parse_skew },
	{ "reorder", 0, XL_T_ENUM, F(s.reorder_free), "safe|free",
	  "free: moves ignore the rule and count as unsafe\n(default safe)", .words = reorders },
	{ "no-flowlet-rate", 0, XL_T_FLAG, F(s.no_flowlet_rate), NULL,
	  "compare members without the new flowlet's expected rate" },
	{ "no-pending", 0, XL_T_FLAG, F(s.no_pending), NULL, "do not count a placed flowlet on its member until\n"
							    "its bytes are measured" },
	{ "seed", 0, XL_T_UINT, F(seed), "N", "random draws (default 1)" },
	{ "trace", 0, XL_T_STR, F(trace_path), "FILE", "replay these packets (CSV time_ns,flow,bytes, e.g. from\n"
							"bench/jct/trace.py) instead of on/off flows" },
	{ "window", 0, XL_T_FUNC, F(s.window_ns), "T", "judge a member's overload per window this long\n"
						       "(default 10ms)", .parse = parse_window },
	{ "json", 'j', XL_T_FLAG, F(json), NULL, "print JSON" },
	XL_OPT_HELP, XL_OPT_END
};

static void print_result(const struct xl_lb_sim *s, int json)
{
	__u64 cap_total = 0;
	__u32 i;

	for (i = 0; i < s->n; i++)
		cap_total += s->cap_bps[i];
	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();

		for (i = 0; i < s->n; i++) {
			struct json_object *m = json_object_new_object();

			json_object_object_add(m, "capacity_bps", json_object_new_uint64(s->cap_bps[i]));
			json_object_object_add(m, "share", json_object_new_double(
				(double)s->bytes[i] / s->total_bytes));
			json_object_object_add(m, "capacity_share", json_object_new_double(
				(double)s->cap_bps[i] / cap_total));
			json_object_object_add(m, "overloaded_s", json_object_new_double(
				s->overloaded_ns[i] / 1e9));
			json_object_object_add(m, "longest_overload_s", json_object_new_double(
				s->longest_overload_ns[i] / 1e9));
			json_object_array_add(a, m);
		}
		json_object_object_add(o, "members", a);
		json_object_object_add(o, "flows", json_object_new_uint64(s->flows));
		json_object_object_add(o, "window_s", json_object_new_double(s->window_ns / 1e9));
		json_object_object_add(o, "flowlets", json_object_new_uint64(s->flowlets));
		json_object_object_add(o, "moves", json_object_new_uint64(s->moves));
		json_object_object_add(o, "moves_refused", json_object_new_uint64(s->refused));
		json_object_object_add(o, "moves_unsafe", json_object_new_uint64(s->unsafe));
		xl_print_json("sim-flowlet", o);
		return;
	}
	printf("%-7s %10s %8s %9s %12s %18s\n", "member", "capacity", "share%", "capShare%",
	       "overloaded_s", "longest_overload_s");
	for (i = 0; i < s->n; i++)
		printf("%-7u %9.0fM %8.1f %9.1f %12.3f %18.3f\n", i, s->cap_bps[i] / 1e6,
		       100.0 * s->bytes[i] / s->total_bytes,
		       100.0 * s->cap_bps[i] / cap_total, s->overloaded_ns[i] / 1e9,
		       s->longest_overload_ns[i] / 1e9);
	printf("flowlets %llu, moves %llu, moves refused %llu", s->flowlets, s->moves,
	       s->refused);
	if (s->reorder_free)
		printf(", unsafe moves %llu", s->unsafe);
	printf("\n");
}

static int flowlet_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	struct flowlet_opts *o = opts;
	struct xl_flow_trace tr;
	int rc;

	(void)ctx;
	o->s.seed = ((__u64)o->seed << 1) | 1;
	if (o->trace_path) {
		if (xl_flow_trace_read(o->trace_path, &tr))
			return 1;
		o->s.trace = &tr;
	}
	rc = xl_lb_sim_run(&o->s);
	if (rc)
		xl_err("out of memory");
	else
		print_result(&o->s, o->json);
	if (o->trace_path)
		xl_flow_trace_free(&tr);
	return rc ? 1 : 0;
}

/* The balance benchmark's workload 3, also the command line's defaults. */
static const struct flowlet_opts flowlet_defaults = {
	.s = {
		.n = 4,
		.cap_bps = { 200000000, 100000000, 100000000, 100000000 },
		.flows = 16,
		.peak_bps = 27343750, /* 500M x 0.7 / 16 / duty */
		.message_bytes = 262144,
		.duty = 0.8,
		.duration_ns = 60000000000ULL,
		.mode = XL_LB_FLOWLET,
		.floor_ns = XL_DEFAULT_FLOWLET_TIMEOUT_NS,
		.skew_ns = XL_DEFAULT_PATH_SKEW_NS,
		.skew_auto = 1,
		.seed = 3, /* = (1 << 1) | 1, --seed 1 */
		.window_ns = 10000000,
	},
	.seed = 1,
};

void xl_lb_sim_defaults(struct xl_lb_sim *s)
{
	*s = flowlet_defaults.s;
}

const struct xl_cmd xl_sim_flowlet_cmd = {
	.name = "flowlet", .summary = "uplink choice (flowlet, LetFlow, ECMP) over on/off flows",
	.intro = "Runs the uplink choice (the dataplane's code) over N on/off flows: each\n"
		 "sends messages of BYTES at PEAK bit/s, a fraction D of the time, with\n"
		 "uniform gaps of 0.5..1.5x the mean between them; every message after a\n"
		 "gap past the floor is a new flowlet. Prints each member's share of the\n"
		 "bytes, its share of the capacity, and the time its offered load\n"
		 "exceeded its capacity. A flowlet moves only when its first bytes cannot\n"
		 "overtake its last ones on the old member (the reorder-free rule over the\n"
		 "members' queueing delays, docs/load-balancing.md); moves it keeps back\n"
		 "are counted as refused. The defaults are the balance benchmark's\n"
		 "workload 3. --trace replays captured flows instead (open loop: their\n"
		 "packets keep their times whatever member they take). Each member's\n"
		 "longest overload is its longest run of windows in which it was\n"
		 "offered more than its capacity. T: e.g. 500ms, 60s.",
	.opts = flowlet_opts, XL_CMD_OPTS(struct flowlet_opts, &flowlet_defaults),
	.run = flowlet_run,
};
