// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the daemon's heartbeat judgement (user/instance/heartbeat.c,
 * xl_daemon_judge: a live pid whose heartbeat is past the limit is not
 * responding) and for its systemd notifications without libsystemd
 * (user/instance/sd_notify.c: one datagram to $NOTIFY_SOCKET, a path or an
 * abstract name written with '@'), against sockets of the test's own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "instance/heartbeat.h"
#include "instance/sd_notify.h"

static void judge_pid_and_age(void **state)
{
	(void)state;
	assert_int_equal(xl_daemon_judge(0, 0.3), XL_DAEMON_NOT_RUNNING);
	assert_int_equal(xl_daemon_judge(0, 100), XL_DAEMON_NOT_RUNNING);
	assert_int_equal(xl_daemon_judge(42, 0.3), XL_DAEMON_RUNNING);
	/* the limit itself is still running; past it is not */
	assert_int_equal(xl_daemon_judge(42, XL_HEARTBEAT_LIMIT_S), XL_DAEMON_RUNNING);
	assert_int_equal(xl_daemon_judge(42, XL_HEARTBEAT_LIMIT_S + 0.01),
			 XL_DAEMON_NOT_RESPONDING);
	/* no heartbeat to judge (an older build's instance): not judged */
	assert_int_equal(xl_daemon_judge(42, -1), XL_DAEMON_RUNNING);
}

static void exit_code_only_when_not_responding(void **state)
{
	struct xl_daemon_health h = { .state = XL_DAEMON_NOT_RESPONDING };

	(void)state;
	assert_int_equal(xl_daemon_health_exit(&h), XL_EXIT_DAEMON_STALE);
	h.state = XL_DAEMON_RUNNING;
	assert_int_equal(xl_daemon_health_exit(&h), 0);
	h.state = XL_DAEMON_NOT_RUNNING;
	assert_int_equal(xl_daemon_health_exit(&h), 0);
}

/* A datagram socket bound to name (a path, or '@' + an abstract name). */
static int listen_on(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0 && len < sizeof(sa.sun_path));
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = 0;
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      offsetof(struct sockaddr_un, sun_path) + len), 0);
	return fd;
}

static void receive(int fd, const char *want)
{
	char buf[64] = "";
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_int_equal(n, (ssize_t)strlen(want));
	assert_string_equal(buf, want);
}

static void unset_sends_nothing(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(xl_sd_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(xl_sd_notify("READY=1"), 0);
}

/* the path test's directory and socket: removed by its teardown, also
 * after a failed assertion */
static char dir[] = "/tmp/xl-test-notify-XXXXXX", path[64];

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	unsetenv("NOTIFY_SOCKET");
	return 0;
}

static void path_socket_gets_the_state(void **state)
{
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = listen_on(path);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(xl_sd_notify("READY=1"), 1);
	assert_int_equal(xl_sd_notify("WATCHDOG=1"), 1);
	receive(fd, "READY=1");
	receive(fd, "WATCHDOG=1");
	close(fd);
}

static void abstract_socket_gets_the_state(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@xl-test-notify-%d", (int)getpid());
	fd = listen_on(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(xl_sd_notify("WATCHDOG=1"), 1);
	receive(fd, "WATCHDOG=1");
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

static void bad_address_is_an_error(void **state)
{
	char longname[200];

	(void)state;
	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	errno = 0;
	assert_int_equal(xl_sd_notify("READY=1"), -1);
	assert_int_equal(errno, EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = 0;
	setenv("NOTIFY_SOCKET", longname, 1);
	assert_int_equal(xl_sd_notify("READY=1"), -1);
	/* a path where nobody listens: the send fails, said by -1 */
	setenv("NOTIFY_SOCKET", "/nonexistent/xl-test-notify", 1);
	assert_int_equal(xl_sd_notify("READY=1"), -1);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(judge_pid_and_age),
		cmocka_unit_test(exit_code_only_when_not_responding),
		cmocka_unit_test(unset_sends_nothing),
		cmocka_unit_test_teardown(path_socket_gets_the_state, remove_path),
		cmocka_unit_test(abstract_socket_gets_the_state),
		cmocka_unit_test(bad_address_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
