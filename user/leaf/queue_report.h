/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The phantom-queue part of `xdpleaf stats`: per port and class, the
 * marking profile as the port applies it (fitted to its buffer where the
 * class asks for that), marks, drops, queue length now and at its peak,
 * the histogram. */
#ifndef XL_QUEUE_REPORT_H
#define XL_QUEUE_REPORT_H

#include <json-c/json.h>
#include "xdpleaf.h"

struct xl_queue_reader;

/* Opens the instance's queue maps; NULL after printing why. */
struct xl_queue_reader *xl_queue_reader_open(const char *instance);
void xl_queue_reader_close(struct xl_queue_reader *r);
/* The port's queue as a JSON object, or NULL for an unlimited port. */
json_object *xl_queue_json(struct xl_queue_reader *r, const struct xl_port *p);
/* The port's queue as table rows (nothing for an unlimited port). */
void xl_queue_print(struct xl_queue_reader *r, const struct xl_port *p);

#endif
