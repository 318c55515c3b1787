// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* ECN marking and tail drop of `xdpleaf_leaf` under BPF_PROG_TEST_RUN: the
 * egress port's phantom queue (bpf/queue.h), the WRED classes and the CE
 * rewrite (bpf/rewrite.h), docs/ecn.md.
 *
 * Topology: one ingress port (xe-in), one limited downlink (xe-q, 1 Mb/s,
 * so the queue drains 125 bytes per ms and barely moves during a test) and
 * one unlimited downlink (xe-u, no rate: drain_bps 0). Classes: default
 * (id 0), cnp (id 1, DSCP 48, no-mark + no-drop) and roce (id 2, DSCP 26),
 * the configuration's built-in three. Every test starts from zeroed queues
 * and counters and the profiles of reset().
 *
 * The maps are filled as `xdpleaf load` fills them: a configuration text
 * (ecn_apply) through the parser and xl_leaf_fill_maps, again whenever a
 * test changes xe-q or a class; the neighbours through the kernel's table
 * and xl_neigh_sync. Only the dataplane's own state (queues, counters) is
 * written directly.
 *
 * Expected frames are built from scratch by tests/bpf/packets.h (TTL − 1,
 * egress MACs, the expected ECN bits, a fully recomputed IPv4 checksum)
 * and compared byte for byte. The queue length the program sees is
 * predicted from CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns: vtime is
 * written as (now + backlog time) << 6, or the queue is filled by packets
 * whose arrival times are bracketed. Needs root (tests/bpf/fixture.h). */
#define _GNU_SOURCE
#include <linux/pkt_cls.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <linux/bpf.h>

#include "xdpleaf.h"
#include "config/config.h"
#include "base/names.h"
#include "leaf/loader.h"
#include "leaf/netlink_watch.h"
#include "leaf.skel.h"
#include "packets.h"
#include "fixture.h"

/* ---- topology ----------------------------------------------------------- */

/* The three ports under test, then five idle ones that the configuration
 * lists around them (N_TAPS devices in all). */
enum { P_IN, P_Q, P_U, N_PORTS, N_TAPS = N_PORTS + 5 };

static const char *const port_ifname[N_TAPS] = {
	"xe-in", "xe-q", "xe-u", "xe-x0", "xe-x1", "xe-x2", "xe-x4", "xe-x6",
};
/* Slots differ from the port indexes, so a mix-up shows: the loader gives
 * each port its place in the file, and the idle ports take 0-2, 4 and 6
 * (ecn_apply). */
static const __u32 port_slot[N_PORTS] = { 3, 5, 7 };
static const __u8 port_mac[N_TAPS][6] = {
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x00 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x01 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x02 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x10 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x11 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x12 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x14 },
	{ 0x02, 0x00, 0x00, 0x00, 0x02, 0x16 },
};
/* host .2 on each port's subnet */
static const __u8 host_mac[N_PORTS][6] = {
	{ 0x02, 0xaa, 0x00, 0x00, 0x00, 0x02 },
	{ 0x02, 0xaa, 0x00, 0x00, 0x01, 0x02 },
	{ 0x02, 0xaa, 0x00, 0x00, 0x02, 0x02 },
};
static const __u8 host4[N_PORTS][4] = {
	{ 10, 1, 0, 2 }, { 10, 1, 1, 2 }, { 10, 1, 2, 2 },
};
static const __u8 host6[N_PORTS][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 },
};

#define RATE_Q 1000000ULL /* bit/s: 125 bytes per ms */
#define BUF_Q (1U << 20)
#define NS_PER_S 1000000000ULL
/* Time one byte occupies xe-q: 8 us, in ns and in vtime units. */
#define NS_PER_BYTE (8 * NS_PER_S / RATE_Q)
#define VT_PER_BYTE (NS_PER_BYTE << XL_VT_SHIFT)

enum { C_DEFAULT = XL_CLASS_DEFAULT, C_CNP = XL_CLASS_CNP, C_ROCE = 2 };
#define DSCP_CNP 48
#define DSCP_ROCE 26
#define KMIN 1000
#define KMAX 2000

#define ECN_NOT 0
#define ECN_ECT1 1
#define ECN_ECT0 2
#define ECN_CE 3
#define ECN_SAME (-1)

static struct {
	struct leaf *skel;
	int prog_fd;
	int ncpu;
	int tap_fd[N_TAPS];
	__u32 ifindex[N_TAPS];
	/* what ecn_apply writes: xe-q's buffer, overflow and line overhead,
	 * and the keys of each class's section */
	__u32 q_buffer;
	__u32 q_overflow;
	__u32 q_overhead;
	char class_keys[3][96];
	/* xe-q's bulk_gamma line ("" for the default), and the class whose
	 * section says latency = yes (-1: none) */
	char q_bulk_gamma[32];
	int latency_class;
} E;

/* ---- maps ---------------------------------------------------------------- */

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NS_PER_S + (__u64)ts.tv_nsec;
}

/* The maps from the configuration E describes, as `xdpleaf load` and
 * `reload` write them (xl_leaf_fill_maps): the ports in the order that
 * gives port_slot, xe-q limited, VLAN 100 on the three (the tagged
 * case's), a /24 and a /64 to each of them, the three classes. Events
 * off (a test turns them on). Written only when the text changed: the
 * tests' time windows (a queue draining 125 bytes per ms) are short, and a
 * process that has just worked for long is the first to wait for a CPU on
 * a busy machine. */
static void ecn_apply(void)
{
	static const char *const overflow[] = { [XL_OVERFLOW_DROP] = "drop",
						[XL_OVERFLOW_MARK] = "mark" };
	static char *applied;
	struct xl_config cfg;
	char *text;
	int err;

	assert_true(asprintf(&text,
		"[xdpleaf]\nmalformed = pass\nevent_rate = 0\n\n"
		"[port xe-x0]\n[port xe-x1]\n[port xe-x2]\n"
		"[port xe-in]\nvlans = 100\n"
		"[port xe-x4]\n"
		"[port xe-q]\nvlans = 100\nrate = 1M\nbuffer = %u\noverflow = %s\n"
		"line_overhead = %u\n%s"
		"[port xe-x6]\n"
		"[port xe-u]\nvlans = 100\n\n"
		"[route 10.1.0.0/24]\nport = xe-in\n[route 10.1.1.0/24]\nport = xe-q\n"
		"[route 10.1.2.0/24]\nport = xe-u\n"
		"[route 2001:db8::/64]\nport = xe-in\n[route 2001:db8:1::/64]\nport = xe-q\n"
		"[route 2001:db8:2::/64]\nport = xe-u\n\n"
		"[class default]\n%s%s[class cnp]\n%s[class roce]\n%s%s",
		E.q_buffer, overflow[E.q_overflow], E.q_overhead, E.q_bulk_gamma,
		E.class_keys[C_DEFAULT], E.latency_class == C_DEFAULT ? "latency = yes\n" : "",
		E.class_keys[C_CNP], E.class_keys[C_ROCE],
		E.latency_class == C_ROCE ? "latency = yes\n" : "") > 0);
	if (applied && !strcmp(applied, text)) {
		free(text);
		return;
	}
	free(applied);
	applied = NULL;
	assert_int_equal(fixture_config(&cfg, "%s", text), 0);
	err = xl_leaf_fill_maps(E.skel, &cfg);
	xl_config_free(&cfg);
	assert_int_equal(err, 0);
	applied = text;
}

/* xe-q (the only port a test changes); line_overhead stays. */
static void port_set(int p, __u64 drain, __u32 buffer, __u32 overflow)
{
	assert_int_equal(p, P_Q);
	assert_int_equal(drain, RATE_Q);
	E.q_buffer = buffer;
	E.q_overflow = overflow;
	ecn_apply();
}

/* xe-q's line_overhead (reset: 0). */
static void port_overhead_set(int p, __u32 overhead)
{
	assert_int_equal(p, P_Q);
	E.q_overhead = overhead;
	ecn_apply();
}

/* Class id's section: these keys ("" for the built-in profile). */
static void class_keys(__u32 id, const char *keys)
{
	snprintf(E.class_keys[id], sizeof(E.class_keys[id]), "%s", keys);
}

static void class_set(__u32 id, const char *keys)
{
	class_keys(id, keys);
	ecn_apply();
}

/* Class id's profile; pmax as the configuration writes it. The
 * configuration takes only kmin < kmax: a step at K (no mark up to K,
 * every packet above) is kmin K - 1, kmax K, pmax 0 (include/ecn.h). */
