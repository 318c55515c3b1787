// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `make bench`, scaling (docs/performance.md): what a packet of the
 * flowlet path with a phantom queue costs as the tables fill, through
 * BPF_PROG_TEST_RUN, beside the stateful baseline holding the same flows:
 *
 *   flows    1k, 10k, 100k and 1M live flows in the flow tables;
 *   uplinks  2, 8 and 16 uplinks in the group (XL_MAX_GROUP_MEMBERS; the
 *            issue's 64 cannot be configured, and a line says so), 16k
 *            live flows spread over them;
 *   routes   10, 1k and 16k routes (XL_MAX_ROUTES) to as many
 *            destinations, 16k live flows spread over them, so that the
 *            per-CPU route cache (4096 slots) and the LPM trie both work;
 *   memory   kernel memory (memlock) per flow entry and per instance.
 *
 * test_run repeats one packet per call, and a flow table only costs what
 * it costs when the packets spread over it. So the tables are filled from
 * here (bpf_map_update_batch) with live flows, and every call sends one
 * packet (repeat = 1) of another of them: the live flows in a random
 * order, each at most once per figure, the packet's destination address
 * and BTH destination QP selecting the flow in both tables. A leaf entry
 * is a flow in the middle of a flowlet on one of the group's members; its
 * last_ns lies an hour ahead, so that the gap the flowlet rule reads
 * (signed) stays negative however long the filling and the other rounds
 * take: the one packet each flow gets continues its flowlet, as most
 * packets do. (A second packet of the flow would read a real gap of at
 * least one test_run call, longer than the flowlet floor, and start a new
 * flowlet: hence once per figure.)
 *
 * A call carries a fixed cost besides the program (the syscall's timer,
 * the dispatcher): measured in the same rounds as the stateless baseline
 * on an ARP frame it passes at once, and reported both in and out. What
 * that does not take out is that every call finds the program's code and
 * maps colder than a stream of packets would: the "hot" line shows the
 * same path with warm caches (repeat 200 on one flow, as
 * bench/perf/paths.c measures it). And calls come microseconds apart,
 * where an uplink's packets come tens of nanoseconds apart at line rate:
 * the uplinks' rate sampler (due every 50 us, bpf/uplink.h) would run in
 * a share of the calls set by this machine's speed instead of once in
 * hundreds of packets or more. So it is held off (the uplinks' last
 * sample also lies an hour ahead), and what a sample adds to the call
 * that takes it is measured on its own (the "sampler" line).
 *
 * Every point has its own leaf and baseline (a flow table of another size
 * is another map), and ROUNDS rounds, each a block of calls of the
 * overhead, then a block of the baseline and one of the leaf on the same
 * flows, either first every other round, as bench/perf/paths.c does
 * (blocks, not call by call: a call right after another program's runs
 * slower, the small baseline by more than the leaf, which would flatter
 * the ratios). A figure is the median over rounds of each round's median.
 * The flows curve's points go one by one, each loaded and filled just
 * before its rounds: its tables as warm as a stream of packets over that
 * many flows would keep them (a block of the 1M-flow point between two of
 * the 1k-flow point would leave the 1k table cold, as no fabric with 1k
 * live flows has it). The uplinks and routes curves, whose tables are
 * alike and whose figures are read against the first point's, have all
 * their points loaded first and the rounds go over all of them in turn:
 * the machine's drift over the run reaches every point alike.
 *
 * The process stays on one CPU: the route and port caches are per CPU,
 * as the flows of a fabric stay on the CPU their queue's interrupts go
 * to. Checked for every figure and printed with it:
 * every call's verdict (XDP_REDIRECT), the tables' entries before and
 * after (no flow added or evicted), the leaf's flows_created counter (no
 * new flow), and every flow sent: one packet more in each table, and in
 * the leaf no new flowlet and no move.
 *
 * Writes JSON lines on stdout (bench/perf/plot_scale.py makes the CSV,
 * the plots and a table); progress on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpleaf.h"
#include "icrc.h"
#include "leaf.skel.h"
#include "bench/baselines/stateless.skel.h"
#include "bench/baselines/stateful.skel.h"
#include "fixture.h"
#include "perf.h"

#define ROUNDS 6
/* test_run calls per program per round and point: fewer where the table
 * holds fewer flows than ROUNDS x CALLS (each flow at most once) */
#define CALLS 2500
/* flows live in the uplinks and routes curves */
#define SPREAD_FLOWS 16384
/* the warm reference: as bench/perf/paths.c (< 255, the TTL) */
#define HOT_REPEAT 200
#define HOT_BATCHES 100
/* where the flowlet gaps and the uplinks' last samples lie: ahead */
#define AHEAD_NS 3600000000000ULL
#define PAYLOAD 100 /* as paths.c: 158-byte frames, under XL_COUNT_MIN_LEN */
#define FILL_CHUNK 8192
#define PREFILL_PACKETS 1000 /* what a filled entry has counted */
#define MAX_POINTS 4
#define XDP_PASS_ 2
#define XDP_REDIRECT_ 4

static const __u8 mac_in[6] = PERF_MAC_IN;
static struct perf P;
static char *conf;
static const size_t conf_cap = 1 << 20; /* 16k routes take ~500 KB */
static int ncpu;
static __u32 P_in; /* the ingress port's ifindex */
static struct timespec t_start;

/* The stateful baseline's flow key and value (bench/baselines/forwarder.h,
 * which is BPF only); the sizes are checked against the map's. */
struct base_flow {
	__u32 saddr, daddr;
	__u16 sport, dport;
	__u32 proto_qp;
};

struct base_flow_state {
	__u64 last_ns;
	__u64 packets;
};

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t_start.tv_sec) + (double)(t.tv_nsec - t_start.tv_nsec) / 1e9;
}

/* CLOCK_MONOTONIC is bpf_ktime_get_ns's clock. */
static __u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

/* A reproducible shuffle: the same flows in the same order every run. */
static __u64 rng = 0x9e3779b97f4a7c15ULL;

static __u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (__u32)(rng >> 11);
}

/* ---- configuration ----------------------------------------------------- */

#define IN_PORT "xs-in"
#define SADDR "10.1.1.2"

/* Route i's prefix is 10.(64 + i / 256).(i % 256).0/24; its destination
 * host .host (network order). */
static __u32 route_host(int i, int host)
{
	return htonl(10U << 24 | (__u32)(64 + i / 256) << 16 | (__u32)(i % 256) << 8 |
		     (__u32)host);
}

