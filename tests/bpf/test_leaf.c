// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The XDP program `xdpleaf_leaf` under BPF_PROG_TEST_RUN.
 *
 * A table of fixtures: (packet in, ingress port) -> (verdict, packet out,
 * reason counter on the ingress slot, tx counter on the egress slot). The
 * expected output of a forwarded packet is built from scratch by
 * tests/bpf/packets.h with TTL/hop limit - 1, the egress MACs and a fully
 * recomputed IPv4 checksum, so the incremental checksum update is checked
 * against a full computation.
 *
 * Interfaces: the devmap (`tx_ports`) only accepts ifindexes of existing
 * devices, and test_run resolves ctx.ingress_ifindex in the caller's netns,
 * so the suite moves itself into a fresh network namespace (unshare) and
 * creates one TAP device per port there (tests/bpf/fixture.h, shared with
 * test_leaf_ecn.c). Everything disappears when the process exits. Needs
 * root. */
#define _GNU_SOURCE
#include <linux/pkt_cls.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <linux/if_tun.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpleaf.h"
#include "lb.h"

/* The member lb_mode = hash picks with every member up (bpf/uplink.h). */
static inline int hash_member(const struct xl_group *g, const struct xl_flow *f)
{
	return xl_pick_hash_up(xl_flow_hash(f, 0), g->n_members, XL_ALL_UP);
}
#include "config/config.h"
#include "base/names.h"
#include "base/rng.h"
#include "leaf/loader.h"
#include "leaf/netlink_watch.h"
#include "leaf.skel.h"
#include "packets.h"
#include "fixture.h" /* tap_create, SETUP_CHECK, map_set */

/* ---- topology ---------------------------------------------------------- */

/* Port index == counter slot. D2 is configured in `ports` but deliberately
 * missing from `tx_ports`, to exercise the redirect-failed path. */
enum { P_D0, P_D1, P_D2, P_U0, P_U1, P_U2, P_U3, N_PORTS };
#define N_UPLINKS 4
#define IN_UNCONFIGURED (-1) /* ingress on `lo`: not in `ports` */

static const char *const port_ifname[N_PORTS] = {
	"xl-d0", "xl-d1", "xl-d2", "xl-u0", "xl-u1", "xl-u2", "xl-u3",
};

#define IP4(a, b, c, d) { a, b, c, d }
#define W6(w) ((w) >> 8) & 0xff, (w) & 0xff
#define IP6(a, b, c, d, e, f, g, h)                                        \
	{ W6(a), W6(b), W6(c), W6(d), W6(e), W6(f), W6(g), W6(h) }

#define MAC_PORT(i)     { 0x02, 0x00, 0x00, 0x00, 0x01, (i) }
#define MAC_SPINE(i)    { 0x02, 0x5b, 0x00, 0x00, 0x00, (i) }
#define MAC_HOST(n, h)  { 0x02, 0xaa, 0x00, 0x00, (n), (h) }
#define MAC_OTHER       { 0x02, 0x77, 0x77, 0x77, 0x77, 0x77 }
#define MAC_BCAST       { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#define MAC_LLDP        { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e }
#define MAC_PAUSE       { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 }
#define MAC_MCAST4      { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb }
#define MAC_MCAST6(x)   { 0x33, 0x33, 0x00, 0x00, 0x00, (x) }
#define MAC_SNMC6       { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 }

static const __u8 port_mac[N_PORTS][6] = {
	MAC_PORT(0), MAC_PORT(1), MAC_PORT(2), MAC_PORT(3),
	MAC_PORT(4), MAC_PORT(5), MAC_PORT(6),
};

/* Uplink i: point-to-point 172.16.i.0/31 and fd00:0:0:i::/64 to spine i. */
static const __u8 uplink_nh4[N_UPLINKS][4] = {
	IP4(172, 16, 0, 1), IP4(172, 16, 1, 1),
	IP4(172, 16, 2, 1), IP4(172, 16, 3, 1),
};
static const __u8 uplink_nh6[N_UPLINKS][16] = {
	IP6(0xfd00, 0, 0, 0, 0, 0, 0, 1), IP6(0xfd00, 0, 0, 1, 0, 0, 0, 1),
	IP6(0xfd00, 0, 0, 2, 0, 0, 0, 1), IP6(0xfd00, 0, 0, 3, 0, 0, 0, 1),
};

/* Addresses used by the fixtures. */
#define A_H0    IP4(10, 0, 0, 2)    /* on D0, neighbour known */
#define A_H0X   IP4(10, 0, 0, 3)    /* on D0, no neighbour entry */
#define A_H1    IP4(10, 0, 1, 2)    /* on D1 */
#define A_H2    IP4(10, 0, 2, 2)    /* on D2 (no tx_ports entry) */
#define A_REM   IP4(10, 2, 3, 4)    /* behind the uplink group */
#define A_REM2  IP4(10, 2, 200, 7)
#define A_EMPTY IP4(10, 3, 0, 1)    /* group route, group has no member */
#define A_UNKP  IP4(10, 4, 0, 1)    /* port route to an unknown ifindex */
#define A_NORT  IP4(192, 0, 2, 1)   /* no route */
#define A_BC0   IP4(10, 0, 0, 255)
#define A_MC4   IP4(224, 0, 0, 251)
#define A6_H0   IP6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2)
#define A6_H0X  IP6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 3)
#define A6_H1   IP6(0x2001, 0xdb8, 0, 1, 0, 0, 0, 2)
#define A6_LEAF IP6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)
#define A6_REM  IP6(0x2001, 0xdb8, 2, 0, 0, 0, 0, 4)
#define A6_REM2 IP6(0x2001, 0xdb8, 0xffff, 7, 0, 0, 0, 9)
#define A6_NORT IP6(0x2001, 0xdead, 0, 0, 0, 0, 0, 1)
#define A6_LL   IP6(0xfe80, 0, 0, 0, 0, 0, 0, 1)
#define A6_LLHI IP6(0xfebf, 0xffff, 0, 0, 0, 0, 0, 1) /* top of fe80::/10 */
#define A6_SITE IP6(0xfec0, 0, 0, 0, 0, 0, 0, 1)      /* just above it */
#define A6_MC   IP6(0xff02, 0, 0, 0, 0, 0, 0, 1)
#define A6_MCG  IP6(0xff0e, 0, 0, 0, 0, 0, 0, 0x101)
#define A6_SNMC IP6(0xff02, 0, 0, 0, 0, 1, 0xff00, 1)

struct nbr {
	int port;
	int family;
	__u8 addr[16];
	__u8 mac[6];
};

static const struct nbr nbrs[] = {
	{ P_D0, 4, A_H0, MAC_HOST(0, 2) },
	{ P_D1, 4, A_H1, MAC_HOST(1, 2) },
	{ P_D2, 4, A_H2, MAC_HOST(2, 2) },
	{ P_D0, 6, A6_H0, MAC_HOST(0, 2) },
	{ P_D1, 6, A6_H1, MAC_HOST(1, 2) },
	{ P_U0, 4, IP4(172, 16, 0, 1), MAC_SPINE(0) },
	{ P_U1, 4, IP4(172, 16, 1, 1), MAC_SPINE(1) },
	{ P_U2, 4, IP4(172, 16, 2, 1), MAC_SPINE(2) },
	{ P_U3, 4, IP4(172, 16, 3, 1), MAC_SPINE(3) },
	{ P_U0, 6, IP6(0xfd00, 0, 0, 0, 0, 0, 0, 1), MAC_SPINE(0) },
	{ P_U1, 6, IP6(0xfd00, 0, 0, 1, 0, 0, 0, 1), MAC_SPINE(1) },
	{ P_U2, 6, IP6(0xfd00, 0, 0, 2, 0, 0, 0, 1), MAC_SPINE(2) },
	{ P_U3, 6, IP6(0xfd00, 0, 0, 3, 0, 0, 0, 1), MAC_SPINE(3) },
};

#define RT_RAW_IFINDEX 4242 /* a port route to an unconfigured ifindex */

static struct {
	struct leaf *skel;
	int prog_fd;
	int ncpu;
	int tap_fd[N_PORTS];
	__u32 ifindex[N_PORTS];
	__u32 lo_ifindex;
	struct xl_group group0;
	struct xl_group group1;
	bool tc; /* run_check runs xdpleaf_leaf_tc (hook = tc) */
} E;

/* ---- environment ------------------------------------------------------- */

static int set_malformed(__u32 action)
{
	struct xl_settings s = { .malformed = action };
	__u32 zero = 0;

	return map_set(E.skel->maps.settings, &zero, sizeof(zero), &s,
		       sizeof(s));
}

/* The maps as the loader fills them from tests/configs/good/bpf-leaf.conf
 * (xl_leaf_fill_maps: the same translation `xdpleaf load` uses), plus what
 * no valid config can say, for the fixtures that need it: group 1 with no
 * members (and a route to it), a port route to an ifindex no port has, D2
 * missing from tx_ports (a failing redirect). The neighbours go into the
 * kernel's table, from which xl_neigh_sync copies them, as in the
 * product. */
static int fill_maps(void)
{
	struct leaf *sk = E.skel;
	struct xl_config cfg;
	char err[XL_ERR_MAX];
	__u32 g0 = 0, g1 = 1;
	size_t i;
	int p;

	SETUP_CHECK(!xl_config_load("tests/configs/good/bpf-leaf.conf", true, &cfg, err,
				    sizeof(err)), "%s\n", err);
	p = xl_leaf_fill_maps(sk, &cfg);
	xl_config_free(&cfg);
	SETUP_CHECK(!p, "xl_leaf_fill_maps failed\n");
	/* what the tests expect of it: ports in file order, the MACs of
	 * the taps, one hash group over the uplinks */
	for (p = 0; p < N_PORTS; p++) {
		struct xl_port port;

		SETUP_CHECK(!bpf_map_lookup_elem(bpf_map__fd(sk->maps.ports), &E.ifindex[p],
						 &port) &&
			    port.slot == (__u32)p && !memcmp(port.mac, port_mac[p], 6) &&
			    port.role == (p >= P_U0 ? XL_ROLE_UPLINK : XL_ROLE_DOWNLINK),
			    "ports[%s] is not what the tests expect\n", port_ifname[p]);
	}
	SETUP_CHECK(!bpf_map_lookup_elem(bpf_map__fd(sk->maps.groups), &g0, &E.group0) &&
		    E.group0.lb_mode == XL_LB_HASH && E.group0.n_members == N_UPLINKS,
		    "group 0 is not the uplinks' hash group\n");

	SETUP_CHECK(!bpf_map_delete_elem(bpf_map__fd(sk->maps.tx_ports), &E.ifindex[P_D2]),
		    "tx_ports[%s]: %s\n", port_ifname[P_D2], strerror(errno));
	memset(&E.group1, 0, sizeof(E.group1)); /* no members */
	SETUP_CHECK(!map_set(sk->maps.groups, &g1, 4, &E.group1, sizeof(E.group1)),
		    "groups: %s\n", strerror(errno));
	{
		struct xl_lpm4_key k = { .prefixlen = 16, .addr = A_EMPTY };
		struct xl_route v = { .kind = XL_ROUTE_GROUP, .target = 1 };

		k.addr[3] = 0;
		k.addr[2] = 0;
		SETUP_CHECK(!map_set(sk->maps.routes4, &k, sizeof(k), &v, sizeof(v)),
			    "routes4: %s\n", strerror(errno));
		k = (struct xl_lpm4_key){ .prefixlen = 24, .addr = A_UNKP };
		k.addr[3] = 0;
		v = (struct xl_route){ .kind = XL_ROUTE_PORT, .target = RT_RAW_IFINDEX };
		SETUP_CHECK(!map_set(sk->maps.routes4, &k, sizeof(k), &v, sizeof(v)),
			    "routes4: %s\n", strerror(errno));
	}

	/* the neighbours where the product learns them, the kernel's table,
	 * copied into `neigh` by the loader's and the daemon's code */
	for (i = 0; i < sizeof(nbrs) / sizeof(nbrs[0]); i++)
		SETUP_CHECK(!fixture_neigh_add(E.ifindex[nbrs[i].port], nbrs[i].family,
					       nbrs[i].addr, nbrs[i].mac),
			    "neighbour on %s: %s\n", port_ifname[nbrs[i].port], strerror(errno));
	SETUP_CHECK(!xl_neigh_sync(bpf_map__fd(sk->maps.neigh), bpf_map__fd(sk->maps.ports),
				   bpf_map__fd(sk->maps.fwd_gen)), "xl_neigh_sync failed\n");
	return 0;
}

