#!/usr/bin/env bats
# bench/jct/targets.py: flowlet's bench-jct cells judged against the
# targets docs/jct-bench.md states. No lab: a results.json written here,
# with one cell on each side of every target.

load helpers

PY=/usr/bin/python3
TARGETS=$ROOT/bench/jct/targets.py

setup() {
	WORK=$(mktemp -d)
	# rows as report.py writes them: flowlet cells with their ratios, and a
	# kernel ECMP median for the as-is cell
	cat >"$WORK/results.json" <<'JSON'
{"setup": {}, "rows": [
 {"host_tcp": "dc", "uplinks": "equal", "label": "flowlet", "op": "allreduce", "size": "4M", "bytes": 4194304, "p50_x": 1.09, "p99_x": 1.40, "reorder_all": 0},
 {"host_tcp": "dc", "uplinks": "unequal", "label": "flowlet", "op": "allreduce", "size": "4M", "bytes": 4194304, "p50_x": 1.16, "p99_x": 1.30, "reorder_all": 2},
 {"host_tcp": "dc", "uplinks": "degraded", "label": "flowlet", "op": "allreduce", "size": "4M", "bytes": 4194304, "p50_x": 1.25, "p99_x": 1.30, "reorder_all": 0, "bound": {"whole_flow_x": 1.625, "fluid_x": 1.0}},
 {"host_tcp": "dc", "uplinks": "equal", "label": "ref", "op": "allreduce", "size": "4M", "bytes": 4194304, "p50_x": 1.0, "p99_x": 1.0, "reorder_all": 0},
 {"host_tcp": "as-is", "uplinks": "unequal", "label": "flowlet", "op": "alltoall", "size": "1M", "bytes": 1048576, "p50_x": 1.20, "p99_x": 2.0, "reorder_all": 0}
], "summary": [
 {"host_tcp": "as-is", "uplinks": "unequal", "op": "alltoall", "size": "1M", "kernel_p50_median_x": 1.10}
]}
JSON
}

teardown() {
	rm -rf "$WORK"
}

# one field of the cell (hosts, uplinks) as JSON
field() { # hosts uplinks key
	"$PY" "$TARGETS" --json "$WORK" | "$PY" -c '
import json, sys
c = [c for c in json.load(sys.stdin) if (c["host_tcp"], c["uplinks"]) == (sys.argv[1], sys.argv[2])]
print(json.dumps(c[0][sys.argv[3]]))' "$1" "$2" "$3"
}

@test "jct targets: dc p50 per uplink set, p99 for every dc cell" {
	[ "$(field dc equal p50_ok)" = true ]      # 1.09 <= 1.10
	[ "$(field dc equal p99_ok)" = false ]     # 1.40 > 1.35
	[ "$(field dc unequal p50_ok)" = false ]   # 1.16 > 1.15
	[ "$(field dc degraded p50_ok)" = true ]   # 1.25 <= 1.30
	[ "$(field dc degraded whole_flow_bound_x)" = 1.625 ]
}

@test "jct targets: as-is unequal within 1.30 yet above kernel ECMP's median is flagged" {
	[ "$(field as-is unequal p50_ok)" = true ]
	[ "$(field as-is unequal p99_ok)" = null ]
	[ "$(field as-is unequal le_kernel_median)" = false ]
}

@test "jct targets: only flowlet cells are judged; the grid marks misses and sums reordering" {
	run "$PY" "$TARGETS" "$WORK"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ $output == *"1.09/1.40!"* ]]
	[[ $output == *"1.16!/1.30"* ]]
	[[ $output == *"(k 1.10!)"* ]]
	[[ $output == *"1.25/1.30 b1.625"* ]]
	[[ $output == *"1 of 1 cells at or below their whole-flow bound (p50)"* ]]
	[[ $output == *"2 of 3 cells meet the p50 target"* ]]
	[[ $output == *"3 flowlet cells; reordered segments: 2 in all (largest 2)"* ]]
}

@test "jct targets: --markdown prints the same cells as a table" {
	run "$PY" "$TARGETS" --markdown "$WORK"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ $output == *"| op | size | equal | unequal | degraded |"* ]]
	[[ $output == *"| \`allreduce\` | 4M | 1.09/1.40! | 1.16!/1.30 | 1.25/1.30 b1.625 |"* ]]
	[[ $output == *"2 of 3 cells meet the p50 target"* ]]
}

@test "jct targets: a missing or malformed results file is an error" {
	run "$PY" "$TARGETS" "$WORK/none"
	[ "$status" -eq 1 ]
	[[ $output == *"No such file"* ]]
	echo '{"rows": [' >"$WORK/bad.json"
	run "$PY" "$TARGETS" "$WORK/bad.json"
	[ "$status" -eq 1 ]
	run "$PY" "$TARGETS"
	[ "$status" -eq 2 ]
}
