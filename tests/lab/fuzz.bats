#!/usr/bin/env bats
# Fuzzing the configuration parser and sim's trace readers (no lab
# needed): libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer,
# 10 s each from the seeds in tests/configs and tests/fuzz/sim_seeds (make
# fuzz-config and make fuzz-sim run longer). The leaf program's fuzzing is
# in tests/bpf/test_leaf.c (fuzz_random_and_mutated).

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)

# The harnesses' scratch files (/tmp/xl-fuzz-NAME-PID.*) there now.
scratch_files() { # NAME
	compgen -G "/tmp/xl-fuzz-$1-*" | sort || true
}

@test "fuzz: the config parser takes 10 s of libFuzzer input without a crash, leak or sanitizer report" {
	[[ -x $ROOT/build/fuzz/fuzz_config ]]
	cd "$BATS_TEST_TMPDIR"
	local before
	before=$(scratch_files config)
	run "$ROOT/tests/fuzz/run_libfuzzer.sh" "$ROOT/build/fuzz/fuzz_config" 10 \
		"$ROOT/tests/configs/good" "$ROOT/tests/configs/bad"
	echo "$output"
	[[ $status -eq 0 ]]
	echo "# $(grep '^fuzz_config:' <<<"$output")" >&3
	# it ran inputs, not only its start-up (here ~40,000 in the 10 s; a
	# slow machine runs fewer, never under a hundred)
	[[ $(sed -n 's/^fuzz_config: \([0-9]*\) inputs.*/\1/p' <<<"$output") -gt 100 ]]
	[[ $(scratch_files config) == "$before" ]] # its scratch file removed
}

@test "fuzz: sim's trace readers take 10 s of libFuzzer input without a crash, leak, hang or sanitizer report" {
	[[ -x $ROOT/build/fuzz/fuzz_sim ]]
	cd "$BATS_TEST_TMPDIR"
	local before
	before=$(scratch_files sim)
	run "$ROOT/tests/fuzz/run_libfuzzer.sh" "$ROOT/build/fuzz/fuzz_sim" 10 \
		"$ROOT/tests/fuzz/sim_seeds"
	echo "$output" | grep -v '^/tmp/xl-fuzz-sim'
	[[ $status -eq 0 ]]
	echo "# $(grep '^fuzz_sim:' <<<"$output")" >&3
	[[ $(sed -n 's/^fuzz_sim: \([0-9]*\) inputs.*/\1/p' <<<"$output") -gt 100 ]]
	[[ $(scratch_files sim) == "$before" ]]
}
