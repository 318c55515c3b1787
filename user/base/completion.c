// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "base/completion.h"

/* The lower-case words of a value written "a|b|c" (e.g. "flowlet|hash"),
 * space-separated into out; placeholders in capitals ("T|auto": T) and
 * forms with parts to fill in ("fixed:T") are not words to offer. */
static void value_words(const char *arg, char *out, size_t len)
{
	const char *w = arg;
	size_t n = 0;

	out[0] = 0;
	if (!strchr(arg, '|'))
		return;
	while (*w) {
		size_t wl = strcspn(w, "|");
		bool word = wl > 0;

		for (size_t i = 0; i < wl; i++)
			if (!islower((unsigned char)w[i]) && !isdigit((unsigned char)w[i]) &&
			    w[i] != '-')
				word = false;
		if (word && n + wl + 2 < len)
			n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "",
					      (int)wl, w);
		w += wl + (w[wl] == '|');
	}
}

/* An enum option's words, space-separated into out. */
static void enum_words(const struct xl_opt_word *w, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (; w->word && n < len; w++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", w->word);
}

/* One case pattern of the option's value: 'PATH --name'|'PATH -x'. */
static void value_pattern(FILE *f, const char *path, const struct xl_opt *o)
{
	fprintf(f, "\t'%s --%s'", path, o->name);
	if (o->key)
		fprintf(f, "|'%s -%c'", path, o->key);
	fprintf(f, ")\n");
}

/* The values of path's options that take one, as case arms. */
static void values(FILE *f, const char *path, const struct xl_opt *opts)
{
	char words[256];

	for (const struct xl_opt *o = opts; o && o->name; o++) {
		const char *arg = o->arg ? o->arg : "";

		if (o->type == XL_T_FLAG || o->type == XL_T_HELP)
			continue;
		value_pattern(f, path, o);
		if (o->type == XL_T_ENUM)
			enum_words(o->words, words, sizeof(words));
		else
			value_words(arg, words, sizeof(words));
		if (!strcmp(o->name, "instance"))
			fprintf(f, "\t\t_xdpleaf_reply -W \"$(_xdpleaf_instances)\"\n");
		else if (!strcmp(arg, "FILE") || !strcmp(arg, "PATH"))
			fprintf(f, "\t\tcompopt -o filenames 2>/dev/null\n"
				   "\t\t_xdpleaf_reply -f\n");
		else if (!strcmp(arg, "IF"))
			fprintf(f, "\t\t_xdpleaf_reply -W \"$(ls /sys/class/net 2>/dev/null)\"\n");
		else if (words[0])
			fprintf(f, "\t\t_xdpleaf_reply -W '%s'\n", words);
		/* else a number, a rate, an address: nothing to offer */
		fprintf(f, "\t\treturn 0;;\n");
	}
}

/* path's options, as a case arm. */
static void options(FILE *f, const char *path, const struct xl_opt *opts)
{
	if (!opts)
		return;
	fprintf(f, "\t'%s')\n\t\t_xdpleaf_reply -W '", path);
	for (const struct xl_opt *o = opts; o->name; o++)
		fprintf(f, "%s--%s", o == opts ? "" : " ", o->name);
	fprintf(f, "';;\n");
}

/* Calls fn for each command and each word after one (sim queue), with the
 * path that names it ("sim queue"). */
static void each(FILE *f, const struct xl_cmd *const *cmds,
		 void (*fn)(FILE *f, const char *path, const struct xl_opt *opts))
{
	char path[128];

	for (const struct xl_cmd *const *cp = cmds, *c; (c = *cp); cp++) {
		fn(f, c->name, c->opts);
		for (const struct xl_cmd *const *sp = c->subs, *s; sp && (s = *sp); sp++) {
			snprintf(path, sizeof(path), "%s %s", c->name, s->name);
			fn(f, path, s->opts);
		}
	}
}

void xl_completion_bash(FILE *f, const char *prog, const struct xl_cmd *const *cmds,
			const char *instances_dir)
{
	fprintf(f, "# bash completion for %s, written by '%s completion bash' from its\n"
		   "# tables of commands and options: generated, do not edit.\n\n", prog, prog);
	fprintf(f, "_xdpleaf_reply()\n{\n"
		   "\tmapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n}\n\n");
	/* the pin directories are root's alone (0700): nothing for others */
	fprintf(f, "_xdpleaf_instances()\n{\n\tlocal d\n"
		   "\tfor d in %s/*/; do\n"
		   "\t\t[[ -d $d ]] || continue\n"
		   "\t\td=${d%%/}\n\t\techo \"${d##*/}\"\n"
		   "\tdone 2>/dev/null\n}\n\n", instances_dir);

	fprintf(f, "_xdpleaf()\n{\n"
		   "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		   "\tlocal path=${COMP_WORDS[1]-}\n"
		   "\tCOMPREPLY=()\n"
		   "\tif ((COMP_CWORD == 1)); then\n\t\t_xdpleaf_reply -W '");
	for (const struct xl_cmd *const *cp = cmds, *c; (c = *cp); cp++)
		fprintf(f, "%s ", c->name);
	fprintf(f, "--help --version'\n\t\treturn 0\n\tfi\n");

	/* the word after a command that has words after it */
	fprintf(f, "\tcase $path in\n");
	for (const struct xl_cmd *const *cp = cmds, *c; (c = *cp); cp++) {
		if (!c->subs)
			continue;
		fprintf(f, "\t%s)\n\t\tif ((COMP_CWORD == 2)); then\n\t\t\t_xdpleaf_reply -W '",
			c->name);
		for (const struct xl_cmd *const *sp = c->subs, *s; (s = *sp); sp++)
			fprintf(f, "%s ", s->name);
		fprintf(f, "--help'\n\t\t\treturn 0\n\t\tfi\n"
			   "\t\tpath+=\" ${COMP_WORDS[2]}\";;\n");
	}
	fprintf(f, "\tesac\n\n");

	fprintf(f, "\t# the value of the option before\n\tcase \"$path $prev\" in\n");
	each(f, cmds, values);
	fprintf(f, "\tesac\n\n\t# the options\n\tcase $path in\n");
	each(f, cmds, options);
	fprintf(f, "\tesac\n\treturn 0\n}\n\ncomplete -F _xdpleaf %s\n", prog);
}
