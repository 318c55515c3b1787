/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf completion bash`: the bash completion script, written from the
 * command table and the option tables themselves (struct xl_cmd), so
 * that what the shell offers cannot drift from what the commands take.
 * make install generates the installed script this way. */
#ifndef XL_COMPLETION_H
#define XL_COMPLETION_H

#include <stdio.h>
#include "base/cli.h"

/* The script completing `prog`: commands (cmds, ended by NULL), then
 * the words after one (subs), then each one's options and their values:
 * files for FILE and PATH, interfaces for IF, loaded instances for
 * --instance (the directories under instances_dir: the pin root), the
 * words of an enum option, and those of a value written "a|b|c". */
void xl_completion_bash(FILE *f, const char *prog, const struct xl_cmd *const *cmds,
			const char *instances_dir);

#endif
