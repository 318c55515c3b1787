#!/usr/bin/env bash
# Run the config parser's libFuzzer target (tests/fuzz/fuzz_config.c) for
# SECONDS on a fresh corpus seeded from tests/configs, and say what it did.
#   run_config.sh BINARY SECONDS
# Exits non-zero if the fuzzer found a crash, leak or sanitizer report (the
# input is left in the working directory as crash-*/leak-*, as libFuzzer
# names them).
set -euo pipefail
bin=$1 secs=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
corpus=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$corpus" "$log"' EXIT
cp "$root"/tests/configs/good/*.conf "$root"/tests/configs/bad/*.conf "$corpus"/
rc=0
"$bin" -max_total_time="$secs" -print_final_stats=1 -seed=1 "$corpus" >"$log" 2>&1 || rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
echo "fuzz_config: ${runs:-?} inputs in ${secs} s, exit $rc"
((rc == 0)) || tail -40 "$log"
exit "$rc"
