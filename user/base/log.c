// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "base/log.h"

static char prog[64] = "xdpleaf";
static enum xl_log_level max_level = XL_LOG_NOTICE;
static bool to_journal;
static bool in_daemon; /* xl_log_init called; else a command's messages */

static const struct {
	const char *name;
	enum xl_log_level level;
} levels[] = {
	{ "err", XL_LOG_ERR },	 { "warn", XL_LOG_WARN },   { "notice", XL_LOG_NOTICE },
	{ "info", XL_LOG_INFO }, { "debug", XL_LOG_DEBUG },
};

/* systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connected;
 * it names our stderr only if they match (a child whose stderr was
 * redirected inherits the variable but not the stream). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st))
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void xl_log_set_prog(const char *name)
{
	snprintf(prog, sizeof(prog), "%s", name);
	max_level = getenv("XDPLEAF_DEBUG") ? XL_LOG_DEBUG : XL_LOG_NOTICE;
	in_daemon = false;
}

void xl_log_init(enum xl_log_level level)
{
	max_level = level;
	to_journal = stderr_is_journal();
	in_daemon = true;
}

bool xl_log_level_parse(const char *name, enum xl_log_level *level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(name, levels[i].name)) {
			*level = levels[i].level;
			return true;
		}
	return false;
}

bool xl_log_enabled(enum xl_log_level level)
{
	return level <= max_level;
}

static const char *level_name(enum xl_log_level level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return "?";
}

/* "PROG: " or "FILE:LINE: " (a command's), then "warning: " for one. */
static void command_line(enum xl_log_level level, const char *file, int line, const char *msg)
{
	const char *warn = level == XL_LOG_WARN ? "warning: " : "";

	if (!file && line < 0)
		fprintf(stderr, "%s: %s%s\n", prog, warn, msg);
	else if (!file) /* the text starts with its place */
		fprintf(stderr, "%s\n", msg);
	else if (line > 0)
		fprintf(stderr, "%s:%d: %s%s\n", file, line, warn, msg);
	else
		fprintf(stderr, "%s: %s%s\n", file, warn, msg);
}

static void daemon_line(enum xl_log_level level, const char *file, int line, const char *msg)
{
	char where[320] = "", when[32];
	struct timespec ts;
	struct tm tm;

	if (file && line > 0)
		snprintf(where, sizeof(where), "%s:%d: ", file, line);
	else if (file)
		snprintf(where, sizeof(where), "%s: ", file);
	if (to_journal) { /* journald stamps the time itself */
		fprintf(stderr, "<%d>%s%s\n", level, where, msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	/* one write per line: lines of two processes sharing a log stay whole */
	fprintf(stderr, "%s.%03ldZ %s: %s%s\n", when, ts.tv_nsec / 1000000, level_name(level),
		where, msg);
	fflush(stderr);
}

/* line -1 with file NULL: not about a file (the command's prefix) */
static void emit(enum xl_log_level level, const char *file, int line, const char *fmt, va_list ap)
{
	char buf[1024], *msg = buf;
	va_list again;
	size_t len;
	int n;

	if (!xl_log_enabled(level))
		return;
	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	/* a long one (libbpf's verifier log) whole, if there is memory */
	if (n >= (int)sizeof(buf) && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	else
		msg = buf;
	va_end(again);
	/* libbpf ends its lines with a newline; the line ends here */
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	if (in_daemon)
		daemon_line(level, file, line, msg);
	else
		command_line(level, file, line, msg);
	if (msg != buf)
		free(msg);
}

void xl_vlog(enum xl_log_level level, const char *fmt, va_list ap)
{
	emit(level, NULL, -1, fmt, ap);
}

void xl_log(enum xl_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(level, NULL, -1, fmt, ap);
	va_end(ap);
}

void xl_log_at(enum xl_log_level level, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(level, file, line > 0 ? line : 0, fmt, ap);
	va_end(ap);
}
