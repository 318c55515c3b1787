// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf sink`: attach bpf/sink.bpf.c to an interface, count RoCEv2
 * traffic per (source, destination QP, UDP source port) until --duration
 * or a signal, detach, print (docs/traffic-tools.md).
 *
 * The attachment is a BPF link held only by this process's file
 * descriptor, never pinned: when the process ends for any reason (SIGKILL
 * included) the kernel closes it and the program detaches. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "base/output.h"
#include "base/cli.h"
#include "base/percpu.h"
#include "netlink/ethtool.h"
#include "instance/xdp_owner.h"
#include "roce.h"
#include "sink.skel.h" /* after roce.h: the map layouts */
#include "traffic/traffic.h"
#include "traffic/sink_respond.h"
#include "base/units.h"

struct sink_opts {
	const char *dev;
	__u64 duration_ns;
	__u64 interval_ns;    /* --interval: 0 = no samples while running */
	bool json, pass, generic, respond;
};

struct flow {
	struct xl_sink_key k;
	struct xl_sink_flow v;
};

#define F(f) XL_FIELD(struct sink_opts, f)
static const struct xl_opt sink_opts[] = {
	{ "dev", 'd', XL_T_STR, F(dev), "IF", "interface to attach to (in this network namespace)",
	  .required = true },
	{ "duration", 0, XL_T_DURATION, F(duration_ns), "T",
	  "stop after T (e.g. 5s, 500ms; default: until a signal)",
	  .min = 1000000ULL, .max = 366ULL * 86400 * 1000000000ULL },
	{ "interval", 0, XL_T_DURATION, F(interval_ns), "T",
	  "while running, every T (>= 1ms) print one line of\n"
	  "JSON to stdout with every QP's cumulative counters\n"
	  "(before the final report)", .min = 1000000ULL, .max = 3600ULL * 1000000000ULL },
	{ "pass", 0, XL_T_FLAG, F(pass), NULL, "hand RoCEv2 packets to the kernel too (default: drop\n"
					       "them after counting, as a NIC's RDMA engine consumes them)" },
	{ "respond", 0, XL_T_FLAG, F(respond), NULL, "answer as an RC responder doing go-back-N: ACK each\n"
						     "in-order packet that asks (AckReq), NAK the PSN\n"
						     "expected next once when a later one arrives, ACK a\n"
						     "duplicate again if it asks; for xdpleaf gen\n"
						     "--reliable (docs/traffic-tools.md, \"Go-back-N\")" },
	{ "generic", 0, XL_T_FLAG, F(generic), NULL, "attach in generic (skb) mode instead of native" },
	{ "json", 'j', XL_T_FLAG, F(json), NULL, "print JSON" },
	XL_OPT_HELP, XL_OPT_END
};

/* Packets lost: PSNs in [lowest, highest] never received. Negative only if
 * duplicates older than the window were taken for late packets: 0 then. */
static __u64 flow_lost(const struct xl_sink_flow *v)
{
	__u64 distinct = v->packets - v->duplicates;

	return v->span + 1 > distinct ? v->span + 1 - distinct : 0;
}

static __u32 flow_first_psn(const struct xl_sink_flow *v)
{
	return (__u32)(v->highest - v->span) & XL_PSN_MASK;
}

static double flow_secs(const struct xl_sink_flow *v)
{
	return (double)(v->last_ns - v->first_ns) / 1e9;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	int c;

	if (x->k.family != y->k.family)
		return x->k.family - y->k.family;
	c = memcmp(x->k.saddr, y->k.saddr, 16);
	if (c)
		return c;
	if (x->k.qp != y->k.qp)
		return x->k.qp < y->k.qp ? -1 : 1;
	return (int)x->k.sport - (int)y->k.sport;
}

