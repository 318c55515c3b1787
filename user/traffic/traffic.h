/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The RoCEv2 traffic tools: `xdpleaf gen` (user/traffic/gen.c) and `xdpleaf sink`
 * (user/traffic/sink.c); docs/traffic-tools.md. */
#ifndef XL_TRAFFIC_H
#define XL_TRAFFIC_H

#include <stdbool.h>
#include <linux/types.h>
#include "base/cli.h"

/* their rows of the command table (base/cli.h) */
extern const struct xl_cmd xl_gen_cmd, xl_sink_cmd;

/* CAP_SYS_ADMIN, or CAP_BPF and CAP_NET_ADMIN. */
bool xl_traffic_privileged(void);

/* Address family of a textual IP address (AF_INET, AF_INET6) with the
 * address in addr (16 bytes, IPv4 in the first 4), or 0 if it is none. */
int xl_parse_ip(const char *s, __u8 addr[16]);

/* "02:00:00:00:00:01" -> 6 bytes. Returns 0 or -1. */
int xl_parse_mac(const char *s, __u8 mac[6]);

#endif
