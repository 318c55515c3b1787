/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Command-line options from tables: each command (and each sim model,
 * gen, sink) lists its options once, with their help, and the getopt
 * tables, the usage line and --help's option list are made from that list,
 * so they cannot drift apart. (As xdp-tools' option tables in
 * lib/util/params.h; bpftool's cmd tables for dispatch.) */
#ifndef XL_CLI_H
#define XL_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct xl_opt {
	const char *name;   /* long name, without "--" */
	int key;            /* what xl_opt_next returns: a letter (also -x) or >= 256 */
	const char *arg;    /* the value's name in help, NULL for a flag */
	const char *help;   /* one line; "\n" starts another */
	bool required;      /* shown without brackets in the usage line */
};
/* Rows of an option table (every field given: -Wextra wants them all). */
#define XL_OPT(name, key, arg, help) { name, key, arg, help, false }
#define XL_OPT_REQUIRED(name, key, arg, help) { name, key, arg, help, true }
#define XL_OPT_HELP XL_OPT("help", 'h', NULL, "this text")
#define XL_OPT_END { NULL, 0, NULL, NULL, false }

struct xl_opt_parser {
	const struct xl_opt *opts;
	int n;
	void *getopt;       /* struct option[n + 1], built on first use */
	char shorts[64];
};

/* Like getopt_long over p->opts from argv[1]: the option's key, '?' for an
 * unknown option or a missing value (getopt has printed why), -1 at the
 * end (optind: the first operand). */
int xl_opt_next(struct xl_opt_parser *p, int argc, char **argv);
void xl_opt_free(struct xl_opt_parser *p);

/* "usage: xdpleaf CMD --req X [--opt Y] ...", then intro (a paragraph or
 * NULL), then one line per option with its help. */
void xl_opt_usage(FILE *f, const char *cmd, const struct xl_opt *opts, const char *intro);
/* Only the usage line (wrapped at 80 columns). */
void xl_opt_usage_line(FILE *f, const char *cmd, const struct xl_opt *opts);

/* A word of the command line as a whole: a command, or a word after one
 * (sim's models), with its summary and options. Shell completion is
 * generated from these (base/completion.h). Lists end with a NULL name. */
struct xl_cli_cmd {
	const char *name;
	const char *summary;
	const struct xl_opt *opts;      /* NULL: takes none */
	const struct xl_cli_cmd *subs;  /* the words that may follow, or NULL */
	int (*run)(int argc, char **argv); /* a sub's own argv (argv[0]: its name) */
};
#define XL_CLI_END { NULL, NULL, NULL, NULL, NULL }

#endif
