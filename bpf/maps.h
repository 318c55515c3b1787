/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The leaf's maps. All are pinned by the loader under
 * /sys/fs/bpf/xdpleaf/<instance>/ and carry BTF, so bpftool shows fields. */
#ifndef XL_MAPS_H
#define XL_MAPS_H

#include "pin_names.h"
#include "xdpleaf.h"
#include "instance.h"

/* Configured ports by ifindex: role, MAC, counter slot, uplink next hop. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_port);
} XL_MAP_PORTS SEC(".maps");

/* Redirect targets by ifindex; XDP_REDIRECT goes through this. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} XL_MAP_TX_PORTS SEC(".maps");

/* Longest-prefix routes, written from the config by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, XL_MAX_ROUTES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xl_lpm4_key);
	__type(value, struct xl_route);
} XL_MAP_ROUTES4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, XL_MAX_ROUTES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xl_lpm6_key);
	__type(value, struct xl_route);
} XL_MAP_ROUTES6 SEC(".maps");

/* Uplink groups by id: members and load-balancing mode. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct xl_group);
} XL_MAP_GROUPS SEC(".maps");

/* Next-hop MACs, mirrored from the kernel's neighbour table by the
 * instance's daemon. A miss sends the packet to the kernel, whose
 * ARP/ND resolution then fills the entry. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_NEIGH);
	__type(key, struct xl_neigh_key);
	__type(value, struct xl_neigh);
} XL_MAP_NEIGH SEC(".maps");

/* Runtime policy (one entry). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_settings);
} XL_MAP_SETTINGS SEC(".maps");

/* Per-CPU counters per port slot: no atomics on the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_port_stats);
} XL_MAP_PORT_STATS SEC(".maps");

/* Phantom queue of each port slot: one word of shared state, updated with
 * compare-and-swap (bpf/queue.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_queue);
} XL_MAP_QUEUES SEC(".maps");

/* Traffic classes by id: WRED/ECN profile and name. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_CLASSES);
	__type(key, __u32);
	__type(value, struct xl_class);
} XL_MAP_CLASSES SEC(".maps");

/* DSCP (0..63) -> traffic class id. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} XL_MAP_DSCP_CLASS SEC(".maps");

/* Per-CPU marking/drop counters and queue histograms per (slot, class). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_MAX_PORTS * XL_MAX_CLASSES);
	__type(key, __u32);
	__type(value, struct xl_queue_stats);
} XL_MAP_QUEUE_STATS SEC(".maps");

/* The bulk guard of each port slot (struct xl_guard): its own map, so the
 * ports' and queues' layouts stay what `xdpleaf upgrade` adopts. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_guard);
} XL_MAP_GUARDS SEC(".maps");

/* Per-CPU counters of the guard per (slot, class). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_MAX_PORTS * XL_MAX_CLASSES);
	__type(key, __u32);
	__type(value, struct xl_guard_stats);
} XL_MAP_GUARD_STATS SEC(".maps");

/* Load balancing (bpf/uplink.h). The flow table: one entry per flow, least
 * recently used flows are evicted; its size comes from the config. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XL_FLOW_TABLE_SIZE);
	__type(key, struct xl_flow);
	__type(value, struct xl_flow_state);
} XL_MAP_FLOWS SEC(".maps");

/* Whole-leaf counters (struct xl_leaf_counters), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_leaf_counters);
} XL_MAP_LEAF_COUNTERS SEC(".maps");

/* Measured transmit rate per port slot (uplinks). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_uplink_rate);
} XL_MAP_UPLINK_RATES SEC(".maps");

/* Flows counted per port slot (uplinks; struct xl_member_flows). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xl_member_flows);
} XL_MAP_MEMBER_FLOWS SEC(".maps");

/* Members of each group not to be chosen, per family (struct
 * xl_group_down), written by the instance's daemon. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct xl_group_down);
} XL_MAP_GROUP_DOWN SEC(".maps");

/* VLANs each port forwards tagged frames of; any other VID but 0 goes to
 * the kernel (vlan_unknown). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_PORT_VLANS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xl_vlan_key);
	__type(value, __u8);
} XL_MAP_PORT_VLANS SEC(".maps");

/* Rotating start for tie-breaking among equally good members. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XL_MAX_GROUPS);
	__type(key, __u32);
	__type(value, __u32);
} XL_MAP_GROUP_RR SEC(".maps");

/* The generation of ports, routes and neighbours (entry 0): user space
 * writes a new one after changing any of them (include/fwd_gen.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} XL_MAP_FWD_GEN SEC(".maps");

/* The per-CPU forwarding caches (bpf/fwd_cache.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_PORT_CACHE);
	__type(key, __u32);
	__type(value, struct xl_port_cached);
} XL_MAP_PORT_CACHE SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XL_ROUTE_CACHE);
	__type(key, __u32);
	__type(value, struct xl_route_cached);
} XL_MAP_ROUTE_CACHE SEC(".maps");

#endif /* XL_MAPS_H */