static int group_setup(void **state)
{
	(void)state;
	if (fixture_ports(N_PORTS, port_ifname, port_mac, E.tap_fd, E.ifindex))
		return -1;
	/* one CPU: its forwarding caches are what the cache_* tests watch */
	{
		cpu_set_t one;
		int cpu = sched_getcpu();

		CPU_ZERO(&one);
		CPU_SET(cpu < 0 ? 0 : cpu, &one);
		SETUP_CHECK(!sched_setaffinity(0, sizeof(one), &one), "sched_setaffinity: %s\n",
			    strerror(errno));
	}
	E.lo_ifindex = if_nametoindex("lo");
	SETUP_CHECK(E.lo_ifindex, "no lo in the new netns\n");
	E.ncpu = libbpf_num_possible_cpus();
	SETUP_CHECK(E.ncpu > 0, "libbpf_num_possible_cpus: %d\n", E.ncpu);
	E.skel = leaf__open_and_load();
	SETUP_CHECK(E.skel, "leaf__open_and_load: %s\n", strerror(errno));
	fixture_fwd_gen_fd = bpf_map__fd(E.skel->maps.fwd_gen);
	E.prog_fd = bpf_program__fd(E.tc ? E.skel->progs.xdpleaf_leaf_tc :
					   E.skel->progs.xdpleaf_leaf);
	return fill_maps();
}

/* The tc program's verdict as the XDP one it translates. */
static int xdp_verdict_of_tc(__u32 tc)
{
	return tc == TC_ACT_REDIRECT ? XDP_REDIRECT : tc == TC_ACT_SHOT ? XDP_DROP :
	       tc == TC_ACT_OK ? XDP_PASS : 100 + (int)tc; /* 100+: none of them */
}

static int group_teardown(void **state)
{
	(void)state;
	leaf__destroy(E.skel);
	E.skel = NULL;
	fixture_close(N_PORTS, E.tap_fd);
	return 0;
}

/* ---- running one packet and checking everything ---------------------- */

#define N_STAT_FIELDS (XL_PORT_STATS_COUNTERS / sizeof(__u64))

static int stats_read(__u32 slot, struct xl_port_stats *sum)
{
	return xl_percpu_sum(bpf_map__fd(E.skel->maps.port_stats), &slot,
			     sizeof(*sum), XL_PORT_STATS_COUNTERS, sum);
}

/* Index (in __u64 fields) of the first verdict and reason counter. */
#define F_VERDICT (offsetof(struct xl_port_stats, verdict) / 8)
#define F_REASON (offsetof(struct xl_port_stats, reason) / 8)

static void stat_field_name(size_t f, char *buf, size_t len)
{
	static const char *const head[] = { "rx_packets", "rx_bytes",
					     "tx_packets", "tx_bytes", "flowlets",
					     "moves_in", "moves_out", "moves_refused" };
	_Static_assert(sizeof(head) / sizeof(head[0]) == F_VERDICT,
		       "name every field before verdict[]");

	if (f < F_VERDICT)
		snprintf(buf, len, "%s", head[f]);
	else if (f < F_REASON)
		snprintf(buf, len, "verdict[%s]", xl_verdict_names[f - F_VERDICT]);
	else
		snprintf(buf, len, "reason[%s]", xl_reason_names[f - F_REASON]);
}

enum out_mode {
	OUT_AUTO = 0,  /* REDIRECT: forwarded copy; PASS/DROP: unchanged */
	OUT_ANY,       /* not checked (dropped after a partial rewrite) */
};

struct run_expect {
	int in;        /* ingress port index or IN_UNCONFIGURED */
	int verdict;
	int reason;
	int egress;    /* port index or -1 */
	int out_mode;
	const __u8 *out; /* expected frame for REDIRECT */
	size_t out_len;
	int test_run_errno; /* test_run itself must fail with this */
};

static const char *verdict_name(int v)
{
	return v >= 0 && v < XL_VERDICT_MAX ? xl_verdict_names[v] : "?";
}

/* Run one frame and check the verdict, the output and every counter of
 * every slot. On mismatch, err says what and -1 is returned. *egress_seen
 * gets the slot whose tx_packets moved. */
static int run_check(const struct run_expect *x, const __u8 *frame,
		     size_t len, char *err, size_t errlen, int *egress_seen)
{
	static __u8 out[PKT_MAX];
	struct xl_port_stats before[N_PORTS], after[N_PORTS];
	struct xdp_md ctx = { 0 };
	struct __sk_buff skb = { 0 };
	__u64 want[N_STAT_FIELDS];
	size_t s, f, n = 0;
	int rc, p, verdict;

	LIBBPF_OPTS(bpf_test_run_opts, opts);

	err[0] = '\0';
	if (egress_seen)
		*egress_seen = -1;
	ctx.data = 0;
	ctx.data_end = (__u32)len;
	ctx.ingress_ifindex = x->in == IN_UNCONFIGURED ? E.lo_ifindex :
							 E.ifindex[x->in];
	opts.data_in = frame;
	opts.data_size_in = (__u32)len;
	opts.data_out = out;
	opts.data_size_out = sizeof(out);
	opts.ctx_in = &ctx;
	opts.ctx_size_in = sizeof(ctx);
	if (E.tc) { /* an skb on the ingress port (test_run's device) */
		skb.ifindex = skb.ingress_ifindex = ctx.ingress_ifindex;
		opts.ctx_in = &skb;
		opts.ctx_size_in = sizeof(skb);
	}
	opts.repeat = 1; /* a repeat would re-run on the rewritten frame */

	for (p = 0; p < N_PORTS; p++)
		if (stats_read((__u32)p, &before[p])) {
			snprintf(err, errlen, "port_stats read: %s",
				 strerror(errno));
			return -1;
		}
	rc = bpf_prog_test_run_opts(E.prog_fd, &opts);
	verdict = E.tc ? xdp_verdict_of_tc(opts.retval) : (int)opts.retval;
	if (x->test_run_errno) {
		/* The kernel must refuse the frame; nothing may be counted. */
		if (rc != -x->test_run_errno)
			n += snprintf(err + n, errlen - n,
				      "test_run returned %d (retval %s), want "
				      "%d; ", rc,
				      verdict_name((int)opts.retval),
				      -x->test_run_errno);
	} else if (rc) {
		snprintf(err, errlen, "test_run failed: %s", strerror(-rc));
		return -1;
	} else if (verdict != x->verdict) {
		n += snprintf(err + n, errlen - n, "verdict %s (%u), want %s; ",
			      verdict_name(verdict), opts.retval,
			      verdict_name(x->verdict));
	}

	/* Output frame. */
	if (!x->test_run_errno && x->out_mode == OUT_AUTO) {
		const __u8 *want_out = x->verdict == XDP_REDIRECT ? x->out :
								    frame;
		size_t want_len = x->verdict == XDP_REDIRECT ? x->out_len :
							       len;
		size_t got_len = opts.data_size_out;

		if (got_len != want_len) {
			n += snprintf(err + n, errlen - n,
				      "output %zu bytes, want %zu; ", got_len,
				      want_len);
		} else if (memcmp(out, want_out, want_len)) {
			for (s = 0; s < want_len; s++)
				if (out[s] != want_out[s])
					break;
			n += snprintf(err + n, errlen - n,
				      "output differs at byte %zu: got %02x "
				      "want %02x (%s); ",
				      s, out[s], want_out[s],
				      x->verdict == XDP_REDIRECT ?
					      "vs. the frame built from scratch" :
					      "the frame should be unchanged");
		}
	}

	/* Counters: exact deltas on every slot. */
	for (p = 0; p < N_PORTS; p++) {
		const __u64 *b = (const __u64 *)&before[p];
		const __u64 *a = (const __u64 *)&after[p];

		if (stats_read((__u32)p, &after[p])) {
			snprintf(err, errlen, "port_stats read: %s",
				 strerror(errno));
			return -1;
		}
		memset(want, 0, sizeof(want));
		if (p == x->in && !x->test_run_errno) {
			want[offsetof(struct xl_port_stats, rx_packets) / 8] = 1;
			want[offsetof(struct xl_port_stats, rx_bytes) / 8] = len;
			if (x->verdict >= 0 && x->verdict < XL_VERDICT_MAX)
				want[F_VERDICT + x->verdict] = 1;
			if (x->reason >= 0)
				want[F_REASON + x->reason] = 1;
		}
		if (x->verdict == XDP_REDIRECT && p == x->egress) {
			want[offsetof(struct xl_port_stats, tx_packets) / 8] += 1;
			want[offsetof(struct xl_port_stats, tx_bytes) / 8] += len;
		}
		if (egress_seen &&
		    after[p].tx_packets != before[p].tx_packets)
			*egress_seen = p;
		for (f = 0; f < N_STAT_FIELDS; f++) {
			char name[48];

			if (a[f] - b[f] == want[f])
				continue;
			stat_field_name(f, name, sizeof(name));
			if (n < errlen)
				n += snprintf(err + n, errlen - n,
					      "%s.%s +%llu, want +%llu; ",
					      port_ifname[p], name,
					      (unsigned long long)(a[f] - b[f]),
					      (unsigned long long)want[f]);
		}
	}
	return err[0] ? -1 : 0;
}

/* ---- expectations built from the topology, not from the program ------- */

static int port_of_ifindex(__u32 ifindex)
{
	int p;

	for (p = 0; p < N_PORTS; p++)
		if (E.ifindex[p] == ifindex)
			return p;
	return -1;
}

/* The flow the way lb.h defines it, from the spec's own fields. */
static void flow_of(const struct pkt_spec *s, struct xl_flow *fl)
{
	bool frag = s->family == 4 && (s->frag_off & 0x3fff);

	memset(fl, 0, sizeof(*fl));
	fl->family = (__u8)s->family;
	memcpy(fl->saddr, s->saddr, s->family == 4 ? 4 : 16);
	memcpy(fl->daddr, s->daddr, s->family == 4 ? 4 : 16);
	fl->proto = s->proto;
	if (!frag && (s->proto == PKT_UDP || s->proto == PKT_TCP)) {
		fl->sport = s->sport;
		fl->dport = s->dport;
	}
}

static int expected_uplink(const struct pkt_spec *s)
{
	struct xl_flow fl;
	int m;

	flow_of(s, &fl);
	m = hash_member(&E.group0, &fl);
	if (m < 0 || (__u32)m >= E.group0.n_members)
		return -1;
	return port_of_ifindex(E.group0.members[m]);
}

