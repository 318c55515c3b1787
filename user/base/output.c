// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "xdpleaf.h"
#include "base/output.h"

json_object *xl_json_doc(const char *kind, json_object *o)
{
	json_object *doc = json_object_new_object();
	struct timespec ts;
	char when[40];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ",
		 ts.tv_nsec / 1000000);
	json_object_object_add(doc, "schema_version", json_object_new_int(XL_JSON_SCHEMA_VERSION));
	json_object_object_add(doc, "kind", json_object_new_string(kind));
	json_object_object_add(doc, "time", json_object_new_string(when));
	if (!json_object_is_type(o, json_type_object)) {
		json_object_object_add(doc, kind, o);
		return doc;
	}
	json_object_object_foreach(o, key, val)
		json_object_object_add(doc, key, json_object_get(val));
	json_object_put(o);
	return doc;
}

void xl_print_json(const char *kind, json_object *o)
{
	json_object *doc = xl_json_doc(kind, o);

	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

json_object *xl_json_hist_le(int n)
{
	json_object *a = json_object_new_array();

	for (int b = 0; b < n; b++)
		json_object_array_add(a, xl_qhist_le(b) == ~0ULL ? NULL :
				      json_object_new_uint64(xl_qhist_le(b)));
	return a;
}
