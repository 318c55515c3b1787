// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`'s send loop (gen.h): which QP sends next and when
 * (round robin, --rate pacing, nccl's gaps, --pattern steps), batches of
 * descriptors, their transmission (BPF_PROG_RUN live frames, or sendmmsg
 * with --afpacket) and, with --rate-map, DCQCN's reaction point fed and
 * read after every batch. gen's own per-packet steps (emit, ready_at,
 * the rate, the gap draw) are static here, so they inline into the loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "roce.h"   /* before the skeleton: struct xl_gen_desc */
#include "gen.skel.h"
#include "base/clock.h"
#include "base/rng.h"
#include "netlink/rtnl.h"
#include "traffic/gen.h"

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

volatile sig_atomic_t gen_stop;

/* ---- randomness ------------------------------------------------------- */

/* uniform in (0, 1] */
static double unit_rand(__u64 *s)
{
	return ((double)(xl_splitmix64(s) >> 11) + 1.0) / 9007199254740992.0;
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
	switch (o->gap.kind) {
	case GAP_EXP:
		return -(double)o->gap.t1_ns * ln_pos(unit_rand(rng));
	case GAP_UNIFORM:
		return (double)o->gap.t1_ns +
		       (double)(o->gap.t2_ns - o->gap.t1_ns) * unit_rand(rng);
	case GAP_FIXED:
	default:
		return (double)o->gap.t1_ns;
	}
}

/* ---- the rate of a QP -------------------------------------------------- */

/* Rate limit of QP qi in bit/s (frame bytes), 0 = unlimited. Called for
 * every packet, so it may change during a run: the static --rate, or with
 * --rate-map the lower of it and the rate DCQCN's reaction point published
 * for the QP (re-read after every batch, see rp_account()). */
static __u64 qp_rate_bps(const struct gen_state *g, __u32 qi)
{
	__u64 r = g->o.rate_bps, dc = g->rp.skel ? g->qp[qi].rp_rate : 0;

	if (dc && (!r || dc < r))
		r = dc;
	return r;
}

/* ---- transmitting ----------------------------------------------------- */

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
int gen_pin_to_this_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return cpu;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return cpu;
}