static const __u8 *neigh_mac(int port, int family, const __u8 *addr)
{
	size_t i;

	for (i = 0; i < sizeof(nbrs) / sizeof(nbrs[0]); i++)
		if (nbrs[i].port == port && nbrs[i].family == family &&
		    !memcmp(nbrs[i].addr, addr, family == 4 ? 4 : 16))
			return nbrs[i].mac;
	return NULL;
}

/* The frame as it must leave on `egress`: built anew. */
static size_t build_forwarded(const struct pkt_spec *in, int egress,
			      __u8 *buf)
{
	struct pkt_spec s = *in;
	const __u8 *nh, *mac;

	if (egress < 0)
		return 0;
	if (egress >= P_U0)
		nh = s.family == 4 ? uplink_nh4[egress - P_U0] :
				     uplink_nh6[egress - P_U0];
	else
		nh = s.daddr;
	mac = neigh_mac(egress, s.family, nh);
	if (!mac)
		return 0;
	s.ttl--;
	memcpy(s.src, port_mac[egress], 6);
	memcpy(s.dst, mac, 6);
	return pkt_build(&s, buf, NULL);
}

/* ---- fixture table ---------------------------------------------------- */

typedef void (*mangle_fn)(__u8 *buf, size_t *len, const struct pkt_off *o);
typedef void (*tune_fn)(struct pkt_spec *s);

struct fixture {
	const char *name;
	struct pkt_spec pkt;
	int in;        /* ingress port */
	int verdict;
	int reason;    /* counted on the ingress slot; -1: nothing counted */
	int egress;    /* port index, EG_GROUP (computed) or EG_NONE */
	int out_mode;
	mangle_fn mangle; /* applied to the input only */
	int drop;      /* run with settings.malformed = drop */
	tune_fn tune;  /* adjusts the spec (input and expected output) */
};

#define EG_NONE  (-1)
#define EG_GROUP (-2)

/* Frames from a host on port `p` (host .2 of the port's subnet). */
#define FROM_HOST(p) .dst = MAC_PORT(p), .src = MAC_HOST(p, 2)
#define FROM_SPINE(u) .dst = MAC_PORT(P_U0 + (u)), .src = MAC_SPINE(u)
#define IPV4(s, d) .family = 4, .saddr = s, .daddr = d, .ttl = 64,         \
		   .ip_id = 0x1c46, .frag_off = 0x4000 /* DF */
#define IPV6(s, d) .family = 6, .saddr = s, .daddr = d, .ttl = 64,         \
		   .flowlabel = 0x12345
#define UDP(sp, dp) .proto = PKT_UDP, .sport = sp, .dport = dp,            \
		    .payload_len = 32, .payload_seed = 0x11
#define TCP(sp, dp) .proto = PKT_TCP, .sport = sp, .dport = dp,            \
		    .payload_len = 40, .payload_seed = 0x22
#define ROCE(sp, qp) .proto = PKT_UDP, .sport = sp,                        \
		     .dport = PKT_ROCEV2_PORT, .bth = 1,                   \
		     .bth_opcode = 0x04 /* RC SEND only */, .dest_qp = qp,  \
		     .psn = 0x00abcd, .payload_len = 64, .payload_seed = 0x33
#define ICMP6(t) .proto = PKT_ICMP6, .icmp6_type = t, .payload_len = 16,  \
		 .payload_seed = 0x44
#define VLAN(t_) .nvlan = 1, .tci = { t_ }

#define FWD(eg) .verdict = XDP_REDIRECT, .reason = XL_R_FORWARDED, .egress = eg
#define PASS(r) .verdict = XDP_PASS, .reason = r, .egress = EG_NONE
#define DROP(r) .verdict = XDP_DROP, .reason = r, .egress = EG_NONE, .drop = 1

/* Mangles for malformed headers (checksum kept valid: only the named
 * field is wrong). */
static void m_ip4_version6(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	b[o->l3] = (__u8)(0x60 | (b[o->l3] & 0x0f));
	pkt_ip4_csum(b + o->l3);
}

static void m_ip4_ihl(__u8 *b, int ihl, const struct pkt_off *o)
{
	b[o->l3] = (__u8)(0x40 | ihl);
	pkt_put16(b + o->l3 + 10, 0);
	pkt_put16(b + o->l3 + 10, pkt_fold(pkt_sum(0, b + o->l3, 20)));
}

static void m_ip4_ihl4(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	m_ip4_ihl(b, 4, o);
}

static void m_ip4_ihl0(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	m_ip4_ihl(b, 0, o);
}

static void m_ip4_ihl15(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	m_ip4_ihl(b, 15, o);
}

static void m_ip4_totlen_big(__u8 *b, size_t *len, const struct pkt_off *o)
{
	pkt_put16(b + o->l3 + 2, (__u16)(*len - o->l3 + 1));
	pkt_ip4_csum(b + o->l3);
}

static void m_ip4_totlen_lt_ihl(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	pkt_put16(b + o->l3 + 2, (__u16)(o->l4 - o->l3 - 1));
	pkt_ip4_csum(b + o->l3);
}

static void m_ip6_version4(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	b[o->l3] = (__u8)(0x40 | (b[o->l3] & 0x0f));
}

static void m_ip6_plen_big(__u8 *b, size_t *len, const struct pkt_off *o)
{
	pkt_put16(b + o->l3 + 4, (__u16)(*len - o->l4 + 1));
}

/* An ICMPv6 header of 2 bytes in a consistent datagram. */
static void m_icmp6_short(__u8 *b, size_t *len, const struct pkt_off *o)
{
	*len = o->l4 + 2;
	pkt_put16(b + o->l3 + 4, 2);
}

/* TCP data offset 4: a header shorter than its own fixed part. */
static void m_tcp_doff4(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	b[o->l4 + 12] = (__u8)(4 << 4 | (b[o->l4 + 12] & 0x0f));
}

/* UDP length 7 (below its own header), or one past the IP payload. */
static void m_udp_len7(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	pkt_put16(b + o->l4 + 4, 7);
}

static void m_udp_len_past_ip(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	pkt_put16(b + o->l4 + 4, (__u16)(o->ip_end - o->l4 + 1));
}

/* An IPv4 header alone (total length 20, protocol TCP) in a frame padded
 * to 60 bytes with what would read as a TCP header: the ports must not
 * come from the padding. */
static void m_ip4_tcp_in_padding(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	pkt_put16(b + o->l3 + 2, (__u16)(o->l4 - o->l3));
	pkt_ip4_csum(b + o->l3);
}

/* An IPv4 datagram that honestly ends inside the UDP header. */
static void m_ip4_udp_short(__u8 *b, size_t *len, const struct pkt_off *o)
{
	*len = o->l4 + 6;
	pkt_put16(b + o->l3 + 2, (__u16)(*len - o->l3));
	pkt_ip4_csum(b + o->l3);
}

/* The IPv4 header checksum field of the frame built from s. */
static __u16 ip4_csum_of(const struct pkt_spec *s)
{
	static __u8 buf[PKT_MAX];
	struct pkt_off o;

	pkt_build(s, buf, &o);
	return pkt_get16(buf + o.l3 + 10);
}

/* Pick the IP ID so that a header checksum hits 0x0000 (the one's
 * complement sum of the rest is 0xFFFF): before or after the TTL
 * decrement. These are the cases RFC 1624 eqn. 2 gets wrong. */
static void tune_csum(struct pkt_spec *s, int after)
{
	struct pkt_spec t = *s;
	__u32 id;

	t.ttl = (__u8)(s->ttl - (after ? 1 : 0));
	for (id = 0; id <= 0xffff; id++) {
		t.ip_id = (__u16)id;
		if (ip4_csum_of(&t) == 0)
			break;
	}
	s->ip_id = (__u16)id;
}

static void tune_csum_in_zero(struct pkt_spec *s)
{
	tune_csum(s, 0);
}

static void tune_csum_out_zero(struct pkt_spec *s)
{
	tune_csum(s, 1);
}

/* 0xFFFF is the other representation of a zero checksum: a receiver
 * accepts it (the whole header still sums to 0xFFFF). */
