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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_parse.h"
#include "config/config_check.h"
#include "events.h"
#include "telemetry.h"
#include "base/names.h"
#include "base/units.h"


/* Host mode: at most this many [port] sections (a GPU host's RoCE NICs). */
#define HOST_MAX_PORTS 4

/* Linux's rules (dev_valid_name): 1..15 bytes, not "." or "..", no '/',
 * ':' or whitespace. */
static bool check_ifname(struct ctx *c, int line, const char *name)
{
	if (!*name)
		return cfg_fail(c, line, "empty interface name");
	if (strlen(name) >= XL_IFNAMSIZ)
		return cfg_fail(c, line, "interface name '%s' is too long (max %d characters)",
			    name, XL_IFNAMSIZ - 1);
	if (!strcmp(name, ".") || !strcmp(name, "..") || strpbrk(name, "/: \t"))
		return cfg_fail(c, line, "invalid interface name '%s'", name);
	return true;
}

/* Group and class names: 1..size-1 characters from A-Z a-z 0-9 _ -. */
static bool check_name(struct ctx *c, int line, const char *what, const char *name,
		       size_t size)
{
	if (!*name)
		return cfg_fail(c, line, "empty %s name", what);
	if (strlen(name) >= size)
		return cfg_fail(c, line, "%s name '%s' is too long (max %zu characters)",
			    what, name, size - 1);
	if (name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			       "0123456789_-")])
		return cfg_fail(c, line, "invalid %s name '%s' (allowed: A-Z a-z 0-9 _ -)", what, name);
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

static bool add_route(struct ctx *c, const char *name)
{
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_route r = { .line = c->line, .target_id = -1 };
	char why[128], p[64];
	int i;

	if (xl_parse_prefix(name, &r.family, r.addr, &r.prefixlen, why, sizeof(why)))
		return cfg_fail(c, c->line, "bad route prefix '%s': %s", name, why);
	for (i = 0; i < cfg->n_routes; i++) {
		struct xl_cfg_route *o = &cfg->routes[i];

		if (o->family == r.family && o->prefixlen == r.prefixlen &&
		    !memcmp(o->addr, r.addr, 16)) {
			cfg_prefix_str(&r, p, sizeof(p));
			return cfg_fail(c, c->line, "duplicate section [route %s] (first at line %d)",
				    p, o->line);
		}
	}
	if (cfg->n_routes >= XL_MAX_ROUTES)
		return cfg_fail(c, c->line, "too many routes (max %d)", XL_MAX_ROUTES);
	if (cfg->n_routes == c->routes_cap) {
		int cap = c->routes_cap ? c->routes_cap * 2 : 16;
		struct xl_cfg_route *nr = realloc(cfg->routes, cap * sizeof(*nr));
		int *nl;

		if (!nr)
			return cfg_fail(c, c->line, "out of memory");
		cfg->routes = nr;
		nl = realloc(c->route_tline, cap * sizeof(*nl));
		if (!nl)
			return cfg_fail(c, c->line, "out of memory");
		c->route_tline = nl;
		c->routes_cap = cap;
	}
	c->route_tline[cfg->n_routes] = 0;
	cfg->routes[cfg->n_routes++] = r;
	return true;
}

/* A class with the keys' defaults, the paper's marking profile, and flags
 * (XL_CLASS_FIT: fitted to each port's buffer until the class sets kmin or
 * kmax, xl_wred_fit; a built-in's no mark, no drop). */
static void set_class(struct xl_cfg_class *k, const char *name, __u32 flags)
{
	*k = (struct xl_cfg_class){};
	xl_keys_defaults(S_CLASS, &k->wred);
	k->wred.flags |= flags;
	snprintf(k->name, sizeof(k->name), "%s", name);
}

