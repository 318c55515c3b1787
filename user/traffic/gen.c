// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`: a RoCEv2 traffic generator (docs/traffic-tools.md).
 *
 * User space decides what to send and when: per QP a PSN sequence,
 * messages cut into FIRST/MIDDLE/LAST packets, a token bucket per QP
 * (--rate) and, for --pattern nccl, idle gaps between messages (for
 * --pattern steps, a message per QP per line read on stdin). It writes
 * one descriptor per packet (UDP source port and checksum, BTH words,
 * ICRC; user/traffic/gen_pkt.c) into the gen program's .bss and transmits the
 * batch with one BPF_PROG_RUN in live-frames mode: the kernel runs
 * bpf/gen.bpf.c once per packet on a copy of the template frame, and the
 * program redirects it out of --dev. No socket, no skb, no qdisc.
 *
 * All frames of one BPF_PROG_RUN share one template, so a batch is cut
 * where the frame layout changes (a WRITE_FIRST's RETH, a short LAST).
 *
 * --rate-map PATH (host mode's pinned rp_rates map): DCQCN's reaction
 * point paces gen. After every batch, one BPF_PROG_RUN of the gen object's
 * xdpleaf_gen_rp (bpf/gen.bpf.c) feeds each QP's packets of the batch to
 * the RP (the host's rp_flows, reused from PATH's directory: gen's frames
 * never pass tc egress, where the RP sees other senders) and returns the
 * QPs' published rates; each QP then paces at min(--rate, its rate).
 *
 * --reliable: each QP is an RC requester doing go-back-N (traffic/rc.h):
 * packets ask for ACKs (AckReq) on every message's last packet and every
 * 64th PSN; an AF_PACKET socket reads the responder's ACKs and NAKs
 * (xdpleaf sink --respond); a NAK, or no ACK within --ack-timeout, sends
 * again from the PSN not yet acknowledged; a step of --pattern steps ends
 * when all of it is acknowledged. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/output.h"
#include "pin_names.h"
#include "roce.h"   /* before the skeleton: struct xl_gen_desc */
#include "gen.skel.h"
#include <linux/bpf.h> /* struct bpf_spin_lock, for host.h */
#include "host.h"
#include "traffic/gen_pkt.h"
#include "traffic/rc.h"
#include "telemetry.h"
#include "common/cli.h"
#include "common/rtnl.h"
#include "traffic/traffic.h"
#include "common/units.h"
#include "xdpleaf.h"

#define PFX "xdpleaf gen: "
#define MAX_QPS 4096
#define DEFAULT_BATCH 1024
/* The kernel's batch within one run (bpf_test_run_opts.batch_size): a
 * veth's receive ring holds 256 frames and is drained between batches;
 * with 256 a few frames per million overflowed it. */
#define KERNEL_MAX_BATCH 64
#define PACING_SLACK_NS 1000000.0 /* credit a QP may catch up after a stall */
#define DROP_CHECK_NS 100000.0 /* back_off_on_drops */
#define BACKOFF_NS 1000000L
/* --rate-map: every QP's published rate is re-read at least this often
 * (QPs that sent in a batch: after every batch), RP_SWEEP QPs per call. */
#define RP_REFRESH_NS 100000.0
#define RP_SWEEP 256
/* --reliable: --ack-timeout's default. Several times the largest queueing
 * delay of the lab's paths (a 2 ms TBF queue each way and the responder's
 * user-space turn), so that a slow ACK is not taken for a lost one. */
#define ACK_TIMEOUT_DEFAULT_NS 10000000ULL

enum pattern { P_ELEPHANT, P_NCCL, P_STEPS };
enum gap_kind { GAP_FIXED, GAP_EXP, GAP_UNIFORM };
enum method { M_LIVE, M_AFPACKET };

/* Frame layouts (gen_pkt.h "class"). */
enum { C_ONLY, C_FIRST, C_FULL, C_LAST, N_CLASSES };

struct gen_opts {
	const char *dev, *dst, *src, *gw_mac, *rate_map;
	__u32 qps, qp_base, sport_base;
	__u32 size, message, batch;
	bool message_set, write;
	__u64 rate_bps;
	enum pattern pattern;
	enum gap_kind gap_kind;
	__u64 gap1_ns, gap2_ns;
	bool gap_set;
	__u64 duration_ns, count;
	__u8 ecn, dscp;
	__u64 seed;
	bool seed_set, json;
	enum method method;
	bool reliable;
	__u64 ack_timeout_ns;
	bool ack_timeout_set;
};

struct gen_qp {
	struct xl_gen_qpid id;
	struct xl_rc_req rc;  /* PSNs: next to send (rc.nxt), acknowledged */
	__u32 first_psn;
	__u32 pkt;            /* index of the next packet (rc.nxt) in its message */
	__u32 max_pkt;        /* the same for rc.max, the first PSN never sent */
	double t_next;        /* pacing: earliest send time of the next packet */
	double t_on;          /* nccl: when the next message may start */
	__u64 rng;
	__u64 packets, bytes, messages;
	__u32 batch_pkts;     /* --rate-map: packets in the current batch */
	__u64 rp_rate;        /* --rate-map: published rate, bit/s; 0 none */
};

struct kind {
	int cls;
	__u8 opcode;
};

struct gen_state {
	struct gen_opts o;
	struct xl_gen_flowspec fs;
	__u32 ifindex;
	int family;
	struct xl_gen_class cls[N_CLASSES];
	bool cls_used[N_CLASSES];
	__u32 npkts;          /* packets per message */
	struct kind k_only, k_first, k_mid, k_last;
	struct gen_qp *qp;
	struct gen *bpf;          /* skeleton of bpf/gen.bpf.c */
	int anchor_tap, anchor_link; /* see anchor_program() */
	/* --rate-map: the skeleton whose xdpleaf_gen_rp runs (g->bpf, or one
	 * of its own with --afpacket), QPs of the current batch */
	struct gen *rp;
	__u32 *rp_touched, rp_ntouched, rp_sweep;
	__u32 *rp_idx;
	double rp_refresh_at;
	/* current batch: n descriptors of class cur */
	int cur;
	__u32 n;
	struct xl_gen_desc *descs;   /* the program's .bss (or afpacket's) */
	/* af_packet baseline */
	int pkt_fd;
	__u8 *pkt_bufs;
	int cpu;              /* the CPU gen sends from (pin_to_this_cpu), -1 */
	/* back_off_on_drops: the device's drop count last seen, when to look
	 * again, how often gen stepped back */
	__u64 drops_seen, backoffs;
	double drop_check_at;
	/* --pattern steps: steps released so far, and the current one's
	 * start and totals at its start */
	__u64 steps;
	double step_start;
	__u64 step_packets0, step_bytes0;
	/* --reliable: the socket ACKs and NAKs arrive on, and replies that
	 * were not for us or did not verify */
	int ack_fd;
	__u64 replies_bad_icrc, replies_other;
	__u64 step_resent0;
	/* totals */
	__u64 packets, bytes, runs;
	struct timespec t0;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ---- randomness ------------------------------------------------------- */

static __u64 splitmix64(__u64 *s)
{
	__u64 z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1] */
static double unit_rand(__u64 *s)
{
	return ((double)(splitmix64(s) >> 11) + 1.0) / 9007199254740992.0;
}

/* Natural logarithm without libm (not linked): x = m * 2^e, m in [1, 2),
 * ln m = 2 atanh((m - 1) / (m + 1)), a series that converges fast there. */
static double ln_pos(double x)
{
	union { double d; __u64 u; } v = { .d = x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double m, z, z2, term, sum = 0;
	int k;

	v.u = (v.u & ((1ULL << 52) - 1)) | (1023ULL << 52);
	m = v.d;
	z = (m - 1) / (m + 1);
	z2 = z * z;
	term = z;
	for (k = 1; k < 60; k += 2) {
		sum += term / k;
		term *= z2;
	}
	return 2 * sum + e * 0.69314718055994530942;
}

static double draw_gap(const struct gen_opts *o, __u64 *rng)
{
	switch (o->gap_kind) {
	case GAP_EXP:
		return -(double)o->gap1_ns * ln_pos(unit_rand(rng));
	case GAP_UNIFORM:
		return (double)o->gap1_ns +
		       (double)(o->gap2_ns - o->gap1_ns) * unit_rand(rng);
	case GAP_FIXED:
	default:
		return (double)o->gap1_ns;
	}
}

/* ---- the rate of a QP -------------------------------------------------- */

/* Rate limit of QP qi in bit/s (frame bytes), 0 = unlimited. Called for
 * every packet, so it may change during a run: the static --rate, or with
 * --rate-map the lower of it and the rate DCQCN's reaction point published
 * for the QP (re-read after every batch, see rp_account()). */
static __u64 qp_rate_bps(const struct gen_state *g, __u32 qi)
{
	__u64 r = g->o.rate_bps, dc = g->rp ? g->qp[qi].rp_rate : 0;

	if (dc && (!r || dc < r))
		r = dc;
	return r;
}

/* ---- options ----------------------------------------------------------- */

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

static int parse_opts(int argc, char **argv, struct gen_opts *o)
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

/* ---- setup ------------------------------------------------------------- */

/* The first address of family on ifname: global before link-local (v6). */
static int dev_addr(const char *ifname, int family, __u8 addr[16])
{
	struct ifaddrs *ifa, *i;
	int found = 0;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family ||
		    strcmp(i->ifa_name, ifname))
			continue;
		if (family == AF_INET) {
			memcpy(addr, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
			found = 1;
			break;
		} else {
			const struct in6_addr *a =
				&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (IN6_IS_ADDR_LINKLOCAL(a)) {
				if (!found) {
					memcpy(addr, a, 16);
					found = 2;
				}
				continue;
			}
			memcpy(addr, a, 16);
			found = 1;
			break;
		}
	}
	freeifaddrs(ifa);
	return found ? 0 : -1;
}

static const char *ip_str(int family, const __u8 *a, char *buf, size_t len)
{
	return inet_ntop(family, a, buf, len);
}

static int resolve(struct gen_state *g, struct xl_link_info *li)
{
	struct gen_opts *o = &g->o;
	char b1[INET6_ADDRSTRLEN], b2[INET6_ADDRSTRLEN];
	__u8 dst[16], nh[16];
	struct xl_route_info rt;
	int r;

	g->family = xl_parse_ip(o->dst, dst);
	if (!g->family) {
		fprintf(stderr, PFX "--dst '%s' is not an IPv4 or IPv6 address\n", o->dst);
		return -1;
	}
	g->fs.ipv6 = g->family == AF_INET6;
	memcpy(g->fs.daddr, dst, 16);
	g->ifindex = if_nametoindex(o->dev);
	if (!g->ifindex) {
		fprintf(stderr, PFX "no interface '%s' in this network namespace\n", o->dev);
		return -1;
	}
	if (xl_link_get(g->ifindex, li) || !li->has_mac) {
		fprintf(stderr, PFX "%s: cannot read its MAC and MTU: %s\n", o->dev,
			strerror(errno));
		return -1;
	}
	if (!(li->flags & IFF_UP)) {
		fprintf(stderr, PFX "%s is down\n", o->dev);
		return -1;
	}
	memcpy(g->fs.src_mac, li->mac, 6);
	if (o->src) {
		if (xl_parse_ip(o->src, g->fs.saddr) != g->family) {
			fprintf(stderr, PFX "--src '%s' is not an address of --dst's "
				"family\n", o->src);
			return -1;
		}
	} else if (dev_addr(o->dev, g->family, g->fs.saddr)) {
		fprintf(stderr, PFX "%s has no %s address; give --src\n", o->dev,
			g->fs.ipv6 ? "IPv6" : "IPv4");
		return -1;
	}
	if (o->gw_mac) {
		if (xl_parse_mac(o->gw_mac, g->fs.dst_mac)) {
			fprintf(stderr, PFX "--gw-mac '%s' is not a MAC (aa:bb:cc:dd:ee:ff)\n",
				o->gw_mac);
			return -1;
		}
		return 0;
	}
	if (xl_route_get(g->family, dst, g->ifindex, &rt)) {
		fprintf(stderr, PFX "no route to %s via %s: %s\n", o->dst, o->dev,
			strerror(errno));
		return -1;
	}
	memcpy(nh, rt.has_gw ? rt.gw : dst, 16);
	r = xl_neigh_resolve(g->ifindex, g->family, nh, g->fs.dst_mac, 1000);
	if (r) {
		fprintf(stderr, PFX "no MAC for next hop %s on %s%s%s (neighbour %s); "
			"give --gw-mac\n", ip_str(g->family, nh, b1, sizeof(b1)), o->dev,
			rt.has_gw ? ", the gateway to " : "",
			rt.has_gw ? ip_str(g->family, dst, b2, sizeof(b2)) : "",
			r > 0 ? "unresolved after 1 s" : strerror(errno));
		return -1;
	}
	return 0;
}

/* Classes a run needs and the class and opcode of each packet kind. */
static int setup_classes(struct gen_state *g, __u32 mtu)
{
	struct gen_opts *o = &g->o;
	struct xl_gen_qpid *ids;
	__u32 last, i;
	__u32 payload[N_CLASSES] = { 0 };
	bool reth[N_CLASSES] = { false };
	__u8 op_ref[N_CLASSES] = { 0 };
	__u8 base = o->write ? XL_BTH_WRITE_FIRST : XL_BTH_SEND_FIRST;

	g->npkts = o->size ? (o->message + o->size - 1) / o->size : 1;
	if (g->npkts == 0)
		g->npkts = 1;
	last = o->message - (g->npkts - 1) * o->size;
	if (g->npkts == 1) {
		g->cls_used[C_ONLY] = true;
		payload[C_ONLY] = o->message;
		reth[C_ONLY] = o->write;
		op_ref[C_ONLY] = o->write ? XL_BTH_WRITE_ONLY : XL_BTH_SEND_ONLY;
		g->k_only = (struct kind){ C_ONLY, op_ref[C_ONLY] };
	} else {
		/* FIRST: with a RETH for WRITE, else the same layout as MIDDLE */
		int first = o->write ? C_FIRST : C_FULL;
		int lastc = last == o->size ? C_FULL : C_LAST;

		g->cls_used[first] = g->cls_used[C_FULL] = g->cls_used[lastc] = true;
		payload[C_FIRST] = payload[C_FULL] = o->size;
		reth[C_FIRST] = true;
		payload[C_LAST] = last;
		op_ref[C_FIRST] = base;
		op_ref[C_FULL] = base + 1;
		op_ref[C_LAST] = base + 2;
		g->k_first = (struct kind){ first, base };
		g->k_mid = (struct kind){ C_FULL, (__u8)(base + 1) };
		g->k_last = (struct kind){ lastc, (__u8)(base + 2) };
	}
	ids = calloc(o->qps, sizeof(*ids));
	if (!ids)
		return -1;
	for (i = 0; i < o->qps; i++) {
		ids[i].qpn = o->qp_base + i;
		ids[i].sport = (__u16)(o->sport_base + i);
	}
	for (i = 0; i < N_CLASSES; i++) {
		__u32 flen;

		if (!g->cls_used[i])
			continue;
		flen = xl_gen_frame_len(g->fs.ipv6, reth[i], payload[i]);
		if (flen - XL_GEN_ETH_LEN > mtu || flen > XL_GEN_MAX_FRAME) {
			fprintf(stderr, PFX "a %u-byte frame does not fit %s (MTU %u, "
				"at most %u bytes per frame here); use a smaller --size\n",
				flen, o->dev, mtu, XL_GEN_MAX_FRAME);
			free(ids);
			return -1;
		}
		if (xl_gen_class_init(&g->cls[i], &g->fs, payload[i], reth[i],
				      o->message, op_ref[i], ids, o->qps)) {
			fprintf(stderr, PFX "building packets: %s\n", strerror(errno));
			free(ids);
			return -1;
		}
	}
	free(ids);
	return 0;
}

static void anchor_program(struct gen_state *g);

/* --rate-map: the host's pinned maps stand in for the object's own. */
static int rp_reuse(struct bpf_map *m, const char *path, __u32 key_size,
		    __u32 value_size)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, PFX "--rate-map: %s: %s (host mode pins rp_rates, "
			"rp_flows and host_cfg under /sys/fs/bpf/xdpleaf/INSTANCE/)\n",
			path, strerror(errno));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.key_size != key_size || info.value_size != value_size) {
		fprintf(stderr, PFX "--rate-map: %s is not host mode's %s map "
			"(key %u, value %u bytes; expected %u, %u)\n", path,
			bpf_map__name(m), info.key_size, info.value_size, key_size,
			value_size);
		close(fd);
		return -1;
	}
	err = bpf_map__reuse_fd(m, fd);
	close(fd);
	if (err) {
		fprintf(stderr, PFX "--rate-map: %s: %s\n", path, strerror(-err));
		return -1;
	}
	return 0;
}

