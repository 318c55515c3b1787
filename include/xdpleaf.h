/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Map keys, values and constants shared by the BPF programs and the
 * `xdpleaf` command. Both sides include this one file so a layout can never
 * drift between them. Fixed-width kernel types only: it must compile against
 * vmlinux.h (BPF) and <linux/types.h> (user space). */
#ifndef XDPLEAF_H
#define XDPLEAF_H

/* Sizes are overridable with -D so tests can shrink them. */
#ifndef XL_MAX_PORTS
#define XL_MAX_PORTS 64
#endif
#ifndef XL_MAX_GROUPS
#define XL_MAX_GROUPS 16
#endif
#ifndef XL_MAX_GROUP_MEMBERS
#define XL_MAX_GROUP_MEMBERS 16
#endif
_Static_assert((XL_MAX_GROUP_MEMBERS & (XL_MAX_GROUP_MEMBERS - 1)) == 0,
	       "XL_MAX_GROUP_MEMBERS must be a power of two");
#ifndef XL_MAX_ROUTES
#define XL_MAX_ROUTES 16384
#endif
#ifndef XL_MAX_NEIGH
#define XL_MAX_NEIGH 8192
#endif

#define XL_IFNAMSIZ 16

#include "ecn.h"
#include "proto.h"

enum xl_port_role {
	XL_ROLE_DOWNLINK = 0, /* hosts behind this leaf */
	XL_ROLE_UPLINK = 1,   /* toward a spine; member of one group */
};

enum xl_overflow {
	XL_OVERFLOW_DROP = 0, /* a full buffer tail-drops, as a switch does */
	XL_OVERFLOW_MARK = 1, /* a full buffer marks ECT packets, never drops */
};

/* Value of the `ports` map, keyed by ifindex. */
struct xl_port {
	__u32 ifindex;
	__u32 slot;   /* index into per-port counters, 0..XL_MAX_PORTS-1 */
	enum xl_port_role role;
	__u32 group;  /* uplink group id (uplinks only) */
	__u8 mac[XL_ETH_ALEN];
	__u8 has_nexthop4;
	__u8 has_nexthop6;
	__u8 nexthop4[4];  /* uplink next hop (the spine), network order */
	__u8 nexthop6[16];
	char name[XL_IFNAMSIZ];
	/* RoCEv2 packets arriving here have their QP's PSNs tracked (config
	 * `psn_tracking`): one LRU lookup per packet, so only where asked. */
	__u8 psn_tracking;
	/* the port's bulk guard (its `guards` entry) is on: the port has a
	 * rate, bulk_gamma < 1 and the configuration a latency class. A
	 * byte of what was padding, so the map's layout stays as it was
	 * (`xdpleaf upgrade` keeps it) */
	__u8 bulk_guard;
	__u8 pad_[2];
	/* Phantom queue (include/ecn.h); drain_bps 0 = unlimited port, no
	 * queue, no marking. */
	__u64 line_rate_bps;
	__u64 drain_bps;      /* gamma x line rate: what the queue drains at */
	__u32 gamma_ppm;      /* gamma in millionths, for display */
	__u32 buffer_bytes;
	enum xl_overflow overflow;
	/* bytes each frame also takes on the line (XL_DEFAULT_LINE_OVERHEAD):
	 * the phantom queue spends len + this of the port's rate */
	__u32 line_overhead;
};

/* Shared (not per-CPU) state of one port's phantom queue, keyed by slot:
 * the time it will be empty, in 1/64 ns (include/ecn.h). */
struct xl_queue {
	__u64 vtime;
};

/* A port's bulk guard (include/ecn.h, xl_guard_decide), keyed by slot:
 * vtime is shared state like struct xl_queue's (compare-and-swap), the
 * rest the loader's, written with the vtime the entry holds. */
struct xl_guard {
	__u64 vtime;
	__u64 drain_bps;   /* bulk_gamma x the port's drain_bps; 0 = off */
	__u32 mark_bytes;  /* marks above this backlog: two largest frames */
	__u32 gamma_ppm;   /* bulk_gamma in millionths, for display */
};

/* Per-CPU counters of one (port slot, class)'s packets in the guard, key
 * as struct xl_queue_stats's. */
struct xl_guard_stats {
	__u64 packets;     /* offered to the guard (queued, marked, dropped) */
	__u64 marked;      /* CE set by the guard */
	__u64 dropped;     /* dropped by the guard (reason tail_drop) */
	__u64 peak_bytes;  /* the longest guard backlog met, this CPU */
};

