// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libFuzzer target: the trace readers of `xdpleaf sim` (user/sim/dcqcn.c,
 * user/sim/queue.c) on any bytes, through the commands themselves. The
 * first byte picks the model (dcqcn paper, dcqcn nvidia, queue), the rest
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
 * 10^6 if it paces, is skipped.
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

/* Whether a dcqcn trace would simulate a long time (see above). */
static int simulates_long(const uint8_t *data, size_t size)
{
	int paces = 0;
	size_t digits = 0, longest = 0;

	for (size_t i = 0; i < size; i++) {
		if (i + 4 <= size && !memcmp(data + i, "pace", 4))
			paces = 1;
		digits = data[i] >= '0' && data[i] <= '9' ? digits + 1 : 0;
		if (digits > longest)
			longest = digits;
	}
	/* a number of more than 7 digits is at least 10^7: generous bounds */
	return longest > (paces ? 6 : 9);
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
	const struct xl_cmd_ctx outer = { NULL, "", 0, NULL, NULL };
	int rc, model;
	FILE *f;

	if (!size || (data[0] % 3 != 2 && simulates_long(data + 1, size - 1)))
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
	model = data[0] % 3;
	if (model == 1)
		dcqcn[2] = "nvidia";
	rc = model == 2 ? xl_cmd_main(&xl_sim_queue_cmd, "sim queue", 5, queue, &outer) :
			  xl_cmd_main(&xl_sim_dcqcn_cmd, "sim dcqcn", 5, dcqcn, &outer);
	if (rc != 0 && rc != 1)
		abort(); /* the arguments are right: only the trace can be refused */
	return 0;
}
