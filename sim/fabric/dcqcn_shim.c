// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The ns-3 RoCE hosts' C side (dcqcn_shim.h): no algorithm of its own,
 * only calls into include/dcqcn.h, include/host.h and include/events.h
 * with the configuration's defaults (user/config). */
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config_keys.h"
#include "dcqcn.h"
#include "events.h"
#include "host.h"
#include "dcqcn_shim.h"

struct xlf_dcqcn {
	struct xl_host_cfg h;
};

struct xlf_rp {
	const struct xl_dcqcn_params *p;
	struct xl_dcqcn_state s;
	__u64 cnps, cuts, min_rc;
};

struct xlf_np {
	const struct xl_host_cfg *h;
	struct xl_np_flow *qp;
	unsigned nqps;
	struct xl_event_limit port; /* cnp_port_rate */
	__u64 capped;
};

struct xlf_dcqcn *xlf_dcqcn_new(uint64_t line_bps, const char *sets, char *err, unsigned len)
{
	struct xlf_dcqcn *d = calloc(1, sizeof(*d));
	char *list = strdup(sets ? sets : ""), *kv, *save = NULL;

	if (!d || !list) {
		snprintf(err, len, "out of memory");
		goto bad;
	}
	/* what a host gets without a [dcqcn] section; C is the port's rate,
	 * as the loader sets it */
	xl_host_defaults(&d->h, XL_DCQCN_PAPER);
	d->h.rp.line_rate = line_bps;
	for (kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save))
		if (xl_dcqcn_set(&d->h, kv, err, len))
			goto bad;
	free(list);
	return d;
bad:
	free(list);
	free(d);
	return NULL;
}

void xlf_dcqcn_free(struct xlf_dcqcn *d)
{
	free(d);
}

struct xlf_rp *xlf_rp_new(const struct xlf_dcqcn *d)
{
	struct xlf_rp *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->p = &d->h.rp;
	xl_dcqcn_init(&r->s, r->p);
	r->min_rc = r->s.rc;
	return r;
}

void xlf_rp_free(struct xlf_rp *r)
{
	free(r);
}

/* Rc after a change: a fall counted, the lowest kept. */
static void rp_note(struct xlf_rp *r, __u64 before)
{
	if (r->s.rc < before)
		r->cuts++;
	if (r->s.rc < r->min_rc)
		r->min_rc = r->s.rc;
}

/* The timers due by now, one expiry at a time (so that each fall of Rc
 * is counted): xl_dcqcn_advance with no step bound, as the event's
 * catch-up in bpf/rp.h when it is not left behind. */
static void rp_advance(struct xlf_rp *r, __u64 now)
{
	__u64 before;
	int more;

	do {
		before = r->s.rc;
		more = xl_dcqcn_advance(&r->s, r->p, now, 1);
		rp_note(r, before);
	} while (more);
}

uint64_t xlf_rp_rate(struct xlf_rp *r, uint64_t now_ns)
{
	rp_advance(r, now_ns);
	return r->s.rc;
}

uint64_t xlf_rp_cnp(struct xlf_rp *r, uint64_t now_ns)
{
	__u64 before;

	rp_advance(r, now_ns);
	before = r->s.rc;
	xl_dcqcn_cnp(&r->s, r->p, now_ns);
	r->cnps++;
	rp_note(r, before);
	return r->s.rc;
}

uint64_t xlf_rp_sent(struct xlf_rp *r, uint64_t now_ns, uint32_t len)
{
	__u64 before;

	rp_advance(r, now_ns);
	before = r->s.rc;
	xl_dcqcn_sent(&r->s, r->p, len);
	rp_note(r, before);
	return r->s.rc;
}

void xlf_rp_counts(const struct xlf_rp *r, uint64_t out[3])
{
	out[0] = r->cnps;
	out[1] = r->cuts;
	out[2] = r->min_rc;
}

struct xlf_np *xlf_np_new(const struct xlf_dcqcn *d, unsigned nqps)
{
	struct xlf_np *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->qp = calloc(nqps ? nqps : 1, sizeof(*n->qp));
	if (!n->qp) {
		free(n);
		return NULL;
	}
	n->h = &d->h;
	n->nqps = nqps;
	return n;
}

void xlf_np_free(struct xlf_np *n)
{
	if (!n)
		return;
	free(n->qp);
	free(n);
}

/* bpf/host.bpf.c's np_ce on one CPU: the interval per QP first (the
 * scope is per QP by default), then the port's cap; a CNP the cap holds
 * back leaves the interval to the next mark. */
int xlf_np_ce(struct xlf_np *n, unsigned q, uint64_t now_ns)
{
	struct xl_np_flow *f;

	if (q >= n->nqps)
		return 0;
	f = &n->qp[q];
	f->ce_packets++;
	if (!xl_np_due(f->last_cnp_ns, now_ns, n->h->cnp_interval_ns)) {
		f->cnps_suppressed++;
		return 0;
	}
	if (n->h->cnp_port_rate && !xl_event_allow(&n->port, now_ns, n->h->cnp_port_rate)) {
		n->capped++;
		return 0;
	}
	f->last_cnp_ns = now_ns;
	f->cnps_sent++;
	return 1;
}

void xlf_np_counts(const struct xlf_np *n, uint64_t out[4])
{
	unsigned i;

	out[0] = out[1] = out[2] = 0;
	for (i = 0; i < n->nqps; i++) {
		out[0] += n->qp[i].ce_packets;
		out[1] += n->qp[i].cnps_sent;
		out[2] += n->qp[i].cnps_suppressed;
	}
	out[3] = n->capped;
}
