// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libFuzzer target: the trace readers of `xdpleaf sim` (user/sim/dcqcn.c,
 * user/sim/queue.c, user/sim/flow_trace.c) on any bytes, through the
 * commands themselves. The first byte picks the model (dcqcn paper, dcqcn
 * nvidia, queue, flowlet --trace), the rest
 * is the trace file. Each run must return 0 (a trace it took) or 1 (one it
 * refused with FILE:LINE), never crash, leak, read out of bounds (built
 * with AddressSanitizer and UndefinedBehaviorSanitizer) or hang (the run
 * script's -timeout). The simulations' CSV output goes to /dev/null.
 * Left out: dcqcn traces whose simulated time is long. The simulation's
 * work grows with it, not with the trace's size: the RP's timers fire
 * every T = 55 us of it (a trace ending after 9 months: 4 * 10^11 steps),
 * and pacing simulates every packet (90 s at 100G: 10^9). Long, not
 * wrong (a user who asks for that gets it), and it would only time the
 * fuzzer out. So a dcqcn input with a number above 10^9 (1 s), or above
 * 10^6 if it paces, is skipped; so is a flowlet trace with a number of
 * 10^5 or more (its replay steps every 50 us up to the last packet, over
 * every flow number up to the largest).
 * Seeds: tests/fuzz/sim_seeds. `make fuzz-sim`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim/sim.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

/* The most digits in a row: a number of more than 7 is at least 10^7
 * (generous bounds). */
static size_t longest_number(const uint8_t *data, size_t size)
{
	size_t digits = 0, longest = 0;

	for (size_t i = 0; i < size; i++) {
		digits = data[i] >= '0' && data[i] <= '9' ? digits + 1 : 0;
		if (digits > longest)
			longest = digits;
	}
	return longest;
}

/* Whether a dcqcn trace would simulate a long time (see above). */
static int simulates_long(const uint8_t *data, size_t size)
{
	int paces = 0;

	for (size_t i = 0; i + 4 <= size; i++)
		if (!memcmp(data + i, "pace", 4))
			paces = 1;
	return longest_number(data, size) > (paces ? 6 : 9);
}

static char path[64];

/* The scratch file goes when the fuzzer ends (a crash keeps it). */
static void remove_scratch(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *dcqcn[] = { "dcqcn", "--variant", "paper", "--trace", path, NULL };
	char *queue[] = { "queue", "--rate", "1G", "--trace", path, NULL };
	char *flowlet[] = { "flowlet", "--trace", path, "--json", NULL };
	const struct xl_cmd_ctx outer = { NULL, "", 0, NULL, NULL };
	int rc, model;
	FILE *f;

	if (!size)
		return 0;
	model = data[0] % 4;
	if ((model < 2 && simulates_long(data + 1, size - 1)) ||
	    (model == 3 && longest_number(data + 1, size - 1) > 5))
		return 0;
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/xl-fuzz-sim-%d.csv", (int)getpid());
		atexit(remove_scratch);
	}
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (model == 1)
		dcqcn[2] = "nvidia";
	if (model == 3)
		rc = xl_cmd_main(&xl_sim_flowlet_cmd, "sim flowlet", 4, flowlet, &outer);
	else if (model == 2)
		rc = xl_cmd_main(&xl_sim_queue_cmd, "sim queue", 5, queue, &outer);
	else
		rc = xl_cmd_main(&xl_sim_dcqcn_cmd, "sim dcqcn", 5, dcqcn, &outer);
	if (rc != 0 && rc != 1)
		abort(); /* the arguments are right: only the trace can be refused */
	return 0;
}
