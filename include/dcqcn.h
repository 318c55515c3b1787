/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* DCQCN's reaction point (the sender's rate state machine), both variants
 * exactly as docs/dcqcn-spec.md specifies them, as pure C over integers:
 * the BPF program, the unit tests and `xdpleaf sim dcqcn` run this code.
 *
 * Timers are evaluated lazily: before an event at time t, every timer due
 * at or before t fires, earliest first (a timer and an event on the same
 * nanosecond: the timer first). Timers due at the same nanosecond fire in
 * the order alpha, decrease, increase (a decrease that restarts the
 * increase timer thus cancels an increase due at the same instant).
 *
 * Fixed point: alpha and g are Q32 (1.0 = 2^32); rates are integer bit/s,
 * truncated as the specification says. Each alpha update truncates by less
 * than 2^-32, far inside the 0.1 % the rates must stay within. */
#ifndef XL_DCQCN_H
#define XL_DCQCN_H

#define XL_Q32_ONE (1ULL << 32)
#define XL_DCQCN_OFF 0ULL /* a timer that is not running */
#define XL_DCQCN_TCNT_MAX (1U << 30) /* counters saturate: only < F, == F, > F matter */
/* paper: the byte counter B, "10 MB" = 10,000,000 bytes. Decimal, as every
 * size in the specification and the paper authors' models; 10 * 2^20
 * would be 4.9 % more and move every byte-counter event. */
#define XL_DCQCN_PAPER_B 10000000ULL

enum xl_dcqcn_variant {
	XL_DCQCN_PAPER = 0,
	XL_DCQCN_NVIDIA = 1,
};

enum xl_dcqcn_phase {
	XL_PHASE_FR = 0,  /* fast recovery */
	XL_PHASE_AI = 1,  /* additive increase */
	XL_PHASE_HAI = 2, /* hyper increase */
};

struct xl_dcqcn_params {
	__u32 variant;       /* enum xl_dcqcn_variant */
	__u32 clamp;         /* paper: Rt <- Rc on every cut */
	__u32 f;             /* fast-recovery threshold F */
	__u32 pad;
	__u64 line_rate;     /* C, bit/s */
	__u64 g;             /* Q32 */
	__u64 alpha_first;   /* nvidia: alpha on the first CNP, Q32 */
	__u64 k_ns;          /* alpha timer */
	__u64 t_ns;          /* increase timer */
	__u64 t_dec_ns;      /* nvidia: decrease sampler */
	__u64 b_bytes;       /* paper: byte counter (0: none) */
	__u64 r_ai, r_hai;   /* bit/s */
	__u64 min_rate;      /* bit/s */
};

struct xl_dcqcn_state {
	__u64 rc, rt;        /* current and target rate, bit/s */
	__u64 alpha;         /* Q32 */
	__u64 alpha_due;     /* next expiry (ns), XL_DCQCN_OFF if not running */
	__u64 inc_due;
	__u64 dec_due;       /* nvidia */
	__s64 bytes_left;    /* paper byte counter */
	__u32 b_cnt, t_cnt;
	__u8 phase;          /* enum xl_dcqcn_phase */
	__u8 cnp_seen;
	__u8 alpha_cnp;      /* nvidia: a CNP in this alpha window */
	__u8 dec_cnp;        /* nvidia: a CNP since the last sample */
	__u32 pad;
};

/* Defaults of docs/dcqcn-spec.md for line rate c. */
static inline void xl_dcqcn_defaults(struct xl_dcqcn_params *p, __u32 variant,
				     __u64 c)
{
	__builtin_memset(p, 0, sizeof(*p));
	p->variant = variant;
	p->line_rate = c;
	if (variant == XL_DCQCN_NVIDIA) {
		p->g = 5ULL << 22;                    /* 5/1024 */
		p->alpha_first = 1023ULL << 22;       /* 1023/1024 */
		p->k_ns = 1000;
		p->t_dec_ns = 4000;
		p->t_ns = 300000;
		p->f = 1;
		p->r_ai = 5000000;
		p->r_hai = 50000000;
		p->min_rate = 1000000;
	} else {
		p->clamp = 1;
		p->g = 1ULL << 24;                    /* 1/256 */
		p->k_ns = 55000;
		p->t_ns = 55000;
		p->b_bytes = XL_DCQCN_PAPER_B;        /* 10 MB = 10^7 bytes */
		p->f = 5;
		p->r_ai = 40000000;
		p->r_hai = 200000000;
		p->min_rate = 100000000;
	}
}

