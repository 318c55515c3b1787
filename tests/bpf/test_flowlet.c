// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Uplink load balancing of `xdpleaf_leaf` under BPF_PROG_TEST_RUN
 * (bpf/uplink.h): flowlets, moves and their counters, RoCEv2 flows per
 * QP, members marked down, spraying, hashing, random flowlets, the
 * uplink rate sampler, moves refused by the reorder-free rule, and the
 * latency class's choice of the least queued member.
 *
 * Topology: one downlink (xf-in, hosts 10.5.0.0/24) and a group of four
 * uplinks (xf-u0..3) toward spines 172.17.i.1, with 10.6.0.0/16 routed to
 * the group. Counter slots differ from port indexes and member indexes,
 * so a mix-up shows. Every test starts from a fresh group (mode and
 * timeout per test), an empty flow table, zero rates, rotation, down mask
 * and counters.
 *
 * The maps are filled as `xdpleaf load` fills them: a configuration text
 * (flowlet_config) through the parser and xl_leaf_fill_maps, the spines
 * and the host as neighbours in the kernel's table copied by
 * xl_neigh_sync. What the configuration cannot say is then set in the
 * group the loader wrote (set_group): members of a known capacity without
 * a phantom queue on their ports (`rate` gives a port both; these tests
 * hold the queues themselves) and a flowlet timeout of 0. A few tests
 * then change one field of that group in place (set_rule's drain and
 * skew on members without queues, flowlet_auto, spray_reorder).
 *
 * Time: bpf_ktime_get_ns is CLOCK_MONOTONIC, and each test_run is
 * bracketed by two readings of it, so the program's `now` for a packet is
 * known to lie between them. Whether a gap between two packets exceeded
 * the flowlet timeout is then known for sure, or the check is skipped for
 * that pair (the machine was slow); tests that need a long gap sleep (a
 * timing test waiting for time to pass), tests that need a short one use
 * a long timeout where the short one is not the point. Every run uses
 * repeat 1 on a freshly built frame (a repeat would re-run on the
 * rewritten one). Needs root (tests/bpf/fixture.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <linux/bpf.h>

#include "xdpleaf.h"
#include "lb.h"
#include "config/config.h"
#include "base/names.h"
#include "leaf/loader.h"
#include "leaf/netlink_watch.h"
#include "leaf.skel.h"
#include "packets.h"
#include "fixture.h"

/* ---- topology ----------------------------------------------------------- */

/* The five ports under test, then four idle ones the configuration lists
 * between them (N_TAPS devices in all). */
enum { P_IN, P_U0, P_U1, P_U2, P_U3, N_PORTS, N_TAPS = N_PORTS + 4 };
#define N_UP 4
#define GID 0

static const char *const port_ifname[N_TAPS] = {
	"xf-in", "xf-u0", "xf-u1", "xf-u2", "xf-u3", "xf-x0", "xf-x1", "xf-x3", "xf-x7",
};
/* The loader gives each port its place in the file (flowlet_config):
 * slots differ from the port indexes and the member indexes. */
static const __u32 port_slot[N_PORTS] = { 4, 2, 5, 6, 8 };
static const __u8 port_mac[N_TAPS][6] = {
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x00 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x01 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x02 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x03 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x04 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x10 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x11 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x13 },
	{ 0x02, 0x00, 0x00, 0x00, 0x03, 0x17 },
};
static const __u8 spine_mac[N_UP][6] = {
	{ 0x02, 0x5b, 0x00, 0x00, 0x01, 0x00 },
	{ 0x02, 0x5b, 0x00, 0x00, 0x01, 0x01 },
	{ 0x02, 0x5b, 0x00, 0x00, 0x01, 0x02 },
	{ 0x02, 0x5b, 0x00, 0x00, 0x01, 0x03 },
};
static const __u8 host_mac[6] = { 0x02, 0xaa, 0x00, 0x00, 0x05, 0x02 };
static const __u8 host4[4] = { 10, 5, 0, 2 };
static const __u8 remote4[4] = { 10, 6, 7, 8 };

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL
#define TIMEOUT (100 * NS_PER_US)  /* the flowlet timeout under test */
#define LONG_TIMEOUT NS_PER_S      /* "inside the timeout" for sure */
#define CAP (100 * 1000000000ULL)  /* every member: 100 Gb/s */

static struct {
	struct leaf *skel;
	int prog_fd;
	int ncpu;
	int tap_fd[N_TAPS];
	__u32 ifindex[N_TAPS];
	struct xl_group group;
} E;

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NS_PER_S + (__u64)ts.tv_nsec;
}

/* Sleep at least ns (the kernel may add to it, never take away). */
static void sleep_ns(__u64 ns)
{
	__u64 until = mono_ns() + ns;
	struct timespec ts;

	while (mono_ns() < until) {
		__u64 left = until - mono_ns();

		ts.tv_sec = (time_t)(left / NS_PER_S);
		ts.tv_nsec = (long)(left % NS_PER_S);
		nanosleep(&ts, NULL);
	}
}

/* ---- environment -------------------------------------------------------- */

/* Sections flowlet_config appends (a latency class), "" for none. */
static const char *extra_conf = "";

/* The leaf as `xdpleaf load` fills it from a configuration: the ports in
 * the order that gives port_slot (uplinks toward spine i at 172.17.i.1),
 * group `spines` in lb_mode `mode` (and, for the modes with flowlets,
 * timeout_ns if the configuration can say it, no skew), the hosts' /24 on
 * xf-in, 10.6.0.0/16 to the group. */
static int flowlet_config(__u32 mode, __u64 timeout_ns)
{
	char group_keys[128] = "";
	struct xl_config cfg;
	int err;

	if ((mode == XL_LB_FLOWLET || mode == XL_LB_FLOWLET_RANDOM) && timeout_ns)
		snprintf(group_keys, sizeof(group_keys),
			 "path_skew = 0ns\nflowlet_timeout = %lluns\n",
			 (unsigned long long)timeout_ns);
	else if (mode == XL_LB_FLOWLET || mode == XL_LB_FLOWLET_RANDOM)
		snprintf(group_keys, sizeof(group_keys), "path_skew = 0ns\n");
	if (fixture_config(&cfg,
			   "[xdpleaf]\nmalformed = pass\n\n"
			   "[port xf-x0]\n[port xf-x1]\n"
			   "[port xf-u0]\nrole = uplink\ngroup = spines\nnexthop4 = 172.17.0.1\n"
			   "[port xf-x3]\n[port xf-in]\n"
			   "[port xf-u1]\nrole = uplink\ngroup = spines\nnexthop4 = 172.17.1.1\n"
			   "[port xf-u2]\nrole = uplink\ngroup = spines\nnexthop4 = 172.17.2.1\n"
			   "[port xf-x7]\n"
			   "[port xf-u3]\nrole = uplink\ngroup = spines\nnexthop4 = 172.17.3.1\n\n"
			   "[group spines]\nlb_mode = %s\n%s\n"
			   "[route 10.5.0.0/24]\nport = xf-in\n"
			   "[route 10.6.0.0/16]\ngroup = spines\n%s",
			   xl_lb_mode_names[mode], group_keys, extra_conf))
		return -1;
	err = xl_leaf_fill_maps(E.skel, &cfg);
	xl_config_free(&cfg);
	return err;
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
	E.skel = sk = leaf__open();
	SETUP_CHECK(sk, "leaf__open: %s\n", strerror(errno));
	/* the rate sampler sums tx bytes over this many CPUs */
	sk->rodata->nr_cpus = (__u32)E.ncpu;
	SETUP_CHECK(!leaf__load(sk), "leaf__load: %s\n", strerror(errno));
	fixture_fwd_gen_fd = bpf_map__fd(sk->maps.fwd_gen);
	E.prog_fd = bpf_program__fd(sk->progs.xdpleaf_leaf);
	SETUP_CHECK(!flowlet_config(XL_LB_FLOWLET, TIMEOUT), "the leaf's maps\n");
	for (p = 0; p < N_PORTS; p++) {
		struct xl_port port;

		SETUP_CHECK(!bpf_map_lookup_elem(bpf_map__fd(sk->maps.ports), &E.ifindex[p],
						 &port) && port.slot == port_slot[p],
			    "ports[%s] is not at slot %u\n", port_ifname[p], port_slot[p]);
	}
	/* the neighbours, where the product learns them: the kernel's table,
	 * copied into `neigh` by the loader's and the daemon's code */
	for (p = P_U0; p < N_PORTS; p++) {
		__u8 nh[4] = { 172, 17, (__u8)(p - P_U0), 1 };

		SETUP_CHECK(!fixture_neigh_add(E.ifindex[p], 4, nh, spine_mac[p - P_U0]),
			    "neighbour on %s: %s\n", port_ifname[p], strerror(errno));
	}
	SETUP_CHECK(!fixture_neigh_add(E.ifindex[P_IN], 4, host4, host_mac),
		    "neighbour on %s: %s\n", port_ifname[P_IN], strerror(errno));
	SETUP_CHECK(!xl_neigh_sync(bpf_map__fd(sk->maps.neigh), bpf_map__fd(sk->maps.ports),
				   bpf_map__fd(sk->maps.fwd_gen)), "xl_neigh_sync failed\n");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	leaf__destroy(E.skel);
	E.skel = NULL;
	fixture_close(N_TAPS, E.tap_fd);
	return 0;
}

/* Group GID from the configuration (flowlet_config), then what it cannot
 * say: each member's capacity (caps, or CAP each) without a phantom
 * queue, and a flowlet timeout of 0 (every gap a new flowlet). */
static void set_group(__u32 mode, __u64 timeout_ns, const __u64 *caps)
{
	__u32 gid = GID;
	int i;

	assert_int_equal(flowlet_config(mode, timeout_ns), 0);
	assert_int_equal(bpf_map__lookup_elem(E.skel->maps.groups, &gid, 4, &E.group,
					      sizeof(E.group), 0), 0);
	assert_int_equal(E.group.lb_mode, mode);
	assert_int_equal(E.group.n_members, N_UP);
	for (i = 0; i < N_UP; i++) {
		assert_int_equal(E.group.members[i], E.ifindex[P_U0 + i]);
		assert_int_equal(E.group.member_slot[i], port_slot[P_U0 + i]);
		E.group.capacity_bps[i] = caps ? caps[i] : CAP;
	}
	if (!timeout_ns) {
		E.group.flowlet_timeout_ns = 0;
		E.group.flowlet_auto = 0;
	}
	/* as the loader derives it from the capacities */
	E.group.unknown_rate_mbps = xl_unknown_flow_mbps(E.group.capacity_bps, N_UP);
	assert_int_equal(map_set(E.skel->maps.groups, &gid, 4, &E.group,
				 sizeof(E.group)), 0);
}

static void set_down_family(__u32 v4, __u32 v6)
{
	struct xl_group_down d = { .v4 = v4, .v6 = v6 };
	__u32 gid = GID;

	assert_int_equal(map_set(E.skel->maps.group_down, &gid, 4, &d, sizeof(d)),
			 0);
}

/* Members down for both families (link down). */
static void set_down(__u32 mask)
{
	set_down_family(mask, mask);
}

static __u32 get_rr(void)
{
	__u32 gid = GID, v = 0;

	assert_int_equal(bpf_map_lookup_elem(
				 bpf_map__fd(E.skel->maps.group_rr), &gid, &v),
			 0);
	return v;
}

static void flows_clear(void)
{
	int fd = bpf_map__fd(E.skel->maps.flows);
	struct xl_flow next;

	while (!bpf_map_get_next_key(fd, NULL, &next))
		assert_int_equal(bpf_map_delete_elem(fd, &next), 0);
}

static int flows_count(void)
{
	int fd = bpf_map__fd(E.skel->maps.flows), n = 0;
	struct xl_flow k, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		n++;
	}
	return n;
}

/* Fresh state for group GID in `mode`. */
static struct events_seen ev_seen;