#define XL_CLASS_DEFAULT 0 /* id of the catch-all class "default" */
#define XL_CLASS_CNP 1     /* id of the built-in class "cnp" */
#define XL_CLASS_ROCE 2    /* id of the built-in class "roce" */

/* A traffic class: its marking profile and name, keyed by class id. */
struct xl_class {
	struct xl_wred wred;
	char name[XL_IFNAMSIZ];
};

/* Per-CPU counters of one (port slot, class): key slot * XL_MAX_CLASSES +
 * class. */
struct xl_queue_stats {
	__u64 enq_packets;   /* offered to the queue (marked, passed, dropped) */
	__u64 enq_bytes;
	__u64 marked;        /* CE set by us */
	__u64 dropped;       /* tail drops */
	__u64 peak_bytes;    /* largest queue seen at enqueue, this CPU */
	__u64 hist[XL_QHIST_BUCKETS]; /* queue length at enqueue, log2 */
	/* labels, written by the loader into every CPU's copy (as in
	 * struct xl_port_stats): the port's and the class's names */
	char port[XL_IFNAMSIZ];
	char class_name[XL_IFNAMSIZ];
};
#define XL_QUEUE_STATS_COUNTERS __builtin_offsetof(struct xl_queue_stats, port)

enum xl_route_kind {
	XL_ROUTE_PORT = 1,  /* on-link: the destination itself is the neighbour */
	XL_ROUTE_GROUP = 2, /* via an uplink group: the member's next hop is */
};

struct xl_route {
	enum xl_route_kind kind;
	__u32 target; /* ifindex (port) or group id */
};

struct xl_lpm4_key {
	__u32 prefixlen;
	__u8 addr[4];
};

struct xl_lpm6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

enum xl_lb_mode {
	XL_LB_HASH = 0,           /* 5-tuple hash: the ECMP baseline */
	XL_LB_FLOWLET = 1,        /* new flowlet -> member with most headroom */
	XL_LB_FLOWLET_RANDOM = 2, /* new flowlet -> random member (LetFlow) */
	XL_LB_SPRAY = 3,          /* every packet -> random member, by capacity */
	XL_LB_MODES,
};

/* Spray mode's per-packet moves (`spray_reorder`): free sprays as it
 * draws (the default: spraying is meant to reorder, and the receivers'
 * transports absorb it), safe applies the reorder-free rule of
 * include/lb.h to every packet, which lets back-to-back packets move only
 * onto fuller members. Free is 0, so a zeroed group is the default. */
enum xl_spray_reorder {
	XL_SPRAY_FREE = 0,
	XL_SPRAY_SAFE = 1,
	XL_SPRAY_REORDERS,
};

#ifndef XL_FLOW_TABLE_SIZE
#define XL_FLOW_TABLE_SIZE 65536 /* default; the config can set it */
#endif
/* A frame's bytes beyond its MTU (Ethernet header, one VLAN tag), and the
 * largest frame of a port whose MTU is not known: path_skew = auto and the
 * default buffer count in frames. */
#define XL_FRAME_OVERHEAD 18
#define XL_DEFAULT_FRAME (1500 + XL_FRAME_OVERHEAD)
/* What an Ethernet frame costs a port's line beyond the bytes XDP sees:
 * preamble and start delimiter 8, FCS 4, inter-frame gap 12. A port's
 * rate is a line rate, so its phantom queue counts them: without them it
 * drains 1.6 % faster than the port with 1,514-byte frames and 27 %
 * faster with 66-byte ACKs, and reads its queue short (docs/ecn.md). */
#define XL_DEFAULT_LINE_OVERHEAD 24
/* bulk_gamma's default: HULL's (Alizadeh et al., NSDI 2012) phantom
 * queues drain at 0.95 of the line rate, which keeps the real queue near
 * empty for a 5 % cut in what bulk traffic may use (docs/ecn.md). */
#define XL_BULK_GAMMA_DEFAULT_PPM 950000
/* The base of `flowlet_timeout = auto` (the floor of the reorder-free
 * rule) and of `path_skew = auto` (its margin), to which auto adds the
 * buffer, pacing and frame terms; docs/load-balancing.md has the figures
 * behind both. */
