// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`'s summary (gen.h): per QP and in all, as a table or as
 * one --json document, and the warnings about a run that fell short. */
#define _GNU_SOURCE
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <json-c/json.h>
#include "base/log.h"
#include "base/output.h"
#include "netlink/rtnl.h"
#include "traffic/gen.h"

static const char *opcode_name(const struct gen_state *g)
{
	if (g->f.npkts == 1)
		return g->o.write ? "RDMA_WRITE_ONLY" : "SEND_ONLY";
	return g->o.write ? "RDMA_WRITE_FIRST/MIDDLE/LAST" : "SEND_FIRST/MIDDLE/LAST";
}

/* gen warns when it reaches less than (1 - SHORTFALL) of what it was
 * asked for. */
#define SHORTFALL 0.05

/* The total bit/s gen was asked for, when it is fixed: back-to-back
 * messages (elephant) with --rate and no --rate-map. Without --rate gen
 * sends as fast as it can; with nccl's gaps or DCQCN's rates the total
 * depends on the run. 0: nothing fixed to compare with. */
static double asked_bps(const struct gen_state *g)
{
	if (!g->o.rate_bps || g->o.pattern != P_ELEPHANT || g->rp.skel)
		return 0;
	return (double)g->o.rate_bps * g->o.qps;
}

