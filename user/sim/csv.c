// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int xl_csv_split(char *line, char **fields, int max)
{
	int n = 0;

	for (char *s = line;; ) {
		char *comma = strchr(s, ',');

		if (n == max)
			return -1;
		if (comma)
			*comma = 0;
		fields[n++] = trim(s);
		if (!comma)
			return n;
		s = comma + 1;
	}
}

int xl_csv_u64(const char *field, unsigned long long *v)
{
	char *end;

	if (*field < '0' || *field > '9')
		return -1; /* empty, a sign, blanks: strtoull would take them */
	errno = 0;
	*v = strtoull(field, &end, 10);
	return errno || *end ? -1 : 0;
}
