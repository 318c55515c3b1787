// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Recent events for `xdpleaf top`: the hook for the event stream. */
#include "views/top_events.h"

int top_recent_events(const char *instance, char lines[][TOP_EVENT_LEN], int max,
		      bool *available)
{
	/* No source top may read yet (top_events.h): the ring belongs to
	 * `xdpleaf events`. When one exists, read this instance's latest
	 * events here and format one per line (user/events/decode.c's words);
	 * top_render.c draws them. */
	(void)instance;
	(void)lines;
	(void)max;
	*available = false;
	return 0;
}
