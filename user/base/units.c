// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Numbers with units, as written in the config file and on the command
 * line (`xdpleaf sim`): rates, byte sizes, fractions, counts, durations. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "base/units.h"

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Numbers: "DIGITS[.DIGITS]", no sign, no spaces, no exponent. The value is
 * mant / 10^ndec, exact. A mantissa too long for 64 bits sets huge: with
 * at most 6 decimals it is then above 1.8e12, out of range for every key. */
struct dec {
	__u64 mant;
	int ndec;
	bool huge;
};

#define MAX_DECIMALS 6

/* Returns where the number ends (a unit may follow), or NULL if s does not
 * start with one. */
static const char *parse_dec(const char *s, struct dec *d)
{
	bool frac = false;

	*d = (struct dec){ 0 };
	if (!isdigit((unsigned char)*s))
		return NULL;
	for (;; s++) {
		if (*s == '.' && !frac && isdigit((unsigned char)s[1])) {
			frac = true;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return s;
		if (d->mant > (~0ULL - 9) / 10)
			d->huge = true;
		else
			d->mant = d->mant * 10 + (*s - '0');
		d->ndec += frac;
	}
}

static __u64 pow10u(int n)
{
	__u64 r = 1;

	while (n-- > 0)
		r *= 10;
	return r;
}

/* rate: bit/s, SI suffixes (powers of 1000). */
int xl_parse_rate(const char *v, __u64 *out, char *err, size_t errlen)
{
	static const char units[] = "KMGT";
	const __u64 lo = 1000000ULL, hi = 1600000000000ULL;
	const char *e, *u;
	struct dec d;
	int exp = 0;
	__u64 r, p;

	e = parse_dec(v, &d);
	if (e && *e && (u = strchr(units, *e))) {
		exp = 3 * (int)(u - units + 1);
		e++;
	}
	if (!e || *e || d.ndec > MAX_DECIMALS)
		return fail(err, errlen,
			    "invalid rate '%s' (bit/s: a number with at most %d decimals and an optional "
			    "K, M, G or T for 10^3, 10^6, 10^9, 10^12, e.g. 400M or 2.5G)",
			    v, MAX_DECIMALS);
	exp -= d.ndec;
	p = pow10u(exp < 0 ? -exp : exp);
	if (exp < 0)
		r = d.mant / p;
	else
		r = d.mant > hi / p ? hi + 1 : d.mant * p;
	if (d.huge || r < lo || r > hi)
		return fail(err, errlen, "rate '%s' out of range (1M..1600G bit/s)", v);
	if (exp < 0 && d.mant % p)
		return fail(err, errlen, "rate '%s' is not a whole number of bit/s", v);
	*out = r;
	return 0;
}

/* gamma: 0 < gamma <= 1, in millionths. */
int xl_parse_gamma(const char *what, const char *v, __u32 *out, char *err, size_t errlen)
{
	const char *e;
	struct dec d;

	e = parse_dec(v, &d);
	if (!e || *e || d.ndec > MAX_DECIMALS)
		return fail(err, errlen,
			    "invalid %s '%s' (a number with at most %d decimals, e.g. 0.95)",
			    what, v, MAX_DECIMALS);
	if (d.huge || !d.mant || d.mant > pow10u(d.ndec))
		return fail(err, errlen, "%s '%s' out of range (0 < %s <= 1)", what, v, what);
	*out = (__u32)(d.mant * pow10u(MAX_DECIMALS - d.ndec));
	return 0;
}

/* A decimal with an optional K (2^10) or M (2^20) right after it: where
 * parsing stopped (NULL if no number), and the suffix as a shift. */
static const char *parse_dec_km(const char *v, struct dec *d, int *shift)
{
	const char *e = parse_dec(v, d);

	*shift = 0;
	if (e && (*e == 'K' || *e == 'M')) {
		*shift = *e == 'K' ? 10 : 20;
		e++;
	}
	return e;
}

/* buffer, kmin, kmax: bytes, K and M are powers of 1024. */
int xl_parse_bytes(const char *what, const char *v, __u32 lo,
		   const char *lo_str, __u32 *out, char *err, size_t errlen)
{
	struct dec d;
	int shift;
	const char *e = parse_dec_km(v, &d, &shift);

	if (!e || *e || d.ndec)
		return fail(err, errlen,
			    "invalid %s '%s' (bytes: a whole number with an optional K = 1024 "
			    "or M = 1048576, e.g. 200K)", what, v);
	if (d.huge || d.mant > XL_MAX_BYTES >> shift || d.mant << shift < lo)
		return fail(err, errlen, "%s '%s' out of range (%s..256M bytes)",
			    what, v, lo_str);
	*out = (__u32)(d.mant << shift);
	return 0;
}

/* pmax: a fraction 0..1 or a percentage 0%..100%, in 2^-32 units. */
int xl_parse_pmax(const char *v, __u32 *out, char *err, size_t errlen)
{
	const char *e;
	struct dec d;
	bool pct;
	__u64 den, p;

	e = parse_dec(v, &d);
	pct = e && *e == '%';
	if (pct)
		e++;
	if (!e || *e || d.ndec > MAX_DECIMALS)
		return fail(err, errlen,
			    "invalid pmax '%s' (a fraction 0..1 such as 0.01, or a percentage "
			    "such as 1%%; at most %d decimals)", v, MAX_DECIMALS);
	den = pow10u(d.ndec) * (pct ? 100 : 1);
	if (d.huge || d.mant > den)
		return fail(err, errlen, "pmax '%s' out of range (0..1, or 0%%..100%%)", v);
	/* mant <= den <= 10^8: no overflow. round(mant / den * 2^32) */
	p = ((d.mant << 32) + den / 2) / den;
	*out = p > 0xFFFFFFFFULL ? 0xFFFFFFFFU : (__u32)p;
	return 0;
}

/* "1024" -> "1K": the largest power-of-1024 suffix that divides n. */
static void fmt_count(char *buf, size_t len, __u32 n)
{
	if (n && !(n % (1U << 20)))
		snprintf(buf, len, "%uM", n >> 20);
	else if (n && !(n % (1U << 10)))
		snprintf(buf, len, "%uK", n >> 10);
	else
		snprintf(buf, len, "%u", n);
}

/* A count (table entries): a whole number, K and M are powers of 1024. */
int xl_parse_count(const char *what, const char *v, __u32 lo, __u32 hi,
		   __u32 *out, char *err, size_t errlen)
{
	char los[16], his[16];
	struct dec d;
	int shift;
	const char *e = parse_dec_km(v, &d, &shift);

	if (!e || *e || d.ndec)
		return fail(err, errlen,
			    "invalid %s '%s' (a whole number with an optional K = 1024 "
			    "or M = 1048576, e.g. 64K)", what, v);
	if (d.huge || d.mant > hi >> shift || d.mant << shift < lo) {
		fmt_count(los, sizeof(los), lo);
		fmt_count(his, sizeof(his), hi);
		return fail(err, errlen, "%s '%s' out of range (%s..%s)", what, v, los, his);
	}
	*out = (__u32)(d.mant << shift);
	return 0;
}

static const struct {
	const char *name;
	__u64 ns;
} time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
};

