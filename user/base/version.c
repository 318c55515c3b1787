// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Only this file includes build/build_version.h, so a new commit recompiles one
 * file. */
#include "base/version.h"
#include "build_version.h"

const char xl_version[] = XL_VERSION;
const char xl_git_commit[] = XL_GIT_COMMIT;