static __u32 route_dst(int i)
{
	return route_host(i, 2);
}

/* The leaf as `xdpleaf load` would have it from this config: the ingress
 * port, XL_MAX_GROUP_MEMBERS other ports of which the first `uplinks` are
 * the uplinks (rate 100G: phantom queues) of one flowlet group, shipped
 * defaults otherwise; `routes` routes to the group. table 0: the default
 * flow table. Every config names the same ports (the TAPs exist once). */
static int write_conf(__u32 table, int uplinks, int routes)
{
	size_t n = 0;

#define APPEND(...)                                                              \
	do {                                                                     \
		int w_ = snprintf(conf + n, conf_cap - n, __VA_ARGS__);          \
		if (w_ < 0 || (size_t)w_ >= conf_cap - n)                        \
			goto full;                                               \
		n += (size_t)w_;                                                 \
	} while (0)
	APPEND("# bench/perf/scale: shipped defaults; the uplinks' rates set\n[xdpleaf]\n");
	if (table)
		APPEND("flow_table_size = %u\n", table);
	APPEND("[port " IN_PORT "]\n");
	for (int u = 0; u < XL_MAX_GROUP_MEMBERS; u++) {
		APPEND("[port xs-u%d]\n", u);
		if (u < uplinks)
			APPEND("role = uplink\ngroup = g\nnexthop4 = 10.8.%d.1\nrate = 100G\n", u);
	}
	if (uplinks)
		APPEND("[group g]\nlb_mode = flowlet\n");
	for (int i = 0; i < routes; i++)
		APPEND("[route 10.%d.%d.0/24]\ngroup = g\n", 64 + i / 256, i % 256);
#undef APPEND
	return 0;
full:
	fprintf(stderr, "scale: config text too long\n");
	return -1;
}

/* ---- the flows and their packets ------------------------------------- */

/* Live flows: flow j goes to daddr[j] (network order) with BTH
 * destination QP qp[j], on group member j % n_members. */
struct flowset {
	__u32 n;
	__u32 *daddr, *qp;
};

static int flowset_make(struct flowset *f, __u32 n, int routes, __u32 dests)
{
	f->n = n;
	f->daddr = calloc(n, sizeof(*f->daddr));
	f->qp = calloc(n, sizeof(*f->qp));
	if (!f->daddr || !f->qp)
		return -1;
	for (__u32 j = 0; j < n; j++) {
		/* destination d: host 2 + d / routes of route d % routes */
		__u32 d = j % dests;

		f->daddr[j] = route_host((int)(d % (__u32)routes), 2 + (int)(d / (__u32)routes));
		f->qp[j] = j / dests;
	}
	return 0;
}

/* A packet and where a call changes it. */
struct probe {
	int fd;
	__u8 pkt[PKT_MAX];
	size_t len, l3, l4, bth, ip_end;
	int repeat;
	int expect; /* the verdict every call must return */
};

static __u32 saddr(void)
{
	struct in_addr a;

	inet_pton(AF_INET, SADDR, &a);
	return a.s_addr;
}

/* RoCEv2/IPv4 SEND_ONLY to the leaf's ingress MAC, as paths.c's; TTL 255
 * so that a repeated run still forwards it. */
static void probe_roce(struct probe *p, int fd, int repeat)
{
	struct pkt_spec s = {
		.family = 4, .ttl = 255, .tos = 0x02, .proto = PKT_UDP,
		.sport = 49152, .dport = PKT_ROCEV2_PORT, .bth = 1,
		.bth_opcode = 0x04, .dest_qp = 0, .psn = 1,
		.payload_len = PAYLOAD, .payload_seed = 1,
	};
	struct pkt_off o;
	__u32 s_addr = saddr(), d_addr = route_dst(0);

	memset(p, 0, sizeof(*p));
	memcpy(s.dst, mac_in, 6);
	memcpy(s.src, "\x02\x00\x00\x00\xaa\x01", 6);
	memcpy(s.saddr, &s_addr, 4);
	memcpy(s.daddr, &d_addr, 4);
	p->len = pkt_build(&s, p->pkt, &o);
	p->l3 = o.l3;
	p->l4 = o.l4;
	p->bth = o.l4_end;
	p->ip_end = o.ip_end;
	p->fd = fd;
	p->repeat = repeat;
	p->expect = XDP_REDIRECT_;
}

/* An ARP request: the stateless baseline passes it on its first check. */
static void probe_pass(struct probe *p, int fd)
{
	struct pkt_spec s = { .ethertype = PKT_ETH_ARP, .payload_len = 28 };

	memset(p, 0, sizeof(*p));
	memset(s.dst, 0xff, 6);
	memcpy(s.src, "\x02\x00\x00\x00\xaa\x01", 6);
	p->len = pkt_build(&s, p->pkt, NULL);
	p->fd = fd;
	p->repeat = 1;
	p->expect = XDP_PASS_;
}

/* The probe's packet for flow (daddr, qp): addresses, QP and every
 * checksum as a sender would have them (UDP's 0: none, as RoCEv2 over
 * IPv4 may send). */
static void packet_of(const struct probe *p, __u8 *buf, __u32 daddr, __u32 qp)
{
	memcpy(buf, p->pkt, p->len);
	if (!p->bth)
		return;
	memcpy(buf + p->l3 + 16, &daddr, 4);
	pkt_ip4_csum(buf + p->l3);
	buf[p->l4 + 6] = buf[p->l4 + 7] = 0;
	buf[p->bth + 5] = (__u8)(qp >> 16);
	buf[p->bth + 6] = (__u8)(qp >> 8);
	buf[p->bth + 7] = (__u8)qp;
	xl_icrc_put(buf + p->ip_end - 4, xl_icrc(buf + p->l3, (__u32)(p->ip_end - p->l3 - 4),
						 (__u32)(p->l4 - p->l3), 0));
}

/* What the calls returned. */
struct tally {
	long calls, expected, failed;
	int other; /* a verdict other than the expected one, if any */
};

/* One call of the probe's program on flow j of f (f NULL: the probe's
 * packet as it is): its ns per packet, or -1 if test_run failed. */
static double one_call(const struct probe *p, const struct flowset *f, __u32 j,
		       struct tally *t)
{
	struct xdp_md ctx = { .ingress_ifindex = P_in, .data_end = (__u32)p->len };
	__u8 buf[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = (__u32)p->len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = p->repeat);