static void m_ip4_csum_ffff(__u8 *b, size_t *len, const struct pkt_off *o)
{
	(void)len;
	assert_int_equal(pkt_get16(b + o->l3 + 10), 0);
	pkt_put16(b + o->l3 + 10, 0xffff);
	assert_int_equal(pkt_fold(pkt_sum(0, b + o->l3, o->l4 - o->l3)), 0);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const struct fixture fixtures[] = {
	/* -- forwarded ------------------------------------------------- */
	{ "ip4_udp_onlink", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, FWD(P_D0) },
	{ "ip4_tcp_onlink_from_uplink", { FROM_SPINE(2), IPV4(A_REM, A_H1),
	  TCP(443, 51000) }, P_U2, FWD(P_D1) },
	{ "ip4_tcp_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  TCP(51000, 443) }, P_D0, FWD(EG_GROUP) },
	{ "ip4_udp_group", { FROM_HOST(P_D1), IPV4(A_H1, A_REM2),
	  UDP(33333, 53) }, P_D1, FWD(EG_GROUP) },
	{ "ip4_options_ihl6", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .ip_opt_len = 4 }, P_D1, PASS(XL_R_IP_OPTIONS) },
	{ "ip4_options_ihl15", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .ip_opt_len = 40 }, P_D1, PASS(XL_R_IP_OPTIONS) },
	{ "ip4_options_tcp_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  TCP(51001, 80), .ip_opt_len = 8 }, P_D0, PASS(XL_R_IP_OPTIONS) },
	{ "ip4_tos_no_df", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(1, 2), .tos = 0xb9, .frag_off = 0, .ip_id = 0xffff },
	  P_D1, FWD(P_D0) },
	{ "ip4_ttl2", { FROM_HOST(P_D1), IPV4(A_H1, A_H0), UDP(40000, 5000),
	  .ttl = 2 }, P_D1, FWD(P_D0) },
	{ "ip4_ttl255", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .ttl = 255 }, P_D1, FWD(P_D0) },
	{ "ip4_csum_in_0000", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, FWD(P_D0), .tune = tune_csum_in_zero },
	{ "ip4_csum_in_ffff", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, FWD(P_D0), .tune = tune_csum_in_zero,
	  .mangle = m_ip4_csum_ffff },
	{ "ip4_csum_out_0000", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, FWD(P_D0), .tune = tune_csum_out_zero },
	/* IPv4 options (a source route among them) are the kernel's: even
	 * with malformed = drop they pass */
	{ "ip4_options_group_malformed_drop", { FROM_HOST(P_D0),
	  IPV4(A_H0, A_REM), TCP(51000, 443), .ip_opt_len = 12, .ttl = 2 },
	  P_D0, PASS(XL_R_IP_OPTIONS), .drop = 1 },
	{ "ip4_padded_frame", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .payload_len = 2, .pad_to = 60 }, P_D1,
	  FWD(P_D0) },
	{ "ip4_1500_bytes", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .payload_len = 1472 }, P_D1, FWD(P_D0) },
	{ "ip4_fragment_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  UDP(40000, 5000), .frag_off = 0x00b9 }, P_D0, FWD(EG_GROUP) },
	{ "ip4_first_fragment_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  UDP(40000, 5000), .frag_off = 0x2000 }, P_D0, FWD(EG_GROUP) },
	{ "ip4_other_proto_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  .proto = 47 /* GRE */, .payload_len = 24 }, P_D0, FWD(EG_GROUP) },
	{ "ip6_udp_onlink", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  UDP(40000, 5000) }, P_D1, FWD(P_D0) },
	{ "ip6_tcp_onlink", { FROM_HOST(P_D0), IPV6(A6_H0, A6_H1),
	  TCP(51000, 22) }, P_D0, FWD(P_D1) },
	{ "ip6_tcp_group", { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
	  TCP(51000, 443) }, P_D0, FWD(EG_GROUP) },
	{ "ip6_udp_group", { FROM_HOST(P_D1), IPV6(A6_H1, A6_REM2),
	  UDP(12345, 53) }, P_D1, FWD(EG_GROUP) },
	{ "ip6_tcp_from_uplink", { FROM_SPINE(3), IPV6(A6_REM, A6_H0),
	  TCP(443, 51000) }, P_U3, FWD(P_D0) },
	{ "ip6_hoplimit2", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  UDP(40000, 5000), .ttl = 2 }, P_D1, FWD(P_D0) },
	{ "ip6_icmp6_echo_onlink", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  ICMP6(128) }, P_D1, FWD(P_D0) },
	{ "ip6_icmp6_type132_forwarded", { FROM_HOST(P_D1),
	  IPV6(A6_H1, A6_H0), ICMP6(132) }, P_D1, FWD(P_D0) },
	{ "ip6_icmp6_type138_forwarded", { FROM_HOST(P_D1),
	  IPV6(A6_H1, A6_H0), ICMP6(138) }, P_D1, FWD(P_D0) },
	{ "ip6_fragment_ext_group", { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
	  .proto = PKT_FRAG6, .payload_len = 24 }, P_D0, FWD(EG_GROUP) },
	{ "vlan_ip4_udp_onlink", { FROM_HOST(P_D1), VLAN(0x2064),
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, FWD(P_D0) },
	{ "vlan_ip4_tcp_group", { FROM_HOST(P_D0), VLAN(100),
	  IPV4(A_H0, A_REM), TCP(51000, 443) }, P_D0, FWD(EG_GROUP) },
	{ "vlan_ip6_tcp_group", { FROM_HOST(P_D0), VLAN(4094),
	  IPV6(A6_H0, A6_REM), TCP(51000, 443) }, P_D0, FWD(EG_GROUP) },
	{ "vlan_8021ad_single_tag_ip4", { FROM_HOST(P_D1), VLAN(7),
	  .tpid = { PKT_ETH_8021AD }, IPV4(A_H1, A_H0), UDP(40000, 5000) },
	  P_D1, FWD(P_D0) },
	{ "rocev2_ip4_onlink", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  ROCE(0xc001, 0x000123) }, P_D1, FWD(P_D0) },
	{ "rocev2_ip4_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  ROCE(0xc002, 0x000456) }, P_D0, FWD(EG_GROUP) },
	{ "rocev2_ip6_group", { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
	  ROCE(0xc003, 0xabcdef) }, P_D0, FWD(EG_GROUP) },
	{ "rocev2_vlan_ip4_onlink", { FROM_HOST(P_D1), VLAN(3),
	  IPV4(A_H1, A_H0), ROCE(0xc004, 0x000001) }, P_D1, FWD(P_D0) },

	/* -- to the kernel, by design -------------------------------- */
	{ "ip4_ttl1", { FROM_HOST(P_D1), IPV4(A_H1, A_H0), UDP(40000, 5000),
	  .ttl = 1 }, P_D1, PASS(XL_R_TTL_EXPIRED) },
	{ "ip4_ttl0", { FROM_HOST(P_D1), IPV4(A_H1, A_H0), UDP(40000, 5000),
	  .ttl = 0 }, P_D1, PASS(XL_R_TTL_EXPIRED) },
	{ "ip4_ttl1_group", { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
	  TCP(51000, 443), .ttl = 1 }, P_D0, PASS(XL_R_TTL_EXPIRED) },
	{ "ip6_hoplimit1", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  UDP(40000, 5000), .ttl = 1 }, P_D1, PASS(XL_R_TTL_EXPIRED) },
	{ "ip6_hoplimit0", { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
	  TCP(40000, 5000), .ttl = 0 }, P_D0, PASS(XL_R_TTL_EXPIRED) },
	{ "ip4_no_route", { FROM_HOST(P_D0), IPV4(A_H0, A_NORT),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_NO_ROUTE) },
	{ "ip6_no_route", { FROM_HOST(P_D0), IPV6(A6_H0, A6_NORT),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_NO_ROUTE) },
	{ "ip4_no_neigh", { FROM_HOST(P_D1), IPV4(A_H1, A_H0X),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_NO_NEIGH) },
	{ "ip6_no_neigh", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0X),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_NO_NEIGH) },
	{ "ip4_group_without_members", { FROM_HOST(P_D0),
	  IPV4(A_H0, A_EMPTY), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_NO_MEMBER) },
	{ "ip4_route_to_unknown_port", { FROM_HOST(P_D0),
	  IPV4(A_H0, A_UNKP), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_UNKNOWN_PORT) },
	{ "ip4_redirect_failed", { FROM_HOST(P_D0), IPV4(A_H0, A_H2),
	  UDP(40000, 5000) }, P_D0, .verdict = XDP_DROP,
	  .reason = XL_R_REDIRECT_FAILED, .egress = EG_NONE,
	  .out_mode = OUT_ANY },
	{ "arp_request_broadcast", { .dst = MAC_BCAST, .src = MAC_HOST(0, 2),
	  .ethertype = PKT_ETH_ARP, .payload_len = 28, .pad_to = 60 }, P_D0,
	  PASS(XL_R_ARP) },
	{ "arp_reply_vlan", { FROM_HOST(P_D0), VLAN(100),
	  .ethertype = PKT_ETH_ARP, .payload_len = 28 }, P_D0,
	  PASS(XL_R_ARP) },
	{ "lldp", { .dst = MAC_LLDP, .src = MAC_SPINE(1),
	  .ethertype = PKT_ETH_LLDP, .payload_len = 46 }, P_U1,
	  PASS(XL_R_LLDP) },
	/* PAUSE/PFC: counted (tests/lab/events.bats has PFC frames), then to
	 * the kernel, which drops MAC control frames */
	{ "mac_control", { .dst = MAC_PAUSE, .src = MAC_SPINE(1),
	  .ethertype = 0x8808, .payload_len = 46 }, P_U1,
	  PASS(XL_R_MAC_CONTROL) },
	{ "other_ethertype", { FROM_HOST(P_D0), .ethertype = PKT_ETH_LOCAL,
	  .payload_len = 46 }, P_D0, PASS(XL_R_NON_IP) },
	{ "mpls_ethertype", { FROM_SPINE(0), .ethertype = 0x8847,
	  .payload_len = 46 }, P_U0, PASS(XL_R_NON_IP) },
	{ "vlan_stack_8100_8100", { FROM_HOST(P_D0), .nvlan = 2,
	  .tci = { 10, 20 }, IPV4(A_H0, A_H1), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_VLAN_STACK) },
	{ "vlan_stack_88a8_8100", { FROM_HOST(P_D0), .nvlan = 2,
	  .tpid = { PKT_ETH_8021AD, PKT_ETH_8021Q }, .tci = { 10, 20 },
	  IPV4(A_H0, A_H1), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_VLAN_STACK) },
	{ "not_our_mac", { .dst = MAC_OTHER, .src = MAC_HOST(1, 2),
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1,
	  PASS(XL_R_NOT_OUR_MAC) },
	{ "not_our_mac_other_port", { .dst = MAC_PORT(P_D0),
	  .src = MAC_HOST(1, 2), IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1,
	  PASS(XL_R_NOT_OUR_MAC) },
	{ "broadcast_ip4", { .dst = MAC_BCAST, .src = MAC_HOST(0, 2),
	  IPV4(A_H0, A_BC0), UDP(68, 67) }, P_D0, PASS(XL_R_NOT_OUR_MAC) },
	{ "multicast_ip4", { .dst = MAC_MCAST4, .src = MAC_HOST(0, 2),
	  IPV4(A_H0, A_MC4), UDP(5353, 5353), .ttl = 255 }, P_D0,
	  PASS(XL_R_NOT_OUR_MAC) },
	{ "multicast_ip6_mac", { .dst = MAC_MCAST6(1), .src = MAC_HOST(0, 2),
	  IPV6(A6_H0, A6_MC), UDP(5353, 5353) }, P_D0,
	  PASS(XL_R_NOT_OUR_MAC) },
	{ "ip6_link_local_dst", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LL),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_LINK_LOCAL) },
	{ "ip6_link_local_top_of_fe80_10", { FROM_HOST(P_D0),
	  IPV6(A6_H0, A6_LLHI), TCP(40000, 5000) }, P_D0,
	  PASS(XL_R_LINK_LOCAL) },
	{ "ip6_fec0_is_not_link_local", { FROM_HOST(P_D0),
	  IPV6(A6_H0, A6_SITE), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_NO_ROUTE) },
	{ "ip6_multicast_dst", { FROM_HOST(P_D0), IPV6(A6_H0, A6_MC),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_LINK_LOCAL) },
	{ "ip6_multicast_global_scope", { FROM_HOST(P_D0),
	  IPV6(A6_H0, A6_MCG), UDP(40000, 5000) }, P_D0,
	  PASS(XL_R_LINK_LOCAL) },
	{ "nd_ns_unicast", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LEAF),
	  ICMP6(135), .ttl = 255 }, P_D0, PASS(XL_R_ND) },
	{ "nd_rs", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LEAF), ICMP6(133),
	  .ttl = 255 }, P_D0, PASS(XL_R_ND) },
	{ "nd_na", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LEAF), ICMP6(136),
	  .ttl = 255 }, P_D0, PASS(XL_R_ND) },
	{ "nd_redirect", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LEAF),
	  ICMP6(137), .ttl = 255 }, P_D0, PASS(XL_R_ND) },
	{ "nd_ns_to_onlink_host_hop1", { FROM_HOST(P_D1),
	  IPV6(A6_H1, A6_H0), ICMP6(135), .ttl = 1 }, P_D1, PASS(XL_R_ND) },
	{ "nd_ns_solicited_node_our_mac", { FROM_HOST(P_D0),
	  IPV6(A6_H0, A6_SNMC), ICMP6(135), .ttl = 255 }, P_D0,
	  PASS(XL_R_LINK_LOCAL) },
	{ "nd_ns_solicited_node_mcast_mac", { .dst = MAC_SNMC6,
	  .src = MAC_HOST(0, 2), IPV6(A6_H0, A6_SNMC), ICMP6(135),
	  .ttl = 255 }, P_D0, PASS(XL_R_NOT_OUR_MAC) },
	{ "ttl1_with_malformed_drop", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .ttl = 1 }, P_D1, PASS(XL_R_TTL_EXPIRED),
	  .drop = 1 },
	{ "arp_with_malformed_drop", { .dst = MAC_BCAST,
	  .src = MAC_HOST(0, 2), .ethertype = PKT_ETH_ARP,
	  .payload_len = 28 }, P_D0, PASS(XL_R_ARP), .drop = 1 },
	{ "ingress_not_configured", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, IN_UNCONFIGURED, .verdict = XDP_PASS,
	  .reason = -1, .egress = EG_NONE },

	/* -- malformed -------------------------------------------------- */
	/* sources and lengths a router refuses (issue 13): martians,
	 * group or own MAC as source, VLAN 4095, L4 lengths */
	{ "martian_src_loopback", { FROM_HOST(P_D1), IPV4(IP4(127, 0, 0, 1), A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_MARTIAN) },
	{ "martian_src_loopback_drop", { FROM_HOST(P_D1), IPV4(IP4(127, 0, 0, 1), A_H0),
	  UDP(40000, 5000) }, P_D1, DROP(XL_R_MARTIAN) },
	{ "martian_src_zero", { FROM_HOST(P_D1), IPV4(IP4(0, 0, 0, 0), A_H0),
	  UDP(68, 67) }, P_D1, PASS(XL_R_MARTIAN) },
	{ "martian_src_multicast", { FROM_HOST(P_D1), IPV4(IP4(224, 1, 2, 3), A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_MARTIAN) },
	{ "martian_src_broadcast", { FROM_HOST(P_D1), IPV4(IP4(255, 255, 255, 255), A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_MARTIAN) },
	/* 0.0.0.0 or :: to a group address is a host asking (DHCP, IPv6
	 * duplicate address detection): the kernel's, even with malformed =
	 * drop; the martian check is for frames sent to us */
	{ "dhcp_discover_not_martian", { .dst = MAC_BCAST, .src = MAC_HOST(1, 2),
	  IPV4(IP4(0, 0, 0, 0), IP4(255, 255, 255, 255)), UDP(68, 67) }, P_D1,
	  PASS(XL_R_NOT_OUR_MAC), .drop = 1 },
	{ "ipv6_dad_not_martian", { .dst = MAC_SNMC6, .src = MAC_HOST(1, 2),
	  IPV6(IP6(0, 0, 0, 0, 0, 0, 0, 0), IP6(0xff02, 0, 0, 0, 0, 1, 0xff00, 1)),
	  ICMP6(135) }, P_D1, PASS(XL_R_NOT_OUR_MAC), .drop = 1 },
	{ "martian_dst_loopback", { FROM_HOST(P_D1), IPV4(A_H1, IP4(127, 0, 0, 9)),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_MARTIAN) },
	{ "martian6_src_loopback", { FROM_HOST(P_D1),
	  IPV6(IP6(0, 0, 0, 0, 0, 0, 0, 1), A6_H0), UDP(40000, 5000) }, P_D1,
	  PASS(XL_R_MARTIAN) },
	{ "martian6_dst_unspecified", { FROM_HOST(P_D1),
	  IPV6(A6_H1, IP6(0, 0, 0, 0, 0, 0, 0, 0)), UDP(40000, 5000) }, P_D1,
	  PASS(XL_R_MARTIAN) },
	{ "martian6_src_multicast", { FROM_HOST(P_D1),
	  IPV6(IP6(0xff02, 0, 0, 0, 0, 0, 0, 1), A6_H0), UDP(40000, 5000) }, P_D1,
	  DROP(XL_R_MARTIAN) },
	{ "bad_src_mac_broadcast", { .dst = MAC_PORT(P_D1), .src = MAC_BCAST,
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_SRC_MAC) },
	{ "bad_src_mac_multicast_drop", { .dst = MAC_PORT(P_D1), .src = MAC_MCAST4,
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, DROP(XL_R_BAD_SRC_MAC) },
	{ "bad_src_mac_our_own", { .dst = MAC_PORT(P_D1), .src = MAC_PORT(P_D1),
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_SRC_MAC) },
	{ "bad_vlan_4095", { FROM_HOST(P_D0), VLAN(4095), IPV4(A_H0, A_H1),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_BAD_VLAN) },
	/* VID 0: priority-tagged (PCP 3, as RoCE with PFC is), untagged for
	 * the VLAN check */
	{ "vlan_priority_tag_vid0", { FROM_HOST(P_D2), VLAN(0x6000),
	  IPV4(A_H2, A_H0), UDP(40000, 5000) }, P_D2, FWD(P_D0) },
	{ "vlan_not_configured", { FROM_HOST(P_D0), VLAN(9), IPV4(A_H0, A_H1),
	  UDP(40000, 5000) }, P_D0, PASS(XL_R_VLAN_UNKNOWN) },
	{ "vlan_not_configured_pass_even_with_drop", { FROM_HOST(P_D0), VLAN(9),
	  IPV4(A_H0, A_H1), UDP(40000, 5000) }, P_D0, PASS(XL_R_VLAN_UNKNOWN),
	  .drop = 1 },
	{ "bad_l4_tcp_doff4", { FROM_HOST(P_D0), IPV4(A_H0, A_H1),
	  TCP(40000, 80) }, P_D0, PASS(XL_R_BAD_L4), .mangle = m_tcp_doff4 },
	{ "bad_l4_udp_len7_drop", { FROM_HOST(P_D0), IPV4(A_H0, A_H1),
	  UDP(40000, 5000) }, P_D0, DROP(XL_R_BAD_L4), .mangle = m_udp_len7 },
	{ "bad_l4_udp_len_past_ip", { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
	  UDP(40000, 5000), .pad_to = 90 }, P_D0, PASS(XL_R_BAD_L4),
	  .mangle = m_udp_len_past_ip },
	{ "trunc_l4_tcp_only_in_padding", { FROM_HOST(P_D0), IPV4(A_H0, A_H1),
	  TCP(40000, 80), .pad_to = 60 }, P_D0, PASS(XL_R_TRUNC_L4),
	  .mangle = m_ip4_tcp_in_padding },
	{ "bad_ip4_version", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_IP4),
	  .mangle = m_ip4_version6 },
	{ "bad_ip4_version_drop", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, DROP(XL_R_BAD_IP4),
	  .mangle = m_ip4_version6 },
	{ "bad_ip4_ihl4", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_IP4), .mangle = m_ip4_ihl4 },
	{ "bad_ip4_ihl0_drop", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, DROP(XL_R_BAD_IP4), .mangle = m_ip4_ihl0 },
	{ "ip4_ihl15_past_frame", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .payload_len = 4 }, P_D1, PASS(XL_R_TRUNC_IP4),
	  .mangle = m_ip4_ihl15 },
	{ "bad_ip4_totlen_gt_frame", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_IP4),
	  .mangle = m_ip4_totlen_big },
	{ "bad_ip4_totlen_gt_frame_drop", { FROM_HOST(P_D1),
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, DROP(XL_R_BAD_IP4),
	  .mangle = m_ip4_totlen_big },
	{ "bad_ip4_totlen_lt_ihl", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000), .ip_opt_len = 8 }, P_D1, PASS(XL_R_BAD_IP4),
	  .mangle = m_ip4_totlen_lt_ihl },
	{ "bad_ip6_version", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_BAD_IP6),
	  .mangle = m_ip6_version4 },
	{ "bad_ip6_plen_gt_frame", { FROM_HOST(P_D1), IPV6(A6_H1, A6_H0),
	  TCP(40000, 5000) }, P_D1, PASS(XL_R_BAD_IP6),
	  .mangle = m_ip6_plen_big },
	{ "bad_ip6_plen_gt_frame_drop", { FROM_HOST(P_D1),
	  IPV6(A6_H1, A6_H0), TCP(40000, 5000) }, P_D1, DROP(XL_R_BAD_IP6),
	  .mangle = m_ip6_plen_big },
	{ "trunc_l4_icmp6_2_bytes", { FROM_HOST(P_D0), IPV6(A6_H0, A6_LEAF),
	  ICMP6(135), .ttl = 255 }, P_D0, PASS(XL_R_TRUNC_L4),
	  .mangle = m_icmp6_short },
	{ "trunc_l4_ip4_udp_6_bytes", { FROM_HOST(P_D1), IPV4(A_H1, A_H0),
	  UDP(40000, 5000) }, P_D1, PASS(XL_R_TRUNC_L4),
	  .mangle = m_ip4_udp_short },
	{ "trunc_l4_ip4_udp_6_bytes_drop", { FROM_HOST(P_D1),
	  IPV4(A_H1, A_H0), UDP(40000, 5000) }, P_D1, DROP(XL_R_TRUNC_L4),
	  .mangle = m_ip4_udp_short },
};
#pragma GCC diagnostic pop

