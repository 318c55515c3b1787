// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Recent events for `xdpleaf top`: the hook for the event stream. */
#include "views/top_events.h"

int top_recent_events(const char *instance, char lines[][TOP_EVENT_LEN], int max,
		      bool *available)
{
	/* No event stream exists yet. When `xdpleaf events` lands, read its
	 * ring buffer (or whatever it exposes) for this instance here and
	 * format one event per line; top_render.c draws them as they come. */
	(void)instance;
	(void)lines;
	(void)max;
	*available = false;
	return 0;
}