static void profile_keys(__u32 id, __u32 kmin, __u32 kmax, const char *pmax)
{
	snprintf(E.class_keys[id], sizeof(E.class_keys[id]),
		 "kmin = %u\nkmax = %u\npmax = %s\n", kmin, kmax, pmax);
}

static void profile_set(__u32 id, __u32 kmin, __u32 kmax, const char *pmax)
{
	profile_keys(id, kmin, kmax, pmax);
	ecn_apply();
}

static __u64 queue_get(int p)
{
	struct xl_queue q;
	__u32 slot = port_slot[p];

	assert_int_equal(bpf_map__lookup_elem(E.skel->maps.queues, &slot, 4,
					      &q, sizeof(q), 0), 0);
	return q.vtime;
}

static void queue_put(int p, __u64 vtime)
{
	struct xl_queue q = { vtime };
	__u32 slot = port_slot[p];

	assert_int_equal(map_set(E.skel->maps.queues, &slot, 4, &q, sizeof(q)),
			 0);
}

/* Make xe-q hold `bytes` now: its queue empties bytes x 8 us from now. */
static void queue_fill_to(__u64 bytes)
{
	queue_put(P_Q, (mono_ns() + bytes * NS_PER_BYTE) << XL_VT_SHIFT);
}

/* Bytes xe-q holds now, from its vtime (docs/ecn.md), 0 if empty. */
static __s64 queue_bytes_now(void)
{
	__s64 ahead = (__s64)(queue_get(P_Q) - (mono_ns() << XL_VT_SHIFT));

	return ahead > 0 ? (ahead >> XL_VT_SHIFT) / (__s64)NS_PER_BYTE : 0;
}

/* xe-q's bulk guard: its entry (the loader's fields, the dataplane's
 * vtime). */
static struct xl_guard guard_get(int p)
{
	struct xl_guard g;
	__u32 slot = port_slot[p];

	assert_int_equal(bpf_map__lookup_elem(E.skel->maps.guards, &slot, 4, &g, sizeof(g), 0),
			 0);
	return g;
}

/* Set the guard's vtime, keeping the loader's fields. */
static void guard_put(int p, __u64 vtime)
{
	struct xl_guard g = guard_get(p);
	__u32 slot = port_slot[p];

	g.vtime = vtime;
	assert_int_equal(map_set(E.skel->maps.guards, &slot, 4, &g, sizeof(g)), 0);
}

/* The guards' tests run xe-q's guard at bulk_gamma 0.5: 500 kbit/s, so a
 * byte takes exactly 16 us and the guard drains 62.5 bytes per ms. */
#define G_NS_PER_BYTE (2 * NS_PER_BYTE)
#define G_MARK (2 * (1500 + XL_FRAME_OVERHEAD)) /* two of a tap's frames */

/* Make xe-q's guard hold `bytes` now. */
static void guard_fill_to(__u64 bytes)
{
	guard_put(P_Q, (mono_ns() + bytes * G_NS_PER_BYTE) << XL_VT_SHIFT);
}

/* guard_stats of (port, class), summed over CPUs (peak: the max). */
static void gstats_read(int p, __u32 cls, struct xl_guard_stats *sum)
{
	struct xl_guard_stats vals[E.ncpu];
	__u32 key = port_slot[p] * XL_MAX_CLASSES + cls;

	memset(sum, 0, sizeof(*sum));
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.guard_stats), &key, vals),
			 0);
	for (int c = 0; c < E.ncpu; c++) {
		sum->packets += vals[c].packets;
		sum->marked += vals[c].marked;
		sum->dropped += vals[c].dropped;
		if (vals[c].peak_bytes > sum->peak_bytes)
			sum->peak_bytes = vals[c].peak_bytes;
	}
}

#define N_QS_FIELDS (XL_QUEUE_STATS_COUNTERS / sizeof(__u64))

/* queue_stats of (port slot, class), summed over CPUs; peak is the max.
 * The counters only: the rest is the entry's label (the loader's). */
static void qstats_read(int p, __u32 cls, struct xl_queue_stats *sum)
{
	struct xl_queue_stats vals[E.ncpu];
	__u32 key = port_slot[p] * XL_MAX_CLASSES + cls;
	__u64 *s = (__u64 *)sum;
	size_t f;
	int c;

	_Static_assert(sizeof(struct xl_queue_stats) % 8 == 0, "all __u64");
	memset(sum, 0, sizeof(*sum));
	assert_int_equal(bpf_map_lookup_elem(
				 bpf_map__fd(E.skel->maps.queue_stats), &key,
				 vals), 0);
	for (c = 0; c < E.ncpu; c++) {
		const __u64 *v = (const __u64 *)&vals[c];

		for (f = 0; f < N_QS_FIELDS; f++) {
			if (f == offsetof(struct xl_queue_stats, peak_bytes) / 8)
				s[f] = v[f] > s[f] ? v[f] : s[f];
			else
				s[f] += v[f];
		}
	}
}

static bool qstats_zero(int p, __u32 cls)
{
	struct xl_queue_stats q, zero = { 0 };

	qstats_read(p, cls, &q);
	return !memcmp(&q, &zero, XL_QUEUE_STATS_COUNTERS);
}

static void pstats_read(int p, struct xl_port_stats *sum)
{
	assert_int_equal(xl_percpu_sum(bpf_map__fd(E.skel->maps.port_stats), &port_slot[p],
				       sizeof(*sum), XL_PORT_STATS_COUNTERS, sum), 0);
}

/* Every test starts here: xe-q at 1 Mb/s with a 1 MiB buffer that drops,
 * xe-u and xe-in unlimited, the default profiles, queues and counters
 * zero. */
static int reset(void **state)
{
	__u32 p, c;

	(void)state;
	E.q_buffer = BUF_Q;
	E.q_overflow = XL_OVERFLOW_DROP;
	E.q_overhead = 0;
	E.q_bulk_gamma[0] = '\0';
	E.latency_class = -1;
	for (c = 0; c < 3; c++)
		profile_keys(c, KMIN, KMAX, c == C_ROCE ? "0.2" : "0.01");
	ecn_apply();
	for (p = 0; p < N_PORTS; p++) {
		queue_put((int)p, 0);
		assert_int_equal(percpu_zero(E.skel->maps.port_stats,
					     port_slot[p],
					     sizeof(struct xl_port_stats), E.ncpu), 0);
		for (c = 0; c < XL_MAX_CLASSES; c++) {
			assert_int_equal(
				percpu_zero(E.skel->maps.queue_stats,
					    port_slot[p] * XL_MAX_CLASSES + c,
					    sizeof(struct xl_queue_stats), E.ncpu), 0);
			assert_int_equal(percpu_zero(E.skel->maps.guard_stats,
						     port_slot[p] * XL_MAX_CLASSES + c,
						     sizeof(struct xl_guard_stats), E.ncpu),
					 0);
		}
		guard_put((int)p, 0);
	}
	return 0;
}

/* The ports' hosts (.2 on each subnet) as neighbours in the kernel's
 * table, where the product learns them, and copied into `neigh` by the
 * loader's own code (xl_neigh_sync). */
static int neighbours(void)
{
	for (int p = 0; p < N_PORTS; p++)
		SETUP_CHECK(!fixture_neigh_add(E.ifindex[p], 4, host4[p], host_mac[p]) &&
			    !fixture_neigh_add(E.ifindex[p], 6, host6[p], host_mac[p]),
			    "neighbours on %s: %s\n", port_ifname[p], strerror(errno));
	SETUP_CHECK(!xl_neigh_sync(bpf_map__fd(E.skel->maps.neigh),
				   bpf_map__fd(E.skel->maps.ports),
				   bpf_map__fd(E.skel->maps.fwd_gen)), "xl_neigh_sync failed\n");
	return 0;
}

static int group_setup(void **state)
{
	struct leaf *sk;
	int p;

	(void)state;
	if (fixture_ports(N_TAPS, port_ifname, port_mac, E.tap_fd, E.ifindex))
		return -1;
	E.ncpu = libbpf_num_possible_cpus();
	SETUP_CHECK(E.ncpu > 0, "libbpf_num_possible_cpus: %d\n", E.ncpu);
	E.skel = sk = leaf__open_and_load();
	SETUP_CHECK(sk, "leaf__open_and_load: %s\n", strerror(errno));
	fixture_fwd_gen_fd = bpf_map__fd(sk->maps.fwd_gen);
	E.prog_fd = bpf_program__fd(sk->progs.xdpleaf_leaf);
	reset(NULL);
	/* what the tests expect of the loader: each port at its slot */
	for (p = 0; p < N_PORTS; p++) {
		struct xl_port port;

		SETUP_CHECK(!bpf_map_lookup_elem(bpf_map__fd(sk->maps.ports), &E.ifindex[p],
						 &port) && port.slot == port_slot[p],
			    "ports[%s] is not at slot %u\n", port_ifname[p], port_slot[p]);
	}
	return neighbours();
}

