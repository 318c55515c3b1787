// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Host mode, read side: `xdpleaf status`, `stats` and `qps` over the pins
 * of an instance loaded with mode = host (user/host/loader.c): the maps
 * host_cfg, host_stats, np_flows, rp_flows, rp_rates, the programs
 * prog_host_ingress / prog_host_egress and one tcx link per port and
 * direction, link_tcx_in_PORT / link_tcx_out_PORT. A host instance has no
 * `ports` map: its ports are the ones it has links for. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "host/show.h"
#include "host/ports.h"
#include "instance/daemon.h"
#include "instance/heartbeat.h"
#include "instance/map_memory.h"
#include "instance/telemetry_json.h"
#include "base/output.h"
#include "instance/status.h"
#include "base/units.h"
#include "base/percpu.h"
#include "instance/pins.h"
#include "xdpleaf.h"
#include "host.h"

static int read_host_cfg(const char *instance, struct xl_host_cfg *hc)
{
	int fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_HOST_CFG));
	__u32 zero = 0;
	int err;

	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, hc);
	if (err)
		xl_err("instance '%s': cannot read host_cfg: %s", instance, strerror(errno));
	close(fd);
	return err ? -1 : 0;
}

/* ---- formatting ---------------------------------------------------------- */

static const char *variant_name(__u32 v)
{
	return v == XL_DCQCN_NVIDIA ? "nvidia" : v == XL_DCQCN_PAPER ? "paper" : "?";
}

static const char *scope_name(__u32 s)
{
	return s == XL_CNP_PER_PORT ? "port" : s == XL_CNP_PER_QP ? "qp" : "?";
}

/* An age for people: 850ns, 12.3us, 4.56ms, 7.89s. */
static void fmt_age(char *buf, size_t len, __u64 ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

static double q32(__u64 v)
{
	return (double)v / (double)XL_Q32_ONE;
}

/* ---- status -------------------------------------------------------------- */

/* Attached: the link is on a device, on the right side, running our
 * program. */
static const char *link_state(const struct xl_tcx_state *t, __u32 want_prog,
			      __u32 want_type)
{
	if (!t->pinned)
		return "NO LINK";
	if (!t->ifindex)
		return "DETACHED";
	if (t->prog_id != want_prog || t->attach_type != want_type)
		return "OTHER PROGRAM";
	return "attached";
}

static json_object *link_json(const struct xl_tcx_state *t, __u32 want_prog,
			      __u32 want_type)
{
	json_object *o = json_object_new_object();
	const char *state = link_state(t, want_prog, want_type);

	json_object_object_add(o, "attached",
			       json_object_new_boolean(!strcmp(state, "attached")));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "link_id", json_object_new_int64(t->link_id));
	json_object_object_add(o, "prog_id", json_object_new_int64(t->prog_id));
	json_object_object_add(o, "ifindex", json_object_new_int64(t->ifindex));
	return o;
}

static json_object *dcqcn_json(const struct xl_host_cfg *hc)
{
	const struct xl_dcqcn_params *p = &hc->rp;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "variant", json_object_new_string(variant_name(p->variant)));
	json_object_object_add(o, "np", json_object_new_boolean(hc->np_enabled));
	json_object_object_add(o, "rp", json_object_new_boolean(hc->rp_enabled));
	json_object_object_add(o, "cnp_interval_ns", json_object_new_uint64(hc->cnp_interval_ns));
	json_object_object_add(o, "cnp_scope", json_object_new_string(scope_name(hc->cnp_scope)));
	json_object_object_add(o, "cnp_dscp", json_object_new_int64(hc->cnp_dscp));
	json_object_object_add(o, "line_rate_bps", json_object_new_uint64(p->line_rate));
	json_object_object_add(o, "g", json_object_new_double(q32(p->g)));
	json_object_object_add(o, "k_ns", json_object_new_uint64(p->k_ns));
	json_object_object_add(o, "t_ns", json_object_new_uint64(p->t_ns));
	json_object_object_add(o, "f", json_object_new_int64(p->f));
	json_object_object_add(o, "r_ai_bps", json_object_new_uint64(p->r_ai));
	json_object_object_add(o, "r_hai_bps", json_object_new_uint64(p->r_hai));
	json_object_object_add(o, "min_rate_bps", json_object_new_uint64(p->min_rate));
	if (p->variant == XL_DCQCN_NVIDIA) {
		json_object_object_add(o, "alpha_first", json_object_new_double(q32(p->alpha_first)));
		json_object_object_add(o, "t_dec_ns", json_object_new_uint64(p->t_dec_ns));
	} else {
		json_object_object_add(o, "b_bytes", json_object_new_uint64(p->b_bytes));
		json_object_object_add(o, "clamp", json_object_new_boolean(p->clamp));
	}
	return o;
}

