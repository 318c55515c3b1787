/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The "recent events" lines of `xdpleaf top`: the one place where single
 * events (drops, marks, CNPs, PSN gaps... with their packet headers) are to
 * be fed into top. Not from the event ring itself: it has one reader, and
 * that is `xdpleaf events` (docs/events.md); top would take its events
 * away. A source both can read (e.g. a recent-events map the dataplane
 * keeps, or a daemon that fans the ring out) would plug in here. */
#ifndef XL_TOP_EVENTS_H
#define XL_TOP_EVENTS_H

#include <stdbool.h>

#define TOP_EVENT_LEN 160

/* Fill at most max lines with the instance's most recent events, newest
 * first, one line each; return how many. *available is false while there
 * is no such source, and the screen points at `xdpleaf events` instead of
 * showing an empty list as if nothing had happened. */
int top_recent_events(const char *instance, char lines[][TOP_EVENT_LEN], int max,
		      bool *available);

#endif
