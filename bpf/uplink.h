/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Choosing the uplink of a group for a packet: reads the group's state
 * (members up, measured rates, queues, the flow table) and applies the
 * pure choice functions of include/lb.h. Also keeps the uplinks' measured
 * rates up to date. */
#ifndef XL_UPLINK_H
#define XL_UPLINK_H

#include "ecn.h"
#include "lb.h"
#include "maps.h"
#include "parse.h"

#ifndef XL_MAX_CPUS
#define XL_MAX_CPUS 128
#endif

/* Set by the loader before load: CPUs whose counters the sampler sums. */
const volatile __u32 nr_cpus = 1;
/* A new flow table entry starts from this (the stack has no room). */
static const struct xl_flow_state zero_flow;

/* Members of the group that may be chosen for a packet of this family
 * (4 or 6): all but those the daemon marked down for it (so a
 * zeroed map means all up). */
static __always_inline __u32 group_up_mask(__u32 gid, __u8 family)
{
	struct xl_group_down *down = bpf_map_lookup_elem(&group_down, &gid);

	if (!down)
		return XL_ALL_UP;
	return ~(family == 6 ? down->v6 : down->v4);
}

/* Bytes the port has sent, all CPUs: only the sampler pays for this. */
static __always_inline __u64 tx_bytes_all_cpus(__u32 slot)
{
	__u64 sum = 0;
	__u32 cpu;

	for (cpu = 0; cpu < XL_MAX_CPUS && cpu < nr_cpus; cpu++) {
		struct xl_port_stats *st =
			bpf_map_lookup_percpu_elem(&port_stats, &slot, cpu);

		if (st)
			sum += st->tx_bytes;
	}
	return sum;
}

/* Called after a packet was sent on an uplink. The hot path only reads one
 * word; when a sample is due, one CPU claims it with a compare-and-swap on
 * sample_ns and the others carry on: no CPU ever waits for another. The
 * sample itself is a separate (global) function, verified once on its own
 * rather than inline on every path of the program. */
__noinline int xl_take_rate_sample(__u32 slot, __u64 now)
{
	struct xl_uplink_rate *r = bpf_map_lookup_elem(&uplink_rates, &slot);
	__u64 last, bytes, sent;

	if (!r)
		return 0;
	last = r->sample_ns;
	/* Signed: another CPU may have sampled at a later `now` than ours
	 * (read at the start of our program); then ours is not due. */
	if ((__s64)(now - last) < (__s64)XL_RATE_SAMPLE_NS)
		return 0;
	if (__sync_val_compare_and_swap(&r->sample_ns, last, now) != last)
		return 0; /* another CPU is taking this sample */
	bytes = tx_bytes_all_cpus(slot);
	sent = xl_bytes_since(bytes, r->sample_bytes);
	if (last) {
		r->rate_bps = xl_rate_update(r->rate_bps, sent, now - last,
					     XL_RATE_TAU_NS);
		r->rate_slow_bps = xl_rate_update(r->rate_slow_bps, sent,
						  now - last, XL_RATE_SLOW_TAU_NS);
		r->held_bps = xl_rate_update(r->held_bps, sent, now - last,
					     XL_HELD_LOAD_TAU_NS);
		/* subtracted atomically: a flowlet placed meanwhile stays */
		__sync_fetch_and_sub(&r->pending_bps,
				     xl_pending_taken(r->pending_bps, now - last,
						      XL_RATE_TAU_NS));
	}
	/* a racing later sample's count stays (xl_bytes_since) */
	if (sent || !last)
		r->sample_bytes = bytes;
	return 1;
}

static __always_inline void xl_sample_uplink_rate(__u32 slot, __u64 now)
{
	struct xl_uplink_rate *r = bpf_map_lookup_elem(&uplink_rates, &slot);

	if (r && (__s64)(now - r->sample_ns) >= (__s64)XL_RATE_SAMPLE_NS)
		xl_take_rate_sample(slot, now);
}

/* ns since an uplink's last rate sample (0 if another CPU's clock is
 * behind it), by which its averages have faded (xl_rate_now). */
static __always_inline __u64 since_sample(const struct xl_uplink_rate *r, __u64 now)
{
	return (__s64)(now - r->sample_ns) > 0 ? now - r->sample_ns : 0;
}

/* The rate of an uplink's entry right now: measured and pending
 * (flowlets placed, not yet measured), which fade alike once it goes
 * quiet. */
