/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Read-only commands over an instance's pinned maps: table or JSON. */
#ifndef XL_SHOW_H
#define XL_SHOW_H

#include <stdbool.h>

/* status of an instance that is not loaded: the exit code, as
 * systemctl's "not running" (an error is 1, bad usage 2). */
#define XL_EXIT_NOT_LOADED 3

/* 0, -1 on error, or XL_EXIT_NOT_LOADED. */
int xl_show_status(const char *instance, bool json);
int xl_show_stats(const char *instance, bool json);
int xl_show_routes(const char *instance, bool json);
int xl_show_neigh(const char *instance, bool json);

/* The version of xdpleaf, and who loaded the instance and in which
 * network namespace, into status --json's root object (both modes). */
struct json_object;
void xl_status_json_about(struct json_object *root, const char *instance);

#endif
