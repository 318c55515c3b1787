// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Host mode (bpf/host.bpf.c): DCQCN's notification point and reaction
 * point at tc, under BPF_PROG_TEST_RUN, and gen's RP accounting
 * (bpf/gen.bpf.c xdpleaf_gen_rp, `xdpleaf gen --rate-map`).
 *
 * The suite moves into a fresh network namespace with one TAP device,
 * xl-h0, up, with the egress program attached to it by a tcx link, as the
 * loader attaches it to a host port. Running the ingress program with
 * ctx.ifindex = xl-h0 then exercises the real path: bpf_clone_redirect()
 * sends the marked clone into xl-h0's transmit path, the egress program
 * turns it into the CNP, and the TAP hands the frame to our file
 * descriptor, where the test reads it. Every CNP is checked field by field
 * here and decoded once more by an independent decoder,
 * tests/lab/cnp_check.py (scapy, ICRC recomputed), from a pcap file.
 *
 * The RP's expected state is computed with include/dcqcn.h in user space
 * at the times the program recorded (last_ns), so the comparison is exact.
 * Needs root. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <zlib.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpleaf.h"
#include "config/config.h"
#include "host/loader.h"
#include "roce.h"
#include "host.h"
#include "icrc.h"
#include "host.skel.h"
#include "gen.skel.h"
#include "packets.h"
#include "fixture.h" /* tap_create, SETUP_CHECK, map_set */

#define TCX_EGRESS 47 /* BPF_TCX_EGRESS; libbpf 1.1 has no tcx API */
#define CNP_L4_LEN 40 /* UDP 8, BTH 12, reserved 16, ICRC 4 */

/* snprintf into an array, failing the test if it does not fit */
#define FMT(buf, ...) \
	assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

#define IP4(a, b, c, d) { a, b, c, d }
#define W6(w) ((w) >> 8) & 0xff, (w) & 0xff
#define IP6(a, b, c, d, e, f, g, h)                                        \
	{ W6(a), W6(b), W6(c), W6(d), W6(e), W6(f), W6(g), W6(h) }

static const __u8 MAC_HOST[6] = { 0x02, 0x48, 0x00, 0x00, 0x00, 0x01 };
static const __u8 MAC_LEAF[6] = { 0x02, 0x4c, 0x00, 0x00, 0x00, 0x01 };
static const __u8 A_HOST[16] = IP4(10, 0, 0, 2);   /* this host */
static const __u8 A_PEER[16] = IP4(10, 0, 1, 2);   /* a remote RoCE peer */
static const __u8 A_PEER2[16] = IP4(10, 0, 2, 2);
static const __u8 A6_HOST[16] = IP6(0xfd00, 0, 0, 0, 0, 0, 0, 2);
static const __u8 A6_PEER[16] = IP6(0xfd00, 0, 0, 1, 0, 0, 0, 2);

#define QP1 0x123456
#define QP2 0x000101
#define PKEY 0x8123
#define SPORT 49200

static struct {
	struct host *skel;
	int in_fd, eg_fd;
	int tap_fd;
	__u32 ifindex;
	int link_fd;
	int ncpu;
	char root[1024];       /* the repository: tests/lab/cnp_check.py */
	char xdpleaf[1024];
} E = { .tap_fd = -1, .link_fd = -1 };

/* ---- environment ------------------------------------------------------- */

static int if_up(const char *name)
{
	struct ifreq ifr;
	int sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (sk < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(sk, SIOCGIFFLAGS, &ifr) < 0)
		err = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_NOARP;
	if (!err && ioctl(sk, SIOCSIFFLAGS, &ifr) < 0)
		err = -errno;
	close(sk);
	return err;
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

/* The repository root and build directory, from this binary's path
 * (BUILD/tests/bpf/test_host), falling back to the working directory. */
static void find_paths(void)
{
	char exe[1024], build[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	snprintf(E.root, sizeof(E.root), ".");
	snprintf(E.xdpleaf, sizeof(E.xdpleaf), "build/xdpleaf");
	if (n <= 0)
		return;
	exe[n] = 0;
	if (snprintf(build, sizeof(build), "%s", dirname(dirname(dirname(exe)))) >=
	    (int)sizeof(build) - 16)
		return;
	if (snprintf(E.xdpleaf, sizeof(E.xdpleaf), "%s/xdpleaf", build) < 0)
		return;
	if (stat("tests/lab/cnp_check.py", &st) &&
	    snprintf(E.root, sizeof(E.root), "%s", dirname(build)) < 0)
		return;
}

/* The host's maps as `xdpleaf load` and `reload` write them: a
 * configuration with xl-h0 at `rate` and the keys `dcqcn` ("" for the
 * defaults) in [dcqcn], through the parser and xl_host_fill_maps (which
 * also reads xl-h0's addresses into host_addrs). min_rate, if not 0,
 * replaces the parsed min_rate before the fill: the EDT tests need a
 * floor below the 1M the configuration accepts, so that a cut of a
 * 1 Mbit/s port's rate shows. 0, or -1 after printing why; *out, if
 * given, gets what host_cfg then holds. */
static int host_fill(const char *rate, const char *dcqcn, __u64 min_rate,
		     struct xl_host_cfg *out)
{
	struct xl_config cfg;
	__u32 zero = 0;
	int err;

	if (fixture_config(&cfg, "[xdpleaf]\nmode = host\n\n[port xl-h0]\nrate = %s\n\n"
			   "[dcqcn]\n%s", rate, dcqcn))
		return -1;
	if (min_rate)
		cfg.host.rp.min_rate = min_rate;
	err = xl_host_fill_maps(E.skel, &cfg);
	xl_config_free(&cfg);
	if (err || !out)
		return err;
	return bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.host_cfg), &zero, out);
}

/* host_fill in a test: the settings the programs now run with. */
static struct xl_host_cfg host_cfg(const char *rate, const char *dcqcn, __u64 min_rate)
{
	struct xl_host_cfg c;

	assert_int_equal(host_fill(rate, dcqcn, min_rate, &c), 0);
	return c;
}

/* The defaults every test starts from: a 100 Gbit/s port, [dcqcn] empty. */
#define C_100G 100000000000ULL
static struct xl_host_cfg default_cfg(void)
{
	return host_cfg("100G", "", 0);
}

static void clear_map(struct bpf_map *m)
{
	__u8 key[64], next[64];
	int fd = bpf_map__fd(m);

	while (!bpf_map_get_next_key(fd, NULL, next)) {
		memcpy(key, next, sizeof(key));
		if (bpf_map_delete_elem(fd, key))
			break;
	}
}

static int map_count(struct bpf_map *m)
{
	__u8 key[64], next[64];
	int fd = bpf_map__fd(m), n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return n;
}

static struct xl_host_stats stats(void)
{
	struct xl_host_stats sum;
	__u32 zero = 0;

	assert_int_equal(xl_percpu_sum_u64(bpf_map__fd(E.skel->maps.host_stats), &zero,
					sizeof(sum), &sum), 0);
	return sum;
}

static void drain_tap(void)
{
	__u8 buf[4096];

	while (read(E.tap_fd, buf, sizeof(buf)) > 0)
		;
}

