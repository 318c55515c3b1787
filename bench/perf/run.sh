#!/usr/bin/env bash
# `make bench`: what a packet costs the leaf, against the minimal
# forwarders of bench/baselines/ measured in the same run
# (docs/performance.md).
#
#   bench/perf/run.sh [--out DIR] [--no-lab]
#
# 1. build/bench/paths: every path of the leaf and host programs through
#    BPF_PROG_TEST_RUN as ratios to the matching baseline, and what each
#    optional feature adds to the flowlet path (JSON lines).
# 2. build/bench/scale: the flowlet path and the stateful baseline with
#    many live flows, uplinks and routes; the instance's memory.
# 3. bench/perf/lab_rate.sh, if the lab can run here: Mpps of leaf1 with
#    xdpleaf at XDP and at tc, the stateful baseline and kernel forwarding.
# 4. bench/perf/report.py: DIR/results.json, the table and the plots.
# Each part takes /tmp/xdpleaf-bench.lock while it runs, so that two
# benchmarks never share the machine's two cores.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
OUT=$ROOT/build/bench/perf
LAB=1
PY=/usr/bin/python3 # Debian's; the pyenv python3 on PATH may lack modules
LOCK=/tmp/xdpleaf-bench.lock

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
	case $1 in
	--out) OUT=${2:?--out needs a directory}; shift 2 ;;
	--no-lab) LAB=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "bench/perf/run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ $(id -u) -eq 0 ]] || { echo "bench/perf/run.sh: needs root (BPF, netns)" >&2; exit 1; }
mkdir -p "$OUT"
start=$SECONDS
flock "$LOCK" "$ROOT/build/bench/paths" >"$OUT/paths.jsonl"
flock "$LOCK" "$ROOT/build/bench/scale" >"$OUT/scale.jsonl"
if [[ $LAB -eq 1 && -x $ROOT/bench/perf/lab_rate.sh ]]; then
	"$ROOT/bench/perf/lab_rate.sh" --out "$OUT" | tee "$OUT/lab_rate.txt"
fi
"$PY" "$ROOT/bench/perf/report.py" "$OUT"
"$PY" "$ROOT/bench/perf/plot_scale.py" "$OUT"
echo "($((SECONDS - start)) s; $OUT/results.json)"