/* `hdr` is what is between the brackets, trimmed. */
static bool open_section(struct ctx *c, char *hdr)
{
	struct xl_config *cfg = c->cfg;
	char *name = hdr + strcspn(hdr, " \t");
	int i;

	if (!cfg_close_section(c))
		return false;
	if (*name)
		*name++ = 0;
	name += strspn(name, " \t");
	c->sect = S_NONE;
	c->sect_line = c->line;
	memset(c->key_line, 0, sizeof(c->key_line));

	if (c->host && (!strcmp(hdr, "group") || !strcmp(hdr, "route") || !strcmp(hdr, "class")))
		return cfg_fail(c, c->line,
			    "[%s] is not used in host mode (a host has [xdpleaf], [port] and [dcqcn])",
			    hdr);
	if (!strcmp(hdr, "xdpleaf")) {
		if (*name)
			return cfg_fail(c, c->line, "section [xdpleaf] takes no name");
		if (c->xdpleaf_line)
			return cfg_fail(c, c->line, "duplicate section [xdpleaf] (first at line %d)",
				    c->xdpleaf_line);
		c->xdpleaf_line = c->line;
		c->sect = S_XDPLEAF;
	} else if (!strcmp(hdr, "port")) {
		if (!*name)
			return cfg_fail(c, c->line, "section [port] needs an interface name: [port IFNAME]");
		if (!check_ifname(c, c->line, name))
			return false;
		for (i = 0; i < cfg->n_ports; i++)
			if (!strcmp(cfg->ports[i].ifname, name))
				return cfg_fail(c, c->line, "duplicate section [port %s] (first at line %d)",
					    name, cfg->ports[i].line);
		if (c->host && cfg->n_ports >= HOST_MAX_PORTS)
			return cfg_fail(c, c->line, "too many ports for host mode (max %d)",
				    HOST_MAX_PORTS);
		if (cfg->n_ports >= XL_MAX_PORTS)
			return cfg_fail(c, c->line, "too many ports (max %d)", XL_MAX_PORTS);
		cfg->ports[cfg->n_ports] = (struct xl_cfg_port){ .line = c->line,
								  .group_id = -1 };
		xl_keys_defaults(S_PORT, &cfg->ports[cfg->n_ports]);
		strcpy(cfg->ports[cfg->n_ports++].ifname, name);
		c->sect = S_PORT;
	} else if (!strcmp(hdr, "group")) {
		if (!*name)
			return cfg_fail(c, c->line, "section [group] needs a name: [group NAME]");
		if (!check_group_name(c, c->line, name))
			return false;
		for (i = 0; i < cfg->n_groups; i++)
			if (!strcmp(cfg->groups[i].name, name))
				return cfg_fail(c, c->line, "duplicate section [group %s] (first at line %d)",
					    name, cfg->groups[i].line);
		if (cfg->n_groups >= XL_MAX_GROUPS)
			return cfg_fail(c, c->line, "too many groups (max %d)", XL_MAX_GROUPS);
		cfg->groups[cfg->n_groups] = (struct xl_cfg_group){ .line = c->line };
		xl_keys_defaults(S_GROUP, &cfg->groups[cfg->n_groups]);
		strcpy(cfg->groups[cfg->n_groups++].name, name);
		c->sect = S_GROUP;
	} else if (!strcmp(hdr, "route")) {
		if (!*name)
			return cfg_fail(c, c->line, "section [route] needs a prefix: [route PREFIX]");
		if (!add_route(c, name))
			return false;
		c->sect = S_ROUTE;
	} else if (!strcmp(hdr, "class")) {
		if (!*name)
			return cfg_fail(c, c->line, "section [class] needs a name: [class NAME]");
		if (!check_name(c, c->line, "class", name, XL_IFNAMSIZ))
			return false;
		for (i = 0; i < cfg->n_classes; i++)
			if (!strcmp(cfg->classes[i].name, name))
				break;
		if (i < cfg->n_classes && cfg->classes[i].line)
			return cfg_fail(c, c->line, "duplicate section [class %s] (first at line %d)",
				    name, cfg->classes[i].line);
		if (i == cfg->n_classes) {
			if (cfg->n_classes >= XL_MAX_CLASSES)
				return cfg_fail(c, c->line,
					    "too many classes (max %d, counting the built-in default, cnp and roce)",
					    XL_MAX_CLASSES);
			set_class(&cfg->classes[cfg->n_classes++], name, 0);
		}
		cfg->classes[i].line = c->line;
		c->cur_class = i;
		c->sect = S_CLASS;
	} else if (!strcmp(hdr, "dcqcn")) {
		if (*name)
			return cfg_fail(c, c->line, "section [dcqcn] takes no name");
		if (!c->host)
			return cfg_fail(c, c->line, "[dcqcn] needs mode = host (set it in [xdpleaf])");
		if (cfg->dcqcn_line)
			return cfg_fail(c, c->line, "duplicate section [dcqcn] (first at line %d)",
				    cfg->dcqcn_line);
		cfg->dcqcn_line = c->line;
		memset(&c->dc, 0, sizeof(c->dc));
		c->sect = S_DCQCN;
	} else if (!*hdr) {
		return cfg_fail(c, c->line, "empty section header");
	} else {
		return cfg_fail(c, c->line, "unknown section type '%s' (allowed: %s)", hdr,
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
			cfg_fail(c, c->line, "line too long (max %d characters)", num - 1);
			return NULL;
		}
	}
	s = normalise(str, c->line);
	len = strlen(s);
	if (*s == '[') {
		if (s[len - 1] != ']') {
			cfg_fail(c, c->line, "section header must end with ']'");
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
			cfg_fail(c, c->line, "expected 'key = value', a [section] header or a comment");
			return NULL;
		}
	}
	memmove(str, s, strlen(s) + 1);
	return str;
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
		return cfg_fail(c, c->line,
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
			return cfg_fail(c, c->line, "invalid DSCP '%.*s' (numbers 0-63, "
				    "separated by spaces or commas)", (int)n, tok);
		for (d = 0, i = 0; i < n; i++) /* saturates: no overflow */
			d = d > 63 ? d : d * 10 + (tok[i] - '0');
		if (d > 63)
			return cfg_fail(c, c->line, "DSCP %.*s out of range (0-63)", (int)n, tok);
		if (mask & (1ULL << d))
			return cfg_fail(c, c->line, "DSCP %u is listed twice", d);
		mask |= 1ULL << d;
	}
	if (!mask)
		return cfg_fail(c, c->line, "dscp needs at least one value (0-63)");
	for (d = 0; d < 64; d++) {
		int o = c->dscp_owner[d] - 1;

		if (!(mask & (1ULL << d)))
			continue;
		if (o >= 0)
			return cfg_fail(c, c->line, "DSCP %u is already in class '%s' (line %d)",
				    d, c->cfg->classes[o].name, c->dscp_line[d]);
		c->dscp_owner[d] = c->cur_class + 1;
		c->dscp_line[d] = c->line;
	}
	c->class_dscp_line[c->cur_class] = c->line;
	return true;
}

