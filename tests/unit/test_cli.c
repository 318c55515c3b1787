// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The option parser of base/cli.h: every type into its field, ranges and
 * their messages, unknown options, missing values and arguments, required
 * options, --help and completion from the same table, sub-commands. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/cli.h"
#include "base/log.h"
#include "base/completion.h"

struct t_opts {
	bool flag;
	int iflag;
	const char *str;
	__u8 small;
	__u32 n;
	__u64 big;
	double frac;
	__u64 rate;
	__u32 bytes;
	__u64 ns;
	int color;
	__u32 list_n;
	bool n_given;
	const char *req;
};

static int count_commas(const char *v, void *field, char *err, size_t len)
{
	__u32 n = 1;

	if (!*v) {
		snprintf(err, len, "empty list");
		return -1;
	}
	for (; *v; v++)
		n += *v == ',';
	*(__u32 *)field = n;
	return 0;
}

static const struct xl_opt_word colors[] = { { "red", 1 },
					     { "green", 2 },
					     { "blue", 7 },
					     { NULL, 0 } };
#define F(f) XL_FIELD(struct t_opts, f)
static const struct xl_opt t_table[] = {
	{ "flag", 'f', XL_T_FLAG, F(flag), NULL, "a flag" },
	{ "iflag", 0, XL_T_FLAG, F(iflag), NULL, "a flag into an int" },
	{ "str", 's', XL_T_STR, F(str), "S", "a string" },
	{ "small", 0, XL_T_UINT, F(small), "N", "0..200", .max = 200 },
	{ "n", 'n', XL_T_UINT, F(n), "N", "1..1000", .min = 1, .max = 1000,
	  XL_GIVEN(struct t_opts, n_given) },
	{ "big", 0, XL_T_UINT, F(big), "N", "any 64-bit number" },
	{ "frac", 0, XL_T_DOUBLE, F(frac), "D", "(0, 1]", .dmin = 0, .dmax = 1, .open_min = true },
	{ "rate", 0, XL_T_RATE, F(rate), "RATE", "bit/s" },
	{ "bytes", 0, XL_T_BYTES, F(bytes), "BYTES", "64..9000", .min = 64, .max = 9000 },
	{ "time", 0, XL_T_DURATION, F(ns), "T", "1us..1s", .min = 1000, .max = 1000000000 },
	{ "color", 0, XL_T_ENUM, F(color), "red|green|blue", "a word", .words = colors },
	{ "list", 0, XL_T_FUNC, F(list_n), "A,B,...", "a list\nof two lines",
	  .parse = count_commas },
	{ "req", 'r', XL_T_STR, F(req), "X", "required", .required = true },
	XL_OPT_HELP,
	XL_OPT_END
};
static const struct t_opts t_defaults = { .n = 5, .color = 2 };

static int ran;
static int t_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct t_opts *o = opts;

	ran++;
	assert_string_equal(ctx->path, "t");
	return o->n == 13 ? -1 : (int)o->n % 10;
}

static int t_check(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct t_opts *o = opts;

	(void)ctx;
	if (o->n == 999) {
		xl_err("999 is not allowed with the others"); /* "xdpleaf t: " from the parser */
		return -1;
	}
	return 0;
}

static const struct xl_cmd t_cmd = {
	.name = "t",
	.summary = "a test command",
	.notes = "Some notes.",
	.opts = t_table,
	XL_CMD_OPTS(struct t_opts, &t_defaults),
	.check = t_check,
	.run = t_run,
};

/* What call() parses or runs, and what it wrote to stdout and stderr. */
static const struct xl_cmd *target = &t_cmd;
static char out[16384], err[16384];

static void capture(int fd, FILE *f, char *buf, int saved)
{
	long n;

	fflush(f);
	n = lseek(fd, 0, SEEK_CUR);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, n > 0 && n < (long)sizeof(out) ? (size_t)n : sizeof(out) - 1);
	buf[n > 0 ? n : 0] = 0;
	dup2(saved, f == stdout ? 1 : 2);
	close(saved);
	close(fd);
}

/* argv from a NULL-ended list; parse (or run, main) with output captured. */
static int call(bool main, struct t_opts *o, ...)
{
	char *argv[32];
	int argc = 0, ret, so, se, fo, fe;
	char tmpl_o[] = "/tmp/test_cli_XXXXXX", tmpl_e[] = "/tmp/test_cli_XXXXXX";
	struct xl_cmd_ctx outer = { NULL, "", 0, NULL, NULL };
	va_list ap;

	va_start(ap, o);
	argv[argc++] = (char *)"t";
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	fo = mkstemp(tmpl_o);
	fe = mkstemp(tmpl_e);
	unlink(tmpl_o);
	unlink(tmpl_e);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	ret = main ? xl_cmd_main(target, target->name, argc, argv, &outer) :
		     xl_cmd_parse(target, target->name, argc, argv, o);
	capture(fo, stdout, out, so);
	capture(fe, stderr, err, se);
	return ret;
}
#define PARSE(o, ...) call(false, o, __VA_ARGS__, (char *)NULL)
#define MAIN(...) call(true, NULL, __VA_ARGS__, (char *)NULL)

