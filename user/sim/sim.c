// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "sim/sim.h"

static const struct xl_cmd *const models[] = { &xl_sim_queue_cmd, &xl_sim_flowlet_cmd,
					       &xl_sim_dcqcn_cmd, NULL };

const struct xl_cmd xl_sim_cmd = {
	.name = "sim",
	.summary = "run the dataplane's algorithms offline ('xdpleaf sim --help')",
	.intro = "Runs the dataplane's algorithms offline, from the same code. Models:",
	.subs = models,
	.sub_noun = "model",
};
