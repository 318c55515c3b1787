// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf events`: the dataplane's event ring (include/events.h), one line
 * (or JSON object) per event, filtered by kind, port and flow, optionally
 * written to a pcap file. docs/events.md. */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "events.h"
#include "lb.h"
#include "roce.h"
#include "base/cli.h"
#include "base/names.h"
#include "base/output.h"
#include "instance/opt_instance.h"
#include "instance/pins.h"
#include "instance/telemetry_json.h"
#include "base/units.h"
#include "events/decode.h"
#include "events/events.h"
#include "events/pcap.h"

struct events_opts {
	const char *instance;
	__u32 kinds;          /* bit per enum xl_event_kind; 0: all */
	const char *port;
	bool has_addr;
	struct xl_flow addr;  /* family and saddr: the address to match */
	bool has_qp;
	__u32 qp;
	const char *pcap;
	unsigned long count;
	__u64 duration_ns;
	bool json;
};

struct events_run {
	const struct events_opts *o;
	FILE *pcap;
	int ports_fd;         /* leaf: the ports map (names); host: -1 */
	__s64 mono_to_real;   /* add to CLOCK_MONOTONIC to get the epoch */
	unsigned long shown, filtered;
	int write_error;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* --kind K[,K...] into a bit per kind. */
static int parse_kinds(const char *list, void *field, char *err, size_t len)
{
	char *copy = strdup(list), *save = NULL, *w;
	__u32 *mask = field;
	int bad = !copy;

	for (w = copy ? strtok_r(copy, ",", &save) : NULL; w && !bad;
	     w = strtok_r(NULL, ",", &save)) {
		int k;
		size_t n;

		for (k = 0; k < XL_EVENT_KIND_MAX; k++)
			if (!strcmp(w, xl_event_kind_names[k]))
				break;
		if (k == XL_EVENT_KIND_MAX) {
			n = (size_t)snprintf(err, len, "unknown kind '%s' (kinds:", w);
			for (k = 0; k < XL_EVENT_KIND_MAX && n < len; k++)
				n += (size_t)snprintf(err + n, len - n, " %s", xl_event_kind_names[k]);
			if (n < len)
				snprintf(err + n, len - n, ")");
			bad = 1;
		} else {
			*mask |= 1U << k;
		}
	}
	free(copy);
	return bad ? -1 : 0;
}

/* --flow ADDR: an IPv4 or IPv6 address, as a flow's source. */
static int parse_addr(const char *v, void *field, char *err, size_t len)
{
	struct xl_flow *f = field;

	if (inet_pton(AF_INET, v, f->saddr) == 1) {
		f->family = 4;
	} else if (inet_pton(AF_INET6, v, f->saddr) == 1) {
		f->family = 6;
	} else {
		snprintf(err, len, "'%s' is not an IPv4 or IPv6 address", v);
		return -1;
	}
	return 0;
}

#define F(f) XL_FIELD(struct events_opts, f)
static const struct xl_opt events_opts[] = {
	XL_OPT_INSTANCE(struct events_opts, instance, "instance name (default: default)"),
	{ "kind", 0, XL_T_FUNC, F(kinds), "K[,K...]", "only these kinds: drop, mark, cnp_sent,\n"
	  "cnp_received, psn_gap, psn_old, nak, move, move_refused,\nlink_down, link_up, pfc_storm",
	  .parse = parse_kinds },
	{ "port", 0, XL_T_STR, F(port), "IF", "only events on this port" },
	{ "flow", 0, XL_T_FUNC, F(addr), "ADDR", "only events of flows from or to this IPv4/IPv6 address",
	  .parse = parse_addr, XL_GIVEN(struct events_opts, has_addr) },
	{ "qp", 0, XL_T_UINT, F(qp), "N", "only events of RoCEv2 flows to this destination QP",
	  .max = XL_QPN_MASK, XL_GIVEN(struct events_opts, has_qp) },
	{ "pcap", 0, XL_T_STR, F(pcap), "FILE", "also write each event's packet bytes to FILE (pcap)" },
	{ "count", 0, XL_T_UINT, F(count), "N", "stop after N events shown", .max = 1ULL << 40 },
	{ "duration", 0, XL_T_DURATION, F(duration_ns), "T", "stop after T (e.g. 10s; default: until a signal)",
	  .min = 1000000ULL, .max = 366ULL * 86400 * 1000000000ULL },
	{ "json", 'j', XL_T_FLAG, F(json), NULL, "one JSON object per line" },
	XL_OPT_HELP, XL_OPT_END
};

static const struct events_opts events_defaults = { .instance = "default" };

/* The name of the port with this ifindex: the leaf's ports map knows its
 * ports in any namespace; otherwise this namespace's name, or "ifN". */
static void port_name(const struct events_run *r, __u32 ifindex, char *buf, size_t len)
{
	struct xl_port p;
	char name[IF_NAMESIZE];

	if (!ifindex)
		snprintf(buf, len, "-");
	else if (r->ports_fd >= 0 && !bpf_map_lookup_elem(r->ports_fd, &ifindex, &p))
		snprintf(buf, len, "%s", p.name);
	else if (r->ports_fd < 0 && if_indextoname(ifindex, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "if%u", ifindex);
}

static bool addr_matches(const struct xl_flow *want, const struct xl_flow *f)
{
	size_t n = want->family == 4 ? 4 : 16;

	return f->family == want->family &&
	       (!memcmp(f->saddr, want->saddr, n) || !memcmp(f->daddr, want->saddr, n));
}

static bool wanted(const struct events_run *r, const struct xl_event *e,
		   const struct xl_decoded *d)
{
	const struct events_opts *o = r->o;
	char port[XL_IFNAMSIZ + 8];

	if (o->kinds && !(o->kinds & (1U << e->h.kind)))
		return false;
	if (o->port) {
		port_name(r, e->h.ifindex, port, sizeof(port));
		if (strcmp(port, o->port))
			return false;
	}
	if (o->has_addr && !(e->h.has_flow && addr_matches(&o->addr, &e->h.flow)))
		return false;
	if (o->has_qp && !(d->has_bth && d->qp == o->qp))
		return false;
	return true;
}

/* ">=" before a saturated xl_move_detail field */
static const char *sat(__u32 us)
{
	return us >= XL_MOVE_US_MAX ? ">=" : "";
}

/* What aux and aux2 say, per kind (include/events.h). */
static void detail(const struct events_run *r, const struct xl_event *e, char *buf,
		   size_t len)
{
	char other[XL_IFNAMSIZ + 8];
	__u32 gap = XL_MOVE_GAP_US(e->h.aux2), queue = XL_MOVE_OLD_QUEUE_US(e->h.aux2);

	switch (e->h.kind) {
	case XL_EV_DROP:
		snprintf(buf, len, "reason %s", e->h.reason < XL_REASON_MAX ?
			 xl_reason_names[e->h.reason] : "?");
		break;
	case XL_EV_MARK:
		snprintf(buf, len, "dscp %u", e->h.aux);
		break;
	case XL_EV_CNP_RECEIVED:
		snprintf(buf, len, "rate now %u Mbit/s", e->h.aux);
		break;
	case XL_EV_PSN_GAP:
		snprintf(buf, len, "expected psn %u, %u missing", e->h.aux, e->h.aux2);
		break;
	case XL_EV_PSN_OLD:
		snprintf(buf, len, "expected psn %u, %u behind", e->h.aux, e->h.aux2);
		break;
	case XL_EV_NAK:
		snprintf(buf, len, "%s", e->h.aux == 1 ? "RNR NAK" : "NAK");
		break;
	case XL_EV_MOVE:
		port_name(r, e->h.aux, other, sizeof(other));
		snprintf(buf, len, "from %s, gap %s%u us, old queue %s%u us", other,
			 sat(gap), gap, sat(queue), queue);
		break;
	case XL_EV_MOVE_REFUSED:
		port_name(r, e->h.aux, other, sizeof(other));
		snprintf(buf, len, "stays, not to %s (reorder-free rule): gap %s%u us, "
			 "queue here %s%u us", other, sat(gap), gap, sat(queue), queue);
		break;
	case XL_EV_LINK_DOWN:
	case XL_EV_LINK_UP:
		snprintf(buf, len, "group %u", e->h.aux);
		break;
	case XL_EV_PFC_STORM:
		snprintf(buf, len, "priority %u paused longer than %u ms", e->h.aux, e->h.aux2);
		break;
	default:
		buf[0] = 0;
	}
}

static void print_text(const struct events_run *r, const struct xl_event *e,
		       const struct xl_decoded *d, __u64 real_ns)
{
	char port[XL_IFNAMSIZ + 8], when[32], what[128], flow[160] = "";
	time_t secs = (time_t)(real_ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	port_name(r, e->h.ifindex, port, sizeof(port));
	detail(r, e, what, sizeof(what));
	if (e->h.has_flow)
		xl_flow_str(&e->h.flow, flow, sizeof(flow));
	printf("%s.%06llu %-12s %-6s %s%s%s", when,
	       (unsigned long long)(real_ns % 1000000000ULL / 1000),
	       xl_event_kind_names[e->h.kind], port, flow, *flow ? " " : "", what);
	if (d->has_bth)
		printf(" [bth opcode 0x%02x qp 0x%x psn %u]", d->opcode, d->qp, d->psn);
	if (e->h.pkt_len)
		printf(" len %u", e->h.pkt_len);
	printf("\n");
}

static void print_json(const struct events_run *r, const struct xl_event *e,
		       const struct xl_decoded *d, __u64 real_ns)
{
	char port[XL_IFNAMSIZ + 8], what[128], hex[2 * XL_EVENT_SNAP + 1];
	json_object *o = json_object_new_object(), *doc;

	port_name(r, e->h.ifindex, port, sizeof(port));
	detail(r, e, what, sizeof(what));
	json_object_object_add(o, "event", json_object_new_string(xl_event_kind_names[e->h.kind]));
	json_object_object_add(o, "time_ns", json_object_new_uint64(real_ns));
	json_object_object_add(o, "monotonic_ns", json_object_new_uint64(e->h.time_ns));
	json_object_object_add(o, "port", json_object_new_string(port));
	if (e->h.kind == XL_EV_DROP)
		json_object_object_add(o, "reason", json_object_new_string(
			e->h.reason < XL_REASON_MAX ? xl_reason_names[e->h.reason] : "?"));
	json_object_object_add(o, "aux", json_object_new_uint64(e->h.aux));
	json_object_object_add(o, "aux2", json_object_new_uint64(e->h.aux2));
	if (e->h.kind == XL_EV_MOVE || e->h.kind == XL_EV_MOVE_REFUSED) {
		json_object_object_add(o, "gap_us",
				       json_object_new_uint64(XL_MOVE_GAP_US(e->h.aux2)));
		json_object_object_add(o, "old_queue_us",
				       json_object_new_uint64(XL_MOVE_OLD_QUEUE_US(e->h.aux2)));
	}
	json_object_object_add(o, "detail", json_object_new_string(what));
	if (e->h.has_flow)
		json_object_object_add(o, "flow", xl_flow_json(&e->h.flow));
	if (d->has_bth) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "opcode", json_object_new_int(d->opcode));
		json_object_object_add(b, "qp", json_object_new_int64(d->qp));
		json_object_object_add(b, "psn", json_object_new_int64(d->psn));
		json_object_object_add(o, "bth", b);
	}
	json_object_object_add(o, "pkt_len", json_object_new_uint64(e->h.pkt_len));
	for (__u32 i = 0; i < e->h.snap_len && i < XL_EVENT_SNAP; i++)
		sprintf(hex + 2 * i, "%02x", e->pkt[i]);
	hex[2 * (e->h.snap_len < XL_EVENT_SNAP ? e->h.snap_len : XL_EVENT_SNAP)] = 0;
	json_object_object_add(o, "packet", json_object_new_string(hex));
	doc = xl_json_doc("event", o);
	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct events_run *r = ctx;
	const struct xl_event *e = data;
	struct xl_decoded d;
	__u64 real_ns;

	if (size < sizeof(*e) || e->h.kind >= XL_EVENT_KIND_MAX)
		return 0;
	xl_decode(e->pkt, e->h.snap_len < XL_EVENT_SNAP ? e->h.snap_len : XL_EVENT_SNAP, &d);
	if (!wanted(r, e, &d)) {
		r->filtered++;
		return 0;
	}
	real_ns = (__u64)((__s64)e->h.time_ns + r->mono_to_real);
	if (r->o->json)
		print_json(r, e, &d, real_ns);
	else
		print_text(r, e, &d, real_ns);
	fflush(stdout);
	if (r->pcap && e->h.snap_len &&
	    xl_pcap_write(r->pcap, real_ns, e->pkt, e->h.snap_len, e->h.pkt_len))
		r->write_error = errno ? errno : EIO;
	r->shown++;
	/* a negative return stops ring_buffer__poll */
	return r->o->count && r->shown >= r->o->count ? -1 : 0;
}

/* Events lost to the limit or a full ring, over all kinds, so far. */
static void lost_so_far(const char *instance, __u64 *limited, __u64 *full)
{
	json_object *c = xl_event_counts_json(instance);

	*limited = *full = 0;
	if (!c)
		return;
	json_object_object_foreach(c, kind, v) {
		(void)kind;
		*limited += json_object_get_uint64(json_object_object_get(v, "limited"));
		*full += json_object_get_uint64(json_object_object_get(v, "ring_full"));
	}
	json_object_put(c);
}

static __s64 mono_to_real(void)
{
	struct timespec m, t;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &t);
	return ((__s64)t.tv_sec - m.tv_sec) * 1000000000LL + (t.tv_nsec - m.tv_nsec);
}

