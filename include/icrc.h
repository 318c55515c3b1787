/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The RoCEv2 invariant CRC (ICRC), the 4-byte trailer after the payload of
 * every RoCEv2 packet (IBTA Vol. 1 Annex A17, "RoCEv2"). Pure C without
 * tables or library calls, so the BPF programs (a CNP built in XDP, for
 * DCQCN) and user space (`xdpleaf gen`, tests) share one definition.
 *
 * The ICRC is CRC-32 as in Ethernet (polynomial 0x04C11DB7, bit-reflected,
 * initial value ~0, result complemented) over:
 *   1. 8 bytes of 0xFF, standing in for the InfiniBand LRH that RoCEv2 does
 *      not carry;
 *   2. the IP header with the fields routers may change set to all ones:
 *      IPv4 type of service (DSCP + ECN), TTL and header checksum; IPv6
 *      traffic class, flow label and hop limit;
 *   3. the UDP header with its checksum set to all ones;
 *   4. the BTH with its byte 4 (FECN, BECN, 6 reserved bits) set to all
 *      ones;
 *   5. everything after the BTH up to the ICRC: extension headers (RETH,
 *      ...), payload, pad bytes.
 * It goes on the wire least significant byte first (like the Ethernet FCS):
 * xl_icrc_put().
 *
 * So a switch that rewrites DSCP/ECN/TTL or marks FECN keeps the ICRC valid,
 * and so does the leaf's CE marking. */
#ifndef XL_ICRC_H
#define XL_ICRC_H

/* Longest L3-to-end span xl_icrc() accepts: a 9000-byte jumbo frame. The
 * bound also lets the BPF verifier see that the loops end; a BPF program
 * may define a smaller one before including this file. */
#ifndef XL_ICRC_MAX_LEN
#define XL_ICRC_MAX_LEN 9216U
#endif

/* CRC-32 of each 4-bit value: the byte step below takes two lookups.
 * Table-driven on purpose: BPF has no conditional move, so the bitwise
 * form's "xor the polynomial if the low bit is set" may compile to a
 * branch per bit, and the verifier would then walk 2^8 paths per byte. */
static const __u32 xl_crc32_nibble[16] = {
	0x00000000U, 0x1db71064U, 0x3b6e20c8U, 0x26d930acU,
	0x76dc4190U, 0x6b6b51f4U, 0x4db26158U, 0x5005713cU,
	0xedb88320U, 0xf00f9344U, 0xd6d6a3e8U, 0xcb61b38cU,
	0x9b64c2b0U, 0x86d3d2d4U, 0xa00ae278U, 0xbdbdf21cU,
};

/* One byte into a running (not yet complemented) CRC-32. */
static inline __u32 xl_crc32_byte(__u32 crc, __u8 b)
{
	crc = (crc >> 4) ^ xl_crc32_nibble[(crc ^ b) & 15];
	return (crc >> 4) ^ xl_crc32_nibble[(crc ^ (b >> 4)) & 15];
}

/* CRC-32 state after the 8 bytes of 0xFF that stand in for the LRH
 * (tests/unit/test_icrc.c checks it against xl_crc32_byte). */
#define XL_ICRC_SEED 0xdebb20e3U

/* n plain bytes into a running CRC. */
static inline __u32 xl_crc32_span(__u32 crc, const __u8 *p, __u32 n)
{
	__u32 i;

	for (i = 0; i < n && i < XL_ICRC_MAX_LEN; i++)
		crc = xl_crc32_byte(crc, p[i]);
	return crc;
}

/* ICRC of a RoCEv2 packet: l3 points at the IP header, len counts the bytes
 * from there up to (not including) the ICRC, l4_off is the UDP header's
 * offset from l3 (IHL * 4 for IPv4, 40 for IPv6). Returns the CRC value;
 * the wire format is xl_icrc_put(). The caller guarantees that len bytes
 * are readable, that they hold the IP, UDP and BTH headers, and that len
 * does not exceed XL_ICRC_MAX_LEN.
 *
 * The variant fields are fed as ones field by field rather than by a
 * per-byte mask: the loops then have no data-dependent branches, which
 * keeps the BPF verifier's work linear in len. */
static inline __u32 xl_icrc(const __u8 *l3, __u32 len, __u32 l4_off, int ipv6)
{
	const __u8 *udp = l3 + l4_off;
	__u32 crc = XL_ICRC_SEED;

	if (ipv6) {
		crc = xl_crc32_byte(crc, l3[0] | 0x0f); /* version, TC high */
		crc = xl_crc32_byte(crc, 0xff);         /* TC low, flow label */
		crc = xl_crc32_byte(crc, 0xff);
		crc = xl_crc32_byte(crc, 0xff);
		crc = xl_crc32_span(crc, l3 + 4, 3);    /* length, next header */
		crc = xl_crc32_byte(crc, 0xff);         /* hop limit */
		crc = xl_crc32_span(crc, l3 + 8, 32);   /* addresses */
	} else {
		crc = xl_crc32_byte(crc, l3[0]);
		crc = xl_crc32_byte(crc, 0xff);         /* DSCP, ECN */
		crc = xl_crc32_span(crc, l3 + 2, 6);    /* length, id, fragment */
		crc = xl_crc32_byte(crc, 0xff);         /* TTL */
		crc = xl_crc32_byte(crc, l3[9]);        /* protocol */
		crc = xl_crc32_byte(crc, 0xff);         /* header checksum */
		crc = xl_crc32_byte(crc, 0xff);
		crc = xl_crc32_span(crc, l3 + 12, l4_off - 12); /* addresses, options */
	}
	crc = xl_crc32_span(crc, udp, 6);               /* ports, length */
	crc = xl_crc32_byte(crc, 0xff);                 /* UDP checksum */
	crc = xl_crc32_byte(crc, 0xff);
	crc = xl_crc32_span(crc, udp + 8, 4);           /* BTH bytes 0-3 */
	crc = xl_crc32_byte(crc, 0xff);                 /* FECN, BECN, resv6 */
	crc = xl_crc32_span(crc, udp + 13, len - l4_off - 13);
	return ~crc;
}

/* The ICRC as its four bytes on the wire (least significant first). */
static inline void xl_icrc_put(__u8 *p, __u32 icrc)
{
	p[0] = icrc & 0xff;
	p[1] = (icrc >> 8) & 0xff;
	p[2] = (icrc >> 16) & 0xff;
	p[3] = icrc >> 24;
}

static inline __u32 xl_icrc_get(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

#endif /* XL_ICRC_H */