/* Before load: enable xdpleaf_gen_rp and point its maps at the host's
 * (PATH is rp_rates; rp_flows and host_cfg are pinned next to it). Without
 * --rate-map the object's own copies are created at one entry each. */
static int rp_prepare(struct gen_state *g, struct gen *skel)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	const char *slash;
	size_t dlen;

	if (!g->o.rate_map) {
		bpf_map__set_max_entries(skel->maps.rp_flows, 1);
		bpf_map__set_max_entries(skel->maps.rp_rates, 1);
		return 0;
	}
	slash = strrchr(g->o.rate_map, '/');
	dlen = slash ? (size_t)(slash - g->o.rate_map) : 1;
	if (dlen >= sizeof(dir))
		return -1;
	memcpy(dir, slash ? g->o.rate_map : ".", dlen);
	dir[dlen] = 0;
	bpf_program__set_autoload(skel->progs.xdpleaf_gen_rp, true);
	skel->rodata->gen_rp_family = g->fs.ipv6 ? 6 : 4;
	memcpy((void *)skel->rodata->gen_rp_daddr, g->fs.daddr, 16);
	if (rp_reuse(skel->maps.rp_rates, g->o.rate_map,
		     sizeof(struct xl_qp_key), sizeof(struct xl_rp_rate)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, XL_MAP_NAME(XL_MAP_RP_FLOWS));
	if (rp_reuse(skel->maps.rp_flows, path, sizeof(struct xl_qp_key),
		     sizeof(struct xl_rp_flow)))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, XL_MAP_NAME(XL_MAP_HOST_CFG));
	return rp_reuse(skel->maps.host_cfg, path, sizeof(__u32),
			sizeof(struct xl_host_cfg));
}

