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
#include "sim/lb_group.h"
#include "sim/sim.h"
#include "base/units.h"

#define STEP_NS XL_LB_STEP_NS

static __u64 uniform_ns(__u64 *rng, __u64 lo, __u64 hi)
{
	return lo + (__u64)(((double)xl_rand32(rng) / 4294967296.0) * (hi - lo));
}

/* One step of on/off flow f: its message or gap goes on or ends; the
 * bytes it sends in the step. */
static double on_off_step(struct xl_lb_group *g, struct xl_sim_flow *f, __u64 t,
			  __u64 msg_ns, __u64 gap_ns)
{
	struct xl_lb_sim *s = g->s;

	if (f->left_ns <= STEP_NS) { /* the message or gap ends */
		f->sending = !f->sending;
		/* a gap within the floor continues the flowlet */
		if (f->sending && (f->member < 0 || s->mode == XL_LB_HASH ||
				   xl_flowlet_expired(t, f->last_ns, s->floor_ns)))
			xl_lb_new_flowlet(g, f, t);
		if (f->sending)
			f->left_ns = msg_ns;
		else
			f->left_ns = s->sync ? gap_ns : uniform_ns(&s->seed, gap_ns / 2, gap_ns * 3 / 2);
	} else {
		f->left_ns -= STEP_NS;
	}
	return f->sending ? (double)s->peak_bps * STEP_NS / 8e9 : 0;
}

int xl_lb_sim_run(struct xl_lb_sim *s)
{
	const struct xl_flow_trace *tr = s->trace;
	__u32 nflows = tr ? tr->flows : s->flows;
	__u64 *step_bytes = tr ? calloc(nflows, sizeof(*step_bytes)) : NULL;
	struct xl_lb_group g;
	__u64 t, total = 0, next_pk = 0, duration = s->duration_ns;
	/* message and mean gap times follow from the peak rate and duty */
	__u64 msg_ns = s->message_bytes * 8 * 1000000000ULL / s->peak_bps;
	__u64 gap_ns = (__u64)(msg_ns * (1 - s->duty) / s->duty);
	__u32 i, k;

	if ((tr && !step_bytes) || xl_lb_group_init(&g, s, nflows)) {
		free(step_bytes);
		return -1;
	}
	if (tr)
		duration = tr->pk[tr->n - 1].t_ns + STEP_NS;
	for (k = 0; k < nflows; k++) {
		g.fl[k].hash = xl_rand32(&s->seed);
		/* staggered: each flow starts somewhere in its first cycle;
		 * in steps, all together */
		if (!tr)
			g.fl[k].left_ns = s->sync ? 0 : uniform_ns(&s->seed, 0, msg_ns + gap_ns);
	}
	for (t = 0; t < duration; t += STEP_NS) {
		if (tr && step_bytes) /* the trace's bytes of each flow in this step */
			for (; next_pk < tr->n && tr->pk[next_pk].t_ns < t + STEP_NS; next_pk++)
				step_bytes[tr->pk[next_pk].flow] += tr->pk[next_pk].bytes;
		for (k = 0; k < nflows; k++) {
			struct xl_sim_flow *f = &g.fl[k];
			double b;

			if (step_bytes) { /* a trace replayed */
				b = xl_lb_trace_step(&g, f, t, step_bytes[k]);
				step_bytes[k] = 0;
			} else {
				b = on_off_step(&g, f, t, msg_ns, gap_ns);
			}
			xl_lb_group_account(&g, f, b);
		}
		xl_lb_group_step_end(&g);
	}
	for (i = 0; i < s->n; i++)
		total += s->bytes[i];
	s->total_bytes = total;
	xl_lb_group_free(&g);
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