static void reset(__u32 mode, __u64 timeout_ns)
{
	struct xl_uplink_rate zr;
	struct xl_member_flows zf;
	struct xl_queue zq = { 0 };
	__u32 gid = GID, zero = 0;
	int p;

	memset(&zr, 0, sizeof(zr));
	memset(&zf, 0, sizeof(zf));
	set_group(mode, timeout_ns, NULL);
	set_down(0);
	assert_int_equal(map_set(E.skel->maps.group_rr, &gid, 4, &zero, 4), 0);
	for (p = 0; p < N_PORTS; p++) {
		assert_int_equal(map_set(E.skel->maps.uplink_rates,
					 &port_slot[p], 4, &zr, sizeof(zr)), 0);
		assert_int_equal(map_set(E.skel->maps.queues, &port_slot[p], 4,
					 &zq, sizeof(zq)), 0);
		assert_int_equal(map_set(E.skel->maps.member_flows, &port_slot[p], 4,
					 &zf, sizeof(zf)), 0);
		assert_int_equal(percpu_zero(E.skel->maps.port_stats,
					     port_slot[p],
					     sizeof(struct xl_port_stats), E.ncpu), 0);
	}
	flows_clear();
	/* events on, and none left over from an earlier test */
	assert_int_equal(events_enable(E.skel->maps.event_cfg, 1000000), 0);
	assert_int_equal(events_take(E.skel->maps.events, &ev_seen), 0);
}

/* Counters of one port, all CPUs. */
static void stats_read(int port, struct xl_port_stats *sum)
{
	assert_int_equal(xl_percpu_sum(bpf_map__fd(E.skel->maps.port_stats), &port_slot[port],
				       sizeof(*sum), XL_PORT_STATS_COUNTERS, sum), 0);
}

static void rate_read(int port, struct xl_uplink_rate *r)
{
	__u32 slot = port_slot[port];

	assert_int_equal(bpf_map_lookup_elem(
				 bpf_map__fd(E.skel->maps.uplink_rates), &slot,
				 r), 0);
}

static void rate_write(int port, const struct xl_uplink_rate *r)
{
	assert_int_equal(map_set(E.skel->maps.uplink_rates, &port_slot[port],
				 4, r, sizeof(*r)), 0);
}

/* The uplink just measured sending at its whole capacity (CAP): a flow on
 * it has a reason to leave (xl_move_worth). */
static void member_busy(int port)
{
	struct xl_uplink_rate ur;

	rate_read(port, &ur);
	ur.rate_bps = CAP;
	ur.sample_ns = mono_ns();
	rate_write(port, &ur);
}

/* ---- packets ------------------------------------------------------------ */

/* A UDP flow from the host behind xf-in to 10.6.7.8. */
static struct pkt_spec udp_flow(__u16 sport)
{
	struct pkt_spec s;

	memset(&s, 0, sizeof(s));
	memcpy(s.dst, port_mac[P_IN], 6);
	memcpy(s.src, host_mac, 6);
	s.family = 4;
	memcpy(s.saddr, host4, 4);
	memcpy(s.daddr, remote4, 4);
	s.ttl = 64;
	s.ip_id = 0x4242;
	s.frag_off = 0x4000;
	s.proto = PKT_UDP;
	s.sport = sport;
	s.dport = 5001;
	s.payload_len = 100;
	s.payload_seed = 0x5a;
	return s;
}

/* A RoCEv2 packet (RC SEND only) of the same 5-tuple for any QP. */
static struct pkt_spec roce_flow(__u16 sport, __u32 qp)
{
	struct pkt_spec s = udp_flow(sport);

	s.dport = PKT_ROCEV2_PORT;
	s.bth = 1;
	s.bth_opcode = 0x04;
	s.dest_qp = qp;
	s.psn = 0x000100;
	s.payload_len = 256;
	return s;
}

/* The flow table key of a spec, by the definition in xdpleaf.h. */
static struct xl_flow flow_key(const struct pkt_spec *s)
{
	struct xl_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	memcpy(f.saddr, s->saddr, 4);
	memcpy(f.daddr, s->daddr, 4);
	f.proto = s->proto;
	f.sport = s->sport;
	f.dport = s->dport;
	if (s->bth)
		f.qp = s->dest_qp & 0xffffff;
	return f;
}

static bool flow_get(const struct pkt_spec *s, struct xl_flow_state *fs)
{
	struct xl_flow k = flow_key(s);

	return !bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.flows), &k, fs);
}

struct sent {
	int verdict;
	int egress;     /* port index, -1 if not redirected to an uplink */
	size_t len;
	__u64 t0, t1;   /* the program's `now` lies in [t0, t1] */
};

/* Run one freshly built frame from xf-in. */
static void send_pkt(const struct pkt_spec *s, struct sent *r)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
	struct xdp_md ctx = { 0 };
	int rc, p;

	LIBBPF_OPTS(bpf_test_run_opts, opts);

	r->len = pkt_build(s, in, NULL);
	ctx.data_end = (__u32)r->len;
	ctx.ingress_ifindex = E.ifindex[P_IN];
	opts.data_in = in;
	opts.data_size_in = (__u32)r->len;
	opts.data_out = out;
	opts.data_size_out = sizeof(out);
	opts.ctx_in = &ctx;
	opts.ctx_size_in = sizeof(ctx);
	opts.repeat = 1;
	r->t0 = mono_ns();
	rc = bpf_prog_test_run_opts(E.prog_fd, &opts);
	r->t1 = mono_ns();
	assert_int_equal(rc, 0);
	r->verdict = (int)opts.retval;
	r->egress = -1;
	if (r->verdict != XDP_REDIRECT)
		return;
	/* the egress is the uplink whose MAC is now the source */
	for (p = P_U0; p < N_PORTS; p++)
		if (!memcmp(out + 6, port_mac[p], 6))
			r->egress = p;
	if (r->egress < 0)
		fail_msg("redirected with source MAC %02x:%02x:%02x:%02x:%02x:"
			 "%02x: no uplink's", out[6], out[7], out[8], out[9],
			 out[10], out[11]);
	/* and the destination that uplink's spine */
	assert_memory_equal(out, spine_mac[r->egress - P_U0], 6);
}

/* Send and insist on a redirect to an uplink; returns the port. */
static int send_fwd(const struct pkt_spec *s, struct sent *r)
{
	struct sent tmp;

	if (!r)
		r = &tmp;
	send_pkt(s, r);
	if (r->verdict != XDP_REDIRECT)
		fail_msg("sport %u qp %u: verdict %d, want XDP_REDIRECT",
			 s->sport, s->dest_qp, r->verdict);
	return r->egress;
}

/* A packet of len bytes through an empty queue of a member: its own
 * transmission at 100 Gb/s is all the delay the flow table keeps. */
static __u32 own_delay(size_t len)
{
	return xl_queue_delay(0, 1ULL << 40, len, CAP);
}

/* A move event's gap (xl_move_detail): the program saw the first packet
 * in [a->t0, a->t1] and the second in [b->t0, b->t1], and keeps whole us. */
static void assert_gap_us(__u32 aux2, const struct sent *a, const struct sent *b)
{
	__u64 lo = (b->t0 - a->t1) / 1000, hi = (b->t1 - a->t0) / 1000;
	__u32 got = XL_MOVE_GAP_US(aux2);

	if (hi >= XL_MOVE_US_MAX)
		hi = XL_MOVE_US_MAX;
	if (lo > XL_MOVE_US_MAX)
		lo = XL_MOVE_US_MAX;
	if (got < lo || got > hi)
		fail_msg("move event: gap %u us, not within [%llu, %llu]", got,
			 (unsigned long long)lo, (unsigned long long)hi);
}

static int member_of_port(int port)
{
	return port - P_U0;
}

/* Counter deltas between two snapshots of every port. */
struct snap {
	struct xl_port_stats st[N_PORTS];
};

static void snap_take(struct snap *sn)
{
	int p;

	for (p = 0; p < N_PORTS; p++)
		stats_read(p, &sn->st[p]);
}

#define DELTA(a, b, p, field) ((a)->st[p].field - (b)->st[p].field)

/* ---- 1. same flow inside the timeout ------------------------------------ */

#define BURST 32

/* Packets of one flow back to back, each gap inside the 100 us timeout:
 * one flowlet, one uplink. Gaps that the bracketing cannot prove to be
 * inside the timeout (a preempted test) make that burst inconclusive; the
 * burst is then tried again with a new flow, up to 20 times. */
static void flowlet_same_flow_stays(void **state)
{
	struct sent r[BURST];
	struct xl_flow_state fs;
	struct snap a, b;
	int attempt, i, changes;
	bool clean = false;
	__u64 maxgap = 0;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	for (attempt = 0; attempt < 20 && !clean; attempt++) {
		struct pkt_spec s = udp_flow((__u16)(30000 + attempt));

		snap_take(&b);
		for (i = 0; i < BURST; i++)
			send_fwd(&s, &r[i]);
		snap_take(&a);
		assert_true(flow_get(&s, &fs));
		clean = true;
		changes = 0;
		for (i = 1; i < BURST; i++) {
			bool inside = r[i].t1 - r[i - 1].t0 <= TIMEOUT;

			if (r[i].egress != r[i - 1].egress) {
				changes++;
				/* a change needs a gap beyond the timeout */
				if (inside)
					fail_msg("attempt %d: packet %d moved "
						 "%s -> %s after at most %llu ns",
						 attempt, i,
						 port_ifname[r[i - 1].egress],
						 port_ifname[r[i].egress],
						 (unsigned long long)(r[i].t1 -
								      r[i - 1].t0));
			}
			clean &= inside;
		}
		assert_true(fs.flowlets >= 1 + (__u64)changes);
		assert_int_equal(fs.packets, BURST);
		assert_int_equal(fs.group, GID);
		assert_int_equal(fs.uplink, E.ifindex[r[BURST - 1].egress]);
		if (!clean)
			continue;
		/* one flowlet, on one uplink, counted there */
		assert_int_equal(fs.flowlets, 1);
		assert_int_equal(fs.moves, 0);
		assert_int_equal(fs.bytes, BURST * r[0].len);
		for (i = P_U0; i < N_PORTS; i++) {
			bool on = i == r[0].egress;

			assert_int_equal(DELTA(&a, &b, i, tx_packets),
					 on ? BURST : 0);
			assert_int_equal(DELTA(&a, &b, i, tx_bytes),
					 on ? BURST * r[0].len : 0);
			assert_int_equal(DELTA(&a, &b, i, flowlets), on ? 1 : 0);
			assert_int_equal(DELTA(&a, &b, i, moves_in), 0);
			assert_int_equal(DELTA(&a, &b, i, moves_out), 0);
		}
		assert_int_equal(DELTA(&a, &b, P_IN, rx_packets), BURST);
		for (i = 1; i < BURST; i++)
			if (r[i].t1 - r[i - 1].t0 > maxgap)
				maxgap = r[i].t1 - r[i - 1].t0;
		print_message("# attempt %d: %d packets on %s, longest gap "
			      "at most %llu ns\n", attempt, BURST,
			      port_ifname[r[0].egress],
			      (unsigned long long)maxgap);
	}
	if (!clean)
		fail_msg("no burst of %d packets with every gap provably "
			 "inside %llu ns in 20 attempts: machine too slow?",
			 BURST, (unsigned long long)TIMEOUT);
}

/* ---- 2. after the timeout: a new flowlet, moved off the busiest ---------- */