static inline void xl_dcqcn_init(struct xl_dcqcn_state *s,
				 const struct xl_dcqcn_params *p)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->rc = p->line_rate;
	s->rt = p->line_rate;
	s->alpha = XL_Q32_ONE;
	s->bytes_left = (__s64)p->b_bytes;
}

/* alpha <- (1 - g) alpha + g, and alpha <- (1 - g) alpha, in Q32. */
static inline __u64 xl_alpha_raise(__u64 a, __u64 g)
{
	if (g >= XL_Q32_ONE) /* (1 - a) * g would not fit 64 bits */
		return XL_Q32_ONE;
	return a + (((XL_Q32_ONE - a) * g) >> 32);
}

static inline __u64 xl_alpha_decay(__u64 a, __u64 g)
{
	if (g >= XL_Q32_ONE)
		return 0;
	return a - ((a * g) >> 32);
}

/* trunc(rc * (1 - alpha/2)), exactly: rc - ceil(rc * alpha / 2^33), with
 * the 73-bit product split so no step overflows 64 bits. */
static inline __u64 xl_rate_cut(__u64 rc, __u64 alpha)
{
	__u64 hi = rc * (alpha >> 16);    /* < 2^41 * 2^17 */
	__u64 lo = rc * (alpha & 0xffff); /* < 2^41 * 2^16 */
	/* rc * alpha = hi * 2^16 + lo; its ceiling over 2^33: */
	__u64 q = hi >> 17;
	__u64 r = ((hi & 0x1ffff) << 16) + lo;
	__u64 cut = q + (r >> 33) + ((r & ((1ULL << 33) - 1)) ? 1 : 0);

	return cut >= rc ? 0 : rc - cut;
}

static inline __u64 xl_max64(__u64 a, __u64 b) { return a > b ? a : b; }
static inline __u64 xl_min64(__u64 a, __u64 b) { return a < b ? a : b; }

/* ---- variant paper ------------------------------------------------------ */

/* The paper variant's Rt has no cap (docs/dcqcn-spec.md): in hyper
 * increase it grows with the square of the increase timer's expiries, and
 * a flow that sees no CNP for about 48 s at 100 Gbit/s (default
 * parameters) would wrap 64 bits and fall from C. Rt and the increments
 * saturate at XL_DCQCN_RT_MAX instead: 2^62 bit/s, past any link, and
 * Rc/2 + Rt/2 cannot overflow. Below it nothing changes. */
#define XL_DCQCN_RT_MAX (1ULL << 62)

static inline __u64 xl_rt_add(__u64 rt, __u64 inc)
{
	return rt >= XL_DCQCN_RT_MAX || inc >= XL_DCQCN_RT_MAX - rt ?
		       XL_DCQCN_RT_MAX : rt + inc;
}

static inline void paper_adjust(struct xl_dcqcn_state *s,
				const struct xl_dcqcn_params *p, __u64 inc)
{
	if ((s->b_cnt == 1 || s->t_cnt == 1) && s->rt > 10 * s->rc)
		s->rt = s->rt / 8;
	else
		s->rt = xl_rt_add(s->rt, inc);
	s->rc = s->rc / 2 + s->rt / 2;
	s->rc = xl_min64(s->rc, p->line_rate);
}

static inline void paper_fast_recovery(struct xl_dcqcn_state *s,
				       const struct xl_dcqcn_params *p)
{
	s->phase = XL_PHASE_FR;
	paper_adjust(s, p, 0);
}

static inline void paper_additive(struct xl_dcqcn_state *s,
				  const struct xl_dcqcn_params *p)
{
	s->phase = XL_PHASE_AI;
	paper_adjust(s, p, p->r_ai);
}

static inline void paper_hyper(struct xl_dcqcn_state *s,
			       const struct xl_dcqcn_params *p)
{
	__u32 m = s->b_cnt < s->t_cnt ? s->b_cnt : s->t_cnt;
	/* both counters are >= F in this phase; guard anyway */
	__u64 k = m >= p->f ? m - p->f + 1 : 1;

	s->phase = XL_PHASE_HAI;

	paper_adjust(s, p, p->r_hai > XL_DCQCN_RT_MAX / k ? XL_DCQCN_RT_MAX :
							  p->r_hai * k);
}

static inline void paper_select(struct xl_dcqcn_state *s,
				const struct xl_dcqcn_params *p)
{
	if (s->b_cnt < p->f || s->t_cnt < p->f)
		paper_additive(s, p);
	else
		paper_hyper(s, p);
}

static inline void count_up(__u32 *c)
{
	if (*c < XL_DCQCN_TCNT_MAX)
		(*c)++;
}

