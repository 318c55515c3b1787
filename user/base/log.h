/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Levelled logging for the long-running processes (the daemon): one line
 * per message on stderr. Under systemd (stderr is the journal's stream,
 * JOURNAL_STREAM) each line starts with the syslog priority "<N>", which
 * journald turns into the entry's level; elsewhere with the UTC time and
 * the level's name, for a log file. Before xl_log_init (in a command
 * such as load, which shares code with the daemon) errors and warnings
 * are written as the command's own messages and the rest not at all. */
#ifndef XL_LOG_H
#define XL_LOG_H

#include <stdbool.h>

/* syslog's numbers, so "<N>" is the priority journald expects */
enum xl_log_level {
	XL_LOG_ERR = 3,
	XL_LOG_WARN = 4,
	XL_LOG_INFO = 6,
	XL_LOG_DEBUG = 7,
};

/* Messages above level are not written (default XL_LOG_INFO). Decides the
 * line format from stderr as it is now. */
void xl_log_init(enum xl_log_level level);
/* "err", "warn", "info" or "debug"; false for anything else. */
bool xl_log_level_parse(const char *name, enum xl_log_level *level);
bool xl_log_enabled(enum xl_log_level level);
void xl_log(enum xl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