void gen_report(const struct gen_state *g, double secs, const struct xl_link_info *l0,
		const struct xl_link_info *l1)
{
	const struct gen_opts *o = &g->o;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], mac[18];
	__u64 tx_drop = l1->tx_dropped - l0->tx_dropped +
			l1->tx_errors - l0->tx_errors;
	double pps = secs > 0 ? (double)g->packets / secs : 0;
	double bps = secs > 0 ? (double)g->bytes * 8 / secs : 0, asked;
	__u32 i;

	asked = asked_bps(g);
	if (asked && bps < asked * (1 - SHORTFALL))
		xl_warn("reached %.4g bit/s, %.1f %% short of the "
			"%.4g bit/s asked for (%u QPs x --rate): this machine or %s "
			"could not keep up", bps, 100 * (1 - bps / asked), asked,
			o->qps, o->dev);
	if (tx_drop)
		xl_warn("%s dropped %llu of the frames on "
			"transmit (its peer's receive ring was full)", o->dev,
			(unsigned long long)tx_drop);
	inet_ntop(g->f.family, g->f.fs.saddr, src, sizeof(src));
	inet_ntop(g->f.family, g->f.fs.daddr, dst, sizeof(dst));
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 g->f.fs.dst_mac[0], g->f.fs.dst_mac[1], g->f.fs.dst_mac[2],
		 g->f.fs.dst_mac[3], g->f.fs.dst_mac[4], g->f.fs.dst_mac[5]);
	if (o->json) {
		json_object *j = json_object_new_object(), *qs = json_object_new_array();

		json_object_object_add(j, "dev", json_object_new_string(o->dev));
		json_object_object_add(j, "src", json_object_new_string(src));
		json_object_object_add(j, "dst", json_object_new_string(dst));
		json_object_object_add(j, "dst_mac", json_object_new_string(mac));
		json_object_object_add(j, "method", json_object_new_string(
			o->method == M_LIVE ? "live-frames" : "af_packet"));
		json_object_object_add(j, "opcode", json_object_new_string(opcode_name(g)));
		json_object_object_add(j, "payload", json_object_new_int64(o->size));
		json_object_object_add(j, "message", json_object_new_int64(o->message));
		if (o->pattern == P_STEPS)
			json_object_object_add(j, "steps", json_object_new_int64((int64_t)g->step.n));
		json_object_object_add(j, "seconds", json_object_new_double(secs));
		json_object_object_add(j, "packets", json_object_new_int64((int64_t)g->packets));
		json_object_object_add(j, "bytes", json_object_new_int64((int64_t)g->bytes));
		json_object_object_add(j, "pps", json_object_new_double(pps));
		json_object_object_add(j, "bps", json_object_new_double(bps));
		json_object_object_add(j, "runs", json_object_new_int64((int64_t)g->runs));
		json_object_object_add(j, "cpu", json_object_new_int(g->tx.cpu));
		json_object_object_add(j, "backoffs", json_object_new_int64((int64_t)g->tx.backoffs));
		json_object_object_add(j, "dev_tx_dropped", json_object_new_int64((int64_t)tx_drop));
		if (o->reliable) {
			struct xl_rc_req t = gen_rc_totals(g);

			json_object_object_add(j, "resent", json_object_new_int64((int64_t)t.resent));
			json_object_object_add(j, "acks", json_object_new_int64((int64_t)t.acks));
			json_object_object_add(j, "naks", json_object_new_int64((int64_t)t.naks));
			json_object_object_add(j, "timeouts", json_object_new_int64((int64_t)t.timeouts));
			json_object_object_add(j, "replies_bad_icrc",
					       json_object_new_int64((int64_t)g->acks.bad_icrc));
			json_object_object_add(j, "replies_other",
					       json_object_new_int64((int64_t)g->acks.other));
		}
		if (asked) {
			json_object_object_add(j, "asked_bps", json_object_new_double(asked));
			json_object_object_add(j, "rate_shortfall", json_object_new_boolean(
				bps < asked * (1 - SHORTFALL)));
		}
		for (i = 0; i < o->qps; i++) {
			const struct gen_qp *q = &g->qp[i];
			json_object *e = json_object_new_object();

			json_object_object_add(e, "qp", json_object_new_int64(q->id.qpn));
			json_object_object_add(e, "sport", json_object_new_int64(q->id.sport));
			json_object_object_add(e, "packets", json_object_new_int64((int64_t)q->packets));
			json_object_object_add(e, "bytes", json_object_new_int64((int64_t)q->bytes));
			json_object_object_add(e, "messages", json_object_new_int64((int64_t)q->messages));
			json_object_object_add(e, "first_psn", json_object_new_int64(q->first_psn));
			json_object_object_add(e, "next_psn", json_object_new_int64(q->rc.max));
			if (o->reliable) {
				json_object_object_add(e, "resent", json_object_new_int64(
					(int64_t)q->rc.resent));
				json_object_object_add(e, "acks", json_object_new_int64(
					(int64_t)q->rc.acks));
				json_object_object_add(e, "naks", json_object_new_int64(
					(int64_t)q->rc.naks));
				json_object_object_add(e, "timeouts", json_object_new_int64(
					(int64_t)q->rc.timeouts));
				json_object_object_add(e, "unacked", json_object_new_int64(
					xl_psn_diff(q->rc.max, q->rc.una)));
			}
			json_object_object_add(e, "pps", json_object_new_double(
				secs > 0 ? (double)q->packets / secs : 0));
			json_object_object_add(e, "bps", json_object_new_double(
				secs > 0 ? (double)q->bytes * 8 / secs : 0));
			if (g->rp.skel)
				json_object_object_add(e, "rate_map_bps",
					json_object_new_int64((int64_t)q->rp_rate));
			json_object_array_add(qs, e);
		}
		json_object_object_add(j, "qps", qs);
		xl_print_json("gen", j);
		return;
	}
	printf("xdpleaf gen: %s %s -> %s (dst MAC %s), %u QPs, %s, %u B payload, %s\n",
	       o->dev, src, dst, mac, o->qps, opcode_name(g), o->size,
	       o->method == M_LIVE ? "live frames" : "AF_PACKET");
	printf("%-10s %6s %12s %14s %12s %14s %10s %10s\n", "qp", "sport", "packets",
	       "bytes", "pps", "bit/s", "first_psn", "next_psn");
	for (i = 0; i < o->qps; i++) {
		const struct gen_qp *q = &g->qp[i];

		printf("0x%06x   %6u %12llu %14llu %12.0f %14.0f %10u %10u\n", q->id.qpn,
		       q->id.sport, (unsigned long long)q->packets,
		       (unsigned long long)q->bytes,
		       secs > 0 ? (double)q->packets / secs : 0,
		       secs > 0 ? (double)q->bytes * 8 / secs : 0, q->first_psn, q->rc.max);
	}
	printf("%-10s %6s %12llu %14llu %12.0f %14.0f\n", "total", "",
	       (unsigned long long)g->packets, (unsigned long long)g->bytes, pps, bps);
	printf("%.3f s, %llu %s", secs, (unsigned long long)g->runs,
	       o->method == M_LIVE ? "runs of BPF_PROG_RUN" : "batches of sendmmsg");
	if (tx_drop)
		printf(", %s dropped %llu on transmit", o->dev, (unsigned long long)tx_drop);
	printf("\n");
	if (o->reliable) {
		struct xl_rc_req t = gen_rc_totals(g);

		printf("go-back-N: %llu packets sent again, after %llu NAKs and %llu "
		       "timeouts; %llu ACKs taken; replies with a bad ICRC %llu, not ours %llu\n",
		       (unsigned long long)t.resent, (unsigned long long)t.naks,
		       (unsigned long long)t.timeouts, (unsigned long long)t.acks,
		       (unsigned long long)g->acks.bad_icrc,
		       (unsigned long long)g->acks.other);
	}
}
