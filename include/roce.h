/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* RoCEv2 constants and the layouts shared by the traffic tools' BPF programs
 * (bpf/gen.bpf.c, bpf/sink.bpf.c) and `xdpleaf gen` / `xdpleaf sink`.
 * Fixed-width kernel types only, like xdpleaf.h. */
#ifndef XL_ROCE_H
#define XL_ROCE_H

/* BTH opcodes, reliable connection (IBTA Vol. 1, 9.2.1). */
#define XL_BTH_SEND_FIRST   0x00
#define XL_BTH_SEND_MIDDLE  0x01
#define XL_BTH_SEND_LAST    0x02
#define XL_BTH_SEND_LAST_IMM 0x03
#define XL_BTH_SEND_ONLY    0x04
#define XL_BTH_SEND_ONLY_IMM 0x05
#define XL_BTH_WRITE_FIRST  0x06 /* carries a RETH */
#define XL_BTH_WRITE_MIDDLE 0x07
#define XL_BTH_WRITE_LAST   0x08
#define XL_BTH_WRITE_LAST_IMM 0x09
#define XL_BTH_WRITE_ONLY   0x0A /* carries a RETH */
#define XL_BTH_WRITE_ONLY_IMM 0x0B
#define XL_BTH_CNP          0x81

#define XL_BTH_LEN  12
#define XL_RETH_LEN 16
#define XL_ICRC_LEN 4
#define XL_PSN_MASK 0xffffffU

/* The top byte of BTH word 2: AckReq (bit 7) and 7 reserved bits. gen
 * sets AckReq to ask the responder for an ACK (--reliable). It marks a
 * packet it sends again (go-back-N) with the lowest reserved bit: a mark
 * of xdpleaf's own, which a real responder ignores (the ICRC covers it),
 * so that xdpleaf sink can tell a resent packet from a late one. */
#define XL_BTH2_ACKREQ 0x80
#define XL_BTH2_RESENT 0x01

/* The AETH after an ACK's BTH (IBTA 9.3.5): syndrome, then the 24-bit
 * MSN (the responder's count of completed messages). Syndrome 0x1f: an
 * ACK without a credit count; 0x60: a NAK for a PSN sequence error, whose
 * BTH PSN is the one the responder expects next. */
#define XL_AETH_LEN 4
#define XL_AETH_ACK 0x1f
#define XL_AETH_NAK_PSN_SEQ 0x60
/* An RC requester that reads ACKs (gen --reliable) asks for one every
 * this many PSNs (on a PSN with these low bits all set) and on the last
 * packet of every message. */
#define XL_RC_ACKREQ_EVERY 64
#define XL_QPN_MASK 0xffffffU

/* PSNs are 24-bit serial numbers: how far a is ahead of b (negative:
 * behind), in -2^23..2^23-1. */
static inline int xl_psn_diff(__u32 a, __u32 b)
{
	return (int)((a - b) << 8) >> 8;
}

/* ---- xdpleaf gen ------------------------------------------------------- */

/* Largest batch of one BPF_PROG_RUN: descriptors in the program's .bss. */
#define XL_GEN_MAX_BATCH 4096
/* Largest frame: it must fit a page of the live-frames test run (4 KiB
 * less headroom and skb_shared_info); the template lives in the .bss. */
#define XL_GEN_MAX_FRAME 3520

/* What the gen program stamps into the template frame for one packet, all
 * in network byte order except icrc (the wire bytes, see icrc.h). User
 * space computes every field, checksums and ICRC included; the program
 * only copies. */
struct xl_gen_desc {
	__u32 bth0;      /* opcode, SE/M/PadCnt/TVer, P_Key */
	__u32 bth1;      /* FECN/BECN/reserved, destination QP */
	__u32 bth2;      /* AckReq/reserved, PSN */
	__u32 icrc;      /* wire bytes of the ICRC, as a native-order load */
	__u16 sport;     /* UDP source port */
	__u16 udp_check; /* UDP checksum (0 for IPv4) */
};

