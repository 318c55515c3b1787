/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf events`: its own options (argv[0] is "events"). */
#ifndef XL_EVENTS_CMD_H
#define XL_EVENTS_CMD_H

#include "base/cli.h"

/* 0 done, 1 error, 2 bad usage, 3 instance not loaded. */
int xl_events_main(int argc, char **argv);
/* its options (for shell completion) */
extern const struct xl_opt xl_events_opts[];

#endif
