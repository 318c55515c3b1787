/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Uplink choice: 5-tuple hash (ECMP), flowlet switching by headroom,
 * random flowlets (LetFlow) and per-packet spraying, plus the uplink rate
 * estimator they rely on. Pure C over plain integers, shared by the
 * dataplane (bpf/uplink.h), the unit tests and `xdpleaf sim`; the
 * algorithm is explained in docs/load-balancing.md. */
#ifndef XL_LB_H
#define XL_LB_H

#include "xdpleaf.h"

/* murmur3's 32-bit finaliser: every input bit affects every output bit,
 * which a plain xor of the fields does not (two flows differing only in
 * source port must land on different members about as often as chance). */
static inline __u32 xl_mix32(__u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

/* Four bytes of a flow's address as one word, in host order (the
 * dataplane and user space share the host, so they agree): one load. The
 * addresses sit at 4-byte offsets of a 4-byte aligned struct xl_flow;
 * said so, the compiler loads the word at once, where a byte-wise read
 * took four loads and six operations per word. */
static inline __u32 xl_load32(const __u8 *p)
{
	__u32 w;

	__builtin_memcpy(&w, __builtin_assume_aligned(p, 4), 4);
	return w;
}

/* 5-tuple hash (struct xl_flow in xdpleaf.h; the QP is left out, as a
 * switch's ECMP leaves it out); seed lets an operator de-correlate tiers
 * (not yet exposed). */
static inline __u32 xl_flow_hash(const struct xl_flow *f, __u32 seed)
{
	__u32 h = seed ^ f->proto ^ ((__u32)f->family << 8);
	int i;

#ifdef __clang__
#pragma unroll /* the BPF verifier then sees straight-line code */
#endif
	for (i = 0; i < 16; i += 4) {
		h = xl_mix32(h ^ xl_load32(&f->saddr[i]));
		h = xl_mix32(h ^ xl_load32(&f->daddr[i]));
	}
	return xl_mix32(h ^ ((__u32)f->sport << 16 | f->dport));
}

/* Map a hash onto n members without a division: (hash * n) >> 32 spreads
 * the 32-bit range evenly over 0..n-1. Returns -1 when n is 0. */
static inline int xl_pick_by_hash(__u32 hash, __u32 n)
{
	if (n == 0 || n > XL_MAX_GROUP_MEMBERS)
		return -1;
	return (int)(((__u64)hash * n) >> 32);
}


/* ---- up members ------------------------------------------------------ */

/* Bit i of an up mask: member i is usable (link up). */
#define XL_ALL_UP 0xffffffffU

static inline __u32 xl_popcount(__u32 x)
{
	x = x - ((x >> 1) & 0x55555555);
	x = (x & 0x33333333) + ((x >> 2) & 0x33333333);
	x = (x + (x >> 4)) & 0x0f0f0f0f;
	return (x * 0x01010101) >> 24;
}

/* Index of the k-th (from 0) set bit among the low n bits, or -1. */
static inline int xl_nth_up(__u32 up, __u32 n, __u32 k)
{
	int i;

	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++) {
		if ((__u32)i >= n)
			break;
		if (up & (1U << i)) {
			if (k == 0)
				return i;
			k--;
		}
	}
	return -1;
}

static inline __u32 xl_up_mask(__u32 up, __u32 n)
{
	return n >= 32 ? up : up & ((1U << n) - 1);
}

/* ECMP over the members that are up: a flow stays on its member as long as
 * the set of up members does not change. */
static inline int xl_pick_hash_up(__u32 hash, __u32 n, __u32 up)
{
	__u32 m = xl_up_mask(up, n);
	int k = xl_pick_by_hash(hash, xl_popcount(m));

	return k < 0 ? -1 : xl_nth_up(m, n, k);
}

/* LetFlow: any up member, uniformly. */
static inline int xl_pick_random(__u32 n, __u32 up, __u32 rnd)
{
	return xl_pick_hash_up(rnd, n, up);
}

/* Spraying: an up member with probability proportional to its capacity
 * (all equal when capacities are unknown, i.e. 0). Capacities are scaled
 * to Mb/s so that their sum fits 32 bits. */
static inline __u32 xl_member_weight(const __u64 *cap_bps, __u32 m, int i)
{
	if (!(m & (1U << i)))
		return 0;
	return cap_bps[i] ? (__u32)(cap_bps[i] / 1000000) + 1 : 1;
}

static inline int xl_pick_weighted(const __u64 *cap_bps, __u32 n, __u32 up,
				   __u32 rnd)
{
	__u32 m = xl_up_mask(up, n), total = 0, w;
	__u64 pick;
	int i;

	for (i = 0; i < XL_MAX_GROUP_MEMBERS && (__u32)i < n; i++)
		total += xl_member_weight(cap_bps, m, i);
	if (!total)
		return -1;
	pick = ((__u64)rnd * total) >> 32;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS && (__u32)i < n; i++) {
		w = xl_member_weight(cap_bps, m, i);
		if (pick < w)
			return i;
		pick -= w;
	}
	return -1;
}

/* ---- flowlets --------------------------------------------------------- */

/* A packet starts a new flowlet when the gap since the flow's previous
 * packet is longer than the timeout (a gap of exactly the timeout does
 * not). Signed difference: a clock that went back never splits. */
static inline int xl_flowlet_expired(__u64 now_ns, __u64 last_ns,
				     __u64 timeout_ns)
{
	__s64 gap = (__s64)(now_ns - last_ns);

	return gap > (__s64)timeout_ns;
}

/* A TCP segment that carries no data and no SYN, FIN or RST: a pure
 * acknowledgement. In the flowlet modes it follows its flow's member and
 * neither starts nor extends a flowlet: the gap that ends one counts from
 * the flow's previous other packet. A connection that carries data both
 * ways (a collective's) sends the other side's acknowledgements in its
 * own direction while it has no data of its own; counted, they left no
 * gap when its own data began, so that data went, with no decision,
 * wherever the acknowledgements had been placed (as a 2 Mbit/s flow,
 * beside anything). An acknowledgement that arrives behind its flow's
 * next segment is one the receiver no longer needs (the segment carries
 * a newer one), so the reorder-free rule need not wait for it. The
 * parser's mark travels in arguments' spare high bit (the program's stack
 * has no room for another argument). */
