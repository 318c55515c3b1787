/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The "recent events" lines of `xdpleaf top`: the one place where the
 * event stream (`xdpleaf events`, not built yet: drops, marks, CNPs, PSN
 * gaps with their packet headers) is to be fed into top. */
#ifndef XL_TOP_EVENTS_H
#define XL_TOP_EVENTS_H

#include <stdbool.h>

#define TOP_EVENT_LEN 160

/* Fill at most max lines with the instance's most recent events, newest
 * first, one line each; return how many. *available is false while there
 * is no event stream to read, and the screen says so instead of showing
 * an empty list as if nothing had happened. */
int top_recent_events(const char *instance, char lines[][TOP_EVENT_LEN], int max,
		      bool *available);

#endif
