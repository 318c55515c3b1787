// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/cli.h"
#include "base/units.h"

#define LONG_ONLY 256 /* getopt's value of row i without a letter: 256 + i */

/* "usage: xdpleaf PATH --req X [--opt Y] ..." (wrapped at 80 columns) */
static void usage_line(FILE *f, const char *path, const struct xl_opt *opts);
/* c's --help: the usage line, "SUMMARY." or the intro, the notes, one
 * line per option with its help; or, for a command with subs, those. */
static void cmd_usage(FILE *f, const struct xl_cmd *c, const char *path);

static int count(const struct xl_opt *opts)
{
	int n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

/* A number into a field of 1, 2, 4 or 8 bytes. */
static void store(void *field, size_t size, __u64 v)
{
	switch (size) {
	case 1:
		*(__u8 *)field = (__u8)v;
		break;
	case 2:
		*(__u16 *)field = (__u16)v;
		break;
	case 4:
		*(__u32 *)field = (__u32)v;
		break;
	default:
		*(__u64 *)field = v;
		break;
	}
}

/* The largest value a field of this size holds. */
static __u64 size_max(size_t size)
{
	return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

static int out_of_range(char *err, size_t len, const char *v, __u64 lo, __u64 hi)
{
	snprintf(err, len, "%s is out of range %llu..%llu", v, (unsigned long long)lo,
		 (unsigned long long)hi);
	return -1;
}

static int parse_uint(const struct xl_opt *o, const char *v, void *field, char *err, size_t len)
{
	__u64 hi = o->max ? o->max : size_max(o->size), n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 0);
	if (!*v || *v == '-' || *v == '+' || *end || errno == EINVAL) {
		snprintf(err, len, "'%s' is not a whole number", v);
		return -1;
	}
	if (errno == ERANGE || n < o->min || n > hi)
		return out_of_range(err, len, v, o->min, hi);
	store(field, o->size, n);
	return 0;
}

static int parse_double(const struct xl_opt *o, const char *v, double *field, char *err, size_t len)
{
	char *end;
	double d = strtod(v, &end);

	if (!*v || *end || !isfinite(d)) {
		snprintf(err, len, "'%s' is not a number", v);
		return -1;
	}
	if (d < o->dmin || (o->open_min && d == o->dmin) || d > o->dmax) {
		snprintf(err, len,
			 o->open_min ? "%s is out of range (%g, %g]" : "%s is out of range %g..%g",
			 v, o->dmin, o->dmax);
		return -1;
	}
	*field = d;
	return 0;
}

static int parse_enum(const struct xl_opt *o, const char *v, void *field, char *err, size_t len)
{
	size_t n;

	for (const struct xl_opt_word *w = o->words; w->word; w++)
		if (!strcmp(v, w->word)) {
			store(field, o->size, (__u64)w->value);
			return 0;
		}
	n = (size_t)snprintf(err, len, "'%s' is not", v);
	for (const struct xl_opt_word *w = o->words; w->word && n < len; w++)
		n += (size_t)snprintf(err + n, len - n, "%s %s",
				      w == o->words ? "" :
				      w[1].word	    ? "," :
						      " or",
				      w->word);
	return -1;
}

/* The value v of option o into its field; 0, or -1 with why in err. */
static int parse_value(const struct xl_opt *o, const char *v, void *opts, char *err, size_t len)
{
	void *field = (char *)opts + o->off;
	__u64 u = 0;
	__u32 u32 = 0;
	char lo[24];

	switch (o->type) {
	case XL_T_HELP:
		return 0;
	case XL_T_FLAG:
		store(field, o->size, 1);
		return 0;
	case XL_T_STR:
		*(const char **)field = v;
		return 0;
	case XL_T_UINT:
		return parse_uint(o, v, field, err, len);
	case XL_T_DOUBLE:
		return parse_double(o, v, field, err, len);
	case XL_T_RATE:
		if (xl_parse_rate(v, &u, err, len))
			return -1;
		if (o->max && (u < o->min || u > o->max))
			return out_of_range(err, len, v, o->min, o->max);
		store(field, o->size, u);
		return 0;
	case XL_T_BYTES:
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)o->min);
		if (xl_parse_bytes(o->name, v, (__u32)o->min, lo, &u32, err, len))
			return -1;
		if (o->max && u32 > o->max)
			return out_of_range(err, len, v, o->min, o->max);
		store(field, o->size, u32);
		return 0;
	case XL_T_DURATION:
		if (xl_parse_duration(v, o->min, o->max, &u, err, len))
			return -1;
		store(field, o->size, u);
		return 0;
	case XL_T_ENUM:
		return parse_enum(o, v, field, err, len);
	case XL_T_FUNC:
		return o->parse(v, field, err, len);
	}
	return -1;
}

/* getopt_long's tables of the rows: shorts starts with ':' so that a
 * missing value is told from an unknown option. */
static struct option *getopt_table(const struct xl_opt *opts, int n, char *shorts, size_t len)
{
	struct option *lo = calloc(n + 1, sizeof(*lo));
	size_t s = 0;