/* Open, prepare the RP maps, load: the frame sender (xdpleaf_gen) with it
 * or, for --afpacket, only xdpleaf_gen_rp. NULL after saying why. */
static struct gen *open_and_load(struct gen_state *g, bool sender)
{
	struct gen *skel = gen__open();
	int err;

	if (!skel) {
		fprintf(stderr, PFX "opening the BPF program: %s\n", strerror(errno));
		return NULL;
	}
	if (sender) {
		skel->rodata->gen_ifindex = g->ifindex;
		skel->rodata->gen_udp_off = XL_GEN_ETH_LEN + (g->fs.ipv6 ? 40 : 20);
	} else {
		bpf_program__set_autoload(skel->progs.xdpleaf_gen, false);
	}
	if (rp_prepare(g, skel)) {
		gen__destroy(skel);
		return NULL;
	}
	err = gen__load(skel);
	if (err) {
		fprintf(stderr, PFX "loading the BPF program: %s\n", strerror(-err));
		gen__destroy(skel);
		return NULL;
	}
	return skel;
}

static int setup_bpf(struct gen_state *g)
{
	struct gen *skel = open_and_load(g, true);

	if (!skel)
		return -1;
	g->bpf = skel;
	g->descs = skel->bss->gen_descs;
	if (g->o.rate_map)
		g->rp = skel;
	anchor_program(g);
	return 0;
}

/* --afpacket --rate-map: an object of its own for xdpleaf_gen_rp. */
static int setup_rp_only(struct gen_state *g)
{
	g->rp = open_and_load(g, false);
	return g->rp ? 0 : -1;
}

/* Why gen attaches its program to a TAP device of its own:
 *
 * BPF_PROG_RUN with repeat > 1 enters the program into the kernel's XDP
 * dispatcher before the run and takes it out after, unless it is already
 * there; each change waits for an RCU grace period (synchronize_rcu), about
 * 12 ms here, so every run would cost ~24 ms of sleeping: ~40 runs a
 * second. A program that is attached to some interface in XDP mode stays in
 * the dispatcher, and then the runs skip both changes. So gen creates a TAP
 * device (named xlgenN, down, never carrying traffic; the program also
 * passes anything not injected by gen itself) and attaches the program to
 * it with a BPF link. Both belong to this process's file descriptors: they
 * disappear when gen exits, however it exits. */
