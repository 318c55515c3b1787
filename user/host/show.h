/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Read-only commands over a host-mode instance's pins (DCQCN NP and RP at
 * tc, docs/dcqcn.md): status, stats and the per-QP listing `xdpleaf qps`.
 * Table or JSON, like user/leaf/show.c does for leaf mode. */
#ifndef XL_HOST_SHOW_H
#define XL_HOST_SHOW_H

#include <stdbool.h>

/* The caller (main.c) has checked that the instance is loaded in host
 * mode. 0, or -1 on error. */
int xl_host_status(const char *instance, bool json);
int xl_host_stats(const char *instance, bool json);
/* `xdpleaf qps`: NP flows (most CE-marked first) and RP flows (lowest Rc,
 * i.e. most throttled, first); top > 0 keeps the first top of each. */
int xl_host_qps(const char *instance, int top, bool json);
/* stats --json's and qps --json's objects (without the document's header,
 * base/output.h), or NULL after saying why: for the exporter and top. */
struct json_object;
struct json_object *xl_host_stats_json(const char *instance);
struct json_object *xl_host_qps_json(const char *instance, int top);

#endif
