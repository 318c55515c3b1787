#!/usr/bin/env bash
# Run a libFuzzer target (tests/fuzz/fuzz_*.c) for SECONDS on a fresh
# corpus seeded from the files in SEED_DIRs, and say what it did.
#   run_libfuzzer.sh BINARY SECONDS SEED_DIR...
# Exits non-zero if the fuzzer found a crash, leak, sanitizer report or an
# input that runs longer than 10 s (the input is left in the working
# directory as crash-*/leak-*/timeout-*, as libFuzzer names them).
set -euo pipefail
bin=$1 secs=$2
shift 2
corpus=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$corpus" "$log"' EXIT
for dir in "$@"; do
	cp "$dir"/* "$corpus"/
done
rc=0
"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 -seed=1 "$corpus" >"$log" 2>&1 || rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
echo "$(basename "$bin"): ${runs:-?} inputs in ${secs} s, exit $rc"
((rc == 0)) || tail -40 "$log"
exit "$rc"
