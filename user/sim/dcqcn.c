// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf sim dcqcn`: replay a trace through the DCQCN reaction point
 * (include/dcqcn.h, the code the dataplane runs), as docs/dcqcn-spec.md
 * specifies: trace CSV `time_ns,event,arg` with events cnp, send,BYTES,
 * pace,BYTES and end; output `time_ns,rc_bps,rt_bps,alpha`, one row at time
 * 0 and one after every change of Rc, Rt or alpha. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "sim/sim.h"
#include "sim/csv.h"
#include "base/cli.h"
#include "config/config_keys.h"
#include "base/units.h"
#include "xdpleaf.h"
#include "dcqcn.h"

enum ev_kind { EV_CNP, EV_SEND, EV_PACE, EV_END };

struct event {
	__u64 t;
	int kind;
	__u64 arg;
};

struct printer {
	__u64 rc, rt, alpha;
};

static void row(struct printer *pr, const struct xl_dcqcn_state *s, __u64 t,
		int force)
{
	if (!force && s->rc == pr->rc && s->rt == pr->rt && s->alpha == pr->alpha)
		return;
	printf("%llu,%llu,%llu,%.10f\n", t, s->rc, s->rt,
	       (double)s->alpha / (double)XL_Q32_ONE);
	pr->rc = s->rc;
	pr->rt = s->rt;
	pr->alpha = s->alpha;
}

/* Fire the timers due at or before t one at a time, with a row after each
 * that changed something (at its own time). */
static void timers_until(struct xl_dcqcn_state *s,
			 const struct xl_dcqcn_params *p, struct printer *pr,
			 __u64 t)
{
	for (;;) {
		__u64 due;
		int which = xl_dcqcn_next_timer(s, &due);

		if (which == XL_TIMER_NONE || due > t)
			return;
		if (!xl_dcqcn_skip_idle(s, p, which, due, t)) {
			xl_dcqcn_fire(s, p, which);
			row(pr, s, due, 0);
		}
	}
}