static int read_flows(struct sink *skel, struct flow **out, size_t *n)
{
	int fd = bpf_map__fd(skel->maps.sink_flows);
	struct xl_sink_key key, next, *prev = NULL;
	struct flow *fl = NULL;
	size_t cap = 0;

	*n = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (*n == cap) {
			struct flow *t;

			cap = cap ? cap * 2 : 64;
			t = realloc(fl, cap * sizeof(*fl));
			if (!t) {
				free(fl);
				return -1;
			}
			fl = t;
		}
		fl[*n].k = key;
		if (bpf_map_lookup_elem(fd, &key, &fl[*n].v) == 0)
			(*n)++;
	}
	if (*n)
		qsort(fl, *n, sizeof(*fl), cmp_flow);
	*out = fl;
	return 0;
}

/* All zero if the map cannot be read. */
static void read_stats(struct sink *skel, struct xl_sink_stats *tot)
{
	__u32 zero = 0;

	xl_percpu_sum_u64(bpf_map__fd(skel->maps.sink_stats), &zero, sizeof(*tot), tot);
}

static void addr_str(const struct xl_sink_key *k, char *buf, size_t len)
{
	inet_ntop(k->family == 6 ? AF_INET6 : AF_INET, k->saddr, buf, len);
}

/* A QP's counters that both the summary and the --interval lines show;
 * with --respond (responder) the responder's too. */
static json_object *qp_json(const struct flow *f, bool responder)
{
	const struct xl_sink_flow *v = &f->v;
	json_object *e = json_object_new_object();
	char src[INET6_ADDRSTRLEN];

	addr_str(&f->k, src, sizeof(src));
	json_object_object_add(e, "src", json_object_new_string(src));
	json_object_object_add(e, "qp", json_object_new_int64(f->k.qp));
	json_object_object_add(e, "sport", json_object_new_int64(f->k.sport));
	json_object_object_add(e, "packets", json_object_new_int64((int64_t)v->packets));
	json_object_object_add(e, "bytes", json_object_new_int64((int64_t)v->bytes));
	json_object_object_add(e, "ce", json_object_new_int64((int64_t)v->ce));
	json_object_object_add(e, "lost", json_object_new_int64((int64_t)flow_lost(v)));
	/* in the samples too: a count taken after a warm-up is subtracted
	 * from the summary's, field by field */
	json_object_object_add(e, "reordered", json_object_new_int64((int64_t)v->reordered));
	json_object_object_add(e, "duplicates", json_object_new_int64((int64_t)v->duplicates));
	json_object_object_add(e, "resent", json_object_new_int64((int64_t)v->resent));
	if (responder) {
		json_object_object_add(e, "acks", json_object_new_int64((int64_t)v->acks));
		json_object_object_add(e, "naks", json_object_new_int64((int64_t)v->naks));
		json_object_object_add(e, "out_of_seq",
				       json_object_new_int64((int64_t)v->out_of_seq));
		json_object_object_add(e, "next_psn", json_object_new_int64(v->epsn));
		json_object_object_add(e, "msn", json_object_new_int64(v->msn));
	}
	return e;
}

/* The QPs' counters added up, for the summary's total line. */
struct totals {
	__u64 packets, bytes, ce, reordered, lost, duplicates, resent, acks, naks;
};

static struct totals add_up(const struct flow *fl, size_t n)
{
	struct totals t = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct xl_sink_flow *v = &fl[i].v;

		t.packets += v->packets;
		t.bytes += v->bytes;
		t.ce += v->ce;
		t.reordered += v->reordered;
		t.lost += flow_lost(v);
		t.duplicates += v->duplicates;
		t.resent += v->resent;
		t.acks += v->acks;
		t.naks += v->naks;
	}
	return t;
}

