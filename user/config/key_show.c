// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* A map entry's settings, as the key table says to show them
 * (config/key_show.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "config/key_show.h"
#include "base/units.h"

/* Whether key k of a map of kind m is shown: it reaches m, and a
 * KF_JSON_IF_USED group key only where the group's mode uses it. */
static bool shown(const struct xl_key_def *k, enum xl_map_obj m, const void *map)
{
	if (k->map != m)
		return false;
	if (!(k->flags & KF_JSON_IF_USED) || m != XL_OBJ_GROUP)
		return true;
	return xl_key_acts(k, (__u32)xl_key_map_value(&xl_keys[K_LB_MODE], map),
			   (__u32)xl_key_map_value(&xl_keys[K_SPRAY_REORDER], map));
}

static const char *word(const struct xl_key_def *k, __u64 v)
{
	return v < k->n_choices && k->choices[v] ? k->choices[v] : "unknown";
}

/* An address key's text, or NULL if its flag says it is not set. */
static const char *address(const struct xl_key_def *k, const void *map, char *buf, size_t len)
{
	if (k->map_flag_size && !xl_key_map_flag(k, map))
		return NULL;
	return inet_ntop(k->type == T_ADDR4 ? AF_INET : AF_INET6, (const char *)map + k->map_off,
			 buf, (socklen_t)len);
}

void xl_keys_json(enum xl_map_obj m, const void *map, json_object *o)
{
	char addr[64];

	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		const char *name = k->json ? k->json : k->name, *a;
		__u64 v;

		if (!shown(k, m, map) || json_object_object_get_ex(o, name, NULL))
			continue;
		v = xl_key_map_value(k, map);
		switch (k->type) {
		case T_CHOICE:
			json_object_object_add(o, name, json_object_new_string(word(k, v)));
			break;
		case T_YES_NO:
			json_object_object_add(o, name, json_object_new_boolean(!!v));
			break;
		case T_ADDR4:
		case T_ADDR6:
			a = address(k, map, addr, sizeof(addr));
			if (a)
				json_object_object_add(o, name, json_object_new_string(a));
			break;
		default:
			json_object_object_add(o, name, json_object_new_uint64(v));
			break;
		}
		if (k->json_flag)
			json_object_object_add(o, k->json_flag,
					       json_object_new_boolean(xl_key_map_flag(k, map)));
	}
}

void xl_keys_text(enum xl_map_obj m, const void *map, char *buf, size_t len)
{
	char val[64];
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < K_COUNT && n < len; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		const char *a;
		__u64 v;

		if (!shown(k, m, map))
			continue;
		v = xl_key_map_value(k, map);
		switch (k->type) {
		case T_CHOICE:
			snprintf(val, sizeof(val), "%s", word(k, v));
			break;
		case T_YES_NO:
			snprintf(val, sizeof(val), "%s", v ? "yes" : "no");
			break;
		case T_ADDR4:
		case T_ADDR6:
			a = address(k, map, val, sizeof(val));
			if (!a)
				continue;
			break;
		case T_DURATION:
			xl_fmt_duration(val, sizeof(val), v);
			break;
		case T_RATE:
			if (!v)
				continue; /* unset: unlimited */
			xl_fmt_rate(val, sizeof(val), v);
			break;
		case T_GAMMA:
			snprintf(val, sizeof(val), "%g", v / 1e6);
			break;
		default:
			snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
			break;
		}
		n += snprintf(buf + n, len - n, "%s%s %s%s", n ? ", " : "", k->name, val,
			      k->json_flag && xl_key_map_flag(k, map) ? " (auto)" : "");
	}
}
