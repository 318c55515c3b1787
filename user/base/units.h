/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Parsers for numbers with units. Each returns 0, or -1 with a one-line
 * reason in err (without file or line: the caller adds where). */
#ifndef XL_UNITS_H
#define XL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define XL_MAX_BYTES (256U << 20) /* largest buffer, kmin, kmax or DCQCN b */

/* bit/s, SI suffixes K M G T (powers of 1000), 1M..1600G. */
int xl_parse_rate(const char *v, __u64 *out, char *err, size_t errlen);
/* 0 < gamma <= 1, in millionths; what names the value in errors. */
int xl_parse_gamma(const char *what, const char *v, __u32 *out, char *err, size_t errlen);
/* bytes, K M = powers of 1024, lo..256M; what names the value in errors. */
int xl_parse_bytes(const char *what, const char *v, __u32 lo,
		   const char *lo_str, __u32 *out, char *err, size_t errlen);
/* a fraction 0..1 or a percentage, in 2^-32 units. */
int xl_parse_pmax(const char *v, __u32 *out, char *err, size_t errlen);
/* a count such as table entries: whole number, K M = powers of 1024,
 * lo..hi; what names the value in errors. */
int xl_parse_count(const char *what, const char *v, __u32 lo, __u32 hi,
		   __u32 *out, char *err, size_t errlen);
/* a duration: a number (at most 9 decimals) and a unit ns, us, ms or s
 * written right after it (required), e.g. 100us, 2.5ms; lo_ns..hi_ns, in
 * ns; the result must be a whole number of ns. */
int xl_parse_duration(const char *v, __u64 lo_ns, __u64 hi_ns, __u64 *out_ns,
		      char *err, size_t errlen);
/* a plain whole number lo..hi (digits only: no sign, no suffix); what
 * names the value in errors. */
int xl_parse_uint(const char *what, const char *v, __u32 lo, __u32 hi,
		  __u32 *out, char *err, size_t errlen);
/* DCQCN's byte counter B (config key `b`, `sim dcqcn --set b=`): a plain
 * whole number of bytes, 0..XL_MAX_BYTES; K and M are refused (they are
 * powers of 1024 in buffer sizes; the specification's 10 MB is 10^7). */
int xl_parse_dcqcn_b(const char *v, __u32 *out, char *err, size_t errlen);
/* a fraction N/D (whole numbers up to 4294967295, e.g. 1/256) or a
 * decimal 0..1 with at most 9 decimals (e.g. 0.0039), as Q32:
 * round(value * 2^32), halves up; exact for N/2^k. The value must be > 0,
 * and < 1 (one_ok false) or <= 1 (one_ok true). what names the value. */
int xl_parse_q32(const char *what, const char *v, bool one_ok, __u64 *out,
		 char *err, size_t errlen);

/* The inverse, for showing a value in the syntax it is written in:
 * 4000 -> "4us" (the largest unit that divides it), 2500000000 -> "2.5G". */
void xl_fmt_duration(char *buf, size_t len, __u64 ns);
void xl_fmt_rate(char *buf, size_t len, __u64 bps);

#endif
