/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The ns-3 fabric's leaf as plain C functions over the product's code:
 * the uplink choice of user/sim/lb_group.c (bpf/uplink.h's over
 * include/lb.h), the 5-tuple hash of include/lb.h, and each uplink's
 * phantom queue with WRED/ECN marking of include/ecn.h at the shipped
 * defaults (the default class's profile from the configuration's key
 * table, the port's default buffer). Compiled as C; fabric.cc calls it. */
#ifndef XLF_LEAF_SHIM_H
#define XLF_LEAF_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xlf_leaf;

/* Outcome bits of xlf_port_offer: include/ecn.h's XL_Q_*. */
#define XLF_Q_MARK (1 << 1)
#define XLF_Q_DROP (1 << 2)

/* A rate as the configuration and the lab write it (100M, 2.5G, bit/s):
 * 0, or -1 with why in err. */
int xlf_parse_rate(const char *s, uint64_t *bps, char *err, unsigned len);
/* The lb_mode of a word of the configuration ("hash", "flowlet",
 * "flowlet-random", "spray"), or -1. spray is spray_reorder = free. */
int xlf_lb_mode(const char *word);
/* A leaf's uplink group: n members of these capacities, lb_mode mode,
 * random draws from seed; NULL on a bad size or no memory. */
struct xlf_leaf *xlf_leaf_new(unsigned n, const uint64_t *cap_bps, int mode, uint64_t seed);
void xlf_leaf_free(struct xlf_leaf *l);
/* include/lb.h's 5-tuple hash of an IPv4 flow (addresses in host order). */
uint32_t xlf_flow_hash(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
		       uint8_t proto, uint32_t seed);
/* A new flow of the leaf with this hash: its index, or -1. */
int xlf_leaf_add_flow(struct xlf_leaf *l, uint32_t hash);
/* Flow k's packet of len bytes at now_ns (pure_ack: a TCP segment with no
 * data and no SYN, FIN or RST): the member it leaves by, or -1. */
int xlf_leaf_packet(struct xlf_leaf *l, unsigned k, uint64_t now_ns, uint32_t len, int pure_ack);
/* The group's flowlet timeout (auto, as the loader computes it). */
uint64_t xlf_leaf_floor_ns(const struct xlf_leaf *l);
/* The packet offered to member m's phantom queue (drained at the member's
 * capacity): 0, XLF_Q_MARK or XLF_Q_DROP (overflow = mark: a full queue
 * marks, never drops, as the lab's leaf1 is configured). */
int xlf_port_offer(struct xlf_leaf *l, unsigned m, uint64_t now_ns, uint32_t len, int ect);
/* The leaf's phantom queues mark with the built-in roce class's profile
 * (RoCEv2 data, DSCP 26) instead of the default class's: the same
 * thresholds, fitted to each member's buffer. */
void xlf_leaf_roce(struct xlf_leaf *l);
/* The roce class's profile on a port of buffer bytes: Kmin, Kmax (bytes)
 * and Pmax (a fraction), for the switches that mark by their real queue. */
void xlf_roce_profile(uint64_t buffer, uint32_t *kmin, uint32_t *kmax, double *pmax);
/* Counters: flowlets, moves, moves refused by the reorder-free rule,
 * packets marked. */
void xlf_leaf_counts(const struct xlf_leaf *l, uint64_t out[4]);

#ifdef __cplusplus
}
#endif

#endif
