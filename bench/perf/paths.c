// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `make bench`, per path: what a packet costs on every path of the leaf
 * and host programs through BPF_PROG_TEST_RUN, as a ratio to the minimal
 * forwarder of bench/baselines/ that does the matching work, measured in
 * the same run on the same packet; then what each optional feature adds
 * to the flowlet path, switched off at run time through the
 * configuration. The leaf is loaded from bench/perf/leaf.conf with the
 * loader's own map filling (xl_leaf_fill_maps): shipped defaults, and the
 * ports' rates as the fabric's facts.
 *
 * The machine is shared and noisy: every case is measured in ROUNDS
 * rounds, each right after its baseline, each the median of many batches;
 * a figure is the median of its rounds. Writes JSON lines on stdout, one
 * per case (bench/perf/report.py makes the table).
 *
 * test_run's `repeat` runs a program again on the buffer it rewrote, so a
 * forwarded packet must survive that: TTL starts at 255 (more than a
 * batch), and every next hop's MAC is the ingress port's own, so the
 * rewritten frame still comes to "our" MAC. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpleaf.h"
#include "icrc.h"
#include "host.h"
#include "leaf.skel.h"
#include "host.skel.h"
#include "bench/baselines/stateless.skel.h"
#include "bench/baselines/stateful.skel.h"
#include "fixture.h"
#include "perf.h"

#define BATCH 200  /* < 255: TTL must not run out inside a batch */
#define BATCHES 300
#define ROUNDS 5
#define NEW_FLOWS 2000 /* batches of one packet of a flow never seen */

enum base { BASE_STATELESS, BASE_STATEFUL, BASE_NONE };
/* the leaf at XDP, the leaf at tc ingress (hook = tc, veths' default), host mode */
enum prog { PROG_LEAF, PROG_LEAF_TC, PROG_HOST_IN };

static const char *const base_names[] = { "stateless", "stateful", "" };

struct pathcase {
	const char *key, *name;
	enum base base;
	enum prog prog;
	size_t len;
	__u8 pkt[PKT_MAX];
	int repeat, batches;
	struct perf_vary vary;
	/* the baseline's packet: this one, or where the baselines cannot
	 * forward it (IPv6, VLAN, TCP), the RoCEv2/IPv4 one of the route */
	size_t base_len;
	__u8 base_pkt[PKT_MAX];
};

static struct perf P;
static char **only; /* keys named on the command line: only those run */

