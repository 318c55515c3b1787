// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `make bench`: the leaf program's cost per packet on its main paths,
 * through BPF_PROG_TEST_RUN, as ratios to a baseline measured in the same
 * run (a packet from a port the program does not serve: one map lookup
 * and XDP_PASS). The machine is shared and noisy, so every figure is the
 * median of many batches, and only the ratios are meant to be compared
 * across runs.
 *
 * test_run's `repeat` runs the program again on the buffer it already
 * rewrote, so the forwarding cases are set up to survive that: the next
 * hop's MAC is the ingress port's own (the rewritten frame still reaches
 * "our" MAC) and TTL starts at 255, more than the batch size. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpleaf.h"
#include "csum.h"
#include "leaf.skel.h"
#include "fixture.h"

#define BATCH 200      /* < 255: TTL must not run out inside a batch */
#define BATCHES 2000

static const __u8 mac_in[6] = { 0x02, 0, 0, 0, 0xb1, 1 };
static const __u8 mac_out[6] = { 0x02, 0, 0, 0, 0xb1, 2 };

struct bench {
	struct leaf *skel;
	int prog_fd;
	__u32 if_in, if_out;
	int tap[2];
};

/* Ethernet + IPv4 + UDP, 100-byte payload, to dst 10.9.X.2. */
static size_t build_udp4(__u8 *b, __u8 dst_net, __u8 tos)
{
	__u8 *ip = b + 14, *udp = ip + 20;
	size_t len = 14 + 20 + 8 + 100;
	__u16 c;

	memset(b, 0, len);
	memcpy(b, mac_in, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\xaa\x01", 6);
	b[12] = 0x08;
	ip[0] = 0x45;
	ip[1] = tos;
	ip[2] = 0;
	ip[3] = 20 + 8 + 100;
	ip[8] = 255; /* TTL */
	ip[9] = 17;
	memcpy(ip + 12, "\x0a\x01\x01\x02", 4);
	ip[16] = 10;
	ip[17] = 9;
	ip[18] = dst_net;
	ip[19] = 2;
	c = xl_csum_full(ip, 20);
	memcpy(ip + 10, &c, 2);
	udp[0] = 0xc0;
	udp[1] = 0x01;
	udp[2] = 0x12;
	udp[3] = 0xb7; /* 4791: RoCEv2 ports parse the BTH too */
	udp[5] = 8 + 100;
	udp[8] = 0x04; /* BTH: SEND_ONLY */
	udp[14] = 0x01; /* dest QP 0x100 */
	return len;
}

static size_t build_arp(__u8 *b)
{
	memset(b, 0, 60);
	memset(b, 0xff, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\xaa\x01", 6);
	b[12] = 0x08;
	b[13] = 0x06;
	return 60;
}

/* Median ns per packet over BATCHES batches of BATCH runs. */
static double measure(struct bench *B, const __u8 *pkt, size_t len,
		      __u32 ifindex, int *verdict)
{
	static __u32 durations[BATCHES];
	__u8 buf[256];
	int n = 0;

	for (int i = 0; i < BATCHES; i++) {
		struct xdp_md ctx = { .ingress_ifindex = ifindex };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf,
			    .data_size_in = len, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = BATCH);

		memcpy(buf, pkt, len);
		ctx.data_end = len;
		if (bpf_prog_test_run_opts(B->prog_fd, &o))
			continue;
		*verdict = o.retval;
		durations[n++] = o.duration;
	}
	if (!n)
		return -1;
	/* median */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && durations[j - 1] > durations[j]; j--) {
			__u32 t = durations[j];

			durations[j] = durations[j - 1];
			durations[j - 1] = t;
		}
	return durations[n / 2];
}

