/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The readers of an instance's state as JSON objects (stats --json,
 * flows --json, qps --json without the document's header). They live in
 * the mode rooms (leaf/, host/); main.c hands them to the rooms that
 * present state in other forms (the exporter, top), as the commands'
 * context (xl_cmd_ctx.env), so that rooms never include each other. Each
 * reader returns NULL after saying why. */
#ifndef XL_READERS_H
#define XL_READERS_H

struct json_object;

struct xl_readers {
	struct json_object *(*leaf_stats)(const char *instance);
	/* the same without flow_table, which counts its entries by reading
	 * the whole table: for a reader that takes it from leaf_flows,
	 * which reads the table anyway */
	struct json_object *(*leaf_stats_no_flow_table)(const char *instance);
	/* busiest first, at most top (0: all); rates over interval_ms (0:
	 * the dataplane's last 10 ms window, no wait); and flow_table, as
	 * leaf_stats has it, from the same read of the table */
	struct json_object *(*leaf_flows)(const char *instance, int top,
					  unsigned interval_ms);
	struct json_object *(*host_stats)(const char *instance);
	/* NP and RP flows, the first top of each (0: all) */
	struct json_object *(*host_qps)(const char *instance, int top);
	/* 0 when this process may open pinned maps, else -1 after saying
	 * why (asked after --help, which needs nothing) */
	int (*privileged)(void);
};

#endif