/* The struct a key of the current section sets (config_keys.h). */
static void *section_obj(struct ctx *c)
{
	struct xl_config *cfg = c->cfg;

	switch (c->sect) {
	case S_XDPLEAF: return cfg;
	case S_PORT: return &cfg->ports[cfg->n_ports - 1];
	case S_GROUP: return &cfg->groups[cfg->n_groups - 1];
	case S_CLASS: return &cfg->classes[c->cur_class].wred;
	case S_DCQCN: return &c->dc;
	default: return NULL;
	}
}

/* vlans: VLAN IDs 1-4094 and ranges A-B, separated by spaces and/or
 * commas. */
static bool parse_vlans(struct ctx *c, struct xl_cfg_port *p, const char *v)
{
	const char *s = v;
	int any = 0;

	while (*s) {
		unsigned long lo, hi;
		char *end;
		size_t n = strcspn(s, " \t,");

		if (!n) {
			s++;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			hi = strtoul(end + 1, &end, 10);
		}
		if (end != s + n)
			goto bad;
		if (lo < 1 || hi > 4094 || lo > hi)
			return cfg_fail(c, c->line, "VLAN '%.*s' out of range (1-4094, "
					"a range low-high)", (int)n, s);
		for (unsigned long vid = lo; vid <= hi; vid++)
			p->vlans[vid / 8] |= 1U << (vid % 8);
		any = 1;
		s += n;
		continue;
bad:
		return cfg_fail(c, c->line, "invalid VLAN '%.*s' (VLAN IDs 1-4094 or "
				"ranges like 200-203, separated by spaces or commas)", (int)n, s);
	}
	if (!any)
		return cfg_fail(c, c->line, "vlans needs at least one VLAN ID (1-4094)");
	return true;
}

/* The keys whose value is not just a field: names, routes, DSCP lists,
 * and what a value means beyond itself. */