static int events_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct events_opts o = *(const struct events_opts *)opts;
	struct events_run r = { .o = &o, .ports_fd = -1 };
	struct ring_buffer *rb = NULL;
	__u64 lim0, full0, lim1, full1, t_end;
	enum xl_inst_role role;
	char path[256];
	int fd, err = 0;

	(void)ctx;
	role = xl_instance_role(o.instance);
	if (role == XL_INST_ABSENT) {
		xl_err("instance '%s' is not loaded", o.instance);
		return XL_EXIT_NOT_LOADED;
	}
	xl_pin_path(path, sizeof(path), o.instance, XL_MAP_NAME(XL_MAP_EVENTS));
	fd = bpf_obj_get(path);
	if (fd < 0) {
		xl_err("instance '%s' has no event ring (%s: %s): it was "
		       "loaded by an xdpleaf without events; unload and load it again",
		       o.instance, path, strerror(errno));
		return 1;
	}
	if (role == XL_INST_LEAF)
		r.ports_fd = xl_open_pinned_map(o.instance, XL_MAP_NAME(XL_MAP_PORTS));
	if (o.pcap && !(r.pcap = xl_pcap_open(o.pcap, XL_EVENT_SNAP))) {
		err = 1;
		goto out;
	}
	rb = ring_buffer__new(fd, on_event, &r, NULL);
	if (!rb) {
		xl_err("cannot read the event ring: %s", strerror(errno));
		err = 1;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r.mono_to_real = mono_to_real();
	lost_so_far(o.instance, &lim0, &full0);
	xl_notice("reading instance '%s' (%s mode)", o.instance,
		  role == XL_INST_LEAF ? "leaf" : "host");
	t_end = o.duration_ns ? xl_monotonic_ns() + o.duration_ns : 0;
	for (unsigned polls = 1; !stop && !r.write_error && !(o.count && r.shown >= o.count);
	     polls++) {
		int n = ring_buffer__poll(rb, 100);

		/* an unloaded instance writes no more events: say so and stop
		 * (its ring lives on only as long as this reader holds it) */
		if (polls % 10 == 0 && !xl_instance_exists(o.instance)) {
			ring_buffer__consume(rb);
			xl_notice("instance '%s' was unloaded", o.instance);
			break;
		}

		if (n < 0 && n != -EINTR && !(o.count && r.shown >= o.count)) {
			xl_err("reading the ring: %s", strerror(-n));
			err = 1;
			break;
		}
		if (t_end && xl_monotonic_ns() >= t_end)
			break;
	}
	if (r.write_error) {
		xl_err("%s: %s", o.pcap, strerror(r.write_error));
		err = 1;
	}
	lost_so_far(o.instance, &lim1, &full1);
	xl_notice("%lu shown, %lu filtered out; lost meanwhile: %llu to event_rate, "
		  "%llu to a full ring", r.shown, r.filtered,
		  (unsigned long long)(lim1 - lim0), (unsigned long long)(full1 - full0));
out:
	ring_buffer__free(rb);
	if (r.pcap && xl_pcap_close(r.pcap)) {
		xl_err("%s: %s", o.pcap, strerror(errno));
		err = 1;
	}
	if (r.ports_fd >= 0)
		close(r.ports_fd);
	close(fd);
	return err;
}

const struct xl_cmd xl_events_cmd = {
	.name = "events", .summary = "stream drop, mark, CNP, PSN, move, link and PFC events "
				     "('xdpleaf events --help')",
	.intro = "Streams the instance's events (leaf: drops, sampled ECN marks, PSN gaps,\n"
		 "NAKs, flow moves and refused moves, uplink down/up, PFC storms; host: CNPs\n"
		 "sent and received, PSN gaps, NAKs), each with time, port, flow and, for\n"
		 "RoCEv2, the BTH opcode, QP and PSN, until --count, --duration or SIGINT.\n"
		 "One reader at a time: two would share out the events between them.\n"
		 "Events over `event_rate` or with the ring full are counted, not written:\n"
		 "the totals lost meanwhile are printed to stderr at the end.",
	.opts = events_opts, XL_CMD_OPTS(struct events_opts, &events_defaults), .run = events_run,
};
