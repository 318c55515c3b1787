#!/usr/bin/env bats
# Fuzzing the configuration parser (no lab needed): libFuzzer with
# AddressSanitizer and UndefinedBehaviorSanitizer, 10 s from the seeds in
# tests/configs (make fuzz-config runs longer). The leaf program's fuzzing
# is in tests/bpf/test_leaf.c (fuzz_random_and_mutated).

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)

@test "fuzz: the config parser takes 10 s of libFuzzer input without a crash, leak or sanitizer report" {
	[[ -x $ROOT/build/fuzz/fuzz_config ]]
	cd "$BATS_TEST_TMPDIR"
	run "$ROOT/tests/fuzz/run_config.sh" "$ROOT/build/fuzz/fuzz_config" 10
	echo "$output"
	[[ $status -eq 0 ]]
	echo "# $(grep '^fuzz_config:' <<<"$output")" >&3
	# it ran: thousands of inputs, not a start-up failure
	[[ $(sed -n 's/^fuzz_config: \([0-9]*\) inputs.*/\1/p' <<<"$output") -gt 1000 ]]
}