#define XL_DEFAULT_FLOWLET_TIMEOUT_NS 50000ULL /* 50 us */
#define XL_DEFAULT_PATH_SKEW_NS 25000U         /* 25 us */
/* Uplink rate estimator: sample an uplink's transmitted bytes at most
 * every XL_RATE_SAMPLE_NS; average over XL_RATE_TAU_NS (include/lb.h). */
#ifndef XL_RATE_SAMPLE_NS
#define XL_RATE_SAMPLE_NS 50000ULL   /* 50 us */
#endif
#ifndef XL_RATE_TAU_NS
#define XL_RATE_TAU_NS 500000ULL     /* 500 us */
#endif
/* ... and also over this, for sustained load (xl_move_worth): a TCP
 * window sent back to back lifts a 500 us average far past the member's
 * capacity, a 10 ms one by at most the buffer the member holds. */
#ifndef XL_RATE_SLOW_TAU_NS
#define XL_RATE_SLOW_TAU_NS 10000000ULL /* 10 ms */
#endif
/* Window of the per-flow rate shown by `xdpleaf flows`. */
#define XL_FLOW_WINDOW_NS 10000000ULL /* 10 ms */

/* Value of the `groups` array, keyed by group id. */
struct xl_group {
	enum xl_lb_mode lb_mode;
	__u32 n_members;
	__u32 members[XL_MAX_GROUP_MEMBERS];      /* ifindexes */
	__u32 member_slot[XL_MAX_GROUP_MEMBERS];  /* their counter slots */
	__u64 capacity_bps[XL_MAX_GROUP_MEMBERS]; /* port rate; 0 = unknown */
	/* what their phantom queues drain at (gamma x rate); 0 = no queue */
	__u64 drain_bps[XL_MAX_GROUP_MEMBERS];
	__u64 flowlet_timeout_ns; /* floor: a shorter gap is no flowlet */
	__u32 path_skew_ns;       /* margin of the reorder-free rule */
	enum xl_spray_reorder spray_reorder;
	/* the margin for a move to each member: path_skew_ns, plus with
	 * path_skew = auto two full frames at that member's rate
	 * (xl_auto_skew_ns) */
	__u32 skew_ns[XL_MAX_GROUP_MEMBERS];
	/* flowlet_timeout = auto (then flowlet_timeout_ns already covers the
	 * slowest member's buffer, xl_auto_floor_ns): the floor is also
	 * XL_FLOWLET_GAP_PACKETS of the flow's own packet spacing
	 * (xl_flowlet_floor_ns) */
	__u32 flowlet_auto;
	/* what a flow with no rate yet is taken to send at when a flowlet of
	 * it is placed: the members' mean capacity in Mbit/s
	 * (xl_unknown_flow_mbps; 0 with capacities unknown). Derived from
	 * capacity_bps and kept here because a loop over the members in the
	 * picker took its call chain past BPF's 512-byte stack. */
	__u32 unknown_rate_mbps;
	/* the DSCPs (bit d: DSCP d) whose class has latency = yes
	 * (XL_CLASS_LATENCY): their new flows and flowlets go to the least
	 * queued member (include/lb.h, "latency class"). The same in every
	 * group, from the classes (the loader); kept here, in the entry the
	 * choice has in hand, so that a packet pays no class lookup for it,
	 * and with no latency class (0) nothing at all. */
	__u64 latency_dscp;
	char name[32];
};

/* A flow, as the parser sees it and as the flow table keys it: RoCEv2
 * (UDP 4791) is addresses + UDP source port + destination QP; everything
 * else the 5-tuple (qp 0). IPv4 addresses use the first 4 bytes of
 * saddr/daddr, the rest zero, so one layout serves both families. */
struct xl_flow {
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 sport;   /* host order; 0 for fragments and non-TCP/UDP */
	__u16 dport;
	__u8 proto;
	__u8 family;   /* 4 or 6 */
	__u16 pad;
	__u32 qp;      /* BTH destination QP for RoCEv2, else 0 */
};

/* Value of the `flows` LRU table. Written by the CPU that sees the flow's
 * packet; a flow's packets normally arrive on one CPU. */
