// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The configuration file: parsed with inih, validated whole before anything
 * is attached. The format and every rule are in docs/config.md; keep the two
 * in step.
 *
 * inih is only used to split "key = value". Everything that needs a line
 * number happens in our reader (read_line), which inih calls once per line:
 * Debian's inih has no INI_HANDLER_LINENO and does not call the handler on
 * section headers, so the reader counts lines, handles [section] headers
 * itself and hands inih a normalised line (comments stripped, no
 * indentation, so inih's multi-line continuation can never trigger).
 *
 * The file is read into memory first, because one setting changes how all
 * the others are read: `mode` (leaf or host), which may stand anywhere.
 * scan_host_mode finds it, then the parse proper runs over the same text. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/names.h"
#include "common/units.h"

enum sect { S_NONE, S_XDPLEAF, S_PORT, S_GROUP, S_ROUTE, S_CLASS, S_DCQCN };
static const char *const sect_names[] = { "", "xdpleaf", "port", "group", "route", "class",
					   "dcqcn" };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Every key and its section; the enum also indexes ctx.key_line, which
 * finds duplicates. */
enum key {
	K_MODE, K_MALFORMED, K_XDP_MODE, K_FLOW_TABLE_SIZE,
	K_ROLE, K_PGROUP, K_NH4, K_NH6, K_RATE, K_GAMMA, K_BUFFER, K_OVERFLOW,
	K_LB_MODE, K_FLOWLET_TIMEOUT, K_PATH_SKEW, K_SPRAY_REORDER,
	K_RPORT, K_RGROUP,
	K_DSCP, K_KMIN, K_KMAX, K_PMAX, K_MARK, K_DROP,
	K_VARIANT, K_NP, K_RP, K_CNP_INTERVAL, K_CNP_SCOPE, K_CNP_DSCP,
	K_G, K_ALPHA_FIRST, K_K, K_T, K_T_DEC, K_B, K_F, K_CLAMP,
	K_R_AI, K_R_HAI, K_MIN_RATE,
	K_COUNT
};
static const struct { enum sect sect; const char *name; } keys[K_COUNT] = {
	[K_MODE] = { S_XDPLEAF, "mode" },
	[K_MALFORMED] = { S_XDPLEAF, "malformed" },
	[K_XDP_MODE] = { S_XDPLEAF, "xdp_mode" },
	[K_FLOW_TABLE_SIZE] = { S_XDPLEAF, "flow_table_size" },
	[K_ROLE] = { S_PORT, "role" },
	[K_PGROUP] = { S_PORT, "group" },
	[K_NH4] = { S_PORT, "nexthop4" },
	[K_NH6] = { S_PORT, "nexthop6" },
	[K_RATE] = { S_PORT, "rate" },
	[K_GAMMA] = { S_PORT, "gamma" },
	[K_BUFFER] = { S_PORT, "buffer" },
	[K_OVERFLOW] = { S_PORT, "overflow" },
	[K_LB_MODE] = { S_GROUP, "lb_mode" },
	[K_FLOWLET_TIMEOUT] = { S_GROUP, "flowlet_timeout" },
	[K_PATH_SKEW] = { S_GROUP, "path_skew" },
	[K_SPRAY_REORDER] = { S_GROUP, "spray_reorder" },
	[K_RPORT] = { S_ROUTE, "port" },
	[K_RGROUP] = { S_ROUTE, "group" },
	[K_DSCP] = { S_CLASS, "dscp" },
	[K_KMIN] = { S_CLASS, "kmin" },
	[K_KMAX] = { S_CLASS, "kmax" },
	[K_PMAX] = { S_CLASS, "pmax" },
	[K_MARK] = { S_CLASS, "mark" },
	[K_DROP] = { S_CLASS, "drop" },
	[K_VARIANT] = { S_DCQCN, "variant" },
	[K_NP] = { S_DCQCN, "np" },
	[K_RP] = { S_DCQCN, "rp" },
	[K_CNP_INTERVAL] = { S_DCQCN, "cnp_interval" },
	[K_CNP_SCOPE] = { S_DCQCN, "cnp_scope" },
	[K_CNP_DSCP] = { S_DCQCN, "cnp_dscp" },
	[K_G] = { S_DCQCN, "g" },
	[K_ALPHA_FIRST] = { S_DCQCN, "alpha_first" },
	[K_K] = { S_DCQCN, "k" },
	[K_T] = { S_DCQCN, "t" },
	[K_T_DEC] = { S_DCQCN, "t_dec" },
	[K_B] = { S_DCQCN, "b" },
	[K_F] = { S_DCQCN, "f" },
	[K_CLAMP] = { S_DCQCN, "clamp" },
	[K_R_AI] = { S_DCQCN, "r_ai" },
	[K_R_HAI] = { S_DCQCN, "r_hai" },
	[K_MIN_RATE] = { S_DCQCN, "min_rate" },
};

/* Leaf-only keys of a section both modes have: in host mode they are
 * "not used in host mode" (role = uplink too, checked with its value). */
static bool leaf_only(enum key k)
{
	return k == K_PGROUP || k == K_NH4 || k == K_NH6 || k == K_GAMMA || k == K_BUFFER ||
	       k == K_OVERFLOW;
}

/* [dcqcn] words, indexed by enum xl_dcqcn_variant and enum xl_cnp_scope. */
static const char *const variants[] = {
	[XL_DCQCN_PAPER] = "paper",
	[XL_DCQCN_NVIDIA] = "nvidia",
};
static const char *const cnp_scopes[] = {
	[XL_CNP_PER_QP] = "qp",
	[XL_CNP_PER_PORT] = "port",
};

/* [dcqcn] keys that one variant has and the other does not. */
static const enum key paper_only[] = { K_B, K_CLAMP },
	nvidia_only[] = { K_ALPHA_FIRST, K_T_DEC };

/* Host mode: at most this many [port] sections (a GPU host's RoCE NICs). */
#define HOST_MAX_PORTS 4
#define CNP_INTERVAL_MIN 1000ULL       /* 1us */
#define CNP_INTERVAL_MAX 1000000000ULL /* 1s */
#define DCQCN_TIMER_MIN 1ULL           /* k, t_dec: 1ns.. */
#define DCQCN_T_MIN 2ULL               /* t: 2ns.. (the hyper period T/2 > 0) */
#define DCQCN_TIMER_MAX 1000000000ULL  /* ..1s */
#define DCQCN_F_MAX 1000
_Static_assert(XL_CNP_INTERVAL_DEFAULT_NS >= CNP_INTERVAL_MIN &&
	       XL_CNP_INTERVAL_DEFAULT_NS <= CNP_INTERVAL_MAX,
	       "default CNP interval out of the config's range");
_Static_assert(XL_CNP_DSCP_DEFAULT <= 63, "default CNP DSCP is not a DSCP");

/* lb_mode words, indexed by enum xl_lb_mode. */
static const char *const lb_modes[] = {
	[XL_LB_HASH] = "hash",
	[XL_LB_FLOWLET] = "flowlet",
	[XL_LB_FLOWLET_RANDOM] = "flowlet-random",
	[XL_LB_SPRAY] = "spray",
};
_Static_assert(sizeof(lb_modes) / sizeof(lb_modes[0]) == XL_LB_MODES,
	       "a new xl_lb_mode needs its word in lb_modes");

/* Modes that weigh members by capacity (port rate): all members have a
 * rate or none has. */
static bool lb_uses_capacity(__u32 mode)
{
	return mode == XL_LB_FLOWLET || mode == XL_LB_SPRAY;
}

/* Modes that have flowlets, so a flowlet_timeout. */
static bool lb_has_flowlets(__u32 mode)
{
	return mode == XL_LB_FLOWLET || mode == XL_LB_FLOWLET_RANDOM;
}

/* Groups whose moves follow the reorder-free rule, so a path_skew. */
static bool lb_moves_safely(const struct xl_cfg_group *g)
{
	return lb_has_flowlets(g->lb_mode) ||
	       (g->lb_mode == XL_LB_SPRAY && g->spray_reorder == XL_SPRAY_SAFE);
}

#define FLOWLET_TIMEOUT_MIN 1000ULL       /* 1us */
#define FLOWLET_TIMEOUT_MAX 1000000000ULL /* 1s */
#define PATH_SKEW_MAX 1000000000ULL       /* 1s: the rule adds it in 32 bits */
#define FLOW_TABLE_MIN 1024U
#define FLOW_TABLE_MAX (4U << 20)
_Static_assert(XL_DEFAULT_FLOWLET_TIMEOUT_NS >= FLOWLET_TIMEOUT_MIN &&
	       XL_DEFAULT_FLOWLET_TIMEOUT_NS <= FLOWLET_TIMEOUT_MAX,
	       "default flowlet timeout out of the config's range");
_Static_assert(XL_DEFAULT_PATH_SKEW_NS <= PATH_SKEW_MAX,
	       "default path skew out of the config's range");
_Static_assert(XL_FLOW_TABLE_SIZE >= FLOW_TABLE_MIN && XL_FLOW_TABLE_SIZE <= FLOW_TABLE_MAX,
	       "default flow table size out of the config's range");

/* Built-in classes (docs/config.md): ids, and the paper's marking profile
 * (include/ecn.h). */
#define CLASS_CNP XL_CLASS_CNP
#define CNP_DSCP 48
#define N_BUILTIN_CLASSES 2
#define PROFILE_KMIN XL_WRED_PAPER_KMIN
#define PROFILE_KMAX XL_WRED_PAPER_KMAX
#define PROFILE_PMAX XL_WRED_PAPER_PMAX
_Static_assert(XL_CLASS_DEFAULT == 0 && XL_MAX_CLASSES >= N_BUILTIN_CLASSES &&
	       XL_MAX_CLASSES <= 256, "class ids must fit dscp_class (__u8)");

struct ctx {
	struct xl_config *cfg;
	const char *path;
	FILE *f;                   /* the file's text, read by the reader */
	bool host;                 /* mode = host: known before the parse */
	int line;                  /* line last handed to inih */
	char *err;
	size_t errlen;
	bool failed;
	enum sect sect;            /* section being read */
	int sect_line;
	int key_line[K_COUNT];     /* where each key was set in this section */
	int xdpleaf_line;
	int port_group_line[XL_MAX_PORTS]; /* line of each port's group key */
	int *route_tline;          /* line of each route's port/group key */
	int routes_cap;
	int cur_class;             /* class being read (S_CLASS) */
	int class_dscp_line[XL_MAX_CLASSES]; /* line of each class's dscp key */
	int dscp_owner[64];        /* class id + 1 that the file gives it, 0 none */
	int dscp_line[64];         /* line of that dscp key */
	struct xl_host_cfg dc;     /* [dcqcn] values as written (key_line: which) */
	int rp_line;               /* line of [dcqcn]'s rp, 0 if not set */
	int min_rate_line;         /* line of [dcqcn]'s min_rate, 0 if not set */
};

/* Records the first error only: later ones are usually consequences. */
__attribute__((format(printf, 3, 4)))
static int fail(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->failed)
		return 0;
	c->failed = true;
	if (!c->err || !c->errlen)
		return 0;
	n = snprintf(c->err, c->errlen, "%s:%d: ", c->path, line);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* Linux's rules (dev_valid_name): 1..15 bytes, not "." or "..", no '/',
 * ':' or whitespace. */
static bool check_ifname(struct ctx *c, int line, const char *name)
{
	if (!*name)
		return fail(c, line, "empty interface name");
	if (strlen(name) >= XL_IFNAMSIZ)
		return fail(c, line, "interface name '%s' is too long (max %d characters)",
			    name, XL_IFNAMSIZ - 1);
	if (!strcmp(name, ".") || !strcmp(name, "..") || strpbrk(name, "/: \t"))
		return fail(c, line, "invalid interface name '%s'", name);
	return true;
}

/* Group and class names: 1..size-1 characters from A-Z a-z 0-9 _ -. */
static bool check_name(struct ctx *c, int line, const char *what, const char *name,
		       size_t size)
{
	if (!*name)
		return fail(c, line, "empty %s name", what);
	if (strlen(name) >= size)
		return fail(c, line, "%s name '%s' is too long (max %zu characters)",
			    what, name, size - 1);
	if (name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			       "0123456789_-")])
		return fail(c, line, "invalid %s name '%s' (allowed: A-Z a-z 0-9 _ -)", what, name);
	return true;
}

