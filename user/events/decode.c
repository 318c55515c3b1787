// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <json-c/json.h>
#include <linux/types.h>
#include "proto.h"
#include "roce.h"
#include "events/decode.h"

static __u16 be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 be24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

void xl_decode(const __u8 *pkt, size_t len, struct xl_decoded *d)
{
	size_t off = 14, l4;
	__u16 proto;
	__u8 l4proto;

	memset(d, 0, sizeof(*d));
	if (len < off)
		return;
	proto = be16(pkt + 12);
	if (proto == XL_ETH_P_8021Q || proto == XL_ETH_P_8021AD) {
		if (len < off + 4)
			return;
		proto = be16(pkt + 16);
		off += 4;
	}
	if (proto == XL_ETH_P_IP) {
		if (len < off + 20 || (pkt[off] >> 4) != 4)
			return;
		l4proto = pkt[off + 9];
		l4 = off + (size_t)(pkt[off] & 0xf) * 4;
	} else if (proto == XL_ETH_P_IPV6) {
		if (len < off + 40 || (pkt[off] >> 4) != 6)
			return;
		l4proto = pkt[off + 6];
		l4 = off + 40;
	} else {
		return;
	}
	if (l4proto != 17 || len < l4 + 8 + XL_BTH_LEN ||
	    be16(pkt + l4 + 2) != XL_ROCEV2_PORT)
		return;
	d->has_bth = true;
	d->opcode = pkt[l4 + 8];
	d->qp = be24(pkt + l4 + 8 + 5);
	d->psn = be24(pkt + l4 + 8 + 9);
}

static void addr(const struct xl_flow *f, const __u8 *a, char *buf, size_t len)
{
	inet_ntop(f->family == 4 ? AF_INET : AF_INET6, a, buf, len);
}

void xl_flow_str(const struct xl_flow *f, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int n;

	addr(f, f->saddr, s, sizeof(s));
	addr(f, f->daddr, d, sizeof(d));
	n = snprintf(buf, len, f->family == 6 ? "[%s]:%u > [%s]:%u proto %u" :
		     "%s:%u > %s:%u proto %u", s, f->sport, d, f->dport, f->proto);
	if (f->qp && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " qp 0x%x", f->qp);
}

json_object *xl_flow_json(const struct xl_flow *f)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	json_object *o = json_object_new_object();

	addr(f, f->saddr, s, sizeof(s));
	addr(f, f->daddr, d, sizeof(d));
	json_object_object_add(o, "src", json_object_new_string(s));
	json_object_object_add(o, "dst", json_object_new_string(d));
	json_object_object_add(o, "proto", json_object_new_int(f->proto));
	json_object_object_add(o, "sport", json_object_new_int(f->sport));
	json_object_object_add(o, "dport", json_object_new_int(f->dport));
	json_object_object_add(o, "qp", json_object_new_int64(f->qp));
	return o;
}