/* ---- xdpleaf sink ------------------------------------------------------ */

#ifndef XL_SINK_MAX_FLOWS
#define XL_SINK_MAX_FLOWS 16384
#endif
/* PSNs remembered behind the highest one, for telling a duplicate from a
 * late (reordered) packet: 1024, in 64-bit words. */
#define XL_SINK_WINDOW_WORDS 16
#define XL_SINK_WINDOW (XL_SINK_WINDOW_WORDS * 64)

/* A RoCEv2 flow as the sink counts it: (source address, destination QP,
 * UDP source port). IPv4 addresses use the first 4 bytes. */
struct xl_sink_key {
	__u8 saddr[16];
	__u32 qp;
	__u16 sport;
	__u8 family;   /* 4 or 6 */
	__u8 pad;
};

struct xl_sink_flow {
	__u64 packets;
	__u64 bytes;       /* frame lengths */
	__u64 ce;          /* arrived with ECN = CE */
	__u64 reordered;   /* PSN behind the highest so far, not a duplicate */
	__u64 duplicates;  /* PSN seen before (within the window) */
	__u64 span;        /* highest - lowest PSN seen, not wrapped */
	__u64 first_ns;    /* bpf_ktime_get_ns() of the first and last packet */
	__u64 last_ns;
	__u32 highest;     /* highest PSN so far (serial order) */
	__u32 base;        /* PSN of the window's first bit (multiple of 64) */
	/* RC responder (respond): the PSN expected next, messages completed
	 * (MSN), replies queued, and whether a NAK for epsn is open (sent,
	 * epsn not arrived yet: one NAK per gap, as a responder sends) */
	__u64 resent;      /* arrived with gen's resent mark (XL_BTH2_RESENT) */
	__u64 acks;        /* ACKs queued for user space to send */
	__u64 naks;        /* NAKs queued */
	__u64 out_of_seq;  /* ahead of epsn: discarded by the responder */
	__u32 epsn;
	__u32 msn;
	__u32 nak_open;
	__u32 pad;
	__u64 seen[XL_SINK_WINDOW_WORDS]; /* bit (psn % WINDOW): received */
};

/* Per-CPU totals of what was not a countable RoCEv2 packet. */
struct xl_sink_stats {
	__u64 roce;        /* RoCEv2 packets counted in a flow */
	__u64 other;       /* not RoCEv2 (or not parseable as IP/UDP): passed */
	__u64 trunc_bth;   /* UDP 4791 too short for a BTH: passed */
	__u64 table_full;  /* RoCEv2 but no room for a new flow: not counted */
	__u64 malformed;   /* RoCEv2 whose IPv4 checksum or UDP length is
			    * wrong: passed, not counted in a flow */
	__u64 replies_lost; /* respond: an ACK/NAK found the ring full */
};

/* respond: one ACK or NAK for user space to send (ring buffer), with what
 * the reply's frame needs from the data packet it answers. */
struct xl_sink_reply {
	__u8 data_smac[6];  /* the data packet's MACs: the reply goes back */
	__u8 data_dmac[6];
	__u8 data_saddr[16]; /* its addresses (IPv4: first 4 bytes) */
	__u8 data_daddr[16];
	__u32 qp;           /* its destination QP */
	__u32 psn;          /* the reply's BTH PSN */
	__u32 msn;          /* the AETH's MSN */
	__u16 sport;        /* its UDP source port (the reply's too) */
	__u16 pkey;         /* its P_Key, network order */
	__u8 family;        /* 4 or 6 */
	__u8 dscp;          /* its DSCP (the reply's, with Not-ECT) */
	__u8 syndrome;      /* XL_AETH_ACK or XL_AETH_NAK_PSN_SEQ */
	__u8 pad;
};

#endif /* XL_ROCE_H */
