#!/usr/bin/env bats
# The ns-3 fabric simulator (make sim-fabric, docs/fabric-sim.md), no lab
# needed: a 16-host cell through bench/fabric/run.sh gives the same
# results.json twice for a fixed seed (wall time aside); every IP byte the
# hosts send is received or counted as dropped, and every application byte
# arrives; bad options are refused. The leaf's choices equal `xdpleaf sim
# flowlet --trace`'s on the same trace: tests/unit/test_lb_group.c.

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

@test "sim-fabric: bad options are refused with the reason" {
	run "$SIM" --fabric=spray
	[[ $status -ne 0 && $output == *"--fabric: 'spray' is not"* ]]
	run "$SIM" --uplinkRates=100M,fast
	[[ $status -ne 0 && $output == *"bad rate 'fast'"* ]]
	run "$RUN" --hosts 12
	[[ $status -eq 2 && $output == *"--hosts: a multiple of 8"* ]]
	run "$RUN" --fabrics flowlet
	[[ $status -eq 2 && $output == *"must include ref"* ]]
}
