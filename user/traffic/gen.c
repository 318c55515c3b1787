// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf gen`: a RoCEv2 traffic generator (docs/traffic-tools.md).
 * How it works and which file does what: gen.h. Here, the order of the
 * jobs: options, setup, the send loop, the report, the teardown. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include "base/log.h"
#include "base/clock.h"
#include "netlink/rtnl.h"
#include "traffic/gen.h"
#include "traffic/traffic.h"

static void on_signal(int sig)
{
	(void)sig;
	gen_stop = 1;
}

int gen_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	struct gen_state g = { .tx = { .pkt_fd = -1, .anchor_tap = -1, .anchor_link = -1 },
			       .acks = { .fd = -1 } };
	struct xl_link_info l0, l1;
	struct sigaction sa = { .sa_handler = on_signal };
	double secs;
	int ret = 1;

	(void)ctx;
	g.o = *(const struct gen_opts *)opts;
	if (!xl_traffic_privileged()) {
		xl_err("needs root, or CAP_BPF and CAP_NET_ADMIN (try: sudo xdpleaf gen ...)");
		return 1;
	}
	if (gen_resolve(&g.f, &g.o, &l0))
		return 1;
	g.tx.drops_seen = l0.tx_dropped + l0.tx_errors;
	if (gen_setup_classes(&g.f, &g.o, l0.mtu))
		goto out;
	if (g.o.method == M_LIVE ? gen_setup_bpf(&g) : gen_setup_afpacket(&g))
		goto out;
	if (g.o.reliable && gen_setup_acks(&g))
		goto out;
	if (gen_setup_qps(&g))
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: pacing sleeps */
	g.tx.cpu = gen_pin_to_this_cpu();
	if (gen_send_loop(&g))
		goto out;
	secs = (double)(xl_monotonic_ns() - g.t0_ns) / 1e9;
	if (xl_link_get(g.f.ifindex, &l1))
		l1 = l0;
	gen_report(&g, secs, &l0, &l1);
	ret = 0;
out:
	gen_teardown(&g);
	return ret;
}
