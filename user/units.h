/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Parsers for numbers with units. Each returns 0, or -1 with a one-line
 * reason in err (without file or line: the caller adds where). */
#ifndef XL_UNITS_H
#define XL_UNITS_H

#include <stddef.h>
#include <linux/types.h>

#define XL_MAX_BYTES (256U << 20) /* largest buffer, kmin or kmax */

/* bit/s, SI suffixes K M G T (powers of 1000), 1M..1600G. */
int xl_parse_rate(const char *v, __u64 *out, char *err, size_t errlen);
/* 0 < gamma <= 1, in millionths. */
int xl_parse_gamma(const char *v, __u32 *out, char *err, size_t errlen);
/* bytes, K M = powers of 1024, lo..256M; what names the value in errors. */
int xl_parse_bytes(const char *what, const char *v, __u32 lo,
		   const char *lo_str, __u32 *out, char *err, size_t errlen);
/* a fraction 0..1 or a percentage, in 2^-32 units. */
int xl_parse_pmax(const char *v, __u32 *out, char *err, size_t errlen);

#endif
