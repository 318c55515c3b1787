// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "instance/pins.h"
#include "instance/daemon.h"
#include "instance/inst_lock.h"
#include "instance/heartbeat.h"
#include "base/output.h"
#include "instance/sd_notify.h"

static void run_file(char *buf, size_t len, const char *instance,
		     const char *ext)
{
	snprintf(buf, len, "%s/%s.%s", XL_RUN_DIR, instance, ext);
}

/* The daemon's process name (/proc/PID/comm): what tells a pid on file
 * that is our daemon from one the system has since given to another
 * process (which must never get our SIGTERM). */
#define DAEMON_COMM "xdpleaf-daemon"

static volatile sig_atomic_t stop_asked;

static void on_stop_signal(int sig)
{
	stop_asked = sig;
}

bool xl_daemon_stopping(void)
{
	return stop_asked != 0;
}

/* SIGTERM (unload, systemd's stop) and SIGINT end the work's loop, which
 * then logs why it ended: no SA_RESTART, so a blocking poll returns. */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static void log_exit(const char *instance, int err)
{
	xl_sd_notify("STOPPING=1");
	xl_log(err ? XL_LOG_ERR : XL_LOG_INFO, "instance '%s': daemon exits (%s)",
	       instance, err ? "netlink error" :
	       stop_asked == SIGTERM ? "SIGTERM" : stop_asked == SIGINT ? "SIGINT" :
	       "the instance was unloaded");
}

static bool is_daemon(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	return !strcmp(comm, DAEMON_COMM);
}

char xl_process_state(int pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state;
}

/* A dead process can linger as a zombie until its parent reaps it; that
 * is not a running daemon. */
static bool process_alive(int pid)
{
	char state = xl_process_state(pid);

	return state && state != 'Z' && state != 'X';
}

/* The heartbeat (instance/heartbeat.h), written by the daemon's loop
 * through xl_daemon_beat: the map (-1: the instance has none), when the
 * last beat was, how many; whether systemd has been told READY=1. */
static struct {
	bool active; /* in a daemon, past its first beat */
	int fd;
	__u64 last_ns, beats;
	bool ready;
} hb = { .fd = -1 };

static void beat(void)
{
	hb.last_ns = xl_monotonic_ns();
	if (hb.fd >= 0 && xl_heartbeat_write(hb.fd, getpid(), ++hb.beats))
		xl_log(XL_LOG_WARN, "cannot write the heartbeat: %s", strerror(errno));
}

/* The first beat, before the daemon's pid is on file: whoever reads a
 * live pid there (status) finds that daemon's beat too. */
static void first_beat(const char *instance)
{
	hb.fd = xl_heartbeat_open(instance);
	hb.active = true;
	beat();
}

/* Into the daemon's log, once it has one. */
static void warn_no_beat(const char *instance)
{
	if (hb.fd < 0)
		xl_log(XL_LOG_WARN, "instance '%s' has no heartbeat map (loaded by "
		       "an older build; xdpleaf upgrade adds it): status cannot "
		       "tell whether this daemon responds", instance);
}

/* Beats 0.5-1.5 s apart: the loops call this at least once a second
 * (their poll's timeout) and more often on events; only those half an
 * interval after the last beat write. */
void xl_daemon_beat(void)
{
	if (!hb.active)
		return;
	if (!hb.ready) {
		xl_sd_notify("READY=1");
		hb.ready = true;
	}
	if (xl_monotonic_ns() - hb.last_ns < XL_HEARTBEAT_INTERVAL_MS * 500000ULL)
		return;
	beat();
	xl_sd_notify("WATCHDOG=1");
}

/* Until the new daemon's first beat is in the map (at most 2 s): a status
 * right after the start then judges its beat, not a dead one's. */
static void wait_first_beat(const char *instance, int pid)
{
	struct xl_heartbeat b;

	for (int i = 0; i < 200 && process_alive(pid); i++) {
		if (xl_heartbeat_read(instance, &b) || b.pid == (__u32)pid)
			return;
		usleep(10000);
	}
}

int xl_daemon_pid(const char *instance)
{
	char path[256];
	int pid = 0;
	FILE *f;

	run_file(path, sizeof(path), instance, "pid");
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &pid) != 1 || pid <= 1 || !process_alive(pid) ||
	    !is_daemon(pid))
		pid = 0;
	fclose(f);
	return pid;
}

