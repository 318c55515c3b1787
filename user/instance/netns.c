// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/log.h"
#include "instance/netns.h"
#include "instance/pins.h"
#include "xdpleaf.h"

#define NETNS_RUN_DIR "/run/netns"

static bool same_ns(const char *path, __u64 ino, __u64 dev)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_ino == ino && st.st_dev == dev;
}

/* The namespace's name under /run/netns (where `ip netns add` mounts
 * it), into buf; false if it has none. */
static bool netns_name(__u64 ino, __u64 dev, char *buf, size_t len)
{
	DIR *d = opendir(NETNS_RUN_DIR);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, de->d_name);
		if (same_ns(path, ino, dev)) {
			snprintf(buf, len, "%s", de->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

int xl_netns_self(__u64 *ino, __u64 *dev, char *name, size_t len)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -1;
	*ino = st.st_ino;
	*dev = st.st_dev;
	if (!netns_name(*ino, *dev, name, len) && len)
		name[0] = '\0';
	return 0;
}

/* A path that `nsenter --net=` accepts for the namespace: its current
 * name under /run/netns, else /proc/PID/ns/net of a process in it (the
 * lowest pid: pid 1 for the host's namespace). False if neither exists,
 * i.e. the namespace is gone. */
static bool netns_path(__u64 ino, __u64 dev, char *buf, size_t len)
{
	char name[256];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (netns_name(ino, dev, name, sizeof(name))) {
		snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, name);
		return true;
	}
	d = opendir("/proc");
	while (d && !found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(buf, len, "/proc/%s/ns/net", de->d_name);
		found = same_ns(buf, ino, dev);
	}
	if (d)
		closedir(d);
	return found;
}

int xl_netns_check(const char *instance, int argc, char **argv)
{
	struct xl_instance rec;
	char where[128], path[300], line[1024];
	size_t len;

	/* (without /proc there is no telling: no alarm) */
	if (!xl_read_instance_record(instance, &rec) ||
	    same_ns("/proc/self/ns/net", rec.netns_ino, rec.netns_dev) ||
	    access("/proc/self/ns/net", F_OK))
		return 0;
	if (rec.netns_name[0])
		snprintf(where, sizeof(where), "network namespace '%.63s' (inode "
			 "%llu)", rec.netns_name, rec.netns_ino);
	else
		snprintf(where, sizeof(where), "the network namespace with inode "
			 "%llu", rec.netns_ino);
	if (!netns_path(rec.netns_ino, rec.netns_dev, path, sizeof(path))) {
		xl_err("instance '%s' was loaded in %s, not in this one: its ports are "
		       "there.\nThat namespace has no name under %s and no process "
		       "left: it is gone, and the instance's ports with it. Remove the "
		       "rest with: xdpleaf unload --instance %s", instance, where,
		       NETNS_RUN_DIR, instance);
		return -1;
	}
	len = (size_t)snprintf(line, sizeof(line), "nsenter --net=%s", path);
	for (int i = 0; i < argc && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s", argv[i]);
	xl_err("instance '%s' was loaded in %s, not in this one: its ports are "
	       "there.\nRun it there:\n  %s", instance, where, line);
	return -1;
}