static void print_dcqcn(const struct xl_host_cfg *hc)
{
	const struct xl_dcqcn_params *p = &hc->rp;
	char a[32], b[32], c[32], d[32];

	xl_fmt_rate(a, sizeof(a), p->line_rate);
	xl_fmt_duration(b, sizeof(b), hc->cnp_interval_ns);
	printf("dcqcn: variant %s, NP %s, RP %s, line rate C %s\n",
	       variant_name(p->variant), hc->np_enabled ? "on" : "off",
	       hc->rp_enabled ? "on" : "off", a);
	printf("  cnp: interval %s, scope %s, dscp %u\n", b,
	       scope_name(hc->cnp_scope), hc->cnp_dscp);
	xl_fmt_duration(a, sizeof(a), p->k_ns);
	xl_fmt_duration(b, sizeof(b), p->t_ns);
	printf("  rp: g %.10g, K %s, T %s, F %u", q32(p->g), a, b, p->f);
	if (p->variant == XL_DCQCN_NVIDIA) {
		xl_fmt_duration(a, sizeof(a), p->t_dec_ns);
		printf(", t_dec %s, alpha_first %.10g", a, q32(p->alpha_first));
	} else {
		printf(", B %llu bytes, clamp %s", p->b_bytes, p->clamp ? "on" : "off");
	}
	xl_fmt_rate(a, sizeof(a), p->r_ai);
	xl_fmt_rate(c, sizeof(c), p->r_hai);
	xl_fmt_rate(d, sizeof(d), p->min_rate);
	printf(",\n      R_AI %s, R_HAI %s, min rate %s\n", a, c, d);
}

