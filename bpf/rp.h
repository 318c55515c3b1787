/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* DCQCN's reaction point in BPF: the glue between the per-flow state in
 * `rp_flows` and include/dcqcn.h (the RP as pure integer code, unchanged).
 * Included by bpf/host.bpf.c (tc: CNPs in, data out) and bpf/gen.bpf.c
 * (`xdpleaf gen --rate-map`, whose live frames bypass tc egress), so both
 * objects declare the shared maps identically and gen can reuse the host's
 * pinned ones (bpf_map__reuse_fd).
 *
 * One event on a flow (xl_rp_event):
 *   1. under the flow's spin lock, copy the state and its version out;
 *   2. without the lock, advance the timers to `now` (at most
 *      XL_RP_MAX_STEPS expiries; if more were due the flow is left behind
 *      and the next event continues the catch-up) and apply the event on
 *      the copy: xl_rp_compute(), a global function, so the verifier checks
 *      the DCQCN arithmetic once per object and not per call site, with
 *      the timer loop in bpf_loop (checked once, not 64 times);
 *   3. under the lock again, write the copy back if the version is still the
 *      one read (bumping it); else retry once from step 1; if the flow was
 *      written concurrently twice, the event is dropped and counted in the
 *      flow's lost_updates.
 * A bpf_spin_lock section may not call helpers or functions, hence the copy.
 *
 * Events arriving on two CPUs may carry times out of order: an event older
 * than the state's time (last_ns) is applied at last_ns. */
#ifndef XL_RP_H
#define XL_RP_H

#include "host_maps.h"

/* Timer expiries one event may catch up (xl_dcqcn_advance's max_steps). */
#ifndef XL_RP_MAX_STEPS
#define XL_RP_MAX_STEPS 64
#endif

enum xl_rp_ev {
	XL_RP_EV_CNP = 1,
	XL_RP_EV_SENT = 2, /* arg: bytes per packet | packets << 32 */
};


struct xl_rp_sent_ctx {
	struct xl_dcqcn_state *s;
	const struct xl_dcqcn_params *p;
	__u64 bytes;
};

static long xl_rp_sent_cb(__u64 i, void *c)
{
	struct xl_rp_sent_ctx *x = c;

	(void)i;
	xl_dcqcn_sent(x->s, x->p, x->bytes);
	return 0;
}

struct xl_rp_adv_ctx {
	struct xl_dcqcn_state *s;
	const struct xl_dcqcn_params *p;
	__u64 until;
	int behind;
};

/* xl_dcqcn_advance() one step per bpf_loop iteration, up to
 * XL_RP_MAX_STEPS: the same expiries in the same order as one call with
 * max_steps = XL_RP_MAX_STEPS, but the verifier checks the body once (the
 * loop inline is walked 64 times: ~270k instructions, 100 ms per program,
 * against ~10k and 4 ms). */
static long xl_rp_adv_cb(__u64 i, void *c)
{
	struct xl_rp_adv_ctx *x = c;

	(void)i;
	x->behind = xl_dcqcn_advance(x->s, x->p, x->until, 1);
	return x->behind ? 0 : 1;
}

/* Advance s to now and apply one event, on a private copy (no lock held).
 * Returns 1 if timers due at or before now are still pending (the step
 * bound ran out), 0 when caught up, -1 on bad arguments. */
