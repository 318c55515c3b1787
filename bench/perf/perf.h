/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `make bench` (bench/perf/): the leaf and its yardsticks loaded side by
 * side in a private network namespace, and the timing of a packet through
 * BPF_PROG_TEST_RUN. */
#ifndef XL_BENCH_PERF_H
#define XL_BENCH_PERF_H

#include <stddef.h>
#include <linux/types.h>
#include "packets.h"

struct leaf;
struct host;
struct base_stateless;
struct base_stateful;

#define PERF_MAX_TAPS 48
#define PERF_MAC_IN { 0x02, 0, 0, 0, 0xb1, 0x01 }

/* One bench environment: TAP ports, the leaf loaded from a config, and
 * both baselines, which forward to the port `base_egress`. */
struct perf {
	struct leaf *leaf;
	struct host *host;
	struct base_stateless *stateless;
	struct base_stateful *stateful;
	int n_taps;
	int tap_fd[PERF_MAX_TAPS];
	char tap_name[PERF_MAX_TAPS][16];
	__u32 ifindex[PERF_MAX_TAPS];
	char conf_path[64];
};

/* Create the network namespace and the TAPs named in the config text
 * (every "[port NAME]"), each with a MAC of its own. 0 or -1. */
int perf_ports(struct perf *P, const char *conf_text);
/* Bring a TAP up (no ARP). 0 or -1. */
int perf_up(const char *name);
/* The ifindex of a TAP by name, 0 if none. */
__u32 perf_ifindex(const struct perf *P, const char *name);
/* Load the leaf as `xdpleaf load` fills its maps (xl_leaf_fill_maps)
 * from conf_text, and neighbours for every next hop and on-link
 * destination the bench sends to: all answer with the ingress port's
 * MAC (see paths.c). Again on a loaded leaf: a reload. */
int perf_leaf_config(struct perf *P, const char *conf_text);
/* A neighbour entry: addr (4 or 16 bytes) on port `ifname`. */
int perf_neigh(struct perf *P, const char *ifname, int family, const __u8 *addr);
/* The host program loaded as `xdpleaf load` fills it, from conf_text. */
int perf_host_config(struct perf *P, const char *conf_text);
/* Both baselines, redirecting to `egress`; the stateful one's table
 * sized for `flows` entries. */
int perf_baselines(struct perf *P, const char *egress, __u32 flows);
void perf_close(struct perf *P);

/* A different packet each batch: the 24-bit big-endian field at `off`
 * (a BTH's destination QP) set to (start + batch) % mod; mod 0: off. */
struct perf_vary {
	size_t off;
	__u32 start, mod;
};

/* Median ns per packet of `batches` test runs of `repeat` runs each of
 * the program (XDP if is_xdp, else tc) on pkt from ingress ifindex, each
 * batch's packet varied by `vary` (may be NULL); *verdict the program's
 * last return value. -1 if none ran. */
double perf_measure(int prog_fd, const __u8 *pkt, size_t len, __u32 ifindex,
		    int is_xdp, int repeat, int batches, const struct perf_vary *vary,
		    int *verdict);
double perf_median(double *v, int n);

#endif
