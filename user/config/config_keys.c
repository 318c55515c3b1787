// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The configuration's keys, once (user/config/config_keys.h says who reads
 * this table). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "config/config_keys.h"
#include "base/names.h"
#include "base/units.h"
#include "events.h"
#include "telemetry.h"

const char *const xl_sect_names[S_COUNT] = {
	[S_NONE] = "", [S_XDPLEAF] = "xdpleaf", [S_PORT] = "port", [S_GROUP] = "group",
	[S_ROUTE] = "route", [S_CLASS] = "class", [S_DCQCN] = "dcqcn",
};

/* Words of the choices only the configuration has (the dataplane's enums
 * with printable names are in names.c). Indexed by their enums. */
static const char *const modes[] = { [XL_NODE_LEAF] = "leaf", [XL_NODE_HOST] = "host" };
static const char *const malformed[] = { [XL_MALFORMED_PASS] = "pass",
					 [XL_MALFORMED_DROP] = "drop" };
static const char *const xdp_modes[] = { [XL_ATTACH_NATIVE] = "native",
					 [XL_ATTACH_GENERIC] = "generic" };
static const char *const hooks[] = { [XL_HOOK_AUTO] = "auto", [XL_HOOK_AT_XDP] = "xdp",
				      [XL_HOOK_AT_TC] = "tc" };
static const char *const overflows[] = { [XL_OVERFLOW_DROP] = "drop",
					 [XL_OVERFLOW_MARK] = "mark" };
static const char *const variants[] = { [XL_DCQCN_PAPER] = "paper",
					[XL_DCQCN_NVIDIA] = "nvidia" };
static const char *const cnp_scopes[] = { [XL_CNP_PER_QP] = "qp",
					  [XL_CNP_PER_PORT] = "port" };
_Static_assert(XL_MALFORMED_PASS == 0 && XL_MALFORMED_DROP == 1, "malformed words");

#define CHOICES(a) .choices = (a), .n_choices = sizeof(a) / sizeof((a)[0])
#define CFG(f) .off = offsetof(struct xl_config, f)
#define PORT(f) .off = offsetof(struct xl_cfg_port, f)
#define GROUP(f) .off = offsetof(struct xl_cfg_group, f)
#define WRED(f) .off = offsetof(struct xl_wred, f)
#define HOST(f) .off = offsetof(struct xl_host_cfg, f)

/* Ranges (docs/config.md states them; the defaults must lie inside). */
#define FLOW_TABLE_MIN 1024U
#define FLOW_TABLE_MAX (4U << 20)
#define FLOWLET_TIMEOUT_MIN 1000ULL        /* 1us */
#define FLOWLET_TIMEOUT_MAX 1000000000ULL  /* 1s */
#define PATH_SKEW_MAX 1000000000ULL        /* 1s: the rule adds it in 32 bits */
#define CNP_INTERVAL_MIN 1000ULL           /* 1us */
#define CNP_INTERVAL_MAX 1000000000ULL     /* 1s */
#define DCQCN_TIMER_MIN 1ULL               /* k, t_dec: 1ns.. */
#define DCQCN_T_MIN 2ULL                   /* t: 2ns.. (the hyper period T/2 > 0) */
#define DCQCN_TIMER_MAX 1000000000ULL      /* ..1s */
#define DCQCN_F_MAX 1000
_Static_assert(XL_FLOW_TABLE_SIZE >= FLOW_TABLE_MIN && XL_FLOW_TABLE_SIZE <= FLOW_TABLE_MAX,
	       "default flow table size out of the config's range");
_Static_assert(XL_DEFAULT_FLOWLET_TIMEOUT_NS >= FLOWLET_TIMEOUT_MIN &&
	       XL_DEFAULT_FLOWLET_TIMEOUT_NS <= FLOWLET_TIMEOUT_MAX,
	       "default flowlet timeout out of the config's range");
_Static_assert(XL_DEFAULT_PATH_SKEW_NS <= PATH_SKEW_MAX,
	       "default path skew out of the config's range");
_Static_assert(XL_CNP_INTERVAL_DEFAULT_NS >= CNP_INTERVAL_MIN &&
	       XL_CNP_INTERVAL_DEFAULT_NS <= CNP_INTERVAL_MAX,
	       "default CNP interval out of the config's range");
_Static_assert(XL_CNP_DSCP_DEFAULT <= 63, "default CNP DSCP is not a DSCP");