#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static void run_fixture(void **state)
{
	const struct fixture *f = *state;
	static __u8 in[PKT_MAX], exp[PKT_MAX];
	struct pkt_spec spec = f->pkt;
	struct run_expect x = {
		.in = f->in,
		.verdict = f->verdict,
		.reason = f->reason,
		.egress = f->egress,
		.out_mode = f->out_mode,
		.out = exp,
	};
	struct pkt_off o;
	char err[1024];
	size_t len;
	int rc = 0, pass;

	if (f->tune)
		f->tune(&spec);
	len = pkt_build(&spec, in, &o);
	if (f->mangle)
		f->mangle(in, &len, &o);
	if (x.egress == EG_GROUP) {
		x.egress = expected_uplink(&spec);
		assert_true(x.egress >= P_U0);
	}
	if (E.tc && f->reason == XL_R_REDIRECT_FAILED) {
		/* tc has no redirect map to miss: bpf_redirect takes the
		 * port's ifindex, and the kernel sends it there */
		x.verdict = XDP_REDIRECT;
		x.reason = XL_R_FORWARDED;
		x.egress = P_D2;
		x.out_mode = OUT_AUTO;
	}
	if (x.verdict == XDP_REDIRECT) {
		x.out_len = build_forwarded(&spec, x.egress, exp);
		if (!x.out_len)
			fail_msg("fixture %s: no neighbour in the test topology",
				 f->name);
	}
	/* set_malformed writes a new generation: the first run decides from
	 * the maps, the second from this CPU's caches the first filled
	 * (bpf/fwd_cache.h), and both must give the same verdict, frame and
	 * counts */
	assert_int_equal(set_malformed(f->drop ? XL_MALFORMED_DROP :
						 XL_MALFORMED_PASS), 0);
	for (pass = 0; pass < 2 && !rc; pass++)
		rc = run_check(&x, in, len, err, sizeof(err), NULL);
	set_malformed(XL_MALFORMED_PASS);
	if (rc)
		fail_msg("%s (in %s, want %s/%s%s%s, %s): %s", f->name,
			 f->in == IN_UNCONFIGURED ? "lo" : port_ifname[f->in],
			 verdict_name(f->verdict),
			 f->reason >= 0 ? xl_reason_names[f->reason] : "-",
			 x.egress >= 0 ? " via " : "",
			 x.egress >= 0 ? port_ifname[x.egress] : "",
			 pass == 1 ? "from the maps" : "from the caches", err);
}

/* ---- truncation at every length --------------------------------------- */

struct trunc_case {
	const char *name;
	struct pkt_spec pkt;
	int in;
	int egress;  /* of the complete frame */
	int fixed;   /* fix the IP length fields to the cut length */
	int drop;    /* settings.malformed = drop */
};

/* The reason a frame cut to L bytes must get, from the layout alone. */
static int trunc_reason(const struct pkt_spec *s, const struct pkt_off *o,
			size_t L, int fixed)
{
	if (L < 14)
		return XL_R_TRUNC_ETH;
	if (s->nvlan && L < 18)
		return XL_R_TRUNC_VLAN;
	if (L < o->l4) /* inside the IP header or its options */
		return s->family == 4 ? XL_R_TRUNC_IP4 : XL_R_TRUNC_IP6;
	/* A cut frame still carries the original IP length: inconsistent. */
	if (!fixed && L < o->ip_end)
		return s->family == 4 ? XL_R_BAD_IP4 : XL_R_BAD_IP6;
	/* options go to the kernel whatever follows them */
	if (s->family == 4 && s->ip_opt_len)
		return XL_R_IP_OPTIONS;
	if (L < o->l4_end)
		return XL_R_TRUNC_L4;
	/* fixed: the IP length was cut to the frame, the UDP length not */
	if (fixed && s->proto == PKT_UDP && L < o->hdr_end)
		return XL_R_BAD_L4;
	if (L < o->hdr_end)
		return XL_R_TRUNC_BTH;
	return XL_R_FORWARDED;
}