static int group_setup(void **state)
{
	int err, fl;

	(void)state;
	SETUP_CHECK(geteuid() == 0, "needs root (BPF, netns, tun)\n");
	find_paths();
	SETUP_CHECK(!unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET): %s\n",
		    strerror(errno));
	err = tap_create("xl-h0", MAC_HOST, &E.tap_fd);
	SETUP_CHECK(!err, "tap xl-h0: %s\n", strerror(-err));
	E.ifindex = if_nametoindex("xl-h0");
	SETUP_CHECK(E.ifindex, "if_nametoindex(xl-h0): %s\n", strerror(errno));
	/* nothing of the kernel's own on the TAP: no link-local address (so
	 * no router solicitation), no router advertisements taken, and
	 * IFF_NOARP (if_up): no neighbour discovery, no solicited-node
	 * group joined (so no MLD report) */
	write_file("/proc/sys/net/ipv6/conf/xl-h0/addr_gen_mode", "1");
	write_file("/proc/sys/net/ipv6/conf/xl-h0/accept_ra", "0");
	write_file("/proc/sys/net/ipv6/conf/xl-h0/router_solicitations", "0");
	err = if_up("xl-h0");
	SETUP_CHECK(!err, "xl-h0 up: %s\n", strerror(-err));
	/* this host's addresses on xl-h0: the loader reads them from the
	 * kernel into host_addrs (host_fill) */
	SETUP_CHECK(!fixture_addr_add(E.ifindex, 4, A_HOST, 24) &&
		    !fixture_addr_add(E.ifindex, 6, A6_HOST, 64),
		    "addresses on xl-h0: %s\n", strerror(errno));
	fl = fcntl(E.tap_fd, F_GETFL);
	fcntl(E.tap_fd, F_SETFL, fl | O_NONBLOCK);
	E.ncpu = libbpf_num_possible_cpus();
	SETUP_CHECK(E.ncpu > 0, "libbpf_num_possible_cpus: %d\n", E.ncpu);
	E.skel = host__open_and_load();
	SETUP_CHECK(E.skel, "host__open_and_load: %s\n", strerror(errno));
	E.in_fd = bpf_program__fd(E.skel->progs.xdpleaf_host_ingress);
	E.eg_fd = bpf_program__fd(E.skel->progs.xdpleaf_host_egress);
	SETUP_CHECK(!host_fill("100G", "", 0, NULL), "the host's maps\n");
	E.link_fd = bpf_link_create(E.eg_fd, (int)E.ifindex, TCX_EGRESS, NULL);
	SETUP_CHECK(E.link_fd >= 0, "tcx egress link on xl-h0: %s\n",
		    strerror(errno));
	/* exactly this host's two addresses, as the loader found them */
	{
		struct xl_host_addr_key k4 = { .ifindex = E.ifindex, .family = 4 };
		struct xl_host_addr_key k6 = { .ifindex = E.ifindex, .family = 6 };
		__u8 v;

		memcpy(k4.addr, A_HOST, 16);
		memcpy(k6.addr, A6_HOST, 16);
		SETUP_CHECK(!bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.host_addrs), &k4, &v) &&
			    !bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.host_addrs), &k6, &v) &&
			    map_count(E.skel->maps.host_addrs) == 2,
			    "host_addrs does not hold xl-h0's two addresses\n");
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (E.link_fd >= 0)
		close(E.link_fd);
	host__destroy(E.skel);
	if (E.tap_fd >= 0)
		close(E.tap_fd);
	return 0;
}

/* Every test starts from empty tables, the default settings and a quiet
 * TAP. */
static int test_setup(void **state)
{
	(void)state;
	clear_map(E.skel->maps.np_flows);
	clear_map(E.skel->maps.rp_flows);
	clear_map(E.skel->maps.rp_rates);
	drain_tap();
	return host_fill("100G", "", 0, NULL);
}

/* ---- settings ----------------------------------------------------------- */

/* A configuration without [dcqcn] keys gives the programs the host
 * defaults as the parser defines them (xl_host_defaults), with DCQCN's C
 * the port's rate; variant = nvidia, that variant's. */
static void config_defaults_reach_host_cfg(void **state)
{
	static const __u32 variants[] = { XL_DCQCN_PAPER, XL_DCQCN_NVIDIA };
	struct xl_host_cfg want, got;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		got = host_cfg("100G", variants[i] == XL_DCQCN_NVIDIA ? "variant = nvidia\n" : "",
			       0);
		xl_host_defaults(&want, variants[i]);
		want.rp.line_rate = C_100G;
		assert_memory_equal(&got, &want, sizeof(want));
	}
	got = host_cfg("25G", "", 0);
	assert_int_equal(got.rp.line_rate, 25000000000ULL);
}

/* ---- packets ------------------------------------------------------------ */

struct flow {
	int family;
	const __u8 *src, *dst;
	__u32 qp;
	__u16 sport;
	__u8 ecn;
	__u8 opcode;
	int payload;
	int vlan;          /* VID, 0: untagged */
	int ip_opt_len;
};

/* Write the ICRC of the frame into its last 4 bytes, by the IBTA rule
 * (Annex A17) with zlib's CRC-32, not include/icrc.h: 8 bytes of 0xFF, the
 * IP datagram up to the ICRC with the variant fields as ones (IPv4 TOS,
 * TTL, checksum; IPv6 traffic class, flow label, hop limit), the UDP
 * checksum and BTH byte 4 as ones; least significant byte first. */
static void icrc_rule(__u8 *buf, const struct pkt_off *o, int family)
{
	__u8 b[PKT_MAX + 8];
	size_t n = o->ip_end - o->l3 - 4, i;
	uLong crc;

	memset(b, 0xff, 8);
	memcpy(b + 8, buf + o->l3, n);
	if (family == 4) {
		b[8 + 1] = 0xff;
		b[8 + 8] = 0xff;
		b[8 + 10] = b[8 + 11] = 0xff;
	} else {
		b[8 + 0] |= 0x0f;
		b[8 + 1] = b[8 + 2] = b[8 + 3] = 0xff;
		b[8 + 7] = 0xff;
	}
	i = 8 + (o->l4 - o->l3);
	b[i + 6] = b[i + 7] = 0xff;
	b[i + 8 + 4] = 0xff;
	crc = crc32(0L, b, (uInt)(8 + n));
	for (i = 0; i < 4; i++)
		buf[o->ip_end - 4 + i] = (__u8)(crc >> (8 * i));
}

/* A RoCEv2 frame of f, P_Key PKEY (data) or 0xffff (CNP), its ICRC
 * right. */
static size_t roce(const struct flow *f, __u8 *buf)
{
	struct pkt_spec s = {
		.family = f->family, .ttl = 63, .tos = (__u8)(26 << 2 | f->ecn),
		.proto = PKT_UDP, .sport = f->sport, .dport = PKT_ROCEV2_PORT,
		.bth = 1, .bth_opcode = f->opcode, .dest_qp = f->qp, .psn = 77,
		.payload_len = f->payload, .payload_seed = 3, .ip_id = 0x1234,
		.ip_opt_len = f->ip_opt_len, .flowlabel = 0xabcde,
	};
	struct pkt_off o;
	size_t n;

	memcpy(s.dst, MAC_HOST, 6);
	memcpy(s.src, MAC_LEAF, 6);
	memcpy(s.saddr, f->src, 16);
	memcpy(s.daddr, f->dst, 16);
	if (f->vlan) {
		s.nvlan = 1;
		s.tci[0] = (__u16)f->vlan;
	}
	n = pkt_build(&s, buf, &o);
	if (f->opcode != XL_BTH_CNP)
		pkt_put16(buf + o.l4 + 8 + 2, PKEY);
	icrc_rule(buf, &o, f->family);
	return n;
}