static __always_inline __u64 entry_rate_now(const struct xl_uplink_rate *r, __u64 now)
{
	if (!r->sample_ns)
		return r->pending_bps;
	return xl_rate_now(r->rate_bps + r->pending_bps, since_sample(r, now), XL_RATE_TAU_NS);
}

/* Another of the entry's averages (the slow one, the held load) right
 * now, fading over its own tau once the uplink goes quiet; 0 before the
 * first sample. */
static __always_inline __u64 entry_avg_now(const struct xl_uplink_rate *r, __u64 avg,
					   __u64 now, __u64 tau_ns)
{
	return r->sample_ns ? xl_rate_now(avg, since_sample(r, now), tau_ns) : 0;
}

/* The rate of the uplink in `slot` right now (entry_rate_now). */
static __always_inline __u64 member_rate_now(__u32 slot, __u64 now)
{
	struct xl_uplink_rate *r = bpf_map_lookup_elem(&uplink_rates, &slot);

	return r ? entry_rate_now(r, now) : 0;
}

/* A flow of flow_bps left the uplink in `slot`: not held there any more.
 * Read and written without a lock: a sample or another departure at the
 * same instant may be lost, and the average's next samples make up for it. */
static __always_inline void member_held_load_leave(__u32 slot, __u64 flow_bps)
{
	struct xl_uplink_rate *r = bpf_map_lookup_elem(&uplink_rates, &slot);

	if (r)
		r->held_bps = xl_held_load_leave(r->held_bps, flow_bps);
}

/* Utilization of member i of group gid right now (member_rate_now plus
 * its phantom queue if the port has one) with `extra` bit/s more sent on
 * it. Global, so the verifier checks its branches once instead of once
 * per member. */
__noinline __u32 xl_member_util_now(__u32 gid, __u32 i, __u64 now,
				    __u64 extra)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	struct xl_queue *q;
	__u64 cap, backlog = 0;
	__u32 slot;

	if (!g)
		return 0xffffffffU;
	slot = g->member_slot[i & (XL_MAX_GROUP_MEMBERS - 1)];
	cap = g->capacity_bps[i & (XL_MAX_GROUP_MEMBERS - 1)];
	q = bpf_map_lookup_elem(&queues, &slot);
	if (q && cap)
		backlog = xl_backlog(q->vtime, xl_vt_now(now), cap);
	return xl_member_util(member_rate_now(slot, now) + extra, backlog, cap,
			      XL_RATE_TAU_NS);
}

/* Whether a flow of flow_bps, quiet for gap_ns, should leave its member
 * for another (xl_move_worth); members = cur | m << 8 (a BPF function
 * takes five arguments). Global: the verifier checks it once. */
__noinline int xl_move_worth_g(__u32 gid, __u32 members, __u64 now,
			       __u64 flow_bps, __u64 gap_ns)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	__u32 c = members & (XL_MAX_GROUP_MEMBERS - 1);
	__u32 n = (members >> 8) & (XL_MAX_GROUP_MEMBERS - 1);
	struct xl_uplink_rate *here, *there;
	__u32 slot_c, slot_n;

	if (!g)
		return 0;
	slot_c = g->member_slot[c];
	slot_n = g->member_slot[n];
	here = bpf_map_lookup_elem(&uplink_rates, &slot_c);
	there = bpf_map_lookup_elem(&uplink_rates, &slot_n);
	if (!here || !there)
		return 0;
	return xl_move_worth(flow_bps, xl_rate_still_counted(flow_bps, gap_ns),
			     entry_rate_now(here, now),
			     entry_avg_now(here, here->rate_slow_bps, now, XL_RATE_SLOW_TAU_NS),
			     g->capacity_bps[c],
			     xl_move_target_rate(entry_rate_now(there, now),
						 entry_avg_now(there, there->held_bps, now,
							       XL_HELD_LOAD_TAU_NS)),
			     g->capacity_bps[n]);
}

/* Each picker below loops over the members; as global functions they are
 * verified once each, not once per path through their caller. */

/* The member with the most headroom for a flowlet of a flow that last ran
 * at `expected` bit/s (compared with xl_placement_extra of it: with no
 * rate yet, of the members' mean capacity); rotating start breaks ties. */
