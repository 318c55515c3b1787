// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf sim queue`: drive one port's phantom queue and WRED profile
 * (include/ecn.h, the code the dataplane runs) with a packet trace or a
 * synthetic constant-rate load, and print what happens to every packet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/cli.h"
#include "config/config.h"
#include "base/rng.h"
#include "sim/sim.h"
#include "sim/csv.h"
#include "base/units.h"
#include "xdpleaf.h"

struct queue_sim {
	__u64 drain_bps;
	__u64 buffer;
	__u64 line_overhead; /* bytes per frame on the line (the config's line_overhead) */
	int mark_only;
	struct xl_wred wred;
	__u64 vtime;
	__u64 rng;
	/* totals */
	__u64 packets, bytes, marked, dropped, fwd_bytes, peak;
	__u64 first_ns, last_ns;
};

static const char *action_name(int d)
{
	if (d & XL_Q_DROP)
		return "dropped";
	if ((d & XL_Q_ENQUEUE) && (d & XL_Q_MARK))
		return "marked";
	if (d & XL_Q_ENQUEUE)
		return "queued";
	return d & XL_Q_MARK ? "over_marked" : "over_passed";
}

/* One packet, exactly as bpf/queue.h does it on one CPU. */
static void offer(struct queue_sim *s, __u64 t_ns, __u64 len, int ect)
{
	__u64 now = xl_vt_now(t_ns);
	__u64 q = xl_backlog(s->vtime, now, s->drain_bps);
	__u64 wire = len + s->line_overhead;
	int d = xl_queue_decide(q, wire, s->buffer, &s->wred, ect, s->mark_only,
				xl_rand32(&s->rng));

	if (d & XL_Q_ENQUEUE)
		s->vtime = xl_vt_enqueue(s->vtime, now, wire, s->drain_bps);
	if (!s->packets)
		s->first_ns = t_ns;
	s->last_ns = t_ns;
	s->packets++;
	s->bytes += len;
	s->marked += !!(d & XL_Q_MARK);
	s->dropped += !!(d & XL_Q_DROP);
	s->fwd_bytes += d & XL_Q_DROP ? 0 : len;
	if (q > s->peak)
		s->peak = q;
	printf("%llu,%llu,%llu,%s\n", t_ns, len, q, action_name(d));
}

struct packet {
	__u64 t;
	__u32 len;
	__u32 ect;
};

/* The whole trace, read before any packet is offered (a refused line
 * leaves no partial output): 0, or -1 refused naming the field. */
static int read_trace(const char *path, int ect, struct packet **out, size_t *n_out)
{
	struct packet *pk = NULL;
	size_t n = 0, cap = 0;
	struct xl_csv c;
	int rc;

	if (xl_csv_open(&c, path, "time_ns,bytes,ect"))
		return -1;
	while ((rc = xl_csv_next(&c)) > 0) {
		unsigned long long t, len, e = (unsigned long long)ect;

		rc = -1;
		if (xl_csv_u64(&c, 0, "time_ns", 0, &t) || xl_csv_u64(&c, 1, "bytes", 0, &len) ||
		    xl_csv_u64(&c, 2, "ect", 1, &e))
			break;
		if (n && t < pk[n - 1].t) {
			xl_csv_refuse(&c, "time_ns", "%llu is before the previous packet's %llu "
				      "(time must not decrease)", t, (unsigned long long)pk[n - 1].t);
			break;
		}
		if (len == 0 || len > 65535) {
			xl_csv_refuse(&c, "bytes", "%llu is out of range 1..65535", len);
			break;
		}
		if (e > 1) {
			xl_csv_refuse(&c, "ect", "%llu is not 0 or 1", e);
			break;
		}
		if (n == cap) {
			struct packet *more;

			cap = cap ? 2 * cap : 1024;
			more = realloc(pk, cap * sizeof(*pk));
			if (!more) {
				xl_csv_refuse(&c, NULL, "out of memory");
				break;
			}
			pk = more;
		}
		pk[n++] = (struct packet){ .t = t, .len = (__u32)len, .ect = (__u32)e };
		rc = 0;
	}
	xl_csv_close(&c);
	if (rc) {
		free(pk);
		return -1;
	}
	*out = pk;
	*n_out = n;
	return 0;
}

/* The command line. */
struct queue_opts {
	__u64 rate, load, duration_ns;
	__u32 gamma, buffer, line_overhead, packet, seed;
	struct xl_wred wred;
	bool mark_only, fit, not_ect, kmin_set, kmax_set;
	const char *trace;
};

static int gamma_opt(const char *v, void *field, char *err, size_t len)
{
	return xl_parse_gamma("gamma", v, field, err, len);
}

static int pmax_opt(const char *v, void *field, char *err, size_t len)
{
	return xl_parse_pmax(v, field, err, len);
}

static const struct xl_opt_word overflows[] = { { "drop", 0 }, { "mark", 1 }, { NULL, 0 } };

