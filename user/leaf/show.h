/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Read-only commands over a leaf-mode instance's pinned maps: table or
 * JSON. The caller (main.c) has checked that the instance is loaded and in
 * leaf mode. */
#ifndef XL_LEAF_SHOW_H
#define XL_LEAF_SHOW_H

#include <stdbool.h>

/* 0, or -1 on error. */
int xl_leaf_status(const char *instance, bool json);
int xl_leaf_stats(const char *instance, bool json);
/* stats --json's object (without the document's header, output.h), or
 * NULL after saying why: for the exporter and top too. */
struct json_object;
struct json_object *xl_leaf_stats_json(const char *instance);
/* The same without flow_table, whose entry count walks the whole flow
 * table: for a reader that has it from flows --json's walk. */
struct json_object *xl_leaf_stats_no_flow_table_json(const char *instance);
int xl_leaf_routes(const char *instance, bool json);
int xl_leaf_neigh(const char *instance, bool json);

#endif
