/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf gen`'s parts, one file per job (docs/traffic-tools.md):
 *
 *   gen.c           gen_run: the order of the jobs below
 *   gen_options.c   the option table and checks -> struct gen_opts; xl_gen_cmd
 *   gen_setup.c     address, route and neighbour; the frame classes; the
 *                   BPF object (and its anchor) or the AF_PACKET socket;
 *                   the QPs; teardown
 *   gen_send.c      the send loop: pacing, batches, BPF_PROG_RUN live
 *                   frames or sendmmsg, --rate-map's RP accounting,
 *                   --pattern steps
 *   gen_reliable.c  --reliable: ACKs and NAKs in, go-back-N's timeouts
 *   gen_report.c    the summary, as a table or --json
 *
 * User space decides what to send and when: per QP a PSN sequence,
 * messages cut into FIRST/MIDDLE/LAST packets, a token bucket per QP
 * (--rate) and, for --pattern nccl, idle gaps between messages (for
 * --pattern steps, a message per QP per line read on stdin). It writes
 * one descriptor per packet (UDP source port and checksum, BTH words,
 * ICRC; user/traffic/gen_pkt.c) into the gen program's .bss and transmits
 * the batch with one BPF_PROG_RUN in live-frames mode: the kernel runs
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
#ifndef XL_TRAFFIC_GEN_H
#define XL_TRAFFIC_GEN_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>
#include "roce.h"
#include "traffic/gen_pkt.h"
#include "traffic/rc.h"
#include "base/cli.h"

#define MAX_QPS 4096
#define DEFAULT_BATCH 1024
/* --reliable: --ack-timeout's default. Several times the largest queueing
 * delay of the lab's paths (a 2 ms TBF queue each way and the responder's
 * user-space turn), so that a slow ACK is not taken for a lost one. */
#define ACK_TIMEOUT_DEFAULT_NS 10000000ULL

enum pattern { P_ELEPHANT, P_NCCL, P_STEPS };
enum gap_kind { GAP_FIXED, GAP_EXP, GAP_UNIFORM };
enum method { M_LIVE, M_AFPACKET };

/* Frame layouts (gen_pkt.h "class"). */
enum { C_ONLY, C_FIRST, C_FULL, C_LAST, N_CLASSES };

/* The command line, checked (gen_options.c); read-only after. */
struct gen_opts {
	const char *dev, *dst, *src, *gw_mac, *rate_map;
	__u32 qps, qp_base, sport_base;
	__u32 size, message, batch;
	bool message_set, write;
	__u64 rate_bps;
	enum pattern pattern;
	struct gen_gap {
		enum gap_kind kind;
		__u64 t1_ns, t2_ns;
	} gap;
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

/* The class and BTH opcode of one kind of packet (ONLY, FIRST, MIDDLE,
 * LAST). */
struct gen_kind {
	int cls;
	__u8 opcode;
};

/* What the run's frames look like and where they go (gen_setup.c);
 * fixed once the run starts. */
struct gen_frames {
	struct xl_gen_flowspec fs;
	__u32 ifindex;
	int family;
	struct xl_gen_class cls[N_CLASSES];
	bool cls_used[N_CLASSES];
	__u32 npkts;          /* packets per message */
	struct gen_kind k_only, k_first, k_mid, k_last;
};

struct gen_qp {
	struct xl_gen_qpid id;
	struct xl_rc_req rc;  /* PSNs: next to send (rc.nxt), acknowledged */
	__u32 first_psn;
	__u32 pkt;            /* index of the next packet (rc.nxt) in its message */
	__u32 max_pkt;        /* the same for rc.max, the first PSN never sent */
	double t_next;        /* pacing: earliest send time of the next packet */
	double t_on;          /* nccl: when the next message may start */
	__u64 rng;            /* nccl's gap draws (xl_splitmix64) */
	__u64 packets, bytes, messages;
	__u32 batch_pkts;     /* --rate-map: packets in the current batch */
	__u64 rp_rate;        /* --rate-map: published rate, bit/s; 0 none */
};

/* How frames leave: the BPF object (live frames) or an AF_PACKET socket,
 * and the batch being built. */
struct gen_tx {
	struct gen *bpf;          /* skeleton of bpf/gen.bpf.c */
	int anchor_tap, anchor_link; /* see anchor_program() in gen_setup.c */
	/* current batch: n descriptors of class cur */
	int cur;
	__u32 n;
	struct xl_gen_desc *descs;   /* the program's .bss (or afpacket's) */
	/* af_packet baseline */
	int pkt_fd;
	__u8 *pkt_bufs;
	int cpu;              /* the CPU gen sends from (gen_pin_to_this_cpu), -1 */
	/* back_off_on_drops: the device's drop count last seen, when to look
	 * again, how often gen stepped back */
	__u64 drops_seen, backoffs;
	double drop_check_at;
};

/* --rate-map: the skeleton whose xdpleaf_gen_rp runs (tx.bpf, or one of
 * its own with --afpacket; NULL without --rate-map), QPs of the current
 * batch, the next QP whose rate is re-read. */
struct gen_rp {
	struct gen *skel;
	__u32 *touched, ntouched, sweep;
	__u32 *idx;
	double refresh_at;
};

/* --pattern steps: steps released so far, and the current one's start and
 * totals at its start. */
struct gen_steps {
	__u64 n;
	double start;
	__u64 packets0, bytes0, resent0;
};

/* --reliable: the socket ACKs and NAKs arrive on, and replies that were
 * not for us or did not verify. */
struct gen_acks {
	int fd;
	__u64 bad_icrc, other;
};

struct gen_state {
	struct gen_opts o;
	struct gen_frames f;
	struct gen_qp *qp;
	struct gen_tx tx;
	struct gen_rp rp;
	struct gen_steps step;
	struct gen_acks acks;
	/* totals, from t0_ns (CLOCK_MONOTONIC) on */
	__u64 packets, bytes, runs;
	__u64 t0_ns;
};

struct xl_link_info;

/* Set by SIGINT and SIGTERM: the send loop ends after its batch. */
extern volatile sig_atomic_t gen_stop;

/* gen.c: gen's run (xl_cmd_fn) over the options gen_options.c checked. */
int gen_run(const struct xl_cmd_ctx *ctx, void *opts);

/* gen_setup.c; each returns 0, or -1 after saying why. */
/* --dst's family, --dev's index, MAC and MTU (into li), the addresses
 * and the next hop's MAC. */
int gen_resolve(struct gen_frames *f, const struct gen_opts *o, struct xl_link_info *li);
/* The classes a run needs and the class and opcode of each packet kind. */
int gen_setup_classes(struct gen_frames *f, const struct gen_opts *o, __u32 mtu);
/* Live frames: the BPF object, anchored; with --rate-map also the RP's. */
int gen_setup_bpf(struct gen_state *g);
/* --afpacket: the socket and buffers; with --rate-map an object for the RP. */
int gen_setup_afpacket(struct gen_state *g);
/* The QPs, with their first PSNs and random streams. */
int gen_setup_qps(struct gen_state *g);
/* Everything the setup made, whatever got made. */
void gen_teardown(struct gen_state *g);

/* gen_send.c */
/* Pin to the CPU gen runs on (why: see there); returns it, or -1. */
int gen_pin_to_this_cpu(void);
/* Until --duration, --count, the end of stdin (steps) or a signal. */
int gen_send_loop(struct gen_state *g);

/* gen_reliable.c */
int gen_setup_acks(struct gen_state *g);
void gen_read_replies(struct gen_state *g);
int gen_check_timeouts(struct gen_state *g, double now, double *first);
void gen_wait_reply(const struct gen_acks *a, double now, double wake);
/* The QPs' go-back-N counters added up. */
struct xl_rc_req gen_rc_totals(const struct gen_state *g);

/* gen_report.c: the summary of a run of secs seconds; l0, l1: --dev's
 * counters before and after. */
void gen_report(const struct gen_state *g, double secs, const struct xl_link_info *l0,
		const struct xl_link_info *l1);

#endif