#define XL_PURE_ACK (1U << 31)

/* flowlet_timeout = auto: a gap ends a flowlet only if it is longer than
 * the floor and than XL_FLOWLET_GAP_PACKETS times the flow's own packet
 * spacing (a packet of len bytes at its pace, xl_flow_pace_bps). A sender
 * paced below the uplink's rate (a RoCE QP at its DCQCN rate, a
 * collective's message at 34 Mbit/s on a 100 Mbit/s lab link) leaves a gap
 * between every two packets; counting each as a pause would re-place the
 * flow at every packet, in the middle of its message (in the lab's
 * bench-balance workload 1, 92,913 flowlets in 4 s where 526-1,402 are
 * its messages). Four spacings tell a pause from pacing; at line rate
 * (4 KB at 100 Gbit/s: 0.33 us) the floor decides. No rate yet: the
 * floor. At most 1 s, the timeout's own maximum. */
#define XL_FLOWLET_GAP_PACKETS 4
static inline __u64 xl_flowlet_floor_ns(__u64 floor_ns, __u64 len,
					__u64 flowlet_rate_bps)
{
	__u64 pace;

	if (!flowlet_rate_bps)
		return floor_ns;
	if (len > 65535)
		len = 65535;
	pace = XL_FLOWLET_GAP_PACKETS * len * 8000000000ULL / flowlet_rate_bps;
	if (pace > 1000000000ULL)
		pace = 1000000000ULL;
	return pace > floor_ns ? pace : floor_ns;
}

/* The rate whose packet spacing xl_flowlet_floor_ns weighs: the higher of
 * the flow's last flowlet's rate and its last 10 ms window's. The flowlet
 * rate alone could be stale for good: a TCP connection's first flowlet is
 * its handshake (a few hundred bytes over a round trip, a few Mbit/s),
 * and the floor it gave the next flowlet (four 1,514-byte spacings at
 * that rate, milliseconds) outlasted every pause of a 150 Mbit/s sender
 * pacing in 1 ms bursts, so no later gap ended a flowlet, the rate was
 * never measured again and the flow never left its first member: in the
 * demo's 8 TCP flows, 2 of 10 runs ended with three on one uplink, each
 * of them at 2 flowlets in 2 s against ~520 for the others. A paced flow
 * (a RoCE QP) reads the same on both. */
static inline __u64 xl_flow_pace_bps(__u64 flowlet_rate_bps, __u64 window_rate_bps)
{
	return flowlet_rate_bps > window_rate_bps ? flowlet_rate_bps : window_rate_bps;
}

/* flowlet_timeout = auto, per group: the floor is at least as long as the
 * slowest member takes to drain its whole phantom buffer (buffer bytes at
 * its drain rate), 50 us at least. A pause shorter than that ends no
 * flowlet: the reorder-free rule would let the flow move then only off a
 * member whose queue happened to be short, that is off the emptier
 * members onto the fuller ones, in the middle of a message (in the lab, at
 * 2:1:1:1 with 2 ms buffers, a 1.4 ms floor left the big member 32 % of
 * the load, 3 ms gave it 40.9 %). At 100 Gbit/s with the default 1 MiB
 * buffer the floor is 84 us; at the lab's 100 Mbit/s, 2 ms. A member
 * without a queue (no rate) adds nothing. */
static inline __u64 xl_auto_floor_ns(__u64 floor_ns, __u64 buffer_bytes, __u64 drain_bps)
{
	__u64 t;

	if (!drain_bps)
		return floor_ns;
	t = buffer_bytes * 8000000000ULL / drain_bps;
	if (t > 1000000000ULL)
		t = 1000000000ULL;
	return t > floor_ns ? t : floor_ns;
}

/* ---- reorder-free moves ------------------------------------------------- */

/* Queueing delays are ns in 32 bits: 4.3 s, past any real buffer (a
 * longer one reads as this, which only refuses more). */
#define XL_QDELAY_MAX 0xffffffffU

/* The queueing delay, in ns, of a packet of len bytes joining at vt_now a
 * phantom queue (include/ecn.h) that empties at vtime and drains at
 * drain_bps: the time until it has left, its own transmission included;
 * len 0 gives the time until the queue is empty. A member without a
 * queue (drain_bps 0, no rate) has no delay the leaf knows of. */
static inline __u32 xl_queue_delay(__u64 vtime, __u64 vt_now, __u64 len,
				   __u64 drain_bps)
{
	__u64 ahead;

	if (!drain_bps)
		return 0;
	/* xl_vt_enqueue starts at vt_now or later (signed), so no wrap */
	ahead = (xl_vt_enqueue(vtime, vt_now, len, drain_bps) - vt_now) >>
		XL_VT_SHIFT;
	return ahead > XL_QDELAY_MAX ? XL_QDELAY_MAX : (__u32)ahead;
}

/* Whether a flow's packet may go to another member than its previous
 * packet did without overtaking it (docs/load-balancing.md). The previous
 * packet needed old_qd ns to leave the old member; this one comes gap ns
 * later and waits new_qd ns on the new member before its own
 * transmission starts; the paths behind the two members may differ by up
 * to skew ns that the leaf does not see (cables, the spines' queues). It
 * cannot arrive first if gap + new_qd >= old_qd + skew, that is
 *     gap >= (old_qd - new_qd) + skew,
 * and the gap must also exceed the floor (flowlet_timeout; 0 for spray).
 * A member that is down (old_up 0) lets its flows go at once: nothing of
 * theirs drains toward the receiver any more. A negative gap (another
 * CPU's older clock) counts as 0. The sums cannot wrap: a gap below 2^63
 * plus 32-bit terms. */
static inline int xl_move_safe(__s64 gap_ns, __u64 floor_ns, __u32 skew_ns,
			       __u32 old_qd_ns, __u32 new_qd_ns, int old_up)
{
	__u64 gap = gap_ns > 0 ? (__u64)gap_ns : 0;

	if (!old_up)
		return 1;
	return gap > floor_ns &&
	       gap + new_qd_ns >= (__u64)old_qd_ns + skew_ns;
}