static void run_trunc(void **state)
{
	const struct trunc_case *t = *state;
	static __u8 full[PKT_MAX], in[PKT_MAX], exp[PKT_MAX];
	struct pkt_off o;
	size_t full_len, L, last, fwd_len;
	char err[1024];
	int rc = 0, reason, egress = t->egress;

	full_len = pkt_build(&t->pkt, full, &o);
	if (egress == EG_GROUP)
		egress = expected_uplink(&t->pkt);
	fwd_len = build_forwarded(&t->pkt, egress, exp);
	assert_true(fwd_len == full_len);
	/* raw: every length up to the whole frame; fixed: up to the end of
	 * the header stack (beyond it the datagram is simply shorter). */
	last = t->fixed ? o.hdr_end - 1 : full_len;
	assert_int_equal(set_malformed(t->drop ? XL_MALFORMED_DROP :
						 XL_MALFORMED_PASS), 0);
	for (L = 0; L <= last; L++) {
		struct run_expect x = {
			.in = t->in,
			.egress = EG_NONE,
			.out = exp,
			.out_len = fwd_len,
		};
		memcpy(in, full, L);
		if (t->fixed && L >= o.l4) {
			if (t->pkt.family == 4) {
				pkt_put16(in + o.l3 + 2, (__u16)(L - o.l3));
				pkt_ip4_csum(in + o.l3);
			} else {
				pkt_put16(in + o.l3 + 4, (__u16)(L - o.l4));
			}
		}
		reason = trunc_reason(&t->pkt, &o, L, t->fixed);
		x.reason = reason;
		if (reason == XL_R_TRUNC_ETH) {
			/* The kernel (6.x) refuses XDP test frames shorter
			 * than ETH_HLEN, metadata or not, so the program's
			 * trunc_eth branch cannot be reached from here. */
			x.test_run_errno = EINVAL;
		} else if (reason == XL_R_FORWARDED) {
			x.verdict = XDP_REDIRECT;
			x.egress = egress;
		} else {
			x.verdict = t->drop && reason >= XL_FIRST_MALFORMED ?
					    XDP_DROP : XDP_PASS;
		}
		/* test_run builds no skb of the Ethernet header alone, nor of
		 * an IP packet whose IP header is cut short */
		if (E.tc && (L <= 14 || L < o.l4))
			continue;
		rc = run_check(&x, in, L, err, sizeof(err), NULL);
		if (rc)
			break;
	}
	set_malformed(XL_MALFORMED_PASS);
	if (rc)
		fail_msg("%s: cut to %zu of %zu bytes (l3 %zu, l4 %zu, "
			 "l4 end %zu, headers end %zu), want %s: %s",
			 t->name, L, full_len, o.l3, o.l4, o.l4_end, o.hdr_end,
			 xl_reason_names[reason], err);
}

#define TRUNC_ROWS(nm, inport, eg, ...)                                    \
	{ nm "_raw_pass", { __VA_ARGS__ }, inport, eg, 0, 0 },             \
	{ nm "_raw_drop", { __VA_ARGS__ }, inport, eg, 0, 1 },             \
	{ nm "_fixed_pass", { __VA_ARGS__ }, inport, eg, 1, 0 },           \
	{ nm "_fixed_drop", { __VA_ARGS__ }, inport, eg, 1, 1 }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const struct trunc_case truncs[] = {
	TRUNC_ROWS("trunc_ip4_udp_rocev2", P_D1, P_D0,
		   FROM_HOST(P_D1), IPV4(A_H1, A_H0), ROCE(0xc010, 0x000777),
		   .payload_len = 8),
	TRUNC_ROWS("trunc_ip6_tcp", P_D0, EG_GROUP,
		   FROM_HOST(P_D0), IPV6(A6_H0, A6_REM), TCP(51000, 443),
		   .payload_len = 8),
	TRUNC_ROWS("trunc_vlan_ip4opt_udp", P_D1, P_D0,
		   FROM_HOST(P_D1), VLAN(100), IPV4(A_H1, A_H0),
		   UDP(40000, 5000), .ip_opt_len = 8, .payload_len = 8),
	TRUNC_ROWS("trunc_vlan_ip6_udp_rocev2", P_D0, EG_GROUP,
		   FROM_HOST(P_D0), VLAN(200), IPV6(A6_H0, A6_REM),
		   ROCE(0xc011, 0x000888), .payload_len = 8),
};
#pragma GCC diagnostic pop

#define N_TRUNCS (sizeof(truncs) / sizeof(truncs[0]))

/* test_run refuses XDP frames shorter than ETH_HLEN (-EINVAL), also when
 * XDP metadata (ctx.data > 0) pads the input buffer to 14 bytes or more:
 * the check is on the frame. So the program's trunc_eth branch cannot be
 * reached from BPF_PROG_TEST_RUN; the trunc loops assert this refusal for
 * every length below 14. A 14-byte frame runs. */
static void test_run_rejects_runts(void **state)
{
	__u8 buf[64] = { 0 }, out[128];
	size_t L, meta;

	(void)state;
	for (meta = 0; meta <= 32; meta += 4) {
		for (L = 0; L <= 14; L++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts);
			struct xdp_md ctx = { 0 };
			int rc;

			if (meta + L < 14 && meta)
				continue; /* not even the buffer is 14 bytes */
			ctx.data = (__u32)meta;
			ctx.data_end = (__u32)(meta + L);
			ctx.ingress_ifindex = E.ifindex[P_D0];
			opts.data_in = buf;
			opts.data_size_in = (__u32)(meta + L);
			opts.data_out = out;
			opts.data_size_out = sizeof(out);
			opts.ctx_in = &ctx;
			opts.ctx_size_in = sizeof(ctx);
			opts.repeat = 1;
			rc = bpf_prog_test_run_opts(E.prog_fd, &opts);
			if (L < 14 && rc != -EINVAL)
				fail_msg("%zu-byte frame after %zu bytes of "
					 "metadata: test_run returned %d "
					 "(retval %u), want -EINVAL",
					 L, meta, rc, opts.retval);
			if (L == 14 && (rc != 0 || opts.retval != XDP_PASS))
				fail_msg("14-byte frame after %zu bytes of "
					 "metadata: test_run returned %d, "
					 "retval %u", meta, rc, opts.retval);
		}
	}
}

/* Every TTL from 2 to 255, with several headers each (IDs, TOS): the
 * incrementally updated checksum equals a full recomputation. (Headers
 * with options go to the kernel: ip4_options_*.) */
static void ip4_every_ttl(void **state)
{
	static __u8 in[PKT_MAX], exp[PKT_MAX];
	static const __u16 ids[] = { 0x0000, 0x1234, 0xfffe, 0xffff, 0x8000 };
	char err[1024];
	unsigned int ttl;
	size_t i;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
			struct pkt_spec s = { FROM_HOST(P_D1),
				IPV4(A_H1, A_H0), UDP(40000, 5000),
				.ttl = (__u8)ttl, .ip_id = ids[i],
				.tos = (__u8)(i * 0x35) };
#pragma GCC diagnostic pop
			struct run_expect x = {
				.in = P_D1,
				.verdict = XDP_REDIRECT,
				.reason = XL_R_FORWARDED,
				.egress = P_D0,
				.out = exp,
			};
			size_t len = pkt_build(&s, in, NULL);

			x.out_len = build_forwarded(&s, P_D0, exp);
			if (run_check(&x, in, len, err, sizeof(err), NULL))
				fail_msg("TTL %u, IP ID 0x%04x: %s", ttl,
					 ids[i], err);
		}
	}
}

/* A jumbo frame that the kernel hands over in several buffers (the test
 * run puts what passes a page in fragments, as drivers do at MTU 9000):
 * its lengths are the whole frame's, so it is forwarded, not bad_ip4,
 * and counted in full. */
static void jumbo_frame_in_several_buffers(void **state)
{
	static __u8 in[PKT_MAX], out[PKT_MAX];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	struct pkt_spec s = { FROM_HOST(P_D1), IPV4(A_H1, A_H0), UDP(40000, 5000),
			      .payload_len = 4000 - 42 };
#pragma GCC diagnostic pop
	struct xl_port_stats b_in, a_in, b_out, a_out;
	struct xdp_md ctx = { 0 };
	size_t len = pkt_build(&s, in, NULL);

	LIBBPF_OPTS(bpf_test_run_opts, opts);
	(void)state;
	assert_int_equal(len, 4000);
	/* the linear part: what the kernel's test run keeps in the first
	 * page (4096 - XDP_PACKET_HEADROOM - skb_shared_info), the rest in
	 * fragments; data_end names the linear part */
	ctx.data_end = 4096 - 256 - 320;
	ctx.ingress_ifindex = E.ifindex[P_D1];
	opts.data_in = in;
	opts.data_size_in = (__u32)len;
	opts.data_out = out;
	opts.data_size_out = sizeof(out);
	opts.ctx_in = &ctx;
	opts.ctx_size_in = sizeof(ctx);
	assert_int_equal(stats_read(P_D1, &b_in), 0);
	assert_int_equal(stats_read(P_D0, &b_out), 0);
	if (bpf_prog_test_run_opts(E.prog_fd, &opts)) {
		print_message("# test run of a %zu-byte frame in fragments: %s\n", len,
			      strerror(errno));
		fail();
	}
	assert_int_equal(stats_read(P_D1, &a_in), 0);
	assert_int_equal(stats_read(P_D0, &a_out), 0);
	print_message("# %zu-byte frame, first buffer %u bytes: verdict %u\n", len,
		      ctx.data_end, opts.retval);
	assert_int_equal(opts.retval, XDP_REDIRECT);
	assert_int_equal(a_in.reason.forwarded - b_in.reason.forwarded, 1);
	assert_int_equal(a_in.reason.bad_ip4 - b_in.reason.bad_ip4, 0);
	assert_int_equal(a_in.rx_bytes - b_in.rx_bytes, len);
	assert_int_equal(a_out.tx_bytes - b_out.tx_bytes, len);
}

/* ---- uplink choice ----------------------------------------------------- */

/* ---- the forwarding caches (bpf/fwd_cache.h) ---------------------------- */

/* One frame through the program: its verdict, and the port it left by
 * (from the rewritten source MAC; -1 if none) with the frame in out. */
static int send_one(int in, const struct pkt_spec *s, int *egress, __u8 *out, size_t *out_len)
{
	static __u8 buf[PKT_MAX];
	struct xdp_md ctx = { .ingress_ifindex = E.ifindex[in] };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_out = out,
		    .data_size_out = PKT_MAX, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = 1);

	o.data_size_in = (__u32)pkt_build(s, buf, NULL);
	ctx.data_end = o.data_size_in;
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(E.skel->progs.xdpleaf_leaf), &o),
			 0);
	*egress = -1;
	for (int p = 0; p < N_PORTS && o.retval == XDP_REDIRECT; p++)
		if (!memcmp(out + 6, port_mac[p], 6))
			*egress = p;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

/* It left by `egress`, rewritten as a router does (build_forwarded), to
 * dst_mac if given. */
static void assert_left_by(int verdict, int got, int egress, const struct pkt_spec *s,
			   const __u8 *out, size_t len, const __u8 *dst_mac)
{
	static __u8 want[PKT_MAX];
	size_t n = build_forwarded(s, egress, want);

	assert_int_equal(verdict, XDP_REDIRECT);
	assert_int_equal(got, egress);
	if (dst_mac)
		memcpy(want, dst_mac, 6);
	assert_int_equal(len, n);
	assert_memory_equal(out, want, n);
}

static struct pkt_spec to_h0(void)
{
	struct pkt_spec s = { FROM_HOST(P_D1), IPV4(A_H1, A_H0), ROCE(49001, 0x321) };

