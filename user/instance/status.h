/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What `status` says of any instance, in either mode: who loaded it and in
 * which network namespace (status --json's about-block), and the answer
 * for one that is not loaded. */
#ifndef XL_STATUS_H
#define XL_STATUS_H

#include <stdbool.h>
#include "base/output.h"

struct json_object;
/* The version of xdpleaf, and who loaded the instance and in which
 * network namespace, into status --json's root object (both modes). */
void xl_status_json_about(struct json_object *root, const char *instance);
/* `status` of an instance that is not loaded: says so (JSON: loaded
 * false, with the about-block) and returns XL_EXIT_NOT_LOADED. */
int xl_status_not_loaded(const char *instance, bool json);

#endif