static const struct flow DATA4 = {
	4, A_PEER, A_HOST, QP1, SPORT, XL_ECN_CE, XL_BTH_SEND_ONLY, 256, 0, 0,
};
static const struct flow DATA6 = {
	6, A6_PEER, A6_HOST, QP1, SPORT, XL_ECN_CE, XL_BTH_SEND_ONLY, 1024, 0, 0,
};

/* One run of prog on frame; returns the verdict, the output frame and
 * the tstamp of ctx_out. */
static int run(int prog, const __u8 *in, size_t len, __u32 mark, __u8 *out,
	       __u32 *out_len, __u64 *tstamp)
{
	struct __sk_buff ctx = { .ifindex = E.ifindex, .mark = mark };
	struct __sk_buff ctx_out;
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in,
		.data_size_in = (__u32)len,
		.data_out = out,
		.data_size_out = PKT_MAX,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.ctx_out = &ctx_out,
		.ctx_size_out = sizeof(ctx_out),
		.repeat = 1,
	);

	memset(&ctx_out, 0, sizeof(ctx_out));
	assert_int_equal(bpf_prog_test_run_opts(prog, &opts), 0);
	if (out_len)
		*out_len = opts.data_size_out;
	if (tstamp)
		*tstamp = ctx_out.tstamp;
	if (mark == XL_CNP_MARK)
		assert_int_equal(ctx_out.mark, 0);
	return (int)opts.retval;
}

/* Ingress: the verdict must be TC_ACT_OK with the frame untouched. */
static void ingress_passes(const __u8 *pkt, size_t len)
{
	__u8 out[PKT_MAX];
	__u32 olen;

	assert_int_equal(run(E.in_fd, pkt, len, 0, out, &olen, NULL), TC_ACT_OK);
	assert_int_equal(olen, len);
	assert_memory_equal(out, pkt, len);
}

/* The next RoCEv2 frame the TAP transmitted, 0 if none within ms. */
static size_t read_cnp(__u8 *buf, int ms)
{
	struct pollfd pfd = { .fd = E.tap_fd, .events = POLLIN };

	while (poll(&pfd, 1, ms) > 0) {
		ssize_t n = read(E.tap_fd, buf, PKT_MAX);
		size_t l3;

		if (n <= 0)
			continue;
		l3 = buf[12] == 0x81 && buf[13] == 0 ? 18 : 14;
		if ((size_t)n < l3 + 48)
			continue;
		if (pkt_get16(buf + l3 - 2) == PKT_ETH_IP4 &&
		    pkt_get16(buf + l3 + 22) == PKT_ROCEV2_PORT)
			return (size_t)n;
		if (pkt_get16(buf + l3 - 2) == PKT_ETH_IP6 &&
		    pkt_get16(buf + l3 + 42) == PKT_ROCEV2_PORT)
			return (size_t)n;
	}
	return 0;
}

/* ---- the CNP, checked here and by tests/lab/cnp_check.py -------------------- */

/* The CNP that answers data frame f (built by roce()), field by field. */
static void check_cnp_fields(const __u8 *c, size_t len, const struct flow *f)
{
	size_t l2 = f->vlan ? 18 : 14, l3 = f->family == 4 ? 20 : 40;
	const __u8 *ip = c + l2, *u = ip + l3, *b = u + 8;
	__u8 zero[16] = { 0 };
	__u32 icrc;

	assert_int_equal(len, l2 + l3 + CNP_L4_LEN);
	assert_memory_equal(c, MAC_LEAF, 6);       /* back to the data's hop */
	assert_memory_equal(c + 6, MAC_HOST, 6);
	if (f->family == 4) {
		assert_int_equal(ip[0], 0x45);
		assert_int_equal(ip[1], 48 << 2);  /* DSCP 48, Not-ECT */
		assert_int_equal(pkt_get16(ip + 2), 60);
		assert_int_equal(ip[8], 64);
		assert_int_equal(ip[9], 17);
		assert_int_equal(pkt_fold(pkt_sum(0, ip, 20)), 0); /* checksum */
		assert_memory_equal(ip + 12, f->dst, 4);
		assert_memory_equal(ip + 16, f->src, 4);
		assert_int_equal(pkt_get16(u + 6), 0);
	} else {
		assert_int_equal(ip[0], 0x60 | (48 >> 2));
		assert_int_equal(ip[1], (48 & 3) << 6);
		assert_int_equal(ip[2] | ip[3], 0);
		assert_int_equal(pkt_get16(ip + 4), 40);
		assert_int_equal(ip[6], 17);
		assert_int_equal(ip[7], 64);
		assert_memory_equal(ip + 8, f->dst, 16);
		assert_memory_equal(ip + 24, f->src, 16);
		assert_int_equal(pkt_l4_csum(6, ip + 8, ip + 24, 17, u, 40) == 0 ||
				 pkt_l4_csum(6, ip + 8, ip + 24, 17, u, 40) == 0xffff, 1);
	}
	assert_int_equal(pkt_get16(u), f->sport);
	assert_int_equal(pkt_get16(u + 2), 4791);
	assert_int_equal(pkt_get16(u + 4), 40);
	assert_int_equal(b[0], 0x81);
	assert_int_equal(b[1], 0);
	assert_int_equal(pkt_get16(b + 2), PKEY);
	assert_int_equal(b[4], 0x40);
	assert_int_equal((__u32)b[5] << 16 | b[6] << 8 | b[7], f->qp);
	assert_int_equal(b[8] | b[9] | b[10] | b[11], 0);
	assert_memory_equal(b + 12, zero, 16);
	icrc = xl_icrc(ip, (__u32)(l3 + 36), (__u32)l3, f->family == 6);
	assert_int_equal(xl_icrc_get(b + 28), icrc);
}

struct pcap {
	char path[64];
	FILE *f;
	char args[4096];
	int n;
};

static void pcap_open(struct pcap *p)
{
	struct { __u32 magic; __u16 maj, min; __s32 tz; __u32 sig, snap, link; }
		h = { 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1 };
	int fd;

	snprintf(p->path, sizeof(p->path), "/tmp/xl-cnp-XXXXXX");
	fd = mkstemp(p->path);
	assert_true(fd >= 0);
	p->f = fdopen(fd, "w");
	assert_non_null(p->f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, p->f), 1);
	p->args[0] = 0;
	p->n = 0;
}

static const char *ntop(int family, const __u8 *a)
{
	static char buf[4][INET6_ADDRSTRLEN];
	static int i;

	i = (i + 1) % 4;
	return inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf[i], sizeof(buf[i]));
}

/* Add CNP frame c, the answer to data flow f, with what the decoder must
 * find in it. */
