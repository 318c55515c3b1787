/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Host mode (DCQCN's notification and reaction points on a GPU host):
 * map keys, values and constants shared by bpf/host.bpf.c, `xdpleaf gen`
 * and the loader. docs/dcqcn.md explains the design. */
#ifndef XL_HOST_H
#define XL_HOST_H

#include "dcqcn.h"

#ifndef XL_MAX_QPS
#define XL_MAX_QPS 4096         /* flows tracked by NP and RP */
#endif
#define XL_CNP_OPCODE 0x81
#define XL_CNP_DSCP_DEFAULT 48
#define XL_CNP_INTERVAL_DEFAULT_NS 50000ULL /* 50 us per QP */
/* skb->mark of the clone the NP sends to its own egress to become a CNP. */
#define XL_CNP_MARK 0x58434e50 /* "XCNP" */

/* A RoCE flow seen from one host: the remote address and the destination
 * QP of the data packets. The NP keys the marked flow this way (remote =
 * the data's source); the RP keys its own sending flow this way (remote =
 * the data's destination) and matches a CNP by (CNP source, CNP DestQP).
 * The CNP carries the QP the data was addressed to: with xdpleaf (or gen)
 * on both ends, that identifies the flow; docs/dcqcn.md says why. */
struct xl_qp_key {
	__u8 addr[16];  /* IPv4: first 4 bytes */
	__u32 family;   /* 4 or 6 */
	__u32 qp;       /* 24-bit QP number */
};

enum xl_cnp_scope {
	XL_CNP_PER_QP = 0,   /* at most one CNP per QP per interval */
	XL_CNP_PER_PORT = 1, /* at most one per interval for the whole port */
};

/* Host-mode settings (one entry of the `host_cfg` array). */
/* An address of one of the host's ports (key of `host_addrs`, written by
 * the loader): the NP answers and the RP believes only packets sent to
 * one. IPv4 in the first 4 bytes of addr. */
struct xl_host_addr_key {
	__u32 ifindex;
	__u32 family;   /* 4 or 6 */
	__u8 addr[16];
};
#define XL_MAX_HOST_ADDRS 256

/* CNPs a port may send per second (per CPU), whatever the QPs: the
 * per-QP interval alone let 20,000 QPs draw 20,000 CNPs in 0.12 s. */
#define XL_CNP_PORT_RATE_DEFAULT 100000

struct xl_host_cfg {
	__u64 cnp_interval_ns;
	__u32 cnp_scope;      /* enum xl_cnp_scope */
	__u32 cnp_dscp;
	__u32 np_enabled;
	__u32 rp_enabled;
	__u32 cnp_port_rate;  /* CNPs per second per port and CPU; 0: no cap */
	__u32 pad;
	struct xl_dcqcn_params rp; /* variant and parameters; line_rate = C */
};

/* NP state per marked flow (LRU `np_flows`). */
struct xl_np_flow {
	__u64 last_cnp_ns;    /* 0: none sent yet */
	__u64 ce_packets;     /* CE-marked data packets seen */
	__u64 cnps_sent;
	__u64 cnps_suppressed; /* CE seen within the interval: no CNP */
};

/* The NP's rule: a CE-marked packet at `now` earns its flow a CNP unless
 * the flow's last one (last_cnp_ns, 0: none yet) went less than interval
 * ago. Signed: another CPU may have stamped a slightly later time. */
static inline int xl_np_due(__u64 last_cnp_ns, __u64 now, __u64 interval)
{
	return !last_cnp_ns || (__s64)(now - last_cnp_ns) >= (__s64)interval;
}

/* RP state per sending flow (hash `rp_flows`). The lock guards only the
 * copy in and out; the arithmetic runs on a private copy (bpf/rp.h). */
struct xl_rp_flow {
	struct bpf_spin_lock lock;
	__u32 version;        /* bumped by every write */
	struct xl_dcqcn_state s;
	__u64 last_ns;        /* time the state was advanced to */
	__u64 cnps;           /* CNPs matched to this flow */
	__u64 bytes;          /* bytes accounted as sent */
	/* Added with bpf/host.bpf.c and bpf/rp.h: */
	__u64 next_tx_ns;     /* EDT: earliest departure of the next packet, */
	__u64 next_tx_frac;   /* plus this many 1/65536 ns */
	__u64 lost_updates;   /* events dropped: state written concurrently twice */
	__u64 behind;         /* events applied with timer expiries still due
			       * (more than XL_RP_MAX_STEPS; caught up later) */
};

/* Published rate per sending flow (hash `rp_rates`, pinned): what a
 * sender paces by (tc EDT, `xdpleaf gen`). */
struct xl_rp_rate {
	__u64 rate_bps;
	__u64 updated_ns;
};

/* Host-wide counters (per-CPU array `host_stats`, one entry). */
struct xl_host_stats {
	__u64 ce_seen;        /* CE-marked RoCE data packets received */
	__u64 cnps_sent;
	__u64 cnps_suppressed;
	__u64 cnps_received;
	__u64 cnps_unknown;   /* CNPs for no known flow: counted, ignored */
	__u64 edt_stamped;    /* packets given a departure time at egress */
	__u64 cnp_clone_failed; /* bpf_clone_redirect() refused the copy */
	__u64 cnp_build_failed; /* a marked copy could not become a CNP */
	__u64 rp_no_room;     /* a new flow found rp_flows full */
	/* what host mode refuses to act on (docs/dcqcn.md, "Trust") */
	__u64 np_not_ours;    /* CE data not unicast to our MAC and address */
	__u64 np_malformed;   /* CE "data" with lengths that do not hold, or
			       * an opcode that is no request */
	__u64 np_port_capped; /* CNPs the per-port cap held back */
	__u64 rp_not_ours;    /* CNPs not unicast to our MAC and address */
	__u64 rp_malformed;   /* CNPs of the wrong shape or length */
	__u64 rp_bad_icrc;    /* CNPs whose ICRC is wrong */
	__u64 np_bad_icrc;    /* CE data whose ICRC is wrong: no CNP */
};

#endif /* XL_HOST_H */