static void flowlet_after_timeout_moves(void **state)
{
	struct pkt_spec s = udp_flow(40000);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct snap a, b;
	struct sent r1, r2, r3;
	__u32 util[N_UP], rr;
	int u, v, want, i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	u = send_fwd(&s, &r1);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 1);
	assert_int_equal(fs.moves, 0);

	/* make u the busiest member: 1.6 Tb/s on its 100 Gb/s (so that it
	 * still looks busiest after any sleep shorter than 250 ms), sampled
	 * just now */
	rate_read(u, &ur);
	ur.rate_bps = 1600 * 1000000000ULL;
	ur.sample_ns = mono_ns();
	rate_write(u, &ur);
	rr = get_rr();
	snap_take(&b);
	sleep_ns(3 * TIMEOUT);
	v = send_fwd(&s, &r2);
	snap_take(&a);

	/* what xl_pick_least makes of it: u is loaded (its rate decayed
	 * over at most r2.t1 - sample_ns), the others idle and tied */
	for (i = 0; i < N_UP; i++)
		util[i] = 0;
	util[member_of_port(u)] = xl_member_util(
		xl_rate_now(ur.rate_bps, r2.t1 - ur.sample_ns, XL_RATE_TAU_NS),
		0, CAP, XL_RATE_TAU_NS);
	if (util[member_of_port(u)] <= XL_UTIL_ONE / 32)
		fail_msg("slept %llu ns: the preloaded rate decayed too far "
			 "to test with", (unsigned long long)(r2.t1 - r1.t1));
	want = P_U0 + xl_pick_least(util, N_UP, XL_ALL_UP, rr,
				    XL_UTIL_ONE / 32);
	print_message("# first flowlet on %s, second on %s (rotation %u)\n",
		      port_ifname[u], port_ifname[v], rr);
	assert_true(v != u);
	assert_int_equal(v, want);
	assert_int_equal(get_rr(), rr + 1);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);
	assert_int_equal(fs.moves, 1);
	assert_int_equal(fs.packets, 2);
	assert_int_equal(fs.uplink, E.ifindex[v]);
	for (i = P_U0; i < N_PORTS; i++) {
		assert_int_equal(DELTA(&a, &b, i, flowlets), i == v ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_in), i == v ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_out), i == u ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, tx_packets), i == v ? 1 : 0);
	}
	/* the move is an event: on v, from u, with the flow and the packet */
	{
		const struct xl_event *e = NULL;

		assert_int_equal(events_take(E.skel->maps.events, &ev_seen), 0);
		assert_int_equal(events_of(&ev_seen, XL_EV_MOVE, &e), 1);
		assert_int_equal(e->h.ifindex, E.ifindex[v]);
		assert_int_equal(e->h.aux, E.ifindex[u]);
		assert_true(e->h.has_flow && e->h.flow.sport == 40000);
		assert_true(e->h.pkt_len > 0 && e->h.snap_len > 0);
		/* what the rule weighed: the gap between the two sends, and
		 * the first packet's own transmission as its queue (< 1 us) */
		assert_gap_us(e->h.aux2, &r1, &r2);
		assert_int_equal(XL_MOVE_OLD_QUEUE_US(e->h.aux2), own_delay(r1.len) / 1000);
	}
	/* the next packet, if provably inside the timeout, stays */
	send_fwd(&s, &r3);
	if (r3.t1 - r2.t0 <= TIMEOUT)
		assert_int_equal(r3.egress, v);
	else
		print_message("# third packet %llu ns later: not checked\n",
			      (unsigned long long)(r3.t1 - r2.t0));
}

/* ---- 2b. the flowlet's own rate ---------------------------------------- */

/* When a new flowlet starts, the last one's bytes over its duration become
 * the flow's expected rate (xl_flowlet_rate, from the values the flow
 * table held just before); the new flowlet's count starts over. */
static void flowlet_rate_measured(void **state)
{
	struct pkt_spec s = udp_flow(40500);
	struct xl_flow_state f1, f2;
	struct sent r;
	int i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	for (i = 0; i < 4; i++)
		send_fwd(&s, &r);
	assert_true(flow_get(&s, &f1));
	/* however the 4 packets split into flowlets, the current one holds
	 * what it counted since its first packet */
	assert_true(f1.flowlet_bytes >= r.len && f1.flowlet_bytes <= 4 * r.len);
	assert_true(f1.flowlet_start_ns <= f1.last_ns);
	sleep_ns(3 * TIMEOUT);
	send_fwd(&s, &r);
	assert_true(flow_get(&s, &f2));
	assert_int_equal(f2.flowlets, f1.flowlets + 1);
	assert_int_equal(f2.flowlet_rate_bps,
			 xl_flowlet_rate(f1.flowlet_bytes,
					 f1.last_ns - f1.flowlet_start_ns,
					 f1.flowlet_rate_bps));
	if (f1.last_ns > f1.flowlet_start_ns)
		assert_true(f2.flowlet_rate_bps > 0);
	print_message("# flowlet of %llu bytes over %llu ns: %llu bit/s\n",
		      (unsigned long long)f1.flowlet_bytes,
		      (unsigned long long)(f1.last_ns - f1.flowlet_start_ns),
		      (unsigned long long)f2.flowlet_rate_bps);
	assert_int_equal(f2.flowlet_bytes, r.len);
	assert_int_equal(f2.flowlet_start_ns, f2.last_ns);
}

/* The expected rate weighs less on a big member: all members idle and
 * tied, a flow whose last flowlet ran at 100 Gb/s (half of it counted)
 * goes to the 200 Gb/s member (utilization 1/4 there, 1/2 elsewhere),
 * where the rotation alone would have picked a 100 Gb/s one. Then that
 * member counts the flowlet as pending, and the next decision avoids it. */
static void flowlet_rate_prefers_big_member(void **state)
{
	static const __u64 caps[N_UP] = { 100000000000ULL, 100000000000ULL,
					  200000000000ULL, 100000000000ULL };
	struct pkt_spec s = udp_flow(40600), s2;
	struct xl_flow k = flow_key(&s);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	__u32 gid = GID, rr = 0;
	__u32 util[N_UP] = { 0 };
	struct sent r;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_group(XL_LB_FLOWLET, TIMEOUT, caps);
	send_fwd(&s, &r);
	/* a new flow, with no rate, went to the big member itself
	 * (new_flow_avoids_small_members); this one is put on member 0,
	 * where the rotation (start 0 of four idle, tied members) puts a
	 * flow that weighs the same everywhere */
	assert_int_equal(r.egress, P_U0 + 2);
	assert_int_equal(xl_pick_least(util, N_UP, XL_ALL_UP, rr, XL_LB_TIE), 0);
	assert_int_equal(map_set(E.skel->maps.group_rr, &gid, 4, &rr, 4), 0);
	assert_true(flow_get(&s, &fs));
	fs.uplink = E.ifindex[P_U0];
	fs.flowlet_rate_bps = 100000000000ULL;
	fs.flowlet_bytes = 0; /* keep that rate at the next flowlet */
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(E.skel->maps.flows),
					     &k, &fs, BPF_EXIST), 0);
	/* its member full, or the flow would rather stay (xl_move_worth) */
	member_busy(P_U0);
	sleep_ns(3 * TIMEOUT);
	send_fwd(&s, &r);
	assert_int_equal(r.egress, P_U0 + 2);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlet_rate_bps, 100000000000ULL);

	/* the member now counts that flowlet as pending, whole (its average
	 * was brought up to the same `now` first, so no sample took a part
	 * yet); a new flow placed next, with the rotation pointing at the
	 * 200 Gb/s member (start 2 of four tied), sees it loaded (1/2) and
	 * goes elsewhere */
	rate_read(P_U0 + 2, &ur);
	assert_int_equal(ur.pending_bps, 100000000000ULL);
	rr = 2;
	assert_int_equal(map_set(E.skel->maps.group_rr, &gid, 4, &rr, 4), 0);
	assert_int_equal(xl_pick_least(util, N_UP, XL_ALL_UP, rr, XL_LB_TIE), 2);
	s2 = udp_flow(40601);
	send_fwd(&s2, &r);
	print_message("# after a 100 Gb/s flowlet went to u2, the next flow went to %s\n",
		      port_ifname[r.egress]);
	assert_true(r.egress != P_U0 + 2);
}

/* ---- 3. RoCEv2: a flow is a QP ------------------------------------------ */

static void roce_qps_are_flows(void **state)
{
	struct pkt_spec qa = roce_flow(0xc123, 0x000111);
	struct pkt_spec qb = roce_flow(0xc123, 0x000222);
	struct xl_flow_state fa, fb;
	__u32 rr;
	int ea, eb;

	(void)state;
	reset(XL_LB_FLOWLET, LONG_TIMEOUT);
	rr = get_rr();
	ea = send_fwd(&qa, NULL);
	eb = send_fwd(&qb, NULL);
	assert_int_equal(flows_count(), 2);
	assert_true(flow_get(&qa, &fa));
	assert_true(flow_get(&qb, &fb));
	assert_int_equal(fa.packets, 1);
	assert_int_equal(fb.packets, 1);
	assert_int_equal(fa.flowlets, 1);
	assert_int_equal(fb.flowlets, 1);
	assert_int_equal(fa.uplink, E.ifindex[ea]);
	assert_int_equal(fb.uplink, E.ifindex[eb]);
	/* all idle: the rotation puts the two QPs on consecutive members */
	print_message("# QP 0x111 on %s, QP 0x222 on %s\n", port_ifname[ea],
		      port_ifname[eb]);
	assert_int_equal(ea, P_U0 + (int)(rr % N_UP));
	assert_int_equal(eb, P_U0 + (int)((rr + 1) % N_UP));
	assert_true(ea != eb);
	/* and each stays where it is */
	assert_int_equal(send_fwd(&qa, NULL), ea);
	assert_int_equal(send_fwd(&qb, NULL), eb);
	assert_int_equal(flows_count(), 2);

	/* hash mode: still two flows, but the QP is not hashed: one uplink */
	reset(XL_LB_HASH, 0);
	ea = send_fwd(&qa, NULL);
	eb = send_fwd(&qb, NULL);
	assert_int_equal(flows_count(), 2);
	assert_int_equal(ea, eb);
}

/* ---- 4. members marked down --------------------------------------------- */

static void down_member_never_chosen(void **state)
{
	unsigned int count[N_PORTS] = { 0 };
	struct xl_flow_state fs;
	struct snap a, b;
	struct pkt_spec s;
	struct sent r;
	int i, j, e, n, down;

	(void)state;
	reset(XL_LB_FLOWLET, LONG_TIMEOUT);
	set_down(1U << 2);
	for (i = 0; i < 60; i++) {
		s = udp_flow((__u16)(41000 + i));
		e = send_fwd(&s, NULL);
		assert_true(e != P_U2);
		count[e]++;
	}
	print_message("# U2 down, 60 flows: %u %u %u %u\n", count[P_U0],
		      count[P_U1], count[P_U2], count[P_U3]);
	assert_true(count[P_U0] > 0 && count[P_U1] > 0 && count[P_U3] > 0);

	/* a flow on a member that goes down moves at its next packet, inside
	 * the (1 s) timeout, and then stays on its new member */
	set_down(0);
	s = udp_flow(42000);
	j = send_fwd(&s, NULL);
	set_down(1U << member_of_port(j));
	snap_take(&b);
	e = send_fwd(&s, &r);
	snap_take(&a);
	print_message("# flow on %s, marked down: moved to %s\n",
		      port_ifname[j], port_ifname[e]);
	assert_true(e != j);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);
	assert_int_equal(fs.moves, 1);
	assert_int_equal(fs.uplink, E.ifindex[e]);
	for (i = P_U0; i < N_PORTS; i++) {
		assert_int_equal(DELTA(&a, &b, i, moves_out), i == j ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_in), i == e ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, flowlets), i == e ? 1 : 0);
	}
	set_down(0); /* back up: the flow does not return inside its flowlet */
	for (n = 0; n < 5; n++)
		assert_int_equal(send_fwd(&s, NULL), e);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);

	/* down for IPv6 only (its ND entry not resolved yet): IPv4 flows
	 * still take it; down for IPv4 only: they do not */
	memset(count, 0, sizeof(count));
	set_down_family(0, 1U << 2);
	for (i = 0; i < 60; i++) {
		struct pkt_spec f = udp_flow((__u16)(43000 + i));

		count[send_fwd(&f, NULL)]++;
	}
	assert_true(count[P_U2] > 0);
	set_down_family(1U << 2, 0);
	for (i = 0; i < 60; i++) {
		struct pkt_spec f = udp_flow((__u16)(44000 + i));

		assert_true(send_fwd(&f, NULL) != P_U2);
	}

	/* every member down: no member, to the kernel */
	set_down(0xf);
	snap_take(&b);
	send_pkt(&s, &r);
	snap_take(&a);
	assert_int_equal(r.verdict, XDP_PASS);
	assert_int_equal(DELTA(&a, &b, P_IN, reason.no_member), 1);
	for (down = 0; down < N_UP; down++)
		assert_int_equal(DELTA(&a, &b, P_U0 + down, tx_packets), 0);
}