__noinline int xl_pick_headroom_g(__u32 gid, __u32 up, __u64 now,
				  __u64 expected)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	__u32 util[XL_MAX_GROUP_MEMBERS], *rr;
	int i;

	if (!g)
		return -1;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		util[i] = (__u32)i < g->n_members ?
				  xl_member_util_now(gid, i, now,
					xl_placement_extra(expected, g->capacity_bps[i],
							   g->unknown_rate_mbps)) :
				  0xffffffffU;
	/* (the rotation looked up last: fewer values live across the loop,
	 * whose frame is on the program's deepest call chain) */
	rr = bpf_map_lookup_elem(&group_rr, &gid);
	return xl_pick_least(util, g->n_members, up, rr ? __sync_fetch_and_add(rr, 1) : 0,
			     XL_LB_TIE);
}

/* A flowlet placed on the member in `slot` counts there as pending
 * (xl_pending_taken) at once, so the next decisions see it. */
static __always_inline void add_pending(__u32 slot, __u64 now, __u64 expected)
{
	struct xl_uplink_rate *r;

	/* bring a quiet member's average up to now first, or readers would
	 * fade the new pending rate with the member's old silence */
	xl_sample_uplink_rate(slot, now);
	r = bpf_map_lookup_elem(&uplink_rates, &slot);
	if (r)
		__sync_fetch_and_add(&r->pending_bps, expected);
}

/* ---- flow counts (include/lb.h, "flow counts") ----------------------- */

/* The member's counts brought to epoch e: what was counted before e - 1
 * goes. The CPU that wins the compare-and-swap clears; a flow another
 * CPU counts in between is lost for that epoch and counted again in the
 * next. Never backwards: a CPU whose clock read earlier finds e - 1's
 * count where it is, in the slot before. */
static __always_inline struct xl_member_flows *member_flows_at(__u32 slot, __u32 e)
{
	struct xl_member_flows *mf = bpf_map_lookup_elem(&member_flows, &slot);
	__u32 old;

	if (!mf)
		return NULL;
	old = mf->epoch;
	if ((__s32)(e - old) > 0 &&
	    __sync_val_compare_and_swap(&mf->epoch, old, e) == old) {
		mf->flows[e & 1] = 0;
		if (old != e - 1)
			mf->flows[(e - 1) & 1] = 0;
	}
	return mf;
}

static __always_inline __u32 member_flows_of(__u32 slot, __u32 e)
{
	struct xl_member_flows *mf = bpf_map_lookup_elem(&member_flows, &slot);

	return mf ? xl_member_flows_now(mf->epoch, mf->flows, e) : 0;
}

/* The flow, on the member in `slot`, counted there once in epoch e. One
 * that just arrived (moved) counts in the epoch before too: the member
 * reads the larger of the two counts, and one it came to after that
 * epoch would not show until the current count passed it, while more
 * flows followed it there. */
static __always_inline void flow_counted(struct xl_flow_state *fs, __u32 slot, __u32 e,
					 int arrived)
{
	struct xl_member_flows *mf;

	if (fs->count_epoch == e)
		return;
	mf = member_flows_at(slot, e);
	if (!mf)
		return;
	fs->count_flags = fs->count_epoch == e - 1 || arrived ? XL_COUNTED_BEFORE : 0;
	fs->count_epoch = e;
	__sync_fetch_and_add(&mf->flows[e & 1], 1);
	if (arrived)
		__sync_fetch_and_add(&mf->flows[(e - 1) & 1], 1);
}

static __always_inline void count_less(__u32 *n)
{
	if (*n)
		__sync_fetch_and_sub(n, 1);
}

/* The flow leaves the member in `slot`: off the counts it is in there. */
static __always_inline void flow_uncounted(struct xl_flow_state *fs, __u32 slot, __u32 e)
{
	struct xl_member_flows *mf = member_flows_at(slot, e);

	if (mf) {
		if (fs->count_epoch == e) {
			count_less(&mf->flows[e & 1]);
			if (fs->count_flags & XL_COUNTED_BEFORE)
				count_less(&mf->flows[(e - 1) & 1]);
		} else if (fs->count_epoch == e - 1) {
			count_less(&mf->flows[(e - 1) & 1]);
		}
	}
	fs->count_epoch = 0;
	fs->count_flags = 0;
}

/* The flow counted on member m of group gid in the epoch of now, and if
 * it moved there from member `from`, off that one's counts first;
 * members = m | moved << 8 | from << 16. Global, on the flow's key: once
 * per flow per epoch, and the caller's frame is at the stack's limit. */
