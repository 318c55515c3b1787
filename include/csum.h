/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Internet checksum helpers used by the dataplane and checked against a full
 * recomputation by the unit tests. Pure C: compiles for BPF and user space. */
#ifndef XL_CSUM_H
#define XL_CSUM_H

/* Fold a 32-bit one's-complement sum into 16 bits. */
static inline __u16 xl_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/* New IPv4 header checksum after one 16-bit header word changes from
 * old_word to new_word (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')). Works on
 * the raw (network order) values; a checksum that was wrong stays wrong, so
 * the next hop still detects corruption that happened before us. */
static inline __u16 xl_csum_replace16(__u16 check, __u16 old_word,
				      __u16 new_word)
{
	__u32 sum = (__u16)~check;

	sum += (__u16)~old_word;
	sum += new_word;
	return (__u16)~xl_csum_fold(sum);
}

/* Full header checksum over len bytes (len even), for tests and for
 * packets the dataplane builds itself. */
static inline __u16 xl_csum_full(const void *data, int len)
{
	const __u8 *p = (const __u8 *)data;
	__u32 sum = 0;
	int i;

	/* Native-order 16-bit loads: one's-complement sums are byte-order
	 * independent, and the result is stored back the same way. */
	for (i = 0; i + 1 < len; i += 2) {
		__u16 w;

		__builtin_memcpy(&w, p + i, 2);
		sum += w;
	}
	return (__u16)~xl_csum_fold(sum);
}

#endif /* XL_CSUM_H */