static void anchor_program(struct gen_state *g)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	__u32 idx;

	g->anchor_tap = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (g->anchor_tap < 0)
		goto fail;
	strcpy(ifr.ifr_name, "xlgen%d"); /* the kernel picks N */
	if (ioctl(g->anchor_tap, TUNSETIFF, &ifr) < 0)
		goto fail;
	idx = if_nametoindex(ifr.ifr_name);
	if (!idx)
		goto fail;
	g->anchor_link = bpf_link_create(bpf_program__fd(g->bpf->progs.xdpleaf_gen),
					 (int)idx, BPF_XDP, &lo);
	if (g->anchor_link < 0)
		goto fail;
	return;
fail:
	fprintf(stderr, PFX "warning: cannot anchor the program on a TAP device "
		"(%s); every BPF_PROG_RUN will wait ~2 RCU grace periods, so "
		"expect far fewer packets per second\n", strerror(errno));
	if (g->anchor_tap >= 0)
		close(g->anchor_tap);
	g->anchor_tap = -1;
}

static int setup_afpacket(struct gen_state *g)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = 0, /* send only */
		.sll_ifindex = (int)g->ifindex,
	};
	int one = 1;

	g->pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (g->pkt_fd < 0 || bind(g->pkt_fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, PFX "AF_PACKET socket on %s: %s\n", g->o.dev,
			strerror(errno));
		return -1;
	}
	/* straight to the driver, like live frames: no qdisc */
	setsockopt(g->pkt_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	g->descs = calloc(XL_GEN_MAX_BATCH, sizeof(*g->descs));
	g->pkt_bufs = malloc((size_t)XL_GEN_MAX_BATCH * XL_GEN_MAX_FRAME);
	if (!g->descs || !g->pkt_bufs)
		return -1;
	return 0;
}

/* ---- sending ----------------------------------------------------------- */

/* Why gen stays on one CPU: every frame it redirects into a veth lands in
 * the peer's receive ring (256 frames), and the flush schedules the
 * peer's NAPI on the CPU gen runs on; that NAPI (and every hop after it)
 * then runs in gen's own softirq as each kernel batch of KERNEL_MAX_BATCH
 * ends, so the ring is drained before the next batch. If gen moves to
 * another CPU (a busy machine makes the scheduler move it), the NAPI is
 * still queued on the old one, waiting for that CPU's ksoftirqd, while gen
 * keeps filling the ring from the new one: the ring overflows and frames
 * are dropped (counted as dev_tx_dropped). Pinned, gen and the hops it
 * feeds share one CPU and can only slow each other down. Where the user
 * already restricted gen (taskset), the CPU it starts on is within that
 * set. */
static void pin_to_this_cpu(struct gen_state *g)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	g->cpu = cpu;
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		g->cpu = -1;
}

static int run_live(struct gen_state *g, const struct xl_gen_class *c, __u32 n)
{
	struct xdp_md ctx_in = {
		.data_end = c->len,
		.ingress_ifindex = g->ifindex,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = c->frame,
		.data_size_in = c->len,
		.ctx_in = &ctx_in,
		.ctx_size_in = sizeof(ctx_in),
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		.batch_size = n < KERNEL_MAX_BATCH ? n : KERNEL_MAX_BATCH,
	);
	int fd = bpf_program__fd(g->bpf->progs.xdpleaf_gen);
	volatile __u32 *next = &g->bpf->bss->gen_next;

	g->bpf->bss->gen_icrc_off = c->icrc_off;
	memcpy(g->bpf->bss->gen_frame, c->frame, c->len);
	*next = 0;
	/* A signal interrupts the run between two kernel batches (EINTR);
	 * gen_next says how far it got, and the rest is sent again. */
	while (*next < n) {
		__u32 done = *next;
		int err;

		opts.repeat = n - done;
		err = bpf_prog_test_run_opts(fd, &opts);
		if (err && errno != EINTR) {
			fprintf(stderr, PFX "BPF_PROG_RUN (live frames): %s\n",
				strerror(errno));
			return -1;
		}
		if (!err && *next == done) {
			fprintf(stderr, PFX "the gen program sent nothing (frame "
				"layout rejected)\n");
			return -1;
		}
	}
	return 0;
}

static int run_afpacket(struct gen_state *g, const struct xl_gen_class *c, __u32 n)
{
	struct mmsghdr msgs[64];
	struct iovec iov[64];
	__u32 i, sent = 0;

	for (i = 0; i < n; i++) {
		__u8 *f = g->pkt_bufs + (size_t)i * XL_GEN_MAX_FRAME;

		memcpy(f, c->frame, c->len);
		xl_gen_desc_apply(c, &g->descs[i], f);
	}
	while (sent < n) {
		__u32 k = n - sent < 64 ? n - sent : 64;
		int r;

		for (i = 0; i < k; i++) {
			iov[i].iov_base = g->pkt_bufs + (size_t)(sent + i) * XL_GEN_MAX_FRAME;
			iov[i].iov_len = c->len;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(g->pkt_fd, msgs, k, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				sched_yield();
				continue;
			}
			fprintf(stderr, PFX "sendmmsg: %s\n", strerror(errno));
			return -1;
		}
		sent += (__u32)r;
	}
	return 0;
}

/* --rate-map: one BPF_PROG_RUN of xdpleaf_gen_rp. It accounts the batch
 * just sent (the QPs in rp_touched, batch_pkts frames of len bytes each)
 * and, with sweep > 0, also re-reads the rates of the next `sweep` QPs in
 * turn; every QP passed gets its published rate back. Per batch and not
 * per packet: the live-frames program stays a few stores, the RP's lock
 * and arithmetic run once per QP and batch, and the byte counter still
 * counts every packet (bpf/rp.h); the packets' events all carry the time
 * of the call, after the batch left. */
