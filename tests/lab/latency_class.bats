#!/usr/bin/env bats
# The latency class in the lab (docs/load-balancing.md, "Latency class"):
# leaf1 with each uplink's rate (100M, the spines' TBFs at the same) and
# `[class inference] dscp = 18, latency = yes`. Two bulk TCP transfers
# fill their uplinks' phantom queues (overflow = mark keeps them near the
# buffer, 2 ms); pings with DSCP 18 (TOS 72) from a third sender, each a
# new flowlet (one every ~100 ms, the floor is 2 ms), IPv4 and IPv6, must
# each land on an uplink whose queue is empty: the flow table's qdelay_ns
# of the ping (the queueing its packet found on its member, its own 8 us
# included) stays far below the bulk's (up to 2-4 ms). Relations only (a queue that is there against
# one that is not), no rates: this machine is small and busy. That the
# least delay wins where headroom would choose otherwise is
# tests/bpf/test_flowlet.c's (latency_*): in the lab both avoid a full
# queue.

load helpers

PINGS=15
# an empty queue: the ping's own transmission (98 bytes at 100 Mbit/s, 8
# us) and a stray bulk packet's; a bulk queue is ~2 ms
EMPTY_NS=400000
BULK_MIN_NS=1000000

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$l"
	BENCH_NAME=latency_class
	# shellcheck source=bench/lib.sh
	source "$ROOT/bench/lib.sh"
	export CONF1=$BATS_FILE_TMPDIR/leaf1.conf
	{
		leaf1_conf 100M,100M,100M,100M
		printf '\n[class inference]\ndscp = 18\nlatency = yes\n'
	} >"$CONF1"
	lab_up_ready "$P" --config "$CONF1" --uplink-rates 100M,100M,100M,100M
	start_iperf_server "$P-r1"
	start_iperf_server "$P-r2"
}

teardown_file() {
	[[ -n ${P:-} ]] || return 0
	stop_iperf_servers
	"$LAB" down --prefix "$P" 3>&-
}

setup() {
	require_lab
}

teardown() {
	kill_left_running BULK1 BULK2
}

flows_json() {
	in_ns "$P-leaf1" "$XDPLEAF" flows --json --interval 0 --instance "$P"
}

@test "stats and status: the inference class shows as a latency class, the others not; the group lists DSCP 18" {
	local j
	j=$(stats_json "$P")
	[[ $(jqv "$j" '[.ports[] | select(.name == "u1") | .queue.classes[] |
		select(.name == "inference") | .latency] | first') == true ]]
	[[ $(jqv "$j" '[.ports[] | select(.name == "u1") | .queue.classes[] |
		select(.name != "inference") | .latency] | unique | join(",")') == false ]]
	in_ns "$P-leaf1" "$XDPLEAF" stats --instance "$P" | grep -q 'class inference .*latency class'
	# status: the group's latency DSCPs, as the loader put them
	j=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P")
	[[ $(jqv "$j" '.groups[0].latency_dscp | tostring') == "[18]" ]]
	[[ $(jqv "$(stats_json "$P")" '.groups[0].latency_dscp | tostring') == "[18]" ]]
	in_ns "$P-leaf1" "$XDPLEAF" status --instance "$P" | grep -q '^group spine: .*; latency DSCPs 18; members u1 u2 u3 u4$'
}

@test "DSCP 18 pings (IPv4 and IPv6) land on the uplinks without a queue while bulk TCP fills two others" {
	local j tcp up qd qd_bulk fl n=0 bad="" bulk_qd=0 beside=0 i f
	local sel_tcp='[.flows[] | select(.proto == 6 and .dport == 5201 and .rate_bps > 20000000)]'
	local -A dst=([4]=10.2.3.2 [6]=fd00:2:3::2) proto=([4]=1 [6]=58) fl0=([4]="" [6]="")
	in_ns "$P-s1" timeout 30 iperf3 -c 10.2.1.2 -t 12 </dev/null >/dev/null 2>&1 3>&- &
	# shellcheck disable=SC2034 # teardown kills them by name (kill_left_running)
	BULK1=$!
	in_ns "$P-s2" timeout 30 iperf3 -c 10.2.2.2 -t 12 </dev/null >/dev/null 2>&1 3>&- &
	# shellcheck disable=SC2034
	BULK2=$!
	# both transfers sending (at most ~5 s on a slow machine)
	for i in $(seq 100); do
		j=$(flows_json)
		(($(jqv "$j" "$sel_tcp | length") >= 2)) && break
		sleep 0.05
	done
	(($(jqv "$j" "$sel_tcp | length") >= 2)) || { echo "the bulk transfers did not start"; return 1; }
	for i in $(seq "$PINGS"); do
		for f in 4 6; do
			in_ns "$P-s3" ping -"$f" -q -c 1 -W 1 -Q 72 "${dst[$f]}" >/dev/null || true
			j=$(flows_json)
			tcp=$(jqv "$j" "$sel_tcp | map(.uplink) | join(\" \")")
			read -r up qd fl < <(jqv "$j" "[.flows[] | select(.proto == ${proto[$f]} and .dst == \"${dst[$f]}\")] |
				first | \"\\(.uplink) \\(.qdelay_ns) \\(.flowlets)\"")
			[[ $up =~ ^u[1-4]$ ]] || continue
			# the bulk's own queueing, from its flows' last packets
			qd_bulk=$(jqv "$j" "$sel_tcp | map(.qdelay_ns) | max // 0")
			((qd_bulk <= bulk_qd)) || bulk_qd=$qd_bulk
			# a new placement only: a ping that started no flowlet says nothing
			[[ $fl != "${fl0[$f]}" ]] || continue
			fl0[$f]=$fl
			n=$((n + 1))
			# the queue it found is what counts: a bulk flow's
			# uplink whose queue had just drained (TCP halving its
			# window) is as good as an idle one
			((qd <= EMPTY_NS)) || bad+=" IPv$f ping $i on $up (queue ${qd} ns; bulk on $tcp)"
			[[ " $tcp " != *" $up "* ]] || beside=$((beside + 1))
		done
	done
	note "latency class: $n DSCP 18 flowlets placed under bulk TCP ($beside beside a bulk flow, its queue drained), the bulk's queues up to $((bulk_qd / 1000)) us${bad:+; wrong:$bad}"
	((bulk_qd >= BULK_MIN_NS)) || { echo "the bulk never queued ${BULK_MIN_NS} ns: nothing tested"; return 1; }
	((n >= PINGS)) || { echo "only $n of $((2 * PINGS)) pings placed"; return 1; }
	[[ -z $bad ]]
}
