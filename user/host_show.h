/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Read-only commands over a host-mode instance's pins (DCQCN NP and RP at
 * tc, docs/dcqcn.md): status, stats and the per-QP listing `xdpleaf qps`.
 * Table or JSON, like user/show.c does for leaf mode. */
#ifndef XL_HOST_SHOW_H
#define XL_HOST_SHOW_H

#include <stdbool.h>

enum xl_inst_mode {
	XL_INST_ABSENT = 0, /* nothing pinned under the instance's name */
	XL_INST_LEAF,
	XL_INST_HOST,
};

/* What kind of instance is loaded under this name: host mode pins
 * `host_cfg`, leaf mode never does. */
enum xl_inst_mode xl_instance_mode(const char *instance);

/* The host-mode counterparts of xl_show_status/xl_show_stats; the caller
 * has checked that the instance is loaded in host mode. */
int xl_host_show_status(const char *instance, bool json);
int xl_host_show_stats(const char *instance, bool json);
/* `xdpleaf qps`: NP flows (most CE-marked first) and RP flows (lowest Rc,
 * i.e. most throttled, first); top > 0 keeps the first top of each. */
int xl_show_qps(const char *instance, int top, bool json);

#endif