__noinline int xl_rp_compute(struct xl_dcqcn_state *s,
			     const struct xl_dcqcn_params *p, __u64 now,
			     __u32 ev, __u64 arg)
{
	struct xl_rp_adv_ctx a = { .s = s, .p = p, .until = now };
	__u64 due;
	int behind;

	if (!s || !p)
		return -1;
	bpf_loop(XL_RP_MAX_STEPS, xl_rp_adv_cb, &a, 0);
	/* the last step allowed may have been the last one due */
	behind = a.behind && xl_dcqcn_next_timer(s, &due) != XL_TIMER_NONE &&
		 due <= now;
	if (ev == XL_RP_EV_CNP) {
		xl_dcqcn_cnp(s, p, now);
	} else if (ev == XL_RP_EV_SENT) {
		struct xl_rp_sent_ctx x = { .s = s, .p = p, .bytes = arg & 0xffffffff };
		__u32 n = arg >> 32;

		/* n packets of the same size at the same time (gen accounts a
		 * batch at once): one xl_dcqcn_sent each, so the byte counter
		 * crosses B exactly as packet by packet. Where sending changes
		 * nothing or resets to the same value, once is the same. */
		if (n > 1 && p->variant == XL_DCQCN_PAPER && s->cnp_seen)
			bpf_loop(n, xl_rp_sent_cb, &x, 0);
		else if (n)
			xl_dcqcn_sent(s, p, x.bytes);
	}
	return behind ? 1 : 0;
}

/* Apply an event to flow f (a value of rp_flows); *rate_out gets the rate
 * after it. Returns 0, or -1 if the update was lost to concurrent ones. */
static __always_inline int xl_rp_event(struct xl_rp_flow *f,
				       const struct xl_dcqcn_params *p,
				       __u64 now, __u32 ev, __u64 arg,
				       __u64 *rate_out)
{
	struct xl_dcqcn_state w;
	__u64 last, t;
	__u32 ver;
	int attempt, behind;

	for (attempt = 0; attempt < 2; attempt++) {
		bpf_spin_lock(&f->lock);
		w = f->s;
		ver = f->version;
		last = f->last_ns;
		bpf_spin_unlock(&f->lock);

		t = now > last ? now : last;
		behind = xl_rp_compute(&w, p, t, ev, arg);

		bpf_spin_lock(&f->lock);
		if (f->version == ver) {
			f->s = w;
			f->version = ver + 1;
			f->last_ns = t;
			if (ev == XL_RP_EV_CNP)
				f->cnps++;
			else
				f->bytes += (arg & 0xffffffff) * (arg >> 32);
			if (behind > 0)
				f->behind++;
			bpf_spin_unlock(&f->lock);
			*rate_out = w.rc;
			return 0;
		}
		bpf_spin_unlock(&f->lock);
	}
	bpf_spin_lock(&f->lock);
	f->lost_updates++;
	*rate_out = f->s.rc;
	bpf_spin_unlock(&f->lock);
	return -1;
}

/* Publish a flow's rate in rp_rates. updated_ns is the time the rate last
 * changed. Two CPUs may publish out of order; the next event on the flow
 * publishes its current rate again. */
static __always_inline void xl_rp_publish(const struct xl_qp_key *k,
					  __u64 rate, __u64 now)
{
	struct xl_rp_rate *r = bpf_map_lookup_elem(&rp_rates, k);
	struct xl_rp_rate n = { .rate_bps = rate, .updated_ns = now };

	if (r) {
		if (r->rate_bps != rate) {
			r->rate_bps = rate;
			r->updated_ns = now;
		}
		return;
	}
	bpf_map_update_elem(&rp_rates, k, &n, BPF_ANY);
}

/* The flow's state, created on first sight (Rc = Rt = C, alpha 1, no timer)
 * when create is set. NULL if unknown and not created (table full). */
static __always_inline struct xl_rp_flow *
xl_rp_flow_get(const struct xl_qp_key *k, const struct xl_host_cfg *cfg,
	       __u64 now, int create)
{
	struct xl_rp_flow *f = bpf_map_lookup_elem(&rp_flows, k);
	struct xl_rp_flow n;

	if (f || !create)
		return f;
	__builtin_memset(&n, 0, sizeof(n));
	xl_dcqcn_init(&n.s, &cfg->rp);
	n.last_ns = now;
	if (!bpf_map_update_elem(&rp_flows, k, &n, BPF_NOEXIST))
		xl_rp_publish(k, n.s.rc, now);
	return bpf_map_lookup_elem(&rp_flows, k);
}

#endif /* XL_RP_H */
