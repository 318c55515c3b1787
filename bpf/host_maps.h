/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Host mode's maps, all in one place: the settings, the NP's limiter and
 * counters, the RP's per-flow state and published rates. Included by
 * bpf/host.bpf.c (through bpf/rp.h) and by bpf/gen.bpf.c, whose
 * `--rate-map` reuses a host instance's pinned RP maps (bpf_map__reuse_fd):
 * the same declarations in both objects are what makes the reuse valid.
 * (gen thereby declares np_flows and host_stats too, unused: 4096 entries,
 * the price of one definition.) Sizes: XL_MAX_QPS (include/host.h), -D
 * overridable. */
#ifndef XL_HOST_MAPS_H
#define XL_HOST_MAPS_H

#include "pin_names.h"
#include "host.h"
#include "events.h"

/* Host settings, entry 0 (struct xl_host_cfg; rp.line_rate = C). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_host_cfg);
} XL_MAP_HOST_CFG SEC(".maps");

/* RP state per sending flow {remote address, family, destination QP}.
 * Created on a flow's first data packet (tc egress, or gen's accounting). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_QPS);
	__type(key, struct xl_qp_key);
	__type(value, struct xl_rp_flow);
} XL_MAP_RP_FLOWS SEC(".maps");

/* The rate each flow may send at: what senders pace by. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_QPS);
	__type(key, struct xl_qp_key);
	__type(value, struct xl_rp_rate);
} XL_MAP_RP_RATES SEC(".maps");

/* NP limiter per marked flow {data source address, family, data's
 * destination QP}, or per port ({0, family 0, qp = ifindex}). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XL_MAX_QPS);
	__type(key, struct xl_qp_key);
	__type(value, struct xl_np_flow);
} XL_MAP_NP_FLOWS SEC(".maps");

/* The host's addresses per port (struct xl_host_addr_key -> 1), written
 * by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XL_MAX_HOST_ADDRS);
	__type(key, struct xl_host_addr_key);
	__type(value, __u8);
} XL_MAP_HOST_ADDRS SEC(".maps");

/* The per-port CNP cap's state (include/events.h's GCRA), per CPU, by
 * ifindex. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct xl_event_limit);
} XL_MAP_NP_PORT_LIMIT SEC(".maps");

/* Host-wide counters (struct xl_host_stats), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xl_host_stats);
} XL_MAP_HOST_STATS SEC(".maps");

#endif
