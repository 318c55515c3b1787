// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* An XDP hook is held either by a program attached over netlink, which
 * `ip link set dev X xdp off` detaches, or by a BPF link, which netlink
 * cannot touch (the kernel refuses): only closing the link, i.e. its last
 * fd and pin, detaches it. xdpleaf attaches with links, so its instances
 * are found by their pinned program and freed with `xdpleaf unload`. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/pins.h"
#include "instance/xdp_owner.h"

/* The instance that pinned this program as `pin`, into buf; false if
 * none. */
static bool owner_instance(__u32 prog_id, const char *pin, char *buf, size_t len)
{
	DIR *d;
	struct dirent *de;
	bool found = false;

	if (!prog_id) /* no program: an instance without the pin reads 0 too */
		return false;
	d = opendir(XL_PIN_ROOT);
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || xl_pinned_prog_id(de->d_name, pin) != prog_id)
			continue;
		snprintf(buf, len, "%s", de->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/* Id of the BPF link attaching prog_id to ifindex's XDP hook, 0 if it is
 * attached over netlink. */
static __u32 xdp_link_id(__u32 prog_id, __u32 ifindex)
{
	__u32 id = 0, found = 0;

	while (!found && bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    info.type == BPF_LINK_TYPE_XDP && info.prog_id == prog_id &&
		    info.xdp.ifindex == ifindex)
			found = id;
		close(fd);
	}
	return found;
}

static void prog_name(__u32 prog_id, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id);

	snprintf(buf, len, "?");
	if (fd < 0)
		return;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0)
		snprintf(buf, len, "%s", info.name);
	close(fd);
}

void xl_explain_xdp_busy(const char *ifname, __u32 ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	char inst[256], name[BPF_OBJ_NAME_LEN + 1];
	const char *ip_mode = "xdp";
	__u32 prog, link;

	if (bpf_xdp_query(ifindex, 0, &q) || !(q.prog_id | q.drv_prog_id |
					       q.skb_prog_id | q.hw_prog_id)) {
		xl_err("%s: another XDP program is already attached "
		       "(see: bpftool net show dev %s)", ifname, ifname);
		return;
	}
	prog = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id :
	       q.skb_prog_id ? q.skb_prog_id : q.hw_prog_id;
	if (owner_instance(prog, XL_PIN_PROG_LEAF, inst, sizeof(inst))) {
		xl_err("%s: held by xdpleaf instance '%s' (XDP program "
		       "id %u); unload it first: xdpleaf unload --instance %s",
		       ifname, inst, prog, inst);
		return;
	}
	prog_name(prog, name, sizeof(name));
	link = xdp_link_id(prog, ifindex);
	if (link) {
		xl_err("%s: another XDP program (id %u, %s) is already "
		       "attached, with a BPF link (id %u) that 'ip link set dev %s "
		       "xdp off' cannot detach; it goes when its owner closes it "
		       "and its pins are removed (see: bpftool -f link show id %u)",
		       ifname, prog, name, link, ifname, link);
		return;
	}
	/* Over netlink, in the mode it was attached in: `xdp off` alone
	 * would address native mode and leave a generic-mode program. */
	if (q.attach_mode == XDP_ATTACHED_SKB ||
	    (q.attach_mode == XDP_ATTACHED_MULTI && prog == q.skb_prog_id))
		ip_mode = "xdpgeneric";
	else if (q.attach_mode == XDP_ATTACHED_HW)
		ip_mode = "xdpoffload";
	xl_err("%s: another XDP program (id %u, %s) is already "
	       "attached; detach it first (ip link set dev %s %s off)",
	       ifname, prog, name, ifname, ip_mode);
}

const char *xl_port_leaf_instance(__u32 ifindex, char *buf, size_t len)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 ids[64], cnt = 64;

	if (!bpf_xdp_query(ifindex, 0, &q) &&
	    (owner_instance(q.drv_prog_id, XL_PIN_PROG_LEAF, buf, len) ||
	     owner_instance(q.skb_prog_id, XL_PIN_PROG_LEAF, buf, len)))
		return "XDP";
	/* tcx's query takes the ifindex where other hooks take an fd */
	if (bpf_prog_query(ifindex, XL_TCX_INGRESS, 0, NULL, ids, &cnt))
		return NULL;
	for (__u32 i = 0; i < cnt; i++)
		if (owner_instance(ids[i], XL_PIN_PROG_LEAF_TC, buf, len))
			return "tc ingress";
	return NULL;
}
