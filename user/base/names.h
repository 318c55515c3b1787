/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Printable names for the dataplane's enums, as used in tables, JSON and
 * metric labels. */
#ifndef XL_NAMES_H
#define XL_NAMES_H

#include <linux/types.h>
#include "xdpleaf.h"
#include "events.h"

extern const char *const xl_reason_names[XL_REASON_MAX];
extern const char *const xl_verdict_names[XL_VERDICT_MAX];
extern const char *const xl_event_kind_names[XL_EVENT_KIND_MAX];
extern const char *const xl_spray_reorder_names[XL_SPRAY_REORDERS];
extern const char *const xl_role_names[2];
extern const char *const xl_lb_mode_names[XL_LB_MODES];
const char *xl_role_name(__u32 role);
const char *xl_lb_mode_name(__u32 mode);

#endif
