// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`'s options: the table (also --help and shell completion),
 * the checks across options, and gen's row for main.c (gen.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "base/log.h"
#include "ecn.h"
#include "base/cli.h"
#include "base/units.h"
#include "traffic/gen.h"
#include "traffic/traffic.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define F(f) XL_FIELD(struct gen_opts, f)
#define GIVEN(f) XL_GIVEN(struct gen_opts, f)

static const struct xl_opt_word opcodes[] = { { "send", 0 }, { "write", 1 }, { NULL, 0 } };
static const struct xl_opt_word patterns[] = {
	{ "elephant", P_ELEPHANT }, { "nccl", P_NCCL }, { "steps", P_STEPS }, { NULL, 0 }
};
static const struct xl_opt_word ecns[] = {
	{ "ect0", XL_ECN_ECT0 }, { "ect1", XL_ECN_ECT1 }, { "not-ect", XL_ECN_NOT_ECT },
	{ "ce", XL_ECN_CE }, { NULL, 0 }
};
/* --afpacket is a flag: it stores 1 */
_Static_assert(M_AFPACKET == 1, "--afpacket stores 1 into method");

static int parse_gap(const char *v, void *field, char *err, size_t errlen);

static const struct xl_opt gen_opts[] = {
	{ "dev", 'd', XL_T_STR, F(dev), "IF", "interface to send on", .required = true },
	{ "dst", 0, XL_T_STR, F(dst), "IP", "destination (IPv4 or IPv6: sets the family)",
	  .required = true },
	{ "src", 0, XL_T_STR, F(src), "IP", "source (default: IF's first address of that family)" },
	{ "gw-mac", 0, XL_T_STR, F(gw_mac), "MAC", "destination MAC (default: the kernel's neighbour entry\n"
						   "of the route's gateway, or of DST if on-link)" },
	{ "qps", 0, XL_T_UINT, F(qps), "N", "queue pairs, 1.." STR(MAX_QPS) " (default 1)",
	  .min = 1, .max = MAX_QPS },
	{ "qp-base", 0, XL_T_UINT, F(qp_base), "N", "first destination QP number (default 0x100)",
	  .max = XL_QPN_MASK },
	{ "sport-base", 0, XL_T_UINT, F(sport_base), "N", "UDP source port of the first QP; QP i uses base + i\n"
							  "(default 49152)", .min = 1, .max = 65535 },
	{ "size", 0, XL_T_BYTES, F(size), "BYTES", "payload bytes per packet after BTH/RETH (the RoCE MTU,\n"
						   "default 1024)" },
	{ "opcode", 0, XL_T_ENUM, F(write), "send|write", "SEND_* or RDMA_WRITE_* (default send)",
	  .words = opcodes },
	{ "rate", 0, XL_T_RATE, F(rate_bps), "RATE", "per QP, bit/s of frames (e.g. 100M, 2.5G; default: as\n"
						     "fast as possible). With the elephant pattern gen\n"
						     "warns (stderr; asked_bps, rate_shortfall in --json)\n"
						     "when it reaches less than 95 % of QPS x RATE" },
	{ "pattern", 0, XL_T_ENUM, F(pattern), "elephant|nccl|steps",
	  "elephant: back-to-back messages (default);\n"
	  "nccl: each message then an idle gap, per QP;\n"
	  "steps: every line read on stdin releases one\n"
	  "message on every QP; when all are sent gen\n"
	  "prints a line of JSON (step, start_ns, end_ns:\n"
	  "CLOCK_MONOTONIC) to stdout; EOF ends the run", .words = patterns },
	{ "message", 0, XL_T_BYTES, F(message), "BYTES", "message size (default: --size for elephant, 1M for\n"
							 "nccl and steps)", .min = 1, GIVEN(message_set) },
	{ "gap", 0, XL_T_FUNC, F(gap), "fixed:T|exp:T|uniform:T1-T2", "nccl's idle gap: fixed, exponential with\n"
									"mean T, or uniform (default fixed:1ms)",
	  .parse = parse_gap, GIVEN(gap_set) },
	{ "duration", 0, XL_T_DURATION, F(duration_ns), "T", "run time, e.g. 5s, 200ms (default: until --count or\n"
							     "Ctrl-C)",
	  .min = 1000000ULL, .max = 366ULL * 86400 * 1000000000ULL },
	{ "count", 0, XL_T_UINT, F(count), "N", "stop after N packets in all", .min = 1, .max = ~0ULL >> 1 },
	{ "ecn", 0, XL_T_ENUM, F(ecn), "ect0|ect1|not-ect|ce", "the ECN field (default ect0)", .words = ecns },
	{ "dscp", 0, XL_T_UINT, F(dscp), "N", "0..63 (default 26)", .max = 63 },
	{ "seed", 0, XL_T_UINT, F(seed), "N", "random initial PSNs and gap draws from N (default: PSNs\n"
					      "from 0, gaps from seed 1)", GIVEN(seed_set) },
	{ "json", 'j', XL_T_FLAG, F(json), NULL, "print the summary as JSON" },
	{ "rate-map", 0, XL_T_STR, F(rate_map), "PATH", "pace each QP at min(--rate, the rate DCQCN's reaction\n"
							"point publishes in PATH, host mode's pinned rp_rates\n"
							"map), and feed gen's packets to that RP (rp_flows\n"
							"and host_cfg pinned next to PATH)" },
	{ "batch", 0, XL_T_UINT, F(batch), "N", "packets per BPF_PROG_RUN, 1.." STR(XL_GEN_MAX_BATCH)
						" (default " STR(DEFAULT_BATCH) ")",
	  .min = 1, .max = XL_GEN_MAX_BATCH },
	{ "afpacket", 0, XL_T_FLAG, F(method), NULL, "send with an AF_PACKET socket instead (a baseline)" },
	{ "reliable", 0, XL_T_FLAG, F(reliable), NULL, "be an RC requester doing go-back-N, as a RoCE NIC:\n"
						      "ask for ACKs (each message's last packet, every 64th\n"
						      "PSN), read ACKs and NAKs from DST (xdpleaf sink\n"
						      "--respond), send again from a NAK'd PSN or, after\n"
						      "--ack-timeout without an ACK, from the oldest one\n"
						      "not acknowledged; steps end when acknowledged" },
	{ "ack-timeout", 0, XL_T_DURATION, F(ack_timeout_ns), "T", "--reliable: how long an ACK asked for may take\n"
								  "(default 10ms)",
	  .min = 100000ULL, .max = 60ULL * 1000000000ULL, GIVEN(ack_timeout_set) },
	XL_OPT_HELP, XL_OPT_END
};