	if (f)
		packet_of(p, buf, f->daddr[j], f->qp[j]);
	else
		memcpy(buf, p->pkt, p->len);
	if (bpf_prog_test_run_opts(p->fd, &o)) {
		if (!t->failed++)
			fprintf(stderr, "scale: test_run: %s\n", strerror(errno));
		return -1;
	}
	t->calls++;
	if ((int)o.retval == p->expect)
		t->expected++;
	else
		t->other = (int)o.retval;
	return o.duration;
}

/* The median of the n values of v that are not negative (failed calls). */
static double median_ok(double *v, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (v[i] >= 0)
			v[k++] = v[i];
	return perf_median(v, k);
}

/* ---- one point of a curve ---------------------------------------------- */

/* A leaf and a stateful baseline holding the same live flows, and what
 * their calls measured. */
struct point {
	const char *kind;
	long x;
	int uplinks, routes;
	__u32 conf_table;             /* flow_table_size in the config, 0: none */
	__u32 leaf_table, base_table; /* the tables' sizes */
	struct leaf *leaf;
	struct base_stateful *stateful;
	struct xl_group grp;          /* the group under test, as its map holds it */
	__u32 gid;
	struct flowset f;
	__u32 *idx;                   /* f's flows in a random order */
	int calls;                    /* per round */
	long leaf_n0, base_n0;        /* entries once filled */
	__u64 created0;
	long long leaf_memlock, base_memlock;
	double ovh[ROUNDS], base[ROUNDS], leafns[ROUNDS];
	struct tally ot, bt, lt;
};

static int find_group(struct point *pt)
{
	int fd = bpf_map__fd(pt->leaf->maps.groups);

	for (pt->gid = 0; pt->gid < XL_MAX_GROUPS; pt->gid++)
		if (!bpf_map_lookup_elem(fd, &pt->gid, &pt->grp) && !strcmp(pt->grp.name, "g") &&
		    pt->grp.n_members == (__u32)pt->uplinks)
			return 0;
	fprintf(stderr, "scale: the leaf's groups map has no group \"g\" of %d uplinks\n",
		pt->uplinks);
	return -1;
}

/* The uplinks' rate samples: held off (the last one an hour ahead), or
 * due (the last one 2 x XL_RATE_SAMPLE_NS ago, as on an uplink whose
 * packets come 100 us apart); the rates they hold stay. */
