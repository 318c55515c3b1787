/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Who holds an interface's XDP hook (or a leaf's tc ingress), and how
 * to free it. */
#ifndef XL_XDP_OWNER_H
#define XL_XDP_OWNER_H

#include <linux/types.h>

/* Say (an error, base/log.h) what is attached to the XDP
 * hook of ifname/ifindex and the command that frees it: `xdpleaf unload`
 * for an xdpleaf instance, `ip link set dev X xdp... off` for a program
 * attached over netlink, and for someone else's BPF link, which netlink
 * cannot detach, how to find its owner. */
void xl_explain_xdp_busy(const char *ifname, __u32 ifindex);

/* The leaf instance whose program runs on ifindex (this namespace's) at
 * XDP or at tc ingress, into buf, and where ("XDP", "tc ingress"); NULL
 * if none. Two leaves on one port would each hide packets from the other
 * (the first program's verdict is final), whatever their hooks. */
const char *xl_port_leaf_instance(__u32 ifindex, char *buf, size_t len);

#endif
