/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* RoCEv2 packets for `xdpleaf gen`: template frames and the per-packet
 * descriptors (struct xl_gen_desc) that bpf/gen.bpf.c stamps into them.
 * No I/O: unit-tested against a full recomputation.
 *
 * A "class" is one frame layout and length: with or without a RETH, and a
 * payload length. Packets of one class differ only in the UDP source port,
 * the BTH opcode, destination QP and PSN, and therefore in the ICRC (and,
 * for IPv6, the UDP checksum). CRC-32 is affine over GF(2): for messages
 * of equal length, crc(m ^ d) = crc(m) ^ L(d) with L linear. So the ICRC of
 * a packet is the ICRC of its QP's base packet (opcode of the template,
 * PSN 0) xor one table entry per changed byte (opcode, 3 PSN bytes): four
 * lookups instead of a CRC over the whole packet. The IPv6 UDP checksum is
 * the QP's base sum plus the changed 16-bit words. */
#ifndef XL_GEN_PKT_H
#define XL_GEN_PKT_H

#include <stdbool.h>
#include <linux/types.h>
#include "roce.h"

#define XL_GEN_ETH_LEN 14

struct xl_gen_flowspec {
	bool ipv6;
	__u8 src_mac[6];
	__u8 dst_mac[6];
	__u8 saddr[16];   /* IPv4: first 4 bytes */
	__u8 daddr[16];
	__u8 tos;         /* DSCP << 2 | ECN */
	__u8 ttl;
	__u64 reth_va;    /* RETH virtual address, R_Key (write) */
	__u32 reth_rkey;
};

struct xl_gen_class {
	__u8 frame[XL_GEN_MAX_FRAME]; /* template: QP 0's fields, PSN 0 */
	__u32 len;        /* frame bytes (Ethernet header to ICRC) */
	__u32 l3_off, udp_off, bth_off, icrc_off;
	__u32 payload;    /* payload bytes after BTH (and RETH) */
	__u8 pad;         /* pad bytes to a multiple of 4 (BTH PadCnt) */
	bool reth;
	bool ipv6;
	__u8 op_ref;      /* opcode in the base packets */
	__u32 t_op[256];  /* ICRC change for opcode ^ op_ref */
	__u32 t_psn[3][256]; /* ICRC change per PSN byte (high, mid, low) */
	__u32 t_flags[256]; /* ICRC change for BTH word 2's top byte (AckReq...) */
	__u32 nqp;
	__u32 *icrc_base; /* per QP: ICRC with op_ref and PSN 0 */
	__u32 *csum_base; /* per QP, IPv6: UDP sum without BTH words 0, 2, ICRC */
};

struct xl_gen_qpid {
	__u32 qpn;
	__u16 sport;
};

/* Build a class: the template for QP 0 and the per-QP bases. reth adds a
 * RETH whose DMA length is dma_len. Returns 0, or -1 with errno = EINVAL if
 * the frame would exceed XL_GEN_MAX_FRAME, ENOMEM. */
int xl_gen_class_init(struct xl_gen_class *c, const struct xl_gen_flowspec *fs,
		      __u32 payload, bool reth, __u32 dma_len, __u8 op_ref,
		      const struct xl_gen_qpid *qps, __u32 nqp);
void xl_gen_class_free(struct xl_gen_class *c);

/* The descriptor of one packet of class c for QP index qi; flags is BTH
 * word 2's top byte (XL_BTH2_ACKREQ, XL_BTH2_RESENT). */
void xl_gen_desc_fill(const struct xl_gen_class *c, __u32 qi,
		      const struct xl_gen_qpid *qp, __u8 opcode, __u32 psn,
		      __u8 flags, struct xl_gen_desc *d);

/* What the BPF program does, in user space: stamp d into frame (a copy of
 * c->frame). For tests and for senders without live frames. */
void xl_gen_desc_apply(const struct xl_gen_class *c,
		       const struct xl_gen_desc *d, __u8 *frame);

/* Frame bytes of a packet with this payload (Ethernet header to ICRC). */
__u32 xl_gen_frame_len(bool ipv6, bool reth, __u32 payload);

/* Any RoCEv2 frame of len bytes (Ethernet header to ICRC), as gen's
 * templates and sink's ACKs are built. xl_gen_put_headers writes the
 * Ethernet, IP and UDP headers from fs (IPv4: id 0, DF, header checksum;
 * UDP: destination port 4791, source port and checksum 0) and returns the
 * BTH's offset; once every other byte is written, xl_gen_seal computes the
 * ICRC and, for IPv6, the UDP checksum. */
__u32 xl_gen_put_headers(__u8 *f, const struct xl_gen_flowspec *fs, __u32 len);
void xl_gen_seal(__u8 *f, __u32 len, bool ipv6);

#endif