static bool check_group_name(struct ctx *c, int line, const char *name)
{
	return check_name(c, line, "group", name, XL_NAME_MAX);
}

int xl_parse_prefix(const char *s, int *family, __u8 addr[16], __u32 *plen,
		    char *err, size_t errlen)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	int fam = memchr(s, ':', alen) ? AF_INET6 : AF_INET;
	unsigned int max = fam == AF_INET ? 32 : 128, len, i;
	__u8 a[16] = { 0 }, m[16] = { 0 };
	size_t nd;

	/* No host-route shorthand: a forgotten "/24" must not quietly become
	 * a /32. */
	if (!slash) {
		snprintf(err, errlen, "missing prefix length in '%s' (write %s/%u for a single host)",
			 s, s, max);
		return -1;
	}
	if (alen < sizeof(buf)) {
		memcpy(buf, s, alen);
		buf[alen] = 0;
	}
	if (alen >= sizeof(buf) || inet_pton(fam, buf, a) != 1) {
		snprintf(err, errlen, "invalid %s address '%.*s'",
			 fam == AF_INET ? "IPv4" : "IPv6", (int)alen, s);
		return -1;
	}
	/* Digits only: strtoul would take "+24", " 24" or "24abc". */
	nd = strspn(slash + 1, "0123456789");
	if (!nd || slash[1 + nd]) {
		snprintf(err, errlen, "invalid prefix length '%s'", slash + 1);
		return -1;
	}
	for (len = 0, i = 1; i <= nd; i++) /* saturates: no overflow */
		len = len > max ? len : len * 10 + (slash[i] - '0');
	if (len > max) {
		snprintf(err, errlen, "prefix length /%s out of range for %s (0-%u)",
			 slash + 1, fam == AF_INET ? "IPv4" : "IPv6", max);
		return -1;
	}
	for (i = 0; i < max / 8; i++) {
		m[i] = a[i];
		if (len < i * 8 + 8)
			m[i] &= len > i * 8 ? (__u8)(0xff << (i * 8 + 8 - len)) : 0;
	}
	if (memcmp(a, m, max / 8)) {
		inet_ntop(fam, m, buf, sizeof(buf));
		snprintf(err, errlen, "host bits set beyond /%u (did you mean %s/%u?)",
			 len, buf, len);
		return -1;
	}
	*family = fam;
	memcpy(addr, a, 16);
	*plen = len;
	return 0;
}

