/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Commands and their options from tables, as xdp-tools' DEFINE_OPTION and
 * DEFINE_COMMAND (lib/util/params.h): each command has its own options
 * struct and one table of typed rows (name, type, range, the field it
 * fills, help). From that table alone come the parsing, every message
 * about a bad value, --help and shell completion (base/completion.h), so
 * they cannot drift apart. Every command, sub-command (sim's models) and
 * tool (gen, sink, events, exporter, top) runs through one signature,
 * xl_cmd_fn. */
#ifndef XL_CLI_H
#define XL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

enum xl_opt_type {
	XL_T_HELP,     /* -h/--help: the usage on stdout, exit 0 */
	XL_T_FLAG,     /* no value: the field (bool or int) becomes 1 */
	XL_T_STR,      /* const char *: the argument itself */
	XL_T_UINT,     /* a whole number, decimal or 0x hex, min..max */
	XL_T_DOUBLE,   /* a decimal, dmin..dmax (dmin excluded if open_min) */
	XL_T_RATE,     /* bit/s with K M G T (base/units.h), min..max if max */
	XL_T_BYTES,    /* bytes with K M = 1024, 1048576; min..max (max 256M) */
	XL_T_DURATION, /* ns, written with a unit (10ms), min..max */
	XL_T_ENUM,     /* one of words[]: its value */
	XL_T_FUNC,     /* parse() fills the field (lists, addresses, ...) */
};

/* A word of an XL_T_ENUM option and the value it stores. */
struct xl_opt_word {
	const char *word;
	long value;
};

/* One option. Numbers are stored at the field's own size (1, 2, 4 or 8
 * bytes), so a __u8 or a __u64 field takes a UINT alike. */
struct xl_opt {
	const char *name;       /* long name, without "--" */
	char key;               /* short letter (-x), or 0 */
	enum xl_opt_type type;
	size_t off, size;       /* the field in the command's options struct */
	const char *arg;        /* the value's name in help; NULL for a flag */
	const char *help;       /* one line; "\n" starts another */
	bool required;          /* shown without brackets; missing is an error */
	__u64 min, max;         /* UINT, BYTES, DURATION; RATE if max */
	double dmin, dmax;      /* DOUBLE */
	bool open_min;          /* DOUBLE: dmin itself is out of range */
	const struct xl_opt_word *words; /* ENUM, ending with a NULL word */
	/* FUNC: 0, or -1 with the reason (without the option's name) in err */
	int (*parse)(const char *v, void *field, char *err, size_t errlen);
	bool has_given;         /* given_off names a bool set when given */
	size_t given_off;
};

/* The field a row fills: XL_FIELD(struct gen_opts, qps). */
#define XL_FIELD(S, f) .off = offsetof(S, f), .size = sizeof(((S *)0)->f)
/* A bool of the options struct that is set when the option is given. */
#define XL_GIVEN(S, f) .has_given = true, .given_off = offsetof(S, f)
#define XL_OPT_HELP { .name = "help", .key = 'h', .type = XL_T_HELP, .help = "this text" }
#define XL_OPT_END { .name = NULL }

struct xl_cmd;
/* What a command runs with besides its options. */
struct xl_cmd_ctx {
	const struct xl_cmd *cmd;
	const char *path;       /* "sim queue": how messages name it */
	int argc;               /* the whole command line, argv[0] the program */
	char **argv;
	const void *env;        /* what the program hands every command (main.c:
				 * struct xl_readers) */
};
/* The one signature of a command: its exit status (0 done, 1 error,
 * 2 bad usage, or the command's own), or < 0 for 1. */
typedef int xl_cmd_fn(const struct xl_cmd_ctx *ctx, void *opts);

struct xl_cmd {
	const char *name;
	const char *summary;    /* one line, for lists */
	const char *intro;      /* --help's paragraph, or NULL: "SUMMARY." */
	const char *notes;      /* more for --help after the intro, or NULL */
	const struct xl_opt *opts; /* NULL: takes none (a command with subs) */
	size_t opts_size;       /* of its options struct */
	const void *defaults;   /* opts_size bytes to start from, or NULL: zeros */
	/* checks across options after parsing: 0, or -1 after saying why
	 * (then exit 2, bad usage); NULL: none */
	int (*check)(const struct xl_cmd_ctx *ctx, void *opts);
	xl_cmd_fn *run;
	/* the words that may follow (sim's models), ending with NULL */
	const struct xl_cmd *const *subs;
	const char *sub_noun;   /* what a sub is called: "model" */
};
/* A command's own options struct and its defaults, for the row. */
#define XL_CMD_OPTS(S, d) .opts_size = sizeof(S), .defaults = (d)

enum { XL_PARSE_OK = 0, XL_PARSE_HELP = 1, XL_PARSE_BAD = -1 };
/* Fills opts (opts_size bytes) from the defaults and argv[1..] (argv[0]:
 * the command's name). XL_PARSE_HELP after printing --help to stdout;
 * XL_PARSE_BAD after saying on stderr what is wrong ("xdpleaf PATH:
 * --NAME: ..."; the usage line too after an unknown option, a missing
 * value or a required option not given). Every message about options
 * is written here. */
int xl_cmd_parse(const struct xl_cmd *c, const char *path, int argc, char **argv,
		 void *opts);
/* Runs c with argv[0] its name: parses (or dispatches to a sub by argv[1])
 * and calls run with outer's command line and env. Returns the exit
 * status. */
int xl_cmd_main(const struct xl_cmd *c, const char *path, int argc, char **argv,
		const struct xl_cmd_ctx *outer);

#endif
