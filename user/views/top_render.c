// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A frame of `xdpleaf top` as styled lines (top_render.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/units.h"
#include "views/top_events.h"
#include "views/top_render.h"

#define ONCE_FLOW_ROWS 10 /* per flow table in --once */
#define BAR_WIDTH 20
#define EVENT_ROWS 3      /* kept for the events section: title, rates, where */

static void put(struct top_screen *s, enum top_style style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct top_screen *s, enum top_style style, const char *fmt, ...)
{
	va_list ap;

	if (s->n >= s->rows)
		return;
	s->lines[s->n].style = style;
	va_start(ap, fmt);
	vsnprintf(s->lines[s->n].text, TOP_LINE_LEN, fmt, ap);
	va_end(ap);
	s->n++;
}

/* v with prec decimals, or "-" before there is a rate to show. */
static const char *num(char *buf, size_t len, double v, int prec, bool have)
{
	if (have)
		snprintf(buf, len, "%.*f", prec, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* The rows a table may use: what is left after the lines still to come
 * (keep), at most cap (0: no cap). */
static int room(const struct top_screen *s, int keep, int want, int cap)
{
	int left = s->rows - s->n - keep;

	if (cap && want > cap)
		want = cap;
	return want < left ? want : left > 0 ? left : 0;
}

static void banner(struct top_screen *s, const struct top_view *v,
		   const struct top_frame_info *in)
{
	char when[32], over[48] = "";
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
	if (v->have_rates)
		snprintf(over, sizeof(over), " (rates over the last %.2f s)", v->interval_s);
	put(s, TOP_BANNER, "xdpleaf top   instance %s   %s   %s   refresh every %u ms%s%s",
	    in->instance, v->role == XL_INST_LEAF ? "leaf mode" :
	    v->role == XL_INST_HOST ? "host mode" : in->error ? "mode unknown" : "not loaded",
	    when,
	    in->interval_ms, over, in->paused ? "   PAUSED" : "");
	if (!in->once)
		put(s, TOP_TEXT, "keys: q quit   p pause   + slower   - faster   "
		    "s sort flows (now: %s)", top_sort_name(v->role, in->sort));
	if (v->role != XL_INST_ABSENT && !v->have_rates)
		put(s, TOP_TEXT, "first read: rates from the next refresh on");
	put(s, TOP_TEXT, "%s", "");
}

static void uplinks(struct top_screen *s, const struct top_view *v)
{
	char a[32], b[32], c[32], d[32], e[32], cap[16], bar[BAR_WIDTH + 1];
	bool h = v->have_rates;

	put(s, TOP_SECTION, "UPLINKS   %d, transmitting %s Mbit/s in all", v->n_uplinks,
	    num(a, sizeof(a), v->uplinks_tx_mbps, 1, h));
	put(s, TOP_COLUMNS, "%-10s %10s %9s %7s %-*s %11s %8s %10s  %s", "name",
	    "Mbit/s", "capacity", "share", BAR_WIDTH + 2, "", "flowlets/s", "moves/s",
	    "refused/s", "link");
	for (int i = 0; i < v->n_uplinks; i++) {
		const struct top_uplink *u = &v->uplinks[i];
		int fill = (int)(u->share * BAR_WIDTH + 0.5);

		if (u->capacity_bps)
			xl_fmt_rate(cap, sizeof(cap), u->capacity_bps);
		else
			snprintf(cap, sizeof(cap), "-");
		memset(bar, '#', fill);
		memset(bar + fill, ' ', BAR_WIDTH - fill);
		bar[BAR_WIDTH] = 0;
		put(s, u->up == 0 ? TOP_ALERT : TOP_TEXT,
		    "%-10s %10s %9s %6s%% [%s] %11s %8s %10s  %s", u->name,
		    num(a, sizeof(a), u->tx_mbps, 1, h), cap,
		    num(b, sizeof(b), u->share * 100, 1, h), bar,
		    num(c, sizeof(c), u->flowlets_ps, 1, h),
		    num(d, sizeof(d), u->moves_ps, 1, h),
		    num(e, sizeof(e), u->refused_ps, 1, h),
		    u->up < 0 ? "-" : u->up ? "up" : "DOWN");
	}
	put(s, TOP_TEXT, "%s", "");
}

static void ports(struct top_screen *s, const struct top_view *v)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], q[24];
	bool h = v->have_rates;

	put(s, TOP_SECTION, "PORTS   %d (drops: packets in on the port that the "
	    "dataplane dropped; marks and queue: its egress queue)", v->n_ports);
	put(s, TOP_COLUMNS, "%-10s %-9s %10s %10s %10s %10s %9s %9s  %-16s %12s", "name",
	    "role", "rx pps", "rx Mbit/s", "tx pps", "tx Mbit/s", "marks/s",
	    "drops/s", "top drop reason", "queue bytes");
	for (int i = 0; i < v->n_ports; i++) {
		const struct top_port *p = &v->ports[i];

		if (p->queue_bytes >= 0)
			snprintf(q, sizeof(q), "%lld", p->queue_bytes);
		else
			snprintf(q, sizeof(q), "-");
		put(s, p->drops_ps > 0 ? TOP_ALERT : TOP_TEXT,
		    "%-10s %-9s %10s %10s %10s %10s %9s %9s  %-16s %12s", p->name, p->role,
		    num(a, sizeof(a), p->rx_pps, 0, h), num(b, sizeof(b), p->rx_mbps, 1, h),
		    num(c, sizeof(c), p->tx_pps, 0, h), num(d, sizeof(d), p->tx_mbps, 1, h),
		    num(e, sizeof(e), p->marks_ps, 0, h), num(f, sizeof(f), p->drops_ps, 0, h),
		    p->drop_reason ? p->drop_reason : "-", q);
	}
	put(s, TOP_TEXT, "%s", "");
}

