/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What every read-only command shares, in either mode: the JSON printer,
 * the dataplane's clock (base/clock.h) and the "not loaded" exit code.
 * (status --json's about-block, which reads the instance, is
 * instance/status.h.) */
#ifndef XL_OUTPUT_H
#define XL_OUTPUT_H

#include <stdbool.h>
#include <linux/types.h>
#include "base/clock.h"

/* status of an instance that is not loaded: the exit code, as
 * systemctl's "not running" (an error is 1, bad usage 2). */
#define XL_EXIT_NOT_LOADED 3

struct json_object;
/* The version of every --json document's layout: raised when a field
 * changes meaning or goes away (new fields do not raise it). */
#define XL_JSON_SCHEMA_VERSION 2
/* Print o pretty (slashes unescaped) as a document of the given kind
 * ("stats", "flows", ...) and release it: an object gets schema_version,
 * kind and time (UTC, RFC 3339, ms) first and its own fields after; any
 * other value (an array) goes under the key `kind`. */
void xl_print_json(const char *kind, struct json_object *o);
/* The same document, not printed: its fields added to a new object. */
struct json_object *xl_json_doc(const char *kind, struct json_object *o);
/* A histogram's upper bounds ("le", bytes) as a JSON array of n: the last
 * is null (no bound), as Prometheus' +Inf. */
struct json_object *xl_json_hist_le(int n);

#endif