static int rp_account(struct gen_state *g, __u32 len, __u32 sweep)
{
	static const __u8 dummy[64];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = dummy,
		.data_size_in = sizeof(dummy),
		.repeat = 1,
	);
	struct gen__bss *b = g->rp->bss;
	__u32 n = 0, i;

	for (i = 0; i < g->rp_ntouched && n < XL_GEN_MAX_BATCH; i++) {
		struct gen_qp *q = &g->qp[g->rp_touched[i]];

		b->gen_rp_qpn[n] = q->id.qpn;
		b->gen_rp_pkts[n] = q->batch_pkts;
		g->rp_idx[n++] = g->rp_touched[i];
		q->batch_pkts = 0;
	}
	g->rp_ntouched = 0;
	if (sweep) {
		if (sweep > g->o.qps)
			sweep = g->o.qps;
		for (i = 0; i < sweep && n < XL_GEN_MAX_BATCH; i++) {
			b->gen_rp_qpn[n] = g->qp[g->rp_sweep].id.qpn;
			b->gen_rp_pkts[n] = 0;
			g->rp_idx[n++] = g->rp_sweep;
			g->rp_sweep = (g->rp_sweep + 1) % g->o.qps;
		}
		g->rp_refresh_at = now_ns() + RP_REFRESH_NS;
	}
	if (!n)
		return 0;
	b->gen_rp_len = len;
	b->gen_rp_n = n;
	if (bpf_prog_test_run_opts(bpf_program__fd(g->rp->progs.xdpleaf_gen_rp), &opts)) {
		fprintf(stderr, PFX "--rate-map: running the RP accounting: %s\n",
			strerror(errno));
		return -1;
	}
	if (opts.retval != XDP_DROP) {
		fprintf(stderr, PFX "--rate-map: the RP accounting failed (%u)\n",
			opts.retval);
		return -1;
	}
	for (i = 0; i < n; i++)
		g->qp[g->rp_idx[i]].rp_rate = b->gen_rp_rate[i];
	return 0;
}

/* The device's peer dropped frames since gen last looked (its receive
 * ring was full): the peer's NAPI is not keeping in step with gen, most
 * likely because it is queued on another CPU whose ksoftirqd shares that
 * CPU with other work (see pin_to_this_cpu), and as long as the ring
 * never empties it stays there. Step back for BACKOFF_NS so it drains and
 * completes; gen's next batch then schedules it on gen's CPU again. The
 * frames already dropped stay counted (dev_tx_dropped). Looked at every
 * DROP_CHECK_NS at most: one netlink request. */
static void back_off_on_drops(struct gen_state *g)
{
	struct xl_link_info l;
	double now = now_ns();
	struct timespec ts = { 0, BACKOFF_NS };

	if (now < g->drop_check_at || xl_link_get(g->ifindex, &l))
		return;
	g->drop_check_at = now + DROP_CHECK_NS;
	if (l.tx_dropped + l.tx_errors > g->drops_seen) {
		g->drops_seen = l.tx_dropped + l.tx_errors;
		g->backoffs++;
		nanosleep(&ts, NULL);
	}
}

static int flush(struct gen_state *g)
{
	int err;

	if (!g->n)
		return 0;
	err = g->o.method == M_LIVE ? run_live(g, &g->cls[g->cur], g->n)
				    : run_afpacket(g, &g->cls[g->cur], g->n);
	g->runs++;
	g->n = 0;
	if (!err && g->o.method == M_LIVE)
		back_off_on_drops(g);
	if (!err && g->rp)
		err = rp_account(g, g->cls[g->cur].len, 0);
	return err;
}

/* The kind of packet number pkt of a message. */
static const struct kind *kind_of(const struct gen_state *g, __u32 pkt)
{
	if (g->npkts == 1)
		return &g->k_only;
	if (pkt == 0)
		return &g->k_first;
	return pkt == g->npkts - 1 ? &g->k_last : &g->k_mid;
}

/* Queue the next packet of QP qi into the batch (flushing first if its
 * layout differs). */
static int emit(struct gen_state *g, __u32 qi, double now)
{
	struct gen_qp *q = &g->qp[qi];
	const struct kind *k = kind_of(g, q->pkt);
	const struct xl_gen_class *c = &g->cls[k->cls];
	bool fresh = q->rc.nxt == q->rc.max; /* not sent before */
	__u32 psn = q->rc.nxt;
	__u8 flags;
	__u64 rate;

	if (g->n && (k->cls != g->cur || g->n >= g->o.batch))
		if (flush(g))
			return -1;
	g->cur = k->cls;
	if (g->rp && q->batch_pkts++ == 0)
		g->rp_touched[g->rp_ntouched++] = qi;
	flags = xl_rc_send(&q->rc, q->pkt == g->npkts - 1, now);
	if (!g->o.reliable) {
		/* nothing asks or answers: what is sent counts as acknowledged */
		flags = 0;
		q->rc.una = q->rc.max;
	}
	xl_gen_desc_fill(c, qi, &q->id, k->opcode, psn, flags, &g->descs[g->n++]);
	q->packets++;
	q->bytes += c->len;
	g->packets++;
	g->bytes += c->len;
	rate = qp_rate_bps(g, qi);
	if (rate)
		q->t_next += (double)c->len * 8e9 / (double)rate;
	if (++q->pkt == g->npkts)
		q->pkt = 0;
	if (fresh)
		q->max_pkt = q->pkt;
	if (fresh && q->pkt == 0) {
		q->messages++;
		if (g->o.pattern == P_NCCL)
			q->t_on = (rate ? (q->t_next > now ? q->t_next : now) : now) +
				  draw_gap(&g->o, &q->rng);
		if (g->o.pattern == P_STEPS)
			q->t_on = HUGE_VAL; /* until the next step is released */
	}
	return 0;
}

/* --pattern steps: whether every QP has sent the current step's message
 * (also before the first step) and, with --reliable, has all of it
 * acknowledged (without, everything sent counts as acknowledged). */
static bool step_done(const struct gen_state *g)
{
	__u32 i;

	for (i = 0; i < g->o.qps; i++)
		if (g->qp[i].t_on != HUGE_VAL || !xl_rc_idle(&g->qp[i].rc))
			return false;
	return true;
}

static __u64 total_resent(const struct gen_state *g)
{
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < g->o.qps; i++)
		n += g->qp[i].rc.resent;
	return n;
}

/* --pattern steps: report the step just sent (its last batch has been
 * transmitted) as one line of JSON on stdout, then wait for the line on
 * stdin that releases the next. The caller (a barrier across senders, as
 * a collective's steps have) decides when that is. Returns 1 at EOF or
 * on a signal: the run ends. */
static int next_step(struct gen_state *g)
{
	char line[256];
	size_t len;
	__u32 i;

	if (g->steps) {
		printf("{\"step\": %llu, \"start_ns\": %.0f, \"end_ns\": %.0f, "
		       "\"packets\": %llu, \"bytes\": %llu, \"resent\": %llu}\n",
		       (unsigned long long)g->steps, g->step_start, now_ns(),
		       (unsigned long long)(g->packets - g->step_packets0),
		       (unsigned long long)(g->bytes - g->step_bytes0),
		       (unsigned long long)(total_resent(g) - g->step_resent0));
		fflush(stdout);
	}
	do { /* one line, however long */
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		len = strlen(line);
	} while (len && line[len - 1] != '\n' && !feof(stdin));
	g->steps++;
	g->step_start = now_ns();
	g->step_packets0 = g->packets;
	g->step_bytes0 = g->bytes;
	g->step_resent0 = total_resent(g);
	for (i = 0; i < g->o.qps; i++)
		g->qp[i].t_on = g->step_start;
	return 0;
}

/* The QP's next packet starts a new message (not one sent before, which
 * goes out again whenever pacing allows). */
static bool starts_message(const struct gen_state *g, const struct gen_qp *q)
{
	return g->o.pattern != P_ELEPHANT && q->pkt == 0 && q->rc.nxt == q->rc.max;
}

