/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* One ethtool request about an interface of this namespace. */
#ifndef XL_ETHTOOL_H
#define XL_ETHTOOL_H

/* req is a struct ethtool_* with its cmd set; the kernel fills it in.
 * 0, or -1 with errno (no such device, not supported, ...). */
int xl_ethtool(const char *ifname, void *req);

#endif
