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

#define XL_CRC32_POLY_REFLECTED 0xEDB88320U
/* Longest L3-to-end span xl_icrc() accepts: a 9000-byte jumbo frame. The
 * bound also lets the BPF verifier see that the loop ends. */
#define XL_ICRC_MAX_LEN 9216U

/* One byte into a running (not yet complemented) CRC-32. */
static inline __u32 xl_crc32_byte(__u32 crc, __u8 b)
{
	int k;

	crc ^= b;
#ifdef __clang__
#pragma unroll
#endif
	for (k = 0; k < 8; k++)
		crc = (crc >> 1) ^ (XL_CRC32_POLY_REFLECTED & (0U - (crc & 1)));
	return crc;
}

/* What the ICRC sees at offset i from the start of the IP header: the byte
 * itself, or all ones where the field is variant. l4_off is the UDP header's
 * offset from the IP header (IHL * 4 for IPv4, 40 for IPv6). */
static inline __u8 xl_icrc_masked(const __u8 *l3, __u32 i, __u32 l4_off,
				  int ipv6)
{
	__u8 b = l3[i];

	if (i < l4_off) {
		if (!ipv6)
			return (i == 1 || i == 8 || i == 10 || i == 11) ? 0xff : b;
		if (i == 0)
			return b | 0x0f;       /* low nibble: top of traffic class */
		if (i <= 3 || i == 7)
			return 0xff;           /* traffic class, flow label, hop limit */
		return b;
	}
	i -= l4_off;
	if (i == 6 || i == 7 || i == 8 + 4)    /* UDP checksum, BTH byte 4 */
		return 0xff;
	return b;
}

/* ICRC of a RoCEv2 packet: l3 points at the IP header, len counts the bytes
 * from there up to (not including) the ICRC. Returns the CRC value; the
 * wire format is xl_icrc_put(). len must not exceed XL_ICRC_MAX_LEN; the
 * caller guarantees len bytes are readable and that they hold at least the
 * IP, UDP and BTH headers. */
static inline __u32 xl_icrc(const __u8 *l3, __u32 len, __u32 l4_off, int ipv6)
{
	__u32 crc = 0xffffffffU;
	__u32 i;

	for (i = 0; i < 8; i++)
		crc = xl_crc32_byte(crc, 0xff);
	for (i = 0; i < len && i < XL_ICRC_MAX_LEN; i++)
		crc = xl_crc32_byte(crc, xl_icrc_masked(l3, i, l4_off, ipv6));
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
