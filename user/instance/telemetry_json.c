// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include "pin_names.h"
#include "events.h"
#include "telemetry.h"
#include "base/map_walk.h"
#include "base/names.h"
#include "base/percpu.h"
#include "instance/pins.h"
#include "instance/telemetry_json.h"

/* A pinned map of the instance, quietly: -1 if it has none. */
static int open_quiet(const char *instance, const char *map)
{
	char path[256];

	xl_pin_path(path, sizeof(path), instance, map);
	return bpf_obj_get(path);
}

json_object *xl_event_counts_json(const char *instance)
{
	int fd = open_quiet(instance, XL_MAP_NAME(XL_MAP_EVENT_COUNTS));
	json_object *o;

	if (fd < 0)
		return NULL;
	o = json_object_new_object();
	for (__u32 k = 0; k < XL_EVENT_KIND_MAX; k++) {
		struct xl_event_counts c;
		json_object *e;

		if (xl_percpu_sum_u64(fd, &k, sizeof(c), &c))
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "emitted", json_object_new_uint64(c.emitted));
		json_object_object_add(e, "limited", json_object_new_uint64(c.limited));
		json_object_object_add(e, "ring_full", json_object_new_uint64(c.ring_full));
		json_object_object_add(o, xl_event_kind_names[k], e);
	}
	close(fd);
	return o;
}

static void add_psn(const void *key, const void *value, void *ctx)
{
	const struct xl_psn_state *s = value;
	struct xl_psn_state *t = ctx;

	(void)key;
	t->packets += s->packets;
	t->gaps += s->gaps;
	t->missing += s->missing;
	t->old += s->old;
	t->naks += s->naks;
	t->rnr_naks += s->rnr_naks;
}

json_object *xl_psn_totals_json(const char *instance)
{
	int fd = open_quiet(instance, XL_MAP_NAME(XL_MAP_PSN));
	struct xl_psn_state t = {};
	json_object *o;
	long flows;

	if (fd < 0)
		return NULL;
	flows = xl_map_walk(fd, XL_MAP_NAME(XL_MAP_PSN), sizeof(struct xl_flow),
			    sizeof(struct xl_psn_state), add_psn, &t);
	close(fd);
	if (flows < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "flows", json_object_new_uint64(flows));
	json_object_object_add(o, "packets", json_object_new_uint64(t.packets));
	json_object_object_add(o, "gaps", json_object_new_uint64(t.gaps));
	json_object_object_add(o, "missing", json_object_new_uint64(t.missing));
	json_object_object_add(o, "old", json_object_new_uint64(t.old));
	json_object_object_add(o, "naks", json_object_new_uint64(t.naks));
	json_object_object_add(o, "rnr_naks", json_object_new_uint64(t.rnr_naks));
	return o;
}

void xl_telemetry_print(const char *instance)
{
	json_object *ev = xl_event_counts_json(instance);
	json_object *psn = xl_psn_totals_json(instance);

	if (ev) {
		printf("events (written / rate-limited / ring full):");
		json_object_object_foreach(ev, kind, c) {
			__u64 e = json_object_get_uint64(json_object_object_get(c, "emitted"));
			__u64 l = json_object_get_uint64(json_object_object_get(c, "limited"));
			__u64 f = json_object_get_uint64(json_object_object_get(c, "ring_full"));

			if (e || l || f)
				printf(" %s %llu/%llu/%llu", kind, e, l, f);
		}
		printf("\n");
		json_object_put(ev);
	}
	if (psn) {
		printf("roce psn: %llu flows, %llu packets, %llu gaps (%llu PSNs missing), "
		       "%llu old, %llu NAKs, %llu RNR NAKs\n",
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "flows")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "packets")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "gaps")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "missing")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "old")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "naks")),
		       (unsigned long long)json_object_get_uint64(json_object_object_get(psn, "rnr_naks")));
		json_object_put(psn);
	}
}