static int group_teardown(void **state)
{
	(void)state;
	leaf__destroy(E.skel);
	E.skel = NULL;
	fixture_close(N_TAPS, E.tap_fd);
	return 0;
}

/* ---- packets ------------------------------------------------------------- */

#define ETH_IP4_UDP 42 /* header bytes before the payload */
#define ETH_IP6_UDP 62

/* A UDP frame of frame_len bytes from the host on xe-in to the host on
 * port `to`, with TOS / traffic class `tos`. */
static struct pkt_spec pkt(int family, int to, __u8 tos, int frame_len)
{
	struct pkt_spec s = {
		.family = family, .ttl = 64, .tos = tos, .ip_id = 0x4242,
		.frag_off = 0x4000, .flowlabel = 0xabcde, .proto = PKT_UDP,
		.sport = 40000, .dport = 5000, .payload_seed = 0x5a,
	};

	memcpy(s.dst, port_mac[P_IN], 6);
	memcpy(s.src, host_mac[P_IN], 6);
	memcpy(s.saddr, family == 4 ? host4[P_IN] : host6[P_IN],
	       family == 4 ? 4 : 16);
	memcpy(s.daddr, family == 4 ? host4[to] : host6[to],
	       family == 4 ? 4 : 16);
	s.payload_len = frame_len - (family == 4 ? ETH_IP4_UDP : ETH_IP6_UDP);
	return s;
}

#define DSCP_ECN(d, e) ((__u8)((d) << 2 | (e)))

/* The frame that must leave on `egress`: TTL − 1, new MACs and, unless
 * ECN_SAME, the ECN field set to ecn; built (and checksummed) anew. */
static size_t build_out(const struct pkt_spec *in, int egress, int ecn,
			__u8 *buf)
{
	struct pkt_spec s = *in;

	s.ttl--;
	memcpy(s.src, port_mac[egress], 6);
	memcpy(s.dst, host_mac[egress], 6);
	if (ecn != ECN_SAME)
		s.tos = (__u8)((s.tos & ~XL_ECN_MASK) | ecn);
	return pkt_build(&s, buf, NULL);
}

static __u32 run_frame(const __u8 *frame, size_t len, __u8 *out,
		       __u32 *out_len)
{
	struct xdp_md ctx = { .data_end = (__u32)len,
			      .ingress_ifindex = E.ifindex[P_IN] };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = (__u32)len, .data_out = out,
		    .data_size_out = PKT_MAX, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx),
		    .repeat = 1 /* a repeat would run on the rewritten frame */);
	int rc = bpf_prog_test_run_opts(E.prog_fd, &opts);

	if (rc)
		fail_msg("test_run: %s", strerror(-rc));
	*out_len = opts.data_size_out;
	return opts.retval;
}

static const char *verdict_name(__u32 v)
{
	return v < XL_VERDICT_MAX ? xl_verdict_names[v] : "?";
}

/* ECN field of an output frame (no VLAN tag: l3 at 14). */
static int ecn_of(const __u8 *f, size_t vlan)
{
	const __u8 *ip = f + 14 + vlan;

	return (ip[0] >> 4) == 4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
}

/* The IPv4 header of a frame sums to 0xFFFF, summed here from scratch. */
static void check_ip4_csum(const __u8 *f, size_t vlan, const char *what)
{
	const __u8 *ip = f + 14 + vlan;
	size_t hlen = (size_t)(ip[0] & 0xf) * 4;

	if ((ip[0] >> 4) == 4 && pkt_fold(pkt_sum(0, ip, hlen)) != 0)
		fail_msg("%s: output IPv4 header checksum 0x%04x is invalid",
			 what, pkt_get16(ip + 10));
}

/* Forward s and check the verdict and every byte of the output against a
 * frame built from scratch with ECN field `ecn` (or ECN_SAME). */
static void expect_fwd(const struct pkt_spec *s, int egress, int ecn,
		       const char *what)
{
	static __u8 in[PKT_MAX], want[PKT_MAX], out[PKT_MAX];
	size_t len = pkt_build(s, in, NULL), want_len, i;
	size_t vlan = s->nvlan ? 4 : 0;
	__u32 out_len, v;

	want_len = build_out(s, egress, ecn, want);
	v = run_frame(in, len, out, &out_len);
	if (v != XDP_REDIRECT)
		fail_msg("%s: verdict %s, want redirect", what, verdict_name(v));
	if (out_len != want_len)
		fail_msg("%s: %u bytes out, want %zu", what, out_len, want_len);
	for (i = 0; i < want_len && out[i] == want[i]; i++)
		;
	if (i < want_len)
		fail_msg("%s: output byte %zu is %02x, want %02x (ECN out %d, "
			 "want %d)", what, i, out[i], want[i], ecn_of(out, vlan),
			 ecn == ECN_SAME ? ecn_of(in, vlan) : ecn);
	check_ip4_csum(out, vlan, what);
}

/* The frame is dropped, unchanged. */
static void expect_drop(const struct pkt_spec *s, const char *what)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
	size_t len = pkt_build(s, in, NULL);
	__u32 out_len, v;

	v = run_frame(in, len, out, &out_len);
	if (v != XDP_DROP)
		fail_msg("%s: verdict %s, want drop", what, verdict_name(v));
	if (out_len != len || memcmp(in, out, len))
		fail_msg("%s: a dropped frame was modified", what);
}

/* Queue time of a frame at xe-q, in vtime units (exact at 1 Mb/s). */
static __u64 vt_of(size_t frame_len)
{
	return (__u64)frame_len * VT_PER_BYTE;
}

/* ---- (1), (2): ECT packets above Kmax get CE ---------------------------- */

/* Three 1000-byte Not-ECT frames: xe-q then holds about 3000 bytes, above
 * Kmax (2000), and nothing was marked. */
static void fill_past_kmax(int family)
{
	struct pkt_spec s = pkt(family, P_Q, DSCP_ECN(10, ECN_NOT), 1000);
	int i;

	for (i = 0; i < 3; i++)
		expect_fwd(&s, P_Q, ECN_SAME, "filling xe-q (Not-ECT)");
	assert_true(queue_bytes_now() > KMAX);
}

static void ip4_ect_marked_above_kmax(void **state)
{
	struct pkt_spec s;
	struct xl_queue_stats q;
	struct events_seen seen;
	const struct xl_event *e = NULL;

	(void)state;
	fill_past_kmax(4);
	/* every mark an event (mark_event_sample = 1) */
	assert_int_equal(events_enable(E.skel->maps.event_cfg, 1000000), 0);
	assert_int_equal(events_take(E.skel->maps.events, &seen), 0);
	s = pkt(4, P_Q, DSCP_ECN(2, ECN_ECT0), 1000);
	expect_fwd(&s, P_Q, ECN_CE, "ECT(0) DSCP 2");
	s = pkt(4, P_Q, DSCP_ECN(46, ECN_ECT1), 1000);
	expect_fwd(&s, P_Q, ECN_CE, "ECT(1) DSCP 46");
	s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 200);
	s.nvlan = 1;
	s.tci[0] = 100;
	expect_fwd(&s, P_Q, ECN_CE, "ECT(0) behind a VLAN tag");
	/* (IPv4 options go to the kernel: the leaf neither queues nor
	 * marks them) */
	s = pkt(4, P_Q, DSCP_ECN(DSCP_ROCE, ECN_ECT0), 300);
	s.dport = PKT_ROCEV2_PORT;
	s.bth = 1;
	s.payload_len -= PKT_BTH_LEN + PKT_ICRC_LEN;
	expect_fwd(&s, P_Q, ECN_CE, "RoCEv2 ECT(0) DSCP 26");

	assert_int_equal(events_take(E.skel->maps.events, &seen), 0);
	assert_int_equal(events_enable(E.skel->maps.event_cfg, 0), 0);
	assert_int_equal(events_of(&seen, XL_EV_MARK, &e), 4);
	/* the last, the RoCEv2 packet: on xe-q, its DSCP, its QP in the flow */
	assert_int_equal(e->h.ifindex, E.ifindex[P_Q]);
	assert_int_equal(e->h.aux, DSCP_ROCE);
	assert_true(e->h.has_flow && e->h.flow.dport == PKT_ROCEV2_PORT);
	assert_true(e->h.snap_len == XL_EVENT_SNAP && e->h.pkt_len > XL_EVENT_SNAP);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.marked, 3);
	assert_int_equal(q.enq_packets, 3 + 3);
	assert_int_equal(q.dropped, 0);
	qstats_read(P_Q, C_ROCE, &q);
	assert_int_equal(q.marked, 1);
	assert_int_equal(q.enq_packets, 1);
	assert_true(qstats_zero(P_Q, C_CNP));
}