/* The daemon reports an uplink's change through xdpleaf_leaf_event with
 * the time it applied it, read before the down mask took effect: the
 * event keeps that time (so it precedes the moves it causes, which may
 * reach the ring first); without one it gets the program's own. */
static void link_event_keeps_daemon_time(void **state)
{
	struct xl_event_head h = { .kind = XL_EV_LINK_DOWN,
				   .ifindex = 0, .aux = 3 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &h, .ctx_size_in = sizeof(h));
	int fd = bpf_program__fd(E.skel->progs.xdpleaf_leaf_event);
	const struct xl_event *ev = NULL;
	__u64 before, applied;

	(void)state;
	reset(XL_LB_FLOWLET, LONG_TIMEOUT);
	h.ifindex = E.ifindex[P_U1];
	applied = h.time_ns = mono_ns() - 5000000; /* as if read 5 ms ago */
	assert_int_equal(bpf_prog_test_run_opts(fd, &opts), 0);
	assert_int_equal(opts.retval, 0);
	h.kind = XL_EV_LINK_UP;
	h.time_ns = 0;
	before = mono_ns();
	assert_int_equal(bpf_prog_test_run_opts(fd, &opts), 0);
	assert_int_equal(events_take(E.skel->maps.events, &ev_seen), 0);
	assert_int_equal(events_of(&ev_seen, XL_EV_LINK_DOWN, &ev), 1);
	assert_true(ev->h.time_ns == applied);
	assert_int_equal(ev->h.ifindex, E.ifindex[P_U1]);
	assert_int_equal(ev->h.aux, 3);
	assert_int_equal(events_of(&ev_seen, XL_EV_LINK_UP, &ev), 1);
	assert_true(ev->h.time_ns >= before && ev->h.time_ns <= mono_ns());
}

/* ---- 5. spray, hash, random flowlets ------------------------------------ */

static void spray_spreads_one_flow(void **state)
{
	static const __u64 caps2111[N_UP] = { 2 * CAP, CAP, CAP, CAP };
	unsigned int count[N_PORTS] = { 0 };
	struct pkt_spec s = udp_flow(43000);
	struct xl_flow_state fs;
	int i, e = -1;

	(void)state;
	reset(XL_LB_SPRAY, 0);
	for (i = 0; i < 400; i++) {
		e = send_fwd(&s, NULL);
		count[e]++;
	}
	print_message("# spray 400: %u %u %u %u\n", count[P_U0], count[P_U1],
		      count[P_U2], count[P_U3]);
	for (i = P_U0; i < N_PORTS; i++)
		assert_true(count[i] >= 40); /* about 100 each */
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.packets, 400);
	assert_int_equal(fs.flowlets, 0);
	assert_int_equal(fs.uplink, E.ifindex[e]);

	/* a down member gets nothing */
	memset(count, 0, sizeof(count));
	set_down(1U << 1);
	for (i = 0; i < 200; i++)
		count[send_fwd(&s, NULL)]++;
	assert_int_equal(count[P_U1], 0);
	assert_true(count[P_U0] > 0 && count[P_U2] > 0 && count[P_U3] > 0);

	/* by capacity: 2:1:1:1 gives the big member about 40 % */
	set_down(0);
	set_group(XL_LB_SPRAY, 0, caps2111);
	memset(count, 0, sizeof(count));
	for (i = 0; i < 400; i++)
		count[send_fwd(&s, NULL)]++;
	print_message("# spray 2:1:1:1, 400: %u %u %u %u\n", count[P_U0],
		      count[P_U1], count[P_U2], count[P_U3]);
	/* 160 and 80 expected; the bounds are 5 standard deviations */
	assert_true(count[P_U0] >= 110 && count[P_U0] <= 210);
	for (i = P_U1; i < N_PORTS; i++)
		assert_true(count[i] >= 40 && count[i] <= 120);
}

static void hash_matches_user_space(void **state)
{
	static const __u32 downs[] = { 0, 1U << 1, 1U << 0 | 1U << 3 };
	size_t d;
	int i, k, e, want;

	(void)state;
	reset(XL_LB_HASH, 0);
	for (d = 0; d < sizeof(downs) / sizeof(downs[0]); d++) {
		unsigned int count[N_PORTS] = { 0 };

		set_down(downs[d]);
		for (i = 0; i < 40; i++) {
			struct pkt_spec s = i % 2 ? udp_flow((__u16)(44000 + i)) :
				roce_flow((__u16)(0xd000 + i), 0x77);
			struct xl_flow f = flow_key(&s);
			struct xl_flow_state fs;

			f.qp = 0; /* the hash leaves the QP out anyway */
			want = P_U0 + xl_pick_hash_up(xl_flow_hash(&f, 0), N_UP,
						      ~downs[d]);
			for (k = 0; k < 5; k++) {
				e = send_fwd(&s, NULL);
				if (e != want)
					fail_msg("down 0x%x, flow %d packet %d: "
						 "%s, user space says %s",
						 downs[d], i, k, port_ifname[e],
						 port_ifname[want]);
			}
			assert_true(flow_get(&s, &fs));
			assert_int_equal(fs.uplink, E.ifindex[want]);
			assert_int_equal(fs.flowlets, 0);
			count[e]++;
		}
		for (i = 0; i < N_UP; i++)
			if (downs[d] & (1U << i))
				assert_int_equal(count[P_U0 + i], 0);
	}
}

static void flowlet_random_picks_up_members(void **state)
{
	unsigned int count[N_PORTS] = { 0 };
	int i, e;

	(void)state;
	reset(XL_LB_FLOWLET_RANDOM, LONG_TIMEOUT);
	set_down(1U << 3);
	for (i = 0; i < 200; i++) {
		struct pkt_spec s = udp_flow((__u16)(45000 + i));
		struct xl_flow_state fs;

		e = send_fwd(&s, NULL);
		assert_true(e != P_U3);
		count[e]++;
		/* inside the (1 s) timeout: same member */
		assert_int_equal(send_fwd(&s, NULL), e);
		assert_true(flow_get(&s, &fs));
		assert_int_equal(fs.flowlets, 1);
		assert_int_equal(fs.moves, 0);
	}
	print_message("# flowlet-random, U3 down, 200 flows: %u %u %u %u\n",
		      count[P_U0], count[P_U1], count[P_U2], count[P_U3]);
	for (i = P_U0; i < P_U3; i++)
		assert_true(count[i] >= 30); /* about 67 each */
}

/* ---- 6. the rate sampler ------------------------------------------------ */

/* Run on this CPU from now on (if it exists). */
static bool pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < E.ncpu && c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A flow with no rate yet weighs the members' mean capacity, uncapped
 * (xl_placement_extra): on 100/200/100/50 (here x 1 Gb/s) new flows go to
 * the big member while it is idle, to the 100s once it is full, and not
 * to the 50 while any other is less than full; with equal members the
 * rotation still spreads them. Run 11 of make bench-jct had a new ring
 * flow start on the 50 Mbit/s member and stay there for the whole job. */
static void new_flow_avoids_small_members(void **state)
{
	static const __u64 caps[N_UP] = { CAP, 2 * CAP, CAP, CAP / 2 };
	unsigned int count[N_PORTS] = { 0 };
	struct xl_uplink_rate ur;
	int i, used = 0;

	(void)state;
	reset(XL_LB_FLOWLET, 0);
	set_group(XL_LB_FLOWLET, 0, caps);
	for (i = 0; i < 4; i++) {
		struct pkt_spec s = udp_flow((__u16)(47000 + i));

		count[send_fwd(&s, NULL)]++;
	}
	print_message("# 4 new flows on 1:2:1:0.5, idle: %u %u %u %u\n", count[P_U0],
		      count[P_U1], count[P_U2], count[P_U3]);
	assert_int_equal(count[P_U1], 4);
	/* the big member full (2.28 with a new flow, against 0.56 for a 100
	 * and 1.12 for the 50; after a stall of a few tau its reading would
	 * fade as tau / idle and still keep it above a 100): the 100s, by
	 * rotation; never the 50 */
	rate_read(P_U0 + 1, &ur);
	ur.rate_bps = 4 * CAP;
	ur.sample_ns = mono_ns();
	rate_write(P_U0 + 1, &ur);
	memset(count, 0, sizeof(count));
	for (i = 0; i < 8; i++) {
		struct pkt_spec s = udp_flow((__u16)(47010 + i));

		count[send_fwd(&s, NULL)]++;
	}
	print_message("# 8 new flows, big member full: %u %u %u %u\n", count[P_U0],
		      count[P_U1], count[P_U2], count[P_U3]);
	assert_int_equal(count[P_U0] + count[P_U2], 8);
	assert_true(count[P_U0] > 0 && count[P_U2] > 0);

	reset(XL_LB_FLOWLET, 0); /* equal members */
	memset(count, 0, sizeof(count));
	for (i = 0; i < 8; i++) {
		struct pkt_spec s = udp_flow((__u16)(47100 + i));

		count[send_fwd(&s, NULL)]++;
	}
	for (i = P_U0; i < N_PORTS; i++)
		used += count[i] > 0;
	print_message("# 8 new flows on equal members: %u %u %u %u\n", count[P_U0],
		      count[P_U1], count[P_U2], count[P_U3]);
	assert_int_equal(used, N_UP);
}

/* A sample whose byte count is behind the stored one (a racing later
 * sample stored it first, xl_bytes_since): no bytes, so the averages stay
 * where they were and the later count is kept. Taken as an unsigned
 * difference it was a rate of ~10^19 bit/s that the held load (100 ms)
 * took seconds to forget. */
static void rate_sample_behind(void **state)
{
	struct pkt_spec s = udp_flow(46100);
	struct xl_uplink_rate ur, seen;
	struct sent b;
	int u;

	(void)state;
	reset(XL_LB_HASH, 0);
	u = send_fwd(&s, &b);
	memset(&ur, 0, sizeof(ur));
	ur.sample_ns = 1; /* long ago: the next packet takes a sample */
	ur.sample_bytes = 1ULL << 40;
	ur.rate_bps = ur.rate_slow_bps = ur.held_bps = 50000000;
	rate_write(u, &ur);
	assert_int_equal(send_fwd(&s, &b), u);
	rate_read(u, &seen);
	print_message("# a sample behind the stored count: rate %llu, slow %llu, "
		      "held %llu b/s, sample_bytes %llu\n",
		      (unsigned long long)seen.rate_bps,
		      (unsigned long long)seen.rate_slow_bps,
		      (unsigned long long)seen.held_bps,
		      (unsigned long long)seen.sample_bytes);
	assert_true(seen.sample_ns > 1); /* the sample was taken */
	assert_true(seen.rate_bps <= ur.rate_bps);
	assert_true(seen.rate_slow_bps <= ur.rate_slow_bps);
	assert_true(seen.held_bps <= ur.held_bps);
	assert_int_equal(seen.sample_bytes, 1ULL << 40);
}

/* Two batches on one uplink, more than XL_RATE_SAMPLE_NS apart (and on
 * two CPUs when there are two, so the sum over CPUs is exercised): the
 * first packet takes the first sample (time, bytes; no rate yet), the
 * second batch's first packet the next one, which sets the rate. */
