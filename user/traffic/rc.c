// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Go-back-N requester state and ACK/NAK frames (traffic/rc.h). */
#include <string.h>
#include <netinet/in.h>
#include "traffic/rc.h"
#include "traffic/gen_pkt.h"
#include "icrc.h"
#include "telemetry.h"

void xl_rc_init(struct xl_rc_req *r, __u32 first_psn)
{
	memset(r, 0, sizeof(*r));
	r->una = r->nxt = r->max = first_psn & XL_PSN_MASK;
}

__u8 xl_rc_send(struct xl_rc_req *r, bool message_end, double now)
{
	__u32 psn = r->nxt;
	__u8 flags = 0;

	if (message_end || (psn & (XL_RC_ACKREQ_EVERY - 1)) == XL_RC_ACKREQ_EVERY - 1) {
		flags |= XL_BTH2_ACKREQ;
		r->req_psn = psn;
		if (!r->req_at)
			r->req_at = now; /* the first one asking since progress */
	}
	if (xl_psn_diff(psn, r->max) < 0) {
		flags |= XL_BTH2_RESENT;
		r->resent++;
	}
	r->nxt = (psn + 1) & XL_PSN_MASK;
	if (xl_psn_diff(r->nxt, r->max) > 0)
		r->max = r->nxt;
	return flags;
}

/* psn lies in una..max - 1: sent and not yet acknowledged. */
static bool outstanding(const struct xl_rc_req *r, __u32 psn)
{
	return xl_psn_diff(psn, r->una) >= 0 && xl_psn_diff(r->max, psn) > 0;
}

int xl_rc_on_ack(struct xl_rc_req *r, __u32 psn, double now)
{
	if (!outstanding(r, psn))
		return 0;
	r->acks++;
	r->timeouts_in_row = 0;
	r->una = (psn + 1) & XL_PSN_MASK;
	/* Progress: the timer starts again, for the PSNs that asked and are
	 * still not acknowledged, or stops if there are none. */
	if (xl_psn_diff(r->una, r->req_psn) > 0)
		r->req_at = 0;
	else if (r->req_at)
		r->req_at = now;
	if (xl_psn_diff(r->una, r->nxt) > 0) {
		/* resending what has arrived meanwhile: skip it */
		r->nxt = r->una;
		return 1;
	}
	return 0;
}

int xl_rc_on_nak(struct xl_rc_req *r, __u32 psn)
{
	if (!outstanding(r, psn))
		return 0;
	r->naks++;
	r->timeouts_in_row = 0;
	r->una = psn;
	/* The timer starts again with the next AckReq'd PSN sent. */
	r->req_at = 0;
	if (xl_psn_diff(r->nxt, psn) > 0) {
		r->nxt = psn;
		return 1;
	}
	return 0;
}

double xl_rc_deadline(const struct xl_rc_req *r, double timeout_ns)
{
	return r->req_at && !xl_rc_idle(r) ? r->req_at + timeout_ns : 0;
}

int xl_rc_check_timeout(struct xl_rc_req *r, double now, double timeout_ns)
{
	double d = xl_rc_deadline(r, timeout_ns);

	if (!d || now < d)
		return 0;
	r->timeouts++;
	r->timeouts_in_row++;
	r->req_at = 0;
	r->nxt = r->una;
	return 1;
}

/* ---- frames --------------------------------------------------------------- */

static void put24(__u8 *p, __u32 v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

size_t xl_rc_reply_frame(const struct xl_sink_reply *r, __u8 *buf)
{
	bool v6 = r->family == 6;
	__u32 len = xl_gen_frame_len(v6, false, XL_AETH_LEN), bth_off;
	struct xl_gen_flowspec fs = {
		.ipv6 = v6,
		.tos = (__u8)(r->dscp << 2), /* Not-ECT */
		.ttl = 64,
	};
	__u8 *bth;

	/* back where the data came from */
	memcpy(fs.dst_mac, r->data_smac, 6);
	memcpy(fs.src_mac, r->data_dmac, 6);
	memcpy(fs.saddr, r->data_daddr, 16);
	memcpy(fs.daddr, r->data_saddr, 16);
	bth_off = xl_gen_put_headers(buf, &fs, len);
	buf[bth_off - 8] = r->sport >> 8; /* UDP source port: the data's */
	buf[bth_off - 7] = r->sport & 0xff;
	bth = buf + bth_off;
	memset(bth, 0, XL_BTH_LEN + XL_AETH_LEN);
	bth[0] = XL_BTH_ACK;
	memcpy(bth + 2, &r->pkey, 2);
	put24(bth + 5, r->qp);
	put24(bth + 9, r->psn);
	bth[12] = r->syndrome;
	put24(bth + 13, r->msn);
	xl_gen_seal(buf, len, v6);
	return len;
}

int xl_rc_parse_reply(const __u8 *l3, size_t len, int family,
		      struct xl_rc_reply_in *out)
{
	size_t hl, ulen;
	const __u8 *udp, *bth;

	memset(out, 0, sizeof(*out));
	if (family == 4) {
		if (len < 20 || (l3[0] >> 4) != 4 || l3[9] != IPPROTO_UDP)
			return -1;
		hl = (size_t)(l3[0] & 15) * 4;
		if (hl < 20 || (l3[6] & 0x3f) || l3[7]) /* no fragments */
			return -1;
		memcpy(out->saddr, l3 + 12, 4);
		memcpy(out->daddr, l3 + 16, 4);
	} else {
		if (len < 40 || (l3[0] >> 4) != 6 || l3[6] != IPPROTO_UDP)
			return -1;
		hl = 40;
		memcpy(out->saddr, l3 + 8, 16);
		memcpy(out->daddr, l3 + 24, 16);
	}
	if (len < hl + XL_RC_REPLY_L4_LEN)
		return -1;
	udp = l3 + hl;
	ulen = (size_t)udp[4] << 8 | udp[5];
	if ((udp[2] << 8 | udp[3]) != XL_ROCEV2_PORT || ulen < XL_RC_REPLY_L4_LEN ||
	    hl + ulen > len)
		return -1;
	bth = udp + 8;
	if (bth[0] != XL_BTH_ACK)
		return -1;
	out->qp = (__u32)bth[5] << 16 | bth[6] << 8 | bth[7];
	out->psn = (__u32)bth[9] << 16 | bth[10] << 8 | bth[11];
	out->syndrome = bth[12];
	out->msn = (__u32)bth[13] << 16 | bth[14] << 8 | bth[15];
	out->icrc_ok = xl_icrc(l3, (__u32)(hl + ulen - XL_ICRC_LEN), (__u32)hl,
			       family == 6) == xl_icrc_get(udp + ulen - XL_ICRC_LEN);
	return 0;
}