	if (!lo)
		return NULL;
	shorts[s++] = ':';
	for (int i = 0; i < n; i++) {
		const struct xl_opt *o = &opts[i];
		bool arg = o->type != XL_T_FLAG && o->type != XL_T_HELP;

		lo[i] = (struct option){ o->name, arg ? required_argument : no_argument, NULL,
					 o->key ? o->key : LONG_ONLY + i };
		if (o->key && s + 3 < len) {
			shorts[s++] = o->key;
			if (arg)
				shorts[s++] = ':';
		}
	}
	shorts[s] = 0;
	return lo;
}

static int row_of(const struct xl_opt *opts, int n, int ch)
{
	if (ch >= LONG_ONLY)
		return ch - LONG_ONLY < n ? ch - LONG_ONLY : -1;
	for (int i = 0; i < n; i++)
		if (opts[i].key && opts[i].key == ch)
			return i;
	return -1;
}

/* The option as typed: "--name" (without "=value") or "-x". */
static void typed(char *buf, size_t len, int argc, char **argv)
{
	const char *w = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "";

	if (!strncmp(w, "--", 2))
		snprintf(buf, len, "%.*s", (int)strcspn(w, "="), w);
	else
		snprintf(buf, len, "-%c", optopt > 0 && optopt < LONG_ONLY ? optopt : '?');
}

/* Whether row o's field can hold its type: a table that says otherwise
 * is a bug, caught by the first run of its command (and test_cli). */
static bool row_ok(const struct xl_opt *o)
{
	bool int_size = o->size == 1 || o->size == 2 || o->size == 4 || o->size == 8;

	switch (o->type) {
	case XL_T_HELP:
	case XL_T_FUNC:
		return true;
	case XL_T_STR:
		return o->size == sizeof(const char *);
	case XL_T_DOUBLE:
		return o->size == sizeof(double);
	case XL_T_RATE:
	case XL_T_DURATION:
		return o->size == 8;
	case XL_T_ENUM:
		return int_size && o->words;
	default:
		return int_size;
	}
}

/* The command's messages, and those of all it calls, say "xdpleaf PATH: ..."
 * (base/log.h): set here, where every command starts, and nowhere by hand. */
static void name_messages(const char *path)
{
	char prog[128];

	snprintf(prog, sizeof(prog), "xdpleaf %s", path);
	xl_log_set_prog(prog);
}

static int bad_usage(const struct xl_cmd *c, const char *path)
{
	usage_line(stderr, path, c->opts);
	return XL_PARSE_BAD;
}