static void leaf_flows(struct top_screen *s, const struct top_view *v,
		       const struct top_frame_info *in)
{
	/* after the rows: the table's 2 heading lines, a blank, the events */
	int n = room(s, 3 + EVENT_ROWS, v->n_flows, in->once ? ONCE_FLOW_ROWS : 0);
	char ends[2 * TOP_ADDR_LEN + 8], ports[16], a[32];

	put(s, TOP_SECTION, "TOP FLOWS   by %s, %d of %d", top_sort_name(v->role, in->sort),
	    n, v->n_flows);
	put(s, TOP_COLUMNS, "%-40s %5s %11s %8s %-8s %10s %6s %9s %11s", "src -> dst",
	    "proto", "sport/dport", "qp", "uplink", "Mbit/s", "moves", "flowlets",
	    "packets");
	for (int i = 0; i < n; i++) {
		const struct top_flow *f = &v->flows[i];

		snprintf(ends, sizeof(ends), "%s -> %s", f->src, f->dst);
		snprintf(ports, sizeof(ports), "%d/%d", f->sport, f->dport);
		put(s, TOP_TEXT, "%-40s %5d %11s %8u %-8s %10s %6llu %9llu %11llu", ends,
		    f->proto, ports, f->qp, f->uplink,
		    num(a, sizeof(a), f->mbps, 1, v->have_rates), f->moves, f->flowlets,
		    f->packets);
	}
	put(s, TOP_TEXT, "%s", "");
}

static void host_counters(struct top_screen *s, const struct top_view *v)
{
	char a[32], b[32], c[32], d[32];
	bool h = v->have_rates;

	put(s, TOP_SECTION, "DCQCN   per second");
	put(s, TOP_COLUMNS, "%12s %12s %16s %16s", "CE seen", "CNPs sent",
	    "CNPs suppressed", "CNPs received");
	put(s, TOP_TEXT, "%12s %12s %16s %16s", num(a, sizeof(a), v->ce_ps, 0, h),
	    num(b, sizeof(b), v->cnps_sent_ps, 0, h),
	    num(c, sizeof(c), v->cnps_suppressed_ps, 0, h),
	    num(d, sizeof(d), v->cnps_received_ps, 0, h));
	put(s, TOP_TEXT, "%s", "");
}