struct xl_flow_state {
	__u64 last_ns;       /* previous packet (in the flowlet modes, not a
			      * pure acknowledgement: XL_PURE_ACK) */
	__u64 first_ns;
	__u64 packets;
	__u64 bytes;
	__u64 flowlets;      /* times a new flowlet started */
	__u64 moves;         /* flowlets that changed uplink */
	__u64 win_start_ns;  /* rate: bytes of the current and last window */
	__u64 win_bytes;
	__u64 prev_win_bytes;
	__u64 flowlet_start_ns; /* first packet of the current flowlet */
	__u64 flowlet_bytes;    /* bytes of the current flowlet */
	__u64 flowlet_rate_bps; /* rate of the last flowlet that had one */
	__u64 moves_refused; /* moves the reorder-free rule kept back */
	__u32 uplink;        /* ifindex of the current uplink */
	__u32 group;
	/* ns the previous packet took to leave its uplink's phantom queue,
	 * its own transmission included: what the next move must wait out */
	__u32 qdelay_ns;
	/* when the flow came to its uplink, in ticks of 2^XL_PLACED_TICK_SHIFT
	 * ns (about a ms; wraps after 52 days): how much of the uplink's
	 * held load it takes along when it leaves (xl_held_share) */
	__u32 placed_tick;
	/* the flow count epoch (xl_flow_epoch) its member last counted it
	 * in, 0 if none; and whether it was counted in the epoch before
	 * that too (XL_COUNTED_BEFORE): what a move takes off the member's
	 * counts (bpf/uplink.h, member_flows) */
	__u32 count_epoch;
	__u32 count_flags;
};

#define XL_COUNTED_BEFORE 1U

#define XL_PLACED_TICK_SHIFT 20

/* The placed_tick of time now (ns), and the ns from a placed_tick to
 * now: right across the u32's wrap for any stay under 52 days. One place
 * for the dataplane (a leaving flow's share, bpf/uplink.h) and `flows`
 * (on_uplink_ms). */
static inline __u32 xl_placed_tick(__u64 now_ns)
{
	return (__u32)(now_ns >> XL_PLACED_TICK_SHIFT);
}

static inline __u64 xl_placed_ns(__u32 placed_tick, __u64 now_ns)
{
	return (__u64)(__u32)(xl_placed_tick(now_ns) - placed_tick) << XL_PLACED_TICK_SHIFT;
}

/* Per-CPU counters of the whole leaf (entry 0 of `leaf_counters`): what
 * the flow table took in, against which its entries now tell how many
 * the LRU evicted (stats: flow_table.evicted = created - entries). */
struct xl_leaf_counters {
	__u64 flows_created;
};

/* Members of a group not to be chosen (bit i = member i), per address
 * family: its link is down, or its next hop of that family has no MAC yet.
 * Written by the instance's daemon; all zero = every member usable. */
struct xl_group_down {
	__u32 v4;
	__u32 v6;
};

/* Measured transmit rate of an uplink, keyed by port slot. Shared; only
 * the CPU that wins the compare-and-swap on sample_ns updates a sample. */
struct xl_uplink_rate {
	__u64 sample_ns;     /* time of the last sample */
	__u64 sample_bytes;  /* tx bytes (all CPUs) at that time */
	__u64 rate_bps;      /* time-decayed average */
	/* flowlets placed here whose bytes the average has not taken in
	 * yet (xl_pending_taken); added and taken atomically */
	__u64 pending_bps;
	/* the same average over XL_RATE_SLOW_TAU_NS: sustained load, which
	 * a burst does not move (xl_move_worth) */
	__u64 rate_slow_bps;
	/* held load: the average over XL_HELD_LOAD_TAU_NS less the flows
	 * that left since, what the member's flows bring back after a
	 * pause (include/lb.h) */
	__u64 held_bps;
};

/* How many flows send on an uplink (keyed by port slot): each flow
 * counts once in every epoch (xl_flow_epoch) it sends data there
 * (xl_counts_flow). flows[epoch & 1] is the count of `epoch`, the
 * newest, and flows[(epoch - 1) & 1] that of the epoch before; a move
 * takes the flow off the counts it was in. Only the flowlet mode keeps
 * it. */
struct xl_member_flows {
	__u32 epoch;
	__u32 flows[2];
	__u32 pad;
};

/* Key of the `port_vlans` map: a VLAN a port forwards tagged frames of
 * (config `vlans`); the value is 1. */
#ifndef XL_MAX_PORT_VLANS
#define XL_MAX_PORT_VLANS 16384
#endif
struct xl_vlan_key {
	__u32 ifindex;
	__u32 vid;
};

/* Key of the `neigh` map: a next hop on one port. IPv4 addresses use the
 * first 4 bytes of addr, the rest zero. */
struct xl_neigh_key {
	__u32 ifindex;
	__u32 family; /* AF_INET or AF_INET6 */
	__u8 addr[16];
};

