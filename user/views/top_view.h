/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What `xdpleaf top` shows, as numbers: two consecutive reads of an
 * instance's state (the readers of instance/readers.h) and the rates between
 * them. Rates are counter differences over the time between the reads,
 * never the dataplane's own windows, so every row of one frame covers the
 * same interval. Drawing is top_render.c's. */
#ifndef XL_TOP_VIEW_H
#define XL_TOP_VIEW_H

#include <stdbool.h>
#include <linux/types.h>
#include "instance/pins.h"

struct json_object;
struct xl_readers;

/* One read of an instance's state. */
struct top_sample {
	enum xl_inst_role role; /* XL_INST_ABSENT: nothing was read */
	__u64 t_ns;             /* CLOCK_MONOTONIC, when read */
	struct json_object *stats; /* leaf_stats or host_stats */
	struct json_object *flows; /* leaf_flows (all) or host_qps (all) */
};

/* Read the instance's state through the readers of its mode. 0; 1 when
 * the instance is not loaded (s->mode ABSENT); -1 when a reader failed
 * (it said why on stderr). */
int top_sample_read(struct top_sample *s, const struct xl_readers *r,
		    const char *instance);
void top_sample_free(struct top_sample *s);

/* The flow orders `s` cycles through, per mode (top_sort_name()). */
enum top_sort { TOP_SORT_RATE, TOP_SORT_SECOND, TOP_SORT_THIRD, TOP_SORTS };
const char *top_sort_name(enum xl_inst_role mode, enum top_sort sort);

#define TOP_NAME_LEN 24
#define TOP_ADDR_LEN 48

struct top_uplink {
	char name[TOP_NAME_LEN];
	double tx_mbps;
	__u64 capacity_bps;   /* 0: not configured */
	double share;         /* of all uplinks' tx, 0..1 */
	double flowlets_ps, moves_ps, refused_ps; /* moves: onto this uplink */
	int up;               /* 1 up, 0 down, -1 not in a group */
};

struct top_port {
	char name[TOP_NAME_LEN];
	char role[12];
	double rx_pps, rx_mbps, tx_pps, tx_mbps;
	double marks_ps;      /* CE marks by this port's egress queue */
	double drops_ps;      /* packets in on this port, dropped (or aborted) */
	const char *drop_reason; /* the most frequent drop reason, or NULL */
	long long queue_bytes; /* phantom queue now; -1: port has no rate */
};

struct top_flow {
	char src[TOP_ADDR_LEN], dst[TOP_ADDR_LEN];
	int proto, sport, dport;
	__u32 qp;
	char uplink[TOP_NAME_LEN];
	double mbps;
	__u64 packets, flowlets, moves, refused;
};

struct top_rp {
	char remote[TOP_ADDR_LEN];
	__u32 qp;
	double send_mbps;     /* bytes it sent, over the interval */
	double rc_gbps, rt_gbps, alpha;
	char phase[16];
	double cnps_ps;
};

struct top_np {
	char remote[TOP_ADDR_LEN]; /* or "(port NAME)" for a per-port limiter */
	long long qp;              /* -1 for a per-port limiter */
	double ce_ps, cnps_ps;
};

/* Events of one kind the dataplane wrote per second, and what its rate
 * limit or a full ring kept out (stats' `events` counters). */
struct top_event_rate {
	char kind[TOP_NAME_LEN];
	double emitted_ps, dropped_ps;
};
#define TOP_EVENT_KINDS 16

/* A frame: everything one screen shows. */
struct top_view {
	enum xl_inst_role role; /* ABSENT: not loaded */
	bool have_rates;        /* false on the first read (or a mode change) */
	double interval_s;      /* between the two reads */
	/* leaf */
	struct top_uplink *uplinks;
	int n_uplinks;
	double uplinks_tx_mbps;
	struct top_port *ports;
	int n_ports;
	struct top_flow *flows; /* sorted, all of them */
	int n_flows;
	/* host */
	double ce_ps, cnps_sent_ps, cnps_suppressed_ps, cnps_received_ps;
	struct top_rp *rp;
	int n_rp;
	struct top_np *np;
	int n_np;
	/* both: the kinds with events in the interval */
	struct top_event_rate events[TOP_EVENT_KINDS];
	int n_events;
	bool have_events; /* the instance counts events (stats has them) */
};

/* The frame from the read before (prev, may be empty) to cur. 0, or -1
 * out of memory. */
int top_view_build(struct top_view *v, const struct top_sample *prev,
		   const struct top_sample *cur, enum top_sort sort);
void top_view_free(struct top_view *v);

#endif
