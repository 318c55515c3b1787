#!/usr/bin/env bats
# bench/mixed (make bench-mixed): request latency beside a running MPI
# all-reduce. Without a lab: report.py on cells written here with known
# samples and steps (its percentiles, ratios, step windows and targets),
# and run.sh's refusal of bad options. With the lab: one short cell (the
# latency fabric, single-queue switches, dc hosts, small requests) whose
# JSON must hold every part, with figures that are the samples' own.
# About two minutes with the lab.

load helpers

PY=/usr/bin/python3
RUN=$ROOT/bench/mixed/run.sh
REPORT=$ROOT/bench/mixed/report.py
# Windows of 8 s: a step of the all-reduce takes 0.7 s here, but up to
# 3 s while sockperf spins beside it on this 2-core machine, and only the
# steps wholly inside a window count
MIXED_DURATION=${MIXED_DURATION:-8}

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	local tool
	for tool in sockperf mpirun.openmpi; do
		if ! command -v "$tool" >/dev/null; then
			LAB_SKIP="$tool not installed (make deps)"
			return 0
		fi
	done
	if [[ ! -x $ROOT/build/bench/collective ]]; then
		LAB_SKIP="build/bench/collective not built (make build/bench/collective)"
		return 0
	fi
	export MP="xlt$$m" OUT=$BATS_FILE_TMPDIR/bench
	# fd 3 closed: the daemons the lab starts must not hold bats' pipe
	"$RUN" --fabrics latency --switches single --host-tcp dc --sizes small \
		--duration "$MIXED_DURATION" --quiet-wait 20 --prefix "$MP" --out "$OUT" \
		>"$BATS_FILE_TMPDIR/bench.log" 2>&1 3>&- || true
}

