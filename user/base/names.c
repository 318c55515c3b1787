// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "base/names.h"

/* Indexed by enum xl_reason: the field names of struct xl_reason_counts. */
const char *const xl_reason_names[XL_REASON_MAX] = {
#define XL_REASON_NAME(U, l) [XL_R_##U] = #l,
	XL_REASONS(XL_REASON_NAME)
#undef XL_REASON_NAME
};

/* Indexed by enum xl_event_kind: `xdpleaf events --kind` words. */
const char *const xl_event_kind_names[XL_EVENT_KIND_MAX] = {
#define XL_EVENT_NAME(U, l) [XL_EV_##U] = #l,
	XL_EVENT_KINDS(XL_EVENT_NAME)
#undef XL_EVENT_NAME
};

/* Indexed by XDP action: XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX,
 * XDP_REDIRECT. */
const char *const xl_verdict_names[XL_VERDICT_MAX] = {
	"aborted", "drop", "pass", "tx", "redirect",
};

/* Indexed by enum xl_spray_reorder: the config's words too. */
const char *const xl_spray_reorder_names[XL_SPRAY_REORDERS] = {
	[XL_SPRAY_FREE] = "free",
	[XL_SPRAY_SAFE] = "safe",
};

/* Indexed by enum xl_port_role and enum xl_lb_mode: the config's words
 * too. */
const char *const xl_role_names[2] = {
	[XL_ROLE_DOWNLINK] = "downlink",
	[XL_ROLE_UPLINK] = "uplink",
};
const char *const xl_lb_mode_names[XL_LB_MODES] = {
	[XL_LB_HASH] = "hash",
	[XL_LB_FLOWLET] = "flowlet",
	[XL_LB_FLOWLET_RANDOM] = "flowlet-random",
	[XL_LB_SPRAY] = "spray",
};

const char *xl_role_name(__u32 role)
{
	return role == XL_ROLE_UPLINK ? xl_role_names[XL_ROLE_UPLINK]
				      : xl_role_names[XL_ROLE_DOWNLINK];
}

const char *xl_lb_mode_name(__u32 mode)
{
	return mode < XL_LB_MODES && xl_lb_mode_names[mode] ? xl_lb_mode_names[mode] : "unknown";
}