#define N_TIME_UNITS (sizeof(time_units) / sizeof(time_units[0]))
#define MAX_TIME_DECIMALS 9 /* 0.000000001s = 1ns */

/* ns -> "100us": the largest unit that divides it. */
void xl_fmt_duration(char *buf, size_t len, __u64 ns)
{
	size_t i = N_TIME_UNITS - 1;

	while (i && (!ns || ns % time_units[i].ns))
		i--;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / time_units[i].ns),
		 time_units[i].name);
}

/* Durations: "DIGITS[.DIGITS]UNIT", unit ns, us, ms or s, nothing between
 * number and unit. Parsed exactly (integer and fraction apart), so the
 * range may be anything up to 2^64-1 ns. */
int xl_parse_duration(const char *v, __u64 lo_ns, __u64 hi_ns, __u64 *out_ns,
		      char *err, size_t errlen)
{
	const char *s = v;
	__u64 ip = 0, fp = 0, scale = 1, unit = 0, frac, ns = 0;
	char los[32], his[32];
	bool over = false;
	int ndec = 0;
	size_t i;

	if (!isdigit((unsigned char)*s))
		goto syntax;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int dig = *s - '0';

		if (over || ip > (~0ULL - dig) / 10)
			over = true; /* saturates: out of range below */
		else
			ip = ip * 10 + dig;
	}
	if (*s == '.' && isdigit((unsigned char)s[1])) {
		for (s++; isdigit((unsigned char)*s); s++) {
			if (++ndec > MAX_TIME_DECIMALS)
				goto syntax;
			fp = fp * 10 + (*s - '0');
			scale *= 10;
		}
	}
	if (!*s)
		return fail(err, errlen,
			    "duration '%s' has no unit (write ns, us, ms or s right after "
			    "the number, e.g. 100us)", v);
	for (i = 0; i < N_TIME_UNITS; i++)
		if (!strcmp(s, time_units[i].name))
			unit = time_units[i].ns;
	if (!unit)
		goto syntax;
	/* fp < 10^9 and unit <= 10^9: fp * unit fits. */
	frac = fp * unit / scale;
	if (!over && ip <= (~0ULL - frac) / unit)
		ns = ip * unit + frac;
	else
		over = true;
	if (over || ns < lo_ns || ns > hi_ns) {
		xl_fmt_duration(los, sizeof(los), lo_ns);
		xl_fmt_duration(his, sizeof(his), hi_ns);
		return fail(err, errlen, "duration '%s' out of range (%s..%s)", v, los, his);
	}
	if (fp * unit % scale)
		return fail(err, errlen, "duration '%s' is not a whole number of nanoseconds", v);
	*out_ns = ns;
	return 0;
syntax:
	return fail(err, errlen,
		    "invalid duration '%s' (a number with at most %d decimals followed "
		    "directly by ns, us, ms or s, e.g. 100us or 2.5ms)", v, MAX_TIME_DECIMALS);
}

