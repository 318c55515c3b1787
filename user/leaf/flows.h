/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf flows`: the flow table, busiest first, with each flow's uplink. */
#ifndef XL_FLOWS_H
#define XL_FLOWS_H

#include <stdbool.h>

int xl_leaf_flows(const char *instance, int top, bool json);

#endif