int xl_host_status(const char *instance, bool json)
{
	struct xl_host_port ports[XL_MAX_PORTS];
	struct xl_host_cfg hc;
	__u32 in_id, out_id;
	char dir[256], ifname[IF_NAMESIZE];
	json_object *root, *arr, *progs;
	struct xl_daemon_health dh;
	int n;

	if (read_host_cfg(instance, &hc))
		return -1;
	n = xl_host_read_ports(instance, ports, XL_MAX_PORTS);
	if (n < 0)
		return -1;
	in_id = xl_pinned_prog_id(instance, XL_PIN_PROG_HOST_IN);
	out_id = xl_pinned_prog_id(instance, XL_PIN_PROG_HOST_OUT);
	xl_pin_path(dir, sizeof(dir), instance, NULL);
	xl_daemon_health(instance, &dh);
	if (!json) {
		printf("instance %s: loaded, host mode, pins in %s\n", instance, dir);
		printf("programs: ingress id %u, egress id %u, daemon ", in_id, out_id);
		xl_daemon_health_print(stdout, &dh);
		printf("\n");
		xl_map_memory_print(stdout, instance, 3);
		print_dcqcn(&hc);
		printf("%-16s %-8s %-24s %s\n", "port", "ifindex", "tcx ingress",
		       "tcx egress");
		for (int i = 0; i < n; i++) {
			const struct xl_host_port *p = &ports[i];
			char in[40], out[40];

			snprintf(in, sizeof(in), "%s (link %u)",
				 link_state(&p->in, in_id, XL_TCX_INGRESS), p->in.link_id);
			snprintf(out, sizeof(out), "%s (link %u)",
				 link_state(&p->out, out_id, XL_TCX_EGRESS), p->out.link_id);
			printf("%-16s %-8u %-24s %s\n", xl_host_port_ifname(p, ifname),
			       xl_host_port_ifindex(p), in, out);
		}
		return xl_daemon_health_exit(&dh);
	}
	root = json_object_new_object();
	arr = json_object_new_array();
	progs = json_object_new_object();
	json_object_object_add(root, "instance", json_object_new_string(instance));
	json_object_object_add(root, "loaded", json_object_new_boolean(1));
	json_object_object_add(root, "mode", json_object_new_string("host"));
	xl_status_json_about(root, instance);
	json_object_object_add(root, "pin_dir", json_object_new_string(dir));
	json_object_object_add(progs, "ingress", json_object_new_int64(in_id));
	json_object_object_add(progs, "egress", json_object_new_int64(out_id));
	json_object_object_add(root, "prog_ids", progs);
	json_object_object_add(root, "daemon_pid", json_object_new_int64(dh.pid));
	json_object_object_add(root, "daemon", xl_daemon_health_json(&dh));
	json_object_object_add(root, "memory", xl_map_memory_json(instance));
	json_object_object_add(root, "dcqcn", dcqcn_json(&hc));
	for (int i = 0; i < n; i++) {
		const struct xl_host_port *p = &ports[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(xl_host_port_ifname(p, ifname)));
		json_object_object_add(o, "config_name", json_object_new_string(p->name));
		json_object_object_add(o, "ifindex", json_object_new_int64(
			xl_host_port_ifindex(p)));
		json_object_object_add(o, "ingress", link_json(&p->in, in_id, XL_TCX_INGRESS));
		json_object_object_add(o, "egress", link_json(&p->out, out_id, XL_TCX_EGRESS));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "ports", arr);
	xl_print_json("status", root);
	return xl_daemon_health_exit(&dh);
}

/* ---- stats --------------------------------------------------------------- */

/* host_stats, one entry per CPU, summed. */
static int read_host_stats(const char *instance, struct xl_host_stats *sum)
{
	__u32 zero = 0;
	int fd, err;

	fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_HOST_STATS));
	if (fd < 0)
		return -1;
	err = xl_percpu_sum_u64(fd, &zero, sizeof(*sum), sum);
	if (err)
		xl_err("instance '%s': cannot read host_stats: %s", instance, strerror(errno));
	close(fd);
	return err;
}

/* host_stats' counters: name (the JSON key and struct field) and meaning. */
#define ROW(f, what) { #f, offsetof(struct xl_host_stats, f), what }
static const struct {
	const char *name;
	size_t off;
	const char *what;
} stat_rows[] = {
	ROW(ce_seen, "CE-marked RoCEv2 data packets received"),
	ROW(cnps_sent, "CNPs sent (NP)"),
	ROW(cnps_suppressed, "CE seen within the CNP interval: no CNP"),
	ROW(cnps_received, "CNPs received (RP)"),
	ROW(cnps_unknown, "CNPs for no known flow (ignored)"),
	ROW(edt_stamped, "packets given a departure time at egress"),
	ROW(cnp_clone_failed, "bpf_clone_redirect() refused the copy"),
	ROW(cnp_build_failed, "a marked copy could not become a CNP"),
	ROW(rp_no_room, "new sending flows that found rp_flows full"),
	ROW(np_not_ours, "CE data not unicast to our MAC and address: no CNP"),
	ROW(np_malformed, "CE \"data\" of the wrong lengths or opcode: no CNP"),
	ROW(np_port_capped, "CNPs held back by the port's cap (cnp_port_rate)"),
	ROW(rp_not_ours, "CNPs not unicast to our MAC and address: ignored"),
	ROW(rp_malformed, "CNPs of the wrong shape or length: ignored"),
	ROW(rp_bad_icrc, "CNPs whose ICRC is wrong: ignored"),
	ROW(np_bad_icrc, "CE data whose ICRC is wrong: no CNP"),
};
#undef ROW
#define N_STAT_ROWS (sizeof(stat_rows) / sizeof(stat_rows[0]))