/* A plain whole number (DSCPs, thresholds): digits only. */
int xl_parse_uint(const char *what, const char *v, __u32 lo, __u32 hi,
		  __u32 *out, char *err, size_t errlen)
{
	size_t n = strspn(v, "0123456789"), i;
	__u64 x = 0;

	if (!n || v[n])
		return fail(err, errlen, "invalid %s '%s' (a whole number %u-%u)", what, v,
			    lo, hi);
	for (i = 0; i < n; i++) /* saturates above hi: no overflow */
		x = x > hi ? x : x * 10 + (__u64)(v[i] - '0');
	if (x < lo || x > hi)
		return fail(err, errlen, "%s '%s' out of range (%u-%u)", what, v, lo, hi);
	*out = (__u32)x;
	return 0;
}

/* DCQCN's byte counter B: plain digits only. The specification's sizes are
 * decimal (B = "10 MB" = 10^7 bytes) while K and M of buffer sizes are
 * powers of 1024 here, so `10M` would silently be 4.9 % more than the
 * paper's B: a suffix is refused, with the value to write instead. */
int xl_parse_dcqcn_b(const char *v, __u32 *out, char *err, size_t errlen)
{
	size_t n = strspn(v, "0123456789");
	__u32 x;

	if (!n || v[n])
		return fail(err, errlen,
			    "invalid b '%s' (bytes: a plain whole number, no K or M; "
			    "the paper's 10 MB is 10000000)", v);
	if (xl_parse_uint("b", v, 0, XL_MAX_BYTES, &x, NULL, 0))
		return fail(err, errlen, "b '%s' out of range (0..%u bytes)", v,
			    XL_MAX_BYTES);
	*out = x;
	return 0;
}

#define Q32_MAX_DECIMALS 9
#define Q32_MAX_TERM 0xFFFFFFFFULL /* numerator and denominator of N/D */

/* A whole number up to Q32_MAX_TERM, or -1 (not digits, or too large:
 * *big says which). */
static long long q32_term(const char *s, size_t n, bool *big)
{
	__u64 x = 0;
	size_t i;

	if (!n || strspn(s, "0123456789") < n)
		return -1;
	for (i = 0; i < n; i++) {
		x = x * 10 + (__u64)(s[i] - '0');
		if (x > Q32_MAX_TERM) {
			*big = true;
			return -1;
		}
	}
	return (long long)x;
}

/* Gains and starting values of DCQCN's alpha: fractions in Q32. The exact
 * value num/den is compared with 0 and 1 before rounding. */
int xl_parse_q32(const char *what, const char *v, bool one_ok, __u64 *out,
		 char *err, size_t errlen)
{
	const char *slash = strchr(v, '/'), *e;
	__u64 num, den;
	bool big = false;
	struct dec d;

	if (slash) {
		long long a = q32_term(v, (size_t)(slash - v), &big);
		long long b = q32_term(slash + 1, strlen(slash + 1), &big);

		if (big)
			return fail(err, errlen,
				    "invalid %s '%s' (numerator and denominator at most %llu)",
				    what, v, (unsigned long long)Q32_MAX_TERM);
		if (a < 0 || b < 0)
			goto syntax;
		if (!b)
			return fail(err, errlen, "invalid %s '%s' (zero denominator)", what, v);
		num = (__u64)a;
		den = (__u64)b;
	} else {
		e = parse_dec(v, &d);
		if (!e || *e || d.ndec > Q32_MAX_DECIMALS)
			goto syntax;
		den = pow10u(d.ndec);
		/* above 1 (huge: above 1.8e19 / 10^9): out of range below */
		num = d.huge || d.mant > den ? den + 1 : d.mant;
	}
	if (!num || num > den || (num == den && !one_ok))
		return fail(err, errlen, "%s '%s' out of range (0 < %s %s 1)", what, v, what,
			    one_ok ? "<=" : "<");
	/* num <= den < 2^32 (decimals: den <= 10^9): no overflow. */
	*out = ((num << 32) + den / 2) / den;
	return 0;
syntax:
	return fail(err, errlen,
		    "invalid %s '%s' (a fraction such as 1/256, or a decimal 0..1 with at "
		    "most %d decimals such as 0.0039)", what, v, Q32_MAX_DECIMALS);
}

/* A rate as one writes it: 100000000 -> "100M", 2500000000 -> "2.5G", in
 * the largest unit it reaches (rates below 1K: plain). */
void xl_fmt_rate(char *buf, size_t len, __u64 bps)
{
	static const char units[] = "KMGT";
	__u64 unit = 1000000000000ULL, frac;
	int i = 3, digits = 12;

	while (i >= 0 && bps < unit) {
		unit /= 1000;
		digits -= 3;
		i--;
	}
	if (i < 0) {
		snprintf(buf, len, "%llu", (unsigned long long)bps);
		return;
	}
	frac = bps % unit;
	while (frac && !(frac % 10)) {
		frac /= 10;
		digits--;
	}
	if (frac)
		snprintf(buf, len, "%llu.%0*llu%c", (unsigned long long)(bps / unit), digits,
			 (unsigned long long)frac, units[i]);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)(bps / unit), units[i]);
}
