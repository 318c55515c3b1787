/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The counters both modes keep beside their own: events (per kind:
 * emitted, rate-limited, ring full) and RoCE PSN telemetry (summed over
 * the flows the PSN table holds), as JSON for `stats --json`, the
 * exporter and top. */
#ifndef XL_TELEMETRY_JSON_H
#define XL_TELEMETRY_JSON_H

struct json_object;

/* {"drop": {"emitted": N, "limited": N, "ring_full": N}, ...}, or NULL
 * if the instance has no event maps (pinned by an older version). */
struct json_object *xl_event_counts_json(const char *instance);
/* {"flows": N, "packets", "gaps", "missing", "old", "naks", "rnr_naks"},
 * or NULL without a PSN table. */
struct json_object *xl_psn_totals_json(const char *instance);

/* Both as two text lines (stats without --json): the kinds that have
 * counts, the PSN totals. */
void xl_telemetry_print(const char *instance);

#endif
