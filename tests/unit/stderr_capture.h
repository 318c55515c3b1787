/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What a piece of code writes to stderr (fd 2), for a unit test to
 * compare: stderr_capture_start() sends fd 2 to a temporary file,
 * stderr_capture_end() puts it back and returns the text (malloc'd). */
#ifndef XL_STDERR_CAPTURE_H
#define XL_STDERR_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int capture_saved = -1;
static FILE *capture_file;

/* The temporary file, for a test that needs its identity (fstat). */
static inline FILE *stderr_capture_start(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	capture_saved = dup(2);
	if (!capture_file || capture_saved < 0 || dup2(fileno(capture_file), 2) < 0)
		abort();
	return capture_file;
}

static inline char *stderr_capture_end(void)
{
	long len;
	char *text;

	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	len = lseek(fileno(capture_file), 0, SEEK_END); /* written through fd 2 */
	text = calloc(1, len > 0 ? (size_t)len + 1 : 1);
	if (len < 0 || !text || fseek(capture_file, 0, SEEK_SET) ||
	    (len && fread(text, 1, (size_t)len, capture_file) != (size_t)len))
		abort();
	fclose(capture_file);
	return text;
}

#endif