__noinline int xl_count_flow_g(struct xl_flow *flow, __u32 gid, __u32 members, __u64 now)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	struct xl_flow_state *fs = flow ? bpf_map_lookup_elem(&flows, flow) : NULL;
	__u32 e = xl_flow_epoch(now);

	if (!g || !fs)
		return 0;
	if (members & (1U << 8))
		flow_uncounted(fs, g->member_slot[(members >> 16) & (XL_MAX_GROUP_MEMBERS - 1)], e);
	flow_counted(fs, g->member_slot[members & (XL_MAX_GROUP_MEMBERS - 1)], e,
		     members & (1U << 8));
	return 0;
}

/* The fair share (xl_fair_share) a flow gets on member i of group gid in
 * epoch e, with `self` flows (0 or 1: the flow itself, counted there)
 * not counted as others. Global: verified once, not once per member. */
__noinline __u32 xl_member_share_g(__u32 gid, __u32 i, __u32 e, __u32 self)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	__u32 n;

	if (!g)
		return 0;
	n = member_flows_of(g->member_slot[i & (XL_MAX_GROUP_MEMBERS - 1)], e);
	return xl_fair_share(g->capacity_bps[i & (XL_MAX_GROUP_MEMBERS - 1)],
			     n > self ? n - self : 0);
}

/* Flow counts weigh in on a flow the rates keep on its member cur: if
 * it wants more than its fair share there (xl_wants_more_share;
 * demand_bps: what it sends at, flow_rate), it leaves for the member
 * where its share would be clearly larger (xl_share_move_worth). A flow
 * that gets what it wants (QPs paced below their share) is the rates' to
 * place: they time-share unequal members in proportion, which whole
 * flows cannot. up_self = the members up | 1 << 16 if cur counts the
 * flow itself. Returns the member. Global: verified once. */
__noinline int xl_pick_fair_g(__u32 gid, __u32 up_self, __u64 now, __u32 cur,
			      __u64 demand_bps)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	__u32 e = xl_flow_epoch(now), top = 0, here, n, up = up_self & 0xffff;
	int i, best = -1;

	cur &= XL_MAX_GROUP_MEMBERS - 1;
	if (!g)
		return cur;
	here = xl_member_share_g(gid, cur, e, up_self >> 16);
	if (!xl_wants_more_share(demand_bps, here))
		return cur;
	n = g->n_members;
	up &= ~(1U << cur);
	/* The largest share, then the first member with it: two passes
	 * (as xl_pick_least), so that the verifier sees one index found,
	 * not every way a running best could change hands; and no array,
	 * as this frame is on the program's deepest call chain. */
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && (up & (1U << i))) {
			__u32 sh = xl_member_share_g(gid, i, e, 0);

			if (sh > top)
				top = sh;
		}
	if (!top || !xl_share_move_worth(here, top))
		return cur;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && best < 0 && (up & (1U << i)) &&
		    xl_member_share_g(gid, i, e, 0) == top)
			best = i;
	return best < 0 ? cur : best;
}

/* Queueing delay (xl_queue_delay) of member i of group g now, for a
 * packet of len bytes (0: until its queue is empty). Inline: every packet
 * of a flow that follows the rule pays for it. */
static __always_inline __u32 member_delay(const struct xl_group *g, __u32 i,
					  __u64 now, __u64 len)
{
	__u32 slot = g->member_slot[i & (XL_MAX_GROUP_MEMBERS - 1)];
	__u64 drain = g->drain_bps[i & (XL_MAX_GROUP_MEMBERS - 1)];
	struct xl_queue *q = drain ? bpf_map_lookup_elem(&queues, &slot) : NULL;

	return q ? xl_queue_delay(q->vtime, xl_vt_now(now), len, drain) : 0;
}

/* member_delay of member i of group gid until its queue is empty. Global,
 * so that to its caller's verification the delay is any number: inline,
 * each member's queue and its absence were paths of their own, 2^16 of
 * them through the loop below, past the verifier's limit. */
__noinline __u32 xl_member_delay_g(__u32 gid, __u32 i, __u64 now)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);

	return g ? member_delay(g, i, now, 0) : 0;
}

/* The up members a latency class's new flowlet may go to: those of the
 * least queueing delay (xl_least_delay_mask). Global: verified once, and
 * run only where a group has a latency class and the packet is in it. */
__noinline __u32 xl_least_delay_g(__u32 gid, __u32 up, __u64 now)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	__u32 delay[XL_MAX_GROUP_MEMBERS] = {};
	int i;

	if (!g)
		return up;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < g->n_members)
			delay[i] = xl_member_delay_g(gid, i, now);
	return xl_least_delay_mask(delay, g->n_members, up, XL_LB_LATENCY_TIE_NS);
}