static void test_types_fill_their_fields(void **state)
{
	struct t_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-r", "x"), XL_PARSE_OK);
	/* the defaults, and nothing else given */
	assert_int_equal(o.n, 5);
	assert_int_equal(o.color, 2);
	assert_false(o.flag || o.n_given);
	assert_int_equal(PARSE(&o, "--req", "x", "-f", "--iflag", "-s", "hello", "--small", "200",
			       "-n", "0x10", "--big", "18446744073709551615", "--frac", "0.25",
			       "--rate", "2.5G", "--bytes", "8K", "--time", "250us", "--color",
			       "blue", "--list", "a,b,c", "--str=again"),
			 XL_PARSE_OK);
	assert_string_equal(err, "");
	assert_true(o.flag);
	assert_int_equal(o.iflag, 1);
	assert_string_equal(o.str, "again"); /* the last one given */
	assert_int_equal(o.small, 200);
	assert_int_equal(o.n, 16);
	assert_true(o.n_given);
	assert_true(o.big == ~0ULL);
	assert_true(o.frac == 0.25);
	assert_true(o.rate == 2500000000ULL);
	assert_int_equal(o.bytes, 8192);
	assert_true(o.ns == 250000);
	assert_int_equal(o.color, 7);
	assert_int_equal(o.list_n, 3);
	assert_string_equal(o.req, "x");
}

/* Each refusal: exit as bad usage, one line naming the command, the
 * option and why, the value as given. */
static void test_ranges_and_bad_values(void **state)
{
	static const struct {
		const char *opt, *val, *msg;
	} cases[] = {
		{ "-n", "0", "xdpleaf t: --n: 0 is out of range 1..1000\n" },
		{ "-n", "1001", "xdpleaf t: --n: 1001 is out of range 1..1000\n" },
		{ "-n", "-1", "xdpleaf t: --n: '-1' is not a whole number\n" },
		{ "-n", "5x", "xdpleaf t: --n: '5x' is not a whole number\n" },
		{ "-n", "", "xdpleaf t: --n: '' is not a whole number\n" },
		{ "--small", "201", "xdpleaf t: --small: 201 is out of range 0..200\n" },
		{ "--big", "18446744073709551616",
		  "xdpleaf t: --big: 18446744073709551616 is out of range 0..18446744073709551615\n" },
		{ "--frac", "0", "xdpleaf t: --frac: 0 is out of range (0, 1]\n" },
		{ "--frac", "1.5", "xdpleaf t: --frac: 1.5 is out of range (0, 1]\n" },
		{ "--frac", "nan", "xdpleaf t: --frac: 'nan' is not a number\n" },
		{ "--rate", "0", "xdpleaf t: --rate: rate '0' out of range (1M..1600G bit/s)\n" },
		{ "--bytes", "9K", "xdpleaf t: --bytes: 9K is out of range 64..9000\n" },
		{ "--bytes", "10",
		  "xdpleaf t: --bytes: bytes '10' out of range (64..256M bytes)\n" },
		{ "--time", "10",
		  "xdpleaf t: --time: duration '10' has no unit (write ns, us, ms "
		  "or s right after the number, e.g. 100us)\n" },
		{ "--color", "pink", "xdpleaf t: --color: 'pink' is not red, green or blue\n" },
		{ "--list", "", "xdpleaf t: --list: empty list\n" },
	};
	struct t_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(PARSE(&o, "-r", "x", cases[i].opt, cases[i].val), XL_PARSE_BAD);
		assert_string_equal(err, cases[i].msg);
		assert_string_equal(out, "");
	}
}

static void test_unknown_missing_unexpected_required(void **state)
{
	struct t_opts o;
	const char *usage = "usage: xdpleaf t --req X [--flag] [--iflag] [--str S] [--small N]";

	(void)state;
	assert_int_equal(PARSE(&o, "-r", "x", "--nope"), XL_PARSE_BAD);
	assert_non_null(strstr(err, "xdpleaf t: unknown option '--nope'\n"));
	assert_non_null(strstr(err, usage));
	assert_int_equal(PARSE(&o, "-r", "x", "-z"), XL_PARSE_BAD);
	assert_non_null(strstr(err, "xdpleaf t: unknown option '-z'\n"));
	assert_int_equal(PARSE(&o, "-r", "x", "--n"), XL_PARSE_BAD);
	assert_non_null(strstr(err, "xdpleaf t: --n needs a value\n"));
	assert_int_equal(PARSE(&o, "-r", "x", "-n"), XL_PARSE_BAD);
	assert_non_null(strstr(err, "xdpleaf t: -n needs a value\n"));
	assert_int_equal(PARSE(&o, "-r", "x", "stray"), XL_PARSE_BAD);
	assert_string_equal(err, "xdpleaf t: unexpected argument 'stray'\n");
	assert_int_equal(PARSE(&o, "-f"), XL_PARSE_BAD);
	assert_non_null(strstr(err, "xdpleaf t: --req X is required\n"));
	assert_non_null(strstr(err, usage));
}

