// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The parse context's helpers, shared by reading (config.c) and the checks
 * (config_check.c): the first error, where it is, and how a route is named
 * in messages. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include "config/config_parse.h"

/* Records the first error only: later ones are usually consequences. */
int cfg_fail(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->failed)
		return 0;
	c->failed = true;
	if (!c->err || !c->errlen)
		return 0;
	n = snprintf(c->err, c->errlen, "%s:%d: ", c->path, line);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return 0;
}

void cfg_prefix_str(const struct xl_cfg_route *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, r->prefixlen);
}
