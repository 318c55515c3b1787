/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The CSV lines of sim's traces, read strictly: fields split at commas,
 * numbers plain decimal (no sign, no hex, no trailing text, no overflow).
 * sscanf's %llu took "-311853" as 2^64 - 311853 (found by fuzzing):
 * a trace line is either what it says or refused. */
#ifndef XL_SIM_CSV_H
#define XL_SIM_CSV_H

/* Split line (its newline already cut) in place at commas into at most
 * max fields, each with surrounding blanks trimmed. The number of fields,
 * or -1 if there are more than max. */
int xl_csv_split(char *line, char **fields, int max);
/* A field that is a decimal number 0..2^64-1: 0, or -1. */
int xl_csv_u64(const char *field, unsigned long long *v);

#endif