/* What a move's event (or a refused move's) says the rule weighed, in its
 * aux2: the flow's gap before the new flowlet in us (bits 0-15) and the
 * delay its previous packet had on the old member's queue in us (bits
 * 16-31), each saturated at 65535 (65 ms: past any buffer the rule is
 * for). A move whose packets were overtaken all the same shows in them
 * whether the leaf's queue read short or the path behind it was slower. */
#define XL_MOVE_US_MAX 0xffffU
#define XL_MOVE_GAP_US(aux2) ((aux2) & XL_MOVE_US_MAX)
#define XL_MOVE_OLD_QUEUE_US(aux2) ((aux2) >> 16)

static inline __u32 xl_move_detail(__s64 gap_ns, __u32 old_qd_ns)
{
	__u64 gap_us = gap_ns > 0 ? (__u64)gap_ns / 1000 : 0;
	__u32 qd_us = old_qd_ns / 1000;

	if (gap_us > XL_MOVE_US_MAX)
		gap_us = XL_MOVE_US_MAX;
	if (qd_us > XL_MOVE_US_MAX)
		qd_us = XL_MOVE_US_MAX;
	return (__u32)gap_us | qd_us << 16;
}

/* path_skew = auto: the margin for a move onto a member of cap_bps whose
 * frames are up to frame_bytes long. The leaf's phantom queue says when a
 * packet has been sent whole (its own transmission included); a shaper
 * that emulates the link (a token bucket, as the lab's) or a port that
 * starts sending before the leaf's model of it would may let the new
 * member's packets out up to its burst earlier: two full frames at the
 * member's rate, 0.24 us at 100 Gbit/s, 484 us at 50 Mbit/s. A member
 * without a rate adds nothing. Saturates at 1 s, the config's maximum. */
#define XL_SKEW_MAX_NS 1000000000ULL
static inline __u32 xl_auto_skew_ns(__u32 base_ns, __u32 frame_bytes, __u64 cap_bps)
{
	__u64 ns = base_ns;

	if (cap_bps)
		ns += 2ULL * frame_bytes * 8000000000ULL / cap_bps;
	return ns > XL_SKEW_MAX_NS ? (__u32)XL_SKEW_MAX_NS : (__u32)ns;
}

/* Utilization of a member in 1/65536 of its capacity: its measured rate
 * plus what its queue needs to drain within tau, over its capacity. An
 * unknown capacity (0) counts as XL_LB_UNKNOWN_CAP, the same for all, so
 * that members then compare by rate alone. */
#define XL_UTIL_ONE 65536U
#define XL_LB_UNKNOWN_CAP 1000000000ULL
static inline __u32 xl_member_util(__u64 rate_bps, __u64 queue_bytes,
				   __u64 cap_bps, __u64 tau_ns)
{
	__u64 qrate, load, u;

	/* queue * 8e9 / tau, exactly, without a 64-bit overflow: whole taus
	 * and the rest apart; a queue of 2^30 taus saturates anyway */
	if (queue_bytes / tau_ns >= (1ULL << 30))
		return 0xfffffffeU;
	qrate = queue_bytes / tau_ns * 8000000000ULL +
		queue_bytes % tau_ns * 8000000000ULL / tau_ns;
	load = rate_bps + qrate;
	if (load < rate_bps || load >= (1ULL << 47)) /* wrapped, or << 16 would */
		return 0xfffffffeU;
	if (!cap_bps)
		cap_bps = XL_LB_UNKNOWN_CAP;
	u = (load << 16) / cap_bps;
	return u > 0xfffffffeULL ? 0xfffffffeU : (__u32)u;
}

/* The rate a flow sent at in its flowlet that just ended: its bytes over
 * the time from its first to its last packet. A one-packet flowlet has no
 * duration and keeps the flow's previous figure. (n packets over n - 1
 * spacings: short flowlets read a little high.) */
static inline __u64 xl_flowlet_rate(__u64 bytes, __u64 duration_ns,
				    __u64 prev_bps)
{
	if (!duration_ns)
		return prev_bps;
	if (bytes < (1ULL << 31))
		return bytes * 8 * 1000000000ULL / duration_ns;
	return bytes / (duration_ns / 1000 + 1) * 8000000ULL;
}

/* How much of a new flowlet's expected rate (its flow's last flowlet rate)
 * is added to each member's load before comparing: a flowlet weighs less
 * on a big member than on a small one. Comparing without it gives a big
 * member that is as utilized as the small ones only its equal turn of the
 * new flowlets, so with capacities 2:1:1:1 the big one settles below its
 * share (37.7 % instead of 40 % in the lab, 37.9-38.4 % in `xdpleaf sim
 * flowlet`). The part added is rate >> XL_LB_SELF_SHIFT; in the
 * simulation (seeds 1-3) the whole rate overshoots, 41.4-41.6 %, as the
 * big member then wins ties it should share; half gives 40.2-40.6 %, a
 * quarter 40.1-40.5 %, an eighth no more than none (below the tie band).
 * Half it is: 39.0-39.9 % in the lab. docs/load-balancing.md. */
#ifndef XL_LB_SELF_SHIFT
#define XL_LB_SELF_SHIFT 1
#endif

static inline __u64 xl_flowlet_extra(__u64 flowlet_rate_bps)
{
	return flowlet_rate_bps >> XL_LB_SELF_SHIFT;
}

/* Members within 1/32 (3 %) of the least utilized are equally good. */
#define XL_LB_TIE (XL_UTIL_ONE / 32)

/* Flowlet switching: the up member with the lowest utilization. Members
 * within `tie` of the lowest count as equally good, and the (start mod
 * their number)-th of them wins: callers advance `start` per decision, so
 * flowlets that start together (a collective step) spread evenly over the
 * equal members instead of all taking the one that looked best, also
 * while some member is down. */