static void pcap_add(struct pcap *p, const __u8 *c, size_t len, const struct flow *f)
{
	struct { __u32 sec, usec, incl, orig; } r = { 0, 0, (__u32)len, (__u32)len };
	size_t k = strlen(p->args);

	assert_int_equal(fwrite(&r, sizeof(r), 1, p->f), 1);
	assert_int_equal(fwrite(c, len, 1, p->f), 1);
	assert_true(k + 256 < sizeof(p->args));
	snprintf(p->args + k, sizeof(p->args) - k,
		 " family=%d,src=%s,dst=%s,dmac=02:4c:00:00:00:01,"
		 "smac=02:48:00:00:00:01,sport=%u,qp=%u,pkey=%u,dscp=48%s",
		 f->family, ntop(f->family, f->dst), ntop(f->family, f->src),
		 f->sport, f->qp, PKEY, f->vlan ? ",vlan=100" : "");
	p->n++;
}

/* The independent decoder must accept every CNP of the file (bad: must
 * reject every one). Its report is shown only when it disagrees. */
static void pcap_run_check(struct pcap *p, bool bad)
{
	char cmd[8192], out[16384];
	size_t n;
	FILE *f;
	int rc;

	fclose(p->f);
	FMT(cmd, "/usr/bin/python3 %s/tests/lab/cnp_check.py %s%s%s 2>&1", E.root,
	    bad ? "--expect-bad " : "", p->path, p->args);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	rc = pclose(f);
	if (rc)
		print_error("cnp_check.py failed (%d): %s\n%s", rc, cmd, out);
	else
		unlink(p->path);
	assert_int_equal(rc, 0);
}

static void pcap_check(struct pcap *p) { pcap_run_check(p, false); }

/* ---- NP ------------------------------------------------------------------ */

static struct xl_np_flow np_flow(const __u8 *addr, int family, __u32 qp)
{
	struct xl_qp_key k;
	struct xl_np_flow v;

	memset(&k, 0, sizeof(k));
	memcpy(k.addr, addr, family == 4 ? 4 : 16);
	k.family = (__u32)family;
	k.qp = qp;
	memset(&v, 0, sizeof(v));
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.np_flows),
					     &k, &v), 0);
	return v;
}

/* CE-marked data in: the frame passes untouched, one CNP leaves. */
static void ce_cnp(const struct flow *f)
{
	struct xl_host_stats s0 = stats(), s1;
	__u8 pkt[PKT_MAX], cnp[PKT_MAX];
	struct xl_np_flow nf;
	struct pcap pc;
	size_t len = roce(f, pkt), clen;

	ingress_passes(pkt, len);
	s1 = stats();
	assert_int_equal(s1.ce_seen - s0.ce_seen, 1);
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 1);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 0);
	nf = np_flow(f->src, f->family, f->qp);
	assert_int_equal(nf.ce_packets, 1);
	assert_int_equal(nf.cnps_sent, 1);
	assert_true(nf.last_cnp_ns != 0);
	clen = read_cnp(cnp, 1000);
	assert_true(clen > 0);
	check_cnp_fields(cnp, clen, f);
	pcap_open(&pc);
	pcap_add(&pc, cnp, clen, f);
	pcap_check(&pc);
	assert_int_equal(read_cnp(cnp, 20), 0); /* exactly one */
}

static void np_ce_ipv4_sends_cnp(void **state) { (void)state; ce_cnp(&DATA4); }
static void np_ce_ipv6_sends_cnp(void **state) { (void)state; ce_cnp(&DATA6); }

static void np_ce_vlan_sends_cnp(void **state)
{
	struct flow f = DATA4;

	(void)state;
	f.vlan = 100;
	ce_cnp(&f);
}

/* The frame pkt of len bytes with the byte at `at` changed after its ICRC
 * was written gets no CNP (np_bad_icrc), and does not use up the QP's
 * interval (1 s here): the right frame right after is answered. */
static void bad_icrc_refused_then_right_answered(__u8 *pkt, size_t len, size_t at)
{
	__u8 cnp[PKT_MAX];
	struct xl_host_stats s0, s1;

	host_cfg("100G", "cnp_interval = 1s\n", 0);
	s0 = stats();
	pkt[at] ^= 0x40;
	ingress_passes(pkt, len);
	s1 = stats();
	assert_int_equal(s1.np_bad_icrc - s0.np_bad_icrc, 1);
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 0);
	assert_int_equal(read_cnp(cnp, 20), 0);
	pkt[at] ^= 0x40;
	ingress_passes(pkt, len);
	s0 = stats();
	assert_int_equal(s0.cnps_sent - s1.cnps_sent, 1);
	assert_int_equal(s0.np_bad_icrc, s1.np_bad_icrc);
	assert_true(read_cnp(cnp, 1000) > 0);
}

static void np_bad_icrc_no_cnp(void **state)
{
	__u8 pkt[PKT_MAX];
	size_t len = roce(&DATA4, pkt);

	(void)state;
	bad_icrc_refused_then_right_answered(pkt, len, len - 10);
}

/* The ICRC is checked over the whole frame, chunk by chunk: a 3000-byte
 * IPv6 frame (test_run's skbs stay within a page) with its last payload
 * byte changed. */
static void np_icrc_checked_over_a_large_frame(void **state)
{
	struct flow f = DATA6;
	__u8 pkt[PKT_MAX];
	size_t len;

	(void)state;
	f.payload = 3000 - 14 - 40 - 8 - 12 - 4;
	len = roce(&f, pkt);
	assert_int_equal(len, 3000);
	bad_icrc_refused_then_right_answered(pkt, len, len - 5);
}

static void np_second_ce_within_interval_suppressed(void **state)
{
	__u8 pkt[PKT_MAX], cnp[PKT_MAX];
	struct xl_host_stats s0, s1;
	struct xl_np_flow nf;
	size_t len = roce(&DATA4, pkt);

	(void)state;
	host_cfg("100G", "cnp_interval = 1s\n", 0); /* 1 s: surely within */
	ingress_passes(pkt, len);
	assert_true(read_cnp(cnp, 1000) > 0);
	s0 = stats();
	ingress_passes(pkt, len);
	s1 = stats();
	assert_int_equal(s1.ce_seen - s0.ce_seen, 1);
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 0);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 1);
	nf = np_flow(A_PEER, 4, QP1);
	assert_int_equal(nf.ce_packets, 2);
	assert_int_equal(nf.cnps_sent, 1);
	assert_int_equal(nf.cnps_suppressed, 1);
	assert_int_equal(read_cnp(cnp, 50), 0);
}

static void np_ce_after_interval_sends_again(void **state)
{
	struct xl_host_cfg cfg = host_cfg("100G", "cnp_interval = 2ms\n", 0);
	__u8 pkt[PKT_MAX], cnp[PKT_MAX];
	struct xl_host_stats s0, s1;
	struct xl_np_flow nf;
	size_t len = roce(&DATA4, pkt);
	__u64 first;

	(void)state;
	assert_int_equal(cfg.cnp_interval_ns, 2000000);
	s0 = stats();
	ingress_passes(pkt, len);
	assert_true(read_cnp(cnp, 1000) > 0);
	first = np_flow(A_PEER, 4, QP1).last_cnp_ns;
	usleep(3000);
	ingress_passes(pkt, len);
	assert_true(read_cnp(cnp, 1000) > 0);
	s1 = stats();
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 2);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 0);
	nf = np_flow(A_PEER, 4, QP1);
	assert_int_equal(nf.cnps_sent, 2);
	assert_true(nf.last_cnp_ns >= first + 2000000);
}

/* Per port: one CNP per interval for the whole port, whatever the flow;
 * per QP (default): each flow has its own. */
