#!/usr/bin/env bats
# bench/jct/bound.py: the step time a balancer could reach in each
# bench-jct cell, against the reference's, under its fluid model. No lab:
# figures worked out by hand for the ranks placed s1 r1 s2 r2 s3 r3 s4 r4
# (a flow crosses leaf1's uplinks iff it goes from an s host to an r host;
# ref gives each receiver (sum of the uplink rates) / 4).

load helpers

PY=/usr/bin/python3
BOUND=$ROOT/bench/jct/bound.py

# whole_x fluid_x [cross flows per phase] of one cell, 4 decimals
cell() { # op rates [size]
	"$PY" "$BOUND" --json --op "$1" --rates "$2" --size "${3:-4M}" | "$PY" -c '
import json, sys
r = json.load(sys.stdin)[0]
print("%.4f %.4f" % (r["whole_flow_x"], r["fluid_x"]),
      ",".join(str(p["cross_flows"]) for p in r["per_phase"]))'
}

@test "ring all-reduce: 4 equal cross flows per phase; whole-flow 1, 1.125, 1.625; fluid 1" {
	local op
	for op in allreduce allreduce-segring; do
		run cell "$op" equal
		echo "$op equal: $output"
		[[ $status -eq 0 && $output == "1.0000 1.0000 4,4,4,4,4,4,4,4,4,4,4,4,4,4" ]]
		# 200/100/100/50: two flows on the 200M, one on each 100M: the
		# 200M's pace b/100M against ref's b/112.5M
		run cell "$op" 200M,100M,100M,50M
		echo "$op unequal: $output"
		[[ $status -eq 0 && $output == "1.1250 1.0000 "* ]]
		# 100/100/100/25: the 25M is worse than doubling up on a 100M:
		# b/50M against ref's b/81.25M
		run cell "$op" degraded
		echo "$op degraded: $output"
		[[ $status -eq 0 && $output == "1.6250 1.0000 "* ]]
	done
	# roce: the same four flows, N each, in one phase
	run cell roce unequal
	[[ $status -eq 0 && $output == "1.1250 1.0000 4" ]]
}

@test "recursive doubling: only the distance-1 phase crosses, ref waits for all three" {
	# distances 2 and 4 pair s with s and r with r: free here, but ref's
	# receivers still take N from an r host in each. Whole-flow: N at
	# 100M (as the ring's phase); ref: 3 N at 112.5M
	run cell allreduce-recdbl unequal
	echo "$output"
	[[ $status -eq 0 && $output == "0.3750 0.3333 4,0,0" ]]
}

@test "Rabenseifner: the distance-1 phases (N/2) first and last; MPICH's default at 4M is the same" {
	run cell allreduce-rabenseifner unequal
	echo "$output"
	# 2 x N/2 at 100M against ref's 2 (N/2 + N/4 + N/8) at 112.5M = 9/14
	[[ $status -eq 0 && $output == "0.6429 0.5714 4,0,0,0,0,4" ]]
	run cell mpich-allreduce unequal
	[[ $status -eq 0 && $output == "0.6429 0.5714 4,0,0,0,0,4" ]]
	# at 16 bytes (4 floats, fewer than 8 ranks' power of two) MPICH
	# picks recursive doubling
	run cell mpich-allreduce unequal 16
	[[ $status -eq 0 && $output == "0.3750 0.3333 4,0,0" ]]
}

