/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Private to the configuration's two halves, reading (config.c) and the
 * checks a section or the whole file must pass (config_check.c): the parse
 * context they share and its error helpers (config_parse.c). Not for any
 * other file. */
#ifndef XL_CONFIG_PARSE_H
#define XL_CONFIG_PARSE_H

#include <stdbool.h>
#include <stdio.h>
#include "config/config.h"
#include "config/config_keys.h"

/* Built-in classes (docs/config.md): ids and DSCPs (their marking
 * profile is the [class] keys' defaults, config/key_table.h). */
#define CLASS_CNP XL_CLASS_CNP
#define CNP_DSCP 48
#define CLASS_ROCE XL_CLASS_ROCE
#define ROCE_DSCP 26 /* RoCEv2 data's usual DSCP (NVIDIA's default; gen's) */
#define N_BUILTIN_CLASSES 3
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
	enum xl_sect sect;         /* section being read */
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

/* Records the first error only (later ones are usually consequences);
 * returns 0, what inih's handler returns to stop. */
__attribute__((format(printf, 3, 4)))
int cfg_fail(struct ctx *c, int line, const char *fmt, ...);
/* "10.0.0.0/8" of a route, for messages. */
void cfg_prefix_str(const struct xl_cfg_route *r, char *buf, size_t len);

#endif
