// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "xdpleaf.h"
#include "base/output.h"
#include "base/version.h"
#include "instance/pins.h"
#include "instance/status.h"

void xl_status_json_about(json_object *root, const char *instance)
{
	struct xl_instance rec;
	json_object *o;

	json_object_object_add(root, "version", json_object_new_string(xl_version));
	json_object_object_add(root, "git_commit", json_object_new_string(xl_git_commit));
	if (!xl_read_instance_record(instance, &rec))
		return;
	o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(rec.version));
	json_object_object_add(o, "git_commit", json_object_new_string(rec.git_commit));
	json_object_object_add(root, "loaded_by", o);
	o = json_object_new_object();
	json_object_object_add(o, "inode", json_object_new_uint64(rec.netns_ino));
	json_object_object_add(o, "name", json_object_new_string(rec.netns_name));
	json_object_object_add(root, "netns", o);
}

int xl_status_not_loaded(const char *instance, bool json)
{
	json_object *root;

	if (json) {
		root = json_object_new_object();
		json_object_object_add(root, "instance", json_object_new_string(instance));
		json_object_object_add(root, "loaded", json_object_new_boolean(0));
		xl_status_json_about(root, instance);
		xl_print_json("status", root);
	} else {
		printf("instance %s: not loaded\n", instance);
	}
	return XL_EXIT_NOT_LOADED;
}