	return s;
}

/* A route changed: the next packet takes the new one. Written without a
 * new generation, the change is not seen (the packet keeps the cached
 * route: the cache is what forwards); with one, it is. */
static void cache_follows_route_change(void **state)
{
	struct pkt_spec s = to_h0();
	struct xl_lpm4_key k = { .prefixlen = 24, .addr = A_H0 };
	struct xl_route port = { XL_ROUTE_PORT, E.ifindex[P_D0] };
	struct xl_route grp = { XL_ROUTE_GROUP, 0 };
	static __u8 out[PKT_MAX];
	size_t len;
	int v, eg;

	(void)state;
	k.addr[3] = 0;
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(E.skel->maps.routes4), &k, &grp,
					     BPF_ANY), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
	assert_int_equal(xl_fwd_changed(fixture_fwd_gen_fd), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, expected_uplink(&s), &s, out, len, NULL);
	assert_int_equal(map_set(E.skel->maps.routes4, &k, sizeof(k), &port, sizeof(port)), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
}

/* A neighbour's MAC changed (the daemon's write): the next packet goes to
 * the new MAC; gone, the next packet goes to the kernel. */
static void cache_follows_neighbour_change(void **state)
{
	static const __u8 new_mac[6] = { 0x02, 0x99, 0, 0, 0, 0x42 };
	struct pkt_spec s = to_h0();
	struct xl_neigh_key k = { .ifindex = E.ifindex[P_D0], .family = AF_INET,
				  .addr = A_H0 };
	struct xl_neigh nv = { .mac = { 0 } }, old;
	static __u8 out[PKT_MAX];
	size_t len;
	int v, eg;

	(void)state;
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.neigh), &k, &old), 0);
	memcpy(nv.mac, new_mac, 6);
	assert_int_equal(map_set(E.skel->maps.neigh, &k, sizeof(k), &nv, sizeof(nv)), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, new_mac);
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(E.skel->maps.neigh), &k), 0);
	assert_int_equal(xl_fwd_changed(fixture_fwd_gen_fd), 0);
	assert_int_equal(send_one(P_D1, &s, &eg, out, &len), XDP_PASS);
	assert_int_equal(map_set(E.skel->maps.neigh, &k, sizeof(k), &old, sizeof(old)), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
}

/* A group member marked down (the daemon's group_down): the next packet
 * of a flow on it leaves by another member. */
static void cache_follows_member_down(void **state)
{
	struct pkt_spec s = { FROM_HOST(P_D0), IPV4(A_H0, A_REM), ROCE(49002, 0x322) };
	struct xl_group_down down = { 0 }, none = { 0 };
	static __u8 out[PKT_MAX];
	__u32 gid = 0;
	size_t len;
	int v, eg, first = expected_uplink(&s);

	(void)state;
	v = send_one(P_D0, &s, &eg, out, &len);
	assert_left_by(v, eg, first, &s, out, len, NULL);
	down.v4 = 1U << (first - P_U0);
	assert_int_equal(map_set(E.skel->maps.group_down, &gid, sizeof(gid), &down,
				 sizeof(down)), 0);
	v = send_one(P_D0, &s, &eg, out, &len);
	assert_true(eg >= P_U0 && eg != first);
	assert_left_by(v, eg, eg, &s, out, len, NULL);
	assert_int_equal(map_set(E.skel->maps.group_down, &gid, sizeof(gid), &none,
				 sizeof(none)), 0);
}

/* A reload (the loader's xl_leaf_fill_maps from a changed file) moves a
 * route: the next packet follows it. */
static void cache_follows_reload(void **state)
{
	struct pkt_spec s = to_h0();
	static char text[8192];
	static __u8 out[PKT_MAX];
	char path[] = "/tmp/xl-test-leaf-XXXXXX", err[XL_ERR_MAX], *at;
	struct xl_config cfg;
	FILE *f = fopen("tests/configs/good/bpf-leaf.conf", "r");
	size_t n, len;
	int fd, v, eg;

	(void)state;
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	at = strstr(text, "[route 10.0.0.0/24]\nport = xl-d0");
	assert_non_null(at);
	memcpy(at, "[route 10.0.0.0/24]\ngroup =spine", 32); /* the same length */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
	if (xl_config_load(path, true, &cfg, err, sizeof(err))) {
		unlink(path);
		fail_msg("%s", err);
	}
	unlink(path);
	assert_int_equal(xl_leaf_fill_maps(E.skel, &cfg), 0);
	xl_config_free(&cfg);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, expected_uplink(&s), &s, out, len, NULL);
	/* as the suite's setup left it */
	assert_int_equal(fill_maps(), 0);
	v = send_one(P_D1, &s, &eg, out, &len);
	assert_left_by(v, eg, P_D0, &s, out, len, NULL);
}

/* PSN tracking is a port's choice (`psn_tracking`, bpf-leaf.conf: on
 * xl-d1 only): a RoCEv2 packet arriving on xl-d0 leaves roce_psn as it
 * was, the same packet arriving on xl-d1 makes its QP's entry; both are
 * forwarded alike. */
static void psn_tracked_only_where_asked(void **state)
{
	static const struct { int in; __u8 src[16], dst[16]; int tracked; } c[] = {
		{ P_D0, A_H0, A_H1, 0 },
		{ P_D1, A_H1, A_H0, 1 },
	};
	int fd = bpf_map__fd(E.skel->maps.roce_psn);

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct pkt_spec s = { FROM_HOST(c[i].in), .family = 4, .ttl = 64,
				      ROCE(50000 + (int)i, 0x700 + (__u32)i) };
		struct xl_flow k = { .sport = (__u16)(50000 + i), .dport = PKT_ROCEV2_PORT,
				     .proto = PKT_UDP, .family = 4, .qp = 0x700 + (__u32)i };
		__u8 st[256]; /* struct xl_psn_state */
		__u8 buf[PKT_MAX];
		struct xdp_md ctx = { .ingress_ifindex = E.ifindex[c[i].in] };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		memcpy(s.saddr, c[i].src, 16);
		memcpy(s.daddr, c[i].dst, 16);
		memcpy(k.saddr, c[i].src, 4);
		memcpy(k.daddr, c[i].dst, 4);
		o.data_size_in = (__u32)pkt_build(&s, buf, NULL);
		ctx.data_end = o.data_size_in;
		assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(E.skel->progs.xdpleaf_leaf),
							&o), 0);
		assert_int_equal(o.retval, XDP_REDIRECT);
		assert_int_equal(bpf_map_lookup_elem(fd, &k, st) == 0, c[i].tracked);
	}
}

/* The program's uplink for a flow is members[hash_member()] as
 * computed here from the same header, for a mix of flows. */
static void lb_matches_user_space(void **state)
{
	static __u8 in[PKT_MAX], exp[PKT_MAX];
	static const __u8 rem4[][4] = {
		A_REM, A_REM2, IP4(10, 2, 0, 1), IP4(10, 2, 255, 254),
	};
	static const __u8 rem6[][16] = { A6_REM, A6_REM2 };
	struct pkt_spec specs[64];
	size_t n = 0, i;
	char err[1024];

	(void)state;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	for (i = 0; i < 4; i++) {
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0),
			IPV4(A_H0, IP4(0, 0, 0, 0)), TCP(50000 + i, 443) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D1),
			IPV4(A_H1, IP4(0, 0, 0, 0)), UDP(1000 + i, 53 + i) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D1),
			IPV4(A_H1, IP4(0, 0, 0, 0)), ROCE(0xc000 + i, 42) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0),
			IPV4(A_H0, IP4(0, 0, 0, 0)), UDP(7, 7),
			.frag_off = 0x0100 };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0), VLAN(5),
			IPV4(A_H0, IP4(0, 0, 0, 0)), .proto = 1,
			.payload_len = 16 };
		specs[n++] = (struct pkt_spec){ FROM_SPINE(1),
			IPV4(IP4(10, 2, 9, 9), IP4(0, 0, 0, 0)),
			TCP(80, 40000 + i) };
	}
	for (i = 0; i < n; i++)
		memcpy(specs[i].daddr, rem4[i % 4], 4);
	for (i = 0; i < 2; i++) {
		size_t j = n;

		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0),
			IPV6(A6_H0, A6_REM), TCP(50000 + i, 443) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D1),
			IPV6(A6_H1, A6_REM), UDP(1000 + i, 4000) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D1),
			IPV6(A6_H1, A6_REM), ROCE(0xc100 + i, 7) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0),
			IPV6(A6_H0, A6_REM), ICMP6(128) };
		specs[n++] = (struct pkt_spec){ FROM_HOST(P_D0),
			IPV6(A6_H0, A6_REM), .proto = PKT_FRAG6,
			.payload_len = 16 };
		for (; j < n; j++)
			memcpy(specs[j].daddr, rem6[i], 16);
	}
#pragma GCC diagnostic pop

	for (i = 0; i < n; i++) {
		int in_port;
		struct pkt_off o;
		struct run_expect x = {
			.verdict = XDP_REDIRECT,
			.reason = XL_R_FORWARDED,
			.out = exp,
		};
		size_t len;
		int seen;

		/* the ingress port is the one whose MAC the frame targets */
		for (in_port = 0; in_port < N_PORTS; in_port++)
			if (!memcmp(specs[i].dst, port_mac[in_port], 6))
				break;
		assert_true(in_port < N_PORTS);
		x.in = in_port;
		x.egress = expected_uplink(&specs[i]);
		assert_true(x.egress >= P_U0);
		len = pkt_build(&specs[i], in, &o);
		x.out_len = build_forwarded(&specs[i], x.egress, exp);
		if (run_check(&x, in, len, err, sizeof(err), &seen))
			fail_msg("flow %zu (IPv%d proto %u %u->%u): "
				 "user space chose %s, program %s: %s",
				 i, specs[i].family, specs[i].proto,
				 specs[i].sport, specs[i].dport,
				 port_ifname[x.egress],
				 seen >= 0 ? port_ifname[seen] : "none", err);
	}
}

/* 1000 flows differing only in source port: every uplink gets 15-35%. */
static void lb_spread(int family)
{
	static __u8 in[PKT_MAX], exp[PKT_MAX];
	const int nflows = 1000;
	unsigned int count[N_PORTS] = { 0 };
	char err[1024];
	int i, p;

	for (i = 0; i < nflows; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
		struct pkt_spec s4 = { FROM_HOST(P_D0), IPV4(A_H0, A_REM),
				       TCP((__u16)(20000 + i), 443) };
		struct pkt_spec s6 = { FROM_HOST(P_D0), IPV6(A6_H0, A6_REM),
				       UDP((__u16)(20000 + i), 4791 + 1) };
#pragma GCC diagnostic pop
		const struct pkt_spec *s = family == 4 ? &s4 : &s6;
		struct run_expect x = {
			.in = P_D0,
			.verdict = XDP_REDIRECT,
			.reason = XL_R_FORWARDED,
			.out = exp,
		};
		size_t len;
		int seen;

		x.egress = expected_uplink(s);
		len = pkt_build(s, in, NULL);
		x.out_len = build_forwarded(s, x.egress, exp);
		if (run_check(&x, in, len, err, sizeof(err), &seen))
			fail_msg("IPv%d sport %u: user space chose %s, "
				 "program %s: %s",
				 family, s->sport,
				 x.egress >= 0 ? port_ifname[x.egress] : "none",
				 seen >= 0 ? port_ifname[seen] : "none", err);
		assert_true(seen >= P_U0 && seen <= P_U3);
		count[seen]++;
	}
	for (p = P_U0; p <= P_U3; p++) {
		print_message("# IPv%d: %s got %u of %d flows\n", family,
			      port_ifname[p], count[p], nflows);
		if (count[p] < nflows * 15 / 100 || count[p] > nflows * 35 / 100)
			fail_msg("IPv%d: %s got %u of %d flows, want 15-35%%",
				 family, port_ifname[p], count[p], nflows);
	}
}