__noinline int xl_pick_spray_g(__u32 gid, __u32 up, __u32 rnd)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);

	return g ? xl_pick_weighted(g->capacity_bps, g->n_members, up, rnd) : -1;
}

__noinline int xl_pick_hash_g(__u32 hash, __u32 n, __u32 up)
{
	return xl_pick_hash_up(hash, n, up);
}

__noinline int xl_member_index_g(__u32 gid, __u32 ifindex)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	int i;

	if (!g)
		return -1;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < g->n_members && g->members[i] == ifindex)
			return i;
	return -1;
}

static __always_inline void count_flowlet(__u32 new_slot, __u32 old_slot,
					  int moved)
{
	struct xl_port_stats *st = bpf_map_lookup_elem(&port_stats, &new_slot);

	if (st) {
		st->flowlets++;
		st->moves_in += moved;
	}
	if (moved) {
		st = bpf_map_lookup_elem(&port_stats, &old_slot);
		if (st)
			st->moves_out++;
	}
}

/* A move the reorder-free rule kept back, on the member kept. */
static __always_inline void count_refused(__u32 slot)
{
	struct xl_port_stats *st = bpf_map_lookup_elem(&port_stats, &slot);

	if (st)
		st->moves_refused++;
}

/* Per-flow packet, byte and windowed-rate counters. */
static __always_inline void flow_count_bytes(struct xl_flow_state *fs, __u64 now,
					     __u64 len)
{
	fs->packets++;
	fs->bytes += len;
	if (now - fs->win_start_ns >= XL_FLOW_WINDOW_NS) {
		/* the window just closed is the rate shown; an older one
		 * means the flow paused for a whole window */
		fs->prev_win_bytes = now - fs->win_start_ns < 2 * XL_FLOW_WINDOW_NS ?
					     fs->win_bytes : 0;
		fs->win_bytes = 0;
		fs->win_start_ns = now - (now - fs->win_start_ns) % XL_FLOW_WINDOW_NS;
	}
	fs->win_bytes += len;
}

/* ... and the time of the packet, from which the next flowlet's gap
 * counts (not a pure acknowledgement's in the flowlet modes). */
static __always_inline void flow_count(struct xl_flow_state *fs, __u64 now,
				       __u64 len)
{
	flow_count_bytes(fs, now, len);
	fs->last_ns = now;
}

/* A flow's rate now, on its member cur (xl_flow_demand of its last
 * window's and flowlet's, at most cur's capacity). */
static __always_inline __u64 flow_rate(const struct xl_group *g,
				       const struct xl_flow_state *fs, int cur)
{
	return xl_flow_demand(xl_window_rate(fs->prev_win_bytes), fs->flowlet_rate_bps,
			      g->capacity_bps[cur & (XL_MAX_GROUP_MEMBERS - 1)]);
}

/* Member i of group gid as a place for a flow (its key: last packet,
 * queue delay) on member cur, which counts it if self, to yield to:
 * xl_yield_key of its share and utilization if its share is no smaller
 * than the flow's on cur (xl_yield_to) and the move is safe
 * (xl_move_safe over floor_ns and the queues), else 0. members = i |
 * cur << 8 | self << 16. Global: the picker's loops only compare. */
__noinline __u64 xl_yield_key_g(struct xl_flow *flow, __u32 gid, __u32 members, __u64 now,
				__u64 floor_ns)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	struct xl_flow_state *fs = flow ? bpf_map_lookup_elem(&flows, flow) : NULL;
	__u32 i = members & (XL_MAX_GROUP_MEMBERS - 1), e = xl_flow_epoch(now), sh;

	if (!g || !fs)
		return 0;
	sh = xl_member_share_g(gid, i, e, 0);
	if (!xl_yield_to(xl_member_share_g(gid, (members >> 8) & (XL_MAX_GROUP_MEMBERS - 1), e,
					   (members >> 16) & 1), sh) ||
	    !xl_move_safe((__s64)(now - fs->last_ns), floor_ns, g->skew_ns[i], fs->qdelay_ns,
			  member_delay(g, i, now, 0), 1))
		return 0;
	return xl_yield_key(sh, xl_member_util_now(gid, i, now, 0));
}

