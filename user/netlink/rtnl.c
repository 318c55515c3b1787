// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* rtnetlink queries for `xdpleaf gen` and `xdpleaf sink` (rtnl.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "netlink/rtnl.h"

/* States in which the kernel holds a usable link-layer address. */
#define USABLE_STATES (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | \
		       NUD_PERMANENT | NUD_NOARP)

static int alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* Send one request and run cb over the answer(s) until done. Returns 0, or
 * -1 with errno (the kernel's error for a failed request). */
static int rtnl_talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	unsigned int seq, portid;
	int ret, err = 0;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	seq = (unsigned int)time(NULL);
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0) {
			err = errno;
			break;
		}
		ret = mnl_cb_run(buf, ret, seq, portid, cb, data);
		if (ret < 0) {
			err = errno;
			break;
		}
		if (ret == MNL_CB_STOP)
			break;
		/* a non-dump request is answered by one message */
		if (!(nlh->nlmsg_flags & NLM_F_DUMP))
			break;
	}
out:
	mnl_socket_close(nl);
	errno = err;
	return err ? -1 : 0;
}

/* ---- routes ------------------------------------------------------------ */

struct route_req {
	int family;
	struct xl_route_info *out;
};

static int on_route(const struct nlmsghdr *nlh, void *data)
{
	struct route_req *r = data;
	struct rtmsg *rt = mnl_nlmsg_get_payload(nlh);
	struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rt->rtm_family != r->family)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*rt)) {
		int len = mnl_attr_get_payload_len(a);

		switch (mnl_attr_get_type(a)) {
		case RTA_OIF:
			r->out->oif = mnl_attr_get_u32(a);
			break;
		case RTA_GATEWAY:
			if (len == alen(r->family)) {
				memcpy(r->out->gw, mnl_attr_get_payload(a), len);
				r->out->has_gw = true;
			}
			break;
		case RTA_PREFSRC:
			if (len == alen(r->family)) {
				memcpy(r->out->prefsrc, mnl_attr_get_payload(a), len);
				r->out->has_prefsrc = true;
			}
			break;
		}
	}
	return MNL_CB_OK;
}

int xl_route_get(int family, const __u8 *dst, __u32 oif,
		 struct xl_route_info *out)
{
	char buf[512];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct route_req r = { family, out };
	struct rtmsg *rt;

	memset(out, 0, sizeof(*out));
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtm_family = family;
	rt->rtm_dst_len = alen(family) * 8;
	mnl_attr_put(nlh, RTA_DST, alen(family), dst);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	if (rtnl_talk(nlh, on_route, &r))
		return -1;
	if (!out->oif) {
		errno = ENETUNREACH;
		return -1;
	}
	return 0;
}

/* ---- neighbours -------------------------------------------------------- */

struct neigh_req {
	__u32 ifindex;
	int family;
	const __u8 *addr;
	__u8 *mac;
	int found;
};

static int on_neigh(const struct nlmsghdr *nlh, void *data)
{
	struct neigh_req *r = data;
	struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const void *dst = NULL, *ll = NULL;
	int ll_len = 0;
	struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || nd->ndm_family != r->family ||
	    nd->ndm_ifindex != (int)r->ifindex)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*nd)) {
		if (mnl_attr_get_type(a) == NDA_DST &&
		    mnl_attr_get_payload_len(a) == alen(r->family))
			dst = mnl_attr_get_payload(a);
		else if (mnl_attr_get_type(a) == NDA_LLADDR) {
			ll = mnl_attr_get_payload(a);
			ll_len = mnl_attr_get_payload_len(a);
		}
	}
	if (!dst || memcmp(dst, r->addr, alen(r->family)))
		return MNL_CB_OK;
	if ((nd->ndm_state & USABLE_STATES) && ll && ll_len == 6) {
		memcpy(r->mac, ll, 6);
		r->found = 1;
	}
	return MNL_CB_OK;
}

static int neigh_lookup(struct neigh_req *r)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;

	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = r->family;
	r->found = 0;
	return rtnl_talk(nlh, on_neigh, r);
}

static int ack_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

/* NTF_USE: the kernel starts ARP/ND as if a packet were waiting. */
static int neigh_solicit(__u32 ifindex, int family, const __u8 *addr)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;

	nlh->nlmsg_type = RTM_NEWNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = family;
	nd->ndm_ifindex = ifindex;
	nd->ndm_flags = NTF_USE;
	nd->ndm_state = NUD_NONE;
	mnl_attr_put(nlh, NDA_DST, alen(family), addr);
	return rtnl_talk(nlh, ack_cb, NULL);
}

int xl_neigh_resolve(__u32 ifindex, int family, const __u8 *addr,
		     __u8 mac[6], int timeout_ms)
{
	struct neigh_req r = { ifindex, family, addr, mac, 0 };
	struct timespec t0, t;
	long waited;

	if (neigh_lookup(&r))
		return -1;
	if (r.found)
		return 0;
	if (neigh_solicit(ifindex, family, addr))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		usleep(10000);
		if (neigh_lookup(&r))
			return -1;
		if (r.found)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		waited = (t.tv_sec - t0.tv_sec) * 1000 +
			 (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (waited >= timeout_ms)
			return 1;
	}
}

/* ---- links ------------------------------------------------------------- */

static int on_link(const struct nlmsghdr *nlh, void *data)
{
	struct xl_link_info *li = data;
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK || (__u32)ifi->ifi_index != li->ifindex)
		return MNL_CB_OK;
	li->flags = ifi->ifi_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_MTU:
			li->mtu = mnl_attr_get_u32(a);
			break;
		case IFLA_NUM_RX_QUEUES:
			li->rx_queues = mnl_attr_get_u32(a);
			break;
		case IFLA_ADDRESS:
			if (mnl_attr_get_payload_len(a) == 6) {
				memcpy(li->mac, mnl_attr_get_payload(a), 6);
				li->has_mac = true;
			}
			break;
		case IFLA_STATS64:
			if (mnl_attr_get_payload_len(a) >= (int)sizeof(struct rtnl_link_stats64)) {
				struct rtnl_link_stats64 s;

				memcpy(&s, mnl_attr_get_payload(a), sizeof(s));
				li->tx_packets = s.tx_packets;
				li->tx_bytes = s.tx_bytes;
				li->tx_dropped = s.tx_dropped;
				li->tx_errors = s.tx_errors;
				li->rx_packets = s.rx_packets;
				li->rx_bytes = s.rx_bytes;
				li->rx_dropped = s.rx_dropped;
			}
			break;
		}
	}
	return MNL_CB_OK;
}

int xl_link_get(__u32 ifindex, struct xl_link_info *out)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	memset(out, 0, sizeof(*out));
	out->ifindex = ifindex;
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	if (rtnl_talk(nlh, on_link, out))
		return -1;
	if (!out->mtu) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}
