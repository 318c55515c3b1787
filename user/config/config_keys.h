/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The configuration's schema: every key once, with its section, type,
 * range, the struct field it sets, its default and values as docs/config.md
 * shows them. The parser (user/config/config.c), `xdpleaf sim dcqcn --set`
 * and `xdpleaf keys` (the reference tests/lab/config.bats compares with
 * docs/config.md) all read this one table. (As xdp-tools' DEFINE_OPTION
 * tables in lib/util/params.h.) */
#ifndef XL_CONFIG_KEYS_H
#define XL_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "config/config.h"

enum xl_sect { S_NONE, S_XDPLEAF, S_PORT, S_GROUP, S_ROUTE, S_CLASS, S_DCQCN, S_COUNT };
extern const char *const xl_sect_names[S_COUNT];

/* Every key; the enum indexes xl_keys (and the parser's duplicate check). */
enum xl_key_id {
	K_MODE, K_MALFORMED, K_XDP_MODE, K_HOOK, K_FLOW_TABLE_SIZE,
	K_EVENT_RATE, K_MARK_EVENT_SAMPLE, K_PFC_WATCHDOG,
	K_ROLE, K_PGROUP, K_NH4, K_NH6, K_RATE, K_GAMMA, K_BUFFER, K_OVERFLOW, K_LINE_OVERHEAD,
	K_VLANS, K_PSN_TRACKING,
	K_LB_MODE, K_FLOWLET_TIMEOUT, K_PATH_SKEW, K_SPRAY_REORDER,
	K_RPORT, K_RGROUP,
	K_DSCP, K_KMIN, K_KMAX, K_PMAX, K_MARK, K_DROP,
	K_VARIANT, K_NP, K_RP, K_CNP_INTERVAL, K_CNP_SCOPE, K_CNP_DSCP, K_CNP_PORT_RATE,
	K_G, K_ALPHA_FIRST, K_K, K_T, K_T_DEC, K_B, K_F, K_CLAMP,
	K_R_AI, K_R_HAI, K_MIN_RATE,
	K_COUNT
};

/* How a value is read (user/base/units.h has the parsers). */
enum xl_key_type {
	T_CHOICE,     /* one of choices[]: its index, __u32 */
	T_YES_NO,     /* yes -> 1, no -> 0, __u32 */
	T_NO_FLAG,    /* yes clears, no sets the bit `lo` of a __u32 */
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

struct xl_key_def {
	enum xl_sect sect;
	const char *name;
	enum xl_key_type type;
	__u64 lo, hi;                /* range (T_BYTES: lo only; T_NO_FLAG: bit) */
	const char *const *choices;  /* T_CHOICE, n_choices words */
	__u32 n_choices;
	size_t off;                  /* field in the section's struct: below */
	size_t flag_off;             /* KF_AUTO / T_ADDR*: the bool to set */
	__u64 dflt;                  /* KF_AUTO: the value `auto` stands for */
	unsigned int flags;
	/* docs/config.md's columns, exactly: default (for [dcqcn], the paper
	 * variant's; doc_nvidia the nvidia one's) and values */
	const char *doc_default, *doc_nvidia, *doc_values;
};

/* The struct a section's keys set: [xdpleaf] struct xl_config, [port]
 * struct xl_cfg_port, [group] struct xl_cfg_group, [class] struct xl_wred,
 * [dcqcn] struct xl_host_cfg; [route] keys are T_SPECIAL. */
extern const struct xl_key_def xl_keys[K_COUNT];

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

/* The key reference: per section, one markdown row per key with the
 * columns docs/config.md has (key, default(s), values). */
void xl_keys_print(FILE *f);

#endif
