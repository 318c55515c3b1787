// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for the pure parts of events and telemetry: the event rate
 * limit (include/events.h), PSN tracking and the PFC watchdog
 * (include/telemetry.h). Expected values are worked out by hand in the
 * comments, not from the functions' own formulas. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/types.h>

#include "events.h"
#include "telemetry.h"

/* ---- the event rate limit ------------------------------------------------- */

/* At 1000/s: a burst of XL_EVENT_BURST passes at once, the next waits
 * 1 ms; nothing passes at rate 0. */
static void event_limit_burst_then_rate(void **state)
{
	struct xl_event_limit l = { 0 };
	__u64 t = 5000000000ULL;
	int i, passed = 0;

	(void)state;
	for (i = 0; i < 200; i++)
		passed += xl_event_allow(&l, t, 1000);
	assert_int_equal(passed, XL_EVENT_BURST);
	/* 0.999 ms later still nothing, 1 ms later one */
	assert_false(xl_event_allow(&l, t + 999999, 1000));
	assert_true(xl_event_allow(&l, t + 1000000, 1000));
	assert_false(xl_event_allow(&l, t + 1000000, 1000));
	/* over a quiet second the full burst is back, not more */
	for (i = 0, passed = 0; i < 200; i++)
		passed += xl_event_allow(&l, t + 2000000000ULL, 1000);
	assert_int_equal(passed, XL_EVENT_BURST);
	l.tat_ns = 0;
	assert_false(xl_event_allow(&l, t, 0));
}

/* Over a long steady stream the rate holds: 10 s at 100/s with one
 * attempt every 100 us lets 100 * 10 + the burst through. */
static void event_limit_long_run(void **state)
{
	struct xl_event_limit l = { 0 };
	__u64 t;
	int passed = 0;

	(void)state;
	for (t = 0; t < 10000000000ULL; t += 100000)
		passed += xl_event_allow(&l, 1000000000ULL + t, 100);
	assert_in_range(passed, 1000 + XL_EVENT_BURST - 1, 1000 + XL_EVENT_BURST);
}

/* ---- PSNs ------------------------------------------------------------------- */

static void psn_in_order_gap_old(void **state)
{
	struct xl_psn_state s = { 0 };
	__u32 n;

	(void)state;
	assert_int_equal(xl_psn_track(&s, 100, &n), XL_PSN_IN_ORDER); /* first */
	assert_int_equal(xl_psn_track(&s, 101, &n), XL_PSN_IN_ORDER);
	/* 102, 103 lost: two missing */
	assert_int_equal(xl_psn_track(&s, 104, &n), XL_PSN_GAP);
	assert_int_equal(n, 2);
	assert_int_equal(s.next_psn, 105);
	/* 102 arrives late: three behind 105 */
	assert_int_equal(xl_psn_track(&s, 102, &n), XL_PSN_OLD);
	assert_int_equal(n, 3);
	assert_int_equal(s.next_psn, 105);
	assert_int_equal(xl_psn_track(&s, 105, &n), XL_PSN_IN_ORDER);
	assert_int_equal(s.packets, 5);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.missing, 2);
	assert_int_equal(s.old, 1);
}

/* PSNs are 24 bits: 0xffffff is followed by 0; a jump of more than half
 * the space is behind, not ahead. */
static void psn_wraps(void **state)
{
	struct xl_psn_state s = { 0 };
	__u32 n;

	(void)state;
	xl_psn_track(&s, 0xfffffe, &n);
	assert_int_equal(xl_psn_track(&s, 0xffffff, &n), XL_PSN_IN_ORDER);
	assert_int_equal(xl_psn_track(&s, 0, &n), XL_PSN_IN_ORDER);
	assert_int_equal(xl_psn_track(&s, 2, &n), XL_PSN_GAP);
	assert_int_equal(n, 1);
	assert_int_equal(xl_psn_track(&s, 0xfffff0, &n), XL_PSN_OLD);
	assert_int_equal(n, 0x13); /* 3 - 0xfffff0 mod 2^24 */
}

/* A sender that starts its QP again from PSN 0 after 5000: 63 old PSNs,
 * then the 64th in a row is a new sequence, and the stream is in order
 * again; a go-back-N retransmission shorter than the run stays old. */