/* A flow the rates and counts keep on its member cur, which it shares,
 * takes turns (include/lb.h, time-sharing): once it has been there
 * XL_LB_YIELD_NS and wants more than its share, it yields to the best
 * member by xl_yield_key_g, the first of equals. args = the members up |
 * 1 << 16 if cur counts the flow itself | cur << 24. Returns the member.
 * Two passes, as xl_pick_fair_g: a running best's index multiplied the
 * verifier's states past its limit. Global, on the flow's key. */
__noinline int xl_pick_yield_g(struct xl_flow *flow, __u32 gid, __u32 args, __u64 now,
			       __u64 floor_ns)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	struct xl_flow_state *fs = flow ? bpf_map_lookup_elem(&flows, flow) : NULL;
	__u32 cur = (args >> 24) & (XL_MAX_GROUP_MEMBERS - 1), self = (args >> 16) & 1;
	__u32 up = args & 0xffff, others, n;
	__u64 top = 0;
	int i, best = -1;

	if (!g || !fs)
		return cur;
	others = member_flows_of(g->member_slot[cur], xl_flow_epoch(now));
	others = others > self ? others - self : 0;
	if (!xl_may_yield(others, xl_placed_ns(fs->placed_tick, now), flow_rate(g, fs, cur),
			  xl_fair_share(g->capacity_bps[cur], others), fs->qdelay_ns,
			  g->skew_ns[cur]))
		return cur;
	n = g->n_members;
	up &= ~(1U << cur);
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && (up & (1U << i))) {
			__u64 k = xl_yield_key_g(flow, gid, i | cur << 8 | self << 16, now, floor_ns);

			if (k > top)
				top = k;
		}
	if (!top)
		return cur;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && best < 0 && (up & (1U << i)) &&
		    xl_yield_key_g(flow, gid, i | cur << 8 | self << 16, now, floor_ns) == top)
			best = i;
	return best < 0 ? cur : best;
}

/* What xl_choose_uplink's result says beside the member (bits 0-7): the
 * flow moved here from member (r >> 16 & 0xff), or a move there was
 * refused (the reorder-free rule). For the events (bpf/event_ring.h). */
#define XL_CHOSE_MOVED   (1 << 8)
#define XL_CHOSE_REFUSED (1 << 9)
#define XL_CHOSE_OTHER(r) (((r) >> 16) & 0xff)

/* A pure acknowledgement (XL_PURE_ACK) in a flowlet group: the member
 * of its flow, if it has one that is up, counted (packets, bytes, window)
 * but not timed and no part of a flowlet; else -1, and xl_choose_uplink
 * decides as for any packet. Apart from xl_choose_uplink: its stack is
 * at the program's limit. */
__noinline int xl_follow_flow_g(struct xl_flow *flow, __u32 gid, __u64 now,
				__u64 len)
{
	struct xl_flow_state *fs = flow ? bpf_map_lookup_elem(&flows, flow) : NULL;
	int cur;

	if (!fs || fs->group != gid)
		return -1;
	cur = xl_member_index_g(gid, fs->uplink);
	if (cur < 0 || !(group_up_mask(gid, flow->family) & (1U << (cur & 31))))
		return -1;
	flow_count_bytes(fs, now, len);
	return cur;
}

/* What the caller puts in *detail for xl_choose_uplink: XL_PURE_ACK
 * for a pure acknowledgement, and the packet's DSCP in the low bits. */
#define XL_DETAIL_DSCP(d) ((d) & 0x3f)

/* The member of group gid (index into its members) for a packet of len
 * bytes of this flow (*detail: XL_PURE_ACK for a pure acknowledgement, and
 * its DSCP, XL_DETAIL_DSCP), with XL_CHOSE_* flags, or -1 when none is up;
 * for a move or a refused one, *detail is then what the rule weighed (xl_move_detail). Keeps
 * the flow table in every mode, so `xdpleaf flows` works for the baseline
 * too. A global function: the
 * verifier checks it once, on its own, which keeps the per-member loops
 * from multiplying the main program's paths. */