teardown_file() {
	[[ -n ${MP:-} ]] || return 0
	# the bench removes its lab and its processes itself; this is for an
	# interrupted run
	local p=${MP}ls h pids
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		[[ -e /run/netns/$p-$h ]] || continue
		pids=$(ip netns pids "$p-$h" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one pid per word
		[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
	done
	"$LAB" down --prefix "$p" 3>&- >/dev/null 2>&1 || true
}

setup() {
	WORK=$(mktemp -d)
}

teardown() {
	rm -rf "$WORK"
}

# The lab cell's one row, or a failure that shows why there is none
# (after require_lab: a skip inside $(...) would not skip the test).
lab_row() {
	local r
	r=$(jq -c '.rows[0]' "$OUT/results.json" 2>/dev/null || true)
	if [[ -z $r || $r == null ]] || jq -e '.failed' <<<"$r" >/dev/null; then
		echo "no result:" >&2
		tail -20 "$BATS_FILE_TMPDIR/bench.log" >&2
		return 1
	fi
	echo "$r"
}

# One cell of hand-made data: cell DIR HOSTS SWITCH FABRIC, then its
# files by fixture (below).
fixture() { # dir spec-json
	"$PY" - "$1" "$2" <<'PY'
import json, os, sys
root, spec = sys.argv[1], json.loads(sys.argv[2])
cell = os.path.join(root, spec["host_tcp"], spec["switch"], spec["fabric"])
os.makedirs(cell)
json.dump({k: spec[k] for k in ("host_tcp", "switch", "fabric")} | {"sizes": "small"},
          open(os.path.join(cell, "meta.json"), "w"))
if spec.get("failed"):
    open(os.path.join(cell, "failed.txt"), "w").write(spec["failed"] + "\n")
    sys.exit(0)

def window(stem, launch_s, rtts_us):
    # requests every 50 ms from 1 s after sockperf's launch
    with open(os.path.join(cell, stem + ".csv"), "w") as f:
        f.write("sockperf: a summary line, 1, 2, 3\npacket, txTime(sec), rxTime(sec), latency(usec)\n")
        for i, r in enumerate(rtts_us):
            tx = 1.0 + i * 0.05
            f.write(f"{i}, {tx:.9f}, {tx + r / 1e6:.9f}, {r / 2:.3f}\n")
    json.dump({"size": "small", "launch_ns": launch_s * 10**9, "exit_ns": (launch_s + 7) * 10**9,
               "exit_status": 0}, open(os.path.join(cell, stem + ".json"), "w"))

window("idle-small", 10, range(1, 101))           # p50 50, p99 99, p99.9 100
window("loaded-small", 100, spec["loaded"])
window("off-1", 200, [5] * 100)
steps = []
def step(a, b):
    steps.append({"start_ns": round(a * 1e9), "end_ns": round(b * 1e9),
                  "time_ns": round(b * 1e9) - round(a * 1e9)})
step(100.5, 101.5)  # straddles the loaded window's first request: neither
for a, b in spec["with"]:    # inside [101, ~106] s
    step(a, b)
for a, b in spec["without"]:  # inside [201, ~206] s
    step(a, b)
step(206.5, 207)    # after the off window's last response: neither
json.dump({"wrong_results": 0, "steps": steps}, open(os.path.join(cell, "steps.json"), "w"))
PY
}

field() { # row-selector-jq expression
	jq -c ".rows[] | select($1) | $2" "$WORK/results.json"
}

@test "mixed report: percentiles of round trips, p99 and all-reduce ratios, targets per switch, kernel in the same run" {
	# kernel: loaded 10..1000 us -> p99 990
	fixture "$WORK" "{\"host_tcp\": \"dc\", \"switch\": \"single\", \"fabric\": \"kernel\",
		\"loaded\": [$(seq -s ', ' 10 10 1000)], \"with\": [[101.5, 102.5]], \"without\": [[201.5, 202.5]]}"
	# latency, single queue: loaded p99 198 (2 x idle: <= 4 x), below
	# kernel's 990; all-reduce 1,200 ms (median of 1,000, 1,200, 1,300)
	# against 1,000: 1.2 x > 1.10
	fixture "$WORK" "{\"host_tcp\": \"dc\", \"switch\": \"single\", \"fabric\": \"latency\",
		\"loaded\": [$(seq -s ', ' 2 2 200)], \"with\": [[101.2, 102.2], [102.3, 103.5], [103.6, 104.9]],
		\"without\": [[201.1, 202.1], [202.2, 203.2], [203.3, 204.3]]}"
	# latency, class queues: loaded p99 297 = 3 x idle (> 2 x); no kernel
	# cell under class queues; all-reduce 1.0 x
	fixture "$WORK" "{\"host_tcp\": \"dc\", \"switch\": \"class\", \"fabric\": \"latency\",
		\"loaded\": [$(seq -s ', ' 3 3 300)], \"with\": [[101.2, 102.2]], \"without\": [[201.1, 202.1]]}"
	fixture "$WORK" '{"host_tcp": "dc", "switch": "single", "fabric": "flowlet",
		"failed": "lab.sh up failed: no such thing"}'

	run "$PY" "$REPORT" "$WORK"
	echo "$output"
	[ "$status" -eq 0 ]
	local k='.fabric == "kernel"' ls='.fabric == "latency" and .switch == "single"'
	local lc='.fabric == "latency" and .switch == "class"'
	# round trips from txTime and rxTime, nearest rank
	[[ $(field "$k" '.idle | [.n, .p50, .p99, .p999] | map(round)') == "[100,50,99,100]" ]]
	[[ $(field "$k" '.loaded.p99 | round') == 990 ]]
	[[ $(field "$k" '.p99_x * 100 | round') == 1000 ]]
	[[ $(field "$k" '.targets') == null ]]
	[[ $(field "$ls" '.loaded.p99 | round') == 198 ]]
	[[ $(field "$ls" '.p99_x * 100 | round') == 200 ]]
	# steps: the three inside the loaded window, the three inside the off
	# window; the one across the window's start and the one after the
	# off window's last response in neither
	[[ $(field "$ls" '[.ar_steps_with, .ar_steps_without]') == "[3,3]" ]]
	[[ $(field "$ls" '[.ar_p50_with_ms, .ar_p50_without_ms] | map(round)') == "[1200,1000]" ]]
	[[ $(field "$ls" '.ar_x * 100 | round') == 120 ]]
	[[ $(field "$ls" '.targets | [.p99_x_max, .ar_x_max, .p99_ok, .ar_ok, .beats_kernel]') == "[4,1.1,true,false,true]" ]]
	[[ $(field "$ls" '.targets.kernel_p99 | round') == 990 ]]
	[[ $(field "$lc" '.p99_x * 100 | round') == 300 ]]
	[[ $(field "$lc" '.targets | [.p99_x_max, .ar_x_max, .p99_ok, .ar_ok, .beats_kernel]') == "[2,1.05,false,true,null]" ]]
	[[ $(field '.fabric == "flowlet"' '[.failed, .loaded]') == '["lab.sh up failed: no such thing",null]' ]]
	# each cell's result.json holds its rows
	[[ $(jq -c '.[0].loaded.p99 | round' "$WORK/dc/single/latency/result.json") == 198 ]]
	# the table
	[[ $output == *"50/99/100"* ]]
	[[ $output == *"p99 ok, ar MISS, <k ok"* ]]
	[[ $output == *"p99 MISS, ar ok, <k -"* ]]
	[[ $output == *"FAILED: lab.sh up failed: no such thing"* ]]
}

@test "mixed report: the CDF plot; no cells or no directory is an error" {
	fixture "$WORK" '{"host_tcp": "dc", "switch": "single", "fabric": "kernel",
		"loaded": [100, 200, 300], "with": [], "without": []}'
	if command -v gnuplot >/dev/null; then
		"$PY" "$REPORT" --plot "$WORK/cdf.png" "$WORK" >/dev/null
		[[ -s $WORK/cdf.png ]]
	fi
	mkdir "$WORK/empty"
	run "$PY" "$REPORT" "$WORK/empty"
	[ "$status" -eq 1 ]
	[[ $output == *"no cells"* ]]
	run "$PY" "$REPORT" "$WORK/none"
	[ "$status" -eq 1 ]
	[[ $output == *"not a directory"* ]]
}

