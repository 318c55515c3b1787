/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Read-only commands over an instance's pinned maps: table or JSON. */
#ifndef XL_SHOW_H
#define XL_SHOW_H

#include <stdbool.h>

int xl_show_status(const char *instance, bool json);
int xl_show_stats(const char *instance, bool json);
int xl_show_routes(const char *instance, bool json);
int xl_show_neigh(const char *instance, bool json);

#endif
