/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The ns-3 fabric's RoCE hosts as plain C functions over the product's
 * code: DCQCN's reaction point (include/dcqcn.h, advanced and fed as
 * bpf/rp.h feeds it) and notification point (include/host.h's
 * xl_np_due, the port cap of include/events.h), at the configuration's
 * [dcqcn] defaults (xl_host_defaults), the host's line rate as C.
 * Compiled as C; fabric.cc calls it. */
#ifndef XLF_DCQCN_SHIM_H
#define XLF_DCQCN_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One host's [dcqcn] settings: the shipped defaults (variant paper), C =
 * line_bps, then sets (NULL or empty: none), comma-separated KEY=VALUE RP
 * parameters read as the configuration's [dcqcn] reads them (`xdpleaf
 * sim dcqcn --set`'s). NULL with why in err on a bad one or no memory. */
struct xlf_dcqcn *xlf_dcqcn_new(uint64_t line_bps, const char *sets, char *err, unsigned len);
void xlf_dcqcn_free(struct xlf_dcqcn *d);

/* A sending QP's reaction point: Rc = Rt = C, alpha 1, no timer. */
struct xlf_rp *xlf_rp_new(const struct xlf_dcqcn *d);
void xlf_rp_free(struct xlf_rp *r);
/* Rc at now_ns, its timers due by then fired first. */
uint64_t xlf_rp_rate(struct xlf_rp *r, uint64_t now_ns);
/* A CNP for this QP at now_ns: Rc after it. */
uint64_t xlf_rp_cnp(struct xlf_rp *r, uint64_t now_ns);
/* A packet of len bytes sent at now_ns (the byte counter): Rc after it. */
uint64_t xlf_rp_sent(struct xlf_rp *r, uint64_t now_ns, uint32_t len);
/* CNPs taken, times Rc fell (a CNP or a timer), the lowest Rc. */
void xlf_rp_counts(const struct xlf_rp *r, uint64_t out[3]);

/* A host port's notification point over nqps receiving QPs (indices
 * 0..nqps-1). */
struct xlf_np *xlf_np_new(const struct xlf_dcqcn *d, unsigned nqps);
void xlf_np_free(struct xlf_np *n);
/* A CE-marked data packet of QP q at now_ns: 1 if it earns a CNP (at most
 * one per QP per cnp_interval, the port's cnp_port_rate cap), else 0. */
int xlf_np_ce(struct xlf_np *n, unsigned q, uint64_t now_ns);
/* CE-marked packets, CNPs sent, CE marks within the interval (no CNP),
 * CNPs the port cap held back. */
void xlf_np_counts(const struct xlf_np *n, uint64_t out[4]);

#ifdef __cplusplus
}
#endif

#endif
