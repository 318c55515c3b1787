// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli.h"

static int count(const struct xl_opt *opts)
{
	int n = 0;

	while (opts[n].name)
		n++;
	return n;
}

int xl_opt_next(struct xl_opt_parser *p, int argc, char **argv)
{
	struct option *lo = p->getopt;

	if (!lo) {
		size_t s = 0;

		p->n = count(p->opts);
		lo = calloc(p->n + 1, sizeof(*lo));
		if (!lo)
			return '?';
		for (int i = 0; i < p->n; i++) {
			const struct xl_opt *o = &p->opts[i];

			lo[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						 NULL, o->key };
			if (o->key < 256 && s + 3 < sizeof(p->shorts)) {
				p->shorts[s++] = (char)o->key;
				if (o->arg)
					p->shorts[s++] = ':';
			}
		}
		p->shorts[s] = 0;
		p->getopt = lo;
		optind = 1;
	}
	return getopt_long(argc, argv, p->shorts, lo, NULL);
}

void xl_opt_free(struct xl_opt_parser *p)
{
	free(p->getopt);
	p->getopt = NULL;
}

void xl_opt_usage_line(FILE *f, const char *cmd, const struct xl_opt *opts)
{
	int col = fprintf(f, "usage: xdpleaf %s", cmd), indent = col + 1;
	char item[128];

	/* required options first, then the rest; --help is implied */
	for (int pass = 0; pass < 2; pass++)
		for (const struct xl_opt *o = opts; o->name; o++) {
			if (o->required != !pass || !strcmp(o->name, "help"))
				continue;
			snprintf(item, sizeof(item), "%s--%s%s%s%s", o->required ? "" : "[",
				 o->name, o->arg ? " " : "", o->arg ? o->arg : "",
				 o->required ? "" : "]");
			if (col + 1 + (int)strlen(item) > 79) {
				col = fprintf(f, "\n%*s", indent - 1, "") - 1;
			}
			col += fprintf(f, " %s", item);
		}
	fprintf(f, "\n");
}

void xl_opt_usage(FILE *f, const char *cmd, const struct xl_opt *opts, const char *intro)
{
	xl_opt_usage_line(f, cmd, opts);
	if (intro)
		fprintf(f, "\n%s\n", intro);
	fprintf(f, "\n");
	for (const struct xl_opt *o = opts; o->name; o++) {
		char head[64];
		const char *h = o->help, *nl;

		snprintf(head, sizeof(head), "%c%c%s--%s%s%s", o->key < 256 ? '-' : ' ',
			 o->key < 256 ? o->key : ' ', o->key < 256 ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		/* the help's lines, the first beside the option if it fits */
		if (strlen(head) > 22) {
			fprintf(f, "  %s\n", head);
			head[0] = 0;
		}
		do {
			nl = strchr(h, '\n');
			fprintf(f, "  %-22s %.*s\n", head, nl ? (int)(nl - h) : (int)strlen(h), h);
			head[0] = 0;
			h = nl ? nl + 1 : NULL;
		} while (h);
	}
}