/* IPv6: ECN is the bottom of the traffic class, split over bytes 0-1. */
static void ip6_ect_marked_above_kmax(void **state)
{
	static const struct { __u8 tc; __u32 flow; } cases[] = {
		{ DSCP_ECN(DSCP_ROCE, ECN_ECT0), 0xabcde },
		{ DSCP_ECN(0, ECN_ECT1), 0x00000 },
		{ DSCP_ECN(63, ECN_ECT0), 0xfffff },
		{ DSCP_ECN(0x2a, ECN_ECT1), 0x12345 },
	};
	static __u8 in[PKT_MAX], out[PKT_MAX];
	struct xl_queue_stats q;
	size_t i;

	(void)state;
	fill_past_kmax(6);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pkt_spec s = pkt(6, P_Q, cases[i].tc, 400);
		char what[64];
		__u32 out_len, got_tc, got_flow;
		size_t len;

		s.flowlabel = cases[i].flow;
		snprintf(what, sizeof(what), "IPv6 tc 0x%02x flow 0x%05x",
			 cases[i].tc, cases[i].flow);
		expect_fwd(&s, P_Q, ECN_CE, what);
		/* the same again, fields read from the wire one by one */
		len = pkt_build(&s, in, NULL);
		assert_int_equal(run_frame(in, len, out, &out_len),
				 XDP_REDIRECT);
		got_tc = (__u32)((out[14] & 0x0f) << 4 | out[15] >> 4);
		got_flow = (__u32)((out[15] & 0x0f) << 16 | out[16] << 8 |
				   out[17]);
		assert_int_equal(out[14] >> 4, 6);
		assert_int_equal(got_tc >> 2, cases[i].tc >> 2); /* DSCP */
		assert_int_equal(got_tc & 3, ECN_CE);
		assert_int_equal(got_flow, cases[i].flow);
		assert_int_equal(out[21], 63); /* hop limit */
	}
	qstats_read(P_Q, C_ROCE, &q);
	assert_int_equal(q.marked, 2);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.marked, 6);
	assert_int_equal(q.enq_packets, 3 + 6);
}

/* ---- (3): Not-ECT is never marked --------------------------------------- */

static void not_ect_never_marked(void **state)
{
	struct xl_queue_stats q;
	__u64 enq = 0;
	__u32 c;
	int i;

	(void)state;
	queue_fill_to(6000); /* 48 ms, three times Kmax */
	for (i = 0; i < 256; i++) {
		struct pkt_spec s = pkt(i % 2 ? 6 : 4, P_Q,
					DSCP_ECN(i % 64, ECN_NOT), 128);
		char what[48];

		snprintf(what, sizeof(what), "Not-ECT #%d DSCP %d IPv%d", i,
			 i % 64, s.family);
		expect_fwd(&s, P_Q, ECN_SAME, what);
	}
	assert_true(queue_bytes_now() > KMAX);
	for (c = 0; c < XL_MAX_CLASSES; c++) {
		qstats_read(P_Q, c, &q);
		assert_int_equal(q.marked, 0);
		assert_int_equal(q.dropped, 0);
		if (q.enq_packets)
			assert_true(q.peak_bytes > KMAX);
		enq += q.enq_packets;
	}
	assert_int_equal(enq, 256);
}

/* ---- (4): CNPs are neither marked nor dropped ---------------------------- */

static void cnp_never_marked_never_dropped(void **state)
{
	struct xl_port_stats ps;
	struct xl_queue_stats q;
	__u64 vt0, vt1, sent = 0;
	int i;

	(void)state;
	port_set(P_Q, RATE_Q, 4096, XL_OVERFLOW_DROP);
	queue_fill_to(6000); /* more than the buffer */
	{
		struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 100);

		expect_drop(&s, "default class, full buffer");
	}
	vt0 = queue_get(P_Q);
	for (i = 0; i < 64; i++) {
		int ecn = i % 4 == 3 ? ECN_CE : i % 2 ? ECN_ECT1 : ECN_ECT0;
		struct pkt_spec s = pkt(i % 3 ? 4 : 6, P_Q,
					DSCP_ECN(DSCP_CNP, ecn), 100 + i);
		char what[48];

		snprintf(what, sizeof(what), "CNP #%d ECN %d IPv%d", i, ecn,
			 s.family);
		expect_fwd(&s, P_Q, ECN_SAME, what);
		sent += vt_of(100 + (size_t)i);
	}
	/* each CNP still took its place in the (busy) queue */
	vt1 = queue_get(P_Q);
	assert_int_equal(vt1 - vt0, sent);

	/* overflow = mark: default ECT is marked and not queued, CNPs stay
	 * unmarked and are queued */
	port_set(P_Q, RATE_Q, 4096, XL_OVERFLOW_MARK);
	/* full again: the queue drains 125 bytes per ms, and a starved
	 * process may spend 100 ms in the configuration's refill */
	queue_fill_to(6000);
	vt1 = queue_get(P_Q);
	{
		struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 100);
		struct pkt_spec c = pkt(6, P_Q, DSCP_ECN(DSCP_CNP, ECN_ECT0),
					100);

		expect_fwd(&s, P_Q, ECN_CE, "default class, overflow = mark");
		assert_int_equal(queue_get(P_Q), vt1);
		expect_fwd(&c, P_Q, ECN_SAME, "CNP, overflow = mark");
		assert_int_equal(queue_get(P_Q), vt1 + vt_of(100));
	}

	qstats_read(P_Q, C_CNP, &q);
	assert_int_equal(q.enq_packets, 65);
	assert_int_equal(q.marked, 0);
	assert_int_equal(q.dropped, 0);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 2);
	assert_int_equal(q.dropped, 1);
	assert_int_equal(q.marked, 1);
	pstats_read(P_IN, &ps);
	assert_int_equal(ps.reason.tail_drop, 1);
	assert_int_equal(ps.reason.forwarded, 66);
}

/* ---- the built-in roce profile fitted to a small buffer (docs/ecn.md) --- */

/* The paper's 5K / 200K on a 25,000-byte port: fitted (XL_CLASS_FIT), Kmax
 * falls to half the buffer and a packet finding 13,000 bytes is marked;
 * the same thresholds used as they are (Pmax 0, so that the slope marks
 * nothing) leave it unmarked. */
static void roce_profile_fitted_to_buffer(void **state)
{
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(DSCP_ROCE, ECN_ECT0), 100);
	struct pkt_spec d = pkt(6, P_Q, DSCP_ECN(0, ECN_ECT0), 100);

	(void)state;
	port_set(P_Q, RATE_Q, 25000, XL_OVERFLOW_DROP);
	/* the built-in thresholds, the paper's: roce's fitted, default's not */
	class_keys(C_ROCE, "pmax = 0\n");
	class_set(C_DEFAULT, "pmax = 0\n");
	queue_fill_to(13000);
	expect_fwd(&s, P_Q, ECN_CE, "roce, fitted, 13000 of 25000 bytes");
	expect_fwd(&d, P_Q, ECN_SAME, "default, as it is, 13000 of 25000 bytes");
	queue_fill_to(12000); /* below half the buffer: the fitted slope, Pmax 0 */
	expect_fwd(&s, P_Q, ECN_SAME, "roce, fitted, 12000 of 25000 bytes");
	/* a buffer that holds twice Kmax: the profile as it is */
	port_set(P_Q, RATE_Q, 2 * XL_WRED_PAPER_KMAX, XL_OVERFLOW_DROP);
	queue_fill_to(13000);
	expect_fwd(&s, P_Q, ECN_SAME, "roce, 13000 of 409600 bytes");
}

/* ---- (5): a full buffer drops, or marks --------------------------------- */

/* A 3000-byte buffer takes three 1000-byte frames; WRED is off (Kmin and
 * Kmax far above the buffer), so only the buffer marks or drops. */
