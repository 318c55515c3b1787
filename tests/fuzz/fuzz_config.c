// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libFuzzer target: the configuration parser (user/config/config*.c) on
 * any bytes. It must return 0 or -1 with a one-line FILE:LINE message,
 * never crash, leak or read out of bounds (built with AddressSanitizer
 * and UndefinedBehaviorSanitizer), and leave cfg zeroed on error. Seeds:
 * tests/configs/good and bad. `make fuzz-config`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"

static char path[64];

/* The scratch file goes when the fuzzer ends (a crash keeps it). */
static void remove_scratch(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xl_config cfg;
	char err[XL_ERR_MAX];
	FILE *f;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/xl-fuzz-config-%d.conf", (int)getpid());
		atexit(remove_scratch);
	}
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	err[0] = 0;
	/* no interface check: the ports need not exist */
	if (xl_config_load(path, false, &cfg, err, sizeof(err)) == 0) {
		xl_config_free(&cfg);
	} else {
		const char *c;

		if (!err[0] || strchr(err, '\n'))
			abort(); /* every refusal says why, on one line */
		for (c = (const char *)&cfg; c < (const char *)(&cfg + 1); c++)
			if (*c)
				abort(); /* a refused file leaves nothing behind */
	}
	return 0;
}
