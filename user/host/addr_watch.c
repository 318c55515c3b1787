// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <ifaddrs.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include "pin_names.h"
#include "host.h"
#include "instance/daemon.h"
#include "base/log.h"
#include "instance/pins.h"
#include "host/addr_watch.h"
#include "host/ports.h"
#include "netlink/rtnl.h"

struct addr_set {
	struct xl_host_addr_key k[XL_MAX_HOST_ADDRS];
	int n;
};

static bool in_set(const struct addr_set *s, const struct xl_host_addr_key *k)
{
	for (int i = 0; i < s->n; i++)
		if (!memcmp(&s->k[i], k, sizeof(*k)))
			return true;
	return false;
}

static const char *key_str(const struct xl_host_addr_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?", ifname[IF_NAMESIZE] = "?";

	inet_ntop(k->family == 4 ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	if_indextoname(k->ifindex, ifname);
	snprintf(buf, len, "%s on %s", a, ifname);
	return buf;
}

/* The ports' addresses now, as map keys. */
static int current_addrs(const __u32 *ifindex, int n_ports, struct addr_set *s)
{
	struct ifaddrs *ifa, *a;

	s->n = 0;
	if (getifaddrs(&ifa)) {
		xl_err("cannot read the ports' addresses: %s", strerror(errno));
		return -1;
	}
	for (a = ifa; a; a = a->ifa_next) {
		struct xl_host_addr_key k = { 0 };
		__u32 idx;
		int i;

		if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET &&
				     a->ifa_addr->sa_family != AF_INET6))
			continue;
		idx = if_nametoindex(a->ifa_name);
		for (i = 0; i < n_ports && ifindex[i] != idx; i++)
			;
		if (!idx || i == n_ports || s->n == XL_MAX_HOST_ADDRS)
			continue;
		k.ifindex = idx;
		if (a->ifa_addr->sa_family == AF_INET) {
			k.family = 4;
			memcpy(k.addr, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, 4);
		} else {
			k.family = 6;
			memcpy(k.addr, &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr, 16);
		}
		if (!in_set(s, &k))
			s->k[s->n++] = k;
	}
	freeifaddrs(ifa);
	return 0;
}

int xl_host_addrs_sync(int addrs_fd, const __u32 *ifindex, int n_ports,
		       int *added, int *removed, int *total)
{
	static struct addr_set want, gone; /* 10 KB each: not on the stack */
	struct xl_host_addr_key key, next;
	void *prev = NULL;
	char s[96];
	__u8 one = 1;
	int n_add = 0;

	if (current_addrs(ifindex, n_ports, &want))
		return -1;
	gone.n = 0;
	while (bpf_map_get_next_key(addrs_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (!in_set(&want, &key) && gone.n < XL_MAX_HOST_ADDRS)
			gone.k[gone.n++] = key;
	}
	for (int i = 0; i < want.n; i++) {
		if (bpf_map_lookup_elem(addrs_fd, &want.k[i], &one) == 0)
			continue;
		one = 1;
		if (bpf_map_update_elem(addrs_fd, &want.k[i], &one, BPF_ANY)) {
			xl_err("cannot write host_addrs: %s", strerror(errno));
			return -1;
		}
		n_add++;
		xl_info("address %s: answered and believed from now",
			key_str(&want.k[i], s, sizeof(s)));
	}
	for (int i = 0; i < gone.n; i++) {
		bpf_map_delete_elem(addrs_fd, &gone.k[i]);
		xl_info("address %s is gone: no longer answered or believed",
			key_str(&gone.k[i], s, sizeof(s)));
	}
	if (added)
		*added = n_add;
	if (removed)
		*removed = gone.n;
	if (total)
		*total = want.n;
	return 0;
}

static int port_ifindexes(const char *instance, __u32 *out)
{
	struct xl_host_port ports[XL_MAX_PORTS];
	int n = xl_host_read_ports(instance, ports, XL_MAX_PORTS), m = 0;

	for (int i = 0; i < n; i++)
		if (xl_host_port_ifindex(&ports[i]))
			out[m++] = xl_host_port_ifindex(&ports[i]);
	return n < 0 ? -1 : m;
}

static int resync(const char *instance, int addrs_fd)
{
	__u32 ifindex[XL_MAX_PORTS];
	int n = port_ifindexes(instance, ifindex), total;

	if (n < 0 || xl_host_addrs_sync(addrs_fd, ifindex, n, NULL, NULL, &total))
		return -1;
	if (!total)
		xl_warn("the ports have no IP address: the NP answers no "
			"CE mark and the RP believes no CNP until one is added");
	return 0;
}

int xl_host_watch(const char *instance)
{
	struct xl_rtnl *nl;
	int addrs_fd, err = 0;

	addrs_fd = xl_open_pinned_map(instance, XL_MAP_NAME(XL_MAP_HOST_ADDRS));
	if (addrs_fd < 0)
		return -1;
	nl = xl_rtnl_open(XL_RTNL_ADDR);
	if (!nl) {
		xl_err("netlink: %s", strerror(errno));
		close(addrs_fd);
		return -1;
	}
	/* Subscribed first, then read: a change between the two is seen. */
	resync(instance, addrs_fd);
	while (xl_instance_exists(instance) && !xl_daemon_stopping()) {
		struct pollfd pfd = { xl_rtnl_fd(nl), POLLIN, 0 };
		int n;

		xl_daemon_beat();
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		/* Any address message (or lost ones: ENOBUFS) means: read the
		 * whole set again. Cheap, and nothing to get out of step. */
		n = xl_rtnl_read(nl, NULL, NULL);
		if (n < 0 && errno != ENOBUFS) {
			xl_err("netlink: %s", strerror(errno));
			err = -1;
			break;
		}
		xl_debug("address change reported: syncing host_addrs");
		resync(instance, addrs_fd);
	}
	xl_rtnl_close(nl);
	close(addrs_fd);
	return err;
}