static void prefix_str(const struct xl_cfg_route *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, r->prefixlen);
}

static bool add_route(struct ctx *c, const char *name)
{
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_route r = { .line = c->line, .target_id = -1 };
	char why[128], p[64];
	int i;

	if (xl_parse_prefix(name, &r.family, r.addr, &r.prefixlen, why, sizeof(why)))
		return fail(c, c->line, "bad route prefix '%s': %s", name, why);
	for (i = 0; i < cfg->n_routes; i++) {
		struct xl_cfg_route *o = &cfg->routes[i];

		if (o->family == r.family && o->prefixlen == r.prefixlen &&
		    !memcmp(o->addr, r.addr, 16)) {
			prefix_str(&r, p, sizeof(p));
			return fail(c, c->line, "duplicate section [route %s] (first at line %d)",
				    p, o->line);
		}
	}
	if (cfg->n_routes >= XL_MAX_ROUTES)
		return fail(c, c->line, "too many routes (max %d)", XL_MAX_ROUTES);
	if (cfg->n_routes == c->routes_cap) {
		int cap = c->routes_cap ? c->routes_cap * 2 : 16;
		struct xl_cfg_route *nr = realloc(cfg->routes, cap * sizeof(*nr));
		int *nl;

		if (!nr)
			return fail(c, c->line, "out of memory");
		cfg->routes = nr;
		nl = realloc(c->route_tline, cap * sizeof(*nl));
		if (!nl)
			return fail(c, c->line, "out of memory");
		c->route_tline = nl;
		c->routes_cap = cap;
	}
	c->route_tline[cfg->n_routes] = 0;
	cfg->routes[cfg->n_routes++] = r;
	return true;
}

/* A class with the paper's marking profile. */
static void set_class(struct xl_cfg_class *k, const char *name, __u32 flags)
{
	*k = (struct xl_cfg_class){
		.wred = { .kmin = PROFILE_KMIN, .kmax = PROFILE_KMAX,
			  .pmax = PROFILE_PMAX, .flags = flags },
	};
	snprintf(k->name, sizeof(k->name), "%s", name);
}

/* Of the keys ks set in this section, the first in the file; K_COUNT if
 * none is set. */
static enum key first_key(const struct ctx *c, const enum key *ks, size_t n)
{
	enum key first = K_COUNT;

	for (size_t i = 0; i < n; i++)
		if (c->key_line[ks[i]] && (first == K_COUNT ||
					   c->key_line[ks[i]] < c->key_line[first]))
			first = ks[i];
	return first;
}

/* Host-mode settings with every default: NP and RP on, the variant's RP
 * parameters (line_rate 0: the loader sets each port's). */
static void host_defaults(struct xl_host_cfg *h, __u32 variant)
{
	*h = (struct xl_host_cfg){
		.cnp_interval_ns = XL_CNP_INTERVAL_DEFAULT_NS,
		.cnp_scope = XL_CNP_PER_QP,
		.cnp_dscp = XL_CNP_DSCP_DEFAULT,
		.np_enabled = 1,
		.rp_enabled = 1,
	};
	xl_dcqcn_defaults(&h->rp, variant, 0);
}

/* The end of [dcqcn]: the variant's defaults first, then every key the
 * section sets, wherever it stands relative to variant. */
static bool close_dcqcn(struct ctx *c)
{
	const struct xl_host_cfg *e = &c->dc;
	struct xl_host_cfg *h = &c->cfg->host;
	__u32 v = c->key_line[K_VARIANT] ? e->rp.variant : XL_DCQCN_PAPER;
	enum key bad = v == XL_DCQCN_NVIDIA ? first_key(c, paper_only, ARRAY_LEN(paper_only))
					     : first_key(c, nvidia_only, ARRAY_LEN(nvidia_only));

	if (bad != K_COUNT)
		return fail(c, c->key_line[bad],
			    "%s is not used by the %s variant%s (remove %s, or set variant = %s)",
			    keys[bad].name, variants[v], c->key_line[K_VARIANT] ? "" : ", the default",
			    keys[bad].name, variants[!v]);
	host_defaults(h, v);
#define TAKE(k, field) do { if (c->key_line[k]) h->field = e->field; } while (0)
	TAKE(K_NP, np_enabled);
	TAKE(K_RP, rp_enabled);
	TAKE(K_CNP_INTERVAL, cnp_interval_ns);
	TAKE(K_CNP_SCOPE, cnp_scope);
	TAKE(K_CNP_DSCP, cnp_dscp);
	TAKE(K_G, rp.g);
	TAKE(K_ALPHA_FIRST, rp.alpha_first);
	TAKE(K_K, rp.k_ns);
	TAKE(K_T, rp.t_ns);
	TAKE(K_T_DEC, rp.t_dec_ns);
	TAKE(K_B, rp.b_bytes);
	TAKE(K_F, rp.f);
	TAKE(K_CLAMP, rp.clamp);
	TAKE(K_R_AI, rp.r_ai);
	TAKE(K_R_HAI, rp.r_hai);
	TAKE(K_MIN_RATE, rp.min_rate);
#undef TAKE
	c->rp_line = c->key_line[K_RP];
	c->min_rate_line = c->key_line[K_MIN_RATE];
	return true;
}