#define F(f) XL_FIELD(struct queue_opts, f)
static const struct xl_opt queue_opts[] = {
	{ "rate", 0, XL_T_RATE, F(rate), "RATE", "the port's line rate (e.g. 1G)", .required = true },
	{ "gamma", 0, XL_T_FUNC, F(gamma), "G", "the fraction of RATE the queue drains at (default 1)",
	  .parse = gamma_opt },
	{ "buffer", 0, XL_T_BYTES, F(buffer), "BYTES", "the queue's capacity (default 1M, or 2 ms of RATE if\n"
						       "less, at least 2 frames: the config's default)",
	  .min = 2048 },
	{ "overflow", 0, XL_T_ENUM, F(mark_only), "drop|mark", "what a full buffer does (default drop)",
	  .words = overflows },
	{ "line-overhead", 0, XL_T_UINT, F(line_overhead), "BYTES", "what each frame also takes on the line\n"
								    "(default 24: Ethernet's preamble, FCS, gap)",
	  .max = 256 },
	{ "kmin", 0, XL_T_BYTES, F(wred.kmin), "BYTES", "marking starts above this queue (default 5K)",
	  XL_GIVEN(struct queue_opts, kmin_set) },
	{ "kmax", 0, XL_T_BYTES, F(wred.kmax), "BYTES", "everything is marked above this queue (default 200K)",
	  XL_GIVEN(struct queue_opts, kmax_set) },
	{ "pmax", 0, XL_T_FUNC, F(wred.pmax), "P", "the marking probability at kmax (default 1%)",
	  .parse = pmax_opt },
	{ "fit", 0, XL_T_FLAG, F(fit), NULL, "fit kmin and kmax into the buffer, as the built-in class\n"
					     "roce does (docs/ecn.md; not with --kmin or --kmax)" },
	{ "not-ect", 0, XL_T_FLAG, F(not_ect), NULL, "packets are Not-ECT (default ECT)" },
	{ "seed", 0, XL_T_UINT, F(seed), "N", "the marking's random draws (default 1)" },
	{ "trace", 0, XL_T_STR, F(trace), "FILE", "packets from a CSV time_ns,bytes[,ect], or:" },
	{ "load", 0, XL_T_RATE, F(load), "RATE", "a constant-rate load of --packet-byte packets" },
	{ "packet", 0, XL_T_BYTES, F(packet), "BYTES", "packet size of --load (default 1500)",
	  .min = 64, .max = 65535 },
	{ "duration", 0, XL_T_DURATION, F(duration_ns), "T", "how long --load runs (e.g. 10ms)",
	  .min = 1, .max = 3600000000000ULL },
	XL_OPT_HELP, XL_OPT_END
};

static const struct queue_opts queue_defaults = {
	.gamma = 1000000, .packet = 1500, .seed = 1,
	.wred = { .kmin = XL_WRED_PAPER_KMIN, .kmax = XL_WRED_PAPER_KMAX,
		  .pmax = XL_WRED_PAPER_PMAX },
	.line_overhead = XL_DEFAULT_LINE_OVERHEAD,
};

static int queue_check(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct queue_opts *o = opts;

	(void)ctx;
	if ((!o->trace == !o->load) || (o->load && !o->duration_ns) ||
	    o->wred.kmin >= o->wred.kmax || ((o->kmin_set || o->kmax_set) && o->fit)) {
		xl_err("need exactly one of --trace and --load (with "
		       "--duration), kmin < kmax; --fit fits the default kmin and kmax, not "
		       "ones given");
		return -1;
	}
	return 0;
}

static int queue_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct queue_opts *o = opts;
	struct queue_sim s = {
		.buffer = o->buffer, /* 0, unset: xl_default_buffer of the rate, as the config */
		.wred = o->wred,
		.line_overhead = o->line_overhead,
		.mark_only = o->mark_only,
		.rng = (__u64)o->seed | 1, /* xorshift's state must not be 0 */
	};
	__u64 rate = o->rate, load = o->load, duration = o->duration_ns, packet = o->packet;
	const char *trace = o->trace;
	struct packet *pk = NULL;
	size_t n_pk = 0;
	int ect = !o->not_ect;

	(void)ctx;
	if (o->fit)
		s.wred.flags |= XL_CLASS_FIT;
	s.drain_bps = rate * o->gamma / 1000000;
	if (!s.buffer)
		s.buffer = xl_default_buffer(rate);
	if (trace && read_trace(trace, ect, &pk, &n_pk))
		return 1;
	printf("time_ns,bytes,queue_bytes,action\n");
	if (trace) {
		for (size_t i = 0; i < n_pk; i++)
			offer(&s, pk[i].t, pk[i].len, (int)pk[i].ect);
		free(pk);
	} else {
		/* Arrivals every packet·8/load seconds, on an exact ns grid. */
		for (__u64 i = 0;; i++) {
			__u64 t = i * packet * 8000000000ULL / load;

			if (t >= duration)
				break;
			offer(&s, t, packet, ect);
		}
	}
	if (s.packets) {
		double secs = (s.last_ns - s.first_ns) / 1e9;

		xl_notice("packets %llu, marked %llu (%.2f%%), dropped %llu "
			  "(%.2f%%), peak queue %llu bytes, forwarded %.1f Mbit/s",
			  s.packets, s.marked, 100.0 * s.marked / s.packets, s.dropped,
			  100.0 * s.dropped / s.packets, s.peak,
			  secs > 0 ? s.fwd_bytes * 8 / secs / 1e6 : 0.0);
	}
	return 0;
}

const struct xl_cmd xl_sim_queue_cmd = {
	.name = "queue", .summary = "a port's phantom queue and WRED marking over a trace or a load",
	.intro = "Runs one port's phantom queue and WRED marking (the dataplane's code) over\n"
		 "a packet trace (--trace) or a constant-rate load (--load, --duration), and\n"
		 "prints time_ns,bytes,queue_bytes,action per packet (action: queued,\n"
		 "marked, dropped, over_marked, over_passed); a summary goes to stderr.\n"
		 "The queue counts line bytes: each frame's bytes plus --line-overhead.\n"
		 "T: a number and its unit (ns, us, ms, s), e.g. 10ms.",
	.opts = queue_opts, XL_CMD_OPTS(struct queue_opts, &queue_defaults),
	.check = queue_check, .run = queue_run,
};
