#!/usr/bin/env bash
# Run every test suite and end with one summary line:
#   N passed, N failed[, N skipped]
# Suites: tests/lint.sh (clang-format, shellcheck, gcc -fanalyzer: one
# test each), each build/tests/{unit,bpf}/test_* (cmocka, TAP output), then
# bats tests/lab.
# Exits non-zero if any test failed or a suite crashed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
BUILD=${BUILD:-build}

passed=0 failed=0 skipped=0
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

# Add one suite's TAP results (in $LOG) to the totals. A suite that exits
# non-zero without reporting a failure (crash, abort, bad setup) counts as
# one failure, and so does one killed by a signal; results the plan
# ("1..N") promised but never printed count as failures too.
tally() {
	local name=$1 rc=$2 ok notok skip planned
	# bats marks skips "ok N name # skip", cmocka "not ok N # SKIP name".
	skip=$(grep -ciE '^(not )?ok .*# skip' "$LOG" || true)
	ok=$(grep -iE '^ok ' "$LOG" | grep -civE '# skip' || true)
	notok=$(grep -iE '^not ok ' "$LOG" | grep -civE '# skip' || true)
	planned=$(sed -nE 's/^1\.\.([0-9]+).*/\1/p' "$LOG" | awk '{s+=$1} END {print s+0}')
	passed=$((passed + ok))
	skipped=$((skipped + skip))
	failed=$((failed + notok))
	if ((ok + notok + skip < planned)); then
		echo "run.sh: $name: $((planned - ok - notok - skip)) planned test(s) never reported"
		failed=$((failed + planned - ok - notok - skip))
	elif ((rc != 0 && notok == 0)) || ((rc > 128)); then
		echo "run.sh: $name: exited with status $rc"
		failed=$((failed + 1))
	fi
}

# Run one suite, showing its output live and keeping a copy to count.
run_suite() {
	local name=$1 rc
	shift
	echo "=== $name"
	set +e
	"$@" </dev/null 2>&1 | tee "$LOG"
	rc=${PIPESTATUS[0]}
	set -e
	tally "$name" "$rc"
}

# BPF suites pin objects (gen --rate-map) and the lab tests load xdpleaf:
# a fresh machine may not have bpffs mounted yet.
if [[ $EUID -eq 0 ]] && ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf
fi

export CMOCKA_MESSAGE_OUTPUT=TAP
shopt -s nullglob
# --only-asan (make test-asan): the sanitizer builds' unit tests alone.
only_asan=
[[ ${1-} == --only-asan ]] && only_asan=1
if [[ -z $only_asan ]]; then
	run_suite "tests/lint.sh" tests/lint.sh --tap
	for bin in "$BUILD"/tests/unit/test_* "$BUILD"/tests/bpf/test_*; do
		[[ -x $bin ]] || continue
		run_suite "$bin" "$bin"
	done
fi
# The unit tests built with AddressSanitizer and UndefinedBehaviorSanitizer
# (make test builds them into $ASAN_DIRS): a leak, an overflow or undefined
# behaviour ends the suite non-zero, which counts as a failure.
for dir in ${ASAN_DIRS-}; do
	for bin in "$dir"/tests/unit/test_*; do
		[[ -x $bin ]] || continue
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_suite "$bin" "$bin"
	done
done

lab_tests=(tests/lab/*.bats)
if [[ -z $only_asan ]] && ((${#lab_tests[@]} > 0)); then
	run_suite "bats tests/lab" bats --tap tests/lab
fi

summary="$passed passed, $failed failed"
((skipped == 0)) || summary+=", $skipped skipped"
echo "$summary"
# A skipped test is a test that did not run: it fails the run too.
((failed == 0 && skipped == 0))