static int sampler(const struct point *pt, int due)
{
	int fd = bpf_map__fd(pt->leaf->maps.uplink_rates);
	__u64 now = now_ns();

	for (__u32 i = 0; i < pt->grp.n_members; i++) {
		struct xl_uplink_rate r;

		if (bpf_map_lookup_elem(fd, &pt->grp.member_slot[i], &r))
			memset(&r, 0, sizeof(r));
		r.sample_ns = due ? now - 2 * XL_RATE_SAMPLE_NS : now + AHEAD_NS;
		if (bpf_map_update_elem(fd, &pt->grp.member_slot[i], &r, BPF_ANY)) {
			fprintf(stderr, "scale: uplink_rates: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- the tables -------------------------------------------------------- */

static int is_percpu(const struct bpf_map *m)
{
	enum bpf_map_type t = bpf_map__type(m);

	return t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* Bytes of one value as user space reads and writes it. */
static size_t val_bytes(const struct bpf_map *m)
{
	size_t v = bpf_map__value_size(m);

	return is_percpu(m) ? (size_t)ncpu * ((v + 7) & ~(size_t)7) : v;
}

static void leaf_key(const struct flowset *f, __u32 j, struct xl_flow *k)
{
	__u32 s = saddr();

	memset(k, 0, sizeof(*k));
	memcpy(k->saddr, &s, 4);
	memcpy(k->daddr, &f->daddr[j], 4);
	k->sport = 49152;
	k->dport = PKT_ROCEV2_PORT;
	k->proto = PKT_UDP;
	k->family = 4;
	k->qp = f->qp[j];
}

static void base_key(const struct flowset *f, __u32 j, struct base_flow *k)
{
	memset(k, 0, sizeof(*k));
	k->saddr = saddr();
	k->daddr = f->daddr[j];
	k->sport = htons(49152);
	k->dport = htons(PKT_ROCEV2_PORT);
	k->proto_qp = (__u32)PKT_UDP << 24 | f->qp[j];
}

/* Flow j's leaf entry, at time now: in the middle of a flowlet on member
 * j % n_members, which it came to and started its window at `now`; its
 * last packet (from which the flowlet's gap counts) an hour ahead (see
 * the top). Not counted on its member (count_epoch 0): the bench's
 * packets are too short to count a flow (XL_COUNT_MIN_LEN). */
static void leaf_state(const struct point *pt, __u32 j, __u64 now, size_t len,
		       struct xl_flow_state *v)
{
	memset(v, 0, sizeof(*v));
	v->last_ns = now + AHEAD_NS;
	v->first_ns = now;
	v->packets = PREFILL_PACKETS;
	v->bytes = PREFILL_PACKETS * len;
	v->flowlets = 1;
	v->win_start_ns = now;
	v->win_bytes = len;
	v->flowlet_start_ns = now;
	v->flowlet_bytes = len;
	v->uplink = pt->grp.members[j % pt->grp.n_members];
	v->group = pt->gid;
	v->placed_tick = xl_placed_tick(now);
}

static const struct bpf_map *table_of(const struct point *pt, int leaf)
{
	return leaf ? pt->leaf->maps.flows : pt->stateful->maps.base_flows;
}

/* Fill the leaf's (leaf 1) or the stateful baseline's table with every
 * flow of the point, FILL_CHUNK per batch. */
static int prefill(const struct point *pt, int leaf, size_t len)
{
	const struct bpf_map *m = table_of(pt, leaf);
	size_t ks = bpf_map__key_size(m), vs = bpf_map__value_size(m), vb = val_bytes(m);
	size_t stride = is_percpu(m) ? (vs + 7) & ~(size_t)7 : vs;
	int fd = bpf_map__fd(m), ncopies = is_percpu(m) ? ncpu : 1;
	__u8 *keys = calloc(FILL_CHUNK, ks), *vals = calloc(FILL_CHUNK, vb);
	const struct flowset *f = &pt->f;
	__u64 now = now_ns();
	int err = !keys || !vals;

	if (ks != (leaf ? sizeof(struct xl_flow) : sizeof(struct base_flow)) ||
	    vs != (leaf ? sizeof(struct xl_flow_state) : sizeof(struct base_flow_state))) {
		fprintf(stderr, "scale: %s: key/value of %zu/%zu bytes, expected %zu/%zu\n",
			bpf_map__name(m), ks, vs,
			leaf ? sizeof(struct xl_flow) : sizeof(struct base_flow),
			leaf ? sizeof(struct xl_flow_state) : sizeof(struct base_flow_state));
		err = -1;
	}
	for (__u32 done = 0; !err && done < f->n;) {
		__u32 c = f->n - done < FILL_CHUNK ? f->n - done : FILL_CHUNK;
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		for (__u32 i = 0; i < c; i++) {
			__u8 *v = vals + i * vb;

			if (leaf) {
				leaf_key(f, done + i, (struct xl_flow *)(keys + i * ks));
				leaf_state(pt, done + i, now, len, (struct xl_flow_state *)v);
			} else {
				struct base_flow_state b = { now, PREFILL_PACKETS };

				base_key(f, done + i, (struct base_flow *)(keys + i * ks));
				memcpy(v, &b, sizeof(b));
			}
			for (int cpu = 1; cpu < ncopies; cpu++)
				memcpy(v + (size_t)cpu * stride, v, vs);
		}
		if (bpf_map_update_batch(fd, keys, vals, &c, &o)) {
			fprintf(stderr, "scale: %s: update_batch: %s\n", bpf_map__name(m),
				strerror(errno));
			err = -1;
		}
		done += c;
	}
	free(keys);
	free(vals);
	return err ? -1 : 0;
}

/* Entries in a hash map, -1 if they cannot be read. */
static long count_entries(const struct bpf_map *m)
{
	size_t ks = bpf_map__key_size(m), vb = val_bytes(m);
	__u8 *keys = calloc(FILL_CHUNK, ks), *vals = calloc(FILL_CHUNK, vb);
	int fd = bpf_map__fd(m);
	__u64 token = 0;
	long total = 0;
	int first = 1;

	while (keys && vals) {
		__u32 c = FILL_CHUNK;
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		int err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token, keys, vals,
					       &c, &o);

		first = 0;
		total += c;
		if (err) {
			if (errno != ENOENT) {
				fprintf(stderr, "scale: %s: lookup_batch: %s\n", bpf_map__name(m),
					strerror(errno));
				total = -1;
			}
			break;
		}
	}
	if (!keys || !vals)
		total = -1;
	free(keys);
	free(vals);
	return total;
}

/* The leaf's flows_created, all CPUs. */
static __u64 flows_created(const struct point *pt)
{
	const struct bpf_map *m = pt->leaf->maps.leaf_counters;
	size_t stride = (bpf_map__value_size(m) + 7) & ~(size_t)7;
	__u8 *v = calloc((size_t)ncpu, stride);
	__u32 zero = 0;
	__u64 sum = 0;

	if (v && !bpf_map_lookup_elem(bpf_map__fd(m), &zero, v))
		for (int c = 0; c < ncpu; c++)
			sum += ((struct xl_leaf_counters *)(v + (size_t)c * stride))->flows_created;
	free(v);
	return sum;
}

/* What the flows sent did to their entries. */
struct flow_check {
	long missing;             /* no entry any more */
	long packets;             /* packets counted beyond the filled ones */
	long new_flowlets, moved; /* leaf only */
};

/* The point's first n flows (in idx order) in the leaf's (1) or the
 * baseline's table. */
static void check_flows(const struct point *pt, int leaf, int n, struct flow_check *fc)
{
	const struct bpf_map *m = table_of(pt, leaf);
	size_t vs = bpf_map__value_size(m), vb = val_bytes(m);
	size_t stride = is_percpu(m) ? (vs + 7) & ~(size_t)7 : vs;
	int fd = bpf_map__fd(m), ncopies = is_percpu(m) ? ncpu : 1;
	__u8 *v = malloc(vb);

	memset(fc, 0, sizeof(*fc));
	for (int i = 0; v && i < n; i++) {
		__u32 j = pt->idx[i];
		struct xl_flow lk;
		struct base_flow bk;

		if (leaf)
			leaf_key(&pt->f, j, &lk);
		else
			base_key(&pt->f, j, &bk);
		if (bpf_map_lookup_elem(fd, leaf ? (void *)&lk : (void *)&bk, v)) {
			fc->missing++;
			continue;
		}
		for (int c = 0; c < ncopies; c++) {
			const __u8 *e = v + (size_t)c * stride;

			if (leaf) {
				const struct xl_flow_state *s = (const void *)e;

				fc->packets += (long)(s->packets - PREFILL_PACKETS);
				fc->new_flowlets += (long)(s->flowlets - 1);
				fc->moved += s->uplink != pt->grp.members[j % pt->grp.n_members];
			} else {
				fc->packets += (long)(((const struct base_flow_state *)e)->packets -
						      PREFILL_PACKETS);
			}
		}
	}
	free(v);
}

/* memlock of a BPF object (map or program) fd, from /proc/self/fdinfo. */
static long long memlock_of(int fd)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* ---- measuring ---------------------------------------------------------- */

/* A table for n live flows: room to spare, so that the LRU's per-CPU free
 * lists never make it evict one of them. */
static __u32 table_for(__u32 n)
{
	__u64 t = (__u64)n + n / 4 + 4096;

	return t > (4U << 20) ? 4U << 20 : (__u32)t;
}

/* The point's flows in a random order (Fisher-Yates): round r sends those
 * from r x calls, the extras those after the rounds'. */
static __u32 *shuffled(const struct flowset *f)
{
	__u32 *idx = malloc((size_t)f->n * sizeof(*idx));

	if (!idx)
		return NULL;
	for (__u32 j = 0; j < f->n; j++)
		idx[j] = j;
	for (__u32 j = 0; j + 1 < f->n; j++) {
		__u32 k = j + rnd() % (f->n - j), t = idx[j];

		idx[j] = idx[k];
		idx[k] = t;
	}
	return idx;
}

/* Load the point's leaf and baseline (each of its own: a flow table of
 * another size is another map) and fill both tables; pt->f is set. */
static int point_load(struct point *pt)
{
	double t0 = elapsed();
	struct probe p;

	P.leaf = NULL;
	if (write_conf(pt->conf_table, pt->uplinks, pt->routes) || perf_leaf_config(&P, conf)) {
		fprintf(stderr, "scale: %s %ld: cannot load the leaf\n", pt->kind, pt->x);
		pt->leaf = P.leaf;
		P.leaf = NULL;
		return -1;
	}
	pt->leaf = P.leaf;
	/* the next hops' MACs, as the loader takes them from the kernel */
	for (int u = 0; u < pt->uplinks; u++) {
		char ifn[16];
		__u8 a[4] = { 10, 8, (__u8)u, 1 };

		snprintf(ifn, sizeof(ifn), "xs-u%d", u);
		if (perf_neigh(&P, ifn, 4, a)) {
			fprintf(stderr, "scale: neighbour of %s: %s\n", ifn, strerror(errno));
			P.leaf = NULL;
			return -1;
		}
	}
	P.leaf = NULL;
	/* (perf_baselines replaces the stateless one: one is enough) */
	P.stateful = NULL;
	if (perf_baselines(&P, "xs-u0", pt->base_table)) {
		fprintf(stderr, "scale: %s %ld: cannot load the baselines\n", pt->kind, pt->x);
		pt->stateful = P.stateful;
		P.stateful = NULL;
		return -1;
	}
	pt->stateful = P.stateful;
	P.stateful = NULL;
	pt->leaf_table = bpf_map__max_entries(pt->leaf->maps.flows);
	pt->leaf_memlock = memlock_of(bpf_map__fd(pt->leaf->maps.flows));
	pt->base_memlock = memlock_of(bpf_map__fd(pt->stateful->maps.base_flows));
	if (find_group(pt) || sampler(pt, 0))
		return -1;
	pt->idx = shuffled(&pt->f);
	pt->calls = pt->f.n / ROUNDS < CALLS ? (int)(pt->f.n / ROUNDS) : CALLS;
	probe_roce(&p, -1, 1);
	if (!pt->idx || prefill(pt, 1, p.len) || prefill(pt, 0, p.len))
		return -1;
	pt->leaf_n0 = count_entries(pt->leaf->maps.flows);
	pt->base_n0 = count_entries(pt->stateful->maps.base_flows);
	pt->created0 = flows_created(pt);
	fprintf(stderr, "scale: %s %ld: loaded, %u flows filled, in %.1f s\n", pt->kind, pt->x,
		pt->f.n, elapsed() - t0);
	return 0;
}

/* The point's programs, maps and flows go; its figures stay. */
static void point_unload(struct point *pt)
{
	leaf__destroy(pt->leaf);
	base_stateful__destroy(pt->stateful);
	pt->leaf = NULL;
	pt->stateful = NULL;
	free(pt->f.daddr);
	free(pt->f.qp);
	pt->f.daddr = pt->f.qp = NULL; /* f.n stays: the figure's flows */
	free(pt->idx);
	pt->idx = NULL;
}

/* A block of n calls of the probe's program, call i on flow idx[i] of f
 * (f NULL: the probe's packet as it is), into d. */
static void block(const struct probe *p, const struct flowset *f, const __u32 *idx, int n,
		  double *d, struct tally *t)
{
	for (int i = 0; i < n; i++)
		d[i] = one_call(p, f, f ? idx[i] : 0, t);
}

/* Round r of the point: a block of calls for the overhead, then for the
 * baseline and the leaf on the same flows, in either order every other
 * round (see the top). */
static int measure_block(struct point *pt, int r)
{
	int n = pt->calls;
	double *o = calloc((size_t)n, sizeof(*o)), *b = calloc((size_t)n, sizeof(*b)),
	       *l = calloc((size_t)n, sizeof(*l));
	const __u32 *slice = pt->idx + (size_t)r * (size_t)n;
	struct probe ovh, base, leaf;

	if (!o || !b || !l) {
		free(o);
		free(b);
		free(l);
		return -1;
	}
	probe_pass(&ovh, bpf_program__fd(P.stateless->progs.base_stateless));
	probe_roce(&base, bpf_program__fd(pt->stateful->progs.base_stateful), 1);
	probe_roce(&leaf, bpf_program__fd(pt->leaf->progs.xdpleaf_leaf), 1);
	block(&ovh, NULL, NULL, n, o, &pt->ot);
	if (r & 1) {
		block(&leaf, &pt->f, slice, n, l, &pt->lt);
		block(&base, &pt->f, slice, n, b, &pt->bt);
	} else {
		block(&base, &pt->f, slice, n, b, &pt->bt);
		block(&leaf, &pt->f, slice, n, l, &pt->lt);
	}
	pt->ovh[r] = median_ok(o, n);
	pt->base[r] = median_ok(b, n);
	pt->leafns[r] = median_ok(l, n);
	free(o);
	free(b);
	free(l);
	return 0;
}

static double med(const double *v)
{
	double c[ROUNDS];

	memcpy(c, v, sizeof(c));
	return perf_median(c, ROUNDS);
}

/* The median over rounds of (x - overhead) of each round. */
static double med_net(const double *x, const double *ovh)
{
	double c[ROUNDS];

	for (int r = 0; r < ROUNDS; r++)
		c[r] = x[r] - ovh[r];
	return perf_median(c, ROUNDS);
}

/* Everything the point's figure checked, as a JSON member; 1 if all held. */
static int checks(const struct point *pt, char *out, size_t cap)
{
	int n = ROUNDS * pt->calls;
	long leaf_n = count_entries(pt->leaf->maps.flows);
	long base_n = count_entries(pt->stateful->maps.base_flows);
	__u64 created = flows_created(pt) - pt->created0;
	struct flow_check lc, bc;
	int ok;

	check_flows(pt, 1, n, &lc);
	check_flows(pt, 0, n, &bc);
	ok = pt->lt.expected == n && pt->bt.expected == n && pt->ot.expected == n &&
	     !pt->lt.failed && !pt->bt.failed && !pt->ot.failed &&
	     pt->leaf_n0 == (long)pt->f.n && leaf_n == pt->leaf_n0 &&
	     pt->base_n0 == (long)pt->f.n && base_n == pt->base_n0 && !created &&
	     !lc.missing && !bc.missing && lc.packets == n && bc.packets == n &&
	     !lc.new_flowlets && !lc.moved;
	snprintf(out, cap,
		 "\"checks\":{\"ok\":%s,\"leaf_redirects\":%ld,\"baseline_redirects\":%ld,"
		 "\"overhead_passes\":%ld,\"calls\":%d,\"failed_calls\":%ld,"
		 "\"leaf_other_verdict\":%d,\"baseline_other_verdict\":%d,"
		 "\"leaf_entries_before\":%ld,\"leaf_entries_after\":%ld,"
		 "\"baseline_entries_before\":%ld,\"baseline_entries_after\":%ld,"
		 "\"leaf_flows_created\":%llu,\"leaf_flows_missing\":%ld,"
		 "\"leaf_packets_counted\":%ld,\"leaf_new_flowlets\":%ld,\"leaf_moves\":%ld,"
		 "\"baseline_flows_missing\":%ld,\"baseline_packets_counted\":%ld}",
		 ok ? "true" : "false", pt->lt.expected, pt->bt.expected, pt->ot.expected, n,
		 pt->lt.failed + pt->bt.failed + pt->ot.failed, pt->lt.other, pt->bt.other,
		 pt->leaf_n0, leaf_n, pt->base_n0, base_n, (unsigned long long)created,
		 lc.missing, lc.packets, lc.new_flowlets, lc.moved, bc.missing, bc.packets);
	if (!ok)
		fprintf(stderr, "scale: %s %ld: CHECK FAILED: %s\n", pt->kind, pt->x, out);
	return ok;
}

static void print_rounds(const char *name, const double *v)
{
	printf(",\"%s\":[", name);
	for (int r = 0; r < ROUNDS; r++)
		printf("%s%.1f", r ? "," : "", v[r]);
	printf("]");
}

/* The point's JSON line; rel: against the curve's first point. */
static void print_point(const struct point *pt, const struct point *ref, const char *check_json)
{
	double ovh = med(pt->ovh), ns = med(pt->leafns), bns = med(pt->base);
	double net = med_net(pt->leafns, pt->ovh), bnet = med_net(pt->base, pt->ovh);
	double ref_ns = med(ref->leafns), ref_net = med_net(ref->leafns, ref->ovh);

	printf("{\"section\":\"scale\",\"kind\":\"%s\",\"key\":\"%s_%ld\",\"x\":%ld,"
	       "\"flows\":%u,\"uplinks\":%d,\"routes\":%d,\"flow_table\":%u,"
	       "\"baseline_table\":%u,\"repeat\":1,\"calls\":%d,\"rounds\":%d,"
	       "\"ns\":%.1f,\"net_ns\":%.1f,\"baseline\":\"stateful\",\"baseline_ns\":%.1f,"
	       "\"baseline_net_ns\":%.1f,\"overhead_ns\":%.1f,\"ratio\":%.3f,\"net_ratio\":%.3f,"
	       "\"rel\":%.3f,\"rel_net\":%.3f,\"verdict\":\"XDP_REDIRECT\",%s",
	       pt->kind, pt->kind, pt->x, pt->x, pt->f.n, pt->uplinks, pt->routes,
	       pt->leaf_table, pt->base_table, pt->calls, ROUNDS, ns, net, bns, bnet, ovh,
	       bns > 0 ? ns / bns : 0.0, bnet > 0 ? net / bnet : 0.0,
	       ref_ns > 0 ? ns / ref_ns : 0.0, ref_net > 0 ? net / ref_net : 0.0, check_json);
	/* each round's median, for the spread */
	print_rounds("ns_rounds", pt->leafns);
	print_rounds("baseline_ns_rounds", pt->base);
	print_rounds("overhead_ns_rounds", pt->ovh);
	printf(",\"elapsed_s\":%.1f}\n", elapsed());
	fflush(stdout);
}

/* With flows of the point its rounds did not send: what the uplinks' rate
 * sampler adds to a call (due, against held off, call by call), and the
 * path with warm caches (repeat HOT_REPEAT on one flow, in blocks beside
 * the baseline's, as paths.c). */
static int extras(const struct point *pt)
{
	const __u32 *rest = pt->idx + (size_t)ROUNDS * (size_t)pt->calls;
	int n_rest = (int)pt->f.n - ROUNDS * pt->calls;
	int calls = n_rest / (2 * ROUNDS) - 1 < CALLS ? n_rest / (2 * ROUNDS) - 1 : CALLS;
	double r_on[ROUNDS], r_off[ROUNDS], hot[ROUNDS], hot_base[ROUNDS];
	struct tally t_on = { 0 }, t_off = { 0 }, t_hot = { 0 }, t_hb = { 0 };
	int n = calls > HOT_BATCHES ? calls : HOT_BATCHES, ok = 0;
	double *a = calloc((size_t)n, sizeof(*a)), *b = calloc((size_t)n, sizeof(*b));
	struct probe leaf, base;
	__u8 buf[PKT_MAX];
	__u32 one;

	if (calls < 10 || !a || !b) {
		fprintf(stderr, "scale: %s %ld: too few flows for the extras\n", pt->kind, pt->x);
		goto out;
	}
	probe_roce(&leaf, bpf_program__fd(pt->leaf->progs.xdpleaf_leaf), 1);
	for (int r = 0; r < ROUNDS; r++) {
		const __u32 *slice = rest + (size_t)(2 * r) * (size_t)calls;

		for (int i = 0; i < calls; i++)
			for (int k = 0; k < 2; k++) {
				int due = k ^ (i & 1); /* each first every other call */

				if (sampler(pt, due))
					goto out;
				(due ? a : b)[i] = one_call(&leaf, &pt->f, slice[2 * i + due],
							    due ? &t_on : &t_off);
			}
		r_on[r] = median_ok(a, calls);
		r_off[r] = median_ok(b, calls);
	}
	if (sampler(pt, 0))
		goto out;
	ok = t_on.expected == ROUNDS * calls && t_off.expected == ROUNDS * calls;
	printf("{\"section\":\"scale\",\"kind\":\"sampler\",\"key\":\"sampler\",\"flows\":%u,"
	       "\"calls\":%d,\"rounds\":%d,\"off_ns\":%.1f,\"on_ns\":%.1f,\"cost_ns\":%.1f,"
	       "\"note\":\"the uplink rate sample (due every 50 us per uplink) taken in the "
	       "call, against held off as in the other figures\",\"ok\":%s}\n",
	       pt->f.n, calls, ROUNDS, med(r_off), med(r_on), med(r_on) - med(r_off),
	       ok ? "true" : "false");

	/* one flow, repeated in the buffer the leaf rewrote, as paths.c */
	one = rest[2 * ROUNDS * calls];
	probe_roce(&leaf, bpf_program__fd(pt->leaf->progs.xdpleaf_leaf), HOT_REPEAT);
	probe_roce(&base, bpf_program__fd(pt->stateful->progs.base_stateful), HOT_REPEAT);
	packet_of(&leaf, buf, pt->f.daddr[one], pt->f.qp[one]);
	memcpy(leaf.pkt, buf, leaf.len);
	memcpy(base.pkt, buf, base.len);
	for (int r = 0; r < ROUNDS; r++) {
		if (r & 1) {
			block(&leaf, NULL, NULL, HOT_BATCHES, a, &t_hot);
			block(&base, NULL, NULL, HOT_BATCHES, b, &t_hb);
		} else {
			block(&base, NULL, NULL, HOT_BATCHES, b, &t_hb);
			block(&leaf, NULL, NULL, HOT_BATCHES, a, &t_hot);
		}
		hot[r] = median_ok(a, HOT_BATCHES);
		hot_base[r] = median_ok(b, HOT_BATCHES);
	}
	ok = ok && t_hot.expected == ROUNDS * HOT_BATCHES && t_hb.expected == ROUNDS * HOT_BATCHES;
	printf("{\"section\":\"scale\",\"kind\":\"hot\",\"key\":\"hot\",\"flows\":%u,"
	       "\"repeat\":%d,\"batches\":%d,\"rounds\":%d,\"ns\":%.1f,\"baseline\":\"stateful\","
	       "\"baseline_ns\":%.1f,\"ratio\":%.3f,\"note\":\"one flow, repeat %d per call "
	       "(warm caches, the call's overhead spread over the repeats), as "
	       "bench/perf/paths.c\",\"ok\":%s}\n",
	       pt->f.n, HOT_REPEAT, HOT_BATCHES, ROUNDS, med(hot), med(hot_base),
	       med(hot_base) > 0 ? med(hot) / med(hot_base) : 0.0, HOT_REPEAT,
	       ok ? "true" : "false");
	fflush(stdout);
out:
	free(a);
	free(b);
	if (!ok)
		fprintf(stderr, "scale: %s %ld: the sampler and hot figures failed\n", pt->kind,
			pt->x);
	return ok ? 0 : -1;
}

/* Points a..b-1 of a curve, loaded: ROUNDS rounds, each over every one of
 * them in turn (another first each round); then each checked, printed
 * (against the curve's first point), given the extras if it is point
 * `extra`, and unloaded (its figures stay). */
static int measure_points(struct point *pts, int a, int b, int extra)
{
	char cj[1024];
	int r = 0, m = b - a;

	for (int round = 0; round < ROUNDS; round++)
		for (int k = 0; k < m; k++)
			if (measure_block(&pts[a + (round + k) % m], round))
				return -1;
	for (int i = a; i < b; i++) {
		if (!checks(&pts[i], cj, sizeof(cj)))
			r = -1;
		print_point(&pts[i], &pts[0], cj);
		if (i == extra && extras(&pts[i]))
			r = -1;
		point_unload(&pts[i]);
		fprintf(stderr, "scale: %s %ld: done at %.1f s\n", pts[i].kind, pts[i].x, elapsed());
	}
	return r;
}

/* A curve, its points measured one by one (each loaded, filled and
 * measured in turn), or in turn (all loaded and filled first, then the
 * rounds over all: the machine's drift over the run reaches all alike). */
static int run_curve(struct point *pts, int n, int in_turn, int extra)
{
	int r = 0;

	for (int i = 0; i < n; i++) {
		if (point_load(&pts[i]))
			return -1;
		if (!in_turn)
			r |= measure_points(pts, i, i + 1, extra);
	}
	if (in_turn)
		r |= measure_points(pts, 0, n, extra);
	return r;
}

static void curve_free(struct point *pts, int n)
{
	for (int i = 0; i < n; i++)
		point_unload(&pts[i]);
}

/* Kernel memory per flow entry: the flow tables' memlock (as bpftool
 * shows it) at the smallest and the largest size of the flows curve. */
static void entry_memory(const struct point *a, const struct point *b)
{
	double d = (double)b->leaf_table - (double)a->leaf_table;
	double bd = (double)b->base_table - (double)a->base_table;

	if (a->leaf_memlock <= 0 || b->leaf_memlock <= 0 || d <= 0 || bd <= 0) {
		fprintf(stderr, "scale: no memlock figures of the flow tables\n");
		return;
	}
	printf("{\"section\":\"memory\",\"key\":\"flow_entry\",\"entries\":[%u,%u],"
	       "\"leaf_memlock\":[%lld,%lld],\"baseline_entries\":[%u,%u],"
	       "\"baseline_memlock\":[%lld,%lld],\"leaf_bytes_per_entry\":%.1f,"
	       "\"baseline_bytes_per_entry\":%.1f,\"key_bytes\":%zu,\"value_bytes\":%zu,"
	       "\"baseline_key_bytes\":%zu,\"baseline_value_bytes\":%zu,\"note\":\"memlock "
	       "difference over the entries' difference: preallocated elements with their "
	       "LRU nodes, and the bucket array (a power of two)\"}\n",
	       a->leaf_table, b->leaf_table, a->leaf_memlock, b->leaf_memlock, a->base_table,
	       b->base_table, a->base_memlock, b->base_memlock,
	       (double)(b->leaf_memlock - a->leaf_memlock) / d,
	       (double)(b->base_memlock - a->base_memlock) / bd, sizeof(struct xl_flow),
	       sizeof(struct xl_flow_state), sizeof(struct base_flow),
	       sizeof(struct base_flow_state));
	fflush(stdout);
}

static int flows_curve(void)
{
	static const __u32 N[] = { 1000, 10000, 100000, 1000000 };
	struct point pts[4];
	int r = 0, n = (int)(sizeof(N) / sizeof(N[0]));

	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < n; i++) {
		pts[i].kind = "flows";
		pts[i].x = N[i];
		pts[i].uplinks = 2;
		pts[i].routes = 1;
		pts[i].conf_table = pts[i].base_table = table_for(N[i]);
		r |= flowset_make(&pts[i].f, N[i], 1, 1);
	}
	/* one by one: each table as warm as its own flows keep it; the
	 * extras at 100k, which has flows enough left over */
	r = r ? -1 : run_curve(pts, n, 0, 2);
	entry_memory(&pts[0], &pts[n - 1]);
	curve_free(pts, n);
	return r;
}

static int uplinks_curve(void)
{
	static const int U[] = { 2, 8, XL_MAX_GROUP_MEMBERS };
	struct point pts[3];
	int r = 0, n = (int)(sizeof(U) / sizeof(U[0]));

	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < n; i++) {
		pts[i].kind = "uplinks";
		pts[i].x = U[i];
		pts[i].uplinks = U[i];
		pts[i].routes = 1;
		pts[i].base_table = XL_FLOW_TABLE_SIZE;
		r |= flowset_make(&pts[i].f, SPREAD_FLOWS, 1, 1);
	}
	r = r ? -1 : run_curve(pts, n, 1, -1);
	curve_free(pts, n);
	printf("{\"section\":\"scale\",\"kind\":\"uplinks\",\"key\":\"uplinks_64\",\"x\":64,"
	       "\"uplinks\":64,\"possible\":false,\"why\":\"a group holds at most "
	       "XL_MAX_GROUP_MEMBERS = %d uplinks (include/xdpleaf.h): struct xl_group's "
	       "member arrays, the pickers' loops and the member bit masks are sized by "
	       "it, and the config refuses more members; %d is the largest group "
	       "measured\"}\n", XL_MAX_GROUP_MEMBERS, XL_MAX_GROUP_MEMBERS);
	fflush(stdout);
	return r;
}

/* Routes: 10, 1k and 16k in the table. kind "routes": the same
 * ROUTE_DESTS destinations at every point (spread over the routes, up to
 * 253 hosts a route), each of them several times, as a fabric's traffic
 * goes to a set of hosts whatever the table holds: what the table's size
 * costs while the destinations fit the per-CPU route cache
 * (XL_ROUTE_CACHE). kind "routes_new": one destination per route, every
 * packet to one the cache has not seen (at 16k, most of them): what a
 * miss, the LPM lookup, costs as the table grows. */
#define ROUTE_DESTS 2048
static int routes_curve(const char *kind, int fixed_dests)
{
	static const int R[] = { 10, 1024, XL_MAX_ROUTES };
	struct point pts[3];
	int r = 0, n = (int)(sizeof(R) / sizeof(R[0]));

	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < n; i++) {
		pts[i].kind = kind;
		pts[i].x = R[i];
		pts[i].uplinks = 2;
		pts[i].routes = R[i];
		pts[i].base_table = XL_FLOW_TABLE_SIZE;
		r |= flowset_make(&pts[i].f, SPREAD_FLOWS, R[i],
				  fixed_dests ? ROUTE_DESTS : (__u32)R[i]);
	}
	r = r ? -1 : run_curve(pts, n, 1, -1);
	curve_free(pts, n);
	return r;
}

/* Kernel memory of a leaf loaded from a default config, that of
 * tests/configs/good/minimal.conf (one downlink, every default: the
 * 64K-entry flow table): its maps' memlock one by one, and its
 * programs'. */
static int instance_memory(void)
{
	long long maps = 0, progs = 0;
	struct bpf_program *pr;
	struct bpf_map *m;
	int first = 1;

	P.leaf = NULL;
	if (perf_leaf_config(&P, "# as tests/configs/good/minimal.conf\n[port " IN_PORT "]\n")) {
		fprintf(stderr, "scale: cannot load the leaf with a default config\n");
		return -1;
	}
	printf("{\"section\":\"memory\",\"key\":\"instance\",\"config\":"
	       "\"tests/configs/good/minimal.conf (one downlink, every default)\",\"cpus\":%d,"
	       "\"maps\":{", ncpu);
	bpf_object__for_each_map(m, P.leaf->obj) {
		long long v = memlock_of(bpf_map__fd(m));

		printf("%s\"%s\":%lld", first ? "" : ",", bpf_map__name(m), v);
		first = 0;
		maps += v > 0 ? v : 0;
	}
	bpf_object__for_each_program(pr, P.leaf->obj) {
		long long v = bpf_program__fd(pr) >= 0 ? memlock_of(bpf_program__fd(pr)) : -1;

		progs += v > 0 ? v : 0;
	}
	printf("},\"maps_bytes\":%lld,\"programs_bytes\":%lld,\"total_bytes\":%lld,"
	       "\"flow_table_entries\":%u,\"flow_table_bytes\":%lld,\"note\":\"memlock from "
	       "/proc/self/fdinfo (bpftool's figure); per-CPU maps count every possible "
	       "CPU\"}\n",
	       maps, progs, maps + progs, bpf_map__max_entries(P.leaf->maps.flows),
	       memlock_of(bpf_map__fd(P.leaf->maps.flows)));
	fflush(stdout);
	return 0;
}

/* The first three fields of /proc/loadavg. */
static void loadavg(char *out, size_t cap)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a = -1, b = -1, c = -1;

	if (f) {
		if (fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3)
			a = b = c = -1;
		fclose(f);
	}
	snprintf(out, cap, "%.2f %.2f %.2f", a, b, c);
}