static inline int xl_pick_least(const __u32 *util, __u32 n, __u32 up,
				__u32 start, __u32 tie)
{
	__u32 m = xl_up_mask(up, n), best = 0xffffffffU, tied = 0, k;
	int i, found = -1;

	if (!m || n == 0)
		return -1;
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && (m & (1U << i)) && util[i] < best)
			best = util[i];
	/* in 64 bits: best + tie must not wrap for saturated members */
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && (m & (1U << i)) &&
		    (__u64)util[i] <= (__u64)best + tie)
			tied++;
	k = start % (tied ? tied : 1); /* tied >= 1: the best is up */
	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++) {
		if ((__u32)i >= n || found >= 0 || !(m & (1U << i)) ||
		    (__u64)util[i] > (__u64)best + tie)
			continue;
		if (k == 0)
			found = i;
		else
			k--;
	}
	return found;
}

/* ---- latency class: the least queued members --------------------------- */

/* A packet of a class with latency = yes (XL_CLASS_LATENCY: requests that
 * want their answer soon, not bandwidth) that starts a new flow or flowlet
 * in a flowlet group may go only to the up members whose phantom queues
 * hold it least: queueing delay xl_queue_delay with len 0 (backlog over
 * drain rate; a member without a queue, no `rate`, has 0). Among those the
 * normal pick chooses (headroom, the move margin, flow counts and yields in
 * flowlet mode; at random in flowlet-random), and the reorder-free rule
 * still decides whether an existing flow may move. By headroom alone a
 * request may land behind a queue: a member's utilization weighs its rate
 * beside its queue, so a busy member with an empty queue loses to one
 * less busy whose queue a burst just filled. docs/load-balancing.md,
 * "Latency class".
 *
 * Members within XL_LB_LATENCY_TIE_NS of the least delay count as equal:
 * less than one full frame at 10 Gbit/s (1.2 us), below what a request
 * could tell apart, so that the normal pick still spreads requests over
 * members whose queues differ by a packet. */
#ifndef XL_LB_LATENCY_TIE_NS
#define XL_LB_LATENCY_TIE_NS 1000U
#endif

/* Whether DSCP dscp is in a latency class, by the group's latency_dscp
 * (struct xl_group). */
static inline int xl_latency_dscp(__u64 latency_dscp, __u32 dscp)
{
	return (int)((latency_dscp >> (dscp & 63)) & 1);
}

/* The up members (bit mask) of n whose delay_ns is within tie_ns of the
 * least: those a latency class's new flowlet may go to. 0 when none is
 * up. */
static inline __u32 xl_least_delay_mask(const __u32 *delay_ns, __u32 n, __u32 up,
					__u32 tie_ns)
{
	__u32 m = xl_up_mask(up, n), best = 0xffffffffU, mask = 0;
	int i;

	for (i = 0; i < XL_MAX_GROUP_MEMBERS; i++)
		if ((__u32)i < n && (m & (1U << i)) && delay_ns[i] < best)
			best = delay_ns[i];
	/* A member's bit is 1 - the sign of best + tie - its delay (in 64
	 * bits, which neither wraps for saturated delays), not a branch:
	 * the BPF verifier then follows one path through the loop, where a
	 * branch per member gave it one per mask and the program did not
	 * load. */
	for (i = 0; i < XL_MAX_GROUP_MEMBERS && (__u32)i < n; i++)
		mask |= (__u32)((((__u64)best + tie_ns - delay_ns[i]) >> 63) ^ 1) << i;
	return mask & m;
}

/* Whether a flow on member cur (up: cur_up) may be kept there by the
 * normal pick's rules (the move margin, flow counts, yields) when only
 * the members in allowed may be chosen: only if cur is one of them. A
 * latency class's flow on a member with a longer queue leaves it (the
 * reorder-free rule permitting); for every other packet allowed is the
 * up mask, and this is cur_up. */
static inline int xl_may_stay(int cur, int cur_up, __u32 allowed)
{
	return cur_up && cur >= 0 && cur < 32 && (allowed & (1U << cur));
}

/* ---- the uplink rate estimator ----------------------------------------- */

/* The weight, in 1/1024 (small products for any rate), that an interval
 * of dt ns gets in the average: dt / (dt + tau). */
static inline __u64 xl_rate_weight(__u64 dt_ns, __u64 tau_ns)
{
	return dt_ns >= 1024 * tau_ns ? 1024 : dt_ns * 1024 / (dt_ns + tau_ns);
}

/* Time-decayed average of a rate: after dt ns in which `bytes` were sent,
 * move the average toward the rate of that interval by dt / (dt + tau),
 * so a long quiet interval pulls it close to the interval's rate and a
 * short one only a little. */
static inline __u64 xl_rate_update(__u64 avg_bps, __u64 bytes, __u64 dt_ns,
				   __u64 tau_ns)
{
	__u64 inst, w;

	if (!dt_ns)
		return avg_bps;
	/* bytes * 8e9 fits 64 bits below 2^31 bytes; beyond, lose a little
	 * precision rather than overflow */
	if (bytes < (1ULL << 31))
		inst = bytes * 8 * 1000000000ULL / dt_ns;
	else
		inst = bytes / (dt_ns / 1000 + 1) * 8000000ULL;
	w = xl_rate_weight(dt_ns, tau_ns);
	if (inst >= avg_bps)
		return avg_bps + (inst - avg_bps) * w / 1024;
	return avg_bps - (avg_bps - inst) * w / 1024;
}

/* The bytes an uplink sent since its last rate sample: `bytes` is the
 * count now, `sample_bytes` the one stored by the last sample. Two CPUs
 * can take samples at once when one is held up (a preempted vCPU) for a
 * sample period between claiming its sample and reading the stored
 * count; the later sample may then have stored a count beyond this one's.
 * That is no bytes, not 2^64 minus a few: as an interval's rate, the
 * difference read as 10^15 bit/s and more, which the slow averages (the
 * held load's 100 ms) took seconds to forget, keeping flowlets off a
 * member that was idle. */
static inline __u64 xl_bytes_since(__u64 bytes, __u64 sample_bytes)
{
	return (__s64)(bytes - sample_bytes) > 0 ? bytes - sample_bytes : 0;
}

/* A flowlet just placed on a member counts toward that member's load at
 * once, as pending rate, before its bytes reach the average: without it,
 * flowlets that start together (a collective step) all see the same idle
 * members and only the tie rotation spreads them. Each sample then moves
 * out of the pending rate the part the average has just taken in (the
 * same weight), so while the flowlet sends at its rate, average + pending
 * stays that rate; if it does not send, the pending part fades as the
 * average would. This returns what a sample after dt takes off. */