/* Checks that need the whole section (keys come in any order). */
static bool close_section(struct ctx *c)
{
	static const enum key uplink_only[] = { K_PGROUP, K_NH4, K_NH6 },
		needs_rate[] = { K_GAMMA, K_BUFFER, K_OVERFLOW };
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_port *p;
	enum key bad;

	if (c->failed)
		return false;
	if (c->sect == S_PORT) {
		p = &cfg->ports[cfg->n_ports - 1];
		if (p->role == XL_ROLE_UPLINK && !p->group[0])
			return fail(c, c->sect_line, "uplink port %s needs a group", p->ifname);
		if (p->role == XL_ROLE_UPLINK && !p->has_nexthop4 && !p->has_nexthop6)
			return fail(c, c->sect_line, "uplink port %s needs nexthop4 and/or nexthop6",
				    p->ifname);
		bad = first_key(c, uplink_only, ARRAY_LEN(uplink_only));
		if (p->role == XL_ROLE_DOWNLINK && bad != K_COUNT)
			return fail(c, c->key_line[bad],
				    "%s is only allowed on uplinks (port %s is a downlink)",
				    keys[bad].name, p->ifname);
		bad = first_key(c, needs_rate, ARRAY_LEN(needs_rate));
		if (!p->rate_bps && bad != K_COUNT)
			return fail(c, c->key_line[bad],
				    "%s has no effect without rate (port %s has no rate: set one, or remove %s)",
				    keys[bad].name, p->ifname, keys[bad].name);
		p->buffer_default = !c->key_line[K_BUFFER];
		if (p->buffer_default)
			p->buffer_bytes = xl_default_buffer(p->rate_bps);
	}
	if (c->sect == S_CLASS) {
		struct xl_cfg_class *k = &cfg->classes[c->cur_class];
		int line = c->key_line[K_KMIN] > c->key_line[K_KMAX] ? c->key_line[K_KMIN]
								      : c->key_line[K_KMAX];

		if (k->wred.kmin >= k->wred.kmax)
			return fail(c, line ? line : c->sect_line,
				    "kmin must be less than kmax in class '%s' (kmin %u bytes, kmax %u bytes)",
				    k->name, k->wred.kmin, k->wred.kmax);
		if (c->cur_class >= N_BUILTIN_CLASSES && !c->class_dscp_line[c->cur_class])
			return fail(c, c->sect_line,
				    "class '%s' has no dscp (set dscp = the DSCP values 0-63 it takes)",
				    k->name);
	}
	if (c->sect == S_GROUP) {
		struct xl_cfg_group *g = &cfg->groups[cfg->n_groups - 1];

		if (c->key_line[K_FLOWLET_TIMEOUT] && !lb_has_flowlets(g->lb_mode))
			return fail(c, c->key_line[K_FLOWLET_TIMEOUT],
				    "flowlet_timeout has no effect with lb_mode %s%s (group %s: set "
				    "lb_mode = flowlet or flowlet-random, or remove flowlet_timeout)",
				    lb_modes[g->lb_mode],
				    c->key_line[K_LB_MODE] ? "" : ", the default", g->name);
		if (c->key_line[K_SPRAY_REORDER] && g->lb_mode != XL_LB_SPRAY)
			return fail(c, c->key_line[K_SPRAY_REORDER],
				    "spray_reorder has no effect with lb_mode %s%s (group %s: set "
				    "lb_mode = spray, or remove spray_reorder)",
				    lb_modes[g->lb_mode],
				    c->key_line[K_LB_MODE] ? "" : ", the default", g->name);
		if (c->key_line[K_PATH_SKEW] && g->lb_mode == XL_LB_SPRAY && !lb_moves_safely(g))
			return fail(c, c->key_line[K_PATH_SKEW],
				    "path_skew has no effect with spray_reorder = free%s (group %s: set "
				    "spray_reorder = safe, or remove path_skew)",
				    c->key_line[K_SPRAY_REORDER] ? "" : ", the default", g->name);
		if (c->key_line[K_PATH_SKEW] && !lb_moves_safely(g))
			return fail(c, c->key_line[K_PATH_SKEW],
				    "path_skew has no effect with lb_mode %s%s (group %s: set "
				    "lb_mode = flowlet, flowlet-random or spray, or remove path_skew)",
				    lb_modes[g->lb_mode],
				    c->key_line[K_LB_MODE] ? "" : ", the default", g->name);
	}
	if (c->sect == S_ROUTE && !cfg->routes[cfg->n_routes - 1].kind)
		return fail(c, c->sect_line,
			    "route has no target (set port = IFNAME or group = NAME)");
	if (c->sect == S_DCQCN)
		return close_dcqcn(c);
	return true;
}

/* `hdr` is what is between the brackets, trimmed. */
static bool open_section(struct ctx *c, char *hdr)
{
	struct xl_config *cfg = c->cfg;
	char *name = hdr + strcspn(hdr, " \t");
	int i;

	if (!close_section(c))
		return false;
	if (*name)
		*name++ = 0;
	name += strspn(name, " \t");
	c->sect = S_NONE;
	c->sect_line = c->line;
	memset(c->key_line, 0, sizeof(c->key_line));

	if (c->host && (!strcmp(hdr, "group") || !strcmp(hdr, "route") || !strcmp(hdr, "class")))
		return fail(c, c->line,
			    "[%s] is not used in host mode (a host has [xdpleaf], [port] and [dcqcn])",
			    hdr);
	if (!strcmp(hdr, "xdpleaf")) {
		if (*name)
			return fail(c, c->line, "section [xdpleaf] takes no name");
		if (c->xdpleaf_line)
			return fail(c, c->line, "duplicate section [xdpleaf] (first at line %d)",
				    c->xdpleaf_line);
		c->xdpleaf_line = c->line;
		c->sect = S_XDPLEAF;
	} else if (!strcmp(hdr, "port")) {
		if (!*name)
			return fail(c, c->line, "section [port] needs an interface name: [port IFNAME]");
		if (!check_ifname(c, c->line, name))
			return false;
		for (i = 0; i < cfg->n_ports; i++)
			if (!strcmp(cfg->ports[i].ifname, name))
				return fail(c, c->line, "duplicate section [port %s] (first at line %d)",
					    name, cfg->ports[i].line);
		if (c->host && cfg->n_ports >= HOST_MAX_PORTS)
			return fail(c, c->line, "too many ports for host mode (max %d)",
				    HOST_MAX_PORTS);
		if (cfg->n_ports >= XL_MAX_PORTS)
			return fail(c, c->line, "too many ports (max %d)", XL_MAX_PORTS);
		cfg->ports[cfg->n_ports] = (struct xl_cfg_port){
			.line = c->line, .group_id = -1, .gamma_ppm = 1000000,
			.buffer_bytes = XL_DEFAULT_BUFFER, .overflow = XL_OVERFLOW_DROP };
		strcpy(cfg->ports[cfg->n_ports++].ifname, name);
		c->sect = S_PORT;
	} else if (!strcmp(hdr, "group")) {
		if (!*name)
			return fail(c, c->line, "section [group] needs a name: [group NAME]");
		if (!check_group_name(c, c->line, name))
			return false;
		for (i = 0; i < cfg->n_groups; i++)
			if (!strcmp(cfg->groups[i].name, name))
				return fail(c, c->line, "duplicate section [group %s] (first at line %d)",
					    name, cfg->groups[i].line);
		if (cfg->n_groups >= XL_MAX_GROUPS)
			return fail(c, c->line, "too many groups (max %d)", XL_MAX_GROUPS);
		cfg->groups[cfg->n_groups] = (struct xl_cfg_group){
			.line = c->line, .lb_mode = XL_LB_HASH,
			.flowlet_timeout_ns = XL_DEFAULT_FLOWLET_TIMEOUT_NS, .flowlet_auto = true,
			.path_skew_ns = XL_DEFAULT_PATH_SKEW_NS, .path_skew_auto = true,
			.spray_reorder = XL_SPRAY_FREE };
		strcpy(cfg->groups[cfg->n_groups++].name, name);
		c->sect = S_GROUP;
	} else if (!strcmp(hdr, "route")) {
		if (!*name)
			return fail(c, c->line, "section [route] needs a prefix: [route PREFIX]");
		if (!add_route(c, name))
			return false;
		c->sect = S_ROUTE;
	} else if (!strcmp(hdr, "class")) {
		if (!*name)
			return fail(c, c->line, "section [class] needs a name: [class NAME]");
		if (!check_name(c, c->line, "class", name, XL_IFNAMSIZ))
			return false;
		for (i = 0; i < cfg->n_classes; i++)
			if (!strcmp(cfg->classes[i].name, name))
				break;
		if (i < cfg->n_classes && cfg->classes[i].line)
			return fail(c, c->line, "duplicate section [class %s] (first at line %d)",
				    name, cfg->classes[i].line);
		if (i == cfg->n_classes) {
			if (cfg->n_classes >= XL_MAX_CLASSES)
				return fail(c, c->line,
					    "too many classes (max %d, counting the built-in default and cnp)",
					    XL_MAX_CLASSES);
			set_class(&cfg->classes[cfg->n_classes++], name, 0);
		}
		cfg->classes[i].line = c->line;
		c->cur_class = i;
		c->sect = S_CLASS;
	} else if (!strcmp(hdr, "dcqcn")) {
		if (*name)
			return fail(c, c->line, "section [dcqcn] takes no name");
		if (!c->host)
			return fail(c, c->line, "[dcqcn] needs mode = host (set it in [xdpleaf])");
		if (cfg->dcqcn_line)
			return fail(c, c->line, "duplicate section [dcqcn] (first at line %d)",
				    cfg->dcqcn_line);
		cfg->dcqcn_line = c->line;
		memset(&c->dc, 0, sizeof(c->dc));
		c->sect = S_DCQCN;
	} else if (!*hdr) {
		return fail(c, c->line, "empty section header");
	} else {
		return fail(c, c->line, "unknown section type '%s' (allowed: %s)", hdr,
			    c->host ? "xdpleaf, port, dcqcn in host mode"
				    : "xdpleaf, port, group, route, class; dcqcn with mode = host");
	}
	return true;
}

