// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/sockios.h>
#include "netlink/ethtool.h"

int xl_ethtool(const char *ifname, void *req)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err, saved;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = req;
	err = ioctl(fd, SIOCETHTOOL, &ifr);
	saved = errno;
	close(fd);
	errno = saved;
	return err ? -1 : 0;
}