static inline void paper_cnp(struct xl_dcqcn_state *s,
			     const struct xl_dcqcn_params *p, __u64 now)
{
	if (p->clamp) {
		s->rt = s->rc;
		s->bytes_left = (__s64)p->b_bytes;
	}
	s->b_cnt = 0;
	s->t_cnt = 0;
	s->alpha = xl_alpha_raise(s->alpha, p->g);
	s->rc = xl_max64(p->min_rate, xl_rate_cut(s->rc, s->alpha));
	s->alpha_due = now + p->k_ns;
	s->inc_due = now + p->t_ns;
	s->phase = XL_PHASE_FR;
	s->cnp_seen = 1;
}

static inline void paper_sent(struct xl_dcqcn_state *s,
			      const struct xl_dcqcn_params *p, __u64 bytes)
{
	if (!p->b_bytes)
		return;
	if (!s->cnp_seen) {
		s->bytes_left = (__s64)p->b_bytes;
		return;
	}
	s->bytes_left -= (__s64)bytes;
	if (s->bytes_left >= 0)
		return;
	count_up(&s->b_cnt);
	if (s->phase == XL_PHASE_FR) {
		s->bytes_left = (__s64)p->b_bytes;
		if (s->b_cnt < p->f)
			paper_fast_recovery(s, p);
		else
			paper_select(s, p);
	} else if (s->phase == XL_PHASE_AI) {
		s->bytes_left = (__s64)p->b_bytes;
		paper_additive(s, p);
	} else {
		s->bytes_left = (__s64)(p->b_bytes / 2);
		paper_hyper(s, p);
	}
}

static inline void paper_increase_timer(struct xl_dcqcn_state *s,
					const struct xl_dcqcn_params *p)
{
	__u64 now = s->inc_due;

	count_up(&s->t_cnt);
	if (s->phase == XL_PHASE_FR) {
		s->inc_due = now + p->t_ns;
		if (s->t_cnt < p->f)
			paper_fast_recovery(s, p);
		else
			paper_select(s, p);
	} else if (s->phase == XL_PHASE_AI) {
		s->inc_due = now + p->t_ns;
		paper_select(s, p);
	} else {
		s->inc_due = now + p->t_ns / 2;
		paper_hyper(s, p);
	}
}

/* ---- variant nvidia ----------------------------------------------------- */

static inline void nvidia_cnp(struct xl_dcqcn_state *s,
			      const struct xl_dcqcn_params *p, __u64 now)
{
	s->alpha_cnp = 1;
	s->dec_cnp = 1;
	if (s->cnp_seen)
		return;
	/* The first CNP: alpha jumps, the timers start, no cut yet; it does
	 * not count in the first alpha window. */
	s->cnp_seen = 1;
	s->alpha = p->alpha_first;
	s->alpha_cnp = 0;
	s->alpha_due = now + p->k_ns;
	s->dec_due = now + p->t_dec_ns + 1;
}

static inline void nvidia_decrease(struct xl_dcqcn_state *s,
				   const struct xl_dcqcn_params *p)
{
	__u64 now = s->dec_due;

	s->dec_due = now + p->t_dec_ns;
	if (!s->dec_cnp)
		return;
	if (s->t_cnt != 0)
		s->rt = s->rc;
	s->rc = xl_max64(p->min_rate, xl_rate_cut(s->rc, s->alpha));
	s->t_cnt = 0;
	s->dec_cnp = 0;
	s->inc_due = now + p->t_ns;
}

static inline void nvidia_increase(struct xl_dcqcn_state *s,
				   const struct xl_dcqcn_params *p)
{
	s->inc_due += p->t_ns;
	if (s->t_cnt == p->f)
		s->rt = xl_min64(s->rt + p->r_ai, p->line_rate);
	else if (s->t_cnt > p->f)
		s->rt = xl_min64(s->rt + p->r_hai, p->line_rate);
	s->rc = s->rc / 2 + s->rt / 2;
	count_up(&s->t_cnt);
}

/* ---- timers --------------------------------------------------------------- */

enum xl_dcqcn_timer {
	XL_TIMER_NONE = 0,
	XL_TIMER_ALPHA,
	XL_TIMER_DECREASE,
	XL_TIMER_INCREASE,
};

/* The timer that fires next (ties: alpha, decrease, increase), and when. */
static inline int xl_dcqcn_next_timer(const struct xl_dcqcn_state *s,
				      __u64 *due)
{
	int which = XL_TIMER_NONE;
	__u64 best = ~0ULL;

	if (s->alpha_due != XL_DCQCN_OFF && s->alpha_due < best) {
		best = s->alpha_due;
		which = XL_TIMER_ALPHA;
	}
	if (s->dec_due != XL_DCQCN_OFF && s->dec_due < best) {
		best = s->dec_due;
		which = XL_TIMER_DECREASE;
	}
	if (s->inc_due != XL_DCQCN_OFF && s->inc_due < best) {
		best = s->inc_due;
		which = XL_TIMER_INCREASE;
	}
	*due = best;
	return which;
}