static void host_flows(struct top_screen *s, const struct top_view *v,
		       const struct top_frame_info *in)
{
	/* the RP table gets half of the room, the NP table the rest */
	int cap = in->once ? ONCE_FLOW_ROWS : 0;
	int n_rp = room(s, 6 + EVENT_ROWS, v->n_rp, cap), n_np;
	char a[32], b[32], qp[24];
	bool h = v->have_rates;

	if (!in->once && n_rp > (s->rows - s->n - 6 - EVENT_ROWS) / 2 && v->n_np)
		n_rp = (s->rows - s->n - 6 - EVENT_ROWS) / 2;
	put(s, TOP_SECTION, "RP FLOWS   our sending QPs, by %s, %d of %d",
	    top_sort_name(v->role, in->sort), n_rp, v->n_rp);
	put(s, TOP_COLUMNS, "%-40s %8s %11s %8s %8s %9s %-14s %7s", "remote", "qp",
	    "send Mbit/s", "Rc Gbps", "Rt Gbps", "alpha", "phase", "CNPs/s");
	for (int i = 0; i < n_rp; i++) {
		const struct top_rp *r = &v->rp[i];

		put(s, TOP_TEXT, "%-40s 0x%06x %11s %8.3f %8.3f %9.6f %-14s %7s", r->remote,
		    r->qp, num(a, sizeof(a), r->send_mbps, 1, h), r->rc_gbps, r->rt_gbps,
		    r->alpha, r->phase, num(b, sizeof(b), r->cnps_ps, 0, h));
	}
	put(s, TOP_TEXT, "%s", "");
	n_np = room(s, 3 + EVENT_ROWS, v->n_np, cap);
	put(s, TOP_SECTION, "NP FLOWS   CE-marked data we received, by CE/s, %d of %d",
	    n_np, v->n_np);
	put(s, TOP_COLUMNS, "%-40s %8s %10s %10s", "remote", "qp", "CE/s", "CNPs/s");
	for (int i = 0; i < n_np; i++) {
		const struct top_np *p = &v->np[i];

		if (p->qp >= 0)
			snprintf(qp, sizeof(qp), "0x%06llx", p->qp);
		else
			snprintf(qp, sizeof(qp), "-");
		put(s, TOP_TEXT, "%-40s %8s %10s %10s", p->remote, qp,
		    num(a, sizeof(a), p->ce_ps, 0, h), num(b, sizeof(b), p->cnps_ps, 0, h));
	}
	put(s, TOP_TEXT, "%s", "");
}

/* What the dataplane's event counters say, then the events themselves
 * where a source for top exists (top_events.h); until then, where to see
 * them. */
static void events(struct top_screen *s, const struct top_view *v,
		   const struct top_frame_info *in)
{
	char lines[EVENT_ROWS][TOP_EVENT_LEN], line[TOP_LINE_LEN];
	bool available;
	int n, len = 0;

	put(s, TOP_SECTION, "RECENT EVENTS");
	if (!v->have_events) {
		put(s, TOP_TEXT, "  this instance counts no events (loaded by a version "
		    "without them)");
	} else if (v->have_rates) {
		len = snprintf(line, sizeof(line), "  per second:");
		for (int i = 0; i < v->n_events && len < (int)sizeof(line); i++) {
			const struct top_event_rate *e = &v->events[i];

			len += snprintf(line + len, sizeof(line) - len, " %s %.0f", e->kind,
					e->emitted_ps);
			/* what the rate limit or a full ring kept out */
			if (e->dropped_ps > 0 && len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - len,
						" (+%.0f not written)", e->dropped_ps);
		}
		put(s, TOP_TEXT, "%s", v->n_events ? line :
		    "  per second: none in the last interval");
	}
	n = top_recent_events(in->instance, lines, room(s, 0, EVENT_ROWS - 1, 0), &available);
	for (int i = 0; i < n; i++)
		put(s, TOP_TEXT, "  %s", lines[i]);
	if (!available && v->have_events)
		put(s, TOP_TEXT, "  each event with its packet: xdpleaf events --instance %s "
		    "(top leaves the ring to it: it has one reader)", in->instance);
}

int top_render(struct top_screen *s, const struct top_view *v,
	       const struct top_frame_info *in)
{
	if (s->cap < s->rows) {
		struct top_line *l = realloc(s->lines, s->rows * sizeof(*l));

		if (!l)
			return -1;
		s->lines = l;
		s->cap = s->rows;
	}
	s->n = 0;
	banner(s, v, in);
	/* a failed read keeps the last good frame (or none) below its why */
	if (in->error)
		put(s, TOP_ALERT, "%s", in->error);
	if (v->role == XL_INST_ABSENT) {
		if (!in->error)
			put(s, TOP_ALERT, "instance '%s' is not loaded; trying again every %u ms",
			    in->instance, in->interval_ms);
		return 0;
	}
	if (v->role == XL_INST_LEAF) {
		uplinks(s, v);
		ports(s, v);
		leaf_flows(s, v, in);
	} else {
		host_counters(s, v);
		host_flows(s, v, in);
	}
	events(s, v, in);
	return 0;
}

void top_screen_free(struct top_screen *s)
{
	free(s->lines);
	s->lines = NULL;
	s->n = s->cap = 0;
}
