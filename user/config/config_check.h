/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The checks reading calls (config.c -> config_check.c; the checks call
 * back only into the parse context, config_parse.h). Private to config/. */
#ifndef XL_CONFIG_CHECK_H
#define XL_CONFIG_CHECK_H

#include <stdbool.h>
#include "config/config_parse.h"

/* The checks of the section being left; false (and the error recorded) if
 * it fails one. */
bool cfg_close_section(struct ctx *c);
/* Cross-references and mode rules, once the whole file is read. */
bool cfg_check_all(struct ctx *c, bool check_interfaces);

#endif