/* --help: the usage line, the summary and notes, every row with its
 * value's name and help, on stdout; nothing parsed after it matters. */
static void test_help_from_the_table(void **state)
{
	struct t_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--help", "--nope"), XL_PARSE_HELP);
	assert_string_equal(err, "");
	assert_non_null(strstr(out, "usage: xdpleaf t --req X [--flag] [--iflag] [--str S]"));
	assert_non_null(strstr(out, "\n\na test command.\n\nSome notes.\n\n"));
	assert_non_null(strstr(out, "\n  -f, --flag             a flag\n"));
	assert_non_null(strstr(out, "\n  -n, --n N              1..1000\n"));
	assert_non_null(
		strstr(out, "\n      --color red|green|blue\n                         a word\n"));
	assert_non_null(strstr(
		out, "\n      --list A,B,...     a list\n                         of two lines\n"));
	assert_non_null(strstr(out, "\n  -h, --help             this text\n"));
	/* --help is implied, not in the usage line */
	assert_null(strstr(out, "[--help]"));
	assert_int_equal(PARSE(&o, "-h"), XL_PARSE_HELP);
}

/* xl_cmd_main: help exits 0, bad usage 2 (the check's too), run's status
 * as it is, < 0 as 1. */
static void test_main_exit_status(void **state)
{
	(void)state;
	ran = 0;
	assert_int_equal(MAIN("--help"), 0);
	assert_int_equal(MAIN("-r", "x", "-n", "0"), 2);
	assert_int_equal(MAIN("-r", "x", "-n", "999"), 2);
	assert_string_equal(err, "xdpleaf t: 999 is not allowed with the others\n");
	assert_int_equal(ran, 0);
	assert_int_equal(MAIN("-r", "x", "-n", "3"), 3);
	assert_int_equal(MAIN("-r", "x", "-n", "13"), 1);
	assert_int_equal(ran, 2);
}

static const struct xl_cmd *const t_subs[] = { &t_cmd, NULL };
static const struct xl_cmd t_root = {
	.name = "root",
	.summary = "with subs",
	.intro = "Words:",
	.subs = t_subs,
	.sub_noun = "word",
};

static void test_subs_and_completion(void **state)
{
	const struct xl_cmd *cmds[] = { &t_root, NULL };
	char *script = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&script, &len);

	(void)state;
	target = &t_root;
	assert_int_equal(MAIN("x"), 2);
	assert_non_null(strstr(err, "xdpleaf root: unknown word 'x'\n"
				    "usage: xdpleaf root WORD [OPTIONS]"));
	assert_int_equal(MAIN("--help"), 0);
	assert_non_null(strstr(out, "Words:\n  t        a test command\n"));
	/* the sub parses its own options, its messages named by the path */
	assert_int_equal(MAIN("t", "-r", "x", "-n", "0"), 2);
	assert_string_equal(err, "xdpleaf root t: --n: 0 is out of range 1..1000\n");
	target = &t_cmd;
	/* completion from the same rows: options, enum words, sub words */
	xl_completion_bash(f, "xdpleaf", cmds, "/nonexistent");
	fclose(f);
	assert_non_null(strstr(script, "_xdpleaf_reply -W 't --help'"));
	assert_non_null(
		strstr(script, "'root t --color')\n\t\t_xdpleaf_reply -W 'red green blue'"));
	assert_non_null(strstr(script, "'root t -n'"));
	assert_non_null(strstr(script, "--flag --iflag --str --small --n --big"));
	free(script);
}

/* A row whose field cannot hold its type is refused before parsing. */
static void test_bad_table_row(void **state)
{
	static const struct xl_opt bad[] = { { "rate", 0, XL_T_RATE, XL_FIELD(struct t_opts, bytes),
					       "RATE", "a __u32 field" },
					     XL_OPT_END };
	const struct xl_cmd c = { .name = "bad",
				  .summary = "s",
				  .opts = bad,
				  XL_CMD_OPTS(struct t_opts, NULL),
				  .run = t_run };
	struct t_opts o;

	(void)state;
	target = &c;
	assert_int_equal(PARSE(&o, "--rate", "1G"), XL_PARSE_BAD);
	assert_string_equal(err,
			    "xdpleaf bad: --rate: its table row does not fit its field (a bug)\n");
	target = &t_cmd;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_fill_their_fields),
		cmocka_unit_test(test_ranges_and_bad_values),
		cmocka_unit_test(test_unknown_missing_unexpected_required),
		cmocka_unit_test(test_help_from_the_table),
		cmocka_unit_test(test_main_exit_status),
		cmocka_unit_test(test_subs_and_completion),
		cmocka_unit_test(test_bad_table_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