static void rate_sampler(void **state)
{
	struct pkt_spec s = udp_flow(46000);
	struct xl_uplink_rate ur;
	struct sent b1[4], b2[4];
	struct xl_port_stats st;
	bool two_cpus, first_at_1;
	int u, i;

	(void)state;
	reset(XL_LB_HASH, 0);
	two_cpus = E.ncpu > 1 && pin_cpu(0);
	for (i = 0; i < 4; i++) {
		send_fwd(&s, &b1[i]);
		assert_int_equal(b1[i].egress, b1[0].egress);
	}
	u = b1[0].egress;
	rate_read(u, &ur);
	print_message("# after batch 1 on %s: sample_ns %llu, bytes %llu, "
		      "rate %llu\n", port_ifname[u],
		      (unsigned long long)ur.sample_ns,
		      (unsigned long long)ur.sample_bytes,
		      (unsigned long long)ur.rate_bps);
	/* first sample: at packet 1, by itself; no interval, so no rate */
	assert_true(ur.sample_ns >= b1[0].t0 && ur.sample_ns <= b1[3].t1);
	if (b1[3].t1 - b1[0].t0 < XL_RATE_SAMPLE_NS)
		assert_int_equal(ur.rate_bps, 0);
	/* the only sample of batch 1 was its first packet's */
	first_at_1 = ur.sample_ns <= b1[0].t1;
	if (first_at_1) {
		assert_int_equal(ur.sample_bytes, b1[0].len);
		assert_int_equal(ur.rate_bps, 0);
	}

	sleep_ns(4 * XL_RATE_SAMPLE_NS);
	if (two_cpus)
		two_cpus = pin_cpu(1);
	for (i = 0; i < 4; i++)
		assert_int_equal(send_fwd(&s, &b2[i]), u);
	unpin();
	rate_read(u, &ur);
	stats_read(u, &st);
	print_message("# after batch 2%s: sample_ns %llu, bytes %llu, rate "
		      "%llu b/s (tx_bytes %llu)\n",
		      two_cpus ? " (other CPU)" : "",
		      (unsigned long long)ur.sample_ns,
		      (unsigned long long)ur.sample_bytes,
		      (unsigned long long)ur.rate_bps,
		      (unsigned long long)st.tx_bytes);
	assert_true(ur.sample_ns != 0);
	assert_true(ur.rate_bps != 0);
	assert_true(ur.sample_ns >= b2[0].t0 && ur.sample_ns <= b2[3].t1);
	assert_int_equal(st.tx_bytes, 8 * b1[0].len);
	/* one sample in batch 1 (at packet 1) and one at batch 2's first
	 * packet: bytes counted on both CPUs, and the rate is what
	 * xl_rate_update makes of 4 packets over the bracketed interval
	 * (larger interval, smaller result) */
	if (first_at_1 && ur.sample_ns <= b2[0].t1) {
		__u64 lo = xl_rate_update(0, 4 * b1[0].len,
					  b2[0].t1 - b1[0].t0, XL_RATE_TAU_NS);
		__u64 hi = xl_rate_update(0, 4 * b1[0].len,
					  b2[0].t0 - b1[0].t1, XL_RATE_TAU_NS);

		assert_int_equal(ur.sample_bytes, 5 * b1[0].len);
		print_message("# rate %llu b/s, bounds %llu..%llu\n",
			      (unsigned long long)ur.rate_bps,
			      (unsigned long long)lo, (unsigned long long)hi);
		if (ur.rate_bps + 1 < lo || ur.rate_bps > hi + 1)
			fail_msg("rate %llu b/s, want %llu..%llu",
				 (unsigned long long)ur.rate_bps,
				 (unsigned long long)lo,
				 (unsigned long long)hi);
	} else {
		print_message("# batches spread over several samples (batch 1 "
			      "%llu ns, batch 2 %llu ns): rate bounds not "
			      "checked\n",
			      (unsigned long long)(b1[3].t1 - b1[0].t0),
			      (unsigned long long)(b2[3].t1 - b2[0].t0));
	}
}

/* ---- saturated members --------------------------------------------------- */

/* Four 1 Mb/s members (rate 1M is a valid port rate) whose phantom queues
 * hold 10 MB each (an 80 s queue; the buffer may be up to 256M): every
 * member's utilization saturates (queue term 10 MB x 8 / 500 us = 160
 * Gb/s, 160000 x capacity; 4.1 MB would do). The least utilized of them must still be chosen;
 * bpf/uplink.h passes the packet to the kernel (XL_R_NO_MEMBER) instead,
 * because xl_pick_least's `best + tie` wraps (see test_lb's
 * least_saturated_members). */
static void flowlet_saturated_members(void **state)
{
	static const __u64 caps1m[N_UP] = { 1000000, 1000000, 1000000,
					    1000000 };
	struct pkt_spec s = udp_flow(47000);
	struct snap a, b;
	struct sent r;
	__u64 q_ns = 80 * NS_PER_S;
	int i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_group(XL_LB_FLOWLET, TIMEOUT, caps1m);
	for (i = P_U0; i < N_PORTS; i++) {
		struct xl_queue q = { .vtime = (mono_ns() + q_ns) << XL_VT_SHIFT };

		assert_int_equal(map_set(E.skel->maps.queues, &port_slot[i], 4,
					 &q, sizeof(q)), 0);
	}
	/* 5 MB of the 10 MB already saturate a 1 Mb/s member */
	assert_int_equal(xl_member_util(0, 5000000, 1000000, XL_RATE_TAU_NS),
			 0xfffffffeU);
	snap_take(&b);
	send_pkt(&s, &r);
	snap_take(&a);
	if (r.verdict != XDP_REDIRECT)
		fail_msg("all members saturated: verdict %d (reason no_member "
			 "+%llu), want XDP_REDIRECT to one of them", r.verdict,
			 (unsigned long long)DELTA(&a, &b, P_IN,
						   reason.no_member));
}

/* ---- 7. reorder-free moves ---------------------------------------------- */

/* Members with phantom queues (drain = capacity) and the rule's skew. */
static void set_rule(__u32 skew_ns)
{
	__u32 gid = GID;
	int i;

	for (i = 0; i < N_UP; i++)
		E.group.drain_bps[i] = E.group.capacity_bps[i];
	E.group.path_skew_ns = skew_ns;
	for (i = 0; i < N_UP; i++)
		E.group.skew_ns[i] = skew_ns;
	assert_int_equal(map_set(E.skel->maps.groups, &gid, 4, &E.group,
				 sizeof(E.group)), 0);
}

/* The phantom queue of an uplink: empty delay_ns from now. */
static void queue_set(int port, __u64 delay_ns)
{
	struct xl_queue q = { .vtime = (mono_ns() + delay_ns) << XL_VT_SHIFT };

	assert_int_equal(map_set(E.skel->maps.queues, &port_slot[port], 4, &q,
				 sizeof(q)), 0);
}

static void flow_put(const struct pkt_spec *s, const struct xl_flow_state *fs)
{
	struct xl_flow k = flow_key(s);

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(E.skel->maps.flows), &k,
					     fs, BPF_EXIST), 0);
}

/* The flow's member u has a 1 s queue and is sending at its capacity (so
 * the choice wants another one, and moving is worth it)
 * and the flow's last packet waited `last_qdelay_ns` there; its next
 * packet comes after a gap past the floor. Returns where it went. */
static int move_after_gap(const struct pkt_spec *s, __u32 last_qdelay_ns,
			  struct snap *b, struct snap *a, struct sent *r1,
			  struct sent *r2)
{
	struct xl_flow_state fs;
	int u = send_fwd(s, r1);

	assert_true(flow_get(s, &fs));
	assert_int_equal(fs.qdelay_ns, own_delay(r1->len));
	queue_set(u, NS_PER_S);
	fs.qdelay_ns = last_qdelay_ns;
	fs.flowlet_rate_bps = 10000000000ULL; /* kept: no bytes in its flowlet */
	fs.flowlet_bytes = 0;
	flow_put(s, &fs);
	snap_take(b);
	sleep_ns(3 * TIMEOUT);
	/* busy as of now: on a loaded machine the sleep may last many times
	 * the rate's memory, and a member whose average had faded would not
	 * be worth leaving */
	member_busy(u);
	send_fwd(s, r2);
	snap_take(a);
	return u;
}

/* The last packet waited 1 s on u, the gap is 300 us: the move the choice
 * wants would overtake it, so the packet stays on u, as a new flowlet
 * that counts there (not as pending: u's average already holds the flow),
 * and the refusal is counted on the flow and on u. */
static void flowlet_move_refused(void **state)
{
	struct pkt_spec s = udp_flow(48000);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct sent r1, r2;
	struct snap a, b;
	int u, i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_rule(XL_DEFAULT_PATH_SKEW_NS);
	u = move_after_gap(&s, NS_PER_S, &b, &a, &r1, &r2);
	if (r2.t1 - r1.t0 >= NS_PER_S)
		skip(); /* a gap of a second: the move was safe (slow machine) */
	print_message("# last packet waited 1 s on %s, gap %llu us: stayed on %s\n",
		      port_ifname[u], (unsigned long long)(r2.t0 - r1.t1) / 1000,
		      port_ifname[r2.egress]);
	assert_int_equal(r2.egress, u);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);
	assert_int_equal(fs.moves, 0);
	assert_int_equal(fs.moves_refused, 1);
	assert_int_equal(fs.uplink, E.ifindex[u]);
	/* the refusal is an event on u, naming a member it did not go to */
	{
		const struct xl_event *e = NULL;

		assert_int_equal(events_take(E.skel->maps.events, &ev_seen), 0);
		assert_int_equal(events_of(&ev_seen, XL_EV_MOVE_REFUSED, &e), 1);
		assert_int_equal(events_of(&ev_seen, XL_EV_MOVE, &e), 0);
		events_of(&ev_seen, XL_EV_MOVE_REFUSED, &e);
		assert_int_equal(e->h.ifindex, E.ifindex[u]);
		assert_true(e->h.aux != E.ifindex[u] && e->h.aux != 0);
		assert_true(e->h.has_flow && e->h.flow.sport == 48000);
		/* why: a gap far below the 1 s the last packet queued */
		assert_gap_us(e->h.aux2, &r1, &r2);
		assert_int_equal(XL_MOVE_OLD_QUEUE_US(e->h.aux2), XL_MOVE_US_MAX);
	}
	/* what the next move must wait out: u's queue now, and this packet */
	assert_true(fs.qdelay_ns > NS_PER_S - (r2.t1 - r1.t0) &&
		    fs.qdelay_ns <= NS_PER_S + own_delay(r2.len));
	for (i = P_U0; i < N_PORTS; i++) {
		assert_int_equal(DELTA(&a, &b, i, flowlets), i == u ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_refused), i == u ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_in), 0);
		assert_int_equal(DELTA(&a, &b, i, moves_out), 0);
		assert_int_equal(DELTA(&a, &b, i, tx_packets), i == u ? 1 : 0);
		rate_read(i, &ur);
		/* a flowlet that stays where it was measured is not pending
		 * there, unless its gap outlasted the average's memory (the
		 * gap lies between the two brackets of the clock) */
		if (i != u || r2.t1 - r1.t0 <= XL_RATE_TAU_NS)
			assert_int_equal(ur.pending_bps, 0);
		else if (r2.t0 - r1.t1 > XL_RATE_TAU_NS)
			assert_int_equal(ur.pending_bps, 10000000000ULL);
		else
			assert_true(ur.pending_bps == 0 ||
				    ur.pending_bps == 10000000000ULL);
	}
}

/* The same, but the last packet waited 100 us: a 300 us gap covers that
 * and the 25 us skew, so the flow moves, counted as a move, not refused. */
static void flowlet_move_allowed(void **state)
{
	struct pkt_spec s = udp_flow(48100);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct sent r1, r2;
	struct snap a, b;
	int u, v, i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_rule(XL_DEFAULT_PATH_SKEW_NS);
	u = move_after_gap(&s, 100 * NS_PER_US, &b, &a, &r1, &r2);
	v = r2.egress;
	print_message("# last packet waited 100 us on %s, gap %llu us: moved to %s\n",
		      port_ifname[u], (unsigned long long)(r2.t0 - r1.t1) / 1000,
		      port_ifname[v]);
	assert_true(v != u);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);
	assert_int_equal(fs.moves, 1);
	assert_int_equal(fs.moves_refused, 0);
	assert_int_equal(fs.uplink, E.ifindex[v]);
	assert_int_equal(fs.qdelay_ns, own_delay(r2.len)); /* v was empty */
	/* its event says what the rule weighed: 100 us queued, the gap */
	{
		const struct xl_event *e = NULL;

		assert_int_equal(events_take(E.skel->maps.events, &ev_seen), 0);
		assert_int_equal(events_of(&ev_seen, XL_EV_MOVE, &e), 1);
		assert_int_equal(XL_MOVE_OLD_QUEUE_US(e->h.aux2), 100);
		assert_gap_us(e->h.aux2, &r1, &r2);
	}
	for (i = P_U0; i < N_PORTS; i++) {
		assert_int_equal(DELTA(&a, &b, i, flowlets), i == v ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_in), i == v ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_out), i == u ? 1 : 0);
		assert_int_equal(DELTA(&a, &b, i, moves_refused), 0);
		rate_read(i, &ur);
		assert_int_equal(ur.pending_bps, i == v ? 10000000000ULL : 0);
	}
}

