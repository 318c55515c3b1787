/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The xdpleaf configuration file: parsed with inih, validated whole before
 * anything is attached. Format and every key: docs/config.md. */
#ifndef XL_CONFIG_H
#define XL_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <linux/types.h>
#include "xdpleaf.h"
#include <linux/bpf.h> /* struct bpf_spin_lock, for host.h */
#include "host.h"

#define XL_NAME_MAX 32
#define XL_ERR_MAX 512

enum xl_node_role {
	XL_NODE_LEAF = 0,  /* a switch: XDP forwarding between ports */
	XL_NODE_HOST = 1,  /* a GPU host: DCQCN NP and RP at tc (docs/dcqcn.md) */
};

enum xl_attach_mode {
	XL_ATTACH_NATIVE = 0,
	XL_ATTACH_GENERIC = 1,
};

/* Where a leaf's program runs on its ports (config `hook`). */
enum xl_hook {
	XL_HOOK_AUTO = 0,  /* tc on veths, else XDP: leaf/hook_choice.h */
	XL_HOOK_AT_XDP = 1,
	XL_HOOK_AT_TC = 2, /* tc ingress (tcx) */
};

struct xl_cfg_port {
	char ifname[XL_IFNAMSIZ];
	int line;             /* line of the [port NAME] header */
	__u32 ifindex;        /* filled when interfaces are checked, else 0 */
	__u32 role;           /* enum xl_port_role */
	char group[XL_NAME_MAX];
	int group_id;         /* index into xl_config.groups, -1 if none */
	bool has_nexthop4;
	bool has_nexthop6;
	__u8 nexthop4[4];     /* network order */
	__u8 nexthop6[16];
	/* Phantom queue / line-rate emulation (docs/ecn.md) */
	__u64 rate_bps;       /* line rate; 0 = unset (unlimited, no queue) */
	__u32 gamma_ppm;      /* drain fraction in millionths, default 1000000 */
	/* the bulk guard's drain, a fraction of the queue's (millionths,
	 * default 950000; 1000000: off); the loader turns the guard on
	 * only where a latency class exists (docs/ecn.md) */
	__u32 bulk_gamma_ppm;
	__u32 buffer_bytes;   /* default xl_default_buffer(rate_bps) */
	bool buffer_default;  /* not set: the loader keeps two of the port's frames */
	__u32 overflow;       /* enum xl_overflow, default drop */
	__u32 line_overhead;  /* bytes per frame on the line, default 24 */
	__u32 psn_tracking;   /* RoCEv2 PSN tracking of what arrives here, default off */
	/* VLAN IDs the port forwards tagged frames of (bit v); none: tagged
	 * frames other than priority-tagged (VID 0) go to the kernel */
	__u8 vlans[4096 / 8];
};

/* A port's buffer when the config sets none: 1 MiB (20-80 us at the
 * 100-400 Gbit/s of a GPU fabric, a shallow-buffer switch port), but never
 * more than XL_DEFAULT_BUFFER_US of the port's own rate, nor less than two
 * 1518-byte frames (the loader raises it to two of the port's largest
 * frames where its MTU is larger). Without the cap a port emulated at
 * 100 Mbit/s would hold 84 ms: far more than any switch port (or the lab's
 * shaped links, 2 ms) holds at that rate, so its phantom queue would go on
 * counting what the real link had long dropped, and every delay the leaf
 * reads from it (ECN marking, the reorder-free rule,
 * docs/load-balancing.md) would be that much too long. */
#define XL_DEFAULT_BUFFER (1024 * 1024)
#define XL_DEFAULT_BUFFER_US 2000
#define XL_DEFAULT_BUFFER_MIN (2 * XL_DEFAULT_FRAME)

static inline __u32 xl_default_buffer(__u64 rate_bps)
{
	__u64 b = rate_bps / 8 * XL_DEFAULT_BUFFER_US / 1000000;

	if (!rate_bps || b > XL_DEFAULT_BUFFER)
		return XL_DEFAULT_BUFFER;
	return b < XL_DEFAULT_BUFFER_MIN ? XL_DEFAULT_BUFFER_MIN : (__u32)b;
}

