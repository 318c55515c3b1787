// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "sim/csv.h"

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = 0;
	return s;
}

/* Split line in place at commas into its fields (no more than max):
 * their number. */
static int split(char *line, char **fields, int max)
{
	int n = 0;

	for (char *s = line; n < max; ) {
		char *comma = strchr(s, ',');

		if (comma)
			*comma = 0;
		fields[n++] = trim(s);
		if (!comma)
			return n;
		s = comma + 1;
	}
	return n;
}

/* Fields in a line (or columns in the header): commas + 1. */
static size_t columns_of(const char *line)
{
	size_t n = 1;

	for (const char *s = line; *s; s++)
		n += *s == ',';
	return n;
}

int xl_csv_open(struct xl_csv *c, const char *path, const char *columns)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->columns = columns;
	c->f = fopen(path, "r");
	if (!c->f) {
		xl_err("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void xl_csv_close(struct xl_csv *c)
{
	if (c->f)
		fclose(c->f);
	free(c->buf);
	c->f = NULL;
	c->buf = NULL;
}

int xl_csv_refuse(const struct xl_csv *c, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xl_err_at(c->path, c->line, "%s%s%s", field ? field : "", field ? ": " : "", msg);
	return -1;
}

int xl_csv_next(struct xl_csv *c)
{
	int max = (int)columns_of(c->columns);
	size_t first_len = strcspn(c->columns, ",");

	for (;;) {
		ssize_t len = getline(&c->buf, &c->cap, c->f);
		int header;
		char *s;

		if (len < 0) {
			if (ferror(c->f))
				return xl_csv_refuse(c, NULL, "read error: %s", strerror(errno));
			return 0;
		}
		c->line++;
		s = c->buf;
		if (memchr(s, 0, len))
			return xl_csv_refuse(c, NULL, "a NUL byte at column %zu",
					     strlen(s) + 1);
		if (len && s[len - 1] == '\n')
			s[--len] = 0;
		if (len && s[len - 1] == '\r') /* CRLF */
			s[--len] = 0;
		if (c->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3)) /* UTF-8 BOM */
			s += 3;
		s = trim(s);
		if (!*s)
			continue;
		header = !c->started && !strncmp(s, c->columns, first_len) &&
			 strchr(", \t", s[first_len]);
		c->started = 1;
		if (header)
			continue;
		if (columns_of(s) > (size_t)max)
			return xl_csv_refuse(c, NULL, "%zu fields, at most %d: %s",
					     columns_of(s), max, c->columns);
		c->n = split(s, c->field, max);
		return 1;
	}
}

int xl_csv_u64(const struct xl_csv *c, int i, const char *name, int optional,
	       unsigned long long *v)
{
	const char *s = i < c->n ? c->field[i] : "";
	unsigned long long x;
	char *end;

	if (!*s) {
		if (optional)
			return 0;
		return xl_csv_refuse(c, name, i < c->n ? "empty, need a number" : "missing");
	}
	if (*s == '-' || *s == '+')
		return xl_csv_refuse(c, name, XL_CSV_SHOWN " has a sign; numbers are plain "
				     "decimal digits", XL_CSV_SHOW(s));
	if (*s < '0' || *s > '9') /* blanks: strtoull would skip them */
		return xl_csv_refuse(c, name, XL_CSV_SHOWN " is not a decimal number", XL_CSV_SHOW(s));
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end)
		return xl_csv_refuse(c, name, XL_CSV_SHOWN " is not a decimal number "
				     "(text after the digits)", XL_CSV_SHOW(s));
	if (errno)
		return xl_csv_refuse(c, name, XL_CSV_SHOWN " is above 2^64 - 1", XL_CSV_SHOW(s));
	*v = x;
	return 0;
}