static void fill_small_buffer(__u32 overflow)
{
	int i;

	profile_keys(C_DEFAULT, 1000000 - 1, 1000000, "0.5");
	port_set(P_Q, RATE_Q, 3000, overflow);
	for (i = 0; i < 3; i++) {
		struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 1000);

		expect_fwd(&s, P_Q, ECN_SAME, "filling a 3000-byte buffer");
	}
}

static void overflow_drop(void **state)
{
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 1000);
	struct pkt_spec n = pkt(6, P_Q, DSCP_ECN(0, ECN_NOT), 1000);
	struct xl_port_stats in0, in1, q0, q1;
	struct xl_queue_stats q;
	struct events_seen seen;
	const struct xl_event *e = NULL;
	__u64 vt;

	(void)state;
	fill_small_buffer(XL_OVERFLOW_DROP);
	pstats_read(P_IN, &in0);
	pstats_read(P_Q, &q0);
	vt = queue_get(P_Q);
	assert_int_equal(events_enable(E.skel->maps.event_cfg, 1000000), 0);
	assert_int_equal(events_take(E.skel->maps.events, &seen), 0);
	expect_drop(&s, "ECT(0) into a full buffer");
	expect_drop(&n, "Not-ECT into a full buffer");
	assert_int_equal(events_take(E.skel->maps.events, &seen), 0);
	assert_int_equal(events_enable(E.skel->maps.event_cfg, 0), 0);
	/* each drop an event: on the ingress port, its reason, its flow */
	assert_int_equal(events_of(&seen, XL_EV_DROP, &e), 2);
	assert_int_equal(e->h.reason, XL_R_TAIL_DROP);
	assert_int_equal(e->h.ifindex, E.ifindex[P_IN]);
	assert_true(e->h.has_flow && e->h.flow.family == 6);
	assert_int_equal(queue_get(P_Q), vt); /* a drop takes no space */
	pstats_read(P_IN, &in1);
	pstats_read(P_Q, &q1);
	assert_int_equal(in1.reason.tail_drop - in0.reason.tail_drop,
			 2);
	assert_int_equal(in1.verdict.drop - in0.verdict.drop, 2);
	assert_int_equal(in1.reason.forwarded, in0.reason.forwarded);
	assert_int_equal(in1.rx_packets - in0.rx_packets, 2);
	assert_int_equal(q1.tx_packets, q0.tx_packets);
	assert_int_equal(q1.tx_packets, 3);
	/* counted on (egress slot, class), nothing on the ingress slot */
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 5);
	assert_int_equal(q.enq_bytes, 5000);
	assert_int_equal(q.dropped, 2);
	assert_int_equal(q.marked, 0);
	assert_true(qstats_zero(P_IN, C_DEFAULT));
	assert_true(qstats_zero(P_U, C_DEFAULT));
	/* a frame that still fits, once the queue drained, is taken */
	queue_put(P_Q, 0);
	expect_fwd(&s, P_Q, ECN_SAME, "after the queue emptied");
}

static void overflow_mark(void **state)
{
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 1000);
	struct pkt_spec s1 = pkt(6, P_Q, DSCP_ECN(12, ECN_ECT1), 1000);
	struct pkt_spec n = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 1000);
	struct xl_port_stats in;
	struct xl_queue_stats q;
	__u64 vt;

	(void)state;
	fill_small_buffer(XL_OVERFLOW_MARK);
	vt = queue_get(P_Q);
	expect_fwd(&s, P_Q, ECN_CE, "ECT(0), full buffer, overflow = mark");
	assert_int_equal(queue_get(P_Q), vt); /* not queued */
	expect_fwd(&s1, P_Q, ECN_CE, "ECT(1) IPv6, overflow = mark");
	assert_int_equal(queue_get(P_Q), vt);
	expect_fwd(&n, P_Q, ECN_SAME, "Not-ECT, overflow = mark");
	assert_int_equal(queue_get(P_Q), vt);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 6);
	assert_int_equal(q.marked, 2);
	assert_int_equal(q.dropped, 0);
	pstats_read(P_IN, &in);
	assert_int_equal(in.reason.tail_drop, 0);
	assert_int_equal(in.reason.forwarded, 6);
	assert_int_equal(in.verdict.redirect, 6);
}

/* ---- (6): queue_stats ---------------------------------------------------- */

#define N_STATS_PKTS 14
#define STATS_LEN 500    /* 4 ms each at 1 Mb/s */
#define STATS_K 2250     /* a step: marked above, between 2000 and 2500 */

/* 14 frames of 500 bytes back to back into an empty xe-q: packet k finds
 * k x 500 bytes minus what drained since packet 0 (125 bytes per ms). The
 * arrival times are bracketed with CLOCK_MONOTONIC, so each queue length
 * is known to an interval; when an interval straddles a histogram bucket
 * or the marking threshold (a slow, preempted run) the sequence is run
 * again. */
static bool stats_sequence(char *why, size_t whylen)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
	__u64 tb[N_STATS_PKTS], ta[N_STATS_PKTS], lo[N_STATS_PKTS];
	__u64 hist[XL_QHIST_BUCKETS] = { 0 }, marked = 0, vt, t_first;
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), STATS_LEN);
	struct xl_queue_stats q;
	int ecn[N_STATS_PKTS];
	size_t len = pkt_build(&s, in, NULL);
	int k, b;

	reset(NULL);
	profile_set(C_DEFAULT, STATS_K - 1, STATS_K, "0"); /* a step at STATS_K */
	for (k = 0; k < N_STATS_PKTS; k++) {
		__u32 out_len, v;

		tb[k] = mono_ns();
		v = run_frame(in, len, out, &out_len);
		ta[k] = mono_ns();
		assert_int_equal(v, XDP_REDIRECT);
		ecn[k] = ecn_of(out, 0);
		check_ip4_csum(out, 0, "stats sequence");
	}
	/* vtime = time of packet 0 + 14 packets: packet 0 found it empty */
	vt = queue_get(P_Q);
	t_first = (vt >> XL_VT_SHIFT) - N_STATS_PKTS * STATS_LEN * NS_PER_BYTE;
	assert_int_equal(vt & ((1 << XL_VT_SHIFT) - 1), 0);
	if (t_first < tb[0] || t_first > ta[0])
		fail_msg("vtime %llu: packet 0 at %llu ns, not between %llu and "
			 "%llu", (unsigned long long)vt,
			 (unsigned long long)t_first,
			 (unsigned long long)tb[0], (unsigned long long)ta[0]);
	for (k = 0; k < N_STATS_PKTS; k++) {
		/* drained since packet 0: between 1 ns and ta[k] − t_first */
		__u64 hi = k ? (__u64)k * STATS_LEN - 1 : 0;
		__u64 drained = (ta[k] - t_first + NS_PER_BYTE - 1) /
				NS_PER_BYTE;

		lo[k] = k ? (__u64)k * STATS_LEN - drained : 0;
		if (xl_qhist_bucket(lo[k]) != xl_qhist_bucket(hi) ||
		    (lo[k] > STATS_K) != (hi > STATS_K)) {
			snprintf(why, whylen, "packet %d: queue %llu..%llu "
				 "bytes is ambiguous", k,
				 (unsigned long long)lo[k],
				 (unsigned long long)hi);
			return false;
		}
		hist[xl_qhist_bucket(hi)]++;
		if (hi > STATS_K) {
			marked++;
			assert_int_equal(ecn[k], ECN_CE);
		} else {
			assert_int_equal(ecn[k], ECN_ECT0);
		}
	}
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, N_STATS_PKTS);
	assert_int_equal(q.enq_bytes, N_STATS_PKTS * STATS_LEN);
	assert_int_equal(q.marked, marked);
	assert_int_equal(q.marked, 9); /* packets 5..13 */
	assert_int_equal(q.dropped, 0);
	assert_true(q.peak_bytes >= lo[N_STATS_PKTS - 1] &&
		    q.peak_bytes <= (N_STATS_PKTS - 1) * STATS_LEN - 1);
	for (b = 0; b < XL_QHIST_BUCKETS; b++)
		if (q.hist[b] != hist[b])
			fail_msg("hist[%d] = %llu, want %llu", b,
				 (unsigned long long)q.hist[b],
				 (unsigned long long)hist[b]);
	/* by hand: 0 | 499 | 999 | 1499 1999 | 2499..3999 | 4499..6499 */
	assert_int_equal(hist[0], 1);
	assert_int_equal(hist[9], 1);
	assert_int_equal(hist[10], 1);
	assert_int_equal(hist[11], 2);
	assert_int_equal(hist[12], 4);
	assert_int_equal(hist[13], 5);
	for (b = C_CNP; b < XL_MAX_CLASSES; b++)
		assert_true(qstats_zero(P_Q, (__u32)b));
	return true;
}

