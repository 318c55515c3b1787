/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf top`: a live terminal view of an instance, leaf or host mode,
 * refreshed in place; --once prints one frame as text. It reads state
 * only through the readers main.c hands it (instance/readers.h). */
#ifndef XL_TOP_H
#define XL_TOP_H

#include "base/cli.h"

struct xl_readers;
/* its options (for shell completion) */
extern const struct xl_opt xl_top_opts[];

/* argv[0] is "top". need_privileges() says why and returns -1 when the
 * caller may not open pinned maps (asked after --help, which needs none).
 * Exit status: 0, 1 error, 2 bad usage, 3 not loaded (--once), 128 + the
 * signal that ended it (SIGINT, SIGTERM). */
int xl_top_main(int argc, char **argv, const struct xl_readers *readers,
		int (*need_privileges)(void));

#endif