/* Held load (include/lb.h): a flow alone on its 100 Gb/s member pauses;
 * the 200 Gb/s member's average reads idle, as if its flows had gone, but
 * they only paused too: its held load says 200 Gb/s, and the flow stays
 * (1.5 there against 1.0 here). Once they left (held 0) it moves, and
 * takes its share out of its old member's held load: what ~100 ms there
 * put in (xl_held_share), not its whole rate. */
#define STAY_TICKS 96 /* ~100.7 ms: one held-load tau */
static void flowlet_held_load_keeps_flow(void **state)
{
	static const __u64 caps[N_UP] = { CAP, 2 * CAP, CAP, CAP };
	struct pkt_spec s = udp_flow(48200);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct sent r;
	int round;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_group(XL_LB_FLOWLET, TIMEOUT, caps);
	/* a new flow goes to the big member (new_flow_avoids_small_members);
	 * this one is put on u0 */
	send_fwd(&s, &r);
	assert_int_equal(r.egress, P_U0 + 1);
	assert_true(flow_get(&s, &fs));
	fs.uplink = E.ifindex[P_U0];
	flow_put(&s, &fs);
	for (round = 0; round < 2; round++) {
		assert_true(flow_get(&s, &fs));
		fs.flowlet_rate_bps = 10 * CAP; /* taken as u0's CAP */
		fs.flowlet_bytes = 0;
		/* it came to u0 STAY_TICKS before its last packet */
		fs.placed_tick = xl_placed_tick(fs.last_ns) - STAY_TICKS;
		flow_put(&s, &fs);
		sleep_ns(3 * TIMEOUT);
		/* the pick is u1: u2 and u3 busy, u0 half (what is left of
		 * the flow's own bytes in its average), u1 idle */
		member_busy(P_U0 + 2);
		member_busy(P_U0 + 3);
		rate_read(P_U0, &ur);
		ur.rate_bps = CAP / 2;
		ur.held_bps = 3 * CAP;
		ur.sample_ns = mono_ns();
		rate_write(P_U0, &ur);
		rate_read(P_U0 + 1, &ur);
		ur.rate_bps = 0;
		ur.pending_bps = 0;
		ur.held_bps = round == 0 ? 2 * CAP : 0;
		ur.sample_ns = mono_ns();
		rate_write(P_U0 + 1, &ur);
		send_fwd(&s, &r);
		print_message("# u1 held %s: the flow went to %s\n",
			      round == 0 ? "200 Gb/s" : "nothing", port_ifname[r.egress]);
		assert_int_equal(r.egress, round == 0 ? P_U0 : P_U0 + 1);
	}
	rate_read(P_U0, &ur);
	assert_int_equal(ur.held_bps,
			 3 * CAP - xl_held_share(CAP, (__u64)STAY_TICKS << XL_PLACED_TICK_SHIFT));
	assert_true(ur.held_bps > 3 * CAP - CAP * 2 / 3 && ur.held_bps < 3 * CAP - CAP / 2);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.moves, 1);
	assert_int_equal(fs.placed_tick, xl_placed_tick(fs.last_ns));
}

/* flowlet_timeout = auto: a flow whose last flowlet read 2 Mbit/s (a TCP
 * handshake's) but whose window says 150 Mbit/s starts a new flowlet after
 * a 3 ms pause: its pace is the higher rate (xl_flow_pace_bps), four
 * spacings of its 1,442-byte frames 308 us. At the flowlet's rate alone
 * the floor would be 23 ms and no such pause would ever end its first
 * flowlet. (The pace is read before this packet rolls the window, so a
 * sleep longer than asked changes nothing.) */
static void flowlet_auto_floor_follows_window(void **state)
{
	const __u64 flow_bps = 150000000ULL;
	struct pkt_spec s = udp_flow(48300);
	struct xl_flow_state fs;
	struct sent r;
	__u64 flowlets;

	(void)state;
	s.payload_len = 1400; /* 1,442-byte frames: 4 spacings 23 ms at 2 Mbit/s */
	reset(XL_LB_FLOWLET, 50 * NS_PER_US);
	E.group.flowlet_auto = 1;
	assert_int_equal(map_set(E.skel->maps.groups, &(__u32){ GID }, 4, &E.group,
				 sizeof(E.group)), 0);
	send_fwd(&s, &r);
	assert_true(flow_get(&s, &fs));
	fs.flowlet_rate_bps = 2000000ULL;
	fs.prev_win_bytes = flow_bps / 8 * XL_FLOW_WINDOW_NS / NS_PER_S;
	fs.win_start_ns = mono_ns(); /* the window stays the one just closed */
	flowlets = fs.flowlets;
	flow_put(&s, &fs);
	sleep_ns(3 * NS_PER_MS);
	send_fwd(&s, &r);
	assert_true(flow_get(&s, &fs));
	if (fs.flowlets != flowlets + 1)
		fail_msg("flowlets %llu after a 3 ms pause, want %llu",
			 (unsigned long long)fs.flowlets, (unsigned long long)flowlets + 1);
}

/* Members of unknown capacity (no `rate`): a flow's flowlets read 10 Gb/s
 * (sent back to back), its window 150 Mb/s. By the flowlet's reading it
 * could go nowhere (10 Gb/s against the 1 Gb/s such members count as);
 * by its window it leaves u0, carrying three such flows, for u1, carrying
 * one, and counts its window there as pending, not 10 Gb/s
 * (xl_flow_demand, xl_pending_rate). */
static void flowlet_unknown_capacity_window(void **state)
{
	static const __u64 no_caps[N_UP] = { 0 };
	const __u64 flow_bps = 150000000ULL;
	struct pkt_spec s = udp_flow(48200);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct sent r;
	int i;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	set_group(XL_LB_FLOWLET, TIMEOUT, no_caps);
	send_fwd(&s, &r);
	assert_int_equal(r.egress, P_U0);
	assert_true(flow_get(&s, &fs));
	fs.flowlet_rate_bps = 10000000000ULL;
	fs.flowlet_bytes = 0;
	fs.prev_win_bytes = flow_bps / 8 * XL_FLOW_WINDOW_NS / NS_PER_S;
	flow_put(&s, &fs);
	sleep_ns(3 * TIMEOUT);
	for (i = 0; i < N_UP; i++) {
		rate_read(P_U0 + i, &ur);
		/* on both averages: sustained load (xl_move_worth) */
		ur.rate_bps = (i == 1 ? 1 : 3) * flow_bps;
		ur.rate_slow_bps = ur.rate_bps;
		ur.pending_bps = 0;
		ur.sample_ns = mono_ns();
		rate_write(P_U0 + i, &ur);
	}
	send_fwd(&s, &r);
	assert_int_equal(r.egress, P_U0 + 1);
	rate_read(P_U0 + 1, &ur);
	assert_int_equal(ur.pending_bps, flow_bps);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.moves, 1);
}

/* A TCP pure acknowledgement (XL_PURE_ACK) follows its flow's member
 * after any gap, even off a busy member, and is counted but not timed: the
 * flow's next data segment, right after it but past the timeout since the
 * flow's previous data, starts a new flowlet and leaves. (Counted like
 * any packet, the acknowledgement would itself have moved, and the data
 * after it would have followed it with no decision.) A segment with as
 * little data (one byte) is no acknowledgement: it starts a flowlet. */
static void flowlet_pure_ack_follows(void **state)
{
	struct pkt_spec s = udp_flow(48300), ack;
	struct xl_flow_state fs, fs1;
	struct sent r1, r2, r3;
	int u, v;

	(void)state;
	reset(XL_LB_FLOWLET, TIMEOUT);
	s.proto = PKT_TCP;
	u = send_fwd(&s, &r1);
	assert_true(flow_get(&s, &fs1));
	ack = s;
	ack.payload_len = 0;
	sleep_ns(3 * TIMEOUT);
	member_busy(u);
	v = send_fwd(&ack, &r2);
	print_message("# data on %s, pure ACK %llu us later on %s\n", port_ifname[u],
		      (unsigned long long)(r2.t0 - r1.t1) / 1000, port_ifname[v]);
	assert_int_equal(v, u);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 1);
	assert_int_equal(fs.moves, 0);
	assert_int_equal(fs.packets, 2);
	assert_int_equal(fs.bytes, fs1.bytes + r2.len);
	assert_int_equal(fs.last_ns, fs1.last_ns);
	/* no part of the flowlet, whose rate stays its data's */
	assert_int_equal(fs.flowlet_bytes, fs1.flowlet_bytes);
	/* data right after it: past the timeout since the flow's data */
	member_busy(u);
	v = send_fwd(&s, &r3);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 2);
	assert_int_equal(fs.moves, 1);
	assert_true(v != u);
	assert_int_equal(fs.uplink, E.ifindex[v]);
	/* one byte of data after a gap is a flowlet of its own: it moves
	 * off v once v is the busy one */
	ack.payload_len = 1;
	sleep_ns(3 * TIMEOUT);
	member_busy(v);
	u = send_fwd(&ack, &r2);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.flowlets, 3);
	assert_true(u != v);
}

/* Members without a rate have no queue: only the skew counts. A skew of
 * 1 s keeps a flow on its member past a 300 us gap (the choice wants to
 * leave it: it is the busiest), a skew of 0 lets it go. */
static void flowlet_skew_unlimited_members(void **state)
{
	struct pkt_spec s = udp_flow(48200);
	struct xl_flow_state fs;
	struct xl_uplink_rate ur;
	struct sent r1, r2;
	__u32 skews[2] = { NS_PER_S, 0 }, gid = GID;
	int k, u, i;

	(void)state;
	for (k = 0; k < 2; k++) {
		reset(XL_LB_FLOWLET, TIMEOUT);
		E.group.path_skew_ns = skews[k]; /* drain_bps stays 0 */
		for (i = 0; i < N_UP; i++)
			E.group.skew_ns[i] = skews[k];
		assert_int_equal(map_set(E.skel->maps.groups, &gid, 4, &E.group,
					 sizeof(E.group)), 0);
		u = send_fwd(&s, &r1);
		assert_true(flow_get(&s, &fs));
		assert_int_equal(fs.qdelay_ns, 0);
		rate_read(u, &ur);
		ur.rate_bps = 1600 * 1000000000ULL;
		ur.sample_ns = mono_ns();
		rate_write(u, &ur);
		sleep_ns(3 * TIMEOUT);
		send_fwd(&s, &r2);
		assert_true(flow_get(&s, &fs));
		print_message("# skew %u ns: %s -> %s\n", skews[k], port_ifname[u],
			      port_ifname[r2.egress]);
		if (skews[k]) {
			if (r2.t1 - r1.t0 >= NS_PER_S)
				continue; /* slow machine: the gap passed the skew */
			assert_int_equal(r2.egress, u);
			assert_int_equal(fs.moves_refused, 1);
		} else {
			assert_true(r2.egress != u);
			assert_int_equal(fs.moves, 1);
			assert_int_equal(fs.moves_refused, 0);
		}
	}
}

/* spray_reorder = safe: with the flow's last packet 1 s deep in its
 * member's queue, every packet stays there and each draw of another
 * member is a refused move; free sprays as before. */