/* Earliest time QP qi may send, or now if it may send now. */
static double ready_at(const struct gen_state *g, __u32 qi, double now)
{
	const struct gen_qp *q = &g->qp[qi];
	double t = now;

	if (starts_message(g, q) && q->t_on > t)
		t = q->t_on;
	if (qp_rate_bps(g, qi) && q->t_next > t)
		t = q->t_next;
	return t;
}

/* ---- --reliable: ACKs and NAKs ------------------------------------------ */

/* The socket ACKs and NAKs arrive on: every IP packet of --dst's family
 * that comes in on --dev (the requester's own are left out), read without
 * blocking. */
static int setup_acks(struct gen_state *g)
{
	int proto = htons(g->fs.ipv6 ? ETH_P_IPV6 : ETH_P_IP), one = 1;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = (__u16)proto,
		.sll_ifindex = (int)g->ifindex,
	};

	g->ack_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, proto);
	if (g->ack_fd < 0 || bind(g->ack_fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, PFX "--reliable: a socket for ACKs on %s: %s\n", g->o.dev,
			strerror(errno));
		return -1;
	}
	setsockopt(g->ack_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return 0;
}

/* After r.nxt moved back (or forward over what was acknowledged): the
 * position of the new r.nxt in its message, counted back from r.max's. */
static void follow_psn(const struct gen_state *g, struct gen_qp *q)
{
	__u32 back = (__u32)xl_psn_diff(q->rc.max, q->rc.nxt) % g->npkts;

	q->pkt = (q->max_pkt + g->npkts - back) % g->npkts;
}

/* One reply: ours if it comes from --dst to our address for one of our
 * QPs, and its ICRC verifies (a NIC drops it otherwise). */
static void take_reply(struct gen_state *g, const __u8 *l3, size_t len)
{
	struct xl_rc_reply_in in;
	size_t alen = g->fs.ipv6 ? 16 : 4;
	struct gen_qp *q;
	int moved;

	if (xl_rc_parse_reply(l3, len, g->fs.ipv6 ? 6 : 4, &in))
		return; /* not an ACK: not counted, a host receives all sorts */
	if (memcmp(in.saddr, g->fs.daddr, alen) || memcmp(in.daddr, g->fs.saddr, alen) ||
	    in.qp < g->o.qp_base || in.qp - g->o.qp_base >= g->o.qps) {
		g->replies_other++;
		return;
	}
	if (!in.icrc_ok) {
		g->replies_bad_icrc++;
		return;
	}
	q = &g->qp[in.qp - g->o.qp_base];
	if (XL_AETH_KIND(in.syndrome) == 0)
		moved = xl_rc_on_ack(&q->rc, in.psn, now_ns());
	else if (in.syndrome == XL_AETH_NAK_PSN_SEQ)
		moved = xl_rc_on_nak(&q->rc, in.psn);
	else
		moved = (g->replies_other++, 0);
	if (moved)
		follow_psn(g, q);
}

/* Everything the socket holds now. */
static void read_replies(struct gen_state *g)
{
	__u8 buf[2048];
	ssize_t n;

	while ((n = recv(g->ack_fd, buf, sizeof(buf), 0)) > 0)
		take_reply(g, buf, (size_t)n);
}

/* QPs whose ACK is overdue go back to their oldest PSN not acknowledged;
 * the earliest deadline still ahead goes to *first (0: none). -1 when a
 * QP that never had a reply has timed out XL_RC_RETRY_MAX times in a row:
 * nobody answers, and resending would go on for ever. */
static int check_timeouts(struct gen_state *g, double now, double *first)
{
	double timeout = (double)g->o.ack_timeout_ns, d;
	char dst[INET6_ADDRSTRLEN];
	__u32 i;

	*first = 0;
	for (i = 0; i < g->o.qps; i++) {
		struct gen_qp *q = &g->qp[i];

		if (xl_rc_check_timeout(&q->rc, now, timeout))
			follow_psn(g, q);
		if (q->rc.timeouts_in_row >= XL_RC_RETRY_MAX && !q->rc.acks && !q->rc.naks) {
			fprintf(stderr, PFX "--reliable: no ACK or NAK from %s for QP 0x%06x "
				"after %u timeouts of %.3g ms: is the receiver answering "
				"(xdpleaf sink --respond)?\n",
				ip_str(g->family, g->fs.daddr, dst, sizeof(dst)), q->id.qpn,
				q->rc.timeouts_in_row, timeout / 1e6);
			return -1;
		}
		d = xl_rc_deadline(&q->rc, timeout);
		if (d && (!*first || d < *first))
			*first = d;
	}
	return 0;
}

/* --reliable, nothing to send: until wake (ns; HUGE_VAL: no time set) or
 * a reply arrives, whichever is first. */
static void wait_reply(struct gen_state *g, double now, double wake)
{
	struct pollfd p = { .fd = g->ack_fd, .events = POLLIN };
	struct timespec ts, *tp = NULL;
	double w = wake - now;

	if (w < 0)
		w = 0;
	if (wake != HUGE_VAL) {
		ts.tv_sec = (time_t)(w / 1e9);
		ts.tv_nsec = (long)(w - (double)ts.tv_sec * 1e9);
		tp = &ts;
	}
	ppoll(&p, 1, tp, NULL);
}