static __u64 stat_value(const struct xl_host_stats *s, size_t i)
{
	return *(const __u64 *)((const char *)s + stat_rows[i].off);
}

json_object *xl_host_stats_json(const char *instance)
{
	struct xl_host_stats s;
	json_object *root, *c;

	if (read_host_stats(instance, &s))
		return NULL;
	root = json_object_new_object();
	c = json_object_new_object();
	json_object_object_add(root, "instance", json_object_new_string(instance));
	json_object_object_add(root, "mode", json_object_new_string("host"));
	for (size_t i = 0; i < N_STAT_ROWS; i++)
		json_object_object_add(c, stat_rows[i].name,
				       json_object_new_uint64(stat_value(&s, i)));
	json_object_object_add(root, "counters", c);
	json_object_object_add(root, "events", xl_event_counts_json(instance));
	json_object_object_add(root, "roce_psn", xl_psn_totals_json(instance));
	json_object_object_add(root, "daemon", xl_daemon_json(instance));
	return root;
}

int xl_host_stats(const char *instance, bool json)
{
	struct xl_host_stats s;
	json_object *o;

	if (json) {
		o = xl_host_stats_json(instance);
		if (!o)
			return -1;
		xl_print_json("stats", o);
		return 0;
	}
	if (read_host_stats(instance, &s))
		return -1;
	printf("instance %s (host mode): DCQCN counters, all ports and CPUs\n",
	       instance);
	for (size_t i = 0; i < N_STAT_ROWS; i++)
		printf("%-18s %14llu  %s\n", stat_rows[i].name, stat_value(&s, i),
		       stat_rows[i].what);
	xl_telemetry_print(instance);
	return 0;
}

/* ---- qps ----------------------------------------------------------------- */

struct np_row {
	struct xl_qp_key k;
	struct xl_np_flow f;
};

struct rp_row {
	struct xl_qp_key k;
	struct xl_rp_flow f;
	struct xl_rp_rate r;
	bool published;
};

/* Every entry of a hash map keyed by struct xl_qp_key, values of vsize
 * bytes at voff in rows of rsize bytes. At most max_entries rows: a map
 * changing under the walk may restart get_next_key from the first key,
 * which would otherwise loop. Returns the rows (malloc'd) and their
 * number in *n, or NULL. */
static void *walk_qp_map(int fd, size_t rsize, size_t voff, size_t *n)
{
	struct bpf_map_info mi = {};
	__u32 mlen = sizeof(mi);
	struct xl_qp_key key, next;
	void *prev = NULL;
	char *rows;
	size_t cap;

	*n = 0;
	if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) || !mi.max_entries)
		mi.max_entries = XL_MAX_QPS;
	cap = mi.max_entries;
	rows = calloc(cap ? cap : 1, rsize);
	if (!rows)
		return NULL;
	while (*n < cap && bpf_map_get_next_key(fd, prev, &next) == 0) {
		char *row = rows + *n * rsize;

		key = next;
		prev = &key;
		/* No BPF_F_LOCK for rp_flows: see xl_host_qps. */
		if (bpf_map_lookup_elem(fd, &key, row + voff))
			continue; /* deleted or evicted meanwhile */
		memcpy(row, &key, sizeof(key));
		(*n)++;
	}
	return rows;
}

static int key_cmp(const struct xl_qp_key *a, const struct xl_qp_key *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	int c = memcmp(a->addr, b->addr, sizeof(a->addr));

	if (c)
		return c;
	return a->qp < b->qp ? -1 : a->qp > b->qp;
}

