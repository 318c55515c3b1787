/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The metrics the exporter serves, one table row each (observe/metrics.c):
 * name, type, help and the JSON field of stats/flows/qps --json it comes
 * from. docs/metrics.md is checked against the table (--list-metrics) and
 * against what a scrape serves. */
#ifndef XL_METRICS_H
#define XL_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include "instance/pins.h"

struct json_object;

/* What one scrape read of one instance, as the readers return it. */
struct xl_scraped {
	char name[XL_INSTANCE_MAX];
	enum xl_inst_role role;      /* XL_INST_LEAF or XL_INST_HOST */
	struct json_object *stats;   /* stats --json (either mode) */
	struct json_object *more;    /* leaf: flows --json; host: qps --json */
	bool ok;                     /* every read succeeded: xdpleaf_up */
};

/* Every family that has a sample, the instances in the order given, and
 * the exporter's own from read: {began, duration} of the read that made
 * inst, in seconds (Unix time, and how long); NULL: none. */
void xl_metrics_write(FILE *f, const struct xl_scraped *inst, int n,
		      struct json_object *read);
/* The table as markdown rows, as docs/metrics.md has them: | `name` |
 * type | labels | help |. */
void xl_metrics_list(FILE *f);
/* The table's own checks, for the unit tests: names valid and unique,
 * counters ending in _total, every row's JSON field given. 0 or the first
 * offending row's name in *bad. */
int xl_metrics_table_check(const char **bad);

#endif
