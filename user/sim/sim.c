// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "sim/sim.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} models[] = {
	{ "queue", xl_sim_queue,
	  "a port's phantom queue and WRED marking over a trace or a load" },
	{ "flowlet", xl_sim_flowlet,
	  "uplink choice (flowlet, LetFlow, ECMP) over on/off flows" },
	{ "dcqcn", xl_sim_dcqcn,
	  "the DCQCN reaction point (sender rate) over a CNP/send trace" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: xdpleaf sim MODEL [OPTIONS]   ('xdpleaf sim MODEL --help')\n\n"
		   "Runs the dataplane's algorithms offline, from the same code. Models:\n");
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		fprintf(f, "  %-8s %s\n", models[i].name, models[i].summary);
}

int xl_sim_main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strcmp(argv[1], models[i].name))
			return models[i].run(argc - 1, argv + 1);
	fprintf(stderr, "xdpleaf sim: unknown model '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