/* rc: the responder's counts with --respond, else NULL. */
static void print_json(const struct flow *fl, size_t n,
		       const struct xl_sink_stats *st,
		       const struct xl_sink_responder_counts *rc, double secs)
{
	json_object *j = json_object_new_object(), *qs = json_object_new_array();
	json_object *t = json_object_new_object();
	struct totals tot = add_up(fl, n);
	size_t i;

	for (i = 0; i < n; i++) {
		const struct xl_sink_flow *v = &fl[i].v;
		json_object *e = qp_json(&fl[i], rc != NULL);
		double s = flow_secs(v);

		json_object_object_add(e, "first_psn", json_object_new_int64(flow_first_psn(v)));
		json_object_object_add(e, "last_psn", json_object_new_int64(v->highest));
		json_object_object_add(e, "seconds", json_object_new_double(s));
		json_object_object_add(e, "pps", json_object_new_double(
			s > 0 ? (double)(v->packets - 1) / s : 0));
		json_object_object_add(e, "bps", json_object_new_double(
			s > 0 ? (double)v->bytes * 8 * (double)(v->packets - 1) /
				(double)v->packets / s : 0));
		json_object_array_add(qs, e);
	}
	json_object_object_add(j, "qps", qs);
	json_object_object_add(t, "flows", json_object_new_int64((int64_t)n));
	json_object_object_add(t, "packets", json_object_new_int64((int64_t)tot.packets));
	json_object_object_add(t, "bytes", json_object_new_int64((int64_t)tot.bytes));
	json_object_object_add(t, "ce", json_object_new_int64((int64_t)tot.ce));
	json_object_object_add(t, "reordered", json_object_new_int64((int64_t)tot.reordered));
	json_object_object_add(t, "lost", json_object_new_int64((int64_t)tot.lost));
	json_object_object_add(t, "duplicates", json_object_new_int64((int64_t)tot.duplicates));
	json_object_object_add(t, "other", json_object_new_int64((int64_t)st->other));
	json_object_object_add(t, "trunc_bth", json_object_new_int64((int64_t)st->trunc_bth));
	json_object_object_add(t, "table_full", json_object_new_int64((int64_t)st->table_full));
	json_object_object_add(t, "malformed", json_object_new_int64((int64_t)st->malformed));
	json_object_object_add(t, "resent", json_object_new_int64((int64_t)tot.resent));
	if (rc) {
		json_object_object_add(t, "acks", json_object_new_int64((int64_t)tot.acks));
		json_object_object_add(t, "naks", json_object_new_int64((int64_t)tot.naks));
		json_object_object_add(t, "replies_sent", json_object_new_int64((int64_t)rc->sent));
		json_object_object_add(t, "replies_lost", json_object_new_int64(
			(int64_t)(st->replies_lost + rc->send_errors)));
	}
	json_object_object_add(t, "seconds", json_object_new_double(secs));
	json_object_object_add(j, "total", t);
	xl_print_json("sink", j);
}

static void print_table(const struct flow *fl, size_t n,
			const struct xl_sink_stats *st,
			const struct xl_sink_responder_counts *rc, double secs)
{
	struct totals t = add_up(fl, n);
	char src[INET6_ADDRSTRLEN];
	size_t i;

	printf("%-26s %-8s %5s %11s %13s %9s %9s %9s %9s %9s %9s\n", "src", "qp",
	       "sport", "packets", "bytes", "ce", "reordered", "lost", "dup",
	       "first_psn", "last_psn");
	for (i = 0; i < n; i++) {
		const struct xl_sink_flow *v = &fl[i].v;

		addr_str(&fl[i].k, src, sizeof(src));
		printf("%-26s 0x%06x %5u %11llu %13llu %9llu %9llu %9llu %9llu %9u %9u\n",
		       src, fl[i].k.qp, fl[i].k.sport, (unsigned long long)v->packets,
		       (unsigned long long)v->bytes, (unsigned long long)v->ce,
		       (unsigned long long)v->reordered,
		       (unsigned long long)flow_lost(v),
		       (unsigned long long)v->duplicates, flow_first_psn(v), v->highest);
	}
	printf("%-26s %-8s %5s %11llu %13llu %9llu %9llu %9llu %9llu\n", "total", "", "",
	       (unsigned long long)t.packets, (unsigned long long)t.bytes,
	       (unsigned long long)t.ce, (unsigned long long)t.reordered,
	       (unsigned long long)t.lost, (unsigned long long)t.duplicates);
	printf("%zu flows in %.3f s; not RoCEv2 (passed): %llu, truncated BTH "
	       "(passed): %llu, malformed (passed): %llu, flow table full: %llu\n",
	       n, secs, (unsigned long long)st->other, (unsigned long long)st->trunc_bth,
	       (unsigned long long)st->malformed, (unsigned long long)st->table_full);
	if (t.resent)
		printf("%llu packets arrived marked as resent by xdpleaf gen\n",
		       (unsigned long long)t.resent);
	if (rc)
		printf("responder: %llu ACKs and %llu NAKs queued, %llu sent, %llu lost "
		       "(ring full or send failed)\n", (unsigned long long)t.acks,
		       (unsigned long long)t.naks, (unsigned long long)rc->sent,
		       (unsigned long long)(st->replies_lost + rc->send_errors));
}

