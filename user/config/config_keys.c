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

#define TO(obj, type, f) .map = (obj), .map_off = offsetof(type, f), \
			 .map_size = sizeof(((type *)0)->f)
#define TO_FLAG(type, f) .map_flag_off = offsetof(type, f), \
			 .map_flag_size = sizeof(((type *)0)->f)
#define TO_SETTINGS(f) TO(XL_OBJ_SETTINGS, struct xl_settings, f)
#define TO_EVENT_CFG(f) TO(XL_OBJ_EVENT_CFG, struct xl_event_cfg, f)
#define TO_PORT(f) TO(XL_OBJ_PORT, struct xl_port, f)
#define TO_PORT_FLAG(f) TO_FLAG(struct xl_port, f)
#define TO_GROUP(f) TO(XL_OBJ_GROUP, struct xl_group, f)
#define TO_GROUP_FLAG(f) TO_FLAG(struct xl_group, f)
#define LB(m) (1U << XL_LB_##m)

const struct xl_key_def xl_keys[K_COUNT] = {
#define XL_KEY(id, ...) [id] = { __VA_ARGS__ },
#include "config/key_table.h"
#undef XL_KEY
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

/* word with a flag key's bit as yes (1) or no (0) says. */
static __u32 flag_word(const struct xl_key_def *k, __u32 word, __u64 yes)
{
	return !yes == (k->type == T_NO_FLAG) ? word | (__u32)k->lo : word & ~(__u32)k->lo;
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
	case T_FLAG:
		if (choice(k, yes_no, 2, value, &v, msg, len))
			return -1;
		if (k->type == T_YES_NO)
			*u32 = !v;
		else
			*u32 = flag_word(k, *u32, !v);
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
		return xl_parse_gamma(k->name, value, u32, msg, len);
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

/* An integer of 1, 2, 4 or 8 bytes at p, widened; and stored narrowed.
 * Byte-wise (memcpy), never through a pointer of the field's type: a map
 * struct's field (include/) or the caller's copy of one need not sit at
 * an address aligned for its width. Any other size is not an integer (an
 * address): 0, and nothing stored. */
static __u64 get_int(const void *p, size_t size)
{
	__u8 v8;
	__u16 v16;
	__u32 v32;
	__u64 v64;

	switch (size) {
	case 1: memcpy(&v8, p, 1); return v8;
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	case 8: memcpy(&v64, p, 8); return v64;
	default: return 0;
	}
}

static void set_int(void *p, size_t size, __u64 v)
{
	__u8 v8 = (__u8)v;
	__u16 v16 = (__u16)v;
	__u32 v32 = (__u32)v;

	switch (size) {
	case 1: memcpy(p, &v8, 1); break;
	case 2: memcpy(p, &v16, 2); break;
	case 4: memcpy(p, &v32, 4); break;
	case 8: memcpy(p, &v, 8); break;
	default: break;
	}
}

void xl_keys_defaults(enum xl_sect sect, void *obj)
{
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		char *field = (char *)obj + k->off;

		if (k->sect != sect || sect == S_DCQCN || !xl_key_size(k))
			continue;
		if (xl_key_is_flag(k))
			set_int(field, 4, flag_word(k, (__u32)get_int(field, 4), k->dflt));
		else
			set_int(field, xl_key_size(k), k->dflt);
		if (k->flags & KF_AUTO)
			*(bool *)((char *)obj + k->flag_off) = true;
	}
}

void xl_keys_fill(enum xl_map_obj m, const void *obj, void *map)
{
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		const char *field = (const char *)obj + k->off;

		if (k->map != m || k->flags & KF_LOADER_FILLS)
			continue;
		if (k->type == T_ADDR4 || k->type == T_ADDR6)
			memcpy((char *)map + k->map_off, field, k->map_size);
		else
			set_int((char *)map + k->map_off, k->map_size,
				get_int(field, xl_key_size(k)));
		if (k->map_flag_size)
			set_int((char *)map + k->map_flag_off, k->map_flag_size,
				*(const bool *)((const char *)obj + k->flag_off));
	}
}

__u64 xl_key_map_value(const struct xl_key_def *k, const void *map)
{
	return get_int((const char *)map + k->map_off, k->map_size);
}

bool xl_key_map_flag(const struct xl_key_def *k, const void *map)
{
	return k->map_flag_size && get_int((const char *)map + k->map_flag_off, k->map_flag_size);
}

bool xl_key_acts(const struct xl_key_def *k, __u32 lb_mode, __u32 spray_reorder)
{
	if (k->lb_modes && !(lb_mode < 32 && k->lb_modes & (1U << lb_mode)))
		return false;
	return !(k->flags & KF_SAFE_MOVES && lb_mode == XL_LB_SPRAY &&
		 spray_reorder != XL_SPRAY_SAFE);
}

void xl_keys_list(enum xl_sect sect, bool host, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < K_COUNT && n < len; i++)
		if (xl_keys[i].sect == sect && !(host && xl_keys[i].flags & KF_LEAF_ONLY))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", xl_keys[i].name);
}

/* A choice's or a yes/no's docs columns, where the table gives none:
 * the words, and the default's. */
static const char *doc_words(const struct xl_key_def *k, bool dflt, char *buf, size_t len)
{
	static const char *const yes_no[] = { "yes", "no" };
	const char *const *w = k->type == T_CHOICE ? k->choices : yes_no;
	__u32 n = k->type == T_CHOICE ? k->n_choices : 2;
	size_t used = 0;

	if (k->type != T_CHOICE && k->type != T_YES_NO && !xl_key_is_flag(k))
		return NULL;
	if (dflt) {
		__u64 d = k->type == T_CHOICE ? k->dflt : !k->dflt;

		snprintf(buf, len, "`%s`", d < n ? w[d] : "?");
		return buf;
	}
	buf[0] = 0;
	for (__u32 i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s`%s`", i ? ", " : "", w[i]);
	return buf;
}

void xl_keys_print(FILE *f)
{
	char dflt[64], values[128];
	enum xl_sect s;

	for (s = S_XDPLEAF; s < S_COUNT; s++) {
		fprintf(f, "[%s]\n", xl_sect_names[s]);
		for (int i = 0; i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];

			if (k->sect != s)
				continue;
			const char *d = k->doc_default ? k->doc_default
					: doc_words(k, true, dflt, sizeof(dflt));
			const char *v = k->doc_values ? k->doc_values
					: doc_words(k, false, values, sizeof(values));

			fprintf(f, "| `%s` |", k->name);
			if (d)
				fprintf(f, " %s |", d);
			if (k->doc_nvidia)
				fprintf(f, " %s |", k->doc_nvidia);
			fprintf(f, " %s |\n", v);
		}
	}
}
