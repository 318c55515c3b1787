// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests of the exporter's stderr rule (user/observe/log_limit.h): at
 * most one line a second, the lines held back counted and reported with
 * the next line written or at the next tick a second on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "observe/log_limit.h"

#define S 1000000000ULL

/* 2,000 lines in one second (a storm of dropped connections): the
 * first is written, the other 1,999 held and reported at the tick a
 * second after it, once. */
static void storm_one_line_and_a_count(void **state)
{
	struct xl_log_limit l = { 0 };
	unsigned long report, written = 0;

	(void)state;
	for (int i = 0; i < 2000; i++) {
		written += xl_log_limit_line(&l, 10 * S + i * 400000ULL, &report);
		assert_int_equal(report, 0);
	}
	assert_int_equal(written, 1);
	assert_int_equal(xl_log_limit_tick(&l, 10 * S + S - 1), 0); /* not yet */
	assert_int_equal(xl_log_limit_tick(&l, 11 * S), 1999);
	assert_int_equal(xl_log_limit_tick(&l, 13 * S), 0); /* reported once */
}

/* A line a second on from the last written is written, with the count
 * of those held back in between; lines a second apart all pass. */
static void next_line_reports_held(void **state)
{
	struct xl_log_limit l = { 0 };
	unsigned long report;

	(void)state;
	assert_true(xl_log_limit_line(&l, 1 * S, &report));
	assert_false(xl_log_limit_line(&l, 1 * S + S / 2, &report));
	assert_false(xl_log_limit_line(&l, 1 * S + S / 2 + 1, &report));
	assert_true(xl_log_limit_line(&l, 2 * S, &report));
	assert_int_equal(report, 2);
	assert_true(xl_log_limit_line(&l, 3 * S, &report));
	assert_int_equal(report, 0);
	assert_true(xl_log_limit_line(&l, 4 * S, &report));
	assert_int_equal(xl_log_limit_tick(&l, 9 * S), 0); /* nothing held */
}

/* The tick's report takes the second: a line right after it waits. */
static void tick_report_takes_the_second(void **state)
{
	struct xl_log_limit l = { 0 };
	unsigned long report;

	(void)state;
	assert_true(xl_log_limit_line(&l, 0, &report));
	assert_false(xl_log_limit_line(&l, 1, &report));
	assert_int_equal(xl_log_limit_tick(&l, S), 1);
	assert_false(xl_log_limit_line(&l, S + 1, &report));
	assert_true(xl_log_limit_line(&l, 2 * S, &report));
	assert_int_equal(report, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(storm_one_line_and_a_count),
		cmocka_unit_test(next_line_reports_held),
		cmocka_unit_test(tick_report_takes_the_second),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
