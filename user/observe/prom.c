// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "observe/prom.h"

const char *xl_prom_type_name(enum xl_prom_type t)
{
	switch (t) {
	case XL_PROM_COUNTER: return "counter";
	case XL_PROM_GAUGE: return "gauge";
	case XL_PROM_HISTOGRAM: return "histogram";
	}
	return "untyped";
}

void xl_prom_label(struct xl_prom_labels *l, const char *name, const char *value)
{
	if (l->n >= XL_PROM_MAX_LABELS)
		return; /* the label sets are fixed by metrics.c's scopes */
	l->name[l->n] = name;
	l->value[l->n] = value ? value : "";
	l->n++;
}

/* HELP escapes backslash and newline; a label value also the double
 * quote. Anything else, UTF-8 included, goes as it is. */
static void put_escaped(FILE *f, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

void xl_prom_family(struct xl_prom *p, const char *name, enum xl_prom_type type,
		    const char *help)
{
	p->name = name;
	p->type = type;
	p->help = help;
	p->header_done = 0;
}

static void put_label(FILE *f, int *first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", *first ? "{" : ",", name);
	put_escaped(f, value, 1);
	fputc('"', f);
	*first = 0;
}

void xl_prom_sample(struct xl_prom *p, const char *suffix,
		    const struct xl_prom_labels *l, const char *extra_name,
		    const char *extra_value, const char *value)
{
	int first = 1;

	if (!p->header_done) {
		fprintf(p->f, "# HELP %s ", p->name);
		put_escaped(p->f, p->help, 0);
		fprintf(p->f, "\n# TYPE %s %s\n", p->name, xl_prom_type_name(p->type));
		p->header_done = 1;
	}
	fprintf(p->f, "%s%s", p->name, suffix);
	for (int i = 0; l && i < l->n; i++)
		put_label(p->f, &first, l->name[i], l->value[i]);
	if (extra_name)
		put_label(p->f, &first, extra_name, extra_value);
	fprintf(p->f, "%s %s\n", first ? "" : "}", value);
}

const char *xl_prom_u64(char buf[XL_PROM_VALUE_MAX], __u64 v)
{
	snprintf(buf, XL_PROM_VALUE_MAX, "%llu", (unsigned long long)v);
	return buf;
}

const char *xl_prom_f64(char buf[XL_PROM_VALUE_MAX], double v)
{
	if (isnan(v))
		return strcpy(buf, "NaN");
	if (isinf(v))
		return strcpy(buf, v > 0 ? "+Inf" : "-Inf");
	/* the shortest of 15 or 17 significant digits that reads back as
	 * this double (0.1, not 0.10000000000000001) */
	snprintf(buf, XL_PROM_VALUE_MAX, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, XL_PROM_VALUE_MAX, "%.17g", v);
	return buf;
}

int xl_prom_name_ok(const char *s, int is_label)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++) {
		char c = *s;

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || (c == ':' && !is_label)))
			return 0;
	}
	return 1;
}
