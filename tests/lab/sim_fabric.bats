#!/usr/bin/env bats
# The ns-3 fabric simulator (make sim-fabric, docs/fabric-sim.md), no lab
# needed: a 16-host cell through bench/fabric/run.sh gives the same
# results.json twice for a fixed seed (wall time aside); every IP byte the
# hosts send is received or counted as dropped, and every application byte
# arrives; recursive doubling and Rabenseifner send what they should; bad
# options are refused. The same for the RoCE-like transport
# (--transport roce), whose DCQCN sends CNPs and cuts rates under
# congestion and stays silent with ECN off. The leaf's choices equal
# `xdpleaf sim flowlet --trace`'s on the same trace:
# tests/unit/test_lb_group.c.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
SIM=$ROOT/build/sim-fabric/xdpleaf-fabric
RUN=$ROOT/bench/fabric/run.sh

setup_file() {
	[[ -x $SIM ]] || skip "build/sim-fabric/xdpleaf-fabric not built (make sim-fabric)"
}

# the cells' results without what depends on the machine's speed
stable() {
	jq -S 'del(.cells[].wall_s, .cells[].events_per_s)' "$1"
}

@test "sim-fabric: 16 hosts, fixed seed: the same results.json twice" {
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	"$RUN" --hosts 16 --fabrics ref,ecmp,flowlet --ops allreduce --bytes 1M --steps 2 \
		--seed 3 --out "$a" >/dev/null
	"$RUN" --hosts 16 --fabrics ref,ecmp,flowlet --ops allreduce --bytes 1M --steps 2 \
		--seed 3 --out "$b" >/dev/null
	[[ $(jq '.cells | length' "$a/results.json") -eq 3 ]]
	diff <(stable "$a/results.json") <(stable "$b/results.json")
	# every cell has the issue's fields, and the ratios follow from them
	jq -e '.cells[] | select(.hosts == 16 and .leaves == 2 and .spines == 8 and
		.collective == "allreduce" and .bytes == 1048576 and .p50_ms > 0 and
		.p99_ms >= .p50_ms and .ref_p50_ms > 0 and
		((.ratio_p50 - .p50_ms / .ref_p50_ms) | fabs) < 0.001 and
		(.ratio_p99 | type) == "number" and (.lb_mode | type) == "string")' \
		"$a/results.json" >/dev/null
	[[ $(jq '[.cells[] | select(.fabric == "ref")][0].ratio_p50' "$a/results.json") == 1 ]]
	# flowlet's leaves decided, and the seed changes ECMP's hashes
	jq -e '.cells[] | select(.lb_mode == "flowlet") | .flowlets > 0' "$a/results.json"
}

@test "sim-fabric: bytes are conserved: IP sent = received + dropped, application bytes all arrive" {
	local out=$BATS_TEST_TMPDIR/c
	# the lab's shaping, 2 ms buffers: drops happen
	"$SIM" --lab --uplinkRates=200M,100M,100M,50M --fabric=flowlet --collective=alltoall \
		--bytes=1048576 --steps=2 --out="$out"
	jq . "$out"
	jq -e '.ip_dropped > 0 and .ip_sent == .ip_received + .ip_dropped and
		.packets_sent == .packets_received + .packets_dropped and
		.app_sent > 0 and .app_sent == .app_received' "$out"
}

# A cell's IP bytes and packets: sent = received + dropped; every
# application byte delivered.
conserved() {
	jq -e '.ip_sent == .ip_received + .ip_dropped and
		.packets_sent == .packets_received + .packets_dropped and
		.app_sent > 0 and .app_sent == .app_received' "$1" >/dev/null
}