static int event_kind(const char *name)
{
	static const char *const names[] = {
		[EV_CNP] = "cnp", [EV_SEND] = "send", [EV_PACE] = "pace", [EV_END] = "end",
	};

	for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

/* One line of the trace into *e: 0, or -1 refused naming the field. */
static int read_event(const struct xl_csv *c, struct event *e, const struct event *prev)
{
	unsigned long long t, arg = 0;
	const char *name;

	if (xl_csv_u64(c, 0, "time_ns", 0, &t))
		return -1;
	if (prev && t < prev->t)
		return xl_csv_refuse(c, "time_ns", "%llu is before the previous event's %llu "
				     "(time must not decrease)", t, (unsigned long long)prev->t);
	name = c->n > 1 ? c->field[1] : "";
	e->kind = event_kind(name);
	if (e->kind < 0 && !*name)
		return xl_csv_refuse(c, "event", "%s; one of cnp, send, pace, end",
				     c->n > 1 ? "empty" : "missing");
	if (e->kind < 0)
		return xl_csv_refuse(c, "event", XL_CSV_SHOWN " is not cnp, send, pace or end",
				     XL_CSV_SHOW(name));
	/* arg: BYTES for send and pace, ignored (and may be empty) otherwise */
	if ((e->kind == EV_SEND || e->kind == EV_PACE) && (c->n < 3 || !*c->field[2]))
		return xl_csv_refuse(c, "arg", "%s; %s needs BYTES", c->n < 3 ? "missing" : "empty",
				     name);
	if (xl_csv_u64(c, 2, "arg", 1, &arg))
		return -1;
	if (e->kind == EV_SEND && arg == 0)
		return xl_csv_refuse(c, "arg", "send needs BYTES of at least 1");
	e->t = t;
	e->arg = arg;
	return 0;
}

static int read_trace(const char *path, struct event **out, int *n_out)
{
	struct event *ev = NULL;
	struct xl_csv c;
	int n = 0, cap = 0, rc;

	if (xl_csv_open(&c, path, "time_ns,event,arg"))
		return -1;
	while ((rc = xl_csv_next(&c)) > 0) {
		if (n == cap) {
			struct event *more;

			cap = cap ? 2 * cap : 256;
			more = realloc(ev, cap * sizeof(*ev));
			if (!more) {
				rc = xl_csv_refuse(&c, NULL, "out of memory");
				break;
			}
			ev = more;
		}
		rc = read_event(&c, &ev[n], n ? &ev[n - 1] : NULL);
		if (rc)
			break;
		n++;
	}
	xl_csv_close(&c);
	if (rc) {
		free(ev);
		return -1;
	}
	*out = ev;
	*n_out = n;
	return 0;
}

/* The command line. --set is kept as given and applied once the variant
 * and line rate are known (each variant has its own defaults). */
#define MAX_SETS 64
struct dcqcn_opts {
	const char *trace;
	int variant;
	__u64 line_rate;
	struct sets {
		const char *kv[MAX_SETS];
		int n;
	} sets;
};

static int add_set(const char *v, void *field, char *err, size_t len)
{
	struct sets *s = field;

	if (s->n == MAX_SETS) {
		snprintf(err, len, "at most %d", MAX_SETS);
		return -1;
	}
	s->kv[s->n++] = v;
	return 0;
}

static const struct xl_opt_word variants[] = {
	{ "paper", XL_DCQCN_PAPER }, { "nvidia", XL_DCQCN_NVIDIA }, { NULL, 0 }
};

#define F(f) XL_FIELD(struct dcqcn_opts, f)
static const struct xl_opt dcqcn_opts[] = {
	{ "trace", 0, XL_T_STR, F(trace), "FILE.csv", "time_ns,event,arg; events cnp | send,BYTES |\n"
						      "pace,BYTES (backlogged, BYTES-byte packets paced\n"
						      "at Rc; pace,0 stops) | end", .required = true },
	{ "variant", 0, XL_T_ENUM, F(variant), "paper|nvidia", "the RP algorithm", .required = true,
	  .words = variants },
	{ "line-rate", 0, XL_T_RATE, F(line_rate), "RATE", "C, where Rc starts (default 100G)" },
	{ "set", 0, XL_T_FUNC, F(sets), "KEY=VALUE", "an RP parameter, as the [dcqcn] key of that name\n"
						     "(repeatable): g, alpha_first, k, t, t_dec, b, f,\n"
						     "clamp, r_ai, r_hai, min_rate; defaults: docs/dcqcn.md",
	  .parse = add_set },
	XL_OPT_HELP, XL_OPT_END
};

static const struct dcqcn_opts dcqcn_defaults = { .line_rate = 100000000000ULL };

/* The variant's defaults, then every --set: each RP parameter of
 * docs/dcqcn-spec.md read by the configuration's own table
 * (user/config/config_keys.c): the same names, units, ranges and words
 * (clamp = yes|no), and a key the variant does not have is refused as
 * the config refuses it. */
static int params(const struct dcqcn_opts *o, struct xl_dcqcn_params *p)
{
	struct xl_host_cfg h;
	char msg[XL_ERR_MAX];

	xl_dcqcn_defaults(p, o->variant, o->line_rate);
	for (int i = 0; i < o->sets.n; i++) {
		h = (struct xl_host_cfg){ .rp = *p };
		if (xl_dcqcn_set(&h, o->sets.kv[i], msg, sizeof(msg))) {
			xl_err("--set %s: %s", o->sets.kv[i], msg);
			return -1;
		}
		*p = h.rp;
	}
	return 0;
}

static int dcqcn_check(const struct xl_cmd_ctx *ctx, void *opts)
{
	struct xl_dcqcn_params p;

	(void)ctx;
	return params(opts, &p);
}

static int dcqcn_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct dcqcn_opts *o = opts;
	__u64 pace_bytes = 0, next_pace = ~0ULL;
	struct xl_dcqcn_params p;
	struct xl_dcqcn_state s;
	struct printer pr = {};
	struct event *ev = NULL;
	int n_ev = 0;

	(void)ctx;
	if (params(o, &p) || read_trace(o->trace, &ev, &n_ev))
		return 1;

	xl_dcqcn_init(&s, &p);
	printf("time_ns,rc_bps,rt_bps,alpha\n");
	row(&pr, &s, 0, 1);
	for (int i = 0;;) {
		__u64 t_ev = i < n_ev ? ev[i].t : ~0ULL;
		__u64 t = t_ev <= next_pace ? t_ev : next_pace;

		if (i >= n_ev)
			break; /* no end event: the trace ends with its last line */
		timers_until(&s, &p, &pr, t);
		if (t_ev <= next_pace) { /* a trace event before a paced send */
			const struct event *e = &ev[i++];

			if (e->kind == EV_END)
				break;
			if (e->kind == EV_CNP)
				xl_dcqcn_cnp(&s, &p, t);
			else if (e->kind == EV_SEND)
				xl_dcqcn_sent(&s, &p, e->arg);
			else { /* pace: the first packet now, or stop */
				pace_bytes = e->arg;
				next_pace = pace_bytes ? t : ~0ULL;
			}
		} else {
			xl_dcqcn_sent(&s, &p, pace_bytes);
			/* the gap at Rc as it stands after this packet */
			next_pace = t + xl_max64(1, (pace_bytes * 8000000000ULL +
						     s.rc / 2) / s.rc);
		}
		row(&pr, &s, t, 0);
	}
	free(ev);
	return 0;
}

const struct xl_cmd xl_sim_dcqcn_cmd = {
	.name = "dcqcn", .summary = "the DCQCN reaction point (sender rate) over a CNP/send trace",
	.intro = "Replays a trace through the DCQCN reaction point (the dataplane's code).\n"
		 "Output: time_ns,rc_bps,rt_bps,alpha at time 0 and after every change.",
	.opts = dcqcn_opts, XL_CMD_OPTS(struct dcqcn_opts, &dcqcn_defaults),
	.check = dcqcn_check, .run = dcqcn_run,
};