static void lb_spread_ip4_sport(void **state)
{
	(void)state;
	lb_spread(4);
}

static void lb_spread_ip6_sport(void **state)
{
	(void)state;
	lb_spread(6);
}

/* ---- fuzzing ------------------------------------------------------------ */

/* Random and mutated frames, seeded and repeatable: XL_FUZZ_PACKETS of them
 * (default 20000; `make fuzz`: 10^6), seed XL_FUZZ_SEED (default 1). Each
 * must get a verdict the leaf gives (pass, drop, redirect), be counted
 * exactly once on its ingress port (one verdict, one reason, one rx), and,
 * if redirected, have been a frame a router forwards and leave as one: the
 * checks below read the frames independently of bpf/parse.h. */
static int is_neigh_mac(const __u8 *m)
{
	for (size_t i = 0; i < sizeof(nbrs) / sizeof(nbrs[0]); i++)
		if (!memcmp(m, nbrs[i].mac, 6))
			return 1;
	return 0;
}

static int is_port_mac(const __u8 *m)
{
	for (int p = 0; p < N_PORTS; p++)
		if (!memcmp(m, port_mac[p], 6))
			return 1;
	return 0;
}

/* Why a redirected frame (in -> out, len bytes, from port `in_port`)
 * should not have been, or NULL. */
static int ip4_sum_ok(const __u8 *h)
{
	__u32 sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += pkt_get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static const char *bad_redirect(const __u8 *in, const __u8 *out, size_t len,
				__u32 out_len, int in_port)
{
	size_t l3 = 14;
	__u16 type = pkt_get16(in + 12);

	if (out_len != len)
		return "redirected frame changed length";
	if (memcmp(in, port_mac[in_port], 6))
		return "redirected a frame not sent to the port's MAC";
	if ((in[6] & 1) || !memcmp(in + 6, port_mac[in_port], 6))
		return "redirected a frame from a group or our own MAC";
	if (!is_neigh_mac(out) || !is_port_mac(out + 6))
		return "redirected frame's MACs are not a neighbour's and a port's";
	if (type == 0x8100 || type == 0x88a8) {
		l3 += 4;
		type = pkt_get16(in + 16);
	}
	if (type == 0x0800) {
		__u16 tot = pkt_get16(in + l3 + 2);

		if (len < l3 + 20 || in[l3] != 0x45)
			return "redirected IPv4 with options or a bad version/IHL";
		if (tot < 20 || l3 + tot > len)
			return "redirected IPv4 whose length does not fit the frame";
		if (in[l3 + 8] <= 1 || out[l3 + 8] != in[l3 + 8] - 1)
			return "TTL not decremented by one (or expired and forwarded)";
		/* the checksum is not verified, but a right one stays right and
		 * a wrong one wrong (the receiver discards it: architecture.md) */
		if (ip4_sum_ok(in + l3) != ip4_sum_ok(out + l3))
			return "redirected IPv4 header checksum went from right to wrong or back";
		if (in[l3 + 12] == 127 || in[l3 + 12] == 0 || in[l3 + 12] >= 224)
			return "redirected a martian source";
	} else if (type == 0x86dd) {
		if (len < l3 + 40 || (in[l3] >> 4) != 6 ||
		    l3 + 40 + pkt_get16(in + l3 + 4) > len)
			return "redirected IPv6 whose version or length is wrong";
		if (in[l3 + 7] <= 1 || out[l3 + 7] != in[l3 + 7] - 1)
			return "hop limit not decremented by one";
	} else {
		return "redirected a frame that is not IP";
	}
	return NULL;
}

static __u64 env_u64(const char *name, __u64 dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void fuzz_random_and_mutated(void **state)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
	static const struct pkt_spec seeds[] = {
		{ FROM_HOST(P_D1), IPV4(A_H1, A_H0), UDP(40000, 5000) },
		{ FROM_HOST(P_D0), IPV4(A_H0, A_REM), TCP(40001, 80) },
		{ FROM_HOST(P_D0), IPV6(A6_H0, A6_REM), UDP(40002, 4791), .bth = 1,
		  .bth_opcode = 0x04, .dest_qp = 0x101 },
		{ FROM_HOST(P_D1), VLAN(100), IPV4(A_H1, A_H0), UDP(40003, 4791),
		  .bth = 1, .bth_opcode = 0x0a, .dest_qp = 0x202 },
		{ FROM_SPINE(0), IPV4(A_REM, A_H1), UDP(40004, 5000) },
		{ FROM_SPINE(1), IPV6(A6_REM, A6_H1), TCP(40005, 443) },
	};
#pragma GCC diagnostic pop
	static __u8 in[PKT_MAX], out[PKT_MAX];
	const int in_ports[] = { P_D0, P_D1, P_U0, P_U1 };
	__u64 n = env_u64("XL_FUZZ_PACKETS", 20000), seed = env_u64("XL_FUZZ_SEED", 1);
	__u64 rng = seed * 0x9e3779b97f4a7c15ULL | 1, verdicts[XL_VERDICT_MAX] = { 0 };
	__u64 redirected = 0;

	(void)state;
	assert_int_equal(set_malformed(XL_MALFORMED_DROP), 0);
	for (__u64 k = 0; k < n; k++) {
		int port = in_ports[xl_rand32(&rng) % 4];
		struct xl_port_stats b, a;
		struct xdp_md ctx = { 0 };
		size_t len;
		__u64 sum_r = 0, sum_v = 0;
		const char *why;
		int rc;

		LIBBPF_OPTS(bpf_test_run_opts, opts);
		if (xl_rand32(&rng) % 10 == 0) { /* garbage after a plausible header */
			len = 14 + xl_rand32(&rng) % 200;
			for (size_t i = 0; i < len; i++)
				in[i] = (__u8)xl_rand32(&rng);
			memcpy(in, port_mac[port], 6);
		} else {
			len = pkt_build(&seeds[xl_rand32(&rng) % (sizeof(seeds) / sizeof(seeds[0]))],
					in, NULL);
			for (int m = 1 + xl_rand32(&rng) % 4; m > 0; m--) {
				__u32 r = xl_rand32(&rng), what = r % 8;

				if (what < 6) /* a byte of the headers, mostly */
					in[(r >> 8) % (len < 90 ? len : 90)] = (__u8)(r >> 20);
				else if (what == 6) /* cut */
					len = 14 + (r >> 8) % (len - 13);
				else if (len < 400) { /* grow */
					size_t more = (r >> 8) % 64;

					for (size_t i = 0; i < more; i++)
						in[len + i] = (__u8)xl_rand32(&rng);
					len += more;
				}
			}
		}
		ctx.data_end = (__u32)len;
		ctx.ingress_ifindex = E.ifindex[port];
		opts.data_in = in;
		opts.data_size_in = (__u32)len;
		opts.data_out = out;
		opts.data_size_out = sizeof(out);
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
		assert_int_equal(stats_read((__u32)port, &b), 0);
		rc = bpf_prog_test_run_opts(E.prog_fd, &opts);
		assert_int_equal(stats_read((__u32)port, &a), 0);
		if (rc)
			fail_msg("seed %llu, packet %llu (%zu bytes): test_run %d",
				 (unsigned long long)seed, (unsigned long long)k, len, rc);
		if (opts.retval != XDP_PASS && opts.retval != XDP_DROP &&
		    opts.retval != XDP_REDIRECT)
			fail_msg("seed %llu, packet %llu: verdict %u", (unsigned long long)seed,
				 (unsigned long long)k, opts.retval);
		for (int r = 0; r < XL_REASON_MAX; r++)
			sum_r += *xl_reason_counter(&a.reason, r) - *xl_reason_counter(&b.reason, r);
		for (int v = 0; v < XL_VERDICT_MAX; v++)
			sum_v += *xl_verdict_counter(&a.verdict, v) - *xl_verdict_counter(&b.verdict, v);
		if (sum_r != 1 || sum_v != 1 || a.rx_packets - b.rx_packets != 1 ||
		    a.rx_bytes - b.rx_bytes != len ||
		    *xl_verdict_counter(&a.verdict, opts.retval) -
			    *xl_verdict_counter(&b.verdict, opts.retval) != 1)
			fail_msg("seed %llu, packet %llu: counted %llu reasons, %llu verdicts, "
				 "%llu rx (want 1 each)", (unsigned long long)seed,
				 (unsigned long long)k, (unsigned long long)sum_r,
				 (unsigned long long)sum_v,
				 (unsigned long long)(a.rx_packets - b.rx_packets));
		if (opts.retval == XDP_REDIRECT) {
			why = bad_redirect(in, out, len, opts.data_size_out, port);
			if (why)
				fail_msg("seed %llu, packet %llu (%zu bytes in on %s): %s",
					 (unsigned long long)seed, (unsigned long long)k, len,
					 port_ifname[port], why);
			redirected++;
		}
		verdicts[opts.retval]++;
	}
	set_malformed(XL_MALFORMED_PASS);
	print_message("# fuzz seed %llu: %llu frames: %llu redirected (each checked), "
		      "%llu passed, %llu dropped; counters exact\n", (unsigned long long)seed,
		      (unsigned long long)n, (unsigned long long)redirected,
		      (unsigned long long)verdicts[XDP_PASS],
		      (unsigned long long)verdicts[XDP_DROP]);
	/* the mutations leave enough intact to reach every verdict */
	assert_true(redirected > 0 && verdicts[XDP_PASS] > 0 && verdicts[XDP_DROP] > 0);
}

/* ---- main --------------------------------------------------------------- */

int main(void)
{
	static struct CMUnitTest tests[N_FIXTURES + N_TRUNCS + 14];
	size_t n = 0, i;
	int rc;

	for (i = 0; i < N_FIXTURES; i++)
		tests[n++] = (struct CMUnitTest){
			.name = fixtures[i].name,
			.test_func = run_fixture,
			.initial_state = (void *)&fixtures[i],
		};
	for (i = 0; i < N_TRUNCS; i++)
		tests[n++] = (struct CMUnitTest){
			.name = truncs[i].name,
			.test_func = run_trunc,
			.initial_state = (void *)&truncs[i],
		};
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(ip4_every_ttl);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(jumbo_frame_in_several_buffers);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_run_rejects_runts);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(lb_matches_user_space);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(psn_tracked_only_where_asked);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(cache_follows_route_change);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(cache_follows_neighbour_change);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(cache_follows_member_down);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(cache_follows_reload);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(lb_spread_ip4_sport);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(lb_spread_ip6_sport);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(fuzz_random_and_mutated);
	/* make fuzz: only the fuzzing, with its own packet count */
	if (getenv("XL_FUZZ_ONLY"))
		cmocka_set_test_filter("fuzz_*");
	rc = _cmocka_run_group_tests("xdpleaf_leaf", tests, n, group_setup, group_teardown);
	if (getenv("XL_FUZZ_ONLY"))
		return rc;
	/* hook = tc: every fixture and truncation again through the tc
	 * program (bpf/leaf_hook.h), with the same verdicts, output and
	 * counters */
	E.tc = true;
	return rc | _cmocka_run_group_tests("xdpleaf_leaf_tc", tests, N_FIXTURES + N_TRUNCS,
					    group_setup, group_teardown);
}
