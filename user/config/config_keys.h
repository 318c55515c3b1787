/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The configuration's schema: every key once, with its section, type,
 * range, the struct field it sets, its default and values as docs/config.md
 * shows them, and where its value reaches the dataplane. The parser
 * (user/config/config.c) and its checks, the defaults, the loaders' map
 * fill, the JSON and status output of the settings (config/key_show.h),
 * `xdpleaf sim dcqcn --set` and `xdpleaf keys` (the reference
 * tests/lab/docs_tables.bats compares with docs/config.md, no lab
 * needed) all read this one table. (As xdp-tools' DEFINE_OPTION tables
 * in lib/util/params.h.) The rows: config/key_table.h. */
#ifndef XL_CONFIG_KEYS_H
#define XL_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "config/config.h"

enum xl_sect { S_NONE, S_XDPLEAF, S_PORT, S_GROUP, S_ROUTE, S_CLASS, S_DCQCN, S_COUNT };
extern const char *const xl_sect_names[S_COUNT];

/* Every key (config/key_table.h); the enum indexes xl_keys (and the
 * parser's duplicate check). */
enum xl_key_id {
#define XL_KEY(id, ...) id,
#include "config/key_table.h"
#undef XL_KEY
	K_COUNT
};

/* How a value is read (user/base/units.h has the parsers). */
enum xl_key_type {
	T_CHOICE,     /* one of choices[]: its index, __u32 */
	T_YES_NO,     /* yes -> 1, no -> 0, __u32 */
	T_NO_FLAG,    /* yes clears, no sets the bit `lo` of a __u32 */
	T_FLAG,       /* yes sets, no clears the bit `lo` of a __u32 */
	T_COUNT,      /* whole number, K/M allowed, lo..hi, __u32 */
	T_UINT,       /* plain whole number lo..hi, __u32 */
	T_RATE,       /* bit/s, __u64 */
	T_GAMMA,      /* fraction in millionths, __u32 */
	T_BYTES,      /* bytes, K/M allowed, at least lo, __u32 */
	T_PMAX,       /* probability in 2^-32 units, __u32 */
	T_DURATION,   /* ns lo..hi, __u64 (KF_U32: __u32) */
	T_Q32,        /* fraction in 2^-32 units, __u64; hi = 1: 1 allowed */
	T_DCQCN_B,    /* plain bytes, __u64 */
	T_ADDR4,      /* IPv4 address, 4 bytes; sets the bool at flag_off */
	T_ADDR6,      /* IPv6 address, 16 bytes; sets the bool at flag_off */
	T_SPECIAL,    /* read by the parser itself (names, lists, routes) */
};

#define KF_LEAF_ONLY   0x01 /* [port] keys a host-mode [port] does not take */
#define KF_PAPER_ONLY  0x02 /* [dcqcn]: only the paper variant has it */
#define KF_NVIDIA_ONLY 0x04 /* [dcqcn]: only the nvidia variant has it */
#define KF_AUTO        0x08 /* takes `auto`: the bool at flag_off, value dflt */
#define KF_U32         0x10 /* T_DURATION into a __u32 */
#define KF_KEY_PREFIX  0x20 /* messages start "key: " (the parser's own
			     * message does not name the key) */
#define KF_UPLINK_ONLY 0x40 /* [port]: only on uplinks (an error on a downlink) */
#define KF_NEEDS_RATE  0x80 /* [port]: has no effect without rate (an error) */
#define KF_SAFE_MOVES  0x100 /* [group]: only where moves follow the reorder-free
			      * rule: spray only with spray_reorder = safe */
#define KF_JSON_IF_USED 0x200 /* [group]: in JSON only where lb_mode uses it */
#define KF_LOADER_FILLS 0x400 /* its map field is the loader's (a conversion
			       * xl_keys_fill does not make); shown as is */

/* The map struct (include/) a key's value reaches the dataplane in, when
 * the loader copies it as it is (xl_keys_fill). */
enum xl_map_obj {
	XL_OBJ_NONE,
	XL_OBJ_SETTINGS,  /* struct xl_settings ([xdpleaf]) */
	XL_OBJ_EVENT_CFG, /* struct xl_event_cfg ([xdpleaf]) */
	XL_OBJ_PORT,      /* struct xl_port */
	XL_OBJ_GROUP,     /* struct xl_group */
};