@test "pairwise all-to-all: only odd phases cross; linear: 16 flows at once on 200/100/100/50" {
	# phase k sends i -> i + k: s to r only for odd k. 4 crossing phases
	# at the ring's pace (b/100M) against ref's 7 (b/112.5M) = 9/14
	run cell alltoall unequal
	echo "$output"
	[[ $status -eq 0 && $output == "0.6429 0.5714 4,0,4,0,4,0,4" ]]
	# MPICH's pairwise (partner i XOR k): the same crossing phases
	run cell mpich-alltoall unequal
	[[ $status -eq 0 && $output == "0.6429 0.5714 4,0,4,0,4,0,4" ]]
	# 16 blocks of b: in units of 50M the uplinks take 4/2/2/1 blocks per
	# b/50M, 9 in all; 16 need 2 b/50M (1.75 fits only 14), against ref's
	# 7 b/112.5M: 9/14; fluid 16 b/450M against it: 4/7
	run cell alltoall-linear unequal
	echo "$output"
	[[ $status -eq 0 && $output == "0.6429 0.5714 16" ]]
	# 100/100/100/25: 1.25 b/25M carries 5+5+5+1 = 16 blocks
	run cell alltoall-linear degraded
	[[ $status -eq 0 && $output == "0.5804 0.5714 16" ]]
}

@test "flows of unequal sizes: the search finds the best whole-flow assignment" {
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/jct'); import bound
from fractions import Fraction as F
print(bound.search_time([F(3), F(2), F(2), F(1)], [1, 1]),
      bound.search_time([F(5), F(4), F(3), F(3), F(3)], [2, 1]),
      bound.whole_flow_time([F(8)] * 5, [2, 1, 1]))
# one connection in two phases with different company: per-phase
# assignments may disagree, so the figure is only a lower bound
print(bound.pinning_exact([[(0, 1, 1)], [(0, 1, 1), (2, 3, 1)]], bound.PLACEMENT),
      bound.pinning_exact(bound.phases_of('allreduce', 64, bound.PLACEMENT), bound.PLACEMENT))"
	echo "$output"
	# 3+1 / 2+2; 5+4+3 on the 2 / 3+3 on the 1; 5 equal: 2 on the 2, 1 + 1
	# on the 1s leave one: 3 on the 2 at 12 or 2 on a 1 at 16: 12
	[[ $status -eq 0 && ${lines[0]} == "4 6 12" && ${lines[1]} == "False True" ]]
}

@test "bounds() as the report calls it, and the CLI's text" {
	run "$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/jct'); import bound
r = bound.bounds('allreduce', 4 << 20, [200_000_000, 100_000_000, 100_000_000, 50_000_000])
print(r['phases'], r['cross_phases'], r['whole_flow_exact'], round(r['whole_flow_x'], 4),
      round(r['ref_s'] * 1e3, 2))"
	echo "$output"
	# ref: 14 phases of 512 KiB at 112.5M
	[[ $status -eq 0 && $output == "14 14 True 1.125 521.96" ]]
	run "$PY" "$BOUND" --op allreduce --rates 200M,100M,100M,50M --size 4M
	echo "$output"
	[[ $status -eq 0 ]]
	[[ $output == *"whole-flow"*"= 1.125 x ref"* && $output == *"fluid"*"= 1.000 x ref"* ]]
}

@test "bad input: a clear word and exit 2" {
	run "$PY" "$BOUND" --op allreduce-foo --rates equal
	echo "$output"
	[[ $status -eq 2 && $output == *"unknown op 'allreduce-foo'"* ]]
	run "$PY" "$BOUND" --op allreduce --rates 200M,100X
	echo "$output"
	[[ $status -eq 2 && $output == *"bad rate '100X'"* ]]
	# below lab/lib.sh's floor of 1 Mbit/s
	run "$PY" "$BOUND" --op allreduce --rates 200M,500K
	[[ $status -eq 2 && $output == *"bad rate '500K'"* ]]
	run "$PY" "$BOUND" --op allreduce --rates equal --size 4Q
	[[ $status -eq 2 && $output == *"bad size '4Q'"* ]]
	run "$PY" "$BOUND" --op allreduce-recdbl --rates equal --placement s1,r1,s2
	[[ $status -eq 2 && $output == *"power-of-two number of ranks"* ]]
	run "$PY" "$BOUND" --rates equal
	[[ $status -eq 2 ]]
}