static void queue_stats_match(void **state)
{
	char why[128] = "";
	int tries;

	(void)state;
	for (tries = 0; tries < 10; tries++) {
		if (stats_sequence(why, sizeof(why)))
			return;
		print_message("# retrying: %s\n", why);
	}
	fail_msg("the queue lengths stayed ambiguous: %s", why);
}

/* ---- (7): an unlimited port keeps no queue ------------------------------ */

static void unlimited_port_never_marks(void **state)
{
	__u64 stale;
	__u32 c;
	int i, round;

	(void)state;
	/* any queue of more than a byte would be above Kmax, and any buffer
	 * full */
	profile_keys(C_DEFAULT, 0, 1, "0.5");
	profile_set(C_ROCE, 0, 1, "0.5");
	for (round = 0; round < 2; round++) {
		stale = round ? (mono_ns() + 10 * NS_PER_S) << XL_VT_SHIFT : 0;
		queue_put(P_U, stale);
		for (i = 0; i < 100; i++) {
			int ecn = i % 4;
			struct pkt_spec s = pkt(i % 2 ? 6 : 4, P_U,
						DSCP_ECN(i % 64, ecn), 1500);
			char what[64];

			snprintf(what, sizeof(what),
				 "unlimited port, #%d ECN %d IPv%d", i, ecn,
				 s.family);
			expect_fwd(&s, P_U, ECN_SAME, what);
		}
		assert_int_equal(queue_get(P_U), stale);
	}
	for (c = 0; c < XL_MAX_CLASSES; c++)
		assert_true(qstats_zero(P_U, c));
	assert_int_equal(queue_get(P_Q), 0);
}

/* ---- (8): CE stays CE ---------------------------------------------------- */

static void already_ce_stays_ce(void **state)
{
	struct xl_queue_stats q;
	int fam;

	(void)state;
	for (fam = 4; fam <= 6; fam += 2) {
		struct pkt_spec s = pkt(fam, P_Q, DSCP_ECN(34, ECN_CE), 200);

		queue_put(P_Q, 0); /* empty: below Kmin, not marked */
		expect_fwd(&s, P_Q, ECN_CE, "CE into an empty queue");
		queue_fill_to(5000); /* above Kmax: "marked" again */
		expect_fwd(&s, P_Q, ECN_CE, "CE above Kmax");
	}
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 4);
	assert_int_equal(q.marked, 2); /* counted as marked above Kmax */
}

/* ---- more: every TOS, checksum edges, randomness, concurrency ----------- */

/* The IPv4 header checksum field of the frame built from s. */
static __u16 ip4_csum_of(const struct pkt_spec *s)
{
	static __u8 buf[PKT_MAX];
	struct pkt_off o;

	pkt_build(s, buf, &o);
	return pkt_get16(buf + o.l3 + 10);
}

/* An IP ID for which the header checksum is 0x0000 after forwarding with
 * ECN field ecn (TTL − 1): the edge an incremental update can get wrong. */
static __u16 id_for_zero_csum_out(const struct pkt_spec *in, int ecn)
{
	struct pkt_spec t = *in;
	__u32 id;

	t.ttl--;
	t.tos = (__u8)((t.tos & ~3) | ecn);
	for (id = 0; id <= 0xffff; id++) {
		t.ip_id = (__u16)id;
		if (ip4_csum_of(&t) == 0)
			return (__u16)id;
	}
	fail_msg("no IP ID gives a zero checksum");
	return 0;
}

/* Every TOS byte above Kmax: ECT(0), ECT(1) and CE leave as CE except
 * for the CNP DSCP, Not-ECT as it came; the incrementally updated
 * checksum equals a full recomputation, also where it is 0x0000. */
static void ip4_every_tos_above_kmax(void **state)
{
	static const __u16 ids[] = { 0x0000, 0x1234, 0xffff };
	unsigned int tos;
	size_t i;

	(void)state;
	queue_fill_to(6000);
	for (tos = 0; tos < 256; tos++) {
		int e = (int)(tos & 3), d = (int)(tos >> 2);
		int want = e == ECN_NOT || d == DSCP_CNP ? ECN_SAME : ECN_CE;

		for (i = 0; i < 4; i++) {
			struct pkt_spec s = pkt(4, P_Q, (__u8)tos, 64);
			char what[64];

			if (i < 3)
				s.ip_id = ids[i];
			else if (tos % 64 == 1 || tos % 64 == 2)
				s.ip_id = id_for_zero_csum_out(
					&s, want == ECN_SAME ? e : ECN_CE);
			else
				continue;
			snprintf(what, sizeof(what), "TOS 0x%02x IP ID 0x%04x",
				 tos, s.ip_id);
			expect_fwd(&s, P_Q, want, what);
		}
	}
	assert_true(queue_bytes_now() > KMAX);
}

/* Between Kmin and Kmax the mark is random: with the queue held at the
 * midpoint and Pmax = 1 − 2^-32, about half the ECT frames are marked
 * (within 4.5 sigma of 4000 draws: the kernel's random numbers are not
 * seeded, so the bound is wide enough never to flake), and the counter
 * agrees. */
static void wred_random_at_midpoint(void **state)
{
	const int n = 4000;
	struct xl_queue_stats q;
	int i, marked = 0;
	double p = 0.5, frac;

	(void)state;
	profile_set(C_DEFAULT, 0, 12500, "1");
	for (i = 0; i < n; i++) {
		struct pkt_spec s = pkt(i % 2 ? 6 : 4, P_Q,
					DSCP_ECN(0, i % 3 ? ECN_ECT0 : ECN_ECT1),
					100);
		static __u8 in[PKT_MAX], out[PKT_MAX];
		size_t len = pkt_build(&s, in, NULL);
		__u32 out_len;

		queue_fill_to(6250); /* the midpoint, again before each */
		assert_int_equal(run_frame(in, len, out, &out_len),
				 XDP_REDIRECT);
		marked += ecn_of(out, 0) == ECN_CE;
	}
	frac = (double)marked / n;
	print_message("# %d of %d marked at the midpoint\n", marked, n);
	/* 4.5 sigma = 4.5 x sqrt(p (1 − p) / n) = 0.0356 */
	assert_true(frac > p - 0.0356 && frac < p + 0.0356);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.marked, (__u64)marked);
	assert_int_equal(q.enq_packets, (__u64)n);
}

/* Several CPUs forwarding to xe-q at once: the compare-and-swap loses no
 * byte and counts none twice. The queue is kept busy (vtime far ahead),
 * so every CNP frame adds exactly its time. */
#define CAS_PKTS 3000
#define CAS_LEN 100

struct cas_arg {
	int cpu;
	int bad; /* frames not redirected */
};

static void *cas_worker(void *p)
{
	struct cas_arg *a = p;
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(DSCP_CNP, ECN_ECT0), CAS_LEN);
	__u8 *in = malloc(PKT_MAX), *out = malloc(PKT_MAX);
	cpu_set_t set;
	size_t len;
	int i;

	if (!in || !out) {
		a->bad = -1;
		goto out;
	}
	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	s.sport = (__u16)(1000 + a->cpu);
	len = pkt_build(&s, in, NULL);
	for (i = 0; i < CAS_PKTS; i++) {
		struct xdp_md ctx = { .data_end = (__u32)len,
				      .ingress_ifindex = E.ifindex[P_IN] };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in,
			    .data_size_in = (__u32)len, .data_out = out,
			    .data_size_out = PKT_MAX, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		if (bpf_prog_test_run_opts(E.prog_fd, &opts) ||
		    opts.retval != XDP_REDIRECT)
			a->bad++;
	}
out:
	free(in);
	free(out);
	return NULL;
}

static void concurrent_enqueue_loses_nothing(void **state)
{
	struct cas_arg args[4];
	pthread_t th[4];
	struct xl_queue_stats q;
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN), i;
	__u64 vt0, vt1;

	(void)state;
	if (n > 4)
		n = 4;
	if (n < 1)
		n = 1;
	queue_fill_to(125000); /* 1 s: stays busy throughout */
	vt0 = queue_get(P_Q);
	for (i = 0; i < n; i++) {
		args[i] = (struct cas_arg){ .cpu = i };
		assert_int_equal(pthread_create(&th[i], NULL, cas_worker,
						&args[i]), 0);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].bad, 0);
	}
	vt1 = queue_get(P_Q);
	print_message("# %d CPUs x %d frames\n", n, CAS_PKTS);
	assert_int_equal(vt1 - vt0, (__u64)n * CAS_PKTS * vt_of(CAS_LEN));
	qstats_read(P_Q, C_CNP, &q);
	assert_int_equal(q.enq_packets, (__u64)n * CAS_PKTS);
	assert_int_equal(q.enq_bytes, (__u64)n * CAS_PKTS * CAS_LEN);
	assert_int_equal(q.marked + q.dropped, 0);
}