static inline __u64 xl_pending_taken(__u64 pending_bps, __u64 dt_ns,
				     __u64 tau_ns)
{
	__u64 w = xl_rate_weight(dt_ns, tau_ns);

	return pending_bps / 1024 * w + pending_bps % 1024 * w / 1024;
}

/* The average as it stands `idle` ns after its last sample with nothing
 * sent since. Samples are taken only when a packet passes, so a gap of up
 * to tau between samples is just the link's packet spacing and leaves the
 * average alone (decaying there made links with sparser packets look idler
 * than busy ones at the same utilization); beyond tau the link has gone
 * quiet and the average falls as tau / idle. Readers use this so a member
 * that stopped does not look busy forever. */
static inline __u64 xl_rate_now(__u64 avg_bps, __u64 idle_ns, __u64 tau_ns)
{
	if (idle_ns <= tau_ns)
		return avg_bps;
	if (avg_bps > 0xffffffffffULL) /* keep avg * tau inside 64 bits */
		return avg_bps / idle_ns * tau_ns;
	return avg_bps * tau_ns / idle_ns;
}

/* ---- staying put ------------------------------------------------------ */

/* The rate a flow is expected to add to a member: its last flowlet's rate
 * (xl_flowlet_rate), but never more than the member can carry. A TCP
 * sender behind an unshaped host link sends its segments back to back, so
 * its flowlets read at the host link's rate (Gbit/s) however slow the
 * uplink: uncapped, one such flowlet would make a 100 Mbit/s member look
 * ten times full. A capacity of 0 (unknown) caps nothing. */
static inline __u64 xl_expected_rate(__u64 flowlet_rate_bps, __u64 cap_bps)
{
	return cap_bps && flowlet_rate_bps > cap_bps ? cap_bps : flowlet_rate_bps;
}

/* A flowlet of a flow with no rate yet (a new flow, or one whose
 * flowlets so far were single packets: a TCP connection's first data
 * comes after its one-packet SYN) would add nothing to any member, so the
 * smallest member looked as good as any that was a little less idle, and
 * the flow could start there; from there its demand reads as what that
 * member lets it send (xl_flow_demand caps it there), no other member
 * looks better by the move margin, and the slowest flow of a ring never
 * pauses long enough to be moved anyway: make bench-jct's run 11 (26
 * November 2026, bench/results/2026-11-28-jct-notebook) had a ring flow
 * on the 50 Mbit/s member of 200/100/100/50 Mbit/s from its first packet
 * to the end of the job (3 flowlets in all in another run),
 * the whole ring at its rate (2.02 x). So such a flow is taken to send at
 * the members' mean capacity, not capped at each candidate's own: on a
 * member smaller than that it weighs more than the member can carry, and
 * it goes there only when every other is fuller still. */
static inline __u32 xl_unknown_flow_mbps(const __u64 *cap_bps, __u32 n)
{
	__u64 sum = 0, mbps;
	__u32 i, known = 0;

	/* (a member without a rate has no capacity to average in) */
	for (i = 0; i < n && i < XL_MAX_GROUP_MEMBERS; i++) {
		sum += cap_bps[i] / 1000000;
		known += cap_bps[i] > 0;
	}
	mbps = known ? sum / known : 0;
	return mbps > 0xffffffffULL ? 0xffffffffU : (__u32)mbps;
}

/* What a new flowlet adds to a member of cap_bps when members are
 * compared: xl_flowlet_extra of its flow's expected rate
 * (xl_expected_rate), or with no rate yet of the group's unknown_mbps,
 * uncapped (xl_unknown_flow_mbps). */
static inline __u64 xl_placement_extra(__u64 flowlet_rate_bps, __u64 cap_bps,
				       __u32 unknown_mbps)
{
	if (!flowlet_rate_bps)
		return xl_flowlet_extra((__u64)unknown_mbps * 1000000);
	return xl_flowlet_extra(xl_expected_rate(flowlet_rate_bps, cap_bps));
}

/* A flow's rate over its last whole window of XL_FLOW_WINDOW_NS (the rate
 * `xdpleaf flows` shows; 0 when the flow paused for a whole window). */
static inline __u64 xl_window_rate(__u64 prev_win_bytes)
{
	return prev_win_bytes * 8 * 1000000000ULL / XL_FLOW_WINDOW_NS;
}

/* What a flow is taken to send at when it decides whether to move, on a
 * member of capacity cap_bps: the higher of its last window's rate and its
 * last flowlet's, at most cap_bps. A collective's flow sends in phases
 * with pauses between them, so its 10 ms window may read a fraction of
 * what it sends at while it sends; judged by that, a member too small for
 * it looked good enough (on 200/100/100/50 Mbit/s, ring flows moved onto
 * the 50 Mbit/s member and the whole ring ran at its rate).
 *
 * With the capacity unknown (0) nothing bounds a flowlet's reading: a TCP
 * flowlet through unshaped links is sent back to back at the host link's
 * rate, Gbit/s against the XL_LB_UNKNOWN_CAP members count as, so every
 * flow looked too big to move anywhere and the first placement stayed
 * (8 TCP flows on 4 unshaped uplinks: 3/1/1/3 for good). There the window
 * says what the flow carries; the flowlet (capped at the stand-in
 * capacity) only when the window read nothing. */
static inline __u64 xl_flow_demand(__u64 window_bps, __u64 flowlet_bps,
				   __u64 cap_bps)
{
	if (!cap_bps)
		return window_bps ? window_bps :
				    xl_expected_rate(flowlet_bps, XL_LB_UNKNOWN_CAP);
	return xl_expected_rate(window_bps > flowlet_bps ? window_bps : flowlet_bps,
				cap_bps);
}

/* The rate a flowlet placed on a member of capacity cap_bps counts there
 * as pending (add_pending) until its bytes are measured: its flowlet's
 * rate, at most cap_bps (xl_expected_rate); on a member of unknown
 * capacity, what the flow is taken to send at (xl_flow_demand: its
 * window). Uncapped there, every TCP flowlet through unshaped links
 * counted its back-to-back rate: 8 connections of 150 Mbit/s kept 12-30
 * Gbit/s pending on each of 4 uplinks, the members compared by that
 * instead of what they carried, and a placement of 4/2/1/1 stayed. */
