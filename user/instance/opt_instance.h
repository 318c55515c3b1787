/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* --instance NAME as an option of a command's table (base/cli.h). */
#ifndef XL_OPT_INSTANCE_H
#define XL_OPT_INSTANCE_H

#include <stddef.h>
#include "base/cli.h"

/* An XL_T_FUNC parser: NAME checked by xl_instance_name_ok (pins.h) into
 * a const char * field. */
int xl_opt_instance(const char *v, void *field, char *err, size_t errlen);

/* The --instance row of options struct S's field f; its default is the
 * defaults' (commands start it at "default"). */
#define XL_OPT_INSTANCE(S, f, help_text)                                                          \
	{                                                                                         \
		.name = "instance", .key = 'i', .type = XL_T_FUNC, XL_FIELD(S, f), .arg = "NAME", \
		.help = help_text, .parse = xl_opt_instance                                       \
	}

#endif
