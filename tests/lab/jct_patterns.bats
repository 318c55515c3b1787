#!/usr/bin/env bats
# The collective patterns of bench/jct/run.sh beyond the ring: one job of
# MPICH's all-reduce (hydra starting a rank in each lab host, MPICH's own
# choice of algorithm) and one of Open MPI's all-reduce forced to
# Rabenseifner's algorithm, 1 MiB per rank, 2 steps each through
# xdpleaf's flowlet fabric: every step done with the right sum, each rank
# in its own host, run by the library and with the algorithm asked for;
# and nothing of the run left behind. docs/jct-bench.md. About 40 s.

load helpers

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	local t
	for t in mpirun.openmpi mpiexec.mpich /usr/bin/python3; do
		if ! command -v "$t" >/dev/null; then
			LAB_SKIP="$t not installed (make deps)"
			return 0
		fi
	done
	for t in collective collective-mpich; do
		if [[ ! -x $ROOT/build/bench/$t ]]; then
			LAB_SKIP="build/bench/$t not built (make build/bench/$t)"
			return 0
		fi
	done
	export JP="xlt$$p" OUT=$BATS_FILE_TMPDIR/bench
	# fd 3 closed: the daemons the lab starts must not hold bats' pipe
	"$ROOT/bench/jct/run.sh" --fabrics flowlet --uplinks equal \
		--ops mpich-allreduce,allreduce-rabenseifner --sizes 1M --steps 2 --warmup 1 \
		--host-tcp dc --quiet-wait 20 --cell-timeout 120 --prefix "$JP" --out "$OUT" \
		>"$BATS_FILE_TMPDIR/bench.log" 2>&1 3>&- || true
}

teardown_file() {
	[[ -n ${JP:-} ]] || return 0
	# the bench removes its lab and its processes itself; this is for an
	# interrupted run
	local h pids
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		[[ -e /run/netns/${JP}fe-$h ]] || continue
		pids=$(ip netns pids "${JP}fe-$h" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one pid per word
		[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
	done
	"$LAB" down --prefix "${JP}fe" 3>&- >/dev/null 2>&1 || true
}

setup() {
	require_lab
	if [[ ! -s $OUT/results.json ]]; then
		echo "the bench produced no results:"
		tail -20 "$BATS_FILE_TMPDIR/bench.log"
		return 1
	fi
}

# The op's 1 MiB row of results.json, or a failure that shows why there
# is none.
row_ok() { # op
	local r
	r=$(jq -c --arg o "$1" '.rows[] | select(.op == $o and .size == "1M" and .host_tcp == "dc")' \
		"$OUT/results.json")
	if [[ -z $r ]] || jq -e '.failed' <<<"$r" >/dev/null; then
		echo "$1: no result:"
		tail -5 "$OUT/dc/equal/flowlet/$1-1M/mpirun.err" 2>/dev/null || true
		tail -20 "$BATS_FILE_TMPDIR/bench.log"
		return 1
	fi >&2
	echo "$r"
}

@test "MPICH and Open MPI's Rabenseifner all-reduce: every step right, one rank in each host" {
	local op r lib
	for op in mpich-allreduce allreduce-rabenseifner; do
		r=$(row_ok "$op")
		note "$op: step p50 $(jq '.p50_ms | round' <<<"$r") ms, library $(jq -r .library <<<"$r")"
		[[ $(jq -c .hosts <<<"$r") == '["10.1.1.2","10.2.1.2","10.1.2.2","10.2.2.2","10.1.3.2","10.2.3.2","10.1.4.2","10.2.4.2"]' ]]
		[[ $(jq .steps <<<"$r") == 2 && $(jq .wrong_results <<<"$r") == 0 ]]
		lib=$(jq -r .library <<<"$r")
		if [[ $op == mpich-* ]]; then [[ $lib == MPICH* ]]; else [[ $lib == "Open MPI"* ]]; fi
	done
	# the algorithm asked for, in the command that ran
	grep -q -- '--mca coll_tuned_allreduce_algorithm 6 ' "$OUT/dc/equal/flowlet/allreduce-rabenseifner-1M/launch"
	grep -q '^mpiexec.mpich ' "$OUT/dc/equal/flowlet/mpich-allreduce-1M/launch"
}

@test "nothing of the run is left: no namespace, no process, no temporary file" {
	[[ -z $(ip netns list | grep "^${JP}fe-" || true) ]]
	[[ -z $(compgen -G "/tmp/xl-mpi-${JP}fe-*" || true) ]]
	! pgrep -f "collective(-mpich)? --op .*--progress $OUT/" || false
}