/* docs/ecn.md: "the buffer cannot take the packet: tail drop". At 1 Mb/s
 * (the smallest rate the config accepts) with the default 1 MiB buffer,
 * 1100 back-to-back 1000-byte frames must overflow it: about 1048 fit,
 * and the test drains only a few kB while it runs. */
static void tail_drop_low_rate_default_buffer(void **state)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 1000);
	size_t len = pkt_build(&s, in, NULL);
	__u64 t0 = mono_ns(), ms;
	__u32 out_len;
	int i, drops = 0;

	(void)state;
	for (i = 0; i < 1100; i++)
		drops += run_frame(in, len, out, &out_len) == XDP_DROP;
	ms = (mono_ns() - t0) / 1000000;
	/* drained while running: 125 bytes per ms */
	if (drops < 1100 - (int)(BUF_Q / 1000) - (int)(ms * 125 / 1000) - 1)
		fail_msg("%d of 1100 frames dropped in %llu ms at 1 Mb/s with "
			 "a %u-byte buffer (want >= %d); the queue now reads "
			 "%lld bytes and empties in %.1f s",
			 drops, (unsigned long long)ms, BUF_Q,
			 1100 - (int)(BUF_Q / 1000) - (int)(ms * 125 / 1000) -
				 1,
			 (long long)queue_bytes_now(),
			 (double)((__s64)(queue_get(P_Q) -
					  (mono_ns() << XL_VT_SHIFT)) >>
				  XL_VT_SHIFT) / 1e9);
}

/* A port's line_overhead: every frame takes its bytes plus the overhead
 * of the port's rate (Ethernet's 24 by default, XL_DEFAULT_LINE_OVERHEAD),
 * in the queue's time and in the buffer's admission; the counters keep
 * the frames' own bytes. */
static void line_overhead_counted(void **state)
{
	struct xl_queue_stats q;
	__u64 vt0;
	int i;

	(void)state;
	E.q_overhead = XL_DEFAULT_LINE_OVERHEAD;
	port_set(P_Q, RATE_Q, 4096, XL_OVERFLOW_DROP);

	queue_fill_to(2000);
	vt0 = queue_get(P_Q);
	for (i = 0; i < 10; i++) {
		struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(DSCP_CNP, ECN_ECT0), 100);

		expect_fwd(&s, P_Q, ECN_SAME, "CNP, line overhead 24");
	}
	assert_int_equal(queue_get(P_Q) - vt0, 10 * vt_of(100 + XL_DEFAULT_LINE_OVERHEAD));
	qstats_read(P_Q, C_CNP, &q);
	assert_int_equal(q.enq_packets, 10);
	assert_int_equal(q.enq_bytes, 10 * 100);

	/* 110 bytes free: a 100-byte frame fits by its own bytes, not with
	 * its overhead. The queue drains a byte every 8 us, so a try counts
	 * only if the frame ran within 80 us of the fill (then under 124
	 * bytes were free); a slower one, preempted, is tried again. */
	{
		static __u8 in[PKT_MAX], out[PKT_MAX];
		struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 100);
		size_t len = pkt_build(&s, in, NULL);
		__u32 out_len, v = XDP_PASS;
		__u64 t0;

		for (i = 0; i < 100; i++) {
			t0 = mono_ns();
			queue_fill_to(4096 - 110);
			v = run_frame(in, len, out, &out_len);
			if (mono_ns() - t0 <= 80000)
				break;
		}
		assert_true(i < 100);
		assert_int_equal(v, XDP_DROP);
		/* without the overhead it fits, however late it runs */
		port_overhead_set(P_Q, 0);
		queue_fill_to(4096 - 110);
		expect_fwd(&s, P_Q, ECN_SAME, "100 + 0 bytes into 110 free");
	}
}

/* At tc (hook = tc) a GRO aggregate is one packet of gso_segs frames on
 * the wire, each with its own Ethernet, IP and UDP/TCP headers: the
 * phantom queue takes those bytes plus each frame's line overhead, the
 * port counters count them, and it is marked above kmax as the XDP
 * program marks a frame. */
static void tc_aggregate_pays_each_segment(void **state)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(DSCP_CNP, ECN_ECT0), 1000);
	size_t len = pkt_build(&s, in, NULL);
	struct __sk_buff skb = { .ifindex = E.ifindex[P_IN],
				 .ingress_ifindex = E.ifindex[P_IN],
				 .gso_segs = 10, .gso_size = 100 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = PKT_MAX, .ctx_in = &skb,
		    .ctx_size_in = sizeof(skb), .repeat = 1);
	int tc_fd = bpf_program__fd(E.skel->progs.xdpleaf_leaf_tc);
	/* the 9 frames after the first carry their headers again */
	size_t wire = len + 9 * ETH_IP4_UDP;
	struct xl_port_stats in0, in1, q0, q1;
	__u64 vt0;

	(void)state;
	E.q_overhead = XL_DEFAULT_LINE_OVERHEAD;
	port_set(P_Q, RATE_Q, 1 << 20, XL_OVERFLOW_DROP);
	queue_fill_to(2000);
	vt0 = queue_get(P_Q);
	pstats_read(P_IN, &in0);
	pstats_read(P_Q, &q0);
	assert_int_equal(bpf_prog_test_run_opts(tc_fd, &opts), 0);
	assert_int_equal(opts.retval, TC_ACT_REDIRECT);
	assert_int_equal(queue_get(P_Q) - vt0,
			 vt_of(wire + 10 * XL_DEFAULT_LINE_OVERHEAD));
	pstats_read(P_IN, &in1);
	pstats_read(P_Q, &q1);
	assert_int_equal(in1.rx_bytes - in0.rx_bytes, wire);
	assert_int_equal(q1.tx_bytes - q0.tx_bytes, wire);
	/* one frame (gso_segs 0): one overhead, as at XDP */
	skb.gso_segs = 0;
	skb.gso_size = 0;
	vt0 = queue_get(P_Q);
	assert_int_equal(bpf_prog_test_run_opts(tc_fd, &opts), 0);
	assert_int_equal(queue_get(P_Q) - vt0, vt_of(len + XL_DEFAULT_LINE_OVERHEAD));
	/* above kmax an ECN-capable data packet leaves marked CE */
	{
		struct pkt_spec d = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 1000);

		len = pkt_build(&d, in, NULL);
		opts.data_size_in = (__u32)len;
		opts.data_size_out = PKT_MAX;
		fill_past_kmax(4);
		assert_int_equal(bpf_prog_test_run_opts(tc_fd, &opts), 0);
		assert_int_equal(opts.retval, TC_ACT_REDIRECT);
		assert_int_equal(ecn_of(out, 0), ECN_CE);
		check_ip4_csum(out, 0, "tc, marked");
	}
}

/* ---- the bulk guard (docs/ecn.md, "The bulk guard") --------------------- */

/* xe-q with bulk_gamma 0.5 and roce (DSCP 26) as the latency class: the
 * loader turns the guard on, at half the queue's drain and two frames. */
static void guard_on(void)
{
	struct xl_port port;
	struct xl_guard g;

	snprintf(E.q_bulk_gamma, sizeof(E.q_bulk_gamma), "bulk_gamma = 0.5\n");
	E.latency_class = C_ROCE;
	ecn_apply();
	g = guard_get(P_Q);
	assert_int_equal(g.drain_bps, RATE_Q / 2);
	assert_int_equal(g.mark_bytes, G_MARK);
	assert_int_equal(g.gamma_ppm, 500000);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.ports), &E.ifindex[P_Q],
					     &port), 0);
	assert_int_equal(port.bulk_guard, 1);
}

/* A bulk ECT packet finding the guard above its threshold is CE-marked
 * while the port's own queue is empty (its profile, Kmin 1000, would not
 * mark); below the threshold it is not, and a Not-ECT one is queued in
 * the guard, unmarked. The port queue counts none of the marks. */