static inline void xl_dcqcn_fire(struct xl_dcqcn_state *s,
				 const struct xl_dcqcn_params *p, int which)
{
	if (which == XL_TIMER_ALPHA) {
		s->alpha_due += p->k_ns;
		if (p->variant == XL_DCQCN_NVIDIA && s->alpha_cnp)
			s->alpha = xl_alpha_raise(s->alpha, p->g);
		else
			s->alpha = xl_alpha_decay(s->alpha, p->g);
		s->alpha_cnp = 0;
	} else if (which == XL_TIMER_DECREASE) {
		nvidia_decrease(s, p);
	} else if (which == XL_TIMER_INCREASE) {
		if (p->variant == XL_DCQCN_NVIDIA)
			nvidia_increase(s, p);
		else
			paper_increase_timer(s, p);
	}
}

/* Would one more nvidia increase leave Rc and Rt as they are? With Rt at C
 * past F, Rc settles where trunc(Rc/2) + trunc(C/2) no longer moves it
 * (C, or C - 1 when it came up from below). */
static inline int nvidia_increase_is_idle(const struct xl_dcqcn_state *s,
					  const struct xl_dcqcn_params *p)
{
	return s->t_cnt > p->f && s->rt == p->line_rate &&
	       s->rc / 2 + s->rt / 2 == s->rc;
}

/* Expiries that provably change nothing are skipped in one step rather than
 * fired one by one (an idle flow's timers run forever): alpha once decay
 * no longer moves it, the nvidia sampler without a CNP pending, and the
 * nvidia increase timer once it no longer moves Rc or Rt. Returns 1 if it
 * skipped. */
static inline int xl_dcqcn_skip_idle(struct xl_dcqcn_state *s,
				     const struct xl_dcqcn_params *p, int which,
				     __u64 due, __u64 until)
{
	__u64 period, n;

	if (which == XL_TIMER_ALPHA && !s->alpha_cnp &&
	    xl_alpha_decay(s->alpha, p->g) == s->alpha)
		period = p->k_ns;
	else if (which == XL_TIMER_DECREASE && !s->dec_cnp)
		period = p->t_dec_ns;
	else if (which == XL_TIMER_INCREASE && p->variant == XL_DCQCN_NVIDIA &&
		 nvidia_increase_is_idle(s, p))
		period = p->t_ns;
	else
		return 0;
	if (!period || due > until)
		return 0;
	n = (until - due) / period + 1; /* expiries at or before until */
	if (which == XL_TIMER_ALPHA) {
		s->alpha_due += n * period;
	} else if (which == XL_TIMER_DECREASE) {
		s->dec_due += n * period;
	} else {
		s->inc_due += n * period;
		s->t_cnt = (__u32)xl_min64((__u64)s->t_cnt + n, XL_DCQCN_TCNT_MAX);
	}
	return 1;
}

/* Fire every timer due at or before `until`, at most max_steps of them
 * (skips count as one). Returns 0 when caught up, 1 if steps ran out. */
static inline int xl_dcqcn_advance(struct xl_dcqcn_state *s,
				   const struct xl_dcqcn_params *p,
				   __u64 until, __u32 max_steps)
{
	__u32 i;

	for (i = 0; i < max_steps; i++) {
		__u64 due;
		int which = xl_dcqcn_next_timer(s, &due);

		if (which == XL_TIMER_NONE || due > until)
			return 0;
		if (!xl_dcqcn_skip_idle(s, p, which, due, until))
			xl_dcqcn_fire(s, p, which);
	}
	return 1;
}

/* Events. The caller has advanced the timers to `now` first. */
static inline void xl_dcqcn_cnp(struct xl_dcqcn_state *s,
				const struct xl_dcqcn_params *p, __u64 now)
{
	if (p->variant == XL_DCQCN_NVIDIA)
		nvidia_cnp(s, p, now);
	else
		paper_cnp(s, p, now);
}

static inline void xl_dcqcn_sent(struct xl_dcqcn_state *s,
				 const struct xl_dcqcn_params *p, __u64 bytes)
{
	if (p->variant == XL_DCQCN_PAPER)
		paper_sent(s, p, bytes);
}

#endif /* XL_DCQCN_H */
