/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* A frame of `xdpleaf top` as lines of text with a style each: the same
 * lines go to the terminal (curses, top.c) and, for --once, to stdout. */
#ifndef XL_TOP_RENDER_H
#define XL_TOP_RENDER_H

#include <stdbool.h>
#include "views/top_view.h"

#define TOP_LINE_LEN 320

enum top_style {
	TOP_TEXT,
	TOP_BANNER,  /* the first line: instance, mode, time */
	TOP_SECTION, /* a section's title */
	TOP_COLUMNS, /* a table's column names */
	TOP_ALERT,   /* not loaded, a reader's error, a link down */
};

struct top_line {
	enum top_style style;
	char text[TOP_LINE_LEN];
};

struct top_screen {
	struct top_line *lines;
	int n;
	int rows; /* how many lines there is room for (set it; may change) */
	int cap;  /* lines allocated */
};

/* What the frame is about beside the numbers. */
struct top_frame_info {
	const char *instance;
	unsigned interval_ms;
	bool paused;
	bool once;           /* no key help: nobody can press them */
	enum top_sort sort;
	const char *error;   /* the last reader's complaint, or NULL */
};

/* Fill scr (scr->rows lines at most; the flow tables get what the fixed
 * sections leave, and at most 10 rows each in --once). 0, or -1 out of
 * memory. */
int top_render(struct top_screen *scr, const struct top_view *v,
	       const struct top_frame_info *info);
void top_screen_free(struct top_screen *scr);

#endif
