// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "sim/sim.h"

const struct xl_cli_cmd xl_sim_models[] = {
	{ "queue", "a port's phantom queue and WRED marking over a trace or a load",
	  xl_sim_queue_opts, NULL, xl_sim_queue },
	{ "flowlet", "uplink choice (flowlet, LetFlow, ECMP) over on/off flows",
	  xl_sim_flowlet_opts, NULL, xl_sim_flowlet },
	{ "dcqcn", "the DCQCN reaction point (sender rate) over a CNP/send trace",
	  xl_sim_dcqcn_opts, NULL, xl_sim_dcqcn },
	XL_CLI_END
};

static void usage(FILE *f)
{
	fprintf(f, "usage: xdpleaf sim MODEL [OPTIONS]   ('xdpleaf sim MODEL --help')\n\n"
		   "Runs the dataplane's algorithms offline, from the same code. Models:\n");
	for (const struct xl_cli_cmd *m = xl_sim_models; m->name; m++)
		fprintf(f, "  %-8s %s\n", m->name, m->summary);
}

int xl_sim_main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (const struct xl_cli_cmd *m = xl_sim_models; m->name; m++)
		if (!strcmp(argv[1], m->name))
			return m->run(argc - 1, argv + 1);
	fprintf(stderr, "xdpleaf sim: unknown model '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
