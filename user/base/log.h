/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The one way user space reports: every error, warning and status line
 * goes through xl_log (or the macros below), one line per message on
 * stderr.
 *
 * In a command, a message is "PROG: text": the prefix is set once, where
 * every command starts (base/cli.c's parser, from the command's path:
 * "xdpleaf sim queue"; "xdpleaf" before), and never written by hand; a
 * warning is "PROG: warning: text". A
 * message about a place in a file is "FILE:LINE: text" (xl_err_at) with
 * no prefix, as compilers write them, so an editor can jump there.
 * Commands show errors, warnings and notices (a status line the user
 * waits for: "ready", a run's summary); info and debug (the daemon's
 * detail, libbpf's chatter) only with XDPLEAF_DEBUG set.
 *
 * The daemon (after xl_log_init) has no prefix: under systemd (stderr is
 * the journal's stream, JOURNAL_STREAM) each line starts with the syslog
 * priority "<N>", which journald turns into the entry's level; elsewhere
 * with the UTC time and the level's name, for a log file. Code shared
 * between the daemon and a command (load) logs the same way in both.
 *
 * Not log messages, so not written here: --help and usage text (their
 * printers take a FILE *, stderr only after a usage error), and tables,
 * CSV and JSON on stdout. user/base/log.c is the only file of user/
 * that writes to stderr itself (tests/lab/layout.bats checks); the
 * exporter's rate limit (observe/log_limit.c) passes its lines on and
 * adds a count of those it held back. */
#ifndef XL_LOG_H
#define XL_LOG_H

#include <stdarg.h>
#include <stdbool.h>

/* syslog's numbers, so "<N>" is the priority journald expects */
enum xl_log_level {
	XL_LOG_ERR = 3,
	XL_LOG_WARN = 4,
	XL_LOG_NOTICE = 5,
	XL_LOG_INFO = 6,
	XL_LOG_DEBUG = 7,
};

/* A command's messages from now on, each prefixed "prog: " (copied; at
 * most 63 characters); after xl_log_init, back to a command's format. */
void xl_log_set_prog(const char *prog);
/* The daemon's messages from now on: levels above level are not written.
 * Decides the line format from stderr as it is now. */
void xl_log_init(enum xl_log_level level);
/* "err", "warn", "notice", "info" or "debug"; false for anything else. */
bool xl_log_level_parse(const char *name, enum xl_log_level *level);
bool xl_log_enabled(enum xl_log_level level);

void xl_log(enum xl_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xl_vlog(enum xl_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* About line `line` of `file` (line 0: the file as a whole). file NULL:
 * the text names its place itself and is written as it is, as an error a
 * parser wrote into a caller's buffer ("FILE:LINE: what is wrong",
 * config.h). */
void xl_log_at(enum xl_log_level level, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define xl_err(...) xl_log(XL_LOG_ERR, __VA_ARGS__)
#define xl_warn(...) xl_log(XL_LOG_WARN, __VA_ARGS__)
#define xl_notice(...) xl_log(XL_LOG_NOTICE, __VA_ARGS__)
#define xl_info(...) xl_log(XL_LOG_INFO, __VA_ARGS__)
#define xl_debug(...) xl_log(XL_LOG_DEBUG, __VA_ARGS__)
#define xl_err_at(file, line, ...) xl_log_at(XL_LOG_ERR, file, line, __VA_ARGS__)
#define xl_warn_at(file, line, ...) xl_log_at(XL_LOG_WARN, file, line, __VA_ARGS__)

#endif