@test "sim-fabric: roce, 16 hosts, fixed seed: the same results.json twice, bytes conserved" {
	local a=$BATS_TEST_TMPDIR/ra b=$BATS_TEST_TMPDIR/rb f
	"$RUN" --hosts 16 --transport roce --fabrics ref,ecmp,flowlet --ops alltoall --bytes 1M \
		--steps 2 --seed 3 --out "$a" >/dev/null
	"$RUN" --hosts 16 --transport roce --fabrics ref,ecmp,flowlet --ops alltoall --bytes 1M \
		--steps 2 --seed 3 --out "$b" >/dev/null
	[[ $(jq '[.cells[] | select(.transport == "roce")] | length' "$a/results.json") -eq 3 ]]
	diff <(stable "$a/results.json") <(stable "$b/results.json")
	for f in "$a"/cells/*.json; do
		conserved "$f" || { jq . "$f"; false; }
		# the transport's counters are there (RoCE data went out)
		jq -e '.roce_data_packets > 0 and (.cnps_sent | type) == "number" and
			(.rate_cuts | type) == "number"' "$f" >/dev/null
	done
}

@test "sim-fabric: roce under congestion: CNPs sent, rates cut, losses resent; none with ECN off" {
	local on=$BATS_TEST_TMPDIR/on off=$BATS_TEST_TMPDIR/off
	# the lab's unequal uplinks, ECMP all-to-all: the 50M uplink is
	# oversubscribed, its queues mark and overflow
	local args=(--lab "--uplinkRates=200M,100M,100M,50M" --fabric=ecmp --collective=alltoall
		--bytes=1048576 --steps=2 --transport=roce)
	"$SIM" "${args[@]}" --out="$on"
	jq . "$on"
	conserved "$on"
	jq -e '.red_marked > 0 and .ce_received > 0 and .cnps_sent > 0 and
		.cnps_received > 0 and .cnps_received <= .cnps_sent and .rate_cuts > 0 and
		.min_rate_bps < 112500000 and
		.ip_dropped > 0 and .roce_retransmitted > 0 and .roce_naks > 0' "$on"
	"$SIM" "${args[@]}" --roceEcn=0 --out="$off"
	jq . "$off"
	conserved "$off"
	jq -e '.marked == 0 and .red_marked == 0 and .ce_received == 0 and .cnps_sent == 0 and
		.cnps_received == 0 and .rate_cuts == 0 and .roce_retransmitted > 0' "$off"
}

@test "sim-fabric: bad options are refused with the reason" {
	run "$SIM" --fabric=static
	[[ $status -ne 0 && $output == *"--fabric: 'static' is not"* ]]
	run "$SIM" --uplinkRates=100M,fast
	[[ $status -ne 0 && $output == *"bad rate 'fast'"* ]]
	run "$RUN" --hosts 12
	[[ $status -eq 2 && $output == *"--hosts: a multiple of 8"* ]]
	run "$RUN" --fabrics flowlet
	[[ $status -eq 2 && $output == *"must include ref"* ]]
	run "$SIM" --transport=rdma
	[[ $status -ne 0 && $output == *"--transport: 'rdma' is not tcp or roce"* ]]
	run "$RUN" --transport rdma
	[[ $status -eq 2 && $output == *"--transport: tcp or roce"* ]]
	# DCQCN's keys are read as the configuration reads them
	run "$SIM" --transport=roce --dcqcn=min_rate=fast
	[[ $status -ne 0 && $output == *"--dcqcn: min_rate: invalid rate 'fast'"* ]]
	run "$SIM" --transport=roce --dcqcn=alpha_first=1/2
	[[ $status -ne 0 && $output == *"--dcqcn: alpha_first is not used by the paper variant"* ]]
}

# A cell as xdpleaf-fabric writes it: 2 leaves of 8 hosts, 8 spines at
# 100G, leaf 0's links to spines 4 and 5 at 50G (both ways); ref: its
# uplinks 1T, each leaf's host ports at its uplinks' aggregate / 8.
bound_x() { # collective fabric|ref -> "whole_flow_x fluid_x exact" against ref
	PYTHONPATH=$ROOT/bench/fabric /usr/bin/python3 - "$1" <<'PY'
import sys, bound
G, T = 100 * 10**9, 10**12
deg = [G] * 4 + [G // 2] * 2 + [G] * 2
def cell(op, up, host_down):
    return {"collective": op, "hosts": 16, "leaves": 2, "hosts_per_leaf": 8,
            "channels": 1, "bytes": 4 << 20, "leaf_up_bps": up, "leaf_down_bps": up,
            "host_up_bps": [G, G], "host_down_bps": host_down}
op = sys.argv[1]
f = bound.model_times(cell(op, [deg, [G] * 8], [G, G]))
r = bound.model_times(cell(op, [[T] * 8, [T] * 8], [sum(deg) // 8, G]))
print(f"{f['whole_flow_s'] / r['whole_flow_s']:.4f} {f['fluid_s'] / r['whole_flow_s']:.4f} {f['exact']}")
PY
}

@test "sim-fabric: the bound: whole flows on a degraded fabric against time-sharing" {
	# ring: 8 flows each way over 6 paths at 100G and 2 at 50G; at best
	# the slowest gets 50G where the reference gives 700G / 8 = 87.5G
	run bound_x allreduce
	[[ $status -eq 0 && $output == "1.7500 1.0000 True" ]] || { echo "$output"; return 1; }
	# all-to-all: the crossing phases as the ring's, the intra-leaf ones
	# at the hosts' 100G where the reference shapes them to 87.5G
	run bound_x alltoall
	[[ $status -eq 0 && $output == "1.3417 0.9417 True" ]] || { echo "$output"; return 1; }
}

@test "sim-fabric: recursive doubling and Rabenseifner send what the algorithms send, and arrive" {
	local op out n=8 N=1048576 want
	for op in allreduce-recdbl allreduce-rabenseifner; do
		out=$BATS_TEST_TMPDIR/$op
		"$SIM" --lab --fabric=flowlet --collective="$op" --bytes="$N" --steps=1 --warmup=0 \
			--out="$out"
		# per rank: recdbl all N bytes in each of log2 8 = 3 phases;
		# Rabenseifner N/2 + N/4 + N/8 halving, the same doubling back
		if [[ $op == allreduce-recdbl ]]; then
			want=$((n * N * 3))
		else
			want=$((n * 2 * (N / 2 + N / 4 + N / 8)))
		fi
		jq -e --argjson want "$want" '.app_sent == $want and .app_received == $want and
			.ip_sent == .ip_received + .ip_dropped and (.steps_ms | length) == 1' "$out" ||
			{ echo "$op: $(jq -c '{app_sent, app_received}' "$out"), want $want"; return 1; }
	done
	run "$SIM" --leaves=3 --hostsPerLeaf=4 --collective=allreduce-recdbl
	[[ $status -ne 0 && $output == *"or not for 12 hosts"* ]]
}

@test "sim-fabric: spray sends a flow's packets over every member, and every byte arrives" {
	local f out
	for f in spray flowlet; do
		out=$BATS_TEST_TMPDIR/$f
		"$SIM" --lab --uplinkRates=200M,100M,100M,50M --fabric="$f" --collective=allreduce \
			--bytes=1048576 --steps=1 --warmup=0 --out="$out"
		jq -e '.lb_mode == "'"$f"'" and .app_sent == .app_received and
			.ip_sent == .ip_received + .ip_dropped' "$out"
	done
	# 8 ring connections of 14 x 128 KiB each: spray changes member at most
	# packets (7 of 10 draws differ on these rates), flowlet at few
	jq -e -s '.[0].moves > 1000 and .[0].moves > 20 * .[1].moves' \
		"$BATS_TEST_TMPDIR/spray" "$BATS_TEST_TMPDIR/flowlet" ||
		{ jq -c -s 'map({lb_mode, moves})' "$BATS_TEST_TMPDIR/spray" "$BATS_TEST_TMPDIR/flowlet"; return 1; }
}