/* A line as the parse sees it, in place: without the UTF-8 byte order mark
 * (line 1), indentation, comments (full-line, and inline: '#' or ';' after
 * whitespace) and trailing blanks. */
static char *normalise(char *s, int line)
{
	char *p;
	size_t len;

	if (line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3; /* UTF-8 byte order mark */
	while (isspace((unsigned char)*s))
		s++;
	for (p = s; *p; p++)
		if ((*p == '#' || *p == ';') && (p == s || isspace((unsigned char)p[-1]))) {
			*p = 0;
			break;
		}
	len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = 0;
	return s;
}

/* The mode decides how every other section is read, wherever [xdpleaf]
 * stands in the file, so it is found before the parse: the first `mode` of
 * the first [xdpleaf]. Only whether it is "host" matters here; the parse
 * checks the key (and everything else) at its line. */
static bool scan_host_mode(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	bool in_xdpleaf = false, seen = false;
	char line[256], *s, *eq;
	size_t n, k;
	int lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		n = (size_t)((nl ? nl : end) - p);
		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1; /* too long for the parse anyway */
		memcpy(line, p, n);
		line[n] = 0;
		p = nl ? nl + 1 : end;
		s = normalise(line, ++lineno);
		if (*s == '[') {
			if (seen)
				break;
			for (s++; isspace((unsigned char)*s); s++)
				;
			in_xdpleaf = !strncmp(s, "xdpleaf", 7) &&
				     (s[7] == ']' || isspace((unsigned char)s[7]));
			seen = in_xdpleaf;
			continue;
		}
		eq = strchr(s, '=');
		if (!in_xdpleaf || !eq)
			continue;
		for (k = (size_t)(eq - s); k && isspace((unsigned char)s[k - 1]); k--)
			;
		if (k != 4 || strncmp(s, "mode", 4))
			continue;
		for (eq++; isspace((unsigned char)*eq); eq++)
			;
		return !strcmp(eq, "host");
	}
	return false;
}

/* inih reads through this. It keeps the line count and turns each line into
 * something inih parses exactly as we document (normalise), section
 * headers consumed here. Returning NULL ends the parse, which is how the
 * first error stops it. */
static char *read_line(char *str, int num, void *stream)
{
	struct ctx *c = stream;
	char *s, *p, *eq;
	size_t len;

	if (c->failed || !c->f || !fgets(str, num, c->f))
		return NULL;
	c->line++;
	len = strlen(str);
	/* A full buffer without the newline: fine only if the line ends here. */
	if (len == (size_t)num - 1 && str[len - 1] != '\n') {
		int ch = fgetc(c->f);

		if (ch == '\r')
			ch = fgetc(c->f);
		if (ch != EOF && ch != '\n') {
			fail(c, c->line, "line too long (max %d characters)", num - 1);
			return NULL;
		}
	}
	s = normalise(str, c->line);
	len = strlen(s);
	if (*s == '[') {
		if (s[len - 1] != ']') {
			fail(c, c->line, "section header must end with ']'");
			return NULL;
		}
		s[len - 1] = 0;
		for (p = s + 1; isspace((unsigned char)*p); p++)
			;
		len = strlen(p);
		while (len && isspace((unsigned char)p[len - 1]))
			p[--len] = 0;
		if (!open_section(c, p))
			return NULL;
		*s = 0; /* inih sees a blank line */
	} else if (*s) {
		/* inih would also split at ':', which IPv6 values contain. */
		eq = strchr(s, '=');
		if (!eq || eq == s || memchr(s, ':', eq - s)) {
			fail(c, c->line, "expected 'key = value', a [section] header or a comment");
			return NULL;
		}
	}
	memmove(str, s, strlen(s) + 1);
	return str;
}

/* Matches value against names; *out = its index. */
static bool parse_choice(struct ctx *c, enum key k, const char *value,
			 const char *const *names, int n, __u32 *out)
{
	char list[128] = "";
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(value, names[i])) {
			*out = i;
			return true;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", names[i]);
	}
	return fail(c, c->line, "invalid %s '%s' (allowed: %s)", keys[k].name, value, list);
}

static bool parse_nexthop(struct ctx *c, enum key k, const char *value, __u8 *addr)
{
	int fam = k == K_NH4 ? AF_INET : AF_INET6, other = k == K_NH4 ? AF_INET6 : AF_INET;
	__u8 tmp[16];

	if (inet_pton(fam, value, addr) == 1)
		return true;
	if (inet_pton(other, value, tmp) == 1)
		return fail(c, c->line, "%s '%s' is an %s address; use %s", keys[k].name, value,
			    other == AF_INET ? "IPv4" : "IPv6", k == K_NH4 ? "nexthop6" : "nexthop4");
	return fail(c, c->line, "invalid %s address '%s' for %s",
		    fam == AF_INET ? "IPv4" : "IPv6", value, keys[k].name);
}

/* The value parsers live in units.c, shared with the command line; these
 * put their message at the current line. */
static bool unit_result(struct ctx *c, int ret, const char *msg)
{
	return ret ? fail(c, c->line, "%s", msg) : true;
}

static bool parse_rate(struct ctx *c, const char *v, __u64 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_rate(v, out, msg, sizeof(msg)), msg);
}

static bool parse_gamma(struct ctx *c, const char *v, __u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_gamma(v, out, msg, sizeof(msg)), msg);
}

static bool parse_bytes(struct ctx *c, enum key k, const char *v, __u32 lo,
			const char *lo_str, __u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_bytes(keys[k].name, v, lo, lo_str, out,
					     msg, sizeof(msg)), msg);
}