static __u64 ts_ns(const struct timespec *t)
{
	return (__u64)t->tv_sec * 1000000000ULL + (__u64)t->tv_nsec;
}

/* --interval: one compact JSON line with every flow's cumulative counters,
 * the time since attach and CLOCK_MONOTONIC (the clock of
 * bpf_ktime_get_ns(), to line samples up with other BPF state). */
static int print_sample(struct sink *skel, __u64 t0_ns, bool responder)
{
	json_object *j, *qs;
	struct timespec now;
	struct flow *fl = NULL;
	size_t n = 0, i;

	if (read_flows(skel, &fl, &n))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	j = json_object_new_object();
	qs = json_object_new_array();
	json_object_object_add(j, "t", json_object_new_double(
		(double)(ts_ns(&now) - t0_ns) / 1e9));
	json_object_object_add(j, "mono_ns", json_object_new_int64((int64_t)ts_ns(&now)));
	for (i = 0; i < n; i++)
		json_object_array_add(qs, qp_json(&fl[i], responder));
	json_object_object_add(j, "qps", qs);
	j = xl_json_doc("sink-interval", j);
	printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
	json_object_put(j);
	free(fl);
	return 0;
}

/* --interval: wait for a signal or the end of --duration, printing a sample
 * every interval on the way (deadlines are absolute, so the samples do not
 * drift). Returns the signal, or a negative value when the time is up. */
static int wait_sampling(struct sink *skel, const struct sink_opts *o,
			 const sigset_t *sigs, const struct timespec *t0)
{
	__u64 start = ts_ns(t0), next = start + o->interval_ns;
	__u64 end = o->duration_ns ? start + o->duration_ns : 0, now, until;
	struct timespec ts, cur;
	int sig;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &cur);
		now = ts_ns(&cur);
		if (end && now >= end)
			return -1;
		if (now >= next) {
			if (print_sample(skel, start, o->respond))
				xl_err("reading the flow table: %s", strerror(errno));
			while (next <= now)
				next += o->interval_ns;
			continue;
		}
		until = end && end < next ? end : next;
		ts.tv_sec = (time_t)((until - now) / 1000000000ULL);
		ts.tv_nsec = (long)((until - now) % 1000000000ULL);
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig > 0)
			return sig;
	}
}

/* Receive queues the device uses now (ethtool channels), 0 if unknown. */
static __u32 rx_queues_in_use(const char *dev)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };

	return xl_ethtool(dev, &ch) ? 0 : ch.rx_count + ch.combined_count;
}

