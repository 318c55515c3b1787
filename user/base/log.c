// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "base/log.h"

static enum xl_log_level max_level = XL_LOG_INFO;
static bool to_journal;
static bool in_daemon; /* xl_log_init called; else a command's messages */

static const struct {
	const char *name;
	enum xl_log_level level;
} levels[] = {
	{ "err", XL_LOG_ERR }, { "warn", XL_LOG_WARN },
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
	return level <= (in_daemon ? max_level : XL_LOG_WARN);
}

static const char *level_name(enum xl_log_level level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return "?";
}

void xl_log(enum xl_log_level level, const char *fmt, ...)
{
	char msg[512], when[32];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	if (!xl_log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!in_daemon) { /* code shared with a command (load): its style */
		fprintf(stderr, "xdpleaf: %s%s\n", level == XL_LOG_WARN ? "warning: " : "",
			msg);
		return;
	}
	if (to_journal) { /* journald stamps the time itself */
		fprintf(stderr, "<%d>%s\n", level, msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	/* one write per line: lines of two processes sharing a log stay whole */
	fprintf(stderr, "%s.%03ldZ %s: %s\n", when, ts.tv_nsec / 1000000,
		level_name(level), msg);
	fflush(stderr);
}
