// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "instance/sd_notify.h"

int xl_sd_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t sent;
	int fd;

	if (!name || !*name)
		return 0;
	len = strlen(name);
	/* (systemd's vsock: addresses are for VMs, not a host's daemon) */
	if ((name[0] != '/' && name[0] != '@') || len >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = 0; /* abstract: the name's length counts, no NUL */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		      offsetof(struct sockaddr_un, sun_path) + len);
	close(fd);
	return sent < 0 ? -1 : 1;
}
