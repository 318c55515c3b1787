/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf exporter`: Prometheus metrics of the loaded instances over
 * HTTP (docs/metrics.md). */
#ifndef XL_EXPORTER_H
#define XL_EXPORTER_H

#include "base/cli.h"

struct xl_readers;
/* its options (for shell completion) */
extern const struct xl_opt xl_exporter_opts[];

/* argv[0] is "exporter". Reads every instance (or those named) through
 * readers at each scrape; privileged() says (0) whether this process may
 * open pinned maps, or why not (-1). Returns the exit status. */
int xl_exporter_main(int argc, char **argv, const struct xl_readers *readers,
		     int (*privileged)(void));

#endif