static void psn_restart_resyncs(void **state)
{
	struct xl_psn_state s = { 0 };
	__u32 n, p;
	int r;

	(void)state;
	for (p = 4000; p < 5000; p++)
		xl_psn_track(&s, p, &n);
	for (p = 0; p < XL_PSN_RESYNC_RUN - 1; p++)
		assert_int_equal(xl_psn_track(&s, p, &n), XL_PSN_OLD);
	r = xl_psn_track(&s, p++, &n);
	assert_int_equal(r, XL_PSN_RESYNC);
	assert_int_equal(s.resyncs, 1);
	assert_int_equal(s.old, XL_PSN_RESYNC_RUN - 1);
	for (; p < 200; p++)
		assert_int_equal(xl_psn_track(&s, p, &n), XL_PSN_IN_ORDER);
	/* 190..199 again (a retransmission of 10), then 200 on */
	for (p = 190; p < 200; p++)
		assert_int_equal(xl_psn_track(&s, p, &n), XL_PSN_OLD);
	assert_int_equal(xl_psn_track(&s, 200, &n), XL_PSN_IN_ORDER);
	assert_int_equal(s.resyncs, 1);
	assert_int_equal(s.gaps, 0);
}

static void psn_opcodes(void **state)
{
	(void)state;
	assert_true(xl_psn_sequenced(0x04));  /* SEND ONLY */
	assert_true(xl_psn_sequenced(0x0a));  /* WRITE ONLY */
	assert_true(xl_psn_sequenced(0x10));  /* READ RESPONSE ONLY */
	assert_false(xl_psn_sequenced(0x11)); /* ACK */
	assert_false(xl_psn_sequenced(0x12)); /* ATOMIC ACK */
	assert_false(xl_psn_sequenced(0x81)); /* CNP */
	/* AETH syndromes: 0x1f ACK (credits), 0x20 RNR NAK, 0x60 NAK (PSN
	 * sequence error) */
	assert_int_equal(XL_AETH_KIND(0x1f), 0);
	assert_int_equal(XL_AETH_KIND(0x20), XL_AETH_RNR_NAK);
	assert_int_equal(XL_AETH_KIND(0x60), XL_AETH_NAK);
}

/* ---- PFC -------------------------------------------------------------------- */

/* 65535 quanta of 512 bit times: 33.55 ms at 1 Gbit/s, 335.5 us at
 * 100 Gbit/s (the default for a port without a rate). */
static void pfc_pause_time(void **state)
{
	(void)state;
	assert_int_equal(xl_pfc_pause_ns(65535, 1000000000ULL), 33553920);
	assert_int_equal(xl_pfc_pause_ns(65535, 0), 335539);
	assert_int_equal(xl_pfc_pause_ns(0, 1000000000ULL), 0);
}

/* Frames every 5 ms, each pausing 33 ms: one storm once the pause has
 * lasted past the 10 ms watchdog (at the frame at +15 ms), not again; a
 * resume (0 quanta) ends it; a pause that lapsed starts a new count. */
static void pfc_watchdog(void **state)
{
	struct xl_pfc_state s = { 0 };
	const __u64 ms = 1000000, w = 10 * ms, t = 1000 * ms;
	int storms = 0, at = -1, i;

	(void)state;
	for (i = 0; i <= 10; i++)
		if (xl_pfc_pause(&s, t + i * 5 * ms, 33 * ms, w)) {
			storms++;
			at = i;
		}
	assert_int_equal(storms, 1);
	assert_int_equal(at, 3); /* +15 ms: past 10 ms since +0 */
	assert_int_equal(s.storms, 1);
	assert_true(s.storm);
	assert_false(xl_pfc_pause(&s, t + 60 * ms, 0, w)); /* resume */
	assert_false(s.storm);
	/* short pauses with breaks between them never add up */
	for (i = 0; i < 10; i++)
		assert_false(xl_pfc_pause(&s, t + 100 * ms + i * 5 * ms, 1 * ms, w));
	/* watchdog off */
	for (i = 0; i < 10; i++)
		assert_false(xl_pfc_pause(&s, t + 200 * ms + i * 5 * ms, 33 * ms, 0));
	assert_int_equal(s.storms, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(event_limit_burst_then_rate),
		cmocka_unit_test(event_limit_long_run),
		cmocka_unit_test(psn_in_order_gap_old),
		cmocka_unit_test(psn_wraps),
		cmocka_unit_test(psn_restart_resyncs),
		cmocka_unit_test(psn_opcodes),
		cmocka_unit_test(pfc_pause_time),
		cmocka_unit_test(pfc_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
