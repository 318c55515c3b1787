/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What every read-only command shares, in either mode: the JSON printer,
 * the dataplane's clock, the "not loaded" exit code and status --json's
 * about-block. */
#ifndef XL_OUTPUT_H
#define XL_OUTPUT_H

#include <stdbool.h>
#include <linux/types.h>

/* status of an instance that is not loaded: the exit code, as
 * systemctl's "not running" (an error is 1, bad usage 2). */
#define XL_EXIT_NOT_LOADED 3

struct json_object;
/* Print o pretty (slashes unescaped) and release it. */
void xl_print_json(struct json_object *o);
/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock, for ages of map
 * entries. */
__u64 xl_monotonic_ns(void);
/* The version of xdpleaf, and who loaded the instance and in which
 * network namespace, into status --json's root object (both modes). */
void xl_status_json_about(struct json_object *root, const char *instance);
/* `status` of an instance that is not loaded: says so (JSON: loaded
 * false, with the about-block) and returns XL_EXIT_NOT_LOADED. */
int xl_status_not_loaded(const char *instance, bool json);

#endif
