/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf events`: its row of the command table. */
#ifndef XL_EVENTS_CMD_H
#define XL_EVENTS_CMD_H

#include "base/cli.h"

/* Exit status: 0 done, 1 error, 2 bad usage, 3 instance not loaded. */
extern const struct xl_cmd xl_events_cmd;

#endif