/* NP: most CE-marked flows first. */
static int np_cmp(const void *x, const void *y)
{
	const struct np_row *a = x, *b = y;

	if (a->f.ce_packets != b->f.ce_packets)
		return a->f.ce_packets > b->f.ce_packets ? -1 : 1;
	return key_cmp(&a->k, &b->k);
}

/* RP: lowest current rate Rc first (the most throttled), then the most
 * CNPs. */
static int rp_cmp(const void *x, const void *y)
{
	const struct rp_row *a = x, *b = y;

	if (a->f.s.rc != b->f.s.rc)
		return a->f.s.rc < b->f.s.rc ? -1 : 1;
	if (a->f.cnps != b->f.cnps)
		return a->f.cnps > b->f.cnps ? -1 : 1;
	return key_cmp(&a->k, &b->k);
}

/* The remote address of a key; NULL for the NP's per-port limiter key
 * ({0, family 0, qp = ifindex}, cnp_scope = port). */
static const char *remote_str(const struct xl_qp_key *k, char *buf, size_t len)
{
	if (k->family == 4)
		return inet_ntop(AF_INET, k->addr, buf, len);
	if (k->family == 6)
		return inet_ntop(AF_INET6, k->addr, buf, len);
	return NULL;
}

/* The phase a flow is in. paper: the one include/dcqcn.h tracks. nvidia
 * keeps no phase: its next increase is fast recovery while T's count is
 * below F, additive at F, hyper above. A flow no CNP ever reached runs
 * at line rate: "none". */
static const char *phase_name(const struct xl_dcqcn_state *s,
			      const struct xl_host_cfg *hc, bool json)
{
	__u32 ph = s->phase;

	if (!s->cnp_seen)
		return "none";
	if (hc->rp.variant == XL_DCQCN_NVIDIA)
		ph = s->t_cnt < hc->rp.f ? XL_PHASE_FR :
		     s->t_cnt == hc->rp.f ? XL_PHASE_AI : XL_PHASE_HAI;
	switch (ph) {
	case XL_PHASE_FR: return json ? "fast_recovery" : "FR";
	case XL_PHASE_AI: return json ? "additive_increase" : "AI";
	case XL_PHASE_HAI: return json ? "hyper_increase" : "HAI";
	}
	return "?";
}

static void np_out(const struct np_row *rows, size_t n, size_t total,
		   __u64 now, json_object *arr)
{
	char addr[INET6_ADDRSTRLEN], age[40], qp[16], ifname[IF_NAMESIZE];

	if (!arr) {
		printf("NP flows (CE-marked data received, CNPs sent back; most CE "
		       "first): %zu", total);
		if (n < total)
			printf(", first %zu shown", n);
		printf("\n%-40s %8s %12s %10s %11s %12s\n", "remote", "qp",
		       "ce_packets", "cnps_sent", "suppressed", "last_cnp");
	}
	for (size_t i = 0; i < n; i++) {
		const struct np_row *r = &rows[i];
		const char *remote = remote_str(&r->k, addr, sizeof(addr));
		__u64 last = r->f.last_cnp_ns;
		__u64 ago = last && now > last ? now - last : 0;

		if (!arr) {
			if (last)
				fmt_age(age, sizeof(age), ago);
			if (remote) {
				snprintf(qp, sizeof(qp), "0x%06x", r->k.qp);
			} else {
				/* per-port limiter: the key's qp is the ifindex */
				snprintf(addr, sizeof(addr), "(port %s)",
					 if_indextoname(r->k.qp, ifname) ? ifname : "?");
				remote = addr;
				snprintf(qp, sizeof(qp), "-");
			}
			printf("%-40s %8s %12llu %10llu %11llu %12s\n", remote, qp,
			       r->f.ce_packets, r->f.cnps_sent, r->f.cnps_suppressed,
			       last ? strcat(age, " ago") : "never");
			continue;
		}
		json_object *o = json_object_new_object();

		if (remote) {
			json_object_object_add(o, "scope", json_object_new_string("qp"));
			json_object_object_add(o, "remote", json_object_new_string(remote));
			json_object_object_add(o, "family", json_object_new_int(r->k.family));
			json_object_object_add(o, "qp", json_object_new_int64(r->k.qp));
		} else {
			json_object_object_add(o, "scope", json_object_new_string("port"));
			json_object_object_add(o, "remote", NULL);
			json_object_object_add(o, "ifindex", json_object_new_int64(r->k.qp));
			json_object_object_add(o, "port", if_indextoname(r->k.qp, ifname) ?
					       json_object_new_string(ifname) : NULL);
		}
		json_object_object_add(o, "ce_packets", json_object_new_uint64(r->f.ce_packets));
		json_object_object_add(o, "cnps_sent", json_object_new_uint64(r->f.cnps_sent));
		json_object_object_add(o, "cnps_suppressed", json_object_new_uint64(r->f.cnps_suppressed));
		json_object_object_add(o, "last_cnp_age_ns", last ? json_object_new_uint64(ago) : NULL);
		json_object_array_add(arr, o);
	}
}