/* A traffic class: DSCPs that map to it and its WRED/ECN profile. Class 0
 * is "default" (every DSCP no other class claims, paper profile); "cnp"
 * (DSCP 48, never marked or dropped) always exists; a section of either
 * name re-tunes the built-in. */
struct xl_cfg_class {
	char name[XL_IFNAMSIZ];
	int line;             /* 0 for a built-in class not in the file */
	struct xl_wred wred;
};

struct xl_cfg_group {
	char name[XL_NAME_MAX];
	int line;
	__u32 lb_mode;        /* enum xl_lb_mode */
	__u64 flowlet_timeout_ns; /* default (auto) XL_DEFAULT_FLOWLET_TIMEOUT_NS */
	bool flowlet_auto;    /* default true: the floor also follows the flow's pacing */
	__u32 path_skew_ns;   /* default XL_DEFAULT_PATH_SKEW_NS */
	bool path_skew_auto;  /* default true: + two frames per member (xl_auto_skew_ns) */
	__u32 spray_reorder;  /* enum xl_spray_reorder, default free */
	int n_members;        /* uplink ports naming this group */
};

struct xl_cfg_route {
	int line;
	int family;           /* AF_INET or AF_INET6 */
	__u8 addr[16];        /* network order, host bits zero */
	__u32 prefixlen;
	__u32 kind;           /* enum xl_route_kind */
	char target[XL_NAME_MAX]; /* port ifname or group name */
	int target_id;        /* index into ports or groups */
};

struct xl_config {
	char path[256];
	__u32 node_role;      /* enum xl_node_role (key `mode`) */
	__u32 malformed;      /* enum xl_malformed_action */
	__u32 attach_mode;    /* enum xl_attach_mode (key `xdp_mode`) */
	__u32 hook;           /* enum xl_hook */
	__u32 flow_table_size; /* entries of the flow table, default
				* XL_FLOW_TABLE_SIZE */
	__u32 event_rate;      /* events per kind and CPU per second */
	__u32 mark_event_sample; /* one ECN mark in this many is an event */
	__u64 pfc_watchdog_ns; /* an unbroken PFC pause this long is a storm */
	struct xl_cfg_port ports[XL_MAX_PORTS];
	int n_ports;
	struct xl_cfg_group groups[XL_MAX_GROUPS];
	int n_groups;
	struct xl_cfg_route *routes; /* heap, n_routes entries */
	int n_routes;
	struct xl_cfg_class classes[XL_MAX_CLASSES];
	int n_classes;
	__u8 dscp_class[64];  /* DSCP -> class id */
	/* Host mode: the [dcqcn] section (include/host.h). rp.line_rate is
	 * the port's rate; parameters default per variant. */
	struct xl_host_cfg host;
	int dcqcn_line;       /* line of [dcqcn], 0 if absent */
};

/* Parse and validate `path`. With check_interfaces, every port must name an
 * existing interface (ifindex filled in). On error returns -1 and writes one
 * line "FILE:LINE: what is wrong" into err; cfg is then freed. */
int xl_config_load(const char *path, bool check_interfaces,
		   struct xl_config *cfg, char *err, size_t errlen);
void xl_config_free(struct xl_config *cfg);

/* Settings of a loaded cfg that are allowed but unlikely to do what was
 * meant, each said as a warning about its line ("FILE:LINE: warning:
 * ...", base/log.h). Returns how many. load, reload and check say them. */
int xl_config_warn(const struct xl_config *cfg, const char *path);

/* Host-mode settings with every default: NP and RP on, the variant's RP
 * parameters, line_rate 0 (the loader sets the port's). What a host
 * config without [dcqcn] keys gets; the one definition of the host's
 * defaults (config_check.c), for the parser and the tests. */
void xl_host_defaults(struct xl_host_cfg *h, __u32 variant);

/* "10.0.0.0/8" or "fd00::/16" -> family, addr, prefixlen. Rejects host bits
 * set past the prefix. Returns 0 or -1 with a reason in err. */
int xl_parse_prefix(const char *s, int *family, __u8 addr[16], __u32 *plen,
		    char *err, size_t errlen);

#endif /* XL_CONFIG_H */