static int run_live(struct gen_state *g, const struct xl_gen_class *c, __u32 n)
{
	struct xdp_md ctx_in = {
		.data_end = c->len,
		.ingress_ifindex = g->f.ifindex,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = c->frame,
		.data_size_in = c->len,
		.ctx_in = &ctx_in,
		.ctx_size_in = sizeof(ctx_in),
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		.batch_size = n < KERNEL_MAX_BATCH ? n : KERNEL_MAX_BATCH,
	);
	int fd = bpf_program__fd(g->tx.bpf->progs.xdpleaf_gen);
	volatile __u32 *next = &g->tx.bpf->bss->gen_next;

	g->tx.bpf->bss->gen_icrc_off = c->icrc_off;
	memcpy(g->tx.bpf->bss->gen_frame, c->frame, c->len);
	*next = 0;
	/* A signal interrupts the run between two kernel batches (EINTR);
	 * gen_next says how far it got, and the rest is sent again. */
	while (*next < n) {
		__u32 done = *next;
		int err;

		opts.repeat = n - done;
		err = bpf_prog_test_run_opts(fd, &opts);
		if (err && errno != EINTR) {
			xl_err("BPF_PROG_RUN (live frames): %s", strerror(errno));
			return -1;
		}
		if (!err && *next == done) {
			xl_err("the gen program sent nothing (frame layout rejected)");
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
		__u8 *f = g->tx.pkt_bufs + (size_t)i * XL_GEN_MAX_FRAME;

		memcpy(f, c->frame, c->len);
		xl_gen_desc_apply(c, &g->tx.descs[i], f);
	}
	while (sent < n) {
		__u32 k = n - sent < 64 ? n - sent : 64;
		int r;

		for (i = 0; i < k; i++) {
			iov[i].iov_base = g->tx.pkt_bufs + (size_t)(sent + i) * XL_GEN_MAX_FRAME;
			iov[i].iov_len = c->len;
			memset(&msgs[i], 0, sizeof(msgs[i]));
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(g->tx.pkt_fd, msgs, k, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				sched_yield();
				continue;
			}
			xl_err("sendmmsg: %s", strerror(errno));
			return -1;
		}
		sent += (__u32)r;
	}
	return 0;
}

/* --rate-map: one BPF_PROG_RUN of xdpleaf_gen_rp. It accounts the batch
 * just sent (the QPs in rp.touched, batch_pkts frames of len bytes each)
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
	struct gen__bss *b = g->rp.skel->bss;
	__u32 n = 0, i;

	for (i = 0; i < g->rp.ntouched && n < XL_GEN_MAX_BATCH; i++) {
		struct gen_qp *q = &g->qp[g->rp.touched[i]];

		b->gen_rp_qpn[n] = q->id.qpn;
		b->gen_rp_pkts[n] = q->batch_pkts;
		g->rp.idx[n++] = g->rp.touched[i];
		q->batch_pkts = 0;
	}
	g->rp.ntouched = 0;
	if (sweep) {
		if (sweep > g->o.qps)
			sweep = g->o.qps;
		for (i = 0; i < sweep && n < XL_GEN_MAX_BATCH; i++) {
			b->gen_rp_qpn[n] = g->qp[g->rp.sweep].id.qpn;
			b->gen_rp_pkts[n] = 0;
			g->rp.idx[n++] = g->rp.sweep;
			g->rp.sweep = (g->rp.sweep + 1) % g->o.qps;
		}
		g->rp.refresh_at = (double)xl_monotonic_ns() + RP_REFRESH_NS;
	}
	if (!n)
		return 0;
	b->gen_rp_len = len;
	b->gen_rp_n = n;
	if (bpf_prog_test_run_opts(bpf_program__fd(g->rp.skel->progs.xdpleaf_gen_rp), &opts)) {
		xl_err("--rate-map: running the RP accounting: %s", strerror(errno));
		return -1;
	}
	if (opts.retval != XDP_DROP) {
		xl_err("--rate-map: the RP accounting failed (%u)", opts.retval);
		return -1;
	}
	for (i = 0; i < n; i++)
		g->qp[g->rp.idx[i]].rp_rate = b->gen_rp_rate[i];
	return 0;
}

/* The device's peer dropped frames since gen last looked (its receive
 * ring was full): the peer's NAPI is not keeping in step with gen, most
 * likely because it is queued on another CPU whose ksoftirqd shares that
 * CPU with other work (see gen_pin_to_this_cpu), and as long as the ring
 * never empties it stays there. Step back for BACKOFF_NS so it drains and
 * completes; gen's next batch then schedules it on gen's CPU again. The
 * frames already dropped stay counted (dev_tx_dropped). Looked at every
 * DROP_CHECK_NS at most: one netlink request. */
static void back_off_on_drops(struct gen_state *g)
{
	struct xl_link_info l;
	double now = (double)xl_monotonic_ns();
	struct timespec ts = { 0, BACKOFF_NS };

	if (now < g->tx.drop_check_at || xl_link_get(g->f.ifindex, &l))
		return;
	g->tx.drop_check_at = now + DROP_CHECK_NS;
	if (l.tx_dropped + l.tx_errors > g->tx.drops_seen) {
		g->tx.drops_seen = l.tx_dropped + l.tx_errors;
		g->tx.backoffs++;
		nanosleep(&ts, NULL);
	}
}

static int flush(struct gen_state *g)
{
	int err;

	if (!g->tx.n)
		return 0;
	err = g->o.method == M_LIVE ? run_live(g, &g->f.cls[g->tx.cur], g->tx.n)
				    : run_afpacket(g, &g->f.cls[g->tx.cur], g->tx.n);
	g->runs++;
	g->tx.n = 0;
	if (!err && g->o.method == M_LIVE)
		back_off_on_drops(g);
	if (!err && g->rp.skel)
		err = rp_account(g, g->f.cls[g->tx.cur].len, 0);
	return err;
}

/* The kind of packet number pkt of a message. */
static const struct gen_kind *kind_of(const struct gen_state *g, __u32 pkt)
{
	if (g->f.npkts == 1)
		return &g->f.k_only;
	if (pkt == 0)
		return &g->f.k_first;
	return pkt == g->f.npkts - 1 ? &g->f.k_last : &g->f.k_mid;
}

/* Queue the next packet of QP qi into the batch (flushing first if its
 * layout differs). */
static int emit(struct gen_state *g, __u32 qi, double now)
{
	struct gen_qp *q = &g->qp[qi];
	const struct gen_kind *k = kind_of(g, q->pkt);
	const struct xl_gen_class *c = &g->f.cls[k->cls];
	bool fresh = q->rc.nxt == q->rc.max; /* not sent before */
	__u32 psn = q->rc.nxt;
	__u8 flags;
	__u64 rate;

	if (g->tx.n && (k->cls != g->tx.cur || g->tx.n >= g->o.batch))
		if (flush(g))
			return -1;
	g->tx.cur = k->cls;
	if (g->rp.skel && q->batch_pkts++ == 0)
		g->rp.touched[g->rp.ntouched++] = qi;
	flags = xl_rc_send(&q->rc, q->pkt == g->f.npkts - 1, now);
	if (!g->o.reliable) {
		/* nothing asks or answers: what is sent counts as acknowledged */
		flags = 0;
		q->rc.una = q->rc.max;
	}
	xl_gen_desc_fill(c, qi, &q->id, k->opcode, psn, flags, &g->tx.descs[g->tx.n++]);
	q->packets++;
	q->bytes += c->len;
	g->packets++;
	g->bytes += c->len;
	rate = qp_rate_bps(g, qi);
	if (rate)
		q->t_next += (double)c->len * 8e9 / (double)rate;
	if (++q->pkt == g->f.npkts)
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

/* ---- the loop ----------------------------------------------------------- */

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

	if (g->step.n) {
		printf("{\"step\": %llu, \"start_ns\": %.0f, \"end_ns\": %.0f, "
		       "\"packets\": %llu, \"bytes\": %llu, \"resent\": %llu}\n",
		       (unsigned long long)g->step.n, g->step.start, (double)xl_monotonic_ns(),
		       (unsigned long long)(g->packets - g->step.packets0),
		       (unsigned long long)(g->bytes - g->step.bytes0),
		       (unsigned long long)(gen_rc_totals(g).resent - g->step.resent0));
		fflush(stdout);
	}
	do { /* one line, however long */
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		len = strlen(line);
	} while (len && line[len - 1] != '\n' && !feof(stdin));
	g->step.n++;
	g->step.start = (double)xl_monotonic_ns();
	g->step.packets0 = g->packets;
	g->step.bytes0 = g->bytes;
	g->step.resent0 = gen_rc_totals(g).resent;
	for (i = 0; i < g->o.qps; i++)
		g->qp[i].t_on = g->step.start;
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

int gen_send_loop(struct gen_state *g)
{
	const struct gen_opts *o = &g->o;
	double start = (double)xl_monotonic_ns();
	double end = o->duration_ns ? start + (double)o->duration_ns : 0;
	__u32 rr = 0, i;

	for (i = 0; i < o->qps; i++) {
		g->qp[i].t_next = start;
		g->qp[i].t_on = o->pattern == P_STEPS ? HUGE_VAL : start;
	}
	/* --rate-map: every QP's rate before the first packet */
	if (g->rp.skel && rp_account(g, 0, XL_GEN_MAX_BATCH))
		return -1;
	g->t0_ns = xl_monotonic_ns();
	while (!gen_stop) {
		double now = (double)xl_monotonic_ns(), wake = 0, ack_wake = 0;
		__u32 idle, emitted;
		bool any = false;

		if (end && now >= end)
			break;
		if (g->rp.skel && now >= g->rp.refresh_at && rp_account(g, 0, RP_SWEEP))
			return -1;
		if (o->count && g->packets >= o->count)
			break;
		if (o->reliable) {
			gen_read_replies(g);
			if (gen_check_timeouts(g, now, &ack_wake))
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
		if (g->rp.skel && wake > now + RP_REFRESH_NS)
			wake = now + RP_REFRESH_NS; /* rates may rise meanwhile */
		if (ack_wake && ack_wake < wake)
			wake = ack_wake;
		if (o->reliable) {
			gen_wait_reply(&g->acks, now, wake);
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

