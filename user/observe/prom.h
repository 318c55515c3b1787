/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* A writer of the Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): each
 * family's # HELP and # TYPE once, before its first sample and only if it
 * has one, label values and help escaped as the format wants. It knows
 * nothing of xdpleaf; observe/metrics.c says what to write. */
#ifndef XL_PROM_H
#define XL_PROM_H

#include <stdio.h>
#include <linux/types.h>

#define XL_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define XL_PROM_MAX_LABELS 12

enum xl_prom_type { XL_PROM_COUNTER, XL_PROM_GAUGE, XL_PROM_HISTOGRAM };
const char *xl_prom_type_name(enum xl_prom_type t);

/* A label set, built by pushing pairs (the strings are not copied: they
 * must outlive the samples written with it). */
struct xl_prom_labels {
	int n;
	const char *name[XL_PROM_MAX_LABELS];
	const char *value[XL_PROM_MAX_LABELS];
};
void xl_prom_label(struct xl_prom_labels *l, const char *name, const char *value);

struct xl_prom {
	FILE *f;
	const char *name, *help; /* the family being written */
	enum xl_prom_type type;
	int header_done;         /* its # HELP and # TYPE are out */
};

/* Start a family: its header waits for its first sample. */
void xl_prom_family(struct xl_prom *p, const char *name, enum xl_prom_type type,
		    const char *help);
/* One sample of the current family: name + suffix ("", "_bucket", ...),
 * the labels, then (extra_name, extra_value) if extra_name is not NULL
 * (a histogram's le). The value is text made by xl_prom_u64/xl_prom_f64. */
void xl_prom_sample(struct xl_prom *p, const char *suffix,
		    const struct xl_prom_labels *l, const char *extra_name,
		    const char *extra_value, const char *value);

/* Values as the format writes them: integers exactly (a counter may pass
 * 2^53), floats round-trip exact, NaN and +Inf/-Inf by name. */
#define XL_PROM_VALUE_MAX 32
const char *xl_prom_u64(char buf[XL_PROM_VALUE_MAX], __u64 v);
const char *xl_prom_f64(char buf[XL_PROM_VALUE_MAX], double v);

/* Whether s is a valid metric or label name ([a-zA-Z_:][a-zA-Z0-9_:]*; a
 * label name without ':'). */
int xl_prom_name_ok(const char *s, int is_label);

#endif