static int wanted(const char *key)
{
	if (!only || !*only)
		return 1;
	for (char **k = only; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}
static char conf_text[16384];
static const __u8 mac_in[6] = PERF_MAC_IN;

/* A frame to the leaf's ingress port (MAC PERF_MAC_IN). */
static size_t bth_at; /* where the last frame built has its BTH */

static size_t build_from(__u8 *buf, int family, const char *src, const char *dst, __u8 proto,
			 int roce, int vid, __u8 tos, int payload)
{
	struct pkt_spec s = {
		.family = family, .ttl = 255, .tos = tos, .proto = proto,
		.sport = 49152, .dport = roce ? PKT_ROCEV2_PORT : 5201, .bth = roce,
		.bth_opcode = 0x04 /* SEND_ONLY */, .dest_qp = 0x100, .psn = 1,
		.payload_len = payload, .payload_seed = 1,
	};
	struct pkt_off o;
	size_t n;

	memcpy(s.dst, mac_in, 6);
	memcpy(s.src, "\x02\x00\x00\x00\xaa\x01", 6);
	if (vid) {
		s.nvlan = 1;
		s.tci[0] = (__u16)vid;
	}
	if (inet_pton(family == 4 ? AF_INET : AF_INET6, src, s.saddr) != 1 ||
	    inet_pton(family == 4 ? AF_INET : AF_INET6, dst, s.daddr) != 1)
		return 0;
	n = pkt_build(&s, buf, &o);
	bth_at = o.l4_end;
	if (roce)
		xl_icrc_put(buf + o.ip_end - 4,
			    xl_icrc(buf + o.l3, (__u32)(o.ip_end - o.l3 - 4),
				    (__u32)(o.l4 - o.l3), family == 6));
	return n;
}

/* What a case changes in the configuration: lines in [xdpleaf], in the
 * ingress port's section, in every group's, and sections after the rest. */
struct variant {
	const char *global, *in_port, *group, *tail;
};

static size_t build(__u8 *buf, int family, const char *dst, __u8 proto, int roce, int vid,
		    __u8 tos)
{
	return build_from(buf, family, family == 4 ? "10.1.1.2" : "2001:db8:a::2", dst, proto,
			  roce, vid, tos, 100);
}

static const char *const leaf_conf =
	"# bench/perf: shipped defaults; only the ports' rates are set\n"
	"[xdpleaf]\n%s"
	"[port xb-in]\nvlans = 100\n%s"
	"[port xb-d]\n"
	"[port xb-dq]\nrate = 100G\n"
	/* a port that marks: 10G, fed faster than it drains by the batches */
	"[port xb-dc]\nrate = 10G\noverflow = mark\n"
	"[class ce]\ndscp = 26\nkmin = 0\nkmax = 1\npmax = 100%%\n";

/* Two uplinks per group, in every lb_mode, with and without a rate. */
static const char *const modes[] = { "hash", "flowlet", "flowlet-random", "spray" };

static int write_conf(const struct variant *v)
{
	static const struct variant none = { "", "", "", "" };
	int n;

	if (!v)
		v = &none;
	n = snprintf(conf_text, sizeof(conf_text), leaf_conf, v->global, v->in_port);

	for (int m = 0; m < 4; m++)
		for (int q = 0; q < 2; q++) {
			int g = m * 2 + q;

			for (int u = 0; u < 2; u++)
				n += snprintf(conf_text + n, sizeof(conf_text) - (size_t)n,
					      "[port xb-g%du%d]\nrole = uplink\ngroup = g%d\n"
					      "nexthop4 = 10.8.%d.1\nnexthop6 = fd08:%d::1\n%s",
					      g, u, g, g * 2 + u, g * 2 + u, q ? "rate = 100G\n" : "");
			n += snprintf(conf_text + n, sizeof(conf_text) - (size_t)n,
				      "[group g%d]\nlb_mode = %s\n%s[route 10.10.%d.0/24]\ngroup = g%d\n",
				      g, modes[m], m == 1 || m == 2 ? v->group : "", g, g);
		}
	n += snprintf(conf_text + n, sizeof(conf_text) - (size_t)n,
		      "[route 10.9.1.0/24]\nport = xb-d\n[route 10.9.2.0/24]\nport = xb-dq\n"
		      "[route 10.9.3.0/24]\nport = xb-dc\n[route 2001:db8:1::/64]\nport = xb-d\n%s",
		      v->tail);
	return n < (int)sizeof(conf_text) ? 0 : -1;
}

/* Neighbours the loader would take from the kernel. */
static int neighbours(void)
{
	__u8 a[16];
	char s[64];
	int r = 0;

	for (int d = 1; d <= 3; d++) {
		static const char *const port[] = { "", "xb-d", "xb-dq", "xb-dc" };

		snprintf(s, sizeof(s), "10.9.%d.2", d);
		inet_pton(AF_INET, s, a);
		r |= perf_neigh(&P, port[d], 4, a);
	}
	inet_pton(AF_INET6, "2001:db8:1::2", a);
	r |= perf_neigh(&P, "xb-d", 6, a);
	for (int g = 0; g < 8; g++)
		for (int u = 0; u < 2; u++) {
			char ifn[16];

			snprintf(ifn, sizeof(ifn), "xb-g%du%d", g, u);
			snprintf(s, sizeof(s), "10.8.%d.1", g * 2 + u);
			inet_pton(AF_INET, s, a);
			r |= perf_neigh(&P, ifn, 4, a);
		}
	return r;
}

static int leaf_with(const struct variant *v)
{
	return write_conf(v) || perf_leaf_config(&P, conf_text) || neighbours();
}

/* One figure: the median over rounds of each round's median. */
struct figure {
	double ns, base_ns;
	int verdict, base_verdict;
};

static int prog_fd(enum prog p)
{
	return p == PROG_LEAF	 ? bpf_program__fd(P.leaf->progs.xdpleaf_leaf) :
	       p == PROG_LEAF_TC ? bpf_program__fd(P.leaf->progs.xdpleaf_leaf_tc) :
				   bpf_program__fd(P.host->progs.xdpleaf_host_ingress);
}

static int base_fd(enum base b)
{
	return b == BASE_STATELESS ? bpf_program__fd(P.stateless->progs.base_stateless) :
	       b == BASE_STATEFUL  ? bpf_program__fd(P.stateful->progs.base_stateful) :
				     -1;
}

static struct figure measure_case(struct pathcase *c, __u32 in)
{
	double ns[ROUNDS], bns[ROUNDS];
	struct figure f = { -1, -1, 0, 0 };
	int is_xdp = c->prog == PROG_LEAF;

	for (int r = 0; r < ROUNDS; r++) {
		/* a new flow each round, where the case wants new flows */
		struct perf_vary v = c->vary;

		v.start = v.mod ? (__u32)(r * c->batches) : 0;
		bns[r] = c->base == BASE_NONE ? -1 :
			 perf_measure(base_fd(c->base), c->base_len ? c->base_pkt : c->pkt,
				      c->base_len ? c->base_len : c->len, in, 1, c->repeat,
				      c->batches, &v, &f.base_verdict);
		ns[r] = perf_measure(prog_fd(c->prog), c->pkt, c->len, in, is_xdp,
				     c->repeat, c->batches, &v, &f.verdict);
	}
	f.ns = perf_median(ns, ROUNDS);
	f.base_ns = perf_median(bns, ROUNDS);
	return f;
}

static void print_case(const char *section, const struct pathcase *c,
		       const struct figure *f)
{
	printf("{\"section\":\"%s\",\"key\":\"%s\",\"name\":\"%s\",\"ns\":%.1f,"
	       "\"baseline\":\"%s\",\"baseline_ns\":%.1f,\"ratio\":%.3f,\"verdict\":%d,"
	       "\"repeat\":%d,\"batches\":%d,\"rounds\":%d}\n",
	       section, c->key, c->name, f->ns, base_names[c->base], f->base_ns,
	       f->base_ns > 0 ? f->ns / f->base_ns : 0.0, f->verdict, c->repeat,
	       c->batches, ROUNDS);
	fflush(stdout);
}

static struct pathcase *udp_case(struct pathcase *c, const char *key, const char *name,
				 enum base b, int family, const char *dst, int roce, __u8 proto,
				 int vid, __u8 tos)
{
	memset(c, 0, sizeof(*c));
	c->key = key;
	c->name = name;
	c->base = b;
	c->prog = PROG_LEAF;
	c->len = build(c->pkt, family, dst, proto, roce, vid, tos);
	c->repeat = BATCH;
	c->batches = BATCHES;
	if (family != 4 || vid || proto != PKT_UDP)
		c->base_len = build(c->base_pkt, 4, family == 4 ? dst : "10.9.1.2", PKT_UDP,
				    1, 0, tos);
	return c;
}

/* The leaf's paths (see the file's top). */
static int leaf_paths(void)
{
	static struct pathcase c;
	static const char *const gkey[] = { "group_hash", "group_flowlet", "group_random",
					    "group_spray" };
	static const char *const gname[] = { "via a hash group", "via a flowlet group",
					     "via a flowlet-random group", "via a spray group" };
	__u32 in = perf_ifindex(&P, "xb-in");
	struct figure f;
	char key[64], name[96];

	if (leaf_with(NULL) || perf_baselines(&P, "xb-d", 65536))
		return -1;
#define RUN(section) \
	(wanted(c.key) ? (f = measure_case(&c, in), print_case(section, &c, &f)) : (void)0)
	udp_case(&c, "onlink4", "RoCEv2/IPv4 forwarded on-link", BASE_STATELESS, 4,
		 "10.9.1.2", 1, PKT_UDP, 0, 0x02);
	RUN("leaf");
	udp_case(&c, "onlink6", "RoCEv2/IPv6 forwarded on-link", BASE_STATELESS, 6,
		 "2001:db8:1::2", 1, PKT_UDP, 0, 0x02);
	RUN("leaf");
	udp_case(&c, "vlan", "RoCEv2/IPv4 802.1Q (VID 100) on-link", BASE_STATELESS, 4,
		 "10.9.1.2", 1, PKT_UDP, 100, 0x02);
	RUN("leaf");
	udp_case(&c, "onlink4_queue", "RoCEv2/IPv4 on-link + phantom queue", BASE_STATELESS, 4,
		 "10.9.2.2", 1, PKT_UDP, 0, 0x02);
	RUN("leaf");
	udp_case(&c, "ce_mark", "RoCEv2/IPv4 on-link, queue marks CE", BASE_STATELESS, 4,
		 "10.9.3.2", 1, PKT_UDP, 0, 26 << 2 | 0x02);
	RUN("leaf");
	for (int m = 0; m < 4; m++)
		for (int q = 0; q < 2; q++) {
			char dst[32];

			snprintf(dst, sizeof(dst), "10.10.%d.2", m * 2 + q);
			snprintf(key, sizeof(key), "%s%s", gkey[m], q ? "_queue" : "");
			snprintf(name, sizeof(name), "RoCEv2/IPv4 %s%s", gname[m],
				 q ? " + queue" : "");
			udp_case(&c, key, name, BASE_STATEFUL, 4, dst, 1, PKT_UDP, 0, 0x02);
			RUN("leaf");
		}
	udp_case(&c, "tc_flowlet_queue", "RoCEv2/IPv4 flowlet + queue, at tc (an skb)",
		 BASE_STATEFUL, 4, "10.10.3.2", 1, PKT_UDP, 0, 0x02);
	c.prog = PROG_LEAF_TC;
	RUN("leaf");
	udp_case(&c, "tcp_flowlet_queue", "TCP/IPv4 via a flowlet group + queue", BASE_STATEFUL,
		 4, "10.10.3.2", 0, PKT_TCP, 0, 0x02);
	RUN("leaf");
	udp_case(&c, "new_flow", "RoCEv2/IPv4 flowlet + queue, a new flow's first packet",
		 BASE_STATEFUL, 4, "10.10.3.2", 1, PKT_UDP, 0, 0x02);
	c.repeat = 1;
	c.batches = NEW_FLOWS;
	c.vary = (struct perf_vary){ .off = bth_at + 5, .mod = 1U << 24 };
	RUN("leaf");
	udp_case(&c, "hit_one", "RoCEv2/IPv4 flowlet + queue, one packet of a known flow",
		 BASE_STATEFUL, 4, "10.10.3.2", 1, PKT_UDP, 0, 0x02);
	c.repeat = 1;
	c.batches = NEW_FLOWS;
	RUN("leaf");
	{
		struct pkt_spec s = { .ethertype = PKT_ETH_ARP, .payload_len = 28 };

		memset(&c, 0, sizeof(c));
		memset(s.dst, 0xff, 6);
		memcpy(s.src, "\x02\x00\x00\x00\xaa\x01", 6);
		c.key = "arp";
		c.name = "ARP to the kernel";
		c.base = BASE_STATELESS;
		c.len = pkt_build(&s, c.pkt, NULL);
		c.repeat = BATCH;
		c.batches = BATCHES;
		RUN("leaf");
	}
	udp_case(&c, "nd", "IPv6 neighbour solicitation to the kernel", BASE_STATELESS, 6,
		 "2001:db8:1::2", 0, PKT_ICMP6, 0, 0);
	{
		struct pkt_spec s = { .family = 6, .ttl = 255, .proto = PKT_ICMP6,
				      .icmp6_type = 135, .payload_len = 24 };

		memcpy(s.dst, mac_in, 6);
		memcpy(s.src, "\x02\x00\x00\x00\xaa\x01", 6);
		inet_pton(AF_INET6, "2001:db8:a::2", s.saddr);
		inet_pton(AF_INET6, "2001:db8:1::1", s.daddr);
		c.len = pkt_build(&s, c.pkt, NULL);
		c.base_len = 0; /* both pass it to the kernel */
	}
	RUN("leaf");
	return 0;
}

/* What each optional feature adds to the flowlet path with a queue (the
 * path of every uplink with a `rate`), switched on and off through the
 * configuration in alternate rounds; "off" is the shipped default where
 * the feature is off by default. The events ring once more where events
 * happen: on a port whose queue marks every packet (one mark event in
 * mark_event_sample, at most event_rate a second; the ring has no reader
 * here, as in a leaf nobody watches). */
static int features(void)
{
	static const struct {
		const char *key, *name;
		struct variant on, off;
		const char *dst; /* NULL: the flowlet group with a queue */
		__u8 tos;
		int new_flows; /* a new flow's first packet, one per call */
	} F[] = {
		{ "psn_tracking", "PSN tracking (port psn_tracking = yes)",
		  { "", "psn_tracking = yes\n", "", "" }, { "", "", "", "" }, NULL, 0x02, 0 },
		{ "events", "events ring (event_rate 1000, not 0)",
		  { "", "", "", "" }, { "event_rate = 0\n", "", "", "" }, NULL, 0x02, 0 },
		{ "events_marking", "events ring, every packet CE-marked (on-link, 10G)",
		  { "", "", "", "" }, { "event_rate = 0\n", "", "", "" }, "10.9.3.2",
		  26 << 2 | 0x02, 0 },
		{ "pfc", "PFC counting and watchdog (pfc_watchdog 200ms, not 0)",
		  { "", "", "", "" }, { "pfc_watchdog = 0ns\n", "", "", "" }, NULL, 0x02, 0 },
		{ "ecn", "WRED/ECN marking of ECT packets (class mark = yes, not no)",
		  { "", "", "", "" }, { "", "", "", "[class default]\nmark = no\n" }, NULL,
		  0x02, 0 },
		/* a DSCP 18 packet in a latency class, or in none (the default) */
		{ "latency", "latency class (DSCP 18 with latency = yes, not none)",
		  { "", "", "", "[class inference]\ndscp = 18\nlatency = yes\n" },
		  { "", "", "", "" }, NULL, 18 << 2 | 0x02, 0 },
		{ "latency_new_flow",
		  "latency class, a new flow's first packet (latency = yes, not none; 1 per call)",
		  { "", "", "", "[class inference]\ndscp = 18\nlatency = yes\n" },
		  { "", "", "", "" }, NULL, 18 << 2 | 0x02, 1 },
		/* a bulk (default-class) packet through the guard of every
		 * port with a rate, which a latency class turns on */
		{ "bulk_guard", "bulk guard (a latency class, bulk_gamma 0.95; not: none)",
		  { "", "", "", "[class inference]\ndscp = 18\nlatency = yes\n" },
		  { "", "", "", "[class inference]\ndscp = 18\n" }, NULL, 0x02, 0 },
		/* the same on-link (100G), where the queue reads its own clock */
		{ "bulk_guard_onlink", "bulk guard, on-link + queue (100G downlink)",
		  { "", "", "", "[class inference]\ndscp = 18\nlatency = yes\n" },
		  { "", "", "", "[class inference]\ndscp = 18\n" }, "10.9.2.2", 0x02, 0 },
	};
	static struct pathcase c;
	__u32 in = perf_ifindex(&P, "xb-in");

	for (size_t i = 0; i < sizeof(F) / sizeof(F[0]); i++) {
		double on[ROUNDS], off[ROUNDS];
		int v = 0;

		if (!wanted(F[i].key))
			continue;
		udp_case(&c, F[i].key, F[i].name, BASE_NONE, 4, F[i].dst ? F[i].dst : "10.10.3.2", 1,
			 PKT_UDP, 0, F[i].tos);
		if (F[i].new_flows) {
			c.repeat = 1;
			c.batches = NEW_FLOWS;
			c.vary = (struct perf_vary){ .off = bth_at + 5, .mod = 1U << 24 };
		}
		for (int r = 0; r < ROUNDS; r++) {
			/* flows never seen, on and off alike */
			struct perf_vary von = c.vary, voff = c.vary;

			von.start = (__u32)(2 * r * c.batches);
			voff.start = (__u32)((2 * r + 1) * c.batches);
			if (leaf_with(&F[i].on))
				return -1;
			on[r] = perf_measure(prog_fd(PROG_LEAF), c.pkt, c.len, in, 1, c.repeat,
					     c.batches, c.vary.mod ? &von : NULL, &v);
			if (leaf_with(&F[i].off))
				return -1;
			off[r] = perf_measure(prog_fd(PROG_LEAF), c.pkt, c.len, in, 1, c.repeat,
					      c.batches, c.vary.mod ? &voff : NULL, &v);
		}
		printf("{\"section\":\"feature\",\"key\":\"%s\",\"name\":\"%s\","
		       "\"on_ns\":%.1f,\"off_ns\":%.1f,\"cost_ns\":%.1f,\"verdict\":%d,"
		       "\"rounds\":%d}\n", F[i].key, F[i].name, perf_median(on, ROUNDS),
		       perf_median(off, ROUNDS), perf_median(on, ROUNDS) - perf_median(off, ROUNDS),
		       v, ROUNDS);
		fflush(stdout);
	}
	return leaf_with(NULL);
}

/* Host mode's ingress (tc): the NP's answer to CE-marked data (a CNP at
 * most once per cnp_interval per QP: most packets of a batch find it
 * suppressed, as in a congested flow), the RP's handling of a CNP for a
 * flow this host sends, plain RoCEv2 data, and a packet that is not
 * RoCEv2. Ratios to the stateless baseline on the RoCEv2/IPv4 frame (an
 * XDP program: the tc hook's own cost is in these figures). */
static int host_paths(void)
{
	static struct pathcase c;
	static __u8 data[PKT_MAX];
	__u32 in = perf_ifindex(&P, "xb-in");
	struct xl_host_addr_key k = { .ifindex = in, .family = 4 };
	__u8 one = 1;
	struct figure f;
	size_t n;
	int v;

	/* up: the NP sends its CNPs out of it */
	if (perf_up("xb-in") ||
	    perf_host_config(&P, "[xdpleaf]\nmode = host\n[port xb-in]\nrate = 100G\n"))
		return -1;
	inet_pton(AF_INET, "10.9.9.1", k.addr);
	if (bpf_map_update_elem(bpf_map__fd(P.host->maps.host_addrs), &k, &one, BPF_ANY))
		return -1;
	/* the RP knows the flow a CNP is for from our own data, at egress */
	n = build_from(data, 4, "10.9.9.1", "10.9.9.2", PKT_UDP, 1, 0, 0x02, 100);
	if (perf_measure(bpf_program__fd(P.host->progs.xdpleaf_host_egress), data, n, in, 0, 1,
			 1, NULL, &v) < 0)
		return -1;
#define HOST_CASE(k_, name_, tos_, roce_, payload_)                                       \
	do {                                                                              \
		udp_case(&c, k_, name_, BASE_STATELESS, 4, "10.9.9.1", roce_, PKT_UDP, 0, tos_); \
		c.len = build_from(c.pkt, 4, "10.9.9.2", "10.9.9.1", PKT_UDP, roce_, 0, tos_,   \
				   payload_);                                             \
		c.base_len = build(c.base_pkt, 4, "10.9.1.2", PKT_UDP, 1, 0, 0x02);     \
		c.prog = PROG_HOST_IN;                                                    \
	} while (0)
	HOST_CASE("host_pass", "host: UDP that is not RoCEv2, passed", 0x02, 0, 100);
	RUN("host");
	HOST_CASE("host_data", "host: RoCEv2 data, not marked", 0x02, 1, 100);
	RUN("host");
	HOST_CASE("host_np", "host NP: CE-marked RoCEv2 data (CNP or suppressed)", 0x03, 1, 100);
	RUN("host");
	/* a CNP: the BTH and 16 reserved zero bytes */
	HOST_CASE("host_rp", "host RP: a CNP for a flow this host sends", 0x02, 1, 16);
	memset(c.pkt + bth_at + 12, 0, 16);
	c.pkt[bth_at] = XL_CNP_OPCODE;
	c.pkt[bth_at + 2] = c.pkt[bth_at + 3] = 0xff; /* a CNP's P_Key */
	xl_icrc_put(c.pkt + c.len - 4,
		    xl_icrc(c.pkt + 14, (__u32)(c.len - 14 - 4), 20, 0));
	RUN("host");
#undef HOST_CASE
	{
		struct xl_host_stats st;
		__u32 zero = 0;

		if (!xl_percpu_sum_u64(bpf_map__fd(P.host->maps.host_stats), &zero, sizeof(st),
				       &st))
			fprintf(stderr, "bench: host: ce %llu, CNPs sent %llu, suppressed %llu, "
				"received %llu (%llu unknown); refused: np %llu/%llu/%llu, "
				"rp %llu/%llu/%llu\n", (unsigned long long)st.ce_seen,
				(unsigned long long)st.cnps_sent,
				(unsigned long long)st.cnps_suppressed,
				(unsigned long long)st.cnps_received,
				(unsigned long long)st.cnps_unknown,
				(unsigned long long)st.np_not_ours,
				(unsigned long long)st.np_malformed,
				(unsigned long long)st.np_bad_icrc,
				(unsigned long long)st.rp_not_ours,
				(unsigned long long)st.rp_malformed,
				(unsigned long long)st.rp_bad_icrc);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int r;

	memset(&P, 0, sizeof(P));
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s [KEY...]\n  every path and feature, or only those named "
		       "(the \"key\" of each JSON line)\n", argv[0]);
		return 0;
	}
	only = argv + 1;
	if (write_conf(NULL) || perf_ports(&P, conf_text))
		return 1;
	r = leaf_paths() || features() || host_paths();
	perf_close(&P);
	return r ? 1 : 0;
}
