#!/usr/bin/env bats
# The benchmarks' reports draw their plots (bench/plot.py through gnuplot)
# from raw data: small extracts of real runs in tests/fixtures/plots/ (two
# jct cells, hash and flowlet through workload 4's uplink failure, a DCQCN
# run's queue and rate samples). No lab: each report runs on a copy and
# must write a PNG (its magic bytes, more than a header's size) named in
# its docstring. And, from synthetic data: bench-balance's count of the
# samples in which an uplink sat out a run, and its workload 5 ratios to
# the same run's non-blocking reference.

load helpers

FIX=$ROOT/tests/fixtures/plots
PY=/usr/bin/python3

setup() {
	command -v gnuplot >/dev/null || skip "gnuplot not installed (make deps)"
	WORK=$BATS_TEST_TMPDIR/data
}

# A PNG file: the 8-byte signature, then at least an IHDR and an IEND.
is_png() { # file
	[[ -s $1 ]] || { echo "$1: missing or empty"; return 1; }
	local magic size
	magic=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
	size=$(stat -c %s "$1")
	[[ $magic == 89504e470d0a1a0a ]] || { echo "$1: not a PNG (starts $magic)"; return 1; }
	((size > 1000)) || { echo "$1: only $size bytes"; return 1; }
	note "$(basename "$1"): PNG, $size bytes"
}

report() { # bench
	cp -r "$FIX/$1" "$WORK"
	run "$PY" "$ROOT/bench/$1/report.py" "$WORK"
	echo "$output"
	[[ $status -eq 0 ]]
}

@test "bench-jct report: a step-time CDF per fabric" {
	report jct
	[[ $output == *"step-time CDFs per fabric: 1 plots"* ]]
	is_png "$WORK/plots/cdf-equal-allreduce-1M.png"
}

@test "bench-balance report: uplink shares and queue lengths over time" {
	report balance
	[[ $output == *"2 plots in"* ]]
	is_png "$WORK/plots/shares-w4.png"
	is_png "$WORK/plots/queue-w4.png"
}

@test "bench-dcqcn report: every QP's published rate over time" {
	report dcqcn
	[[ $output == *"per-QP rates over time: $WORK/qp_rates.png"* ]]
	is_png "$WORK/qp_rates.png"
}

@test "plot.py without data points still writes a PNG; a bad path fails cleanly" {
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench'); import plot
ok = plot.lines('$BATS_TEST_TMPDIR/empty.png', [{'title': 't', 'series': [('a', [])]}], 'x')
bad = plot.lines('$BATS_TEST_TMPDIR/no/such/dir/x.png', [{'series': [('a', [(1, 2)])]}], 'x')
print(ok, bad)"
	echo "$output"
	[[ $status -eq 0 ]]
	[[ ${lines[-1]} == "True False" ]]
	[[ $output == *"gnuplot failed on"* ]]
	is_png "$BATS_TEST_TMPDIR/empty.png"
	[[ ! -e $BATS_TEST_TMPDIR/no/such/dir/x.png.tmp ]]
}

@test "bench-balance report: the samples in which an uplink sat out are counted, per uplink" {
	local f=$BATS_TEST_TMPDIR/samples.json
	# two sampler records as xdpleaf stats --json writes them (pretty,
	# back to back), u2 unusable for IPv4 in the second; a third cut short
	printf '%s\n' '{"t": 1.0, "stats": {"groups": [{"members": [' \
		'{"port": "u1", "up_ipv4": true}, {"port": "u2", "up_ipv4": true}]}]}}' \
		'{"t": 1.1, "stats": {"groups": [{"members": [' \
		'{"port": "u1", "up_ipv4": true}, {"port": "u2", "up_ipv4": false}]}]}}' \
		'{"t": 1.2, "stats": {"gro' >"$f"
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/balance'); import report
print(report.unusable_samples('$f'))"
	echo "$output"
	[[ $status -eq 0 && $output == "({'u2': 1}, 2)" ]]
}

@test "bench-jct report: moves by data flows count only the collective's data flows through the uplinks" {
	local d=$BATS_TEST_TMPDIR/cell
	mkdir -p "$d"
	# leaf1 -> leaf2: a data flow (3 moves in the cell), a control flow
	# (40 moves, under a quarter of the largest's bytes), one new in the
	# cell (2) and one evicted and made again, counted whole (1); and a
	# flow the other way (7), which leaf1 does not balance
	f() { printf '{"src": "%s", "dst": "%s", "proto": 6, "sport": %s, "dport": 1024, "qp": 0, "bytes": %s, "moves": %s}' "$@"; }
	printf '{"flows": [%s, %s, %s]}\n' "$(f 10.1.1.2 10.2.1.2 1 1000 1)" \
		"$(f 10.1.2.2 10.2.1.2 2 100 5)" "$(f 10.1.3.2 10.2.3.2 3 9000000 9)" >"$d/flows0.json"
	printf '{"flows": [%s, %s, %s, %s, %s]}\n' "$(f 10.1.1.2 10.2.1.2 1 1001000 4)" \
		"$(f 10.1.2.2 10.2.1.2 2 5100 45)" "$(f 10.1.4.2 10.2.4.2 4 500000 2)" \
		"$(f 10.1.3.2 10.2.3.2 3 300000 1)" "$(f 10.2.1.2 10.1.1.2 5 2000000 7)" >"$d/flows.json"
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/jct'); import report
print(report.data_flow_moves('$d'))"
	echo "$output"
	[[ $status -eq 0 && $output == 6 ]]
	rm "$d/flows0.json"
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/jct'); import report
print(report.data_flow_moves('$d'))"
	[[ $status -eq 0 && $output == None ]]
}

@test "bench-balance report: workload 5's steps over the same run's non-blocking reference" {
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/balance'); import report
def row(mode, wl, p50=None, p99=None):
    r = {'mode': mode, 'workload': wl}
    if p50:
        r.update(step_p50_ms=p50, step_p99_ms=p99)
    return r
rows = [row('ref', 5, 100.0, 200.0), row('flowlet', 5, 103.0, 150.0),
        row('kernel', 5, 180.0, 300.0), row('flowlet', 1), row('spray', 5)]
ref = report.against_reference(rows)
print(ref is rows[0], 'step_ref_ratio' in rows[0], 'step_ref_ratio' in rows[3],
      'step_ref_ratio' in rows[4])
print(rows[1]['step_ref_ratio'], rows[1]['step_ref_ratio_p99'], rows[2]['step_ref_ratio'])
alone = [row('flowlet', 5, 103.0, 150.0)]
print(report.against_reference(alone), 'step_ref_ratio' in alone[0])"
	echo "$output"
	[[ $status -eq 0 ]]
	[[ ${lines[0]} == "True False False False" ]]
	[[ ${lines[1]} == "1.03 0.75 1.8" ]]
	[[ ${lines[2]} == "None False" ]]
}