@test "mixed run.sh: bad options are refused, naming what is wrong" {
	[[ $EUID -eq 0 ]] || skip "run.sh needs root"
	run "$RUN" --fabrics kernel,ecmp
	[ "$status" -eq 1 ]
	[[ $output == *"unknown fabric 'ecmp'"* ]]
	run "$RUN" --switches deep
	[[ $status -eq 1 && $output == *"unknown switch 'deep'"* ]]
	run "$RUN" --sizes huge
	[[ $status -eq 1 && $output == *"unknown size 'huge'"* ]]
	run "$RUN" --duration 0
	[[ $status -eq 1 && $output == *"--duration"* ]]
	run "$RUN" --host-tcp bbr
	[[ $status -eq 1 && $output == *"--host-tcp"* ]]
	run "$RUN" --frobnicate
	[ "$status" -eq 2 ]
}

@test "mixed lab cell: idle and loaded requests, steps with and without them, every all-reduce right" {
	require_lab
	local r cell=$OUT/dc/single/latency
	r=$(lab_row)
	note "latency, single queue, dc hosts, small requests, ${MIXED_DURATION} s windows:" \
		"idle p50/p99/p99.9 $(jq -c '.idle | [.p50, .p99, .p999] | map(round)' <<<"$r") us," \
		"loaded $(jq -c '.loaded | [.p50, .p99, .p999] | map(round)' <<<"$r") us;" \
		"all-reduce p50 $(jq '.ar_p50_with_ms | round' <<<"$r") ms with," \
		"$(jq '.ar_p50_without_ms | round' <<<"$r") ms without ($(jq .ar_steps_with <<<"$r")/$(jq .ar_steps_without <<<"$r") steps)"
	jq -e '.host_tcp == "dc" and .switch == "single" and .fabric == "latency" and .size == "small"' <<<"$r" >/dev/null
	# 2,000 requests a second: at least half of them in each window's
	# valid second(s), however busy the machine
	jq -e --argjson d "$MIXED_DURATION" '.idle.n >= 1000 * ($d - 1) and .loaded.n >= 1000 * ($d - 1)' <<<"$r" >/dev/null
	jq -e '.idle.p50 > 0 and .idle.p50 <= .idle.p99 and .idle.p99 <= .idle.p999' <<<"$r" >/dev/null
	jq -e '.ar_steps_with >= 1 and .ar_steps_without >= 1 and .ar_wrong_results == 0' <<<"$r" >/dev/null
	jq -e '.targets | has("p99_ok") and has("ar_ok") and has("beats_kernel")' <<<"$r" >/dev/null
	# the all-reduce: 8 ranks, s1, r1, s2, r2, ..., 4 MiB
	[[ $(jq -c .hosts "$cell/steps.json") == '["10.1.1.2","10.2.1.2","10.1.2.2","10.2.2.2","10.1.3.2","10.2.3.2","10.1.4.2","10.2.4.2"]' ]]
	[[ $(jq .bytes "$cell/steps.json") == 4194304 ]]
	# the lab and every process in it are gone
	[[ ! -e /run/netns/${MP}ls-s1 ]]
}