static inline __u64 xl_pending_rate(__u64 window_bps, __u64 flowlet_bps, __u64 cap_bps)
{
	return cap_bps ? xl_expected_rate(flowlet_bps, cap_bps) :
			 xl_flow_demand(window_bps, flowlet_bps, 0);
}

/* The part of a flow's rate its member's average still holds when the
 * flow was quiet for gap ns: all of it within tau, then less as the
 * average fades (xl_rate_now). A flow resuming after a pause has already
 * left its member's room free, so that room must not count twice in
 * xl_move_worth. */
static inline __u64 xl_rate_still_counted(__u64 flow_bps, __u64 gap_ns)
{
	return xl_rate_now(flow_bps, (__s64)gap_ns > 0 ? gap_ns : 0, XL_RATE_TAU_NS);
}

/* Whether a flow's new flowlet should leave its member for the pick: only
 * if the pick, with the flow on it, would be clearly less utilized than
 * the flow's own member is with it: by more than XL_LB_MOVE_MARGIN (1/16
 * of capacity). Rates in bit/s: flow_bps the flow's rate; still_bps the
 * part of it its member's average still holds (xl_rate_still_counted);
 * *_rate the members' measured and pending rates, *_cap their capacities
 * (0: unknown, as xl_member_util). Utilizations, not spare bit/s: equal
 * spare room would load a big member past its share.
 *
 * The own member counts as at most 1 + 1/16 utilized, or as utilized as
 * its slow average (cur_slow, over XL_RATE_SLOW_TAU_NS) says if that is
 * more: over a short average a member reads far above its capacity when a
 * sender behind a faster link sends its window back to back, though over
 * time it carries only what it can, and such a reading must not move a
 * flow; but senders paced above what the member carries (RoCE QPs at
 * their NIC's rate, the excess lost or marked) keep it over capacity on
 * the slow average too, and their flows must be able to leave it for a
 * member that is over by less. (Capped at 1 + 1/16 alone, four RoCE QPs
 * of 112.5 Mbit/s on members of 200/100/100/50 Mbit/s, one on each, never
 * moved the one on the 50 Mbit/s member, 2.25 x over: 1.125 on the big
 * member did not look better than 1 + 1/16.)
 *
 * On a member of unknown capacity nothing caps a burst's reading, and a
 * flow's rate there is its window's (xl_flow_demand), below what its
 * flowlets read over the fast average: a 200 Mbit/s UDP flow whose
 * flowlets read 761 Mbit/s counted 561 Mbit/s of itself as other load
 * and fled to an idle member at every flowlet, and back (310 moves in
 * 500 ms through the lab's config, which has no rates). There the member
 * counts at the lower of its fast and slow averages: load both agree on.
 *
 * Without this a flow moved whenever another member merely tied with its
 * own: four equal TCP flows on four equal members swapped places at
 * nearly every flowlet, two of them met on one member now and then, and
 * every move could reorder (docs/load-balancing.md has the figures). */
#ifndef XL_LB_MOVE_MARGIN
#define XL_LB_MOVE_MARGIN (XL_UTIL_ONE / 16)
#endif
#define XL_LB_CUR_UTIL_MAX (XL_UTIL_ONE + XL_LB_MOVE_MARGIN)
#define XL_LB_RATE_MAX (1ULL << 46) /* past any link; sums cannot wrap */

static inline int xl_move_worth(__u64 flow_bps, __u64 still_bps, __u64 cur_rate,
				__u64 cur_slow, __u64 cur_cap, __u64 new_rate,
				__u64 new_cap)
{
	__u64 others = cur_rate > still_bps ? cur_rate - still_bps : 0;
	__u32 here, there, here_max;

	if (!cur_cap) {
		/* the slow average's part of the flow: xl_rate_now fades
		 * as tau / idle past tau, so it holds SLOW_TAU / TAU times
		 * what the fast one still does, at most all of the flow */
		__u64 ratio = XL_RATE_SLOW_TAU_NS / XL_RATE_TAU_NS;
		__u64 still_slow = still_bps < flow_bps / ratio ? still_bps * ratio : flow_bps;
		__u64 others_slow = cur_slow > still_slow ? cur_slow - still_slow : 0;

		if (others_slow < others)
			others = others_slow;
	}

	if (flow_bps > XL_LB_RATE_MAX)
		flow_bps = XL_LB_RATE_MAX;
	if (others > XL_LB_RATE_MAX)
		others = XL_LB_RATE_MAX;
	if (new_rate > XL_LB_RATE_MAX)
		new_rate = XL_LB_RATE_MAX;
	if (cur_slow > XL_LB_RATE_MAX)
		cur_slow = XL_LB_RATE_MAX;
	here = xl_member_util(others + flow_bps, 0, cur_cap, XL_RATE_TAU_NS);
	there = xl_member_util(new_rate + flow_bps, 0, new_cap, XL_RATE_TAU_NS);
	here_max = xl_member_util(cur_slow, 0, cur_cap, XL_RATE_TAU_NS);
	if (here_max < XL_LB_CUR_UTIL_MAX)
		here_max = XL_LB_CUR_UTIL_MAX;
	if (here > here_max)
		here = here_max;
	return (__u64)there + XL_LB_MOVE_MARGIN < here;
}

/* ---- held load: what a member's flows bring back after a pause -------- */

/* The flows of a collective pause together between its phases and steps
 * (for ms up to tens of ms), and after a few tau every member's average
 * reads nearly idle. Judged by that, the big member of unequal ones looked
 * better than a flow's own, the flow moved onto it, and the member's own
 * flows came back to find it there: on 200/100/100/50 Mbit/s, ring flows
 * met three on the 200 Mbit/s member for up to 240 ms of a step, 19 % of
 * the time (make bench-jct, 16 MiB all-reduce, one cell traced). Even its
 * 10 ms average read 75-94 Mbit/s after such a pause, as its flows do not
 * stop at the same instant.
 *
 * So a member also keeps its held load: its average over
 * XL_HELD_LOAD_TAU_NS (100 ms, longer than such pauses), less the rate of
 * every flow that left it since. A move onto a member weighs the higher of
 * its fast average (with pending) and its held load
 * (xl_move_target_rate): a member its flows left looks free at once, one
 * whose flows paused does not. An average, not the highest reading: flows
 * that come and go on their own (messages of independent QPs) must still
 * find the room their average leaves. */