int xl_cmd_parse(const struct xl_cmd *c, const char *path, int argc, char **argv, void *opts)
{
	int n = count(c->opts), ch, i;
	char shorts[64], err[512], what[64];
	struct option *lo;
	bool *given;
	int ret = XL_PARSE_OK;

	name_messages(path);
	for (i = 0; i < n; i++)
		if (!row_ok(&c->opts[i]) || c->opts[i].off + c->opts[i].size > c->opts_size) {
			xl_err("--%s: its table row does not fit its field (a bug)",
			       c->opts[i].name);
			return XL_PARSE_BAD;
		}
	if (c->defaults)
		memcpy(opts, c->defaults, c->opts_size);
	else
		memset(opts, 0, c->opts_size);
	lo = getopt_table(c->opts, n, shorts, sizeof(shorts));
	given = calloc(n + 1, sizeof(*given));
	if (!lo || !given) {
		free(lo);
		free(given);
		xl_err("out of memory");
		return XL_PARSE_BAD;
	}
	optind = 0; /* glibc: start afresh, also after an earlier parse */
	opterr = 0; /* the messages are ours */
	while (ret == XL_PARSE_OK && (ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (ch == '?' || ch == ':') {
			typed(what, sizeof(what), argc, argv);
			if (ch == '?')
				xl_err("unknown option '%s'", what);
			else
				xl_err("%s needs a value", what);
			ret = bad_usage(c, path);
			break;
		}
		i = row_of(c->opts, n, ch);
		if (i < 0)
			continue;
		if (c->opts[i].type == XL_T_HELP) {
			cmd_usage(stdout, c, path);
			ret = XL_PARSE_HELP;
			break;
		}
		if (parse_value(&c->opts[i], optarg, opts, err, sizeof(err))) {
			xl_err("--%s: %s", c->opts[i].name, err);
			ret = XL_PARSE_BAD;
			break;
		}
		given[i] = true;
		if (c->opts[i].has_given)
			*(bool *)((char *)opts + c->opts[i].given_off) = true;
	}
	if (ret == XL_PARSE_OK && optind < argc) {
		xl_err("unexpected argument '%s'", argv[optind]);
		ret = XL_PARSE_BAD;
	}
	for (i = 0; ret == XL_PARSE_OK && i < n; i++)
		if (c->opts[i].required && !given[i]) {
			xl_err("--%s %s is required", c->opts[i].name,
			       c->opts[i].arg ? c->opts[i].arg : "");
			ret = bad_usage(c, path);
		}
	free(lo);
	free(given);
	return ret;
}

static const struct xl_cmd *sub_named(const struct xl_cmd *c, const char *name)
{
	for (const struct xl_cmd *const *s = c->subs; s && *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	return NULL;
}

int xl_cmd_main(const struct xl_cmd *c, const char *path, int argc, char **argv,
		const struct xl_cmd_ctx *outer)
{
	struct xl_cmd_ctx ctx = { c, path, outer->argc, outer->argv, outer->env };
	void *opts;
	int ret;

	name_messages(path);
	if (c->subs) {
		const struct xl_cmd *s;
		char sub_path[128];

		if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			cmd_usage(argc < 2 ? stderr : stdout, c, path);
			return argc < 2 ? 2 : 0;
		}
		s = sub_named(c, argv[1]);
		if (!s) {
			xl_err("unknown %s '%s'", c->sub_noun ? c->sub_noun : "word", argv[1]);
			cmd_usage(stderr, c, path);
			return 2;
		}
		snprintf(sub_path, sizeof(sub_path), "%s %s", path, s->name);
		return xl_cmd_main(s, sub_path, argc - 1, argv + 1, outer);
	}
	opts = calloc(1, c->opts_size ? c->opts_size : 1);
	if (!opts) {
		xl_err("out of memory");
		return 1;
	}
	ret = xl_cmd_parse(c, path, argc, argv, opts);
	if (ret == XL_PARSE_OK && c->check && c->check(&ctx, opts))
		ret = XL_PARSE_BAD;
	if (ret == XL_PARSE_OK) {
		ret = c->run(&ctx, opts);
		ret = ret < 0 ? 1 : ret;
	} else {
		ret = ret == XL_PARSE_HELP ? 0 : 2;
	}
	free(opts);
	return ret;
}

static bool takes_value(const struct xl_opt *o)
{
	return o->type != XL_T_FLAG && o->type != XL_T_HELP;
}

static void usage_line(FILE *f, const char *path, const struct xl_opt *opts)
{
	int col = fprintf(f, "usage: xdpleaf %s", path), indent = col + 1;
	char item[128];

	/* required options first, then the rest; --help is implied */
	for (int pass = 0; pass < 2; pass++)
		for (const struct xl_opt *o = opts; o && o->name; o++) {
			bool arg = takes_value(o);

			if (o->required != !pass || o->type == XL_T_HELP)
				continue;
			snprintf(item, sizeof(item), "%s--%s%s%s%s", o->required ? "" : "[",
				 o->name, arg ? " " : "", arg && o->arg ? o->arg : "",
				 o->required ? "" : "]");
			if (col + 1 + (int)strlen(item) > 79)
				col = fprintf(f, "\n%*s", indent - 1, "") - 1;
			col += fprintf(f, " %s", item);
		}
	fprintf(f, "\n");
}

static void usage(FILE *f, const char *path, const struct xl_opt *opts, const char *intro)
{
	usage_line(f, path, opts);
	if (intro)
		fprintf(f, "\n%s\n", intro);
	fprintf(f, "\n");
	for (const struct xl_opt *o = opts; o && o->name; o++) {
		char head[64];
		const char *h = o->help, *nl;
		bool arg = takes_value(o);

		snprintf(head, sizeof(head), "%c%c%s--%s%s%s", o->key ? '-' : ' ',
			 o->key ? o->key : ' ', o->key ? ", " : "  ", o->name, arg ? " " : "",
			 arg && o->arg ? o->arg : "");
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

static void cmd_usage(FILE *f, const struct xl_cmd *c, const char *path)
{
	char *intro = NULL;
	size_t len;

	if (c->subs) {
		char noun[32];
		size_t i;

		/* "model" -> "MODEL", the placeholder of the usage line */
		snprintf(noun, sizeof(noun), "%s", c->sub_noun ? c->sub_noun : "word");
		for (i = 0; noun[i]; i++)
			noun[i] = (char)toupper((unsigned char)noun[i]);
		fprintf(f, "usage: xdpleaf %s %s [OPTIONS]   ('xdpleaf %s %s --help')\n\n%s\n",
			path, noun, path, noun, c->intro ? c->intro : c->summary);
		for (const struct xl_cmd *const *s = c->subs; *s; s++)
			fprintf(f, "  %-8s %s\n", (*s)->name, (*s)->summary);
		if (c->notes)
			fprintf(f, "\n%s\n", c->notes);
		return;
	}
	/* "SUMMARY." or the intro, then the notes after a blank line */
	len = strlen(c->intro ? c->intro : c->summary) + (c->notes ? strlen(c->notes) : 0) + 4;
	intro = malloc(len);
	if (intro)
		snprintf(intro, len, "%s%s%s%s", c->intro ? c->intro : c->summary,
			 c->intro ? "" : ".", c->notes ? "\n\n" : "", c->notes ? c->notes : "");
	usage(f, path, c->opts, intro ? intro : c->summary);
	free(intro);
}
