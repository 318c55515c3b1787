/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf upgrade` of a host instance: this build's programs on every tcx
 * link (bpf_link_update), every pinned map kept (instance/upgrade.h). */
#ifndef XL_HOST_UPGRADE_H
#define XL_HOST_UPGRADE_H

/* 0, or -1 after saying why (then the instance runs as before). */
int xl_host_upgrade(const char *instance);

#endif