static int write_pid(const char *instance, int pid)
{
	char path[256];
	FILE *f;

	if (mkdir(XL_RUN_DIR, 0755) && errno != EEXIST) {
		xl_err("cannot create %s: %s", XL_RUN_DIR, strerror(errno));
		return -1;
	}
	run_file(path, sizeof(path), instance, "pid");
	f = fopen(path, "w");
	if (f && fprintf(f, "%d\n", pid) < 0) {
		fclose(f);
		f = NULL;
	}
	if (!f || fclose(f)) {
		xl_err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* SIGTERM, then return only once it is gone, so that "stopped" means no
 * process is left; it exits at once on SIGTERM. 0, or -1 with a reason. */
static int stop_pid(int pid, const char **why)
{
	if (kill(pid, SIGTERM)) {
		*why = strerror(errno);
		return -1;
	}
	for (int i = 0; i < 200 && process_alive(pid); i++)
		usleep(10000);
	*why = "still running 2 s after SIGTERM";
	return process_alive(pid) ? -1 : 0;
}

void xl_daemon_stop(const char *instance)
{
	char path[256];
	int pid = xl_daemon_pid(instance);
	const char *why;

	if (pid)
		stop_pid(pid, &why);
	run_file(path, sizeof(path), instance, "pid");
	unlink(path);
	run_file(path, sizeof(path), instance, "log");
	unlink(path);
}

int xl_daemon_revive(const char *instance, xl_daemon_work work)
{
	char path[256];
	int old = 0, lock, err = 0;
	FILE *f;

	run_file(path, sizeof(path), instance, "pid");
	if (xl_daemon_pid(instance) || access(path, F_OK))
		return 0; /* running, or none was started (load --no-daemon): not ours */
	/* A command changing the instance (a load about to start its daemon,
	 * an unload that stopped it) sees to the daemon itself. */
	lock = xl_inst_trylock(instance);
	if (lock < 0)
		return 0;
	/* as it is now that nothing else changes it */
	f = xl_instance_exists(instance) && !xl_daemon_pid(instance) ? fopen(path, "r") : NULL;
	if (!f)
		goto out;
	if (fscanf(f, "%d", &old) != 1)
		old = 0;
	fclose(f);
	err = xl_daemon_start(instance, work);
	if (!err)
		xl_notice("instance '%s': its daemon (pid %d) was gone; "
			  "started a new one, pid %d (log %s/%s.log)", instance, old,
			  xl_daemon_pid(instance), XL_RUN_DIR, instance);
out:
	xl_inst_unlock(lock, instance);
	return err;
}

int xl_daemon_start(const char *instance, xl_daemon_work work)
{
	char own_name[17] = "";
	pid_t pid;

	if (mkdir(XL_RUN_DIR, 0755) && errno != EEXIST) {
		xl_err("cannot create %s: %s", XL_RUN_DIR, strerror(errno));
		return -1;
	}
	fflush(NULL);
	/* named before the fork, so the child is a verifiable daemon from
	 * its first instant (a status right after sees it) */
	prctl(PR_GET_NAME, own_name);
	prctl(PR_SET_NAME, DAEMON_COMM);
	pid = fork();
	if (pid)
		prctl(PR_SET_NAME, own_name);
	if (pid < 0) {
		xl_err("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char log[256];
		int null, out, err;

		closefrom(3);
		setsid();
		/* a service's helper (a load run by systemd) is no service */
		unsetenv("NOTIFY_SOCKET");
		run_file(log, sizeof(log), instance, "log");
		null = open("/dev/null", O_RDONLY);
		out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(null, 0);
		dup2(out >= 0 ? out : null, 1);
		dup2(out >= 0 ? out : null, 2);
		xl_log_init(XL_LOG_INFO);
		xl_log(XL_LOG_INFO, "instance '%s': daemon started, pid %d", instance,
		       (int)getpid());
		catch_stop_signals();
		first_beat(instance);
		warn_no_beat(instance);
		err = work(instance);
		log_exit(instance, err);
		_exit(err ? 1 : 0);
	}
	wait_first_beat(instance, pid);
	if (write_pid(instance, pid)) {
		kill(pid, SIGTERM);
		return -1;
	}
	return 0;
}

/* This process becomes the instance's daemon on file: refused beside a
 * running one, unless replace (then that one is stopped). The one it
 * replaced in *old (0: none). 0, or -1 after saying why. */
static int take_over(const char *instance, bool replace, int *old_pid)
{
	int old = xl_daemon_pid(instance);
	const char *why;

	*old_pid = old;
	if (!xl_instance_exists(instance)) {
		xl_err("instance '%s' is not loaded", instance);
		return -1;
	}
	if (old && !replace) {
		xl_err("instance '%s' already has a daemon, pid %d "
		       "(load starts one; log in %s/%s.log). Not starting a second.\n"
		       "To run it in the foreground instead (e.g. under a service "
		       "manager): xdpleaf daemon --replace --instance %s (or load "
		       "with --no-daemon)", instance, old, XL_RUN_DIR, instance,
		       instance);
		return -1;
	}
	if (old && stop_pid(old, &why)) {
		xl_err("cannot stop the daemon pid %d of "
		       "instance '%s': %s", old, instance, why);
		return -1;
	}
	first_beat(instance);
	return write_pid(instance, getpid());
}

/* Two daemons would do the same work twice, and status and unload know
 * only the one whose pid is on file. So there is one, and replacing it
 * is the operator's explicit choice. */
int xl_daemon_run(const char *instance, bool replace, enum xl_log_level level,
		  xl_daemon_work work)
{
	int old, err, lock;
	char path[256];

	/* held until this process is the one on file, so that a load's or an
	 * upgrade's daemon start cannot interleave with the take-over */
	lock = xl_inst_lock(instance);
	if (lock < 0)
		return -1;
	err = take_over(instance, replace, &old);
	xl_inst_unlock(lock, instance);
	if (err)
		return -1;
	prctl(PR_SET_NAME, DAEMON_COMM);
	xl_log_init(level);
	warn_no_beat(instance);
	if (old)
		xl_log(XL_LOG_INFO, "instance '%s': replaced the daemon pid %d; "
		       "running in the foreground as pid %d", instance, old, getpid());
	else
		xl_log(XL_LOG_INFO, "instance '%s': daemon running in the foreground "
		       "as pid %d", instance, getpid());
	catch_stop_signals();
	err = work(instance);
	log_exit(instance, err);
	/* Leave the pid file to a daemon that replaced us, if any. */
	if (xl_daemon_pid(instance) == getpid()) {
		run_file(path, sizeof(path), instance, "pid");
		unlink(path);
	}
	return err;
}