static int send_loop(struct gen_state *g)
{
	const struct gen_opts *o = &g->o;
	double start = now_ns(), end = o->duration_ns ? start + (double)o->duration_ns : 0;
	__u32 rr = 0, i;

	for (i = 0; i < o->qps; i++) {
		g->qp[i].t_next = start;
		g->qp[i].t_on = o->pattern == P_STEPS ? HUGE_VAL : start;
	}
	/* --rate-map: every QP's rate before the first packet */
	if (g->rp && rp_account(g, 0, XL_GEN_MAX_BATCH))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &g->t0);
	while (!stop_flag) {
		double now = now_ns(), wake = 0, ack_wake = 0;
		__u32 idle, emitted;
		bool any = false;

		if (end && now >= end)
			break;
		if (g->rp && now >= g->rp_refresh_at && rp_account(g, 0, RP_SWEEP))
			return -1;
		if (o->count && g->packets >= o->count)
			break;
		if (o->reliable) {
			read_replies(g);
			if (check_timeouts(g, now, &ack_wake))
				return -1;
		}
		if (o->pattern == P_STEPS && step_done(g)) {
			if (next_step(g))
				break;
			continue;
		}
		/* Strict round robin over the ready QPs, continuing where the
		 * last batch stopped, until a batch is built or none is ready. */
		for (idle = 0, emitted = 0; idle < o->qps && emitted < o->batch &&
		     (!o->count || g->packets < o->count);) {
			__u32 qi = rr;
			struct gen_qp *q = &g->qp[qi];

			rr = (rr + 1) % o->qps;
			if (ready_at(g, qi, now) > now) {
				idle++;
				continue;
			}
			if (starts_message(g, q) && q->t_next < q->t_on)
				q->t_next = q->t_on; /* message starts now */
			if (q->t_next < now - PACING_SLACK_NS)
				q->t_next = now - PACING_SLACK_NS;
			if (emit(g, qi, now))
				return -1;
			idle = 0;
			emitted++;
			any = true;
		}
		if (flush(g))
			return -1;
		if (any)
			continue;
		/* Nobody ready: sleep until the first QP is. */
		for (i = 0; i < o->qps; i++) {
			double t = ready_at(g, i, now);

			if (!wake || t < wake)
				wake = t;
		}
		if (end && wake > end)
			wake = end;
		if (g->rp && wake > now + RP_REFRESH_NS)
			wake = now + RP_REFRESH_NS; /* rates may rise meanwhile */
		if (ack_wake && ack_wake < wake)
			wake = ack_wake;
		if (o->reliable) {
			wait_reply(g, now, wake);
			continue;
		}
		if (wake - now > 20000) {
			struct timespec ts;
			double w = wake - 10000;

			ts.tv_sec = (time_t)(w / 1e9);
			ts.tv_nsec = (long)(w - (double)ts.tv_sec * 1e9);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	return flush(g);
}

/* ---- report ------------------------------------------------------------ */

static const char *opcode_name(const struct gen_state *g)
{
	if (g->npkts == 1)
		return g->o.write ? "RDMA_WRITE_ONLY" : "SEND_ONLY";
	return g->o.write ? "RDMA_WRITE_FIRST/MIDDLE/LAST" : "SEND_FIRST/MIDDLE/LAST";
}

/* --reliable: the QPs' go-back-N counters added up. */
static struct xl_rc_req rc_totals(const struct gen_state *g)
{
	struct xl_rc_req t = { 0 };
	__u32 i;

	for (i = 0; i < g->o.qps; i++) {
		t.resent += g->qp[i].rc.resent;
		t.acks += g->qp[i].rc.acks;
		t.naks += g->qp[i].rc.naks;
		t.timeouts += g->qp[i].rc.timeouts;
	}
	return t;
}

/* gen warns when it reaches less than (1 - SHORTFALL) of what it was
 * asked for. */
#define SHORTFALL 0.05

/* The total bit/s gen was asked for, when it is fixed: back-to-back
 * messages (elephant) with --rate and no --rate-map. Without --rate gen
 * sends as fast as it can; with nccl's gaps or DCQCN's rates the total
 * depends on the run. 0: nothing fixed to compare with. */
static double asked_bps(const struct gen_state *g)
{
	if (!g->o.rate_bps || g->o.pattern != P_ELEPHANT || g->rp)
		return 0;
	return (double)g->o.rate_bps * g->o.qps;
}

static void report(struct gen_state *g, double secs, const struct xl_link_info *l0,
		   const struct xl_link_info *l1)
{
	const struct gen_opts *o = &g->o;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], mac[18];
	__u64 tx_drop = l1->tx_dropped - l0->tx_dropped +
			l1->tx_errors - l0->tx_errors;
	double pps = secs > 0 ? (double)g->packets / secs : 0;
	double bps = secs > 0 ? (double)g->bytes * 8 / secs : 0, asked;
	__u32 i;

	asked = asked_bps(g);
	if (asked && bps < asked * (1 - SHORTFALL))
		fprintf(stderr, PFX "warning: reached %.4g bit/s, %.1f %% short of the "
			"%.4g bit/s asked for (%u QPs x --rate): this machine or %s "
			"could not keep up\n", bps, 100 * (1 - bps / asked), asked,
			o->qps, o->dev);
	if (tx_drop)
		fprintf(stderr, PFX "warning: %s dropped %llu of the frames on "
			"transmit (its peer's receive ring was full)\n", o->dev,
			(unsigned long long)tx_drop);
	ip_str(g->family, g->fs.saddr, src, sizeof(src));
	ip_str(g->family, g->fs.daddr, dst, sizeof(dst));
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 g->fs.dst_mac[0], g->fs.dst_mac[1], g->fs.dst_mac[2],
		 g->fs.dst_mac[3], g->fs.dst_mac[4], g->fs.dst_mac[5]);
	if (o->json) {
		json_object *j = json_object_new_object(), *qs = json_object_new_array();

		json_object_object_add(j, "dev", json_object_new_string(o->dev));
		json_object_object_add(j, "src", json_object_new_string(src));
		json_object_object_add(j, "dst", json_object_new_string(dst));
		json_object_object_add(j, "dst_mac", json_object_new_string(mac));
		json_object_object_add(j, "method", json_object_new_string(
			o->method == M_LIVE ? "live-frames" : "af_packet"));
		json_object_object_add(j, "opcode", json_object_new_string(opcode_name(g)));
		json_object_object_add(j, "payload", json_object_new_int64(o->size));
		json_object_object_add(j, "message", json_object_new_int64(o->message));
		if (o->pattern == P_STEPS)
			json_object_object_add(j, "steps", json_object_new_int64((int64_t)g->steps));
		json_object_object_add(j, "seconds", json_object_new_double(secs));
		json_object_object_add(j, "packets", json_object_new_int64((int64_t)g->packets));
		json_object_object_add(j, "bytes", json_object_new_int64((int64_t)g->bytes));
		json_object_object_add(j, "pps", json_object_new_double(pps));
		json_object_object_add(j, "bps", json_object_new_double(bps));
		json_object_object_add(j, "runs", json_object_new_int64((int64_t)g->runs));
		json_object_object_add(j, "cpu", json_object_new_int(g->cpu));
		json_object_object_add(j, "backoffs", json_object_new_int64((int64_t)g->backoffs));
		json_object_object_add(j, "dev_tx_dropped", json_object_new_int64((int64_t)tx_drop));
		if (o->reliable) {
			struct xl_rc_req t = rc_totals(g);

			json_object_object_add(j, "resent", json_object_new_int64((int64_t)t.resent));
			json_object_object_add(j, "acks", json_object_new_int64((int64_t)t.acks));
			json_object_object_add(j, "naks", json_object_new_int64((int64_t)t.naks));
			json_object_object_add(j, "timeouts", json_object_new_int64((int64_t)t.timeouts));
			json_object_object_add(j, "replies_bad_icrc",
					       json_object_new_int64((int64_t)g->replies_bad_icrc));
			json_object_object_add(j, "replies_other",
					       json_object_new_int64((int64_t)g->replies_other));
		}
		if (asked) {
			json_object_object_add(j, "asked_bps", json_object_new_double(asked));
			json_object_object_add(j, "rate_shortfall", json_object_new_boolean(
				bps < asked * (1 - SHORTFALL)));
		}
		for (i = 0; i < o->qps; i++) {
			const struct gen_qp *q = &g->qp[i];
			json_object *e = json_object_new_object();

			json_object_object_add(e, "qp", json_object_new_int64(q->id.qpn));
			json_object_object_add(e, "sport", json_object_new_int64(q->id.sport));
			json_object_object_add(e, "packets", json_object_new_int64((int64_t)q->packets));
			json_object_object_add(e, "bytes", json_object_new_int64((int64_t)q->bytes));
			json_object_object_add(e, "messages", json_object_new_int64((int64_t)q->messages));
			json_object_object_add(e, "first_psn", json_object_new_int64(q->first_psn));
			json_object_object_add(e, "next_psn", json_object_new_int64(q->rc.max));
			if (o->reliable) {
				json_object_object_add(e, "resent", json_object_new_int64(
					(int64_t)q->rc.resent));
				json_object_object_add(e, "acks", json_object_new_int64(
					(int64_t)q->rc.acks));
				json_object_object_add(e, "naks", json_object_new_int64(
					(int64_t)q->rc.naks));
				json_object_object_add(e, "timeouts", json_object_new_int64(
					(int64_t)q->rc.timeouts));
				json_object_object_add(e, "unacked", json_object_new_int64(
					xl_psn_diff(q->rc.max, q->rc.una)));
			}
			json_object_object_add(e, "pps", json_object_new_double(
				secs > 0 ? (double)q->packets / secs : 0));
			json_object_object_add(e, "bps", json_object_new_double(
				secs > 0 ? (double)q->bytes * 8 / secs : 0));
			if (g->rp)
				json_object_object_add(e, "rate_map_bps",
					json_object_new_int64((int64_t)q->rp_rate));
			json_object_array_add(qs, e);
		}
		json_object_object_add(j, "qps", qs);
		xl_print_json("gen", j);
		return;
	}
	printf("xdpleaf gen: %s %s -> %s (dst MAC %s), %u QPs, %s, %u B payload, %s\n",
	       o->dev, src, dst, mac, o->qps, opcode_name(g), o->size,
	       o->method == M_LIVE ? "live frames" : "AF_PACKET");
	printf("%-10s %6s %12s %14s %12s %14s %10s %10s\n", "qp", "sport", "packets",
	       "bytes", "pps", "bit/s", "first_psn", "next_psn");
	for (i = 0; i < o->qps; i++) {
		const struct gen_qp *q = &g->qp[i];

		printf("0x%06x   %6u %12llu %14llu %12.0f %14.0f %10u %10u\n", q->id.qpn,
		       q->id.sport, (unsigned long long)q->packets,
		       (unsigned long long)q->bytes,
		       secs > 0 ? (double)q->packets / secs : 0,
		       secs > 0 ? (double)q->bytes * 8 / secs : 0, q->first_psn, q->rc.max);
	}
	printf("%-10s %6s %12llu %14llu %12.0f %14.0f\n", "total", "",
	       (unsigned long long)g->packets, (unsigned long long)g->bytes, pps, bps);
	printf("%.3f s, %llu %s", secs, (unsigned long long)g->runs,
	       o->method == M_LIVE ? "runs of BPF_PROG_RUN" : "batches of sendmmsg");
	if (tx_drop)
		printf(", %s dropped %llu on transmit", o->dev, (unsigned long long)tx_drop);
	printf("\n");
	if (o->reliable) {
		struct xl_rc_req t = rc_totals(g);

		printf("go-back-N: %llu packets sent again, after %llu NAKs and %llu "
		       "timeouts; %llu ACKs taken; replies with a bad ICRC %llu, not ours %llu\n",
		       (unsigned long long)t.resent, (unsigned long long)t.naks,
		       (unsigned long long)t.timeouts, (unsigned long long)t.acks,
		       (unsigned long long)g->replies_bad_icrc,
		       (unsigned long long)g->replies_other);
	}
}

