// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The per-instance lock (instance/inst_lock.h): flock(2) on
 * /run/xdpleaf/INSTANCE.lock. flock has no timeout, so a waiter retries a
 * non-blocking attempt until its bound. The holder is named from
 * /proc/locks, the kernel's own record of who took the lock (a note the
 * holder wrote into the file would be missing or stale in the instant
 * after it took the lock), and from its /proc/PID/cmdline. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "base/log.h"
#include "instance/inst_lock.h"
#include "instance/pins.h"

#define RETRY_US 20000

static void lock_path(char *buf, size_t len, const char *instance)
{
	snprintf(buf, len, "%s/%s.lock", XL_RUN_DIR, instance);
}

/* XDPLEAF_LOCK_WAIT, or the default; -1 after saying why it is refused. */
static int wait_seconds(void)
{
	const char *v = getenv("XDPLEAF_LOCK_WAIT");
	char *end;
	long s;

	if (!v)
		return XL_LOCK_WAIT_S;
	s = strtol(v, &end, 10);
	if (end == v || *end || s < 0 || s > 3600) {
		xl_err("XDPLEAF_LOCK_WAIT wants whole seconds 0..3600, not '%s'", v);
		return -1;
	}
	return (int)s;
}

/* The pid that took the flock on fd's file, 0 if none is listed. */
static int holder_pid(int fd)
{
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	char line[256];
	int pid, found = 0;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "3: FLOCK  ADVISORY  WRITE 1234 00:19:5678 0 EOF" (a waiter's
	 * line has "->" before FLOCK: not matched) */
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min,
			   &ino) == 4 && ino == st.st_ino && maj == major(st.st_dev) &&
		    min == minor(st.st_dev))
			found = pid;
	fclose(f);
	return found;
}

/* "pid N (its command line)", or as much of it as can be known. */
static void describe_holder(int fd, char *buf, size_t len)
{
	char path[64], cmd[160];
	int pid = holder_pid(fd), cfd;
	ssize_t n = -1;

	if (!pid) {
		snprintf(buf, len, "another process");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	cfd = open(path, O_RDONLY | O_CLOEXEC);
	if (cfd >= 0) {
		n = read(cfd, cmd, sizeof(cmd) - 1);
		close(cfd);
	}
	if (n <= 0) {
		snprintf(buf, len, "pid %d", pid);
		return;
	}
	cmd[n] = 0;
	/* the arguments' NULs, and whatever would break the line */
	for (ssize_t i = 0; i < n - 1; i++)
		if ((unsigned char)cmd[i] < ' ')
			cmd[i] = ' ';
	snprintf(buf, len, "pid %d (%s%s)", pid, cmd,
		 n == sizeof(cmd) - 1 ? "..." : "");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether the locked fd is still the file at path: the holder before us
 * removes it when it leaves no instance behind (xl_inst_unlock). */
static bool still_there(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* The locked fd, trying for up to wait_s; -1 otherwise (said if say). */
static int take(const char *instance, int wait_s, bool say)
{
	double deadline = now_s() + wait_s;
	char path[256], who[256];
	bool said = false;
	int fd;

	lock_path(path, sizeof(path), instance);
	for (;;) {
		if ((mkdir(XL_RUN_DIR, 0755) && errno != EEXIST) ||
		    (fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
			if (say)
				xl_err("cannot open %s: %s", path, strerror(errno));
			return -1;
		}
		while (flock(fd, LOCK_EX | LOCK_NB)) {
			if (errno != EWOULDBLOCK || now_s() >= deadline) {
				if (say && errno == EWOULDBLOCK) {
					describe_holder(fd, who, sizeof(who));
					xl_err("instance '%s' is busy: %s is changing it "
					       "(it holds %s); waited %d s (XDPLEAF_LOCK_WAIT), "
					       "try again once it is done", instance, who, path,
					       wait_s);
				} else if (say) {
					xl_err("cannot lock %s: %s", path, strerror(errno));
				}
				close(fd);
				return -1;
			}
			if (say && !said) {
				describe_holder(fd, who, sizeof(who));
				xl_notice("instance '%s' is busy: %s is changing it; "
					  "waiting up to %d s", instance, who, wait_s);
				said = true;
			}
			usleep(RETRY_US);
		}
		if (still_there(fd, path))
			return fd;
		close(fd); /* taken on a file removed meanwhile: again, on the new one */
	}
}

int xl_inst_lock(const char *instance)
{
	int wait_s = wait_seconds();

	return wait_s < 0 ? -1 : take(instance, wait_s, true);
}

int xl_inst_trylock(const char *instance)
{
	return take(instance, 0, false);
}

void xl_inst_unlock(int fd, const char *instance)
{
	char path[256];

	if (fd < 0)
		return;
	if (!xl_instance_exists(instance)) {
		lock_path(path, sizeof(path), instance);
		unlink(path);
	}
	flock(fd, LOCK_UN);
	close(fd);
}
