// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the pin directories' safety check (user/instance/pins.c,
 * xl_dir_is_ours): only a directory owned by root with mode 0700 is used;
 * one another user made or can write (issue 13: `nobody` pre-created
 * /sys/fs/bpf/xdpleaf, root pinned inside, `nobody` renamed the instance
 * away) is refused with why. On temporary directories, not the real pin
 * root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "instance/pins.h"

static char base[64];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/xl-test-pins-XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *buf, size_t len, const char *leaf)
{
	snprintf(buf, len, "%s/%s", base, leaf);
}

static void dir_0700_of_root_is_ours(void **state)
{
	char p[128], why[512] = "";

	(void)state;
	path_of(p, sizeof(p), "good");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, 0700), 0); /* whatever the umask */
	if (geteuid() == 0) {
		assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), 0);
	} else {
		/* not root: our own directory is not root's either */
		assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "not by root"));
	}
}

static void writable_by_others_is_refused(void **state)
{
	char p[128], why[512] = "";

	(void)state;
	path_of(p, sizeof(p), "open");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, 01777), 0);
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mode 1777"));
	assert_int_equal(chmod(p, 0750), 0); /* group may read: still not ours */
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mode 0750"));
}

static void owned_by_another_user_is_refused(void **state)
{
	char p[128], why[512] = "";

	(void)state;
	path_of(p, sizeof(p), "nobody");
	assert_int_equal(mkdir(p, 0700), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(p, 65534, 65534), 0); /* nobody */
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not by root"));
	assert_non_null(strstr(why, p));
}

static void symlink_or_file_is_refused(void **state)
{
	char p[128], target[128], why[512] = "";

	(void)state;
	path_of(target, sizeof(target), "target");
	path_of(p, sizeof(p), "link");
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a directory"));
	path_of(p, sizeof(p), "file");
	fclose(fopen(p, "w"));
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a directory"));
	path_of(p, sizeof(p), "missing");
	assert_int_equal(xl_dir_is_ours(p, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dir_0700_of_root_is_ours),
		cmocka_unit_test(writable_by_others_is_refused),
		cmocka_unit_test(owned_by_another_user_is_refused),
		cmocka_unit_test(symlink_or_file_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