static void spray_reorder_safe_and_free(void **state)
{
	unsigned int count[N_PORTS] = { 0 };
	struct pkt_spec s = udp_flow(48300);
	struct xl_flow_state fs;
	struct snap a, b;
	__u32 gid = GID;
	int u, i, used = 0;

	(void)state;
	reset(XL_LB_SPRAY, 0);
	E.group.spray_reorder = XL_SPRAY_SAFE;
	set_rule(XL_DEFAULT_PATH_SKEW_NS);
	u = send_fwd(&s, NULL);
	queue_set(u, NS_PER_S);
	assert_true(flow_get(&s, &fs));
	fs.qdelay_ns = NS_PER_S;
	flow_put(&s, &fs);
	snap_take(&b);
	for (i = 0; i < 100; i++)
		assert_int_equal(send_fwd(&s, NULL), u);
	snap_take(&a);
	assert_true(flow_get(&s, &fs));
	print_message("# spray safe: 100 packets on %s, %llu draws elsewhere refused\n",
		      port_ifname[u], (unsigned long long)fs.moves_refused);
	/* about 75 (3 of 4 members drawn); 40 is 8 standard deviations off */
	assert_true(fs.moves_refused >= 40 && fs.moves_refused <= 100);
	assert_int_equal(DELTA(&a, &b, u, moves_refused), fs.moves_refused);
	assert_int_equal(fs.flowlets, 0);
	assert_int_equal(fs.moves, 0);

	E.group.spray_reorder = XL_SPRAY_FREE;
	assert_int_equal(map_set(E.skel->maps.groups, &gid, 4, &E.group,
				 sizeof(E.group)), 0);
	for (i = 0; i < 100; i++)
		count[send_fwd(&s, NULL)]++;
	for (i = P_U0; i < N_PORTS; i++)
		used += count[i] > 0;
	assert_true(used >= 3);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(DELTA(&a, &b, u, moves_refused), fs.moves_refused);
	snap_take(&b);
	assert_int_equal(DELTA(&b, &a, u, moves_refused), 0);
}

/* ---- main --------------------------------------------------------------- */

/* ---- 8. flow counts: a fair share among flows that want more ------------ */

#define DATA_LEN 1000 /* payload: a frame that counts its flow (xl_counts_flow) */

/* Member `port`'s flow counts: `now` in epoch e, `before` in e - 1. */
static void member_flows_set(int port, __u32 e, __u32 now, __u32 before)
{
	struct xl_member_flows mf = { .epoch = e };

	mf.flows[e & 1] = now;
	mf.flows[(e - 1) & 1] = before;
	assert_int_equal(map_set(E.skel->maps.member_flows, &port_slot[port], 4,
				 &mf, sizeof(mf)), 0);
}

static void member_flows_get(int port, struct xl_member_flows *mf)
{
	__u32 slot = port_slot[port];

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.member_flows),
					     &slot, mf), 0);
}

/* A data flow on u0, counted there (struct on_u0): u0..u3 count
 * counts[] flows in this epoch and the one before (u0's including it);
 * its flowlets read flowlet_bps; it came to u0 stay_ticks placed ticks
 * ago. With queue_ns, the members get phantom queues and the rule's
 * default skew, and u0's queue and the flow's last packet wait queue_ns.
 * The members in busy (bits by port) read busy by their rates. */
struct on_u0 {
	__u16 sport;
	__u64 flowlet_bps;
	__u32 counts[N_UP];
	__u32 stay_ticks;
	__u64 queue_ns;
	__u32 busy;
};

/* Where the flow's next flowlet (after a gap past the timeout) goes: the
 * port, with the epoch it was decided in (*e) and the first packet (r1);
 * -1 if the epoch turned meanwhile. */
static int flow_on_u0(const struct on_u0 *c, __u32 *e, struct sent *r1, struct sent *r)
{
	struct pkt_spec s = udp_flow(c->sport);
	struct xl_flow_state fs;
	int p;

	s.payload_len = DATA_LEN;
	reset(XL_LB_FLOWLET, TIMEOUT);
	if (c->queue_ns)
		set_rule(XL_DEFAULT_PATH_SKEW_NS);
	send_fwd(&s, r1);
	*e = xl_flow_epoch(mono_ns());
	assert_true(flow_get(&s, &fs));
	fs.uplink = E.ifindex[P_U0];
	fs.placed_tick = xl_placed_tick(mono_ns()) - c->stay_ticks;
	fs.flowlet_rate_bps = c->flowlet_bps;
	fs.flowlet_bytes = 0;
	fs.count_epoch = *e;
	fs.count_flags = XL_COUNTED_BEFORE;
	if (c->queue_ns) {
		fs.qdelay_ns = (__u32)c->queue_ns;
		queue_set(P_U0, c->queue_ns);
	}
	flow_put(&s, &fs);
	for (p = 0; p < N_UP; p++)
		member_flows_set(P_U0 + p, *e, c->counts[p], c->counts[p]);
	sleep_ns(3 * TIMEOUT);
	/* busy as of now (the sleep may outlast the rate's memory) */
	for (p = P_U0; p < N_PORTS; p++)
		if (c->busy & (1U << p))
			member_busy(p);
	send_fwd(&s, r);
	return xl_flow_epoch(r->t0) == *e && xl_flow_epoch(r->t1) == *e ? r->egress : -1;
}

/* flow_on_u0 until its epoch held through it (3 attempts). */
static int flow_on_u0_in_one_epoch(const struct on_u0 *c, __u32 *e, struct sent *r1,
				   struct sent *r)
{
	int got = -1, attempt;

	for (attempt = 0; attempt < 3 && got < 0; attempt++)
		got = flow_on_u0(c, e, r1, r);
	if (got < 0)
		fail_msg("the %llu ns epoch turned during each of 3 attempts",
			 1ULL << XL_FLOW_EPOCH_SHIFT);
	return got;
}

/* A flow on u0 among 5/4/4/2 flows, all members idle by their rates. */
static int flow_among_counts_in_one_epoch(__u64 flowlet_bps, __u32 *e, struct sent *r)
{
	const struct on_u0 c = { .sport = 48300, .flowlet_bps = flowlet_bps,
				 .counts = { 5, 4, 4, 2 } };
	struct sent r1;

	return flow_on_u0_in_one_epoch(&c, e, &r1, r);
}

/* Sending at its pace (its flowlets read the member's capacity, five
 * times its share of a member of five), the flow leaves u0 for u3, where
 * its share is a third instead of a fifth: the rates alone keep it (every
 * member reads idle, the move would gain nothing by them). The counts
 * follow: u0 loses it in both epochs, u3 gains it in both; the flow is
 * counted in this epoch. */
static void flowlet_count_moves_crowded_flow(void **state)
{
	struct pkt_spec s = udp_flow(48300);
	struct xl_member_flows mf;
	struct xl_flow_state fs;
	struct sent r;
	__u32 e;
	int got;

	(void)state;
	got = flow_among_counts_in_one_epoch(CAP, &e, &r);
	print_message("# a flow on a member of 5 (others 4, 4, 2) went to %s\n",
		      port_ifname[got]);
	assert_int_equal(got, P_U0 + 3);
	member_flows_get(P_U0, &mf);
	assert_int_equal(mf.flows[e & 1], 4);
	assert_int_equal(mf.flows[(e - 1) & 1], 4);
	member_flows_get(P_U0 + 3, &mf);
	assert_int_equal(mf.flows[e & 1], 3);
	assert_int_equal(mf.flows[(e - 1) & 1], 3);
	member_flows_get(P_U0 + 1, &mf);
	assert_int_equal(mf.flows[e & 1], 4);
	s.payload_len = DATA_LEN;
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.uplink, E.ifindex[P_U0 + 3]);
	assert_int_equal(fs.count_epoch, e);
	assert_int_equal(fs.moves, 1);
}

/* The same flow paced at its share there (a fifth of the capacity) gets
 * what it sends: it stays, and the counts stay (it was counted already). */
static void flowlet_count_keeps_paced_flow(void **state)
{
	struct xl_member_flows mf;
	struct sent r;
	__u32 e;

	(void)state;
	assert_int_equal(flow_among_counts_in_one_epoch(CAP / 5, &e, &r), P_U0);
	member_flows_get(P_U0, &mf);
	assert_int_equal(mf.flows[e & 1], 5);
	member_flows_get(P_U0 + 3, &mf);
	assert_int_equal(mf.flows[e & 1], 2);
}

/* A flow counts once per epoch where it sends data; a small packet (an
 * acknowledgement's size) does not count it. */
static void flowlet_counts_data_flows_once(void **state)
{
	struct pkt_spec small = udp_flow(48400), data = udp_flow(48401);
	struct xl_member_flows mf;
	struct sent r;
	__u32 e = 0, total;
	int attempt, k, p;

	(void)state;
	data.payload_len = DATA_LEN;
	for (attempt = 0; attempt < 3; attempt++) {
		reset(XL_LB_FLOWLET, LONG_TIMEOUT);
		e = xl_flow_epoch(mono_ns());
		for (k = 0; k < 3; k++) {
			send_fwd(&small, &r);
			send_fwd(&data, &r);
		}
		if (xl_flow_epoch(r.t1) == e)
			break;
	}
	total = 0;
	for (p = P_U0; p < N_PORTS; p++) {
		member_flows_get(p, &mf);
		total += mf.epoch == e ? mf.flows[e & 1] : 0;
	}
	assert_int_equal(total, 1);
	member_flows_get(r.egress, &mf);
	assert_int_equal(mf.epoch, e);
	assert_int_equal(mf.flows[e & 1], 1);
}

/* ---- 9. time-sharing: a shared member's flow yields its place ---------- */

/* A data flow sending at its pace (flowlets at CAP) on u0, which counts 2
 * flows (it included), u1, u2 and u3 one each: five flows on four equal
 * members, where the pair's member and a lone flow's give it the same
 * share. */
static const struct on_u0 in_pair = { .sport = 48500, .flowlet_bps = CAP,
				      .counts = { 2, 1, 1, 1 } };

/* Placed on u0 30 ticks (31 ms) ago, past XL_LB_YIELD_NS, with u1 and u3
 * busy by their rates and its last packet 100 us in u0's queue (past the
 * rule's 25 us skew), the flow yields its place in the pair: to the
 * less utilized of the members where its share is no smaller, u2. The
 * counts follow (u0 1, u2 2), and it is a move. Just placed on u0, the
 * same flow stays: the rates and the counts alone keep it. Its last
 * packet 10 us in the queue, less than the skew, it stays too: the
 * counts say it shares, its queue does not show it.
 * And it yields only where that is safe: with its last packet 1 s in
 * u0's queue and every other member's empty, it stays (placed a second
 * ago), and nothing counts as refused (no unsafe member was picked). */
static void flowlet_pair_yields(void **state)
{
	const __u32 ticks = (__u32)(XL_LB_YIELD_NS >> XL_PLACED_TICK_SHIFT);
	struct pkt_spec s = udp_flow(in_pair.sport);
	struct on_u0 c = in_pair;
	struct xl_member_flows mf;
	struct xl_flow_state fs;
	struct sent r1, r;
	__u32 e;
	int got, attempt;

	(void)state;
	s.payload_len = DATA_LEN;
	c.stay_ticks = ticks + 11;
	c.busy = 1U << P_U1 | 1U << P_U3;
	c.queue_ns = 100 * NS_PER_US;
	got = flow_on_u0_in_one_epoch(&c, &e, &r1, &r);
	print_message("# a flow of a pair, %u ticks on u0 (u1, u3 busy) went to %s\n",
		      c.stay_ticks, port_ifname[got]);
	assert_int_equal(got, P_U2);
	member_flows_get(P_U0, &mf);
	assert_int_equal(mf.flows[e & 1], 1);
	member_flows_get(P_U2, &mf);
	assert_int_equal(mf.flows[e & 1], 2);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.uplink, E.ifindex[P_U2]);
	assert_int_equal(fs.moves, 1);
	assert_int_equal(fs.moves_refused, 0);

	/* just placed: it has stayed no longer than the test took, which a
	 * loaded machine may stretch past XL_LB_YIELD_NS (then try again) */
	c.stay_ticks = 0;
	for (attempt = 0; attempt < 3; attempt++) {
		got = flow_on_u0_in_one_epoch(&c, &e, &r1, &r);
		if (r.t1 - r1.t0 + 2 * (1ULL << XL_PLACED_TICK_SHIFT) < XL_LB_YIELD_NS)
			break;
	}
	if (attempt == 3)
		skip(); /* every attempt outlasted the 20 ms (slow machine) */
	print_message("# %llu us on u0: stayed on %s\n",
		      (unsigned long long)(r.t1 - r1.t0) / 1000, port_ifname[got]);
	assert_int_equal(got, P_U0);
	member_flows_get(P_U0, &mf);
	assert_int_equal(mf.flows[e & 1], 2);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.moves, 0);

	c.stay_ticks = ticks + 11;
	c.queue_ns = 10 * NS_PER_US;
	got = flow_on_u0_in_one_epoch(&c, &e, &r1, &r);
	print_message("# 10 us in u0's queue: stayed on %s\n", port_ifname[got]);
	assert_int_equal(got, P_U0);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.moves, 0);
	assert_int_equal(fs.moves_refused, 0);

	c = in_pair;
	c.stay_ticks = 1000;
	c.queue_ns = NS_PER_S;
	got = flow_on_u0_in_one_epoch(&c, &e, &r1, &r);
	if (r.t1 - r1.t0 >= NS_PER_S)
		skip(); /* a second's gap: any move was safe (slow machine) */
	print_message("# 1 s in u0's queue: stayed on %s\n", port_ifname[got]);
	assert_int_equal(got, P_U0);
	assert_true(flow_get(&s, &fs));
	assert_int_equal(fs.moves, 0);
	assert_int_equal(fs.moves_refused, 0);
}