#ifndef XL_HELD_LOAD_TAU_NS
#define XL_HELD_LOAD_TAU_NS 100000000ULL /* 100 ms */
#endif

/* A flow left the member: its part of the held load (xl_held_share)
 * goes with it. */
static inline __u64 xl_held_load_leave(__u64 held_bps, __u64 share_bps)
{
	return held_bps > share_bps ? held_bps - share_bps : 0;
}

/* The part of a member's held load that a flow of flow_bps put in by
 * sending there for sent_ns. Taking out the flow's whole rate when it
 * left after a short stay took out load other flows had put in: a ring
 * flow that stayed ~60 ms on the 200 Mbit/s member beside two others
 * took 100 Mbit/s out of a held load that held ~45 of its, the member
 * read as carrying one flow, not two, and the flow came back at its next
 * pause, six times in 260 ms (make bench-jct, unequal 1 MiB all-reduce,
 * run 15 of 26 November 2026: bench/results/2026-11-28-jct-notebook).
 *
 * An average over tau that the flow's samples raised from nothing holds
 * 1 - e^-t/tau of its rate after t. That in 1/1024, by 1 - 1/(1 + x +
 * x^2/2 + x^3/6) with x = t/tau: the series stops short of e^x, so the
 * share errs small (0.625 for 0.632 at one tau, 0.92 for 0.95 at three)
 * and the member reads busy a little longer, never free of flows still
 * on it; past 8 tau, all of it. */
static inline __u64 xl_held_share(__u64 flow_bps, __u64 sent_ns)
{
	__u64 x, series;

	if (flow_bps > XL_LB_RATE_MAX)
		flow_bps = XL_LB_RATE_MAX;
	if (sent_ns >= 8 * XL_HELD_LOAD_TAU_NS)
		return flow_bps;
	x = sent_ns * 1024 / XL_HELD_LOAD_TAU_NS; /* below 8192 */
	series = 1024 + x + x * x / 2048 + x * x * x / (6 * 1024 * 1024);
	return flow_bps - flow_bps * 1024 / series;
}

/* The load a move onto a member weighs: its fast average with pending,
 * or its held load if that is higher. */
static inline __u64 xl_move_target_rate(__u64 fast_bps, __u64 held_bps)
{
	return fast_bps > held_bps ? fast_bps : held_bps;
}

/* ---- flow counts: a fair share among flows that all want more --------- */

/* A TCP flow's member reads at most its capacity however many flows it
 * carries, so by rates a member with five flows and one with three look
 * alike, both full, and neither offers a flow more than its own: in
 * bench-balance's workload 5 (16 connections, 4 equal uplinks, steps
 * 50 ms apart) each step started from placements such as 5/4/4/3 or
 * 5/3/2/6 that stayed, and the step lasted as long as the most crowded
 * uplink took: 1.32 x the ideal where 4/4/4/4 takes 1.06 x. So each
 * member also counts the flows that send on it, and a flow whose new
 * flowlet may move leaves for the member where its fair share (capacity
 * over the flows there, itself included) is clearly larger than at its
 * own.
 *
 * Counts are kept per epoch of 2^XL_FLOW_EPOCH_SHIFT ns (67 ms): a flow
 * counts once in each epoch in which it sends data, and a member's count
 * is the larger of its current and previous epoch's, so a flow stays
 * counted through a pause of up to one epoch (between a collective's
 * steps: 50 ms in that workload) and is forgotten after two (nothing to
 * clean up when a flow ends or the flow table evicts it). A move takes
 * the flow off its old member's counts and onto the new one's at once,
 * so the flows that resume after it see where it went: from 5/4/4/3 one
 * flow moves and the rest stay, 4/4/4/4. (Epochs of 8 ms forgot the
 * placement over such a pause; each resuming flow then went where the
 * fewest had come back yet, with moves at every step, and on unequal
 * members a lone flow left for a big member whose own flows had not
 * come back yet, what the held load exists to prevent.) */
#ifndef XL_FLOW_EPOCH_SHIFT
#define XL_FLOW_EPOCH_SHIFT 26
#endif

/* Whether a packet of len bytes counts its flow: one that carries data.
 * A stream of acknowledgements (whose first packets make a flow entry
 * of their own) or of small control messages wants no share of a
 * member, and counted as a flow it would keep a data flow away. */
#define XL_COUNT_MIN_LEN 256
static inline int xl_counts_flow(__u64 len)
{
	return len >= XL_COUNT_MIN_LEN;
}

/* The epoch of time now_ns; never 0, which a flow's count_epoch uses for
 * "not counted". */
static inline __u32 xl_flow_epoch(__u64 now_ns)
{
	__u32 e = (__u32)(now_ns >> XL_FLOW_EPOCH_SHIFT);

	return e ? e : 1;
}

/* Flows a member counts in epoch e: the larger of its counts of e and
 * e - 1, from its newest epoch m_epoch and counts flows[2] (struct
 * xl_member_flows): what the member no longer holds reads 0. */
static inline __u32 xl_member_flows_now(__u32 m_epoch, const __u32 *flows, __u32 e)
{
	__u32 now = flows[e & 1], before = flows[(e - 1) & 1];

	/* (or one ahead: another CPU's clock read later) */
	if (m_epoch == e || m_epoch == e + 1)
		return now > before ? now : before;
	if (m_epoch == e - 1)
		return before; /* its newest count, none yet in e */
	return 0;
}

/* A flow's fair share on a member of capacity cap_bps that carries n
 * other flows: cap / (n + 1), in units of 1024 bit/s (at most 2^32 - 1:
 * 4.4 Tbit/s). Members of unknown capacity (0) count alike, as
 * XL_LB_UNKNOWN_CAP each (a group gives all its members a rate or none). */
