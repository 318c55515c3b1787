// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests of user space's one logging API (user/base/log.h): a
 * command's prefix said once, "warning: " once, a place in a file in the
 * compilers' form, the levels a command and the daemon show, and the
 * daemon's journald and log-file lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "stderr_capture.h"

/* text == want, or fail naming both */
static void expect_text(char *text, const char *want)
{
	if (strcmp(text, want))
		fail_msg("wrote '%s', want '%s'", text, want);
	free(text);
}

/* Before any command sets one, the prefix is the program's; then the
 * command's, once per message, never doubled. */
static void command_prefix_once(void **state)
{
	(void)state;
	stderr_capture_start();
	xl_err("unknown command '%s'", "nope");
	expect_text(stderr_capture_end(), "xdpleaf: unknown command 'nope'\n");

	xl_log_set_prog("xdpleaf gen");
	stderr_capture_start();
	xl_err("no interface '%s' in this network namespace", "nosuch0");
	xl_err("--dst '%s' is not an IPv4 or IPv6 address", "x");
	expect_text(stderr_capture_end(),
		    "xdpleaf gen: no interface 'nosuch0' in this network namespace\n"
		    "xdpleaf gen: --dst 'x' is not an IPv4 or IPv6 address\n");
}

/* A warning says so once, after the prefix; a notice does not. */
static void warning_said_once(void **state)
{
	(void)state;
	xl_log_set_prog("xdpleaf sink");
	stderr_capture_start();
	xl_warn("%s has %u rx queues", "r1", 4u);
	xl_notice("ready on %s", "r1");
	expect_text(stderr_capture_end(), "xdpleaf sink: warning: r1 has 4 rx queues\n"
					  "xdpleaf sink: ready on r1\n");
}

/* A place in a file: FILE:LINE: with no program prefix (as compilers
 * write it), line 0 the file as a whole, NULL a text that names its
 * place itself (a parser's err buffer). */
static void located_messages(void **state)
{
	(void)state;
	xl_log_set_prog("xdpleaf load");
	stderr_capture_start();
	xl_err_at("a.conf", 3, "unknown key '%s'", "rat");
	xl_warn_at("a.conf", 4, "port %s's rate", "s1");
	xl_err_at("t.csv", 0, "No such file or directory");
	xl_err_at(NULL, 0, "%s", "b.conf:7: missing value");
	expect_text(stderr_capture_end(), "a.conf:3: unknown key 'rat'\n"
					  "a.conf:4: warning: port s1's rate\n"
					  "t.csv: No such file or directory\n"
					  "b.conf:7: missing value\n");
}

/* A command shows errors, warnings and notices; info and debug (the
 * daemon's detail, libbpf's) only with XDPLEAF_DEBUG set when the
 * command starts. */
static void command_levels(void **state)
{
	(void)state;
	unsetenv("XDPLEAF_DEBUG");
	xl_log_set_prog("xdpleaf load");
	assert_true(xl_log_enabled(XL_LOG_NOTICE));
	assert_false(xl_log_enabled(XL_LOG_INFO));
	stderr_capture_start();
	xl_info("address %s: answered", "10.0.0.1");
	xl_debug("re-validating %d neighbours", 3);
	xl_err("cannot write %s", "host_cfg");
	expect_text(stderr_capture_end(), "xdpleaf load: cannot write host_cfg\n");

	setenv("XDPLEAF_DEBUG", "1", 1);
	xl_log_set_prog("xdpleaf load");
	stderr_capture_start();
	xl_debug("libbpf: loading %s\n", "leaf.bpf.o"); /* libbpf's own newline */
	expect_text(stderr_capture_end(), "xdpleaf load: libbpf: loading leaf.bpf.o\n");
	unsetenv("XDPLEAF_DEBUG");
	xl_log_set_prog("xdpleaf");
}

/* A message longer than the line buffer (libbpf's verifier log) whole. */
static void long_message_whole(void **state)
{
	size_t n = 5000;
	char *big = malloc(n + 1), *want = malloc(n + 64), *text;

	(void)state;
	assert_non_null(big);
	assert_non_null(want);
	memset(big, 'v', n);
	big[n] = '\0';
	snprintf(want, n + 64, "xdpleaf: warning: %s\n", big);
	stderr_capture_start();
	xl_warn("%s", big);
	text = stderr_capture_end();
	assert_string_equal(text, want);
	free(text);
	free(big);
	free(want);
}

/* The daemon under systemd: "<N>" and the text, no prefix, no time
 * (journald stamps it); levels above the one asked for not written. */
static void daemon_journald(void **state)
{
	char js[64];
	struct stat st;
	FILE *f;

	(void)state;
	f = stderr_capture_start();
	assert_int_equal(fstat(fileno(f), &st), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	xl_log_init(XL_LOG_INFO);
	xl_info("instance '%s': daemon started, pid %d", "leaf1", 42);
	xl_notice("instance '%s' is busy", "leaf1");
	xl_warn("cannot write the heartbeat: %s", "EPERM");
	xl_err_at("leaf1.conf", 9, "bad");
	xl_debug("not at info");
	expect_text(stderr_capture_end(), "<6>instance 'leaf1': daemon started, pid 42\n"
					  "<5>instance 'leaf1' is busy\n"
					  "<4>cannot write the heartbeat: EPERM\n"
					  "<3>leaf1.conf:9: bad\n");
	unsetenv("JOURNAL_STREAM");
	xl_log_set_prog("xdpleaf");
}

/* The daemon elsewhere (a log file): UTC time to the millisecond, the
 * level's name, the text; --log-level warn hides info. */
static void daemon_log_file(void **state)
{
	regex_t re;
	char *text;

	(void)state;
	unsetenv("JOURNAL_STREAM");
	assert_int_equal(regcomp(&re,
				 "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
				 "[0-9]{2}\\.[0-9]{3}Z warn: netlink events lost\n"
				 "[0-9T:.-]+Z err: a\\.conf:2: gone\n$",
				 REG_EXTENDED),
			 0);
	stderr_capture_start();
	xl_log_init(XL_LOG_WARN);
	xl_info("neighbour %s: confirmed", "10.0.0.1");
	xl_warn("netlink events lost");
	xl_err_at("a.conf", 2, "gone");
	text = stderr_capture_end();
	if (regexec(&re, text, 0, NULL, 0))
		fail_msg("log-file lines: '%s'", text);
	regfree(&re);
	free(text);
	xl_log_set_prog("xdpleaf");
}

static void level_names(void **state)
{
	static const struct {
		const char *name;
		enum xl_log_level level;
	} ok[] = {
		{ "err", XL_LOG_ERR },	 { "warn", XL_LOG_WARN },   { "notice", XL_LOG_NOTICE },
		{ "info", XL_LOG_INFO }, { "debug", XL_LOG_DEBUG },
	};
	enum xl_log_level l;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_true(xl_log_level_parse(ok[i].name, &l));
		assert_int_equal(l, ok[i].level);
	}
	assert_false(xl_log_level_parse("warning", &l));
	assert_false(xl_log_level_parse("", &l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(command_prefix_once), cmocka_unit_test(warning_said_once),
		cmocka_unit_test(located_messages),    cmocka_unit_test(command_levels),
		cmocka_unit_test(long_message_whole),  cmocka_unit_test(daemon_journald),
		cmocka_unit_test(daemon_log_file),     cmocka_unit_test(level_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
