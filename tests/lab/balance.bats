#!/usr/bin/env bats
# Load balancing over uplinks with real capacity: bench/balance/run.sh
# in flowlet mode, workloads 1 (one sender, 8 NCCL-like QPs, four equal
# uplinks) and 3 (four senders x 4 QPs, uplinks 2:1:1:1). Flowlet mode must
# spread 1 evenly and 3 by capacity, without reordering, and leaf1's
# interface counters must agree with xdpleaf's maps. The targets of
# docs/load-balancing-bench.md, with margins for this small noisy VM:
# max/mean <= 1.10 (target 1.05), shares within 8 % (target 5 %),
# reordering <= 0.3 % (target 0.1 %); counters within 1 % (no margin);
# every QP counted as one flow on the uplinks (the flow counts).
# About 15 s (up to 20 s more if other work keeps the CPUs busy).

load helpers

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	if ! "$XDPLEAF" gen --help >/dev/null 2>&1 ||
		! "$XDPLEAF" sink --help >/dev/null 2>&1; then
		LAB_SKIP="xdpleaf has no gen/sink commands"
		return 0
	fi
	if [[ ! -x /usr/bin/python3 ]]; then
		LAB_SKIP="/usr/bin/python3 missing"
		return 0
	fi
	export BP="xlt$$b" OUT=$BATS_FILE_TMPDIR/bench
	# fd 3 closed: the daemons the lab starts must not hold bats' pipe
	"$ROOT/bench/balance/run.sh" --modes flowlet --workloads 1,3 --seconds 4 \
		--no-cpu-check --quiet-wait 10 --prefix "$BP" --out "$OUT" \
		>"$BATS_FILE_TMPDIR/bench.log" 2>&1 3>&- || true
}

teardown_file() {
	[[ -n ${BP:-} ]] || return 0
	# the bench removes its labs itself; this is for an interrupted run
	"$LAB" down --prefix "${BP}fe" 3>&- >/dev/null 2>&1 || true
	"$LAB" down --prefix "${BP}fu" 3>&- >/dev/null 2>&1 || true
}

setup() {
	require_lab
	if [[ ! -s $OUT/results.json ]]; then
		echo "the bench produced no results:"
		tail -20 "$BATS_FILE_TMPDIR/bench.log"
		return 1
	fi
}

row() { # workload -> its flowlet row of results.json
	jq -c --argjson w "$1" '.rows[] | select(.mode == "flowlet" and .workload == $w)' \
		"$OUT/results.json"
}

@test "flowlet, one sender x 8 QPs: max/mean uplink load <= 1.10" {
	local r
	r=$(row 1)
	[[ -n $r ]]
	note "workload 1: shares $(jq -c '[.shares[] * 1000 | round / 10]' <<<"$r") %," \
		"max/mean $(jq '.max_mean * 1000 | round / 1000' <<<"$r")," \
		"Jain $(jq '.jain * 10000 | round / 10000' <<<"$r")," \
		"flowlets $(jq .flowlets <<<"$r"), moves $(jq .moves <<<"$r")," \
		"CPUs $(jq '.cpu_busy_pct | round' <<<"$r")% busy"
	jq -e '.max_mean <= 1.10' <<<"$r" >/dev/null || {
		echo "max/mean $(jq .max_mean <<<"$r") > 1.10"
		return 1
	}
}

@test "flowlet, uplinks 2:1:1:1: every share within 8 % of its capacity's" {
	local r
	r=$(row 3)
	[[ -n $r ]]
	note "workload 3: shares $(jq -c '[.shares[] * 1000 | round / 10]' <<<"$r") %" \
		"(capacity: 40/20/20/20), largest deviation" \
		"$(jq '.share_err * 1000 | round / 10' <<<"$r") %"
	jq -e '.share_err <= 0.08' <<<"$r" >/dev/null || {
		echo "a share is $(jq .share_err <<<"$r") away from its capacity's proportion"
		# (seen once in CI, 48/7/20/24 %, not reproduced: what the
		# row and the bench's log say, for the next time)
		echo "row: $r"
		grep -i 'warning\|workload 3\|busy' "$BATS_FILE_TMPDIR/bench.log" || true
		return 1
	}
}

@test "flowlet: reordering <= 0.3 % of packets" {
	local w r
	for w in 1 3; do
		r=$(row "$w")
		[[ -n $r ]]
		note "workload $w: reordered $(jq .reordered <<<"$r") of $(jq .sink_packets <<<"$r")" \
			"packets, lost $(jq .lost <<<"$r") (TBF drops $(jq .tbf_drops <<<"$r"))"
		jq -e '.reorder_pct <= 0.3' <<<"$r" >/dev/null || {
			echo "workload $w: $(jq .reorder_pct <<<"$r") % reordered"
			return 1
		}
	done
}

@test "leaf1's interface counters agree with xdpleaf's maps within 1 %" {
	local w r
	for w in 1 3; do
		r=$(row "$w")
		[[ -n $r ]]
		note "workload $w: interface - map bytes per uplink" \
			"$(jq -c .counter_diff_bytes <<<"$r"), largest difference" \
			"$(jq '.counter_diff * 1e6 | round / 1e4' <<<"$r") %"
		jq -e '.counter_diff <= 0.01' <<<"$r" >/dev/null || {
			echo "workload $w: counters differ by $(jq .counter_diff <<<"$r")"
			return 1
		}
	done
}

# The sum of the uplinks' flow counts (stats --json `flows`) in each of
# workload W's samples, the first and last second left out (the senders
# start and stop staggered). By the samples' clock, not their number: a
# sample takes 100 ms to 200 ms, longer the busier the CPUs, and ten of
# them from each end left three of a loaded run's 4 s.
flow_count_sums() { # workload
	jq -r '"\(.t) \([.stats.ports[]? | select(.role == "uplink") | .flows] | add)"' \
		"$OUT/flowlet/w$1/samples.json" 2>/dev/null |
		awk '{ t[NR] = $1; n[NR] = $2 }
		     END { for (i = 1; i <= NR; i++) if (t[i] >= t[1] + 1 && t[i] <= t[NR] - 1) print n[i] }'
}

@test "flowlet: the uplinks count every QP as one data flow (stats --json flows)" {
	local w want sums median
	for w in 1 3; do
		want=$((w == 1 ? 8 : 16))
		sums=$(flow_count_sums "$w")
		[[ -n $sums ]] || { echo "workload $w: no samples"; return 1; }
		median=$(sort -n <<<"$sums" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		note "workload $w ($want QPs): flows counted over the uplinks, median $median" \
			"of $(wc -l <<<"$sums") samples, range $(sort -n <<<"$sums" | sed -n '1p;$p' | paste -sd-)"
		[[ $median == "$want" ]] || { echo "workload $w: median $median, want $want"; return 1; }
	done
}