__noinline int xl_choose_uplink(struct xl_flow *flow, __u32 gid, __u64 now,
				__u64 len, __u32 *detail)
{
	struct xl_group *g = bpf_map_lookup_elem(&groups, &gid);
	struct xl_flow_state *fs;
	int m = -1, cur = -1, cur_up = 0, new_flowlet = 0, refused = 0, other = 0;
	__u64 floor_ns = 0;
	__u32 up, n, safe, dscp = 0, lat = 0, least = 0;

	if (!flow || !g)
		return -1;
	if (detail) {
		dscp = XL_DETAIL_DSCP(*detail);
		*detail &= ~XL_DETAIL_DSCP(~0U); /* out: only what a move weighed */
	}
	/* a pure acknowledgement may follow its flow (xl_follow_flow_g) */
	if (detail && (*detail & XL_PURE_ACK)) {
		*detail = 0;
		if (g->lb_mode == XL_LB_FLOWLET || g->lb_mode == XL_LB_FLOWLET_RANDOM) {
			m = xl_follow_flow_g(flow, gid, now, len);
			if (m >= 0)
				return m;
		}
	}
	up = group_up_mask(gid, flow->family);
	n = g->n_members;
	fs = bpf_map_lookup_elem(&flows, flow);
	if (fs && fs->group == gid)
		cur = xl_member_index_g(gid, fs->uplink);
	cur_up = cur >= 0 && (up & (1U << (cur & 31)));
	/* modes whose moves keep the flow's order (xl_move_safe) */
	safe = g->lb_mode == XL_LB_FLOWLET || g->lb_mode == XL_LB_FLOWLET_RANDOM ||
	       (g->lb_mode == XL_LB_SPRAY && g->spray_reorder == XL_SPRAY_SAFE);

	switch (g->lb_mode) {
	case XL_LB_SPRAY:
		m = xl_pick_spray_g(gid, up, bpf_get_prandom_u32());
		break;
	case XL_LB_FLOWLET:
	case XL_LB_FLOWLET_RANDOM:
		floor_ns = g->flowlet_timeout_ns;
		/* Past the group's floor, a paced flow's own spacing may
		 * still be longer (auto): at its pace, the higher of its last
		 * flowlet's and its window's rate (xl_flow_pace_bps). Worked
		 * out only then: most packets of a flowlet come within the
		 * group's floor and pay no division. */
		if (cur_up && xl_flowlet_expired(now, fs->last_ns, floor_ns) &&
		    g->flowlet_auto)
			floor_ns = xl_flowlet_floor_ns(floor_ns, len,
				xl_flow_pace_bps(fs->flowlet_rate_bps,
						 xl_window_rate(fs->prev_win_bytes)));
		/* a latency class's packet: only the least queued members
		 * (include/lb.h), among which the rules below choose; the
		 * group's mask is 0 without a latency class */
		lat = g->latency_dscp && xl_latency_dscp(g->latency_dscp, dscp);
		if (cur_up && !xl_flowlet_expired(now, fs->last_ns, floor_ns)) {
			/* A request stream's packets come closer than the
			 * floor and would keep the member a queue has since
			 * built up on: behind such a queue, a latency class's
			 * packet starts a flowlet whenever the reorder-free
			 * rule lets it leave (its floor 0, below). */
			if (!lat || ((least = xl_least_delay_g(gid, up, now)) & (1U << (cur & 31)))) {
				m = cur;
				break;
			}
			floor_ns = 0;
		}
		new_flowlet = 1;
		if (lat)
			up = least ? least : xl_least_delay_g(gid, up, now);
		if (g->lb_mode == XL_LB_FLOWLET_RANDOM) {
			m = xl_pick_hash_g(bpf_get_prandom_u32(), n, up);
			break;
		}
		m = xl_pick_headroom_g(gid, up, now, fs ? fs->flowlet_rate_bps : 0);
		/* a flow leaves its member only for clearly less load */
		if (xl_may_stay(cur, cur_up, up) && m >= 0 && m != cur &&
		    !xl_move_worth_g(gid, (__u32)cur | (__u32)m << 8, now,
				     flow_rate(g, fs, cur), now - fs->last_ns))
			m = cur;
		/* ... and for a clearly larger share by flow count, or, on a
		 * member it shares, to take turns at sharing (yields) */
		if (xl_may_stay(cur, cur_up, up) && m == cur && xl_counts_flow(len)) {
			__u32 up_self = (up & 0xffff) |
				(__u32)(xl_flow_epoch(now) - fs->count_epoch <= 1) << 16;

			m = xl_pick_fair_g(gid, up_self, now, (__u32)cur, flow_rate(g, fs, cur));
			if (m == cur)
				m = xl_pick_yield_g(flow, gid, up_self | (__u32)cur << 24, now,
						    floor_ns);
		}
		break;
	case XL_LB_HASH:
	default:
		m = xl_pick_hash_g(xl_flow_hash(flow, 0), n, up);
		break;
	}
	if (m < 0 || m >= XL_MAX_GROUP_MEMBERS)
		return -1;
	/* what an event will say, only where one can follow (a new
	 * flowlet's move, or the rule's refusal): a packet that free spray
	 * or a hash of a changed member sends elsewhere pays for no division */
	if (detail && cur >= 0 && m != cur && (new_flowlet || safe))
		*detail = xl_move_detail((__s64)(now - fs->last_ns), fs->qdelay_ns);
	/* A move that could overtake the flow's previous packet is refused:
	 * the packet (a new flowlet's first) stays on the flow's member. */
	if (safe && cur >= 0 && m != cur &&
	    !xl_move_safe((__s64)(now - fs->last_ns), floor_ns,
			  g->skew_ns[m & (XL_MAX_GROUP_MEMBERS - 1)],
			  fs->qdelay_ns, member_delay(g, m, now, 0), cur_up)) {
		other = m;
		m = cur;
		refused = 1;
	}
	m &= XL_MAX_GROUP_MEMBERS - 1;
	/* pending: load the member's average has not seen yet, that is a
	 * flowlet that arrives there, or resumes after its bytes faded out
	 * of the average; one that carries on where it was is measured */
	if (new_flowlet && g->lb_mode == XL_LB_FLOWLET && fs && fs->flowlet_rate_bps &&
	    (m != cur || (__s64)(now - fs->last_ns) > (__s64)XL_RATE_TAU_NS))
		add_pending(g->member_slot[m], now,
			    xl_pending_rate(xl_window_rate(fs->prev_win_bytes),
					    fs->flowlet_rate_bps, g->capacity_bps[m]));

	if (!fs || fs->group != gid) {
		if (bpf_map_update_elem(&flows, flow, &zero_flow, BPF_ANY))
			return m;
		if (!fs) { /* a new entry: the LRU may have evicted one for it */
			__u32 zero = 0;
			struct xl_leaf_counters *lc =
				bpf_map_lookup_elem(&leaf_counters, &zero);

			if (lc)
				lc->flows_created++;
		}
		fs = bpf_map_lookup_elem(&flows, flow);
		if (!fs)
			return m;
		fs->first_ns = now;
		fs->win_start_ns = now;
		fs->group = gid;
		cur = -1;
	}
	if (new_flowlet) {
		/* a first flowlet has no predecessor to measure */
		if (fs->flowlet_bytes)
			fs->flowlet_rate_bps = xl_flowlet_rate(
				fs->flowlet_bytes, fs->last_ns - fs->flowlet_start_ns,
				fs->flowlet_rate_bps);
		fs->flowlet_start_ns = now;
		fs->flowlet_bytes = 0;
		fs->flowlets++;
		fs->moves += cur >= 0 && cur != m;
		if (cur >= 0 && cur != m) {
			other = cur;
			/* its share, for as long as it sent there (an entry
			 * older than placed_tick reads 0: a stay since boot,
			 * its whole rate) */
			member_held_load_leave(g->member_slot[cur & (XL_MAX_GROUP_MEMBERS - 1)],
					       xl_held_share(flow_rate(g, fs, cur),
							     xl_placed_ns(fs->placed_tick,
									  fs->last_ns)));
		}
		count_flowlet(g->member_slot[m],
			      g->member_slot[cur & (XL_MAX_GROUP_MEMBERS - 1)],
			      cur >= 0 && cur != m);
	}
	if (refused) {
		fs->moves_refused++;
		count_refused(g->member_slot[m]);
	}
	if (safe)
		fs->qdelay_ns = member_delay(g, m, now, len);
	/* the flow counts where it sends data (xl_counts_flow) */
	if (g->lb_mode == XL_LB_FLOWLET && xl_counts_flow(len) &&
	    (fs->count_epoch != xl_flow_epoch(now) || (cur >= 0 && cur != m)))
		xl_count_flow_g(flow, gid, (__u32)m | (__u32)(cur >= 0 && cur != m) << 8 |
					   (__u32)(cur & (XL_MAX_GROUP_MEMBERS - 1)) << 16, now);
	if (fs->uplink != g->members[m])
		fs->placed_tick = xl_placed_tick(now);
	fs->uplink = g->members[m];
	fs->flowlet_bytes += len;
	flow_count(fs, now, len);
	if (refused)
		return m | XL_CHOSE_REFUSED | (other & 0xff) << 16;
	if (new_flowlet && cur >= 0 && cur != m)
		return m | XL_CHOSE_MOVED | (other & 0xff) << 16;
	return m;
}

#endif /* XL_UPLINK_H */