static void np_scope_per_port_and_per_qp(void **state)
{
	struct xl_host_cfg cfg;
	struct flow f2 = DATA4;
	__u8 p1[PKT_MAX], p2[PKT_MAX], cnp[PKT_MAX];
	struct xl_host_stats s0, s1;
	struct xl_np_flow nf;
	size_t l1 = roce(&DATA4, p1), l2;
	__u8 none[16] = { 0 };

	(void)state;
	f2.src = A_PEER2;
	f2.qp = QP2;
	l2 = roce(&f2, p2);
	cfg = host_cfg("100G", "cnp_interval = 1s\ncnp_scope = port\n", 0);
	assert_int_equal(cfg.cnp_scope, XL_CNP_PER_PORT);
	s0 = stats();
	ingress_passes(p1, l1);
	ingress_passes(p2, l2);
	s1 = stats();
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 1);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 1);
	assert_true(read_cnp(cnp, 1000) > 0);
	assert_int_equal(read_cnp(cnp, 50), 0);
	/* one entry, keyed by the port */
	assert_int_equal(map_count(E.skel->maps.np_flows), 1);
	nf = np_flow(none, 0, E.ifindex);
	assert_int_equal(nf.ce_packets, 2);
	assert_int_equal(nf.cnps_sent, 1);

	clear_map(E.skel->maps.np_flows);
	cfg = host_cfg("100G", "cnp_interval = 1s\n", 0);
	assert_int_equal(cfg.cnp_scope, XL_CNP_PER_QP);
	s0 = stats();
	ingress_passes(p1, l1);
	ingress_passes(p2, l2);
	s1 = stats();
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 2);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 0);
	assert_true(read_cnp(cnp, 1000) > 0);
	assert_true(read_cnp(cnp, 1000) > 0);
	assert_int_equal(map_count(E.skel->maps.np_flows), 2);
}

/* Not CE, not RoCE data, or NP off: passed, nothing counted or sent. */
static void np_not_ce_nothing(void **state)
{
	static const __u8 ecns[] = { XL_ECN_NOT_ECT, XL_ECN_ECT0, XL_ECN_ECT1 };
	struct xl_host_stats s0 = stats(), s1;
	__u8 pkt[PKT_MAX], cnp[PKT_MAX];
	struct flow f = DATA4;
	struct pkt_spec udp = {
		.family = 4, .ttl = 64, .tos = XL_ECN_CE, .proto = PKT_UDP,
		.sport = 1000, .dport = 4792, .payload_len = 64,
	};
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(ecns); i++) {
		f.ecn = ecns[i];
		len = roce(&f, pkt);
		ingress_passes(pkt, len);
		f.family = 6;
		f.src = A6_PEER;
		f.dst = A6_HOST;
		len = roce(&f, pkt);
		ingress_passes(pkt, len);
		f = DATA4;
	}
	/* CE-marked UDP that is not RoCEv2 */
	memcpy(udp.saddr, A_PEER, 4);
	memcpy(udp.daddr, A_HOST, 4);
	len = pkt_build(&udp, pkt, NULL);
	ingress_passes(pkt, len);
	/* NP disabled: CE counted, no CNP */
	host_cfg("100G", "np = no\n", 0);
	len = roce(&DATA4, pkt);
	ingress_passes(pkt, len);
	s1 = stats();
	assert_int_equal(s1.ce_seen - s0.ce_seen, 1);
	assert_int_equal(s1.cnps_sent - s0.cnps_sent, 0);
	assert_int_equal(s1.cnps_suppressed - s0.cnps_suppressed, 0);
	assert_int_equal(map_count(E.skel->maps.np_flows), 0);
	assert_int_equal(read_cnp(cnp, 50), 0);
}

/* The egress builder alone: a marked copy of a data frame becomes its CNP
 * (IPv4 options removed, shorter and longer frames, a VLAN tag). */
static void egress_builds_cnp_from_marked_copy(void **state)
{
	struct flow fs[5] = { DATA4, DATA4, DATA4, DATA6, DATA4 };
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	struct xl_host_stats s0 = stats(), s1;
	struct pcap pc;
	__u32 olen;
	size_t i, len;

	(void)state;
	fs[1].ip_opt_len = 8;
	fs[2].payload = 0;  /* 72-byte frame: the CNP is longer */
	fs[2].qp = 0xfffffe;
	fs[3].payload = 3000;
	fs[4].vlan = 100;
	fs[4].ecn = XL_ECN_ECT0; /* the builder does not care */
	pcap_open(&pc);
	for (i = 0; i < 5; i++) {
		len = roce(&fs[i], pkt);
		assert_int_equal(run(E.eg_fd, pkt, len, XL_CNP_MARK, out, &olen, NULL),
				 TC_ACT_OK);
		check_cnp_fields(out, olen, &fs[i]);
		pcap_add(&pc, out, olen, &fs[i]);
	}
	pcap_check(&pc);
	/* and the decoder is no rubber stamp: one wrong bit anywhere that
	 * matters (ICRC, IPv4 checksum, DestQP, a reserved byte, BECN, ECN)
	 * fails it */
	{
		static const size_t at[] = { 73, 24, 14 + 20 + 8 + 7,
					     14 + 20 + 8 + 12 + 9, 14 + 20 + 8 + 4, 15 };
		__u8 cnp[PKT_MAX];

		pcap_open(&pc);
		len = roce(&fs[0], pkt);
		assert_int_equal(run(E.eg_fd, pkt, len, XL_CNP_MARK, cnp, &olen, NULL),
				 TC_ACT_OK);
		for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			memcpy(out, cnp, olen);
			out[at[i]] ^= 1;
			pcap_add(&pc, out, olen, &fs[0]);
		}
		pcap_run_check(&pc, true);
	}
	/* a marked frame that is not RoCEv2 is dropped */
	fs[0].payload = 8;
	len = roce(&fs[0], pkt);
	pkt[14 + 20 + 3] ^= 1; /* UDP destination 4790 */
	assert_int_equal(run(E.eg_fd, pkt, len, XL_CNP_MARK, out, &olen, NULL),
			 TC_ACT_SHOT);
	s1 = stats();
	assert_int_equal(s1.edt_stamped - s0.edt_stamped, 0);
}

/* ---- RP ------------------------------------------------------------------ */

static struct xl_qp_key rp_key(const __u8 *addr, int family, __u32 qp)
{
	struct xl_qp_key k;

	memset(&k, 0, sizeof(k));
	memcpy(k.addr, addr, family == 4 ? 4 : 16);
	k.family = (__u32)family;
	k.qp = qp;
	return k;
}

static int rp_flow(const struct xl_qp_key *k, struct xl_rp_flow *v)
{
	memset(v, 0, sizeof(*v));
	return bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.rp_flows), k, v);
}

static __u64 rp_rate(const struct xl_qp_key *k)
{
	struct xl_rp_rate r = { 0 };

	if (bpf_map_lookup_elem(bpf_map__fd(E.skel->maps.rp_rates), k, &r))
		return 0;
	return r.rate_bps;
}

/* Our data to the peer (egress): the RP learns the flow. */
static const struct flow OUT4 = {
	4, A_HOST, A_PEER, QP1, SPORT, XL_ECN_ECT0, XL_BTH_SEND_ONLY, 1024, 0, 0,
};

/* The peer's CNP for the flow of data d: from d's destination, DestQP =
 * d's destination QP. */
