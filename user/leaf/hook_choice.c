// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <linux/ethtool.h>
#include "netlink/ethtool.h"
#include "leaf/hook_choice.h"

/* The port's driver as ethtool names it ("veth", "mlx5_core", ...); false
 * if it cannot be read (then it is not taken for a veth). */
static bool driver_name(const char *ifname, char *out, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };

	if (xl_ethtool(ifname, &info))
		return false;
	snprintf(out, len, "%s", info.driver);
	return true;
}

enum xl_hook xl_leaf_hook_choice(const struct xl_config *cfg, char *why, size_t len)
{
	char drv[sizeof(((struct ethtool_drvinfo *)0)->driver)];

	why[0] = '\0';
	if (cfg->hook != XL_HOOK_AUTO)
		return cfg->hook;
	for (int i = 0; i < cfg->n_ports; i++) {
		if (driver_name(cfg->ports[i].ifname, drv, sizeof(drv)) &&
		    !strcmp(drv, "veth")) {
			snprintf(why, len, "%s is a veth", cfg->ports[i].ifname);
			return XL_HOOK_AT_TC;
		}
	}
	return XL_HOOK_AT_XDP;
}