static void guard_marks_bulk_ect(void **state)
{
	struct pkt_spec ect = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 500);
	struct pkt_spec ect6 = pkt(6, P_Q, DSCP_ECN(10, ECN_ECT1), 500);
	struct pkt_spec not = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 500);
	struct xl_guard_stats gs;
	struct xl_queue_stats q;
	__u64 vt0;

	(void)state;
	guard_on();
	queue_put(P_Q, 0);
	guard_fill_to(G_MARK - 1000); /* 16 ms from the threshold */
	expect_fwd(&ect, P_Q, ECN_SAME, "bulk ECT, guard below its threshold");
	queue_put(P_Q, 0);
	guard_fill_to(G_MARK + 1000);
	expect_fwd(&ect, P_Q, ECN_CE, "bulk ECT(0), guard above its threshold, queue empty");
	queue_put(P_Q, 0);
	expect_fwd(&ect6, P_Q, ECN_CE, "bulk IPv6 ECT(1), guard above its threshold");
	queue_put(P_Q, 0);
	vt0 = guard_get(P_Q).vtime;
	expect_fwd(&not, P_Q, ECN_SAME, "bulk Not-ECT, guard above its threshold");
	/* queued in the guard: its 500 bytes at half the rate */
	assert_int_equal(guard_get(P_Q).vtime - vt0, 500 * G_NS_PER_BYTE << XL_VT_SHIFT);
	gstats_read(P_Q, C_DEFAULT, &gs);
	assert_int_equal(gs.packets, 4);
	assert_int_equal(gs.marked, 2);
	assert_int_equal(gs.dropped, 0);
	assert_true(gs.peak_bytes > G_MARK);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 4);
	assert_int_equal(q.marked, 0);
	assert_true(q.peak_bytes < KMIN);
}

/* A latency-class packet passes the guard by: not marked above the
 * threshold nor dropped when the guard is full, the guard's time and
 * counters untouched; the port queue still marks it by its own profile. */
static void guard_passes_latency_class(void **state)
{
	struct pkt_spec s = pkt(4, P_Q, DSCP_ECN(DSCP_ROCE, ECN_ECT0), 500);
	struct pkt_spec n = pkt(6, P_Q, DSCP_ECN(DSCP_ROCE, ECN_NOT), 500);
	struct xl_guard_stats gs;
	struct xl_queue_stats q;
	__u64 vt;

	(void)state;
	guard_on();
	guard_fill_to(G_MARK + 1000);
	vt = guard_get(P_Q).vtime;
	expect_fwd(&s, P_Q, ECN_SAME, "latency class ECT, guard above its threshold");
	assert_int_equal(guard_get(P_Q).vtime, vt);
	guard_fill_to(2 * BUF_Q); /* past the port's buffer */
	vt = guard_get(P_Q).vtime;
	expect_fwd(&n, P_Q, ECN_SAME, "latency class Not-ECT, guard full");
	assert_int_equal(guard_get(P_Q).vtime, vt);
	gstats_read(P_Q, C_ROCE, &gs);
	assert_int_equal(gs.packets, 0);
	qstats_read(P_Q, C_ROCE, &q);
	assert_int_equal(q.enq_packets, 2);
	/* the port's own queue above roce's Kmax still marks it */
	queue_fill_to(3000);
	expect_fwd(&s, P_Q, ECN_CE, "latency class ECT, port queue above Kmax");
}

/* A bulk Not-ECT packet that finds the guard full (the port's buffer) is
 * dropped, counted as a tail drop, and never reaches the port's queue;
 * with overflow = mark an ECT one is forwarded CE and a Not-ECT one as it
 * is, neither queued in the guard. */
static void guard_full_drops_or_marks(void **state)
{
	struct pkt_spec not = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 500);
	struct pkt_spec ect = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 500);
	struct xl_port_stats ps;
	struct xl_guard_stats gs;
	struct xl_queue_stats q;
	__u64 vt;

	(void)state;
	port_set(P_Q, RATE_Q, 8192, XL_OVERFLOW_DROP);
	guard_on();
	queue_put(P_Q, 0);
	guard_fill_to(12000); /* past the 8192-byte buffer for another 53 ms */
	vt = guard_get(P_Q).vtime;
	expect_drop(&not, "bulk Not-ECT, guard full, overflow = drop");
	expect_drop(&ect, "bulk ECT, guard full, overflow = drop");
	assert_int_equal(guard_get(P_Q).vtime, vt);
	assert_int_equal(queue_get(P_Q), 0);
	pstats_read(P_IN, &ps);
	assert_int_equal(ps.reason.tail_drop, 2);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 0);
	gstats_read(P_Q, C_DEFAULT, &gs);
	assert_int_equal(gs.dropped, 2);
	assert_int_equal(gs.marked, 0);

	port_set(P_Q, RATE_Q, 8192, XL_OVERFLOW_MARK);
	guard_fill_to(12000);
	vt = guard_get(P_Q).vtime;
	expect_fwd(&ect, P_Q, ECN_CE, "bulk ECT, guard full, overflow = mark");
	expect_fwd(&not, P_Q, ECN_SAME, "bulk Not-ECT, guard full, overflow = mark");
	assert_int_equal(guard_get(P_Q).vtime, vt);
	gstats_read(P_Q, C_DEFAULT, &gs);
	assert_int_equal(gs.packets, 4);
	assert_int_equal(gs.dropped, 2);
	assert_int_equal(gs.marked, 1);
	qstats_read(P_Q, C_DEFAULT, &q);
	assert_int_equal(q.enq_packets, 2);
	assert_int_equal(q.marked, 0);
}

/* No latency class, or bulk_gamma 1: the loader leaves the guard off, and
 * a guard entry that holds a backlog anyway changes nothing: bulk ECT is
 * forwarded unmarked by an empty port queue, the guard untouched. */
static void guard_off_changes_nothing(void **state)
{
	struct pkt_spec ect = pkt(4, P_Q, DSCP_ECN(0, ECN_ECT0), 500);
	struct pkt_spec not = pkt(4, P_Q, DSCP_ECN(0, ECN_NOT), 500);
	struct xl_guard_stats gs;
	struct xl_port port;
	__u64 vt;

	(void)state;
	for (int c = 0; c < 2; c++) {
		/* 0: bulk_gamma 0.5 without a latency class; 1: with one, at 1 */
		snprintf(E.q_bulk_gamma, sizeof(E.q_bulk_gamma), "bulk_gamma = %s\n",
			 c ? "1" : "0.5");
		E.latency_class = c ? C_ROCE : -1;
		ecn_apply();
		assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.ports),
						     &E.ifindex[P_Q], &port), 0);
		assert_int_equal(port.bulk_guard, 0);
		assert_int_equal(guard_get(P_Q).drain_bps, 0);
		queue_put(P_Q, 0);
		guard_fill_to(2 * BUF_Q);
		vt = guard_get(P_Q).vtime;
		expect_fwd(&ect, P_Q, ECN_SAME, "bulk ECT, guard off");
		queue_put(P_Q, 0);
		expect_fwd(&not, P_Q, ECN_SAME, "bulk Not-ECT, guard off");
		assert_int_equal(guard_get(P_Q).vtime, vt);
	}
	gstats_read(P_Q, C_DEFAULT, &gs);
	assert_int_equal(gs.packets, 0);
	/* the default bulk_gamma, 0.95, with a latency class: on again */
	E.q_bulk_gamma[0] = '\0';
	E.latency_class = C_ROCE;
	ecn_apply();
	assert_int_equal(guard_get(P_Q).drain_bps, RATE_Q * 95 / 100);
	/* and the unlimited port never has one */
	assert_int_equal(guard_get(P_U).drain_bps, 0);
}

#define T(f) cmocka_unit_test_setup(f, reset)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(ip4_ect_marked_above_kmax),
		T(tc_aggregate_pays_each_segment),
		T(ip6_ect_marked_above_kmax),
		T(not_ect_never_marked),
		T(cnp_never_marked_never_dropped),
		T(overflow_drop),
		T(overflow_mark),
		T(queue_stats_match),
		T(unlimited_port_never_marks),
		T(already_ce_stays_ce),
		T(ip4_every_tos_above_kmax),
		T(wred_random_at_midpoint),
		T(concurrent_enqueue_loses_nothing),
		T(tail_drop_low_rate_default_buffer),
		T(line_overhead_counted),
		T(roce_profile_fitted_to_buffer),
		T(guard_marks_bulk_ect),
		T(guard_passes_latency_class),
		T(guard_full_drops_or_marks),
		T(guard_off_changes_nothing),
	};

	return cmocka_run_group_tests_name("xdpleaf_ecn", tests, group_setup,
					   group_teardown);
}