static size_t cnp_for(const struct flow *d, __u8 *buf)
{
	struct flow c = *d;

	c.src = d->dst;
	c.dst = d->src;
	c.opcode = XL_BTH_CNP;
	c.payload = 16;
	c.ecn = XL_ECN_CE; /* a CE-marked CNP is still no data for the NP */
	return roce(&c, buf);
}

static __u64 egress_data(const struct flow *f)
{
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	__u32 olen;
	__u64 ts;
	size_t len = roce(f, pkt);

	assert_int_equal(run(E.eg_fd, pkt, len, 0, out, &olen, &ts), TC_ACT_OK);
	assert_int_equal(olen, len);
	assert_memory_equal(out, pkt, len);
	return ts;
}

static void rp_learns_flow_and_cnp_cuts_rate(void **state)
{
	struct xl_host_cfg cfg = default_cfg();
	struct xl_qp_key k = rp_key(A_PEER, 4, QP1);
	struct xl_host_stats s0 = stats(), s1;
	struct xl_dcqcn_state ref;
	struct xl_rp_flow f0, f1;
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	size_t len;

	(void)state;
	egress_data(&OUT4);
	assert_int_equal(rp_flow(&k, &f0), 0);
	assert_int_equal(f0.s.rc, C_100G);
	assert_int_equal(f0.bytes, roce(&OUT4, pkt));
	assert_int_equal(rp_rate(&k), C_100G);
	/* the peer's CNP: dropped, Rc cut (paper, alpha 1: to C/2) */
	len = cnp_for(&OUT4, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	assert_int_equal(rp_flow(&k, &f1), 0);
	assert_int_equal(f1.cnps, 1);
	assert_int_equal(f1.version, f0.version + 1);
	assert_int_equal(f1.s.rc, 50000000000ULL);
	assert_int_equal(f1.s.rt, C_100G);
	assert_int_equal(f1.s.alpha, XL_Q32_ONE);
	assert_int_equal(f1.s.phase, XL_PHASE_FR);
	assert_int_equal(f1.s.inc_due, f1.last_ns + cfg.rp.t_ns);
	assert_int_equal(f1.s.alpha_due, f1.last_ns + cfg.rp.k_ns);
	/* exactly include/dcqcn.h's result at the recorded time */
	ref = f0.s;
	assert_int_equal(xl_dcqcn_advance(&ref, &cfg.rp, f1.last_ns, 64), 0);
	xl_dcqcn_cnp(&ref, &cfg.rp, f1.last_ns);
	assert_memory_equal(&ref, &f1.s, sizeof(ref));
	assert_int_equal(rp_rate(&k), 50000000000ULL);
	s1 = stats();
	assert_int_equal(s1.cnps_received - s0.cnps_received, 1);
	assert_int_equal(s1.cnps_unknown - s0.cnps_unknown, 0);
	/* a CNP is no data: the NP ignores it even if CE-marked */
	assert_int_equal(s1.ce_seen - s0.ce_seen, 0);
}

/* nvidia: the first CNP does not cut; the decrease sampler, t_dec later,
 * does, when the next event advances the timers. */
static void rp_nvidia_timers(void **state)
{
	struct xl_host_cfg cfg;
	struct xl_qp_key k = rp_key(A_PEER, 4, QP1);
	struct xl_rp_flow f0, f1, f2;
	struct xl_dcqcn_state ref;
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	size_t len;

	(void)state;
	cfg = host_cfg("100G", "variant = nvidia\n", 0);
	egress_data(&OUT4);
	assert_int_equal(rp_flow(&k, &f0), 0);
	len = cnp_for(&OUT4, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	assert_int_equal(rp_flow(&k, &f1), 0);
	assert_int_equal(f1.s.rc, C_100G); /* no cut yet */
	assert_int_equal(f1.s.alpha, cfg.rp.alpha_first);
	assert_int_equal(rp_rate(&k), C_100G);
	usleep(20); /* past t_dec = 4 us */
	egress_data(&OUT4);
	assert_int_equal(rp_flow(&k, &f2), 0);
	assert_true(f2.s.rc < C_100G);
	ref = f0.s;
	xl_dcqcn_advance(&ref, &cfg.rp, f1.last_ns, 64);
	xl_dcqcn_cnp(&ref, &cfg.rp, f1.last_ns);
	assert_memory_equal(&ref, &f1.s, sizeof(ref));
	/* at most 64 expiries per event (1 us alpha timer): the same bound */
	{
		__u64 due;
		int behind = xl_dcqcn_advance(&ref, &cfg.rp, f2.last_ns, 64) &&
			     xl_dcqcn_next_timer(&ref, &due) != XL_TIMER_NONE &&
			     due <= f2.last_ns;

		assert_int_equal(f2.behind, behind);
	}
	xl_dcqcn_sent(&ref, &cfg.rp, len);
	assert_memory_equal(&ref, &f2.s, sizeof(ref));
	assert_int_equal(rp_rate(&k), f2.s.rc);
}

static void rp_cnp_unknown_flow_ignored(void **state)
{
	struct xl_qp_key k = rp_key(A_PEER, 4, QP1);
	struct xl_host_stats s0, s1;
	struct xl_rp_flow f0, f1;
	struct flow other = OUT4;
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	size_t len;

	(void)state;
	egress_data(&OUT4);
	assert_int_equal(rp_flow(&k, &f0), 0);
	s0 = stats();
	other.qp = QP2;               /* a QP we do not send on */
	len = cnp_for(&other, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	other = OUT4;
	other.dst = A_PEER2;          /* a peer we do not send to */
	len = cnp_for(&other, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	s1 = stats();
	assert_int_equal(s1.cnps_received - s0.cnps_received, 2);
	assert_int_equal(s1.cnps_unknown - s0.cnps_unknown, 2);
	assert_int_equal(map_count(E.skel->maps.rp_flows), 1);
	assert_int_equal(rp_flow(&k, &f1), 0);
	assert_memory_equal(&f0, &f1, sizeof(f0));
}

/* RP off: CNPs pass up untouched, our data is neither learnt nor stamped. */
static void rp_disabled_passes(void **state)
{
	struct xl_host_stats s0 = stats(), s1;
	__u8 pkt[PKT_MAX];
	size_t len;

	(void)state;
	host_cfg("100G", "rp = no\n", 0);
	assert_int_equal(egress_data(&OUT4), 0);
	len = cnp_for(&OUT4, pkt);
	ingress_passes(pkt, len);
	s1 = stats();
	assert_int_equal(s1.edt_stamped - s0.edt_stamped, 0);
	assert_int_equal(s1.cnps_received - s0.cnps_received, 0);
	assert_int_equal(map_count(E.skel->maps.rp_flows), 0);
}

/* EDT: packets of len bytes at Rc leave len * 8e9 / Rc apart; a CNP that
 * halves Rc doubles the spacing from the next packet on. C = 1 Mbit/s so
 * that a gap (8 ms for 1000 bytes) is far longer than a test run. */
static void rp_edt_spacing(void **state)
{
	struct xl_host_stats s0 = stats(), s1;
	struct flow f = OUT4;
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	struct timespec now;
	__u64 ts[7], gap, t0;
	size_t len;
	int i;

	(void)state;
	/* C from the port's rate; no timer in the test (1 s, the longest) */
	host_cfg("1M", "min_rate = 1M\nk = 1s\nt = 1s\n", 100000);
	f.payload = 1000 - 14 - 20 - 8 - 12 - 4; /* 1000-byte frames */
	assert_int_equal(roce(&f, pkt), 1000);
	gap = 1000ULL * 8 * 1000000000ULL / 1000000;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t0 = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	for (i = 0; i < 4; i++)
		ts[i] = egress_data(&f);
	assert_true(ts[0] >= t0 && ts[0] < t0 + gap); /* now: bpf_ktime_get_ns */
	for (i = 1; i < 4; i++)
		assert_int_equal(ts[i] - ts[i - 1], gap);
	len = cnp_for(&f, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	for (i = 4; i < 7; i++)
		ts[i] = egress_data(&f);
	assert_int_equal(ts[4] - ts[3], gap);     /* scheduled before the cut */
	assert_int_equal(ts[5] - ts[4], 2 * gap); /* at Rc / 2 */
	assert_int_equal(ts[6] - ts[5], 2 * gap);
	s1 = stats();
	assert_int_equal(s1.edt_stamped - s0.edt_stamped, 7);
}

/* A gap of a fractional number of ns: no drift from rounding each one
 * (3 Mbit/s, 1000 bytes: 2666666.67 ns, 6 gaps = 16 ms). */
static void rp_edt_fractional_gap(void **state)
{
	struct flow f = OUT4;
	__u64 ts[7];
	int i;

	(void)state;
	host_cfg("3M", "min_rate = 1M\nk = 1s\nt = 1s\n", 100000);
	f.payload = 1000 - 14 - 20 - 8 - 12 - 4;
	for (i = 0; i < 7; i++)
		ts[i] = egress_data(&f);
	for (i = 1; i < 7; i++)
		assert_in_range(ts[i] - ts[i - 1], 2666666, 2666667);
	assert_in_range(ts[6] - ts[0], 16000000 - 1, 16000000);
}

/* Non-RoCE traffic and CNPs we send are not the RP's business. */
static void rp_egress_other_untouched(void **state)
{
	struct xl_host_stats s0 = stats(), s1;
	struct pkt_spec tcp = {
		.family = 4, .ttl = 64, .proto = PKT_TCP, .sport = 1, .dport = 2,
		.payload_len = 100,
	};
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	__u32 olen;
	__u64 ts;
	size_t len;

	(void)state;
	memcpy(tcp.saddr, A_HOST, 4);
	memcpy(tcp.daddr, A_PEER, 4);
	len = pkt_build(&tcp, pkt, NULL);
	assert_int_equal(run(E.eg_fd, pkt, len, 0, out, &olen, &ts), TC_ACT_OK);
	assert_int_equal(ts, 0);
	assert_memory_equal(out, pkt, len);
	len = cnp_for(&DATA4, pkt); /* a CNP from us to the peer */
	assert_int_equal(run(E.eg_fd, pkt, len, 0, out, &olen, &ts), TC_ACT_OK);
	assert_int_equal(ts, 0);
	s1 = stats();
	assert_int_equal(s1.edt_stamped - s0.edt_stamped, 0);
	assert_int_equal(map_count(E.skel->maps.rp_flows), 0);
}

/* ---- gen: RP accounting of its batches ------------------------------------ */

static struct gen *gen_rp_open(int family, const __u8 *daddr)
{
	struct gen *g = gen__open();

	assert_non_null(g);
	assert_int_equal(bpf_program__set_autoload(g->progs.xdpleaf_gen_rp, true), 0);
	g->rodata->gen_rp_family = (__u32)family;
	memcpy((void *)g->rodata->gen_rp_daddr, daddr, 16);
	assert_int_equal(bpf_map__reuse_fd(g->maps.rp_flows,
					   bpf_map__fd(E.skel->maps.rp_flows)), 0);
	assert_int_equal(bpf_map__reuse_fd(g->maps.rp_rates,
					   bpf_map__fd(E.skel->maps.rp_rates)), 0);
	assert_int_equal(bpf_map__reuse_fd(g->maps.host_cfg,
					   bpf_map__fd(E.skel->maps.host_cfg)), 0);
	assert_int_equal(gen__load(g), 0);
	return g;
}

static void gen_rp_run(struct gen *g)
{
	static const __u8 dummy[64];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = dummy, .data_size_in = sizeof(dummy), .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(
		bpf_program__fd(g->progs.xdpleaf_gen_rp), &opts), 0);
	assert_int_equal(opts.retval, XDP_DROP);
}

/* One call per batch: QP1 sent 20 packets of 1000 bytes, QP2 nothing
 * (rate only). The byte counter (B = 10000 here) must count packet by
 * packet, as 25 xl_dcqcn_sent() calls would. */
static void gen_accounts_batches_to_rp(void **state)
{
	struct xl_host_cfg cfg = host_cfg("100G", "b = 10000\n", 0);
	struct xl_qp_key k1 = rp_key(A_PEER, 4, QP1), k2 = rp_key(A_PEER, 4, QP2);
	struct xl_rp_flow f0, f1, f2;
	struct xl_dcqcn_state ref;
	__u8 pkt[PKT_MAX], out[PKT_MAX];
	struct gen *g;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(cfg.rp.b_bytes, 10000);
	g = gen_rp_open(4, A_PEER);
	g->bss->gen_rp_len = 1000;
	g->bss->gen_rp_n = 2;
	g->bss->gen_rp_qpn[0] = QP1;
	g->bss->gen_rp_pkts[0] = 20;
	g->bss->gen_rp_qpn[1] = QP2;
	g->bss->gen_rp_pkts[1] = 0;
	gen_rp_run(g);
	/* Both learnt on first sight at C; QP2, with no packet yet, is
	 * registered so that a CNP its first packet provokes finds it. */
	assert_int_equal(rp_flow(&k1, &f0), 0);
	assert_int_equal(f0.bytes, 20000);
	assert_int_equal(g->bss->gen_rp_rate[0], cfg.rp.line_rate);
	assert_int_equal(rp_flow(&k2, &f1), 0);
	assert_int_equal(f1.bytes, 0);
	/* the peer's CNP (through host ingress) cuts QP1; gen reads it */
	len = cnp_for(&OUT4, pkt);
	assert_int_equal(run(E.in_fd, pkt, len, 0, out, NULL, NULL), TC_ACT_SHOT);
	assert_int_equal(rp_flow(&k1, &f1), 0);
	g->bss->gen_rp_n = 1;
	g->bss->gen_rp_pkts[0] = 0;
	gen_rp_run(g);
	assert_int_equal(g->bss->gen_rp_rate[0], f1.s.rc);
	assert_int_equal(f1.s.rc, cfg.rp.line_rate / 2);
	/* after the CNP the byte counter runs: 25 packets at once */
	g->bss->gen_rp_pkts[0] = 25;
	gen_rp_run(g);
	assert_int_equal(rp_flow(&k1, &f2), 0);
	ref = f1.s;
	xl_dcqcn_advance(&ref, &cfg.rp, f2.last_ns, 64);
	for (i = 0; i < 25; i++)
		xl_dcqcn_sent(&ref, &cfg.rp, 1000);
	assert_memory_equal(&ref, &f2.s, sizeof(ref));
	assert_int_equal(f2.s.b_cnt, 2);     /* B crossed at packets 11 and 22 */
	assert_int_equal(f2.bytes, 45000);
	assert_int_equal(g->bss->gen_rp_rate[0], f2.s.rc);
	assert_int_equal(rp_rate(&k1), f2.s.rc);
	gen__destroy(g);
}

/* The number after "key": in gen's JSON. */
static double json_num(const char *json, const char *key)
{
	char k[64];
	const char *s;

	snprintf(k, sizeof(k), "\"%s\":", key);
	s = strstr(json, k);
	assert_non_null(s);
	return strtod(s + strlen(k), NULL);
}

/* `xdpleaf gen --rate-map`: paces at min(--rate, the published rate) and
 * feeds its packets to the RP of the pinned maps. */
static double gen_run(const char *extra, const char *pin, char *json, size_t jlen)
{
	char cmd[2048];
	FILE *p;
	size_t n;
	FMT(cmd, "%s gen --dev xl-h0 --dst 10.0.1.2 --src 10.0.0.2 "
		 "--gw-mac 02:4c:00:00:00:01 --qp-base %u --count 10 --size 1024 "
		 "--json %s%s 2>&1", E.xdpleaf, QP1, extra, pin);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(json, 1, jlen - 1, p);
	json[n] = 0;
	if (pclose(p))
		print_error("%s\n%s\n", cmd, json);
	return json_num(json, "seconds");
}

/* The pin directory of gen_rate_map_paces_and_accounts: removed by its
 * teardown, so a failed assertion leaves nothing in bpffs. */
static char rate_map_dir[64];

static int remove_rate_map_pins(void **state)
{
	const char *names[3] = { "rp_rates", "rp_flows", "host_cfg" };
	char path[128];
	int i;

	(void)state;
	if (!rate_map_dir[0])
		return 0;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", rate_map_dir, names[i]);
		unlink(path);
	}
	rmdir(rate_map_dir);
	rate_map_dir[0] = 0;
	return 0;
}

static void gen_rate_map_paces_and_accounts(void **state)
{
	struct xl_host_cfg cfg = default_cfg();
	struct xl_qp_key k = rp_key(A_PEER, 4, QP1);
	struct xl_rp_rate r = { .rate_bps = 10000000, .updated_ns = 1 };
	struct xl_rp_flow f;
	char *dir = rate_map_dir, path[128], json[8192], arg[160], cmd[4096];
	const char *names[3] = { "rp_rates", "rp_flows", "host_cfg" };
	struct bpf_map *maps[3] = { E.skel->maps.rp_rates, E.skel->maps.rp_flows,
				    E.skel->maps.host_cfg };
	struct stat st;
	double secs, secs_paced, frame_gap;
	int i;

	(void)state;
	if (stat(E.xdpleaf, &st)) {
		print_error("%s not built\n", E.xdpleaf);
		fail();
	}
	/* QP1's flow exists with Rc = 10 Mbit/s (as after cuts) */
	memset(&f, 0, sizeof(f));
	xl_dcqcn_init(&f.s, &cfg.rp);
	f.s.rc = f.s.rt = r.rate_bps;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(E.skel->maps.rp_flows), &k,
					     &f, BPF_NOEXIST), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(E.skel->maps.rp_rates), &k,
					     &r, BPF_NOEXIST), 0);
	snprintf(dir, sizeof(rate_map_dir), "/sys/fs/bpf/xl-test-host-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(bpf_obj_pin(bpf_map__fd(maps[i]), path), 0);
	}
	snprintf(arg, sizeof(arg), " --rate-map %s/rp_rates", dir);
	frame_gap = 1082.0 * 8 / 10e6; /* s, at 10 Mbit/s */
	/* --rate 1G: the published 10M is lower and wins */
	secs = secs_paced = gen_run("--rate 1G", arg, json, sizeof(json));
	assert_int_equal(json_num(json, "rate_map_bps"), 10000000);
	assert_true(secs >= 9 * frame_gap * 0.95);
	assert_int_equal(rp_flow(&k, &f), 0);
	assert_int_equal(f.bytes, 10 * 1082);
	/* --rate 5M: lower than the published rate, it wins */
	secs = gen_run("--rate 5M", arg, json, sizeof(json));
	assert_true(secs >= 9 * 2 * frame_gap * 0.95);
	assert_int_equal(rp_flow(&k, &f), 0);
	assert_int_equal(f.bytes, 20 * 1082);
	/* the AF_PACKET baseline is paced and accounted the same way */
	secs = gen_run("--afpacket --rate 1G", arg, json, sizeof(json));
	assert_true(secs >= 9 * frame_gap * 0.95);
	assert_int_equal(rp_flow(&k, &f), 0);
	assert_int_equal(f.bytes, 30 * 1082);
	/* without --rate-map: unpaced, nothing accounted; faster than the
	 * same ten frames paced at 10M in this run (a relation, not a time:
	 * a busy machine may take milliseconds for ten frames) */
	secs = gen_run("", "", json, sizeof(json));
	assert_true(secs < secs_paced);
	assert_null(strstr(json, "rate_map_bps"));
	assert_int_equal(rp_flow(&k, &f), 0);
	assert_int_equal(f.bytes, 30 * 1082);
	/* a rate map that is not one */
	snprintf(arg, sizeof(arg), " --rate-map %s/host_cfg", dir);
	FMT(cmd, "%s gen --dev xl-h0 --dst 10.0.1.2 --src 10.0.0.2 "
	    "--gw-mac 02:4c:00:00:00:01 --count 1%s >/dev/null 2>&1", E.xdpleaf, arg);
	assert_int_not_equal(system(cmd), 0);
	drain_tap();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(config_defaults_reach_host_cfg, test_setup),
		cmocka_unit_test_setup(np_ce_ipv4_sends_cnp, test_setup),
		cmocka_unit_test_setup(np_ce_ipv6_sends_cnp, test_setup),
		cmocka_unit_test_setup(np_ce_vlan_sends_cnp, test_setup),
		cmocka_unit_test_setup(np_bad_icrc_no_cnp, test_setup),
		cmocka_unit_test_setup(np_icrc_checked_over_a_large_frame, test_setup),
		cmocka_unit_test_setup(np_second_ce_within_interval_suppressed, test_setup),
		cmocka_unit_test_setup(np_ce_after_interval_sends_again, test_setup),
		cmocka_unit_test_setup(np_scope_per_port_and_per_qp, test_setup),
		cmocka_unit_test_setup(np_not_ce_nothing, test_setup),
		cmocka_unit_test_setup(egress_builds_cnp_from_marked_copy, test_setup),
		cmocka_unit_test_setup(rp_learns_flow_and_cnp_cuts_rate, test_setup),
		cmocka_unit_test_setup(rp_nvidia_timers, test_setup),
		cmocka_unit_test_setup(rp_cnp_unknown_flow_ignored, test_setup),
		cmocka_unit_test_setup(rp_disabled_passes, test_setup),
		cmocka_unit_test_setup(rp_edt_spacing, test_setup),
		cmocka_unit_test_setup(rp_edt_fractional_gap, test_setup),
		cmocka_unit_test_setup(rp_egress_other_untouched, test_setup),
		cmocka_unit_test_setup(gen_accounts_batches_to_rp, test_setup),
		cmocka_unit_test_setup_teardown(gen_rate_map_paces_and_accounts, test_setup,
						remove_rate_map_pins),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