static bool parse_dcqcn_b(struct ctx *c, const char *v, __u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_dcqcn_b(v, out, msg, sizeof(msg)), msg);
}

static bool parse_pmax(struct ctx *c, const char *v, __u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_pmax(v, out, msg, sizeof(msg)), msg);
}

/* [dcqcn]'s rates: the key first, as several take a rate. */
static bool parse_key_rate(struct ctx *c, enum key k, const char *v, __u64 *out)
{
	char msg[XL_ERR_MAX];

	if (!xl_parse_rate(v, out, msg, sizeof(msg)))
		return true;
	return fail(c, c->line, "%s: %s", keys[k].name, msg);
}

static bool parse_uint(struct ctx *c, enum key k, const char *v, __u32 lo, __u32 hi,
		       __u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_uint(keys[k].name, v, lo, hi, out, msg, sizeof(msg)),
			   msg);
}

static bool parse_q32(struct ctx *c, enum key k, const char *v, bool one_ok, __u64 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_q32(keys[k].name, v, one_ok, out, msg, sizeof(msg)),
			   msg);
}

static bool parse_count(struct ctx *c, enum key k, const char *v, __u32 lo, __u32 hi,
			__u32 *out)
{
	char msg[XL_ERR_MAX];

	return unit_result(c, xl_parse_count(keys[k].name, v, lo, hi, out, msg, sizeof(msg)),
			   msg);
}

/* The duration parser does not know the key: the message gets it first. */
static bool parse_duration(struct ctx *c, enum key k, const char *v, __u64 lo, __u64 hi,
			   __u64 *out)
{
	char msg[XL_ERR_MAX];

	if (!xl_parse_duration(v, lo, hi, out, msg, sizeof(msg)))
		return true;
	return fail(c, c->line, "%s: %s", keys[k].name, msg);
}

/* dscp: values 0-63 separated by spaces and/or commas. A DSCP belongs to at
 * most one class; the built-in cnp's 48 is checked at the end, when it is
 * known whether [class cnp] moves it. */