struct xl_key_def {
	enum xl_sect sect;
	const char *name;
	enum xl_key_type type;
	__u64 lo, hi;                /* range (T_BYTES: lo only; T_FLAG, T_NO_FLAG: bit) */
	const char *const *choices;  /* T_CHOICE, n_choices words */
	__u32 n_choices;
	size_t off;                  /* field in the section's struct: below */
	size_t flag_off;             /* KF_AUTO / T_ADDR*: the bool to set */
	/* the default (KF_AUTO: `auto`, standing for dflt; T_YES_NO,
	 * T_FLAG, T_NO_FLAG: 1 yes, 0 no); [dcqcn]'s are the variant's instead */
	__u64 dflt;
	unsigned int flags;
	/* where the loader copies the value: the map struct, the field's
	 * offset and size; map_flag_*: where the bool at flag_off goes */
	enum xl_map_obj map;
	size_t map_off, map_size, map_flag_off, map_flag_size;
	__u32 lb_modes;              /* [group]: 1 << the lb_modes it acts in; 0 all */
	const char *json, *json_flag; /* names in JSON (default: name; none) */
	/* docs/config.md's columns, exactly: default (for [dcqcn], the paper
	 * variant's; doc_nvidia the nvidia one's) and values; a choice's and
	 * a yes/no's come from choices and dflt where not given */
	const char *doc_default, *doc_nvidia, *doc_values;
};

/* The struct a section's keys set: [xdpleaf] struct xl_config, [port]
 * struct xl_cfg_port, [group] struct xl_cfg_group, [class] struct xl_wred,
 * [dcqcn] struct xl_host_cfg; [route] keys are T_SPECIAL. */
extern const struct xl_key_def xl_keys[K_COUNT];

/* Whether k is a yes/no that sets or clears a bit (T_FLAG, T_NO_FLAG). */
static inline bool xl_key_is_flag(const struct xl_key_def *k)
{
	return k->type == T_FLAG || k->type == T_NO_FLAG;
}

/* A flag key's yes or no, as the bits in word say it. */
static inline bool xl_key_flag_yes(const struct xl_key_def *k, __u32 word)
{
	return !(word & k->lo) == (k->type == T_NO_FLAG);
}

/* The bytes of the key's field (4 or 8; T_ADDR*, T_SPECIAL: 0). */
size_t xl_key_size(const struct xl_key_def *k);
/* The key of that section and name, or K_COUNT. */
enum xl_key_id xl_key_find(enum xl_sect sect, const char *name);

/* Read value into the key's field of obj (the section's struct). 0, or -1
 * with the message (without file and line) in msg. T_SPECIAL: -1. */
int xl_key_parse(const struct xl_key_def *k, const char *value, void *obj,
		 char *msg, size_t msglen);

/* `xdpleaf sim dcqcn --set KEY=VALUE`: a [dcqcn] RP parameter of h's
 * variant, read as the configuration reads it. 0, or -1 with msg. */
int xl_dcqcn_set(struct xl_host_cfg *h, const char *kv, char *msg, size_t msglen);

/* Every key of sect at its default in obj, the section's struct
 * ([dcqcn]: none, xl_host_defaults). */
void xl_keys_defaults(enum xl_sect sect, void *obj);

/* Into map (a struct of kind m), every key's value from obj, the struct
 * of its section, that the table says reaches m as it is. */
void xl_keys_fill(enum xl_map_obj m, const void *obj, void *map);

/* A map field of key k (its size 1, 2, 4 or 8), widened; 0 for an
 * address. Read byte-wise, so map need not be aligned. */
__u64 xl_key_map_value(const struct xl_key_def *k, const void *map);
/* The map's flag beside key k's field (map_flag_off), or false if none. */
bool xl_key_map_flag(const struct xl_key_def *k, const void *map);

/* Whether [group] key k acts with lb_mode; for KF_SAFE_MOVES also
 * whether spray moves safely (spray_reorder). */
bool xl_key_acts(const struct xl_key_def *k, __u32 lb_mode, __u32 spray_reorder);

/* The keys of sect, ", "-separated (without the leaf-only ones for a
 * host), as "allowed:" lists them. */
void xl_keys_list(enum xl_sect sect, bool host, char *buf, size_t len);

/* The key reference: per section, one markdown row per key with the
 * columns docs/config.md has (key, default(s), values). */
void xl_keys_print(FILE *f);

#endif
