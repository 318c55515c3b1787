// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Helpers shared by `xdpleaf gen` and `xdpleaf sink`. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "traffic/traffic.h"

/* CAP_BPF and CAP_NET_ADMIN (or CAP_SYS_ADMIN): checking first turns a
 * cryptic EPERM from deep inside libbpf into one clear sentence. Used by
 * every command that touches BPF objects. */
bool xl_traffic_privileged(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	__u64 eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = (__u64)data[1].effective << 32 | data[0].effective;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_NET_ADMIN));
}

int xl_parse_ip(const char *s, __u8 addr[16])
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, addr) == 1)
		return AF_INET6;
	return 0;
}

int xl_parse_mac(const char *s, __u8 mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (__u8)b[i];
	return 0;
}