static bool parse_dscp(struct ctx *c, const char *v)
{
	const char *s = v;
	__u64 mask = 0;
	unsigned int d;
	size_t n, i;

	if (c->cur_class == XL_CLASS_DEFAULT)
		return fail(c, c->line,
			    "dscp is not allowed in [class default]: it takes every DSCP "
			    "that no other class claims");
	while (*s) {
		const char *tok = s;

		n = strcspn(s, " \t,");
		if (!n) {
			s++;
			continue;
		}
		s += n;
		if (strspn(tok, "0123456789") < n)
			return fail(c, c->line, "invalid DSCP '%.*s' (numbers 0-63, "
				    "separated by spaces or commas)", (int)n, tok);
		for (d = 0, i = 0; i < n; i++) /* saturates: no overflow */
			d = d > 63 ? d : d * 10 + (tok[i] - '0');
		if (d > 63)
			return fail(c, c->line, "DSCP %.*s out of range (0-63)", (int)n, tok);
		if (mask & (1ULL << d))
			return fail(c, c->line, "DSCP %u is listed twice", d);
		mask |= 1ULL << d;
	}
	if (!mask)
		return fail(c, c->line, "dscp needs at least one value (0-63)");
	for (d = 0; d < 64; d++) {
		int o = c->dscp_owner[d] - 1;

		if (!(mask & (1ULL << d)))
			continue;
		if (o >= 0)
			return fail(c, c->line, "DSCP %u is already in class '%s' (line %d)",
				    d, c->cfg->classes[o].name, c->dscp_line[d]);
		c->dscp_owner[d] = c->cur_class + 1;
		c->dscp_line[d] = c->line;
	}
	c->class_dscp_line[c->cur_class] = c->line;
	return true;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	static const char *const modes[] = { [XL_MODE_LEAF] = "leaf", [XL_MODE_HOST] = "host" },
		*const malformed[] = { "pass", "drop" },
		*const xdp_modes[] = { "native", "generic" },
		*const roles[] = { "downlink", "uplink" },
		*const overflows[] = { "drop", "mark" }, *const yes_no[] = { "yes", "no" };
	struct ctx *c = user;
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_port *p = &cfg->ports[cfg->n_ports ? cfg->n_ports - 1 : 0];
	struct xl_cfg_route *r = cfg->n_routes ? &cfg->routes[cfg->n_routes - 1] : NULL;
	struct xl_wred *w = &cfg->classes[c->cur_class].wred;
	struct xl_host_cfg *d = &c->dc;
	char list[256] = "";
	__u32 dummy, bit, b;
	__u64 ns;
	int k;

	(void)section; /* the reader tracks sections, with their lines */
	if (c->failed)
		return 0;
	if (c->sect == S_NONE)
		return fail(c, c->line, "key '%s' outside any section", name);
	for (k = 0; k < K_COUNT; k++) {
		if (keys[k].sect != c->sect)
			continue;
		if (!strcmp(keys[k].name, name))
			break;
		if (c->host && leaf_only(k))
			continue;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 list[0] ? ", " : "", keys[k].name);
	}
	if (k == K_COUNT)
		return fail(c, c->line, "unknown key '%s' in [%s] section (allowed%s: %s)",
			    name, sect_names[c->sect], c->host && c->sect == S_PORT ?
			    " in host mode" : "", list);
	if (c->key_line[k])
		return fail(c, c->line, "duplicate key '%s' (first at line %d)",
			    name, c->key_line[k]);
	c->key_line[k] = c->line;
	if (!*value)
		return fail(c, c->line, "key '%s' has no value", name);
	if (c->host && leaf_only(k))
		return fail(c, c->line, "%s is not used in host mode (a host's [port] takes rate)",
			    name);

	switch ((enum key)k) {
	case K_MODE:
		if (!parse_choice(c, k, value, modes, ARRAY_LEN(modes), &dummy))
			return 0;
		/* scan_host_mode read the same line the same way */
		if ((dummy == XL_MODE_HOST) != c->host)
			return fail(c, c->line, "internal error: mode read two ways");
		cfg->mode = dummy;
		return 1;
	case K_MALFORMED:
		return parse_choice(c, k, value, malformed, ARRAY_LEN(malformed), &cfg->malformed);
	case K_XDP_MODE:
		return parse_choice(c, k, value, xdp_modes, ARRAY_LEN(xdp_modes), &cfg->xdp_mode);
	case K_FLOW_TABLE_SIZE:
		return parse_count(c, k, value, FLOW_TABLE_MIN, FLOW_TABLE_MAX,
				   &cfg->flow_table_size);
	case K_ROLE:
		if (!parse_choice(c, k, value, roles, ARRAY_LEN(roles), &p->role))
			return 0;
		if (c->host && p->role == XL_ROLE_UPLINK)
			return fail(c, c->line, "role = uplink is not used in host mode "
				    "(a host's ports are its own NICs)");
		return 1;
	case K_PGROUP:
		if (!check_group_name(c, c->line, value))
			return 0;
		strcpy(p->group, value);
		c->port_group_line[cfg->n_ports - 1] = c->line;
		return 1;
	case K_NH4:
		return p->has_nexthop4 = parse_nexthop(c, k, value, p->nexthop4);
	case K_NH6:
		return p->has_nexthop6 = parse_nexthop(c, k, value, p->nexthop6);
	case K_RATE:
		return parse_rate(c, value, &p->rate_bps);
	case K_GAMMA:
		return parse_gamma(c, value, &p->gamma_ppm);
	case K_BUFFER:
		return parse_bytes(c, k, value, 2048, "2K", &p->buffer_bytes);
	case K_OVERFLOW:
		return parse_choice(c, k, value, overflows, ARRAY_LEN(overflows), &p->overflow);
	case K_LB_MODE:
		return parse_choice(c, k, value, lb_modes, ARRAY_LEN(lb_modes),
				    &cfg->groups[cfg->n_groups - 1].lb_mode);
	case K_FLOWLET_TIMEOUT:
		/* auto: the default floor, or the flow's pacing; the rule
		 * decides above it */
		cfg->groups[cfg->n_groups - 1].flowlet_auto = !strcmp(value, "auto");
		if (!strcmp(value, "auto")) {
			cfg->groups[cfg->n_groups - 1].flowlet_timeout_ns =
				XL_DEFAULT_FLOWLET_TIMEOUT_NS;
			return 1;
		}
		return parse_duration(c, k, value, FLOWLET_TIMEOUT_MIN, FLOWLET_TIMEOUT_MAX,
				      &cfg->groups[cfg->n_groups - 1].flowlet_timeout_ns);
	case K_PATH_SKEW:
		/* auto: the default margin plus each member's frames */
		cfg->groups[cfg->n_groups - 1].path_skew_auto = !strcmp(value, "auto");
		if (cfg->groups[cfg->n_groups - 1].path_skew_auto) {
			cfg->groups[cfg->n_groups - 1].path_skew_ns = XL_DEFAULT_PATH_SKEW_NS;
			return 1;
		}
		if (!parse_duration(c, k, value, 0, PATH_SKEW_MAX, &ns))
			return 0;
		cfg->groups[cfg->n_groups - 1].path_skew_ns = (__u32)ns;
		return 1;
	case K_SPRAY_REORDER:
		return parse_choice(c, k, value, xl_spray_reorder_names, XL_SPRAY_REORDERS,
				    &cfg->groups[cfg->n_groups - 1].spray_reorder);
	case K_RPORT:
	case K_RGROUP:
		if (r->kind)
			return fail(c, c->line, "route has both port and group (use exactly one)");
		if (k == K_RPORT ? !check_ifname(c, c->line, value)
				 : !check_group_name(c, c->line, value))
			return 0;
		r->kind = k == K_RPORT ? XL_ROUTE_PORT : XL_ROUTE_GROUP;
		strcpy(r->target, value);
		c->route_tline[cfg->n_routes - 1] = c->line;
		return 1;
	case K_DSCP:
		return parse_dscp(c, value);
	case K_KMIN:
		return parse_bytes(c, k, value, 0, "0", &w->kmin);
	case K_KMAX:
		return parse_bytes(c, k, value, 0, "0", &w->kmax);
	case K_PMAX:
		return parse_pmax(c, value, &w->pmax);
	case K_MARK:
	case K_DROP:
		bit = k == K_MARK ? XL_CLASS_NO_MARK : XL_CLASS_NO_DROP;
		if (!parse_choice(c, k, value, yes_no, ARRAY_LEN(yes_no), &dummy))
			return 0;
		w->flags = dummy ? w->flags | bit : w->flags & ~bit;
		return 1;
	case K_VARIANT:
		return parse_choice(c, k, value, variants, ARRAY_LEN(variants), &d->rp.variant);
	case K_NP:
	case K_RP:
	case K_CLAMP:
		if (!parse_choice(c, k, value, yes_no, ARRAY_LEN(yes_no), &dummy))
			return 0;
		*(k == K_NP ? &d->np_enabled : k == K_RP ? &d->rp_enabled : &d->rp.clamp) = !dummy;
		return 1;
	case K_CNP_INTERVAL:
		return parse_duration(c, k, value, CNP_INTERVAL_MIN, CNP_INTERVAL_MAX,
				      &d->cnp_interval_ns);
	case K_CNP_SCOPE:
		return parse_choice(c, k, value, cnp_scopes, ARRAY_LEN(cnp_scopes), &d->cnp_scope);
	case K_CNP_DSCP:
		return parse_uint(c, k, value, 0, 63, &d->cnp_dscp);
	case K_G:
		return parse_q32(c, k, value, false, &d->rp.g);
	case K_ALPHA_FIRST:
		return parse_q32(c, k, value, true, &d->rp.alpha_first);
	case K_K:
		return parse_duration(c, k, value, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX, &d->rp.k_ns);
	case K_T:
		return parse_duration(c, k, value, DCQCN_T_MIN, DCQCN_TIMER_MAX, &d->rp.t_ns);
	case K_T_DEC:
		return parse_duration(c, k, value, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX,
				      &d->rp.t_dec_ns);
	case K_B:
		if (!parse_dcqcn_b(c, value, &b))
			return 0;
		d->rp.b_bytes = b;
		return 1;
	case K_F:
		return parse_uint(c, k, value, 1, DCQCN_F_MAX, &d->rp.f);
	case K_R_AI:
		return parse_key_rate(c, k, value, &d->rp.r_ai);
	case K_R_HAI:
		return parse_key_rate(c, k, value, &d->rp.r_hai);
	case K_MIN_RATE:
		return parse_key_rate(c, k, value, &d->rp.min_rate);
	case K_COUNT:
		break;
	}
	return 0;
}

static int find_port(const struct xl_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (!strcmp(cfg->ports[i].ifname, name))
			return i;
	return -1;
}

static int find_group(const struct xl_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->n_groups; i++)
		if (!strcmp(cfg->groups[i].name, name))
			return i;
	return -1;
}

/* A mode that weighs members by capacity (their port's rate) needs it on
 * every member or on none: reported at the group, naming the first member
 * (file order) with a rate and the first without. */
static bool check_capacities(struct ctx *c, int id)
{
	const struct xl_config *cfg = c->cfg;
	const struct xl_cfg_group *g = &cfg->groups[id];
	const struct xl_cfg_port *with = NULL, *without = NULL;
	int i;

	if (!lb_uses_capacity(g->lb_mode))
		return true;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *p = &cfg->ports[i];

		if (p->group_id != id)
			continue;
		if (p->rate_bps && !with)
			with = p;
		if (!p->rate_bps && !without)
			without = p;
	}
	if (with && without)
		return fail(c, g->line,
			    "group '%s' (lb_mode %s) has mixed capacities: %s has rate, %s has none; "
			    "give all members a rate or none", g->name, lb_modes[g->lb_mode],
			    with->ifname, without->ifname);
	return true;
}

/* Host mode, once everything is read: the RP needs every port's line rate
 * (DCQCN's C), and its min_rate may not exceed any of them. */