static int sink_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	struct sink_opts o = *(const struct sink_opts *)opts;
	__u32 rxq;
	struct sink *skel = NULL;
	struct xl_sink_stats st;
	struct xl_sink_responder *responder = NULL;
	struct xl_sink_responder_counts rc = { 0 };
	struct flow *fl = NULL;
	struct timespec t0, t1, ts;
	sigset_t sigs, old;
	size_t n = 0;
	__u32 ifindex;
	int link = -1, err, sig, ret = 1;
	LIBBPF_OPTS(bpf_link_create_opts, lopts);

	(void)ctx;
	if (!xl_traffic_privileged()) {
		xl_err("needs root, or CAP_BPF and CAP_NET_ADMIN (try: sudo xdpleaf sink ...)");
		return 1;
	}
	ifindex = if_nametoindex(o.dev);
	if (!ifindex) {
		xl_err("no interface '%s' in this network namespace", o.dev);
		return 1;
	}
	rxq = rx_queues_in_use(o.dev);
	if (rxq > 1)
		xl_warn("%s has %u rx queues; per-QP state is "
			"not locked, so a QP whose packets arrive on several CPUs at "
			"once may be miscounted", o.dev, rxq);
	skel = sink__open();
	if (!skel) {
		xl_err("opening the BPF program: %s", strerror(errno));
		return 1;
	}
	skel->rodata->pass_roce = o.pass;
	skel->rodata->respond = o.respond;
	err = sink__load(skel);
	if (err) {
		xl_err("loading the BPF program: %s", strerror(-err));
		goto out;
	}
	if (o.respond) {
		responder = xl_sink_responder_start(bpf_map__fd(skel->maps.sink_replies),
						    (int)ifindex);
		if (!responder) {
			xl_err("--respond: cannot send replies on %s: %s",
			       o.dev, strerror(errno));
			goto out;
		}
	}
	/* Block the signals that stop us before attaching, so none is lost
	 * between attach and wait; sigtimedwait takes them synchronously. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	lopts.flags = o.generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	link = bpf_link_create(bpf_program__fd(skel->progs.xdpleaf_sink), (int)ifindex,
			       BPF_XDP, &lopts);
	if (link < 0) {
		err = errno;
		if (err == EBUSY || err == EEXIST) {
			xl_err("%s already has an XDP program", o.dev);
			xl_explain_xdp_busy(o.dev, ifindex);
		}
		else if (err == EOPNOTSUPP && !o.generic)
			xl_err("%s has no native XDP; try --generic", o.dev);
		else
			xl_err("attaching to %s: %s", o.dev, strerror(err));
		goto out_sig;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	xl_notice("ready on %s (%s mode, RoCEv2 packets %s%s)", o.dev,
		  o.generic ? "generic" : "native", o.pass ? "passed" : "dropped",
		  o.respond ? ", answered with ACKs and NAKs" : "");
	fflush(stderr);
	if (o.interval_ns) {
		sig = wait_sampling(skel, &o, &sigs, &t0);
	} else if (o.duration_ns) {
		ts.tv_sec = (time_t)(o.duration_ns / 1000000000ULL);
		ts.tv_nsec = (long)(o.duration_ns % 1000000000ULL);
		do
			sig = sigtimedwait(&sigs, NULL, &ts);
		while (sig < 0 && errno == EINTR);
	} else {
		do
			sig = sigwaitinfo(&sigs, NULL);
		while (sig < 0 && errno == EINTR);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(link); /* detaches: the link is not pinned */
	link = -1;
	xl_sink_responder_stop(responder, &rc);
	responder = NULL;
	if (read_flows(skel, &fl, &n)) {
		xl_err("reading the flow table: %s", strerror(errno));
		goto out_sig;
	}
	read_stats(skel, &st);
	{
		double secs = (double)(t1.tv_sec - t0.tv_sec) +
			      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		if (o.json)
			print_json(fl, n, &st, o.respond ? &rc : NULL, secs);
		else
			print_table(fl, n, &st, o.respond ? &rc : NULL, secs);
	}
	ret = 0;
out_sig:
	if (link >= 0)
		close(link);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	xl_sink_responder_stop(responder, NULL);
	free(fl);
	sink__destroy(skel);
	return ret;
}

const struct xl_cmd xl_sink_cmd = {
	.name = "sink", .summary = "count received RoCEv2 traffic per QP ('xdpleaf sink --help')",
	.intro = "Counts received RoCEv2 packets per (source, destination QP, UDP source port)\n"
		 "with an XDP program on IF, until --duration or SIGINT/SIGTERM, then detaches\n"
		 "and prints packets, bytes, CE marks, reordered, lost and duplicate packets.\n"
		 "Prints 'xdpleaf sink: ready ...' to stderr once attached.",
	.opts = sink_opts, XL_CMD_OPTS(struct sink_opts, NULL), .run = sink_run,
};