/* The leaf's per-CPU forwarding caches (bpf/fwd_cache.h): a configured
 * port with its uplink next hops' MACs ([0] IPv4, [1] IPv6), and a
 * destination's route with its MAC when on-link; gen: the generation of
 * the maps they were filled from (0: empty). Ports sit at ifindex mod
 * XL_PORT_CACHE, destinations at a hash of their address. */
#define XL_PORT_CACHE 256
#define XL_ROUTE_CACHE 4096
struct xl_port_cached {
	__u64 gen;
	struct xl_port port;
	__u8 nh_mac[2][XL_ETH_ALEN];
	__u8 nh_ok[2];
	__u8 pad[2];
};

struct xl_route_cached {
	__u64 gen;
	__u8 daddr[16];
	__u8 family;
	__u8 kind;      /* enum xl_route_kind */
	__u8 nh_ok;     /* nh_mac is the destination's (on-link routes) */
	__u8 pad;
	__u32 target;   /* ifindex (port) or group id */
	__u8 nh_mac[XL_ETH_ALEN];
	__u8 pad2[2];
};

struct xl_neigh {
	__u8 mac[XL_ETH_ALEN];
	/* the kernel's entry is static (PERMANENT, NOARP): the daemon does
	 * not re-probe it; the programs never read this */
	__u16 is_static;
};

enum xl_malformed_action {
	XL_MALFORMED_PASS = 0, /* hand to the kernel, which drops or answers */
	XL_MALFORMED_DROP = 1,
};

/* Runtime policy: single entry of the `settings` array. */
struct xl_settings {
	enum xl_malformed_action malformed;
	__u32 pad;
	__u64 pfc_watchdog_ns; /* a longer unbroken pause is a storm; 0: off */
};

/* Why a packet got its verdict, as one list that makes the enum, the
 * counter struct's named fields (so `bpftool map dump` prints names, not
 * an array indexed by the enum) and the names (user/base/names.c). The
 * first group forwards, the second goes to the kernel on purpose, the last
 * is malformed input; docs/metrics.md explains each. */
#define XL_REASONS(X)                                                         \
	X(FORWARDED, forwarded)                                               \
	/* to the kernel, by design */                                        \
	X(ARP, arp)                                                           \
	X(LLDP, lldp)                                                         \
	X(MAC_CONTROL, mac_control)   /* PAUSE/PFC: counted (bpf/pfc.h) */    \
	X(NON_IP, non_ip)             /* any other ethertype */               \
	X(VLAN_STACK, vlan_stack)     /* more than one VLAN tag */            \
	X(NOT_OUR_MAC, not_our_mac)   /* broadcast, multicast, another MAC */ \
	X(ND, nd)                     /* IPv6 neighbour discovery */          \
	X(LINK_LOCAL, link_local)     /* IPv6 link-local or multicast dst */  \
	X(TTL_EXPIRED, ttl_expired)   /* TTL/hop limit <= 1: kernel's ICMP */ \
	X(IP_OPTIONS, ip_options)     /* IPv4 options: the kernel's path */   \
	X(VLAN_UNKNOWN, vlan_unknown) /* a VID not in the port's `vlans` */   \
	X(NO_ROUTE, no_route)                                                 \
	X(NO_NEIGH, no_neigh)         /* kernel resolves; daemon learns */    \
	X(NO_MEMBER, no_member)       /* group without a usable member */     \
	X(UNKNOWN_PORT, unknown_port) /* target is not a configured port */   \
	X(REDIRECT_FAILED, redirect_failed)                                   \
	X(TAIL_DROP, tail_drop)       /* egress phantom queue full */         \
	/* malformed: pass or drop per xl_settings.malformed */               \
	X(TRUNC_ETH, trunc_eth)                                               \
	X(TRUNC_VLAN, trunc_vlan)                                             \
	X(TRUNC_IP4, trunc_ip4)                                               \
	X(BAD_IP4, bad_ip4)           /* version, IHL, total length */        \
	X(TRUNC_IP6, trunc_ip6)                                               \
	X(BAD_IP6, bad_ip6)           /* version or payload length */         \
	X(TRUNC_L4, trunc_l4)         /* UDP or TCP header cut short */       \
	X(TRUNC_BTH, trunc_bth)       /* RoCEv2 BTH cut short */              \
	X(BAD_L4, bad_l4)             /* TCP offset < 5, UDP length wrong */  \
	X(BAD_SRC_MAC, bad_src_mac)   /* multicast source, or our own MAC */  \
	X(BAD_VLAN, bad_vlan)         /* VID 4095 (reserved) */               \
	X(MARTIAN, martian)           /* loopback, 0/8, multicast source */

