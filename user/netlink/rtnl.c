// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf's rtnetlink client (rtnl.h): sockets, requests, the parser of
 * neighbour and link messages, and the queries of the traffic tools. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include "netlink/rtnl.h"

static int alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

struct xl_rtnl {
	struct mnl_socket *sock;
};

struct xl_rtnl *xl_rtnl_open(unsigned int groups)
{
	unsigned int mc = 0;
	struct xl_rtnl *nl;
	int err;

	if (groups & XL_RTNL_LINK)
		mc |= RTMGRP_LINK;
	if (groups & XL_RTNL_NEIGH)
		mc |= RTMGRP_NEIGH;
	if (groups & XL_RTNL_ADDR)
		mc |= RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return NULL;
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock) {
		err = errno;
		free(nl);
		errno = err;
		return NULL;
	}
	if (mnl_socket_bind(nl->sock, mc, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		xl_rtnl_close(nl);
		errno = err;
		return NULL;
	}
	return nl;
}

void xl_rtnl_close(struct xl_rtnl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sock);
	free(nl);
}

int xl_rtnl_fd(const struct xl_rtnl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

/* Send one request on nl and run cb over the answer(s) until done.
 * Returns 0, or -1 with errno (the kernel's error for a failed request). */
static int talk(struct xl_rtnl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq, portid;
	int ret, err = 0;

	portid = mnl_socket_get_portid(nl->sock);
	seq = (unsigned int)time(NULL);
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -1;
	for (;;) {
		ret = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
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
	errno = err;
	return err ? -1 : 0;
}

/* The same on a socket of its own, closed after. */
static int talk_once(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct xl_rtnl *nl = xl_rtnl_open(0);
	int ret, err;

	if (!nl)
		return -1;
	ret = talk(nl, nlh, cb, data);
	err = errno;
	xl_rtnl_close(nl);
	errno = err;
	return ret;
}

/* No callback: an acknowledgement carries nothing to read, and
 * mnl_cb_run turns an error into -1 with errno by itself. */
int xl_rtnl_call(struct nlmsghdr *nlh)
{
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	return talk_once(nlh, NULL, NULL);
}

/* ---- parsing ------------------------------------------------------------ */

/* States in which the kernel holds a usable link-layer address. */
#define USABLE_STATES (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | \
		       NUD_PERMANENT | NUD_NOARP)

static void parse_neigh(const struct nlmsghdr *nlh, struct xl_rtnl_neigh *n)
{
	struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	struct nlattr *a;

	memset(n, 0, sizeof(*n));
	n->deleted = nlh->nlmsg_type == RTM_DELNEIGH;
	n->family = nd->ndm_family;
	n->ifindex = nd->ndm_ifindex;
	n->state = nd->ndm_state;
	mnl_attr_for_each(a, nlh, sizeof(*nd)) {
		if (mnl_attr_get_type(a) == NDA_DST) {
			n->dst = mnl_attr_get_payload(a);
			n->dst_len = mnl_attr_get_payload_len(a);
		} else if (mnl_attr_get_type(a) == NDA_LLADDR) {
			n->lladdr = mnl_attr_get_payload(a);
			n->lladdr_len = mnl_attr_get_payload_len(a);
		}
	}
}

bool xl_rtnl_neigh_usable(const struct xl_rtnl_neigh *n)
{
	return !n->deleted && (n->state & USABLE_STATES) && n->lladdr &&
	       n->lladdr_len == 6;
}

static void parse_link(const struct nlmsghdr *nlh, struct xl_rtnl_link *l)
{
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	l->deleted = nlh->nlmsg_type == RTM_DELLINK;
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
}

struct dispatch {
	const struct xl_rtnl_handlers *h;
	void *data;
};

/* Each neighbour and link message to its handler; the rest is skipped. */
static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct dispatch *d = data;

	if ((nlh->nlmsg_type == RTM_NEWLINK || nlh->nlmsg_type == RTM_DELLINK) &&
	    d->h->link) {
		struct xl_rtnl_link l;

		parse_link(nlh, &l);
		d->h->link(&l, d->data);
	} else if ((nlh->nlmsg_type == RTM_NEWNEIGH || nlh->nlmsg_type == RTM_DELNEIGH) &&
		   d->h->neigh) {
		struct xl_rtnl_neigh n;

		parse_neigh(nlh, &n);
		d->h->neigh(&n, d->data);
	}
	return MNL_CB_OK;
}