const struct xl_key_def xl_keys[K_COUNT] = {
	/* [xdpleaf] */
	[K_MODE] = { S_XDPLEAF, "mode", T_CHOICE, CHOICES(modes), CFG(node_role),
		     .doc_default = "`leaf`", .doc_values = "`leaf`, `host`" },
	[K_MALFORMED] = { S_XDPLEAF, "malformed", T_CHOICE, CHOICES(malformed), CFG(malformed),
			  .doc_default = "`pass`", .doc_values = "`pass`, `drop`" },
	[K_XDP_MODE] = { S_XDPLEAF, "xdp_mode", T_CHOICE, CHOICES(xdp_modes), CFG(attach_mode),
			 .doc_default = "`native`", .doc_values = "`native`, `generic`" },
	[K_HOOK] = { S_XDPLEAF, "hook", T_CHOICE, CHOICES(hooks), CFG(hook),
		     .doc_default = "`auto`", .doc_values = "`auto`, `xdp`, `tc`" },
	[K_FLOW_TABLE_SIZE] = { S_XDPLEAF, "flow_table_size", T_COUNT, FLOW_TABLE_MIN,
				FLOW_TABLE_MAX, CFG(flow_table_size),
				.doc_default = "`64K` (65536, `XL_FLOW_TABLE_SIZE`)",
				.doc_values = "1K..4M entries (1024..4194304)" },
	[K_EVENT_RATE] = { S_XDPLEAF, "event_rate", T_UINT, 0, 1000000, CFG(event_rate),
			   .doc_default = "`1000` (`XL_EVENT_RATE_DEFAULT`)",
			   .doc_values = "0..1000000 events per second (0: no events)" },
	[K_MARK_EVENT_SAMPLE] = { S_XDPLEAF, "mark_event_sample", T_UINT, 1, 1000000,
				  CFG(mark_event_sample),
				  .doc_default = "`100` (`XL_MARK_SAMPLE_DEFAULT`)",
				  .doc_values = "1..1000000" },
	[K_PFC_WATCHDOG] = { S_XDPLEAF, "pfc_watchdog", T_DURATION, 0, 10000000000ULL,
			     CFG(pfc_watchdog_ns),
			     .doc_default = "`200ms` (`XL_PFC_WATCHDOG_DEFAULT_NS`)",
			     .doc_values = "a duration, `0ns` (off)..10s" },
	/* [port] */
	[K_ROLE] = { S_PORT, "role", T_CHOICE, .choices = xl_role_names, .n_choices = 2,
		     PORT(role), .doc_default = "`downlink`",
		     .doc_values = "`downlink`, `uplink`" },
	[K_PGROUP] = { S_PORT, "group", T_SPECIAL, .flags = KF_LEAF_ONLY,
		       .doc_default = "none", .doc_values = "a group name" },
	[K_NH4] = { S_PORT, "nexthop4", T_ADDR4, PORT(nexthop4),
		    .flag_off = offsetof(struct xl_cfg_port, has_nexthop4), .flags = KF_LEAF_ONLY,
		    .doc_default = "none", .doc_values = "an IPv4 address (`a.b.c.d`)" },
	[K_NH6] = { S_PORT, "nexthop6", T_ADDR6, PORT(nexthop6),
		    .flag_off = offsetof(struct xl_cfg_port, has_nexthop6), .flags = KF_LEAF_ONLY,
		    .doc_default = "none", .doc_values = "an IPv6 address" },
	[K_RATE] = { S_PORT, "rate", T_RATE, PORT(rate_bps),
		     .doc_default = "none (unlimited)", .doc_values = "1M..1600G bit/s" },
	[K_GAMMA] = { S_PORT, "gamma", T_GAMMA, PORT(gamma_ppm), .flags = KF_LEAF_ONLY,
		      .doc_default = "`1`", .doc_values = "0 < gamma <= 1, at most 6 decimals" },
	[K_BUFFER] = { S_PORT, "buffer", T_BYTES, 2048, PORT(buffer_bytes),
		       .flags = KF_LEAF_ONLY,
		       .doc_default = "`1M` (1048576 bytes), or 2 ms of `rate` if that is less, "
				      "but at least two of the port's largest frames (MTU + 18 "
				      "bytes; `xl_default_buffer`, the loader)",
		       .doc_values = "2K..256M bytes" },
	[K_OVERFLOW] = { S_PORT, "overflow", T_CHOICE, CHOICES(overflows), PORT(overflow),
			 .flags = KF_LEAF_ONLY, .doc_default = "`drop`",
			 .doc_values = "`drop`, `mark`" },
	[K_LINE_OVERHEAD] = { S_PORT, "line_overhead", T_UINT, 0, 256, PORT(line_overhead),
			      .flags = KF_LEAF_ONLY,
			      .doc_default = "`24` (`XL_DEFAULT_LINE_OVERHEAD`: Ethernet's "
					     "preamble and delimiter 8, FCS 4, inter-frame gap 12)",
			      .doc_values = "0..256 bytes per frame, counted by the phantom "
					    "queue on top of the frame" },
	[K_VLANS] = { S_PORT, "vlans", T_SPECIAL, .flags = KF_LEAF_ONLY,
		      .doc_default = "none (tagged frames go to the kernel; VID 0, "
				     "priority-tagged, is untagged)",
		      .doc_values = "VLAN IDs 1-4094 and ranges, separated by spaces "
				    "and/or commas (`100 200-203`)" },
	[K_PSN_TRACKING] = { S_PORT, "psn_tracking", T_YES_NO, PORT(psn_tracking),
			     .flags = KF_LEAF_ONLY, .doc_default = "`no`",
			     .doc_values = "`yes`, `no`" },
	/* [group] */
	[K_LB_MODE] = { S_GROUP, "lb_mode", T_CHOICE, .choices = xl_lb_mode_names,
			.n_choices = XL_LB_MODES, GROUP(lb_mode), .doc_default = "`hash`",
			.doc_values = "`hash`, `flowlet`, `flowlet-random`, `spray`" },
	[K_FLOWLET_TIMEOUT] = { S_GROUP, "flowlet_timeout", T_DURATION, FLOWLET_TIMEOUT_MIN,
				FLOWLET_TIMEOUT_MAX, GROUP(flowlet_timeout_ns),
				.flag_off = offsetof(struct xl_cfg_group, flowlet_auto),
				.dflt = XL_DEFAULT_FLOWLET_TIMEOUT_NS, .flags = KF_AUTO,
				.doc_default = "`auto` = the longest of `50us` "
					       "(`XL_DEFAULT_FLOWLET_TIMEOUT_NS`), the time the "
					       "slowest member drains its whole buffer, and four of "
					       "the flow's own packet spacings",
				.doc_values = "`auto`, or a duration 1us..1s" },
	[K_PATH_SKEW] = { S_GROUP, "path_skew", T_DURATION, 0, PATH_SKEW_MAX,
			  GROUP(path_skew_ns),
			  .flag_off = offsetof(struct xl_cfg_group, path_skew_auto),
			  .dflt = XL_DEFAULT_PATH_SKEW_NS, .flags = KF_AUTO | KF_U32,
			  .doc_default = "`auto` = `25us` (`XL_DEFAULT_PATH_SKEW_NS`) plus two "
					 "full frames at the rate of the member moved to "
					 "(`xl_auto_skew_ns`)",
			  .doc_values = "`auto`, or a duration 0ns..1s (used as it is, for every "
					"member)" },
	[K_SPRAY_REORDER] = { S_GROUP, "spray_reorder", T_CHOICE,
			      .choices = xl_spray_reorder_names, .n_choices = XL_SPRAY_REORDERS,
			      GROUP(spray_reorder), .doc_default = "`free`",
			      .doc_values = "`free`, `safe`" },
	/* [route]: no default column in the docs */
	[K_RPORT] = { S_ROUTE, "port", T_SPECIAL, .doc_values = "the IFNAME of a `[port]`" },
	[K_RGROUP] = { S_ROUTE, "group", T_SPECIAL, .doc_values = "the NAME of a `[group]`" },
	/* [class] */
	[K_DSCP] = { S_CLASS, "dscp", T_SPECIAL, .doc_default = "none",
		     .doc_values = "DSCP values 0-63, separated by spaces and/or commas "
				   "(`26 27`, `26, 27`)" },
	[K_KMIN] = { S_CLASS, "kmin", T_BYTES, 0, WRED(kmin), .doc_default = "`5K`",
		     .doc_values = "0..256M bytes" },
	[K_KMAX] = { S_CLASS, "kmax", T_BYTES, 0, WRED(kmax), .doc_default = "`200K`",
		     .doc_values = "0..256M bytes" },
	[K_PMAX] = { S_CLASS, "pmax", T_PMAX, WRED(pmax), .doc_default = "`1%`",
		     .doc_values = "a fraction `0`..`1` (`0.01`) or a percentage `0%`..`100%` "
				   "(`1%`), at most 6 decimals" },
	[K_MARK] = { S_CLASS, "mark", T_NO_FLAG, XL_CLASS_NO_MARK, WRED(flags),
		     .doc_default = "`yes`", .doc_values = "`yes`, `no`" },
	[K_DROP] = { S_CLASS, "drop", T_NO_FLAG, XL_CLASS_NO_DROP, WRED(flags),
		     .doc_default = "`yes`", .doc_values = "`yes`, `no`" },
	/* [dcqcn]: the NP's keys, then the RP's (inside struct xl_host_cfg's rp) */
	[K_VARIANT] = { S_DCQCN, "variant", T_CHOICE, CHOICES(variants), HOST(rp.variant),
			.doc_default = "-", .doc_nvidia = "-",
			.doc_values = "`paper`, `nvidia` (default `paper`)" },
	[K_NP] = { S_DCQCN, "np", T_YES_NO, HOST(np_enabled), .doc_default = "`yes`",
		   .doc_values = "`yes`, `no`" },
	[K_RP] = { S_DCQCN, "rp", T_YES_NO, HOST(rp_enabled), .doc_default = "`yes`",
		   .doc_nvidia = "`yes`", .doc_values = "`yes`, `no`" },
	[K_CNP_INTERVAL] = { S_DCQCN, "cnp_interval", T_DURATION, CNP_INTERVAL_MIN,
			     CNP_INTERVAL_MAX, HOST(cnp_interval_ns),
			     .doc_default = "`50us` (`XL_CNP_INTERVAL_DEFAULT_NS`)",
			     .doc_values = "a duration, 1us..1s" },
	[K_CNP_SCOPE] = { S_DCQCN, "cnp_scope", T_CHOICE, CHOICES(cnp_scopes), HOST(cnp_scope),
			  .doc_default = "`qp`", .doc_values = "`qp`, `port`" },
	[K_CNP_DSCP] = { S_DCQCN, "cnp_dscp", T_UINT, 0, 63, HOST(cnp_dscp),
			 .doc_default = "`48` (`XL_CNP_DSCP_DEFAULT`)", .doc_values = "0..63" },
	[K_CNP_PORT_RATE] = { S_DCQCN, "cnp_port_rate", T_UINT, 0, 100000000,
			      HOST(cnp_port_rate),
			      .doc_default = "`100000` (`XL_CNP_PORT_RATE_DEFAULT`)",
			      .doc_values = "0 (no cap)..100000000 CNPs per second" },
	[K_G] = { S_DCQCN, "g", T_Q32, 0, 0, HOST(rp.g), .doc_default = "`1/256`",
		  .doc_nvidia = "`5/1024`", .doc_values = "a fraction, 0 < g < 1" },
	[K_ALPHA_FIRST] = { S_DCQCN, "alpha_first", T_Q32, 0, 1, HOST(rp.alpha_first),
			    .flags = KF_NVIDIA_ONLY, .doc_default = "-",
			    .doc_nvidia = "`1023/1024`",
			    .doc_values = "a fraction, 0 < alpha_first <= 1" },
	[K_K] = { S_DCQCN, "k", T_DURATION, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX, HOST(rp.k_ns),
		  .doc_default = "`55us`", .doc_nvidia = "`1us`",
		  .doc_values = "a duration, 1ns..1s" },
	[K_T] = { S_DCQCN, "t", T_DURATION, DCQCN_T_MIN, DCQCN_TIMER_MAX, HOST(rp.t_ns),
		  .doc_default = "`55us`", .doc_nvidia = "`300us`",
		  .doc_values = "a duration, 2ns..1s" },
	[K_T_DEC] = { S_DCQCN, "t_dec", T_DURATION, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX,
		      HOST(rp.t_dec_ns), .flags = KF_NVIDIA_ONLY, .doc_default = "-",
		      .doc_nvidia = "`4us`", .doc_values = "a duration, 1ns..1s" },
	[K_B] = { S_DCQCN, "b", T_DCQCN_B, HOST(rp.b_bytes), .flags = KF_PAPER_ONLY,
		  .doc_default = "`10000000`", .doc_nvidia = "-",
		  .doc_values = "bytes, a plain whole number 0..268435456 (no `K` or `M`)" },
	[K_F] = { S_DCQCN, "f", T_UINT, 1, DCQCN_F_MAX, HOST(rp.f), .doc_default = "`5`",
		  .doc_nvidia = "`1`", .doc_values = "1..1000" },
	[K_CLAMP] = { S_DCQCN, "clamp", T_YES_NO, HOST(rp.clamp), .flags = KF_PAPER_ONLY,
		      .doc_default = "`yes`", .doc_nvidia = "-", .doc_values = "`yes`, `no`" },
	[K_R_AI] = { S_DCQCN, "r_ai", T_RATE, HOST(rp.r_ai), .flags = KF_KEY_PREFIX,
		     .doc_default = "`40M`", .doc_nvidia = "`5M`",
		     .doc_values = "a rate, 1M..1600G" },
	[K_R_HAI] = { S_DCQCN, "r_hai", T_RATE, HOST(rp.r_hai), .flags = KF_KEY_PREFIX,
		      .doc_default = "`200M`", .doc_nvidia = "`50M`",
		      .doc_values = "a rate, 1M..1600G" },
	[K_MIN_RATE] = { S_DCQCN, "min_rate", T_RATE, HOST(rp.min_rate), .flags = KF_KEY_PREFIX,
			 .doc_default = "`100M`", .doc_nvidia = "`1M`",
			 .doc_values = "a rate, 1M..1600G, at most every port's `rate`" },
};