/* The state shown is as of each flow's last event (last_event): timers
 * run lazily (include/dcqcn.h), so a flow idle since then has not
 * recovered on paper yet; its next event catches up. */
static void rp_out(const struct rp_row *rows, size_t n, size_t total,
		   const struct xl_host_cfg *hc, __u64 now, json_object *arr)
{
	char addr[INET6_ADDRSTRLEN], pub[16], age[40];

	if (!arr) {
		printf("RP flows (our sending flows, as of their last event; "
		       "lowest Rc, most throttled, first): %zu", total);
		if (n < total)
			printf(", first %zu shown", n);
		printf("\n%-40s %8s %10s %10s %8s %5s %8s %14s %10s %7s %5s %12s\n",
		       "remote", "qp", "Rc_Gbps", "Rt_Gbps", "alpha", "phase",
		       "cnps", "bytes", "pub_Gbps", "behind", "lost", "last_event");
	}
	for (size_t i = 0; i < n; i++) {
		const struct rp_row *r = &rows[i];
		const struct xl_dcqcn_state *s = &r->f.s;
		const char *remote = remote_str(&r->k, addr, sizeof(addr));
		__u64 ago = now > r->f.last_ns ? now - r->f.last_ns : 0;

		if (!remote)
			remote = "?";
		if (!arr) {
			if (r->published)
				snprintf(pub, sizeof(pub), "%.3f", r->r.rate_bps / 1e9);
			else
				snprintf(pub, sizeof(pub), "-");
			fmt_age(age, sizeof(age), ago);
			printf("%-40s 0x%06x %10.3f %10.3f %8.6f %5s %8llu %14llu %10s %7llu %5llu %12s\n",
			       remote, r->k.qp, s->rc / 1e9, s->rt / 1e9, q32(s->alpha),
			       phase_name(s, hc, false), r->f.cnps, r->f.bytes, pub,
			       r->f.behind, r->f.lost_updates, strcat(age, " ago"));
			continue;
		}
		json_object *o = json_object_new_object();

		json_object_object_add(o, "remote", json_object_new_string(remote));
		json_object_object_add(o, "family", json_object_new_int(r->k.family));
		json_object_object_add(o, "qp", json_object_new_int64(r->k.qp));
		json_object_object_add(o, "rc_bps", json_object_new_uint64(s->rc));
		json_object_object_add(o, "rt_bps", json_object_new_uint64(s->rt));
		json_object_object_add(o, "alpha", json_object_new_double(q32(s->alpha)));
		json_object_object_add(o, "alpha_q32", json_object_new_uint64(s->alpha));
		json_object_object_add(o, "phase", json_object_new_string(phase_name(s, hc, true)));
		json_object_object_add(o, "cnps", json_object_new_uint64(r->f.cnps));
		json_object_object_add(o, "bytes", json_object_new_uint64(r->f.bytes));
		json_object_object_add(o, "published_rate_bps", r->published ?
				       json_object_new_uint64(r->r.rate_bps) : NULL);
		json_object_object_add(o, "behind", json_object_new_uint64(r->f.behind));
		json_object_object_add(o, "lost_updates", json_object_new_uint64(r->f.lost_updates));
		json_object_object_add(o, "last_event_age_ns", json_object_new_uint64(ago));
		json_object_array_add(arr, o);
	}
}