int xl_rtnl_read(struct xl_rtnl *nl, const struct xl_rtnl_handlers *h, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct dispatch d = { h, data };
	int n;

	n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
	if (n < 0)
		return -1;
	if (h)
		mnl_cb_run(buf, n, 0, 0, on_msg, &d);
	return 0;
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
	if (talk_once(nlh, on_route, &r))
		return -1;
	if (!out->oif) {
		errno = ENETUNREACH;
		return -1;
	}
	return 0;
}

/* ---- neighbours -------------------------------------------------------- */

int xl_rtnl_neigh_dump(struct xl_rtnl *nl, int family,
		       void (*fn)(const struct xl_rtnl_neigh *n, void *data),
		       void *data)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct xl_rtnl_handlers h = { .neigh = fn };
	struct dispatch d = { &h, data };
	struct ndmsg *nd;

	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = family;
	return talk(nl, nlh, on_msg, &d);
}

/* The request op about addr on ifindex into buf (256 bytes). */
static struct nlmsghdr *put_neigh_request(char *buf, enum xl_rtnl_neigh_op op,
					  __u32 ifindex, int family, const void *addr)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *nd;

	nlh->nlmsg_type = op == XL_RTNL_NEIGH_FORGET ? RTM_DELNEIGH : RTM_NEWNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (op == XL_RTNL_NEIGH_SOLICIT)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_REPLACE;
	else if (op == XL_RTNL_NEIGH_PROBE)
		nlh->nlmsg_flags |= NLM_F_REPLACE;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = family;
	nd->ndm_ifindex = ifindex;
	nd->ndm_flags = op == XL_RTNL_NEIGH_SOLICIT ? NTF_USE : 0;
	nd->ndm_state = op == XL_RTNL_NEIGH_PROBE ? NUD_PROBE : NUD_NONE;
	mnl_attr_put(nlh, NDA_DST, alen(family), addr);
	return nlh;
}

void xl_rtnl_neigh_request(struct xl_rtnl *nl, enum xl_rtnl_neigh_op op,
			   __u32 ifindex, int family, const void *addr)
{
	char buf[256];
	struct nlmsghdr *nlh = put_neigh_request(buf, op, ifindex, family, addr);

	mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len);
}

struct neigh_req {
	__u32 ifindex;
	int family;
	const __u8 *addr;
	__u8 *mac;
	int found;
};

static void on_neigh(const struct xl_rtnl_neigh *n, void *data)
{
	struct neigh_req *r = data;

	if (n->deleted || n->family != r->family || n->ifindex != r->ifindex)
		return;
	if (!n->dst || n->dst_len != alen(r->family) ||
	    memcmp(n->dst, r->addr, alen(r->family)))
		return;
	if (xl_rtnl_neigh_usable(n)) {
		memcpy(r->mac, n->lladdr, 6);
		r->found = 1;
	}
}

static int neigh_lookup(struct neigh_req *r)
{
	struct xl_rtnl *nl = xl_rtnl_open(0);
	int ret, err;

	if (!nl)
		return -1;
	r->found = 0;
	ret = xl_rtnl_neigh_dump(nl, r->family, on_neigh, r);
	err = errno;
	xl_rtnl_close(nl);
	errno = err;
	return ret;
}

/* The kernel starts ARP/ND as if a packet were waiting; we wait for its
 * acknowledgement. */
static int neigh_solicit(__u32 ifindex, int family, const __u8 *addr)
{
	char buf[256];

	return xl_rtnl_call(put_neigh_request(buf, XL_RTNL_NEIGH_SOLICIT, ifindex,
					      family, addr));
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
	if (talk_once(nlh, on_link, out))
		return -1;
	if (!out->mtu) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}