size_t xl_key_size(const struct xl_key_def *k)
{
	switch (k->type) {
	case T_RATE: case T_Q32: case T_DCQCN_B:
		return 8;
	case T_DURATION:
		return k->flags & KF_U32 ? 4 : 8;
	case T_ADDR4: case T_ADDR6: case T_SPECIAL:
		return 0;
	default:
		return 4;
	}
}

enum xl_key_id xl_key_find(enum xl_sect sect, const char *name)
{
	int k;

	for (k = 0; k < K_COUNT; k++)
		if (xl_keys[k].sect == sect && !strcmp(xl_keys[k].name, name))
			break;
	return (enum xl_key_id)k;
}

static int choice(const struct xl_key_def *k, const char *const *words, __u32 n,
		  const char *value, __u32 *out, char *msg, size_t len)
{
	char list[128] = "";

	for (__u32 i = 0; i < n; i++) {
		if (!strcmp(value, words[i])) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", words[i]);
	}
	snprintf(msg, len, "invalid %s '%s' (allowed: %s)", k->name, value, list);
	return -1;
}

static int address(const struct xl_key_def *k, const char *value, __u8 *addr,
		   char *msg, size_t len)
{
	bool v4 = k->type == T_ADDR4;
	__u8 tmp[16];

	if (inet_pton(v4 ? AF_INET : AF_INET6, value, addr) == 1)
		return 0;
	if (inet_pton(v4 ? AF_INET6 : AF_INET, value, tmp) == 1)
		snprintf(msg, len, "%s '%s' is an %s address; use %s", k->name, value,
			 v4 ? "IPv6" : "IPv4", v4 ? "nexthop6" : "nexthop4");
	else
		snprintf(msg, len, "invalid %s address '%s' for %s", v4 ? "IPv4" : "IPv6",
			 value, k->name);
	return -1;
}

