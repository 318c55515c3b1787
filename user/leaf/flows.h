/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf flows`: the flow table, busiest first, with each flow's uplink. */
#ifndef XL_FLOWS_H
#define XL_FLOWS_H

#include <stdbool.h>

/* The rate of each flow is what it sent over interval_ms, measured by
 * reading the table twice (0: the dataplane's last 10 ms window). */
#define XL_FLOWS_DEFAULT_INTERVAL_MS 200
int xl_leaf_flows(const char *instance, int top, unsigned interval_ms, bool json);
/* flows --json's object ({instance, rate_interval_ms, flows: [...]},
 * without the document's header), or NULL after saying why. */
struct json_object;
struct json_object *xl_leaf_flows_json(const char *instance, int top,
				       unsigned interval_ms);

/* The flow table's capacity, entries now, entries created and, from
 * those, evicted by the LRU ({capacity, entries, created, evicted}). */
struct json_object *xl_flow_table_json(const char *instance);

#endif
