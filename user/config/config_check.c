// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The configuration's checks: what a section must hold once it is read
 * (leaf ports, groups, classes, routes, [dcqcn]), and the whole file's
 * cross-references, leaf and host rules. Reading is config.c; every key's
 * own type and range is config_keys.c. docs/config.md states each rule. */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "config/config_check.h"
#include "config/config_parse.h"
#include "base/log.h"
#include "base/names.h"
#include "base/units.h"

/* Modes that weigh members by capacity (port rate): all members have a
 * rate or none has. */
static bool lb_uses_capacity(__u32 mode)
{
	return mode == XL_LB_FLOWLET || mode == XL_LB_SPRAY;
}

static const char *variant_name(__u32 v)
{
	return xl_keys[K_VARIANT].choices[v ? XL_DCQCN_NVIDIA : XL_DCQCN_PAPER];
}

/* Of the keys with flag set in this section, the first in the file;
 * K_COUNT if none is set. */
static enum xl_key_id first_key(const struct ctx *c, unsigned int flag)
{
	enum xl_key_id first = K_COUNT;

	for (int k = 0; k < K_COUNT; k++)
		if (xl_keys[k].flags & flag && c->key_line[k] &&
		    (first == K_COUNT || c->key_line[k] < c->key_line[first]))
			first = (enum xl_key_id)k;
	return first;
}

/* "flowlet or flowlet-random": the lb_modes of a mask, as a message
 * lists them. */
static void lb_modes_str(__u32 mask, char *buf, size_t len)
{
	int n = 0, left = __builtin_popcount(mask);
	size_t used = 0;

	buf[0] = 0;
	for (__u32 m = 0; m < XL_LB_MODES && used < len; m++)
		if (mask & (1U << m)) {
			left--;
			used += snprintf(buf + used, len - used, "%s%s",
					 !n++ ? "" : left ? ", " : " or ", xl_lb_mode_names[m]);
		}
}

/* A [group] key set where its lb_mode (or spray_reorder, KF_SAFE_MOVES)
 * gives it no effect: an error at the key. The plain keys first, then
 * those of the reorder-free rule, each in table order. */
static bool check_group_keys(struct ctx *c, const struct xl_cfg_group *g)
{
	char modes[96];

	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < K_COUNT; k++) {
			const struct xl_key_def *kd = &xl_keys[k];

			if (kd->sect != S_GROUP || !c->key_line[k] ||
			    !(kd->flags & KF_SAFE_MOVES) != !pass ||
			    xl_key_acts(kd, g->lb_mode, g->spray_reorder))
				continue;
			if (kd->lb_modes & (1U << g->lb_mode)) /* spray, free */
				return cfg_fail(c, c->key_line[k],
					    "%s has no effect with spray_reorder = free%s (group %s: "
					    "set spray_reorder = safe, or remove %s)", kd->name,
					    c->key_line[K_SPRAY_REORDER] ? "" : ", the default",
					    g->name, kd->name);
			lb_modes_str(kd->lb_modes, modes, sizeof(modes));
			return cfg_fail(c, c->key_line[k],
				    "%s has no effect with lb_mode %s%s (group %s: set lb_mode = %s, "
				    "or remove %s)", kd->name, xl_lb_mode_names[g->lb_mode],
				    c->key_line[K_LB_MODE] ? "" : ", the default", g->name, modes,
				    kd->name);
		}
	return true;
}