enum xl_reason {
#define XL_REASON_ENUM(U, l) XL_R_##U,
	XL_REASONS(XL_REASON_ENUM)
#undef XL_REASON_ENUM
	XL_REASON_MAX,
};

#define XL_FIRST_MALFORMED XL_R_TRUNC_ETH

struct xl_reason_counts {
#define XL_REASON_FIELD(U, l) __u64 l;
	XL_REASONS(XL_REASON_FIELD)
#undef XL_REASON_FIELD
};

/* XDP verdicts we count: XDP_ABORTED..XDP_REDIRECT, in that order. */
#define XL_VERDICT_MAX 5
struct xl_verdict_counts {
	__u64 aborted;
	__u64 drop;
	__u64 pass;
	__u64 tx;
	__u64 redirect;
};

_Static_assert(sizeof(struct xl_reason_counts) == XL_REASON_MAX * 8 &&
	       sizeof(struct xl_verdict_counts) == XL_VERDICT_MAX * 8,
	       "counter structs are arrays of __u64 indexed by their enum");

/* The counter of reason r / verdict v (bounds checked by the caller): the
 * structs are laid out as arrays, see the assertion above. */
static inline __u64 *xl_reason_counter(struct xl_reason_counts *c, __u32 r)
{
	return &((__u64 *)c)[r];
}
static inline __u64 *xl_verdict_counter(struct xl_verdict_counts *c, __u32 v)
{
	return &((__u64 *)c)[v];
}

/* Per-CPU counters, one entry per port slot. rx_* and verdict/reason count
 * on the ingress port, tx_* on the egress port. Only __u64 counters up to
 * `port`; `port` is the port's name, written into every CPU's copy by the
 * loader so that a dump of the map says whose counters these are. */
struct xl_port_stats {
	__u64 rx_packets;
	__u64 rx_bytes;
	__u64 tx_packets;
	__u64 tx_bytes;
	__u64 flowlets;      /* uplinks: flowlets started on this port */
	__u64 moves_in;      /* uplinks: flowlets that moved here ... */
	__u64 moves_out;     /* ... and away from here */
	__u64 moves_refused; /* moves away kept here by the reorder-free rule */
	struct xl_verdict_counts verdict;
	struct xl_reason_counts reason;
	char port[XL_IFNAMSIZ];
};
#define XL_PORT_STATS_COUNTERS __builtin_offsetof(struct xl_port_stats, port)

/* Single entry of the `instance` array, both modes: where and by what the
 * instance was loaded. The programs never read it. Ifindexes and XDP
 * hooks belong to one network namespace, so the xdpleaf command compares
 * the namespace with its own before it reads them (user/instance/netns.c). All
 * zero: pinned by a version without the record, namespace unknown. */
struct xl_instance {
	__u64 netns_ino;      /* the loader's /proc/self/ns/net */
	__u64 netns_dev;
	char netns_name[64];  /* its name under /run/netns then, "" if none */
	char version[32];     /* the xdpleaf that loaded it */
	char git_commit[48];
};

/* Single entry of the `heartbeat` array, both modes: the daemon's sign of
 * life, so that a daemon that is stopped or hung (its pid alive, its loop
 * not running) is told from one that works. The daemon writes it from its
 * loop, 0.5-1.5 s apart; the loader writes the load's time with pid 0.
 * CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock, so a program could compare
 * it with its own time; and a suspended machine's sleep, in which no
 * daemon can beat, is no age (CLOCK_BOOTTIME would count it). All zero:
 * no beat and no load time (the map was added by an upgrade). */
struct xl_heartbeat {
	__u64 time_ns; /* CLOCK_MONOTONIC of the last beat (or of the load) */
	__u64 beats;   /* beats written by this pid */
	__u32 pid;     /* the daemon that beat; 0: none since load */
	__u32 pad;
};

/* Enum fields are typed so that BTF names their values (bpftool prints
 * "XL_ROLE_UPLINK", not 1); they must stay 4 bytes. */
_Static_assert(sizeof(enum xl_port_role) == 4 && sizeof(enum xl_lb_mode) == 4,
	       "enum fields are 32 bits wide");

#endif /* XDPLEAF_H */
