/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf exporter`: Prometheus metrics of the loaded instances over
 * HTTP (docs/metrics.md). */
#ifndef XL_EXPORTER_H
#define XL_EXPORTER_H

#include "base/cli.h"

/* Its row of the command table. Reads every instance (or those named)
 * through the readers the command's context carries (xl_cmd_ctx.env,
 * instance/readers.h). */
extern const struct xl_cmd xl_exporter_cmd;

#endif
