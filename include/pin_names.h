/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Every name the BPF objects, the loader, the show commands, the traffic
 * tools and the tests must agree on, defined once.
 *
 * Maps: the BPF side declares each map with the identifier below (bpf/
 * maps.h, bpf/host_maps.h, ...), so the name libbpf pins it under
 * (/sys/fs/bpf/xdpleaf/INSTANCE/NAME) and the skeleton's member are that
 * identifier; user space opens a pin by XL_MAP_NAME(XL_MAP_...). (As
 * xdp-tools' MAP_NAME_* in xdp-filter/common_kern_user.h.)
 *
 * Programs are pinned as "prog_" + their name without "xdpleaf_"
 * (xl_pin_object), links as a prefix + the port's name. */
#ifndef XL_PIN_NAMES_H
#define XL_PIN_NAMES_H

#define XL_NAME_STR_(x) #x
/* The pinned file name of a map: XL_MAP_NAME(XL_MAP_PORTS) is "ports". */
#define XL_MAP_NAME(map) XL_NAME_STR_(map)

/* every instance (bpf/instance.h): where and by what it was loaded */
#define XL_MAP_INSTANCE     instance
/* every instance (bpf/instance.h): the daemon's heartbeat */
#define XL_MAP_HEARTBEAT    heartbeat

/* events, both modes (bpf/event_ring.h), and RoCE/PFC telemetry
 * (bpf/psn.h; pfc_* leaf only) */
#define XL_MAP_EVENTS       events
#define XL_MAP_EVENT_CFG    event_cfg
#define XL_MAP_EVENT_LIMITS event_limits
#define XL_MAP_EVENT_COUNTS event_counts
#define XL_MAP_PSN          roce_psn
#define XL_MAP_PFC_STATE    pfc_state
#define XL_MAP_PFC_COUNTS   pfc_counts

/* leaf mode (bpf/maps.h) */
#define XL_MAP_PORTS        ports
#define XL_MAP_TX_PORTS     tx_ports
#define XL_MAP_ROUTES4      routes4
#define XL_MAP_ROUTES6      routes6
#define XL_MAP_GROUPS       groups
#define XL_MAP_NEIGH        neigh
#define XL_MAP_SETTINGS     settings
#define XL_MAP_PORT_STATS   port_stats
#define XL_MAP_QUEUES       queues
#define XL_MAP_CLASSES      classes
#define XL_MAP_DSCP_CLASS   dscp_class
#define XL_MAP_QUEUE_STATS  queue_stats
#define XL_MAP_GUARDS       guards
#define XL_MAP_GUARD_STATS  guard_stats
#define XL_MAP_FLOWS        flows
#define XL_MAP_UPLINK_RATES uplink_rates
#define XL_MAP_MEMBER_FLOWS member_flows
#define XL_MAP_GROUP_DOWN   group_down
#define XL_MAP_GROUP_RR     group_rr
#define XL_MAP_PORT_VLANS   port_vlans
#define XL_MAP_FWD_GEN      fwd_gen
#define XL_MAP_PORT_CACHE   port_cache
#define XL_MAP_ROUTE_CACHE  route_cache
#define XL_MAP_LEAF_COUNTERS leaf_counters

/* host mode (bpf/host_maps.h) */
#define XL_MAP_HOST_CFG     host_cfg
#define XL_MAP_HOST_STATS   host_stats
#define XL_MAP_NP_FLOWS     np_flows
#define XL_MAP_RP_FLOWS     rp_flows
#define XL_MAP_RP_RATES     rp_rates
#define XL_MAP_HOST_ADDRS   host_addrs
#define XL_MAP_NP_PORT_LIMIT np_port_limit

/* `xdpleaf sink` (bpf/sink.bpf.c; not pinned) */
#define XL_MAP_SINK_FLOWS   sink_flows
#define XL_MAP_SINK_STATS   sink_stats
#define XL_MAP_SINK_REPLIES sink_replies

/* program pins */
#define XL_PIN_PROG_PREFIX  "prog_"
#define XL_PIN_PROG_LEAF    XL_PIN_PROG_PREFIX "leaf"
#define XL_PIN_PROG_LEAF_TC XL_PIN_PROG_PREFIX "leaf_tc" /* hook = tc */
#define XL_PIN_PROG_HOST_IN XL_PIN_PROG_PREFIX "host_ingress"
#define XL_PIN_PROG_HOST_OUT XL_PIN_PROG_PREFIX "host_egress"
/* the leaf's syscall program through which the daemon reports uplink
 * state changes as events */
#define XL_PIN_PROG_LEAF_EVENT XL_PIN_PROG_PREFIX "leaf_event"

/* link pins: prefix + port name (leaf: XDP, or tcx ingress with hook =
 * tc; host: tcx both ways) */
#define XL_PIN_LINK_XDP     "link_xdp_"
#define XL_PIN_LINK_TCX_IN  "link_tcx_in_"
#define XL_PIN_LINK_TCX_OUT "link_tcx_out_"

/* The kernel's tcx attach types (enum bpf_attach_type): libbpf 1.1 and its
 * headers predate them. */
#define XL_TCX_INGRESS 46
#define XL_TCX_EGRESS  47

#endif