static bool check_host(struct ctx *c)
{
	const struct xl_config *cfg = c->cfg;
	const struct xl_host_cfg *h = &cfg->host;
	char mr[32], pr[32];
	int i;

	if (!h->rp_enabled)
		return true;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *p = &cfg->ports[i];

		if (!p->rate_bps)
			return fail(c, p->line,
				    "port %s has no rate: the RP (rp = yes%s) needs the port's "
				    "line rate (set rate = the link speed, e.g. 100G, or rp = no)",
				    p->ifname, c->rp_line ? "" : ", the default");
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *p = &cfg->ports[i];

		if (p->rate_bps >= h->rp.min_rate)
			continue;
		xl_fmt_rate(mr, sizeof(mr), h->rp.min_rate);
		xl_fmt_rate(pr, sizeof(pr), p->rate_bps);
		if (c->min_rate_line)
			return fail(c, c->min_rate_line,
				    "min_rate %s is above port %s's rate %s", mr, p->ifname, pr);
		return fail(c, p->line,
			    "port %s's rate %s is below min_rate %s (the %s variant's default; "
			    "set a lower min_rate in [dcqcn])", p->ifname, pr, mr,
			    variants[h->rp.variant]);
	}
	return true;
}

/* Cross-references, once everything is read. Interfaces come last so a
 * file is reported for its own mistakes the same way on any machine. */
static bool check_all(struct ctx *c, bool check_interfaces)
{
	struct xl_config *cfg = c->cfg;
	char pfx[64];
	int i, id;

	if (!cfg->n_ports)
		return fail(c, 0, "no ports defined (add a [port IFNAME] section)");
	if (c->host && !check_host(c))
		return false;
	for (i = 0; i < cfg->n_ports; i++) {
		struct xl_cfg_port *p = &cfg->ports[i];

		if (!p->group[0])
			continue;
		id = find_group(cfg, p->group);
		if (id < 0)
			return fail(c, c->port_group_line[i],
				    "group '%s' is not defined (no [group %s] section)",
				    p->group, p->group);
		if (cfg->groups[id].n_members >= XL_MAX_GROUP_MEMBERS)
			return fail(c, c->port_group_line[i],
				    "group '%s' has more than %d member ports", p->group,
				    XL_MAX_GROUP_MEMBERS);
		cfg->groups[id].n_members++;
		p->group_id = id;
	}
	for (i = 0; i < cfg->n_groups; i++)
		if (!cfg->groups[i].n_members)
			return fail(c, cfg->groups[i].line,
				    "group '%s' has no member ports (set group = %s on an uplink port)",
				    cfg->groups[i].name, cfg->groups[i].name);
	for (i = 0; i < cfg->n_groups; i++)
		if (!check_capacities(c, i))
			return false;
	for (i = 0; i < cfg->n_routes; i++) {
		struct xl_cfg_route *r = &cfg->routes[i];
		bool port = r->kind == XL_ROUTE_PORT;

		id = port ? find_port(cfg, r->target) : find_group(cfg, r->target);
		if (id < 0) {
			prefix_str(r, pfx, sizeof(pfx));
			return fail(c, c->route_tline[i],
				    "route %s: %s '%s' is not defined (no [%s %s] section)", pfx,
				    port ? "port" : "group", r->target, port ? "port" : "group",
				    r->target);
		}
		r->target_id = id;
	}
	/* The built-in cnp keeps DSCP 48 unless [class cnp] sets dscp. */
	if (!c->class_dscp_line[CLASS_CNP] && c->dscp_owner[CNP_DSCP])
		return fail(c, c->dscp_line[CNP_DSCP],
			    "DSCP %d is already in class 'cnp' (its built-in DSCP; to use it here, "
			    "set another dscp in [class cnp])", CNP_DSCP);
	for (i = 0; i < 64; i++)
		cfg->dscp_class[i] = c->dscp_owner[i] ? c->dscp_owner[i] - 1 : XL_CLASS_DEFAULT;
	if (!c->class_dscp_line[CLASS_CNP])
		cfg->dscp_class[CNP_DSCP] = CLASS_CNP;
	for (i = 0; check_interfaces && i < cfg->n_ports; i++) {
		struct xl_cfg_port *p = &cfg->ports[i];

		p->ifindex = if_nametoindex(p->ifname);
		if (!p->ifindex)
			return fail(c, p->line, "interface '%s' does not exist", p->ifname);
	}
	return true;
}

#define MAX_FILE_BYTES (64U << 20)

/* The whole file, read once: scanned for the mode, then parsed. NULL (and
 * the error recorded) if it cannot be read. */
static char *read_file(struct ctx *c, size_t *len)
{
	FILE *f = fopen(c->path, "r");
	size_t cap = 0, n = 0, want, got;
	char *buf = NULL, *nb;

	if (!f) {
		fail(c, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_FILE_BYTES) {
				fail(c, 0, "file too large (max %uM bytes)", MAX_FILE_BYTES >> 20);
				goto err;
			}
			cap = cap ? cap * 2 : 64 * 1024;
			nb = realloc(buf, cap);
			if (!nb) {
				fail(c, 0, "out of memory");
				goto err;
			}
			buf = nb;
		}
		want = cap - n;
		got = fread(buf + n, 1, want, f);
		n += got;
		if (got < want)
			break;
	}
	if (ferror(f)) {
		fail(c, 0, "read error: %s", strerror(errno));
		goto err;
	}
	fclose(f);
	*len = n;
	return buf;
err:
	fclose(f);
	free(buf);
	return NULL;
}

int xl_config_load(const char *path, bool check_interfaces,
		   struct xl_config *cfg, char *err, size_t errlen)
{
	struct ctx c = { .cfg = cfg, .path = path, .err = err, .errlen = errlen };
	size_t len = 0;
	char *text;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	set_class(&cfg->classes[XL_CLASS_DEFAULT], "default", 0);
	set_class(&cfg->classes[CLASS_CNP], "cnp", XL_CLASS_NO_MARK | XL_CLASS_NO_DROP);
	cfg->n_classes = N_BUILTIN_CLASSES;
	cfg->flow_table_size = XL_FLOW_TABLE_SIZE;
	text = read_file(&c, &len);
	if (!text)
		goto out;
	c.host = scan_host_mode(text, len);
	if (c.host) {
		cfg->mode = XL_MODE_HOST;
		host_defaults(&cfg->host, XL_DCQCN_PAPER); /* until [dcqcn] says otherwise */
	}
	/* An empty file has no lines (fmemopen takes no empty buffer). */
	if (len) {
		c.f = fmemopen(text, len, "r");
		if (!c.f) {
			fail(&c, 0, "out of memory");
			free(text);
			goto out;
		}
	}
	rc = ini_parse_stream(read_line, &c, on_key, &c);
	if (rc > 0 && !c.failed) /* only if inih rejects a line we let through */
		fail(&c, rc, "syntax error");
	else if (rc < 0)
		fail(&c, c.line, "out of memory");
	if (c.f)
		fclose(c.f);
	free(text);
	if (close_section(&c))
		check_all(&c, check_interfaces);
out:
	free(c.route_tline);
	if (c.failed) {
		xl_config_free(cfg);
		return -1;
	}
	return 0;
}

void xl_config_free(struct xl_config *cfg)
{
	free(cfg->routes);
	memset(cfg, 0, sizeof(*cfg));
}