/* ---- latency class ------------------------------------------------------ */

#define LATENCY_CONF "[class inference]\ndscp = 18\nlatency = yes\n"
#define LAT_QUEUE (100 * NS_PER_MS) /* u1..u3's queues */

/* Group GID in mode with the latency class (DSCP 18) and phantom
 * queues, where headroom and the least delay disagree: u0 has an empty
 * queue but has just measured 10000 x its capacity (a back-to-back burst
 * read over a short average; utilization saturated), u1..u3 have 100 ms
 * queues and no rate (utilization 200: the queue over tau). Headroom
 * takes one of u1..u3, the least delay u0. Returns when the queues were
 * set. */
static __u64 latency_setup(__u32 mode)
{
	struct xl_uplink_rate ur = { 0 };
	__u64 t;
	int p;

	extra_conf = LATENCY_CONF;
	reset(mode, TIMEOUT);
	extra_conf = "";
	set_rule(0);
	t = mono_ns();
	for (p = P_U1; p < N_PORTS; p++)
		queue_set(p, LAT_QUEUE);
	ur.rate_bps = 10000 * CAP;
	ur.sample_ns = mono_ns();
	rate_write(P_U0, &ur);
	return t;
}

/* Too slow for the setup to hold: u0's rate fades past tau as tau /
 * idle, below the queues' utilization after ~25 ms (10000 x 0.5 / 25
 * against 200 - 2 x 25). */
static bool latency_setup_stale(__u64 t_set, const struct sent *r)
{
	return r->t1 - t_set > LAT_QUEUE / 5;
}

/* The loader puts the latency classes' DSCPs into every group; none
 * without one. */
static void latency_group_mask(void **state)
{
	__u32 gid = GID;
	struct xl_group g;

	(void)state;
	extra_conf = LATENCY_CONF "[class rpc]\ndscp = 20 21\nlatency = yes\n"
				   "[class bulk]\ndscp = 10\n";
	reset(XL_LB_FLOWLET, TIMEOUT);
	extra_conf = "";
	assert_int_equal(bpf_map__lookup_elem(E.skel->maps.groups, &gid, 4, &g, sizeof(g), 0), 0);
	assert_true(g.latency_dscp == (1ULL << 18 | 1ULL << 20 | 1ULL << 21));
	reset(XL_LB_FLOWLET, TIMEOUT);
	assert_int_equal(bpf_map__lookup_elem(E.skel->maps.groups, &gid, 4, &g, sizeof(g), 0), 0);
	assert_true(g.latency_dscp == 0);
}

/* A new flow with DSCP 18 (the latency class) goes to u0, the member with
 * no queue, though the busiest; the same packets with DSCP 0 (default
 * class), new flows too, go where headroom says, behind a queue. */
static void latency_new_flow_least_delay(void **state)
{
	struct sent r;
	int i, lat_u0 = 0, plain_u0 = 0, runs = 0;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct pkt_spec lat = udp_flow((__u16)(49000 + i));
		struct pkt_spec plain = udp_flow((__u16)(49100 + i));
		__u64 t = latency_setup(XL_LB_FLOWLET);
		int got_lat, got_plain;

		lat.tos = 18 << 2;
		got_lat = send_fwd(&lat, &r);
		got_plain = send_fwd(&plain, &r);
		if (latency_setup_stale(t, &r))
			continue;
		runs++;
		lat_u0 += got_lat == P_U0;
		plain_u0 += got_plain == P_U0;
	}
	print_message("# of %d new flows each: DSCP 18 on u0 %d, DSCP 0 on u0 %d\n", runs,
		      lat_u0, plain_u0);
	if (!runs)
		skip(); /* every round outlasted the setup (slow machine) */
	assert_int_equal(lat_u0, runs);
	assert_int_equal(plain_u0, 0);
}

/* The same in flowlet-random: the random pick only among the least
 * delayed, so every DSCP 18 flow on u0; DSCP 0 flows anywhere. */
static void latency_random_least_delay(void **state)
{
	struct sent r;
	int i, lat_u0 = 0, runs = 0;

	(void)state;
	for (i = 0; i < 16; i++) {
		struct pkt_spec lat = udp_flow((__u16)(49200 + i));
		__u64 t = latency_setup(XL_LB_FLOWLET_RANDOM);
		int got;

		lat.tos = 18 << 2;
		got = send_fwd(&lat, &r);
		if (latency_setup_stale(t, &r))
			continue;
		runs++;
		lat_u0 += got == P_U0;
	}
	if (!runs)
		skip();
	assert_int_equal(lat_u0, runs);
}

/* A DSCP 18 flow on u1 (100 ms queue) whose next packet starts a new
 * flowlet: headroom and the move margin would keep it (u0 is far busier),
 * the latency class moves it to u0 when the reorder-free rule lets it
 * (its last packet left u1 long before: qdelay 0), and not when that
 * packet is still in u1's queue (qdelay 100 ms): refused, it stays. */
static void latency_flow_moves_if_safe(void **state)
{
	struct pkt_spec s = udp_flow(49300);
	static const __u32 last_qd[2] = { 0, LAT_QUEUE };
	int k;

	(void)state;
	s.tos = 18 << 2;
	for (k = 0; k < 2; k++) {
		struct xl_flow_state fs;
		struct sent r1, r2;
		__u64 t;
		int u;

		t = latency_setup(XL_LB_FLOWLET);
		queue_set(P_U1, 0);
		u = send_fwd(&s, &r1); /* a new flow: u0 or u1, both empty */
		if (u != P_U1) {
			/* put it on u1 as if it had been placed there */
			assert_true(flow_get(&s, &fs));
			fs.uplink = E.ifindex[P_U1];
			flow_put(&s, &fs);
		}
		queue_set(P_U1, LAT_QUEUE);
		assert_true(flow_get(&s, &fs));
		fs.qdelay_ns = last_qd[k];
		flow_put(&s, &fs);
		sleep_ns(3 * TIMEOUT);
		send_fwd(&s, &r2);
		print_message("# %llu us from the setup\n", (unsigned long long)(r2.t1 - t) / 1000);
		if (latency_setup_stale(t, &r2))
			skip();
		assert_true(flow_get(&s, &fs));
		print_message("# last packet %u us in u1's queue: went to %s\n", last_qd[k] / 1000,
			      port_ifname[r2.egress]);
		if (k == 0) {
			assert_int_equal(r2.egress, P_U0);
			assert_int_equal(fs.moves_refused, 0);
		} else {
			assert_int_equal(r2.egress, P_U1);
			assert_int_equal(fs.moves_refused, 1);
		}
		flows_clear();
	}
}

/* Within a flowlet (a floor of 500 ms, the next packet well inside it),
 * a flow on u1 whose queue has built up to 100 ms: a DSCP 18 packet whose
 * previous one has left u1 (qdelay 0) leaves it for an empty member, as a
 * move; the same flow with DSCP 0 stays, as any packet within a flowlet;
 * a DSCP 18 packet whose previous one is still queued stays, refused. */
static void latency_leaves_queue_within_flowlet(void **state)
{
	static const struct {
		__u8 dscp;
		__u32 last_qd;
	} c[3] = { { 18, 0 }, { 0, 0 }, { 18, LAT_QUEUE } };
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		struct pkt_spec s = udp_flow((__u16)(49400 + k));
		struct xl_flow_state fs;
		struct sent r0, r;

		s.tos = (__u8)(c[k].dscp << 2);
		extra_conf = LATENCY_CONF;
		reset(XL_LB_FLOWLET, 500 * NS_PER_MS);
		extra_conf = "";
		set_rule(0);
		send_fwd(&s, &r0); /* a new flow: any member, all empty */
		assert_true(flow_get(&s, &fs));
		fs.uplink = E.ifindex[P_U1];
		fs.qdelay_ns = c[k].last_qd;
		flow_put(&s, &fs);
		queue_set(P_U1, LAT_QUEUE);
		send_fwd(&s, &r);
		assert_true(flow_get(&s, &fs));
		print_message("# DSCP %u, last packet %u us in u1's queue: went to %s\n", c[k].dscp,
			      c[k].last_qd / 1000, port_ifname[r.egress]);
		if (r.t1 - r0.t0 > 400 * NS_PER_MS)
			skip(); /* the machine outlasted the floor: not within a flowlet */
		if (k == 0) {
			assert_int_not_equal(r.egress, P_U1);
			assert_int_equal(fs.moves, 1);
		} else {
			assert_int_equal(r.egress, P_U1);
			assert_int_equal(fs.moves, 0);
			assert_int_equal(fs.moves_refused, k == 2);
		}
		flows_clear();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flowlet_same_flow_stays),
		cmocka_unit_test(flowlet_after_timeout_moves),
		cmocka_unit_test(flowlet_rate_measured),
		cmocka_unit_test(flowlet_rate_prefers_big_member),
		cmocka_unit_test(roce_qps_are_flows),
		cmocka_unit_test(down_member_never_chosen),
		cmocka_unit_test(link_event_keeps_daemon_time),
		cmocka_unit_test(spray_spreads_one_flow),
		cmocka_unit_test(hash_matches_user_space),
		cmocka_unit_test(flowlet_random_picks_up_members),
		cmocka_unit_test(rate_sampler),
		cmocka_unit_test(rate_sample_behind),
		cmocka_unit_test(new_flow_avoids_small_members),
		cmocka_unit_test(flowlet_saturated_members),
		cmocka_unit_test(flowlet_move_refused),
		cmocka_unit_test(flowlet_move_allowed),
		cmocka_unit_test(flowlet_held_load_keeps_flow),
		cmocka_unit_test(flowlet_count_moves_crowded_flow),
		cmocka_unit_test(flowlet_count_keeps_paced_flow),
		cmocka_unit_test(flowlet_counts_data_flows_once),
		cmocka_unit_test(flowlet_pair_yields),
		cmocka_unit_test(flowlet_unknown_capacity_window),
		cmocka_unit_test(flowlet_auto_floor_follows_window),
		cmocka_unit_test(flowlet_pure_ack_follows),
		cmocka_unit_test(flowlet_skew_unlimited_members),
		cmocka_unit_test(spray_reorder_safe_and_free),
		cmocka_unit_test(latency_group_mask),
		cmocka_unit_test(latency_new_flow_least_delay),
		cmocka_unit_test(latency_random_least_delay),
		cmocka_unit_test(latency_flow_moves_if_safe),
		cmocka_unit_test(latency_leaves_queue_within_flowlet),
	};

	return cmocka_run_group_tests_name("xdpleaf_flowlet", tests,
					   group_setup, group_teardown);
}
