// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The ns-3 leaf's C side (leaf_shim.h): no algorithm of its own, only
 * calls into user/sim/lb_group.c, include/lb.h and include/ecn.h. */
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config_keys.h"
#include "ecn.h"
#include "lb.h"
#include "base/names.h"
#include "base/rng.h"
#include "base/units.h"
#include "sim/lb_group.h"
#include "leaf_shim.h"

struct xlf_leaf {
	struct xl_lb_sim s;
	struct xl_lb_group g;
	struct xl_wred wred; /* the default class's profile */
	__u64 vtime[XL_MAX_GROUP_MEMBERS];
	__u64 rng, marked;
	__u64 spray_rng; /* spray's draws, apart from the marks' */
	int *spray_last; /* per flow: its last packet's member (counts moves) */
};

int xlf_parse_rate(const char *s, uint64_t *bps, char *err, unsigned len)
{
	__u64 v;

	if (xl_parse_rate(s, &v, err, len))
		return -1;
	*bps = v;
	return 0;
}

int xlf_lb_mode(const char *word)
{
	__u32 m;

	for (m = 0; m < XL_LB_MODES; m++)
		if (!strcmp(word, xl_lb_mode_name(m)))
			return (int)m;
	return -1;
}

struct xlf_leaf *xlf_leaf_new(unsigned n, const uint64_t *cap_bps, int mode, uint64_t seed)
{
	struct xlf_leaf *l = calloc(1, sizeof(*l));
	unsigned i;

	if (!l || n == 0 || n > XL_MAX_GROUP_MEMBERS)
		goto bad;
	/* the shipped group defaults: flowlet_timeout auto (the loader's
	 * floor over each member's default buffer at its rate), path_skew
	 * auto; overload judged per 10 ms window (only counted) */
	l->s.n = n;
	l->s.floor_ns = XL_DEFAULT_FLOWLET_TIMEOUT_NS;
	l->s.skew_ns = XL_DEFAULT_PATH_SKEW_NS;
	l->s.skew_auto = 1;
	l->s.window_ns = 10000000;
	for (i = 0; i < n; i++) {
		l->s.cap_bps[i] = cap_bps[i];
		l->s.floor_ns = xl_auto_floor_ns(l->s.floor_ns, xl_default_buffer(cap_bps[i]),
						 cap_bps[i]);
	}
	l->s.mode = (__u32)mode;
	l->s.seed = (seed << 1) | 1;
	l->rng = (seed << 1) | 1;
	l->spray_rng = (seed << 2) | 3;
	xl_keys_defaults(S_CLASS, &l->wred);
	if (xl_lb_group_init(&l->g, &l->s, 0))
		goto bad;
	return l;
bad:
	free(l);
	return NULL;
}

void xlf_leaf_free(struct xlf_leaf *l)
{
	if (!l)
		return;
	xl_lb_group_free(&l->g);
	free(l->spray_last);
	free(l);
}

uint32_t xlf_flow_hash(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
		       uint8_t proto, uint32_t seed)
{
	struct xl_flow f = { .sport = sport, .dport = dport, .proto = proto, .family = 4 };
	__u32 s = __builtin_bswap32(saddr), d = __builtin_bswap32(daddr);

	/* network order in the first four bytes, as the dataplane keys it */
	memcpy(f.saddr, &s, 4);
	memcpy(f.daddr, &d, 4);
	return xl_flow_hash(&f, seed);
}

int xlf_leaf_add_flow(struct xlf_leaf *l, uint32_t hash)
{
	int k = xl_lb_group_add_flow(&l->g, hash);
	int *last;

	if (k < 0 || l->s.mode != XL_LB_SPRAY)
		return k;
	last = realloc(l->spray_last, ((size_t)k + 1) * sizeof(*last));
	if (!last)
		return -1;
	last[k] = -1;
	l->spray_last = last;
	return k;
}

/* spray (spray_reorder = free, its default): every packet, pure ACKs
 * too, to a member drawn in proportion to the capacities, as
 * bpf/uplink.h's xl_pick_spray_g; a change of member counts as a move. */
static int spray_packet(struct xlf_leaf *l, unsigned k)
{
	int m = xl_pick_weighted(l->s.cap_bps, l->s.n, XL_ALL_UP, xl_rand32(&l->spray_rng));

	if (k >= l->g.nflows || m < 0)
		return -1;
	if (l->spray_last[k] >= 0 && l->spray_last[k] != m)
		l->s.moves++;
	l->spray_last[k] = m;
	return m;
}

int xlf_leaf_packet(struct xlf_leaf *l, unsigned k, uint64_t now_ns, uint32_t len, int pure_ack)
{
	if (l->s.mode == XL_LB_SPRAY)
		return spray_packet(l, k);
	/* a pure acknowledgement follows its flow's member, as in
	 * bpf/uplink.h (XL_PURE_ACK): no flowlet starts or goes on */
	if (pure_ack && k < l->g.nflows && l->g.fl[k].member >= 0)
		return l->g.fl[k].member;
	return xl_lb_group_packet(&l->g, k, now_ns, len);
}

int xlf_port_offer(struct xlf_leaf *l, unsigned m, uint64_t now_ns, uint32_t len, int ect)
{
	__u64 rate = l->s.cap_bps[m], now = xl_vt_now(now_ns);
	__u64 wire = len + XL_DEFAULT_LINE_OVERHEAD;
	__u64 q = xl_backlog(l->vtime[m], now, rate);
	__u64 buffer = xl_default_buffer(rate);
	/* fitted to the buffer only when the profile asks (the roce class) */
	struct xl_wred w = xl_wred_fit(&l->wred, buffer);
	int d = xl_queue_decide(q, wire, buffer, &w, ect, 1, xl_rand32(&l->rng));

	if (d & XL_Q_ENQUEUE)
		l->vtime[m] = xl_vt_enqueue(l->vtime[m], now, wire, rate);
	l->marked += !!(d & XL_Q_MARK);
	return d & (XL_Q_MARK | XL_Q_DROP);
}

void xlf_leaf_counts(const struct xlf_leaf *l, uint64_t out[4])
{
	out[0] = l->s.flowlets;
	out[1] = l->s.moves;
	out[2] = l->s.refused;
	out[3] = l->marked;
}

/* The built-in roce class's profile, as the configuration builds it: the
 * class defaults, fitted to each port's buffer (XL_CLASS_FIT). */
static void roce_class(struct xl_wred *w)
{
	xl_keys_defaults(S_CLASS, w);
	w->flags |= XL_CLASS_FIT;
}

void xlf_leaf_roce(struct xlf_leaf *l)
{
	roce_class(&l->wred);
}

void xlf_roce_profile(uint64_t buffer, uint32_t *kmin, uint32_t *kmax, double *pmax)
{
	struct xl_wred w, f;

	roce_class(&w);
	f = xl_wred_fit(&w, buffer);
	*kmin = f.kmin;
	*kmax = f.kmax;
	*pmax = (double)f.pmax / (double)XL_PROB_ONE;
}

uint64_t xlf_leaf_floor_ns(const struct xlf_leaf *l)
{
	return l->s.floor_ns;
}