static inline __u32 xl_fair_share(__u64 cap_bps, __u32 n)
{
	__u64 share;

	if (!cap_bps)
		cap_bps = XL_LB_UNKNOWN_CAP;
	share = (cap_bps >> 10) / ((__u64)n + 1);
	return share > 0xffffffffULL ? 0xffffffffU : (__u32)share;
}

/* Whether a flow should move for a share of share_new where it has
 * share_cur (xl_fair_share): only for more by over the move margin
 * (XL_LB_MOVE_MARGIN, 1/16). With equal capacities that is a member with
 * at least two flows fewer than its own, the flow itself included: 5 and
 * 3 become 4 and 4; 4 and 3 stay. */
#define XL_LB_SHARE_K (XL_UTIL_ONE / XL_LB_MOVE_MARGIN)
static inline int xl_share_move_worth(__u32 share_cur, __u32 share_new)
{
	return (__u64)share_new * XL_LB_SHARE_K > (__u64)share_cur * (XL_LB_SHARE_K + 1);
}

/* Whether a flow that sends at demand_bps (xl_flow_demand) wants more
 * than its fair share `share` (xl_fair_share) on its member: half again
 * as much or more. Only such a flow moves for a share. A TCP flow on a
 * full member reads up to its sender's pace there (a window sent back to
 * back), well above its share; a QP paced below its share reads its
 * pace. Unequal members are shared in proportion only by flowlets that
 * take turns (the rates' rule), and whole flows placed by their number
 * pull against that: bench-balance's workload 3 (16 QPs of ~27 Mbit/s
 * on 200/100/100/100 Mbit/s) put 42.5 % of the bytes on the big member
 * instead of 40 % with every flow that read above its share allowed to
 * move (a QP on a member of four reads 27 against 25), and 40.8-41.4 %
 * with this bound. */
static inline int xl_wants_more_share(__u64 demand_bps, __u32 share)
{
	return demand_bps >> 10 >= 3 * (__u64)share / 2;
}

/* ---- time-sharing: a shared member's flow yields its place ------------ */

/* Four flows that each want a member on 100/100/100/25 Mbit/s: whole
 * flows are bounded by two sharing one 100 Mbit/s member (1.625 x the
 * non-blocking reference for a ring all-reduce), and only flows that
 * take turns at sharing beat that. By the rates and the counts nothing
 * is better than 2/1/1/0 (the pair's member and a lone flow's give a
 * newcomer the same share), so a pair stayed where it formed until a
 * lone flow paused, and then a move off the pair's full queue had to
 * wait out that queue: replaying the lab's degraded all-reduce
 * (bench/results/2026-11-28-degraded-trace, 20 ms windows), 885 moves
 * were refused, every one for the queue (gap p50 0.6 ms against the old
 * member's 2 ms, the new member's empty), and one member stayed over
 * its capacity for 160 ms at a stretch.
 *
 * So a flow that has shared its member for XL_LB_YIELD_NS, and wants
 * more than its share there (xl_wants_more_share), moves at a new
 * flowlet to a member where its share is no smaller (xl_yield_to) and
 * the move cannot reorder (xl_move_safe): the pair moves on, the flow it
 * leaves is alone, and the one it joins has had its member to itself.
 * The flow that arrives stays its XL_LB_YIELD_NS, so the pair's other
 * flows, there before it, are the ones to go next. In that replay the
 * longest overload per member fell from 160/140/80/60 ms to 80/80/80/60
 * (moves 41 to 596, refused 885 to 817, the time over capacity the same,
 * 0.4 s per 100 Mbit/s member); moves that ignore the order reach
 * 60/60/80/0, as 84 of the trace's 379 windows have no overload-free
 * placement of whole flows. Held 12 to 22 ms the longest was 60-140 ms,
 * 25 ms 160 ms. Members of unequal shares are not traded: on
 * 200/100/100/50 Mbit/s the pair of the big member has 100 Mbit/s each,
 * what a lone flow has, and a newcomer's 50 would be clearly less.
 *
 * A flow yields only where sharing shows: its last packet waited in its
 * member's queue at least the member's path skew (the margin beyond which
 * the rule trusts the leaf's queues). The counts cannot say it: a flow
 * counts for up to two epochs (134 ms) after it sent, and where a
 * collective's phases last microseconds, as at 100 Gbit/s, every flow of
 * the last 100 ms counted on its member. In the ns-3 fabric
 * (docs/fabric-sim.md) a 32-host pairwise all-to-all's flows each read
 * some 20 others on their member, each found one "to yield to" at each
 * phase, and the step took 1.71 x the reference (768 moves) where it took
 * 1.00 x without the rule; a flow alone on its member at line rate waits
 * in no queue. In the lab's pairs the queue was full (2 ms). */
#ifndef XL_LB_YIELD_NS
#define XL_LB_YIELD_NS 20000000ULL /* 20 ms */
#endif

/* Whether a flow that shares its member with `others` counted flows, has
 * been there placed_ns, sends at demand_bps against its share there
 * (xl_fair_share) and whose last packet waited qdelay_ns in the member's
 * queue, of path skew skew_ns, looks for a member to yield to. */
static inline int xl_may_yield(__u32 others, __u64 placed_ns, __u64 demand_bps, __u32 share,
			       __u32 qdelay_ns, __u32 skew_ns)
{
	return others > 0 && placed_ns >= XL_LB_YIELD_NS && qdelay_ns >= skew_ns &&
	       xl_wants_more_share(demand_bps, share);
}

/* Whether a member where the flow's share would be share_new (its flows
 * and the flow) is one to yield to from share_cur: not clearly less, the
 * move margin of xl_share_move_worth turned round. */
static inline int xl_yield_to(__u32 share_cur, __u32 share_new)
{
	return !xl_share_move_worth(share_new, share_cur);
}

/* The order of the members to yield to, as one number, the larger the
 * better: the larger share, then the less utilized (util as
 * xl_member_util). By member order alone the pair came back to the first
 * member at each turn (in the replay above it then carried 100 ms at a
 * stretch). */
static inline __u64 xl_yield_key(__u32 share, __u32 util)
{
	return (__u64)share << 32 | (__u32)~util;
}

#endif /* XL_LB_H */