int xl_gen_main(int argc, char **argv)
{
	struct gen_state g = { .pkt_fd = -1, .anchor_tap = -1, .anchor_link = -1,
			       .ack_fd = -1 };
	struct xl_link_info l0, l1;
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec t1;
	double secs;
	__u64 seed;
	int ret = 1;
	__u32 i;

	if (parse_opts(argc, argv, &g.o))
		return 2;
	if (!xl_traffic_privileged()) {
		fprintf(stderr, PFX "needs root, or CAP_BPF and CAP_NET_ADMIN "
			"(try: sudo xdpleaf gen ...)\n");
		return 1;
	}
	if (resolve(&g, &l0))
		return 1;
	g.drops_seen = l0.tx_dropped + l0.tx_errors;
	g.fs.tos = (__u8)(g.o.dscp << 2 | g.o.ecn);
	g.fs.ttl = 64;
	g.fs.reth_va = 0x00007f0000000000ULL;
	g.fs.reth_rkey = 0x00001234;
	if (setup_classes(&g, l0.mtu))
		goto out;
	if (g.o.method == M_LIVE ? setup_bpf(&g) : setup_afpacket(&g))
		goto out;
	if (g.o.rate_map && g.o.method != M_LIVE && setup_rp_only(&g))
		goto out;
	if (g.o.reliable && setup_acks(&g))
		goto out;
	g.qp = calloc(g.o.qps, sizeof(*g.qp));
	if (!g.qp)
		goto out;
	if (g.rp) {
		g.rp_touched = calloc(XL_GEN_MAX_BATCH, sizeof(*g.rp_touched));
		g.rp_idx = calloc(XL_GEN_MAX_BATCH, sizeof(*g.rp_idx));
		if (!g.rp_touched || !g.rp_idx)
			goto out;
	}
	seed = g.o.seed;
	for (i = 0; i < g.o.qps; i++) {
		struct gen_qp *q = &g.qp[i];
		__u64 s = seed ^ ((__u64)(i + 1) * 0xD1B54A32D192ED03ULL);

		q->id.qpn = g.o.qp_base + i;
		q->id.sport = (__u16)(g.o.sport_base + i);
		q->rng = splitmix64(&s);
		q->first_psn = g.o.seed_set ? (__u32)splitmix64(&q->rng) & XL_PSN_MASK : 0;
		xl_rc_init(&q->rc, q->first_psn);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: pacing sleeps */
	pin_to_this_cpu(&g);
	if (send_loop(&g))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - g.t0.tv_sec) + (double)(t1.tv_nsec - g.t0.tv_nsec) / 1e9;
	if (xl_link_get(g.ifindex, &l1))
		l1 = l0;
	report(&g, secs, &l0, &l1);
	ret = 0;
out:
	for (i = 0; i < N_CLASSES; i++)
		xl_gen_class_free(&g.cls[i]);
	if (g.anchor_link >= 0)
		close(g.anchor_link);
	if (g.anchor_tap >= 0)
		close(g.anchor_tap);
	if (g.rp && g.rp != g.bpf)
		gen__destroy(g.rp);
	if (g.bpf)
		gen__destroy(g.bpf);
	else
		free(g.descs);
	free(g.rp_touched);
	free(g.rp_idx);
	if (g.pkt_fd >= 0)
		close(g.pkt_fd);
	if (g.ack_fd >= 0)
		close(g.ack_fd);
	free(g.pkt_bufs);
	free(g.qp);
	return ret;
}
