/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The settings a map entry holds, shown by the key table
 * (config/key_table.h): every key whose value the loader puts into that
 * kind of map struct, under its JSON name, or as "key value" text. What
 * stats --json and status print of a group's or a port's settings. */
#ifndef XL_CONFIG_KEY_SHOW_H
#define XL_CONFIG_KEY_SHOW_H

#include <stddef.h>
#include <json-c/json.h>
#include "config/config_keys.h"

/* Into o, the settings of map (a struct of kind m): a choice as its word,
 * yes/no as a boolean, an address (if set) as text, else the number; the
 * auto flag under json_flag. A name o has already is left as it is;
 * KF_JSON_IF_USED keys only where the group's lb_mode uses them. */
void xl_keys_json(enum xl_map_obj m, const void *map, json_object *o);

/* The same as one line of "key value" pairs, ", "-separated, in the
 * configuration's units ("lb_mode flowlet, flowlet_timeout 3ms (auto)"). */
void xl_keys_text(enum xl_map_obj m, const void *map, char *buf, size_t len);

#endif