/* The qps listing: printed as a table, or (out non-NULL) built as the
 * --json object into *out. */
static int qps_listing(const char *instance, int top, json_object **out)
{
	bool json = out != NULL;
	struct np_row *np = NULL;
	struct rp_row *rp = NULL;
	size_t n_np = 0, n_rp = 0, show_np, show_rp;
	struct xl_host_cfg hc;
	int np_fd = -1, rp_fd = -1, rates_fd = -1, err = -1;
	json_object *root = NULL, *np_arr = NULL, *rp_arr = NULL;
	__u64 now;

	if (read_host_cfg(instance, &hc))
		return -1;
	np_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_NP_FLOWS));
	rp_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_RP_FLOWS));
	rates_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_RP_RATES));
	if (np_fd < 0 || rp_fd < 0 || rates_fd < 0)
		goto out;
	now = xl_monotonic_ns();
	np = walk_qp_map(np_fd, sizeof(*np), offsetof(struct np_row, f), &n_np);
	/* rp_flows is read without its spin lock (no BPF_F_LOCK): the
	 * programs write a flow's state under the lock, so a read racing a
	 * write may see a torn state, e.g. Rc from after a CNP and alpha from
	 * before it. The values are for display only; a second look settles
	 * them. */
	rp = walk_qp_map(rp_fd, sizeof(*rp), offsetof(struct rp_row, f), &n_rp);
	if (!np || !rp) {
		xl_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_rp; i++)
		rp[i].published = bpf_map_lookup_elem(rates_fd, &rp[i].k, &rp[i].r) == 0;
	qsort(np, n_np, sizeof(*np), np_cmp);
	qsort(rp, n_rp, sizeof(*rp), rp_cmp);
	show_np = top > 0 && n_np > (size_t)top ? (size_t)top : n_np;
	show_rp = top > 0 && n_rp > (size_t)top ? (size_t)top : n_rp;
	if (json) {
		root = json_object_new_object();
		np_arr = json_object_new_array();
		rp_arr = json_object_new_array();
		json_object_object_add(root, "instance", json_object_new_string(instance));
		json_object_object_add(root, "mode", json_object_new_string("host"));
		json_object_object_add(root, "variant", json_object_new_string(variant_name(hc.rp.variant)));
		json_object_object_add(root, "cnp_scope", json_object_new_string(scope_name(hc.cnp_scope)));
		json_object_object_add(root, "np_total", json_object_new_uint64(n_np));
		json_object_object_add(root, "rp_total", json_object_new_uint64(n_rp));
	}
	np_out(np, show_np, n_np, now, np_arr);
	if (!json)
		printf("\n");
	rp_out(rp, show_rp, n_rp, &hc, now, rp_arr);
	if (json) {
		json_object_object_add(root, "np_flows", np_arr);
		json_object_object_add(root, "rp_flows", rp_arr);
		*out = root;
	}
	err = 0;
out:
	free(np);
	free(rp);
	if (np_fd >= 0)
		close(np_fd);
	if (rp_fd >= 0)
		close(rp_fd);
	if (rates_fd >= 0)
		close(rates_fd);
	return err;
}

json_object *xl_host_qps_json(const char *instance, int top)
{
	json_object *o = NULL;

	return qps_listing(instance, top, &o) ? NULL : o;
}

int xl_host_qps(const char *instance, int top, bool json)
{
	json_object *o = NULL;

	if (qps_listing(instance, top, json ? &o : NULL))
		return -1;
	if (o)
		xl_print_json("qps", o);
	return 0;
}