/* A parser's message, with "key: " first where the parser does not name
 * the key itself. */
static int prefixed(const struct xl_key_def *k, int ret, const char *m, char *msg,
		    size_t len)
{
	if (ret)
		snprintf(msg, len, "%s: %s", k->name, m);
	return ret ? -1 : 0;
}

int xl_key_parse(const struct xl_key_def *k, const char *value, void *obj,
		 char *msg, size_t len)
{
	static const char *const yes_no[] = { "yes", "no" };
	char *field = (char *)obj + k->off, m[XL_ERR_MAX], lo[32];
	__u32 *u32 = (__u32 *)field, v;
	__u64 *u64 = (__u64 *)field, ns;
	int ret;

	switch (k->type) {
	case T_CHOICE:
		return choice(k, k->choices, k->n_choices, value, u32, msg, len);
	case T_YES_NO:
	case T_NO_FLAG:
		if (choice(k, yes_no, 2, value, &v, msg, len))
			return -1;
		if (k->type == T_YES_NO)
			*u32 = !v;
		else
			*u32 = v ? *u32 | (__u32)k->lo : *u32 & ~(__u32)k->lo;
		return 0;
	case T_COUNT:
		return xl_parse_count(k->name, value, (__u32)k->lo, (__u32)k->hi, u32, msg, len);
	case T_UINT:
		return xl_parse_uint(k->name, value, (__u32)k->lo, (__u32)k->hi, u32, msg, len);
	case T_RATE:
		ret = xl_parse_rate(value, u64, m, sizeof(m));
		if (k->flags & KF_KEY_PREFIX)
			return prefixed(k, ret, m, msg, len);
		if (ret)
			snprintf(msg, len, "%s", m);
		return ret ? -1 : 0;
	case T_GAMMA:
		return xl_parse_gamma(value, u32, msg, len);
	case T_BYTES:
		if (k->lo && k->lo % 1024 == 0)
			snprintf(lo, sizeof(lo), "%lluK", (unsigned long long)k->lo / 1024);
		else
			snprintf(lo, sizeof(lo), "%llu", (unsigned long long)k->lo);
		return xl_parse_bytes(k->name, value, (__u32)k->lo, lo, u32, msg, len);
	case T_PMAX:
		return xl_parse_pmax(value, u32, msg, len);
	case T_DURATION:
		if (k->flags & KF_AUTO) {
			*(bool *)((char *)obj + k->flag_off) = !strcmp(value, "auto");
			if (!strcmp(value, "auto")) {
				ns = k->dflt;
				goto store;
			}
		}
		ret = xl_parse_duration(value, k->lo, k->hi, &ns, m, sizeof(m));
		if (ret)
			return prefixed(k, ret, m, msg, len);
store:
		if (k->flags & KF_U32)
			*u32 = (__u32)ns;
		else
			*u64 = ns;
		return 0;
	case T_Q32:
		return xl_parse_q32(k->name, value, k->hi == 1, u64, msg, len);
	case T_DCQCN_B:
		if (xl_parse_dcqcn_b(value, &v, msg, len))
			return -1;
		*u64 = v;
		return 0;
	case T_ADDR4:
	case T_ADDR6:
		if (address(k, value, (__u8 *)field, msg, len))
			return -1;
		*(bool *)((char *)obj + k->flag_off) = true;
		return 0;
	case T_SPECIAL:
		break;
	}
	snprintf(msg, len, "internal error: %s is not read by type", k->name);
	return -1;
}

