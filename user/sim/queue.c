// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf sim queue`: drive one port's phantom queue and WRED profile
 * (include/ecn.h, the code the dataplane runs) with a packet trace or a
 * synthetic constant-rate load, and print what happens to every packet. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

	if (xl_csv_open(&c, path, "time_ns,bytes,ect", "xdpleaf sim queue"))
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

enum { O_RATE = 256, O_GAMMA, O_BUFFER, O_OVERFLOW, O_LINE_OVERHEAD, O_KMIN, O_KMAX, O_PMAX, O_FIT, O_NOT_ECT,
       O_SEED, O_TRACE, O_LOAD, O_PACKET, O_DURATION };
const struct xl_opt xl_sim_queue_opts[] = {
	XL_OPT_REQUIRED("rate", O_RATE, "RATE", "the port's line rate (e.g. 1G)"),
	XL_OPT("gamma", O_GAMMA, "G", "the fraction of RATE the queue drains at (default 1)"),
	XL_OPT("buffer", O_BUFFER, "BYTES", "the queue's capacity (default 1M, or 2 ms of RATE if\n"
					    "less, at least 2 frames: the config's default)"),
	XL_OPT("overflow", O_OVERFLOW, "drop|mark", "what a full buffer does (default drop)"),
	XL_OPT("line-overhead", O_LINE_OVERHEAD, "BYTES", "what each frame also takes on the line\n"
							  "(default 24: Ethernet's preamble, FCS, gap)"),
	XL_OPT("kmin", O_KMIN, "BYTES", "marking starts above this queue (default 5K)"),
	XL_OPT("kmax", O_KMAX, "BYTES", "everything is marked above this queue (default 200K)"),
	XL_OPT("pmax", O_PMAX, "P", "the marking probability at kmax (default 1%)"),
	XL_OPT("fit", O_FIT, NULL, "fit kmin and kmax into the buffer, as the built-in class\n"
				   "roce does (docs/ecn.md; not with --kmin or --kmax)"),
	XL_OPT("not-ect", O_NOT_ECT, NULL, "packets are Not-ECT (default ECT)"),
	XL_OPT("seed", O_SEED, "N", "the marking's random draws (default 1)"),
	XL_OPT("trace", O_TRACE, "FILE", "packets from a CSV time_ns,bytes[,ect], or:"),
	XL_OPT("load", O_LOAD, "RATE", "a constant-rate load of --packet-byte packets"),
	XL_OPT("packet", O_PACKET, "BYTES", "packet size of --load (default 1500)"),
	XL_OPT("duration", O_DURATION, "T", "how long --load runs (e.g. 10ms)"),
	XL_OPT_HELP, XL_OPT_END
};

static void usage(FILE *f)
{
	xl_opt_usage(f, "sim queue", xl_sim_queue_opts,
		     "Runs one port's phantom queue and WRED marking (the dataplane's code) over\n"
		     "a packet trace (--trace) or a constant-rate load (--load, --duration), and\n"
		     "prints time_ns,bytes,queue_bytes,action per packet (action: queued,\n"
		     "marked, dropped, over_marked, over_passed); a summary goes to stderr.\n"
		     "The queue counts line bytes: each frame's bytes plus --line-overhead.\n"
		     "T: a number and its unit (ns, us, ms, s), e.g. 10ms.");
}

int xl_sim_queue(int argc, char **argv)
{
	struct xl_opt_parser p = { .opts = xl_sim_queue_opts };
	struct queue_sim s = {
		.buffer = 0, /* unset: xl_default_buffer of the rate, as the config */
		.wred = { .kmin = XL_WRED_PAPER_KMIN, .kmax = XL_WRED_PAPER_KMAX,
			  .pmax = XL_WRED_PAPER_PMAX },
		.line_overhead = XL_DEFAULT_LINE_OVERHEAD,
		.rng = 1,
	};
	__u64 rate = 0, load = 0, duration = 0, packet = 1500;
	__u32 gamma = 1000000, u32v;
	const char *trace = NULL;
	struct packet *pk = NULL;
	size_t n_pk = 0;
	char err[256] = "";
	int ch, ect = 1, bad = 0, thresholds = 0;

	while (!bad && (ch = xl_opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case O_RATE: bad = xl_parse_rate(optarg, &rate, err, sizeof(err)); break;
		case O_GAMMA: bad = xl_parse_gamma(optarg, &gamma, err, sizeof(err)); break;
		case O_BUFFER:
			bad = xl_parse_bytes("buffer", optarg, 2048, "2K", &u32v, err, sizeof(err));
			s.buffer = u32v;
			break;
		case O_LINE_OVERHEAD:
			bad = xl_parse_uint("--line-overhead", optarg, 0, 256, &u32v, err,
					    sizeof(err));
			s.line_overhead = u32v;
			break;
		case O_KMIN:
			bad = xl_parse_bytes("kmin", optarg, 0, "0", &s.wred.kmin, err, sizeof(err));
			thresholds = 1;
			break;
		case O_KMAX:
			bad = xl_parse_bytes("kmax", optarg, 0, "0", &s.wred.kmax, err, sizeof(err));
			thresholds = 1;
			break;
		case O_FIT: s.wred.flags |= XL_CLASS_FIT; break;
		case O_PMAX: bad = xl_parse_pmax(optarg, &s.wred.pmax, err, sizeof(err)); break;
		case O_OVERFLOW:
			s.mark_only = !strcmp(optarg, "mark");
			if (!s.mark_only && strcmp(optarg, "drop")) {
				snprintf(err, sizeof(err), "overflow must be drop or mark");
				bad = 1;
			}
			break;
		case O_NOT_ECT: ect = 0; break;
		case O_SEED:
			bad = xl_parse_uint("--seed", optarg, 0, 0xffffffffU, &u32v, err,
					    sizeof(err));
			s.rng = (__u64)u32v | 1; /* xorshift's state must not be 0 */
			break;
		case O_TRACE: trace = optarg; break;
		case O_LOAD: bad = xl_parse_rate(optarg, &load, err, sizeof(err)); break;
		case O_PACKET:
			bad = xl_parse_bytes("packet", optarg, 64, "64", &u32v, err, sizeof(err)) ||
			      u32v > 65535;
			packet = u32v;
			break;
		case O_DURATION:
			bad = xl_parse_duration(optarg, 1, 3600000000000ULL, &duration,
						err, sizeof(err));
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	xl_opt_free(&p);
	if (!bad && (!rate || (!trace == !load) || (load && !duration) ||
		     s.wred.kmin >= s.wred.kmax || optind < argc ||
		     (thresholds && (s.wred.flags & XL_CLASS_FIT)))) {
		snprintf(err, sizeof(err), "need --rate, exactly one of --trace and "
			 "--load (with --duration), kmin < kmax; --fit fits the default "
			 "kmin and kmax, not ones given");
		bad = 1;
	}
	if (bad) {
		fprintf(stderr, "xdpleaf sim queue: %s\n", err[0] ? err : "bad value");
		usage(stderr);
		return 2;
	}
	if (!s.buffer)
		s.buffer = xl_default_buffer(rate);
	s.drain_bps = rate * gamma / 1000000;
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

		fprintf(stderr, "packets %llu, marked %llu (%.2f%%), dropped %llu "
				"(%.2f%%), peak queue %llu bytes, forwarded %.1f Mbit/s\n",
			s.packets, s.marked, 100.0 * s.marked / s.packets, s.dropped,
			100.0 * s.dropped / s.packets, s.peak,
			secs > 0 ? s.fwd_bytes * 8 / secs / 1e6 : 0.0);
	}
	return 0;
}