static int setup(struct bench *B)
{
	struct leaf *sk;
	__u32 zero = 0, gid = 0, slot_in = 0, slot_out = 1;

	static const char *const names[2] = { "xb-in", "xb-out" };
	__u8 macs[2][6];
	__u32 ifx[2];

	memcpy(macs[0], mac_in, 6);
	memcpy(macs[1], mac_out, 6);
	if (fixture_ports(2, names, (const __u8 (*)[6])macs, B->tap, ifx))
		return -1;
	B->if_in = ifx[0];
	B->if_out = ifx[1];
	B->skel = sk = leaf__open();
	if (!sk)
		return -1;
	sk->rodata->nr_cpus = libbpf_num_possible_cpus();
	if (leaf__load(sk)) {
		fprintf(stderr, "bench_leaf: load: %s\n", strerror(errno));
		return -1;
	}
	B->prog_fd = bpf_program__fd(sk->progs.xdpleaf_leaf);
	{
		struct xl_port in = { .ifindex = B->if_in, .slot = slot_in };
		struct xl_port out = { .ifindex = B->if_out, .slot = slot_out,
				       .role = XL_ROLE_UPLINK, .has_nexthop4 = 1,
				       .nexthop4 = { 10, 9, 2, 1 } };
		struct xl_lpm4_key onlink = { 24, { 10, 9, 1, 0 } };
		struct xl_lpm4_key viagroup = { 24, { 10, 9, 2, 0 } };
		struct xl_lpm4_key queued = { 24, { 10, 9, 3, 0 } };
		struct xl_route r_onlink = { XL_ROUTE_PORT, B->if_out };
		struct xl_route r_group = { XL_ROUTE_GROUP, gid };
		struct xl_group g = { .lb_mode = XL_LB_FLOWLET, .n_members = 1,
				      .members = { B->if_out },
				      .member_slot = { slot_out },
				      .flowlet_timeout_ns = XL_DEFAULT_FLOWLET_TIMEOUT_NS };
		/* next hops answer with the ingress port's MAC: see the top */
		struct xl_neigh nb = { { 0 }, 0 };
		struct xl_neigh_key k1 = { B->if_out, AF_INET, { 10, 9, 1, 2 } };
		struct xl_neigh_key k2 = { B->if_out, AF_INET, { 10, 9, 2, 1 } };
		struct xl_neigh_key k3 = { B->if_out, AF_INET, { 10, 9, 3, 2 } };
		struct xl_settings s = { XL_MALFORMED_PASS };
		struct xl_class c = { .wred = { 5 << 10, 200 << 10, 0, 0 } };
		__u32 cls = 0;

		memcpy(in.mac, mac_in, 6);
		memcpy(out.mac, mac_out, 6);
		memcpy(nb.mac, mac_in, 6);
		if (map_set(sk->maps.ports, &B->if_in, 4, &in, sizeof(in)) ||
		    map_set(sk->maps.ports, &B->if_out, 4, &out, sizeof(out)) ||
		    map_set(sk->maps.tx_ports, &B->if_out, 4, &B->if_out, 4) ||
		    map_set(sk->maps.routes4, &onlink, sizeof(onlink), &r_onlink, sizeof(r_onlink)) ||
		    map_set(sk->maps.routes4, &viagroup, sizeof(viagroup), &r_group, sizeof(r_group)) ||
		    map_set(sk->maps.routes4, &queued, sizeof(queued), &r_onlink, sizeof(r_onlink)) ||
		    map_set(sk->maps.groups, &gid, 4, &g, sizeof(g)) ||
		    map_set(sk->maps.neigh, &k1, sizeof(k1), &nb, sizeof(nb)) ||
		    map_set(sk->maps.neigh, &k2, sizeof(k2), &nb, sizeof(nb)) ||
		    map_set(sk->maps.neigh, &k3, sizeof(k3), &nb, sizeof(nb)) ||
		    map_set(sk->maps.settings, &zero, 4, &s, sizeof(s)) ||
		    map_set(sk->maps.classes, &cls, 4, &c, sizeof(c))) {
			fprintf(stderr, "bench_leaf: maps: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The queued case: the egress port gets a phantom queue, fast enough that
 * the batches never fill it (the queue, not the drop, is measured). */
static int set_queue(struct bench *B, int on)
{
	struct xl_port out;

	if (bpf_map__lookup_elem(B->skel->maps.ports, &B->if_out, 4, &out,
				 sizeof(out), 0))
		return -1;
	out.line_rate_bps = out.drain_bps = on ? 1600000000000ULL : 0;
	out.buffer_bytes = on ? 256U << 20 : 0;
	out.gamma_ppm = 1000000;
	return map_set(B->skel->maps.ports, &B->if_out, 4, &out, sizeof(out));
}

/* The group case with a phantom queue on its member (the port's, and the
 * group's view of it, which the reorder-free rule reads per packet). */
static int set_group_queue(struct bench *B, int on)
{
	struct xl_group g;
	__u32 gid = 0;

	if (bpf_map__lookup_elem(B->skel->maps.groups, &gid, 4, &g, sizeof(g), 0))
		return -1;
	g.capacity_bps[0] = g.drain_bps[0] = on ? 1600000000000ULL : 0;
	return map_set(B->skel->maps.groups, &gid, 4, &g, sizeof(g)) || set_queue(B, on);
}

int main(void)
{
	static const char *const vnames[] = { "aborted", "drop", "pass", "tx", "redirect" };
	struct bench B = { 0 };
	__u8 onlink[256], group[256], arp[64];
	size_t l_on = build_udp4(onlink, 1, 0x02), l_gr = build_udp4(group, 2, 0x02);
	size_t l_arp = build_arp(arp);
	struct { const char *name; double ns; int verdict; } r[7];
	int n = 0, v;

	if (setup(&B))
		return 1;
	r[n].name = "baseline: not our port (lookup, XDP_PASS)";
	r[n].ns = measure(&B, onlink, l_on, 1 /* lo */, &r[n].verdict);
	n++;
	r[n].name = "ARP to the kernel";
	r[n].ns = measure(&B, arp, l_arp, B.if_in, &r[n].verdict);
	n++;
	r[n].name = "RoCEv2/IPv4 forwarded on-link";
	r[n].ns = measure(&B, onlink, l_on, B.if_in, &r[n].verdict);
	n++;
	r[n].name = "RoCEv2/IPv4 via a flowlet group";
	r[n].ns = measure(&B, group, l_gr, B.if_in, &r[n].verdict);
	n++;
	set_queue(&B, 1);
	r[n].name = "RoCEv2/IPv4 on-link + phantom queue";
	r[n].ns = measure(&B, onlink, l_on, B.if_in, &r[n].verdict);
	n++;
	set_queue(&B, 0);
	set_group_queue(&B, 1);
	r[n].name = "RoCEv2/IPv4 via a flowlet group + queue";
	r[n].ns = measure(&B, group, l_gr, B.if_in, &r[n].verdict);
	n++;
	set_group_queue(&B, 0);

	printf("xdpleaf leaf program, BPF_PROG_TEST_RUN, median of %d batches of %d "
	       "(ns per packet; ratio to the baseline of this run)\n", BATCHES, BATCH);
	for (int i = 0; i < n; i++) {
		v = r[i].verdict;
		printf("  %-42s %7.1f ns  %5.2fx  (%s)\n", r[i].name, r[i].ns,
		       r[0].ns > 0 ? r[i].ns / r[0].ns : 0.0,
		       v >= 0 && v < 5 ? vnames[v] : "?");
	}
	leaf__destroy(B.skel);
	return 0;
}