static bool special_key(struct ctx *c, enum xl_key_id k, const char *value)
{
	struct xl_config *cfg = c->cfg;
	struct xl_cfg_port *p = &cfg->ports[cfg->n_ports ? cfg->n_ports - 1 : 0];
	struct xl_cfg_route *r = cfg->n_routes ? &cfg->routes[cfg->n_routes - 1] : NULL;

	switch (k) {
	case K_MODE:
		/* scan_host_mode read the same line the same way */
		if ((cfg->node_role == XL_NODE_HOST) != c->host)
			return cfg_fail(c, c->line, "internal error: mode read two ways");
		return true;
	case K_ROLE:
		if (c->host && p->role == XL_ROLE_UPLINK)
			return cfg_fail(c, c->line, "role = uplink is not used in host mode "
				    "(a host's ports are its own NICs)");
		return true;
	case K_PGROUP:
		if (!check_group_name(c, c->line, value))
			return false;
		strcpy(p->group, value);
		c->port_group_line[cfg->n_ports - 1] = c->line;
		return true;
	case K_RPORT:
	case K_RGROUP:
		if (r->kind)
			return cfg_fail(c, c->line, "route has both port and group (use exactly one)");
		if (k == K_RPORT ? !check_ifname(c, c->line, value)
				 : !check_group_name(c, c->line, value))
			return false;
		r->kind = k == K_RPORT ? XL_ROUTE_PORT : XL_ROUTE_GROUP;
		strcpy(r->target, value);
		c->route_tline[cfg->n_routes - 1] = c->line;
		return true;
	case K_DSCP:
		return parse_dscp(c, value);
	case K_LATENCY:
		/* CNPs are congestion signals (never marked nor dropped),
		 * not requests */
		if (c->cur_class == CLASS_CNP)
			return cfg_fail(c, c->line,
				    "latency is not allowed in [class cnp]: CNPs are congestion "
				    "notifications, not requests (a latency class is for requests, "
				    "e.g. dscp = 18)");
		return true;
	case K_VLANS:
		return parse_vlans(c, p, value);
	default:
		return true;
	}
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct ctx *c = user;
	char list[256], msg[XL_ERR_MAX];
	const struct xl_key_def *kd;
	int k;

	(void)section; /* the reader tracks sections, with their lines */
	if (c->failed)
		return 0;
	if (c->sect == S_NONE)
		return cfg_fail(c, c->line, "key '%s' outside any section", name);
	k = xl_key_find(c->sect, name);
	if (k == K_COUNT) {
		xl_keys_list(c->sect, c->host, list, sizeof(list));
		return cfg_fail(c, c->line, "unknown key '%s' in [%s] section (allowed%s: %s)",
			    name, xl_sect_names[c->sect], c->host && c->sect == S_PORT ?
			    " in host mode" : "", list);
	}
	kd = &xl_keys[k];
	if (c->key_line[k])
		return cfg_fail(c, c->line, "duplicate key '%s' (first at line %d)",
			    name, c->key_line[k]);
	c->key_line[k] = c->line;
	if (!*value)
		return cfg_fail(c, c->line, "key '%s' has no value", name);
	if (c->host && kd->flags & KF_LEAF_ONLY)
		return cfg_fail(c, c->line, "%s is not used in host mode (a host's [port] takes rate)",
			    name);
	if (kd->type != T_SPECIAL && xl_key_parse(kd, value, section_obj(c), msg, sizeof(msg)))
		return cfg_fail(c, c->line, "%s", msg);
	return special_key(c, (enum xl_key_id)k, value);
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
		cfg_fail(c, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_FILE_BYTES) {
				cfg_fail(c, 0, "file too large (max %uM bytes)", MAX_FILE_BYTES >> 20);
				goto err;
			}
			cap = cap ? cap * 2 : 64 * 1024;
			nb = realloc(buf, cap);
			if (!nb) {
				cfg_fail(c, 0, "out of memory");
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
		cfg_fail(c, 0, "read error: %s", strerror(errno));
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
	set_class(&cfg->classes[CLASS_ROCE], "roce", XL_CLASS_FIT);
	cfg->n_classes = N_BUILTIN_CLASSES;
	xl_keys_defaults(S_XDPLEAF, cfg);
	text = read_file(&c, &len);
	if (!text)
		goto out;
	c.host = scan_host_mode(text, len);
	if (c.host) {
		cfg->node_role = XL_NODE_HOST;
		xl_host_defaults(&cfg->host, XL_DCQCN_PAPER); /* until [dcqcn] says otherwise */
	}
	/* An empty file has no lines (fmemopen takes no empty buffer). */
	if (len) {
		c.f = fmemopen(text, len, "r");
		if (!c.f) {
			cfg_fail(&c, 0, "out of memory");
			free(text);
			goto out;
		}
	}
	rc = ini_parse_stream(read_line, &c, on_key, &c);
	if (rc > 0 && !c.failed) /* only if inih rejects a line we let through */
		cfg_fail(&c, rc, "syntax error");
	else if (rc < 0)
		cfg_fail(&c, c.line, "out of memory");
	if (c.f)
		fclose(c.f);
	free(text);
	if (cfg_close_section(&c))
		cfg_check_all(&c, check_interfaces);
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