int main(int argc, char **argv)
{
	char load0[64], load1[64];
	cpu_set_t one;
	int r, cpu;

	if (argc > 1) {
		printf("usage: %s\n  the leaf's flowlet path with 1k..1M live flows, 2..16 "
		       "uplinks and 10..16k routes, beside the stateful baseline, and its "
		       "memory: JSON lines on stdout\n", argv[0]);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	memset(&P, 0, sizeof(P));
	ncpu = libbpf_num_possible_cpus();
	conf = malloc(conf_cap);
	if (ncpu <= 0 || !conf) {
		fprintf(stderr, "scale: out of memory, or no CPU count\n");
		return 1;
	}
	/* one CPU: its forwarding caches are the ones the packets fill */
	cpu = sched_getcpu();
	if (cpu < 0)
		cpu = 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		fprintf(stderr, "scale: sched_setaffinity: %s (the caches are per CPU)\n",
			strerror(errno));
	if (write_conf(0, XL_MAX_GROUP_MEMBERS, 1) || perf_ports(&P, conf)) {
		free(conf);
		return 1;
	}
	P_in = perf_ifindex(&P, IN_PORT);
	loadavg(load0, sizeof(load0));
	r = flows_curve();
	r |= uplinks_curve();
	r |= routes_curve("routes", 1);
	r |= routes_curve("routes_new", 0);
	r |= instance_memory();
	perf_close(&P);
	free(conf);
	/* how busy the machine was: every figure depends on it */
	loadavg(load1, sizeof(load1));
	printf("{\"section\":\"scale\",\"kind\":\"run\",\"key\":\"run\",\"cpu\":%d,"
	       "\"cpus\":%d,\"rounds\":%d,\"loadavg_start\":\"%s\",\"loadavg_end\":\"%s\","
	       "\"ok\":%s,\"elapsed_s\":%.1f}\n",
	       cpu, ncpu, ROUNDS, load0, load1, r ? "false" : "true", elapsed());
	fprintf(stderr, "scale: %s in %.1f s\n", r ? "FAILED" : "done", elapsed());
	return r ? 1 : 0;
}
