// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "common/names.h"

/* Indexed by enum xl_reason; a missing entry is a compile error below. */
const char *const xl_reason_names[XL_REASON_MAX] = {
	[XL_R_FORWARDED] = "forwarded",
	[XL_R_ARP] = "arp",
	[XL_R_LLDP] = "lldp",
	[XL_R_NON_IP] = "non_ip",
	[XL_R_VLAN_STACK] = "vlan_stack",
	[XL_R_NOT_OUR_MAC] = "not_our_mac",
	[XL_R_ND] = "nd",
	[XL_R_LINK_LOCAL] = "link_local",
	[XL_R_TTL_EXPIRED] = "ttl_expired",
	[XL_R_NO_ROUTE] = "no_route",
	[XL_R_NO_NEIGH] = "no_neigh",
	[XL_R_NO_MEMBER] = "no_member",
	[XL_R_UNKNOWN_PORT] = "unknown_port",
	[XL_R_REDIRECT_FAILED] = "redirect_failed",
	[XL_R_TAIL_DROP] = "tail_drop",
	[XL_R_TRUNC_ETH] = "trunc_eth",
	[XL_R_TRUNC_VLAN] = "trunc_vlan",
	[XL_R_TRUNC_IP4] = "trunc_ip4",
	[XL_R_BAD_IP4] = "bad_ip4",
	[XL_R_TRUNC_IP6] = "trunc_ip6",
	[XL_R_BAD_IP6] = "bad_ip6",
	[XL_R_TRUNC_L4] = "trunc_l4",
	[XL_R_TRUNC_BTH] = "trunc_bth",
};
_Static_assert(XL_R_TRUNC_BTH + 1 == XL_REASON_MAX,
	       "a new xl_reason needs a name in xl_reason_names");

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
