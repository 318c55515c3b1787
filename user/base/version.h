/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What this xdpleaf is: its release and the git commit it was built from
 * (the Makefile writes them into build/build_version.h). */
#ifndef XL_VERSION_H
#define XL_VERSION_H

extern const char xl_version[];
extern const char xl_git_commit[]; /* "abc1234[-dirty]" or "unknown" */

#endif
