/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The CSV files of sim's traces, read strictly but as CSV is written:
 * lines of any length (getline: a long line is not split and reported a
 * line late, as fgets into a fixed buffer did), LF or CRLF, a UTF-8 BOM
 * before the header, blank lines skipped; fields split at commas with
 * surrounding blanks trimmed, an empty field is empty (the caller
 * decides whether it may be); numbers plain decimal (no sign, no hex, no
 * trailing text, no overflow: sscanf's %llu took "-311853" as
 * 2^64 - 311853, found by fuzzing). A refusal names the file, the line,
 * the field and the fault. */
#ifndef XL_SIM_CSV_H
#define XL_SIM_CSV_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define XL_CSV_MAX_FIELDS 8

struct xl_csv {
	const char *path;
	const char *columns;   /* the header, e.g. "time_ns,event,arg" */
	FILE *f;
	char *buf;             /* getline's, grown as lines need */
	size_t cap;
	int line;              /* of the line last read, from 1 */
	int started;           /* a line that is not blank was read */
	int n;                 /* its fields */
	char *field[XL_CSV_MAX_FIELDS];
};

/* Open path, whose lines have the fields `columns` names (at most
 * XL_CSV_MAX_FIELDS); the first line that is not blank is the header,
 * and skipped, if its first field is the first column's name. 0, or -1
 * with the reason said (base/log.h: "PROG: PATH: why"). */
int xl_csv_open(struct xl_csv *c, const char *path, const char *columns);
/* The next data line's fields in c->field[0..c->n-1]: 1; 0 at the end;
 * -1 refused (more fields than columns, a NUL byte, a read error), said. */
int xl_csv_next(struct xl_csv *c);
void xl_csv_close(struct xl_csv *c);
/* Refuse the current line: "PATH:LINE: FIELD: message" (base/log.h)
 * (field NULL: without it). Returns -1. */
int xl_csv_refuse(const struct xl_csv *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A field as a message shows it: quoted, cut at 32 characters. */
#define XL_CSV_SHOWN "'%.32s%s'"
#define XL_CSV_SHOW(s) (s), strlen(s) > 32 ? "..." : ""

/* Field i of the current line as a decimal number 0..2^64-1: 0, or -1
 * refused naming `name` and the fault (empty, a sign, not a decimal
 * number, too large). An absent or empty optional field (i >= c->n or
 * "") leaves *v as it is when `optional`. */
int xl_csv_u64(const struct xl_csv *c, int i, const char *name, int optional,
	       unsigned long long *v);

#endif
