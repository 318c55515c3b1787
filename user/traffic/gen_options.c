// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`'s options: the table (also --help and shell completion),
 * parsing and the checks across options (gen.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "ecn.h"
#include "base/cli.h"
#include "base/units.h"
#include "traffic/gen.h"
#include "traffic/traffic.h"


enum { O_DST = 256, O_SRC, O_GWMAC, O_QPS, O_QPBASE, O_SPORT, O_SIZE,
       O_OPCODE, O_RATE, O_PATTERN, O_MESSAGE, O_GAP, O_DURATION,
       O_COUNT, O_ECN, O_DSCP, O_SEED, O_RATEMAP, O_BATCH, O_AFPACKET,
       O_RELIABLE, O_ACKTIMEOUT };
#define STR_(x) #x
#define STR(x) STR_(x)
const struct xl_opt xl_gen_opts[] = {
	XL_OPT_REQUIRED("dev", 'd', "IF", "interface to send on"),
	XL_OPT_REQUIRED("dst", O_DST, "IP", "destination (IPv4 or IPv6: sets the family)"),
	XL_OPT("src", O_SRC, "IP", "source (default: IF's first address of that family)"),
	XL_OPT("gw-mac", O_GWMAC, "MAC", "destination MAC (default: the kernel's neighbour entry\n"
					 "of the route's gateway, or of DST if on-link)"),
	XL_OPT("qps", O_QPS, "N", "queue pairs, 1.." STR(MAX_QPS) " (default 1)"),
	XL_OPT("qp-base", O_QPBASE, "N", "first destination QP number (default 0x100)"),
	XL_OPT("sport-base", O_SPORT, "N", "UDP source port of the first QP; QP i uses base + i\n"
					   "(default 49152)"),
	XL_OPT("size", O_SIZE, "BYTES", "payload bytes per packet after BTH/RETH (the RoCE MTU,\n"
					"default 1024)"),
	XL_OPT("opcode", O_OPCODE, "send|write", "SEND_* or RDMA_WRITE_* (default send)"),
	XL_OPT("rate", O_RATE, "RATE", "per QP, bit/s of frames (e.g. 100M, 2.5G; default: as\n"
				       "fast as possible). With the elephant pattern gen\n"
				       "warns (stderr; asked_bps, rate_shortfall in --json)\n"
				       "when it reaches less than 95 % of QPS x RATE"),
	XL_OPT("pattern", O_PATTERN, "elephant|nccl|steps", "elephant: back-to-back messages (default);\n"
						      "nccl: each message then an idle gap, per QP;\n"
						      "steps: every line read on stdin releases one\n"
						      "message on every QP; when all are sent gen\n"
						      "prints a line of JSON (step, start_ns, end_ns:\n"
						      "CLOCK_MONOTONIC) to stdout; EOF ends the run"),
	XL_OPT("message", O_MESSAGE, "BYTES", "message size (default: --size for elephant, 1M for\n"
					      "nccl and steps)"),
	XL_OPT("gap", O_GAP, "fixed:T|exp:T|uniform:T1-T2", "nccl's idle gap: fixed, exponential with\n"
							    "mean T, or uniform (default fixed:1ms)"),
	XL_OPT("duration", O_DURATION, "T", "run time, e.g. 5s, 200ms (default: until --count or\n"
					    "Ctrl-C)"),
	XL_OPT("count", O_COUNT, "N", "stop after N packets in all"),
	XL_OPT("ecn", O_ECN, "ect0|ect1|not-ect|ce", "the ECN field (default ect0)"),
	XL_OPT("dscp", O_DSCP, "N", "0..63 (default 26)"),
	XL_OPT("seed", O_SEED, "N", "random initial PSNs and gap draws from N (default: PSNs\n"
				    "from 0, gaps from seed 1)"),
	XL_OPT("json", 'j', NULL, "print the summary as JSON"),
	XL_OPT("rate-map", O_RATEMAP, "PATH", "pace each QP at min(--rate, the rate DCQCN's reaction\n"
					      "point publishes in PATH, host mode's pinned rp_rates\n"
					      "map), and feed gen's packets to that RP (rp_flows\n"
					      "and host_cfg pinned next to PATH)"),
	XL_OPT("batch", O_BATCH, "N", "packets per BPF_PROG_RUN, 1.." STR(XL_GEN_MAX_BATCH)
				      " (default " STR(DEFAULT_BATCH) ")"),
	XL_OPT("afpacket", O_AFPACKET, NULL, "send with an AF_PACKET socket instead (a baseline)"),
	XL_OPT("reliable", O_RELIABLE, NULL, "be an RC requester doing go-back-N, as a RoCE NIC:\n"
					    "ask for ACKs (each message's last packet, every 64th\n"
					    "PSN), read ACKs and NAKs from DST (xdpleaf sink\n"
					    "--respond), send again from a NAK'd PSN or, after\n"
					    "--ack-timeout without an ACK, from the oldest one\n"
					    "not acknowledged; steps end when acknowledged"),
	XL_OPT("ack-timeout", O_ACKTIMEOUT, "T", "--reliable: how long an ACK asked for may take\n"
						"(default 10ms)"),
	XL_OPT_HELP, XL_OPT_END
};

static void usage(FILE *f)
{
	xl_opt_usage(f, "gen", xl_gen_opts,
		     "Sends RoCEv2 (RC SEND or RDMA WRITE) from this network namespace out of IF,\n"
		     "with BPF_PROG_RUN live frames (docs/traffic-tools.md).");
}

static int parse_u64(const char *s, __u64 lo, __u64 hi, __u64 *out)
{
	char *e;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || *e || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_gap(struct gen_opts *o, const char *v, char *err, size_t errlen)
{
	const char *arg = strchr(v, ':');
	char a[64];
	const char *dash;

	if (!arg)
		goto bad;
	arg++;
	if (!strncmp(v, "fixed:", 6))
		o->gap_kind = GAP_FIXED;
	else if (!strncmp(v, "exp:", 4))
		o->gap_kind = GAP_EXP;
	else if (!strncmp(v, "uniform:", 8))
		o->gap_kind = GAP_UNIFORM;
	else
		goto bad;
	if (o->gap_kind != GAP_UNIFORM)
		return xl_parse_duration(arg, 0, 3600000000000ULL, &o->gap1_ns, err, errlen);
	dash = strchr(arg, '-');
	if (!dash || (size_t)(dash - arg) >= sizeof(a))
		goto bad;
	memcpy(a, arg, dash - arg);
	a[dash - arg] = 0;
	if (xl_parse_duration(a, 0, 3600000000000ULL, &o->gap1_ns, err, errlen) ||
	    xl_parse_duration(dash + 1, 0, 3600000000000ULL, &o->gap2_ns, err, errlen))
		return -1;
	if (o->gap2_ns < o->gap1_ns) {
		snprintf(err, errlen, "--gap uniform:T1-T2 needs T1 <= T2");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "invalid --gap '%s' (fixed:T, exp:T or uniform:T1-T2, "
		 "e.g. exp:500us)", v);
	return -1;
}

int gen_parse_opts(int argc, char **argv, struct gen_opts *o)
{
	struct xl_opt_parser p = { .opts = xl_gen_opts };
	char err[256] = "";
	__u64 v;
	int ch;

	*o = (struct gen_opts){
		.qps = 1, .qp_base = 0x100, .sport_base = 49152, .size = 1024,
		.batch = DEFAULT_BATCH, .ecn = 2, .dscp = 26, .seed = 1,
		.gap_kind = GAP_FIXED, .gap1_ns = 1000000,
		.ack_timeout_ns = ACK_TIMEOUT_DEFAULT_NS,
	};
	while ((ch = xl_opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'd': o->dev = optarg; break;
		case O_DST: o->dst = optarg; break;
		case O_SRC: o->src = optarg; break;
		case O_GWMAC: o->gw_mac = optarg; break;
		case O_QPS:
			if (parse_u64(optarg, 1, MAX_QPS, &v))
				snprintf(err, sizeof(err), "--qps '%s': 1..%d", optarg, MAX_QPS);
			o->qps = (__u32)v;
			break;
		case O_QPBASE:
			if (parse_u64(optarg, 0, XL_QPN_MASK, &v))
				snprintf(err, sizeof(err), "--qp-base '%s': 0..0xffffff", optarg);
			o->qp_base = (__u32)v;
			break;
		case O_SPORT:
			if (parse_u64(optarg, 1, 65535, &v))
				snprintf(err, sizeof(err), "--sport-base '%s': 1..65535", optarg);
			o->sport_base = (__u32)v;
			break;
		case O_SIZE:
			xl_parse_bytes("--size", optarg, 0, "0", &o->size, err, sizeof(err));
			break;
		case O_MESSAGE:
			xl_parse_bytes("--message", optarg, 1, "1", &o->message, err, sizeof(err));
			o->message_set = true;
			break;
		case O_OPCODE:
			if (!strcmp(optarg, "send"))
				o->write = false;
			else if (!strcmp(optarg, "write"))
				o->write = true;
			else
				snprintf(err, sizeof(err), "--opcode '%s': send or write", optarg);
			break;
		case O_RATE:
			xl_parse_rate(optarg, &o->rate_bps, err, sizeof(err));
			break;
		case O_PATTERN:
			if (!strcmp(optarg, "elephant"))
				o->pattern = P_ELEPHANT;
			else if (!strcmp(optarg, "nccl"))
				o->pattern = P_NCCL;
			else if (!strcmp(optarg, "steps"))
				o->pattern = P_STEPS;
			else
				snprintf(err, sizeof(err), "--pattern '%s': elephant, nccl or steps",
					 optarg);
			break;
		case O_GAP:
			parse_gap(o, optarg, err, sizeof(err));
			o->gap_set = true;
			break;
		case O_DURATION:
			xl_parse_duration(optarg, 1000000ULL, 366ULL * 86400 * 1000000000ULL,
					  &o->duration_ns, err, sizeof(err));
			break;
		case O_COUNT:
			if (parse_u64(optarg, 1, ~0ULL >> 1, &o->count))
				snprintf(err, sizeof(err), "--count '%s': a positive number", optarg);
			break;
		case O_ECN:
			if (!strcmp(optarg, "ect0"))
				o->ecn = XL_ECN_ECT0;
			else if (!strcmp(optarg, "ect1"))
				o->ecn = XL_ECN_ECT1;
			else if (!strcmp(optarg, "not-ect"))
				o->ecn = XL_ECN_NOT_ECT;
			else if (!strcmp(optarg, "ce"))
				o->ecn = XL_ECN_CE;
			else
				snprintf(err, sizeof(err), "--ecn '%s': ect0, ect1, not-ect or ce", optarg);
			break;
		case O_DSCP:
			if (parse_u64(optarg, 0, 63, &v))
				snprintf(err, sizeof(err), "--dscp '%s': 0..63", optarg);
			o->dscp = (__u8)v;
			break;
		case O_SEED:
			if (parse_u64(optarg, 0, ~0ULL, &o->seed))
				snprintf(err, sizeof(err), "--seed '%s': a number", optarg);
			o->seed_set = true;
			break;
		case O_RATEMAP: o->rate_map = optarg; break;
		case O_BATCH:
			if (parse_u64(optarg, 1, XL_GEN_MAX_BATCH, &v))
				snprintf(err, sizeof(err), "--batch '%s': 1..%d", optarg,
					 XL_GEN_MAX_BATCH);
			o->batch = (__u32)v;
			break;
		case O_AFPACKET: o->method = M_AFPACKET; break;
		case O_RELIABLE: o->reliable = true; break;
		case O_ACKTIMEOUT:
			xl_parse_duration(optarg, 100000ULL, 60ULL * 1000000000ULL,
					  &o->ack_timeout_ns, err, sizeof(err));
			o->ack_timeout_set = true;
			break;
		case 'j': o->json = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
		if (*err) {
			fprintf(stderr, PFX "%s\n", err);
			return -1;
		}
	}
	xl_opt_free(&p);
	if (optind < argc) {
		fprintf(stderr, PFX "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->dev || !o->dst) {
		fprintf(stderr, PFX "--dev IF and --dst IP are required ('xdpleaf gen --help')\n");
		return -1;
	}
	if (o->qp_base + o->qps - 1 > XL_QPN_MASK) {
		fprintf(stderr, PFX "--qp-base + --qps - 1 exceeds 0xffffff\n");
		return -1;
	}
	if (o->sport_base + o->qps - 1 > 65535) {
		fprintf(stderr, PFX "--sport-base + --qps - 1 exceeds 65535\n");
		return -1;
	}
	if (!o->message_set)
		o->message = o->pattern == P_ELEPHANT ? o->size : 1U << 20;
	if (o->size == 0 && o->message > 0) {
		if (o->message_set) {
			fprintf(stderr, PFX "--size 0 allows no --message (zero-length "
				"SEND/WRITE_ONLY packets only)\n");
			return -1;
		}
	}
	if (o->size && o->message > o->size && o->size % 4) {
		fprintf(stderr, PFX "--size must be a multiple of 4 when a message "
			"spans several packets (FIRST/MIDDLE carry a whole MTU)\n");
		return -1;
	}
	if (o->gap_set && o->pattern != P_NCCL) {
		fprintf(stderr, PFX "--gap applies to --pattern nccl only\n");
		return -1;
	}
	if (o->ack_timeout_set && !o->reliable) {
		fprintf(stderr, PFX "--ack-timeout applies to --reliable only\n");
		return -1;
	}
	return 0;
}

