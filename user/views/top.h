/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf top`: a live terminal view of an instance, leaf or host mode,
 * refreshed in place; --once prints one frame as text. It reads state
 * only through the readers main.c hands it (instance/readers.h). */
#ifndef XL_TOP_H
#define XL_TOP_H

#include "base/cli.h"

/* Its row of the command table; it reads through the readers the
 * command's context carries (xl_cmd_ctx.env, instance/readers.h). Exit
 * status: 0, 1 error, 2 bad usage, 3 not loaded (--once), 128 + the
 * signal that ended it (SIGINT, SIGTERM). */
extern const struct xl_cmd xl_top_cmd;

#endif