static const struct gen_opts gen_defaults = {
	.qps = 1, .qp_base = 0x100, .sport_base = 49152, .size = 1024,
	.batch = DEFAULT_BATCH, .ecn = XL_ECN_ECT0, .dscp = 26, .seed = 1,
	.gap = { .kind = GAP_FIXED, .t1_ns = 1000000 },
	.ack_timeout_ns = ACK_TIMEOUT_DEFAULT_NS,
};

/* --gap: fixed:T, exp:T or uniform:T1-T2 into struct gen_gap. */
static int parse_gap(const char *v, void *field, char *err, size_t errlen)
{
	struct gen_gap *g = field;
	const char *arg = strchr(v, ':');
	char a[64];
	const char *dash;

	if (!arg)
		goto bad;
	arg++;
	if (!strncmp(v, "fixed:", 6))
		g->kind = GAP_FIXED;
	else if (!strncmp(v, "exp:", 4))
		g->kind = GAP_EXP;
	else if (!strncmp(v, "uniform:", 8))
		g->kind = GAP_UNIFORM;
	else
		goto bad;
	if (g->kind != GAP_UNIFORM)
		return xl_parse_duration(arg, 0, 3600000000000ULL, &g->t1_ns, err, errlen);
	dash = strchr(arg, '-');
	if (!dash || (size_t)(dash - arg) >= sizeof(a))
		goto bad;
	memcpy(a, arg, dash - arg);
	a[dash - arg] = 0;
	if (xl_parse_duration(a, 0, 3600000000000ULL, &g->t1_ns, err, errlen) ||
	    xl_parse_duration(dash + 1, 0, 3600000000000ULL, &g->t2_ns, err, errlen))
		return -1;
	if (g->t2_ns < g->t1_ns) {
		snprintf(err, errlen, "uniform:T1-T2 needs T1 <= T2");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "invalid '%s' (fixed:T, exp:T or uniform:T1-T2, e.g. exp:500us)", v);
	return -1;
}

/* The checks across options. */
static int gen_check(const struct xl_cmd_ctx *ctx, void *opts)
{
	struct gen_opts *o = opts;

	(void)ctx;
	if (o->qp_base + o->qps - 1 > XL_QPN_MASK) {
		xl_err("--qp-base + --qps - 1 exceeds 0xffffff");
		return -1;
	}
	if (o->sport_base + o->qps - 1 > 65535) {
		xl_err("--sport-base + --qps - 1 exceeds 65535");
		return -1;
	}
	if (!o->message_set)
		o->message = o->pattern == P_ELEPHANT ? o->size : 1U << 20;
	if (o->size == 0 && o->message > 0) {
		if (o->message_set) {
			xl_err("--size 0 allows no --message (zero-length "
			       "SEND/WRITE_ONLY packets only)");
			return -1;
		}
	}
	if (o->size && o->message > o->size && o->size % 4) {
		xl_err("--size must be a multiple of 4 when a message "
		       "spans several packets (FIRST/MIDDLE carry a whole MTU)");
		return -1;
	}
	if (o->gap_set && o->pattern != P_NCCL) {
		xl_err("--gap applies to --pattern nccl only");
		return -1;
	}
	if (o->ack_timeout_set && !o->reliable) {
		xl_err("--ack-timeout applies to --reliable only");
		return -1;
	}
	return 0;
}


const struct xl_cmd xl_gen_cmd = {
	.name = "gen", .summary = "send RoCEv2 traffic ('xdpleaf gen --help')",
	.intro = "Sends RoCEv2 (RC SEND or RDMA WRITE) from this network namespace out of IF,\n"
		 "with BPF_PROG_RUN live frames (docs/traffic-tools.md).",
	.opts = gen_opts, XL_CMD_OPTS(struct gen_opts, &gen_defaults),
	.check = gen_check, .run = gen_run,
};