/* The RP's parameters: the [dcqcn] keys inside struct xl_host_cfg's rp,
 * but not the variant (sim dcqcn takes it as --variant). */
static bool rp_param(const struct xl_key_def *k)
{
	return k->sect == S_DCQCN && k->off >= offsetof(struct xl_host_cfg, rp) &&
	       k->off != offsetof(struct xl_host_cfg, rp.variant);
}

int xl_dcqcn_set(struct xl_host_cfg *h, const char *kv, char *msg, size_t len)
{
	const char *eq = strchr(kv, '=');
	char name[32], keys[256] = "";
	const struct xl_key_def *k;
	bool nvidia = h->rp.variant == XL_DCQCN_NVIDIA;
	int i;

	for (i = 0; i < K_COUNT; i++)
		if (rp_param(&xl_keys[i]))
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
				 keys[0] ? ", " : "", xl_keys[i].name);
	if (!eq || (size_t)(eq - kv) >= sizeof(name)) {
		snprintf(msg, len, "expected KEY=VALUE (keys: %s)", keys);
		return -1;
	}
	memcpy(name, kv, eq - kv);
	name[eq - kv] = 0;
	i = xl_key_find(S_DCQCN, name);
	k = i < K_COUNT ? &xl_keys[i] : NULL;
	if (!k || !rp_param(k)) {
		snprintf(msg, len, "unknown key '%s' (keys: %s)", name, keys);
		return -1;
	}
	if ((k->flags & KF_PAPER_ONLY && nvidia) || (k->flags & KF_NVIDIA_ONLY && !nvidia)) {
		snprintf(msg, len, "%s is not used by the %s variant", name,
			 variants[h->rp.variant]);
		return -1;
	}
	return xl_key_parse(k, eq + 1, h, msg, len);
}

void xl_keys_print(FILE *f)
{
	enum xl_sect s;

	for (s = S_XDPLEAF; s < S_COUNT; s++) {
		fprintf(f, "[%s]\n", xl_sect_names[s]);
		for (int i = 0; i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];

			if (k->sect != s)
				continue;
			fprintf(f, "| `%s` |", k->name);
			if (k->doc_default)
				fprintf(f, " %s |", k->doc_default);
			if (k->doc_nvidia)
				fprintf(f, " %s |", k->doc_nvidia);
			fprintf(f, " %s |\n", k->doc_values);
		}
	}
}