@test "mixed lab cell: its figures are its samples' and steps' own" {
	require_lab
	local r cell=$OUT/dc/single/latency p99 n k lo hi
	r=$(lab_row)
	for phase in idle loaded; do
		# round trips from sockperf's log, nearest-rank p99, in ns
		n=$(grep -c '^[0-9]' "$cell/$phase-small.csv")
		k=$(((99 * n + 99) / 100))
		p99=$(awk -F', ' '/^[0-9]/ { printf "%.0f\n", ($3 - $2) * 1e9 }' "$cell/$phase-small.csv" |
			sort -n | sed -n "${k}p")
		jq -e --argjson n "$n" --argjson p "$p99" --arg ph "$phase" \
			'.[$ph].n == $n and ((.[$ph].p99 * 1000 - $p) | fabs) < 2' <<<"$r" >/dev/null || {
			echo "$phase: $n samples, p99 $p99 ns; the report: $(jq -c ".$phase" <<<"$r")"
			return 1
		}
	done
	jq -e '((.p99_x - .loaded.p99 / .idle.p99) | fabs) < 1e-9' <<<"$r" >/dev/null
	# the steps with requests: wholly inside the loaded window's first
	# request and last response, on the steps' clock
	lo=$(jq .launch_ns "$cell/loaded-small.json")
	hi=$lo
	lo=$((lo + $(awk -F', ' '/^[0-9]/ { printf "%.0f", $2 * 1e9; exit }' "$cell/loaded-small.csv")))
	hi=$((hi + $(awk -F', ' '/^[0-9]/ { t = $3 } END { printf "%.0f", t * 1e9 }' "$cell/loaded-small.csv")))
	jq -e --argjson lo "$lo" --argjson hi "$hi" --argjson r "$r" '
		[.steps[] | select(.start_ns >= $lo and .end_ns <= $hi) | .time_ns / 1e6] | sort as $w
		| ($w | length) == $r.ar_steps_with
		and (($w | if length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end) - $r.ar_p50_with_ms | fabs) < 1e-6
		and (($r.ar_x - $r.ar_p50_with_ms / $r.ar_p50_without_ms) | fabs) < 1e-9' \
		"$cell/steps.json" >/dev/null
	# the off windows ran the same sockperf on s1's loopback
	[[ $(jq -r .server "$cell/off-1.json") == 127.0.0.1 && $(jq -r .server "$cell/loaded-small.json") == 10.2.2.2 ]]
	[[ -s $OUT/table.txt && -s $OUT/setup.json ]]
}
