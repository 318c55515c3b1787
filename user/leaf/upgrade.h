/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf upgrade` of a leaf instance: this build's program on every
 * XDP link (bpf_link_update), every pinned map kept (instance/upgrade.h). */
#ifndef XL_LEAF_UPGRADE_H
#define XL_LEAF_UPGRADE_H

/* 0, or -1 after saying why (then the instance runs as before). */
int xl_leaf_upgrade(const char *instance);

#endif