void xl_host_defaults(struct xl_host_cfg *h, __u32 variant)
{
	*h = (struct xl_host_cfg){
		.cnp_interval_ns = XL_CNP_INTERVAL_DEFAULT_NS,
		.cnp_scope = XL_CNP_PER_QP,
		.cnp_dscp = XL_CNP_DSCP_DEFAULT,
		.np_enabled = 1,
		.rp_enabled = 1,
		.cnp_port_rate = XL_CNP_PORT_RATE_DEFAULT,
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
	unsigned int other = v == XL_DCQCN_NVIDIA ? KF_PAPER_ONLY : KF_NVIDIA_ONLY;
	int k, bad = K_COUNT;

	for (k = 0; k < K_COUNT; k++)
		if (xl_keys[k].flags & other && c->key_line[k] &&
		    (bad == K_COUNT || c->key_line[k] < c->key_line[bad]))
			bad = k;
	if (bad != K_COUNT)
		return cfg_fail(c, c->key_line[bad],
			    "%s is not used by the %s variant%s (remove %s, or set variant = %s)",
			    xl_keys[bad].name, variant_name(v),
			    c->key_line[K_VARIANT] ? "" : ", the default", xl_keys[bad].name,
			    variant_name(!v));
	xl_host_defaults(h, v);
	/* each key set: its field (the table knows where and how wide) */
	for (k = 0; k < K_COUNT; k++) {
		const struct xl_key_def *kd = &xl_keys[k];
		if (kd->sect == S_DCQCN && c->key_line[k])
			memcpy((char *)h + kd->off, (const char *)e + kd->off, xl_key_size(kd));
	}
	c->rp_line = c->key_line[K_RP];
	c->min_rate_line = c->key_line[K_MIN_RATE];
	return true;
}

/* Checks that need the whole section (keys come in any order). */
bool cfg_close_section(struct ctx *c)
{
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_port *p;
	enum xl_key_id bad;

	if (c->failed)
		return false;
	if (c->sect == S_XDPLEAF) {
		if (c->host && c->key_line[K_HOOK])
			return cfg_fail(c, c->key_line[K_HOOK],
				    "hook is not used in host mode (a host's programs run at tc)");
		if (c->key_line[K_XDP_MODE] && cfg->hook == XL_HOOK_AT_TC)
			return cfg_fail(c, c->key_line[K_XDP_MODE],
				    "xdp_mode has no effect with hook = tc (set hook = xdp, or "
				    "remove xdp_mode)");
		/* xdp_mode asks for XDP: auto takes it at its word */
		if (c->key_line[K_XDP_MODE] && cfg->hook == XL_HOOK_AUTO)
			cfg->hook = XL_HOOK_AT_XDP;
	}
	if (c->sect == S_PORT) {
		p = &cfg->ports[cfg->n_ports - 1];
		if (p->role == XL_ROLE_UPLINK && !p->group[0])
			return cfg_fail(c, c->sect_line, "uplink port %s needs a group", p->ifname);
		if (p->role == XL_ROLE_UPLINK && !p->has_nexthop4 && !p->has_nexthop6)
			return cfg_fail(c, c->sect_line, "uplink port %s needs nexthop4 and/or nexthop6",
				    p->ifname);
		bad = first_key(c, KF_UPLINK_ONLY);
		if (p->role == XL_ROLE_DOWNLINK && bad != K_COUNT)
			return cfg_fail(c, c->key_line[bad],
				    "%s is only allowed on uplinks (port %s is a downlink)",
				    xl_keys[bad].name, p->ifname);
		bad = first_key(c, KF_NEEDS_RATE);
		if (!p->rate_bps && bad != K_COUNT)
			return cfg_fail(c, c->key_line[bad],
				    "%s has no effect without rate (port %s has no rate: set one, or remove %s)",
				    xl_keys[bad].name, p->ifname, xl_keys[bad].name);
		p->buffer_default = !c->key_line[K_BUFFER];
		if (p->buffer_default)
			p->buffer_bytes = xl_default_buffer(p->rate_bps);
	}
	if (c->sect == S_CLASS) {
		struct xl_cfg_class *k = &cfg->classes[c->cur_class];
		int line = c->key_line[K_KMIN] > c->key_line[K_KMAX] ? c->key_line[K_KMIN]
								      : c->key_line[K_KMAX];

		if (line) /* thresholds set here are used as they are */
			k->wred.flags &= ~XL_CLASS_FIT;
		if (k->wred.kmin >= k->wred.kmax)
			return cfg_fail(c, line ? line : c->sect_line,
				    "kmin must be less than kmax in class '%s' (kmin %u bytes, kmax %u bytes)",
				    k->name, k->wred.kmin, k->wred.kmax);
		if (c->cur_class >= N_BUILTIN_CLASSES && !c->class_dscp_line[c->cur_class])
			return cfg_fail(c, c->sect_line,
				    "class '%s' has no dscp (set dscp = the DSCP values 0-63 it takes)",
				    k->name);
	}
	if (c->sect == S_GROUP && !check_group_keys(c, &cfg->groups[cfg->n_groups - 1]))
		return false;
	if (c->sect == S_ROUTE && !cfg->routes[cfg->n_routes - 1].kind)
		return cfg_fail(c, c->sect_line,
			    "route has no target (set port = IFNAME or group = NAME)");
	if (c->sect == S_DCQCN)
		return close_dcqcn(c);
	return true;
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
		return cfg_fail(c, g->line,
			    "group '%s' (lb_mode %s) has mixed capacities: %s has rate, %s has none; "
			    "give all members a rate or none", g->name, xl_lb_mode_names[g->lb_mode],
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
			return cfg_fail(c, p->line,
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
			return cfg_fail(c, c->min_rate_line,
				    "min_rate %s is above port %s's rate %s", mr, p->ifname, pr);
		return cfg_fail(c, p->line,
			    "port %s's rate %s is below min_rate %s (the %s variant's default; "
			    "set a lower min_rate in [dcqcn])", p->ifname, pr, mr,
			    variant_name(h->rp.variant));
	}
	return true;
}

/* Host mode: DCQCN's first cut takes a flow to half its rate (alpha
 * starts at 1), so a min_rate at or above half a port's rate clips even
 * that cut, and one equal to it leaves the flows no room to slow down at
 * all: the specification's 100 Mbit/s floor does that to a lab's
 * 100 Mbit/s NIC (docs/dcqcn.md). A choice a user may make, so it loads;
 * but it is said. */
int xl_config_warn(const struct xl_config *cfg, const char *path)
{
	const struct xl_host_cfg *h = &cfg->host;
	char mr[32], pr[32];
	int i, n = 0;

	if (cfg->node_role != XL_NODE_HOST || !h->rp_enabled)
		return 0;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct xl_cfg_port *p = &cfg->ports[i];

		if (!p->rate_bps || h->rp.min_rate * 2 < p->rate_bps)
			continue;
		xl_fmt_rate(mr, sizeof(mr), h->rp.min_rate);
		xl_fmt_rate(pr, sizeof(pr), p->rate_bps);
		xl_warn_at(path, p->line, "port %s's rate %s is at most twice min_rate %s: "
			   "DCQCN cannot cut its flows to half their rate (set a lower "
			   "min_rate in [dcqcn]; docs/dcqcn.md)", p->ifname, pr, mr);
		n++;
	}
	return n;
}

/* Cross-references, once everything is read. Interfaces come last so a
 * file is reported for its own mistakes the same way on any machine. */
bool cfg_check_all(struct ctx *c, bool check_interfaces)
{
	struct xl_config *cfg = c->cfg;
	char pfx[64];
	int i, id;

	if (!cfg->n_ports)
		return cfg_fail(c, 0, "no ports defined (add a [port IFNAME] section)");
	if (c->host && !check_host(c))
		return false;
	for (i = 0; i < cfg->n_ports; i++) {
		struct xl_cfg_port *p = &cfg->ports[i];

		if (!p->group[0])
			continue;
		id = find_group(cfg, p->group);
		if (id < 0)
			return cfg_fail(c, c->port_group_line[i],
				    "group '%s' is not defined (no [group %s] section)",
				    p->group, p->group);
		if (cfg->groups[id].n_members >= XL_MAX_GROUP_MEMBERS)
			return cfg_fail(c, c->port_group_line[i],
				    "group '%s' has more than %d member ports", p->group,
				    XL_MAX_GROUP_MEMBERS);
		cfg->groups[id].n_members++;
		p->group_id = id;
	}
	for (i = 0; i < cfg->n_groups; i++)
		if (!cfg->groups[i].n_members)
			return cfg_fail(c, cfg->groups[i].line,
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
			cfg_prefix_str(r, pfx, sizeof(pfx));
			return cfg_fail(c, c->route_tline[i],
				    "route %s: %s '%s' is not defined (no [%s %s] section)", pfx,
				    port ? "port" : "group", r->target, port ? "port" : "group",
				    r->target);
		}
		r->target_id = id;
	}
	/* The built-in cnp keeps DSCP 48 unless [class cnp] sets dscp. */
	if (!c->class_dscp_line[CLASS_CNP] && c->dscp_owner[CNP_DSCP])
		return cfg_fail(c, c->dscp_line[CNP_DSCP],
			    "DSCP %d is already in class 'cnp' (its built-in DSCP; to use it here, "
			    "set another dscp in [class cnp])", CNP_DSCP);
	for (i = 0; i < 64; i++)
		cfg->dscp_class[i] = c->dscp_owner[i] ? c->dscp_owner[i] - 1 : XL_CLASS_DEFAULT;
	if (!c->class_dscp_line[CLASS_CNP])
		cfg->dscp_class[CNP_DSCP] = CLASS_CNP;
	/* The built-in roce keeps DSCP 26 unless [class roce] sets dscp or
	 * another class claims 26: that class then takes it (a user's own
	 * RoCE class, with its own profile). */
	if (!c->class_dscp_line[CLASS_ROCE] && !c->dscp_owner[ROCE_DSCP])
		cfg->dscp_class[ROCE_DSCP] = CLASS_ROCE;
	for (i = 0; check_interfaces && i < cfg->n_ports; i++) {
		struct xl_cfg_port *p = &cfg->ports[i];

		p->ifindex = if_nametoindex(p->ifname);
		if (!p->ifindex)
			return cfg_fail(c, p->line, "interface '%s' does not exist", p->ifname);
	}
	return true;
}

