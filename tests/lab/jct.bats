#!/usr/bin/env bats
# Job completion time of a real collective: bench/jct/run.sh runs a
# short Open MPI ring all-reduce (8 ranks, one in each lab host, 4 MiB per
# rank, JCT_STEPS steps after 2 warm-up steps) through kernel ECMP and
# through xdpleaf's flowlet mode (leaf1.conf with only each uplink's rate
# and overflow = mark: the shipped defaults), over four equal uplinks of
# 100 Mbit/s. Flowlet's median step must not be slower than ECMP's by more
# than the margin, and flowlet's moves must reorder nothing: its TCP
# senders (nstat in every host) may count no more reordering than kernel
# ECMP's in the same run (plus SACK_SLACK). ECMP never moves a flow, so
# what it counts is the lab's own floor: with tail drops in the 2 ms TBF
# buffers, a SACK block reported late looks like reordering to Linux (0-11
# such events per run measured). docs/jct-bench.md.
#
# Margin: ECMP puts the ring's four cross-fabric flows on four different
# uplinks in only 4!/4^4 = 9 % of its hash draws; otherwise two share an
# uplink and the ring runs at half rate (~2 x), and a flowlet placement
# that put two flows on one uplink would run as slowly. When ECMP's draw
# is the lucky one, two things stand between it and flowlet that are not
# placement: the lab's XDP_REDIRECT between veths (xdpleaf pinned to the
# best placement ran up to 1.10 x the kernel forwarding the same placement
# in run 14, bench/results/2026-11-28-jct-notebook/README.md) and the
# noise of an 8-step p50 on this 2-core VM (~10 % from run to run). 1.25
# covers both and still fails a shared uplink. (It was 1.15 until the
# lab's TBFs got a 1 ms bucket on 26 November 2026 and kept their rate:
# that made the kernel's lucky draws faster, and a flowlet all-to-all at
# 1.16 x ECMP's failed the margin-less check below.)
#
# And a 4 MiB all-to-all through both: Open MPI's senders send to one
# receiver at a time and receivers take one sender at a time, so at most
# four data flows cross at once; flowlet must place each turn on an uplink
# of its own (its connections' pure ACKs must not decide where their data
# goes: docs/load-balancing.md; tests/bpf/test_flowlet.c holds that rule
# exactly). Not slower than ECMP's draw by more than the margin: run 14
# (20 steps) measured flowlet 0.66 x the reference against ECMP's
# 0.69-0.91 x; with the ACKs deciding (26 November 2026, before pure
# ACKs followed their flow; the old lab links) flowlet ran 0.86-0.99 x.
#
# The same run also takes RoCEv2 steps through both fabrics (--ops roce:
# xdpleaf gen --reliable from s1..s4 to r1..r4 under host mode's DCQCN,
# answered and counted by xdpleaf sink --respond: go-back-N): through
# flowlet every step complete, every PSN delivered, and no packet out of
# order at the receivers (PSNs: exact, no artefacts to allow for). Kernel
# ECMP usually puts two QPs on one uplink, where go-back-N collapses (it
# marks nothing, and DCQCN could not cut below the hosts' rate anyway):
# its cell may run out of time, which the bench then says.
# And a 4 MiB all-reduce over unequal uplinks (200/100/100/50M) through
# flowlet and hash, with the hosts' TCP as dc and as they come: with dc
# hosts flowlet must beat a hash draw that used the 50M uplink; otherwise
# (a draw that left it out, or as-is hosts, whose RTOs bound any placement
# that shares a member) be within the margin of it.
# And 1 MiB RoCE steps through flowlet while spine 2 fails: the outage
# falls among the measured steps (the job's progress times it; a 1 MiB
# job is over in under a second), and every PSN is delivered once it
# is back.
# About four minutes here (8 steps per cell), more on a busy machine.

load helpers

JCT_STEPS=${JCT_STEPS:-8}
MARGIN=1.25
# Both fabrics count a few SACK artefacts of tail drops (0-11 per run of
# kernel ECMP measured; flowlet, whose drops fall on every uplink, 9 in
# one run where ECMP counted 0); a move that reorders a 4 MiB step's flow
# shows as tens to hundreds (34-393 before flows stayed put). The
# allowance covers the artefacts' measured range, so the test compares
# reordering, not one artefact count with another (at 5 it failed once
# in seven runs on 25 November).
SACK_SLACK=12

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	if ! command -v mpirun.openmpi >/dev/null; then
		LAB_SKIP="mpirun.openmpi not installed (make deps)"
		return 0
	fi
	if [[ ! -x $ROOT/build/bench/collective ]]; then
		LAB_SKIP="build/bench/collective not built (make build/bench/collective)"
		return 0
	fi
	if [[ ! -x /usr/bin/python3 ]]; then
		LAB_SKIP="/usr/bin/python3 missing"
		return 0
	fi
	export JP="xlt$$j" OUT=$BATS_FILE_TMPDIR/bench
	# fd 3 closed: the daemons the lab starts must not hold bats' pipe
	"$ROOT/bench/jct/run.sh" --fabrics kernel,flowlet --uplinks equal \
		--ops allreduce,alltoall,roce --sizes 4M --steps "$JCT_STEPS" --warmup 2 --ecmp-labs 1 \
		--host-tcp dc --quiet-wait 20 --cell-timeout 240 --prefix "$JP" --out "$OUT" \
		>"$BATS_FILE_TMPDIR/bench.log" 2>&1 3>&- || true
	# and one short all-reduce over unequal uplinks through flowlet and
	# hash (xdpleaf's ECMP), the hosts with either TCP profile
	export OUT_U=$BATS_FILE_TMPDIR/bench-unequal
	"$ROOT/bench/jct/run.sh" --fabrics flowlet,hash --uplinks unequal \
		--ops allreduce --sizes 4M --steps "$JCT_STEPS" --warmup 2 \
		--host-tcp dc,as-is --quiet-wait 20 --cell-timeout 240 --prefix "$JP" --out "$OUT_U" \
		>"$BATS_FILE_TMPDIR/bench-unequal.log" 2>&1 3>&- || true
	export OUT_F=$BATS_FILE_TMPDIR/bench-fail
	"$ROOT/bench/jct/run.sh" --fabrics flowlet --uplinks fail --ops roce --sizes 1M \
		--steps "$JCT_STEPS" --warmup 2 --host-tcp dc --host-dcqcn lab --quiet-wait 20 \
		--prefix "$JP" --out "$OUT_F" >"$BATS_FILE_TMPDIR/bench-fail.log" 2>&1 3>&- || true
}

teardown_file() {
	[[ -n ${JP:-} ]] || return 0
	# the bench removes its labs and their processes itself; this is for
	# an interrupted run: the processes left in the labs' hosts, then
	# the labs
	local p h pids
	for p in "${JP}k1e" "${JP}fe" "${JP}fu" "${JP}hu" "${JP}ff"; do
		for h in s1 s2 s3 s4 r1 r2 r3 r4; do
			[[ -e /run/netns/$p-$h ]] || continue
			pids=$(ip netns pids "$p-$h" 2>/dev/null || true)
			# shellcheck disable=SC2086 # one pid per word
			[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
			# a roce cell's host mode (its pins outlive the namespace)
			[[ ! -e /sys/fs/bpf/xdpleaf/${p}_$h ]] ||
				in_ns "$p-$h" "$XDPLEAF" unload --instance "${p}_$h" 3>&- >/dev/null 2>&1 || true
		done
		"$LAB" down --prefix "$p" 3>&- >/dev/null 2>&1 || true
	done
}

setup() {
	require_lab
	if [[ ! -s $OUT/results.json ]]; then
		echo "the bench produced no results:"
		tail -20 "$BATS_FILE_TMPDIR/bench.log"
		return 1
	fi
}

row() { # label [op] -> its 4 MiB row of results.json (op: allreduce)
	jq -c --arg l "$1" --arg o "${2:-allreduce}" \
		'.rows[] | select(.label == $l and .op == $o and .size == "4M")' "$OUT/results.json"
}

# The row of a cell that ran, or a failure that shows why there is none.
row_ok() { # label op
	local r
	r=$(row "$1" "$2")
	if [[ -z $r ]] || jq -e '.failed' <<<"$r" >/dev/null; then
		echo "$1 $2: no result:"
		tail -5 "$OUT/dc/equal/$1/$2-4M/mpirun.err" 2>/dev/null || true
		tail -20 "$BATS_FILE_TMPDIR/bench.log"
		return 1
	fi >&2
	echo "$r"
}

@test "MPI all-reduce: one rank in each lab host, every step right, in both fabrics" {
	local l r
	for l in kernel-1 flowlet; do
		r=$(row_ok "$l" allreduce)
		# rank order s1, r1, s2, r2, ...: each rank saw its host's eth0
		[[ $(jq -c .hosts <<<"$r") == '["10.1.1.2","10.2.1.2","10.1.2.2","10.2.2.2","10.1.3.2","10.2.3.2","10.1.4.2","10.2.4.2"]' ]] || {
			echo "$l: ranks ran in $(jq -c .hosts <<<"$r")"
			return 1
		}
		[[ $(jq .steps <<<"$r") == "$JCT_STEPS" ]]
		[[ $(jq .wrong_results <<<"$r") == 0 ]]
	done
}

@test "RoCEv2 steps, go-back-N: every step and PSN through flowlet, none out of order; host mode removed" {
	local l r
	for l in kernel-1 flowlet; do
		r=$(row_ok "$l" roce)
		note "roce $l: step p50 $(jq '.p50_ms | round' <<<"$r") ms; measured steps:" \
			"$(jq .roce_measured_sent <<<"$r") frames sent ($(jq .roce_measured_resent <<<"$r") again)," \
			"$(jq .roce_measured_dropped <<<"$r") dropped, $(jq .roce_measured_reordered <<<"$r")" \
			"out of order, CE $(jq .roce_measured_ce <<<"$r"); CNPs $(jq .cnps_sent <<<"$r")" \
			"$(jq -r 'if .timed_out then "; OUT OF TIME in step \(.timed_out.after_steps + 1)" else "" end' <<<"$r")"
		# what arrived cannot exceed what was sent
		jq -e '.roce_packets > 0 and .roce_packets <= .roce_sent' <<<"$r" >/dev/null
		# host mode's pins went with the cell
		[[ -z $(compgen -G "/sys/fs/bpf/xdpleaf/$(jq -r .lab <<<"$r")_*") ]]
		# only kernel ECMP may run out of time
		[[ $l == kernel-1 ]] || jq -e '.timed_out == null' <<<"$r" >/dev/null
		jq -e '.timed_out != null' <<<"$r" >/dev/null && continue
		[[ $(jq .steps <<<"$r") == "$JCT_STEPS" ]]
		# 4 senders, 4 MiB each per step, 1024-byte payloads: every one
		# sent at least once, every PSN delivered
		(($(jq .roce_sent <<<"$r") >= 4 * 4096 * (JCT_STEPS + 2)))
		[[ $(jq .roce_lost <<<"$r") == 0 ]]
	done
	r=$(row flowlet roce)
	[[ $(jq .roce_reordered <<<"$r") == 0 ]] || {
		echo "flowlet put $(jq .roce_reordered <<<"$r") RoCE packets out of order"
		return 1
	}
	# what would tell a move's reordering from the lab's: the receivers'
	# host mode reported every out-of-order PSN the sinks counted (none;
	# it also counts each resend as an old PSN, which the sinks leave out:
	# at least as many), and leaf1's move events are every move its
	# counters show. Every events reader ran, and leaf1 wrote every move
	# event; the receivers' psn_old events may exceed event_rate when
	# go-back-N resends a window at once (a CI run's receivers did):
	# the count is then a lower bound, which the check beside a sink count
	# of 0 does not need.
	note "flowlet: $(jq .moves <<<"$r") moves counted, $(jq .roce_moves_events <<<"$r") move events," \
		"$(jq .roce_psn_old_events <<<"$r") psn_old events (resends included);" \
		"not written: $(jq -c .events_unwritten <<<"$r")"
	jq -e '.events_readers_failed == [] and
		(.events_unwritten | map(select(startswith("leaf1:"))) == [])' <<<"$r" >/dev/null
	jq -e '.roce_psn_old_events >= .roce_reordered and .roce_moves_events == .moves' <<<"$r" >/dev/null
}

@test "flowlet p50 <= kernel ECMP p50 x $MARGIN (4 MiB ring all-reduce, 4 x 100M)" {
	local k f r
	k=$(row kernel-1)
	f=$(row flowlet)
	[[ -n $k && -n $f ]]
	for r in "$k" "$f"; do
		note "$(jq -r '.label' <<<"$r"): step p50 $(jq '.p50_ms | round' <<<"$r") ms," \
			"p99 $(jq '.p99_ms | round' <<<"$r") ms; reordering (SACK/TS/Reno)" \
			"$(jq .reorder_all <<<"$r"), OFO at receivers $(jq .ofo_receivers <<<"$r")," \
			"retransmitted $(jq .retrans <<<"$r") of $(jq .out_segs <<<"$r") segments," \
			"uplink TBF drops $(jq -c .uplink_drops <<<"$r")$(jq -r 'if .moves then ", flowlets \(.flowlets), moves \(.moves)" else "" end' <<<"$r")"
	done
	jq -en --argjson k "$k" --argjson f "$f" --argjson m "$MARGIN" \
		'$f.p50_ms <= $k.p50_ms * $m' >/dev/null || {
		echo "flowlet p50 $(jq .p50_ms <<<"$f") ms > kernel ECMP p50 $(jq .p50_ms <<<"$k") ms x $MARGIN"
		return 1
	}
}

@test "MPI all-to-all: every step right; flowlet p50 <= kernel ECMP p50 x $MARGIN, no reordering beyond ECMP's + $SACK_SLACK" {
	local k f r
	k=$(row_ok kernel-1 alltoall)
	f=$(row_ok flowlet alltoall)
	for r in "$k" "$f"; do
		[[ $(jq .steps <<<"$r") == "$JCT_STEPS" && $(jq .wrong_results <<<"$r") == 0 ]]
		note "all-to-all $(jq -r '.label' <<<"$r"): step p50 $(jq '.p50_ms | round' <<<"$r") ms," \
			"reordering $(jq .reorder_all <<<"$r")$(jq -r 'if .moves then ", flowlets \(.flowlets), moves \(.moves)" else "" end' <<<"$r")"
	done
	jq -en --argjson k "$k" --argjson f "$f" --argjson m "$MARGIN" \
		'$f.p50_ms <= $k.p50_ms * $m' >/dev/null || {
		echo "flowlet all-to-all p50 $(jq .p50_ms <<<"$f") ms > kernel ECMP's $(jq .p50_ms <<<"$k") ms x $MARGIN"
		return 1
	}
	jq -en --argjson k "$k" --argjson f "$f" --argjson s "$SACK_SLACK" \
		'$f.reorder_all <= $k.reorder_all + $s' >/dev/null || {
		echo "flowlet all-to-all: $(jq .reorder_all <<<"$f") reordering events, ECMP $(jq .reorder_all <<<"$k")"
		return 1
	}
}

@test "flowlet: no reordering beyond kernel ECMP's + $SACK_SLACK (nstat TCPSACKReorder + TCPTSReorder + TCPRenoReorder)" {
	local k f
	k=$(row kernel-1)
	f=$(row flowlet)
	[[ -n $k && -n $f ]]
	note "reordering seen by the senders: flowlet $(jq .reorder_all <<<"$f")" \
		"(per host $(jq -c '.nstat.TcpExtTCPSACKReorder' <<<"$f")), kernel ECMP" \
		"$(jq .reorder_all <<<"$k"); OFO queued at r1..r4: flowlet" \
		"$(jq .ofo_receivers <<<"$f"), ECMP $(jq .ofo_receivers <<<"$k")"
	jq -en --argjson k "$k" --argjson f "$f" --argjson s "$SACK_SLACK" \
		'$f.reorder_all <= $k.reorder_all + $s' >/dev/null || {
		echo "flowlet: $(jq .reorder_all <<<"$f") reordering events, kernel ECMP" \
			"(which never moves a flow) $(jq .reorder_all <<<"$k")"
		return 1
	}
}

# The unequal run's 4 MiB all-reduce row of a label under a profile.
row_unequal() { # label profile
	jq -c --arg l "$1" --arg p "$2" '.rows[] | select(.label == $l and .host_tcp == $p and
		.op == "allreduce" and .size == "4M" and (.failed | not))' "$OUT_U/results.json"
}

@test "unequal uplinks 200/100/100/50M: flowlet's all-reduce p50 below hash's where hash used u4 (dc hosts), else within $MARGIN of it" {
	local p f h u4
	[[ -s $OUT_U/results.json ]] || { tail -20 "$BATS_FILE_TMPDIR/bench-unequal.log"; return 1; }
	for p in dc as-is; do
		f=$(row_unequal flowlet "$p")
		h=$(row_unequal hash "$p")
		[[ -n $f && -n $h ]] || { echo "$p: a cell failed"; tail -20 "$BATS_FILE_TMPDIR/bench-unequal.log"; return 1; }
		# hash's share of the bytes on u4 (50M): a ring flow hashed there
		# takes 2.25 x the reference's time for its part, which flowlet's
		# placement by headroom never needs (its bound: 1.125 x); a draw
		# that left u4 out can be as good as flowlet's placement. Hosts
		# as they come (BBR, 200 ms RTOs) bound every placement that
		# shares a member, flowlet's as the best static one (1.4-1.8 x:
		# docs/jct-bench.md, "Host TCP profiles"), and one hash draw that
		# used u4 measured as fast as flowlet: for them, the margin only
		u4=$(jq '.uplink_tx_bytes as $b | ($b[3] * 100 / ($b | add)) | floor' <<<"$h")
		note "hosts' TCP $p: flowlet p50 $(jq '.p50_ms | round' <<<"$f") ms" \
			"(uplink bytes $(jq -c .uplink_tx_bytes <<<"$f")), hash $(jq '.p50_ms | round' <<<"$h") ms" \
			"($u4 % on u4)"
		if [[ $p == dc ]] && ((u4 >= 10)); then
			jq -en --argjson f "$f" --argjson h "$h" '$f.p50_ms < $h.p50_ms' >/dev/null ||
				{ echo "$p: flowlet p50 not below hash's, which put $u4 % on u4"; return 1; }
		else
			jq -en --argjson f "$f" --argjson h "$h" --argjson m "$MARGIN" \
				'$f.p50_ms <= $h.p50_ms * $m' >/dev/null ||
				{ echo "$p: flowlet p50 > hash's x $MARGIN"; return 1; }
		fi
	done
}

@test "spine 2 fails during 1 MiB RoCE steps: the outage falls among the measured steps, every PSN delivered" {
	local cell=$OUT_F/dc/fail/flowlet/roce-1M down up r
	[[ -s $cell/steps.json && -s $cell/t_down && -s $cell/t_up ]] ||
		{ echo "no failing cell:"; tail -20 "$BATS_FILE_TMPDIR/bench-fail.log"; return 1; }
	down=$(<"$cell/t_down")
	up=$(<"$cell/t_up")
	note "outage $(((up - down) / 1000000)) ms;" \
		"measured steps $(jq -c '[.steps[] | (.start_ns / 1e6 | floor)]' "$cell/steps.json") (ms, monotonic)," \
		"down at $((down / 1000000))"
	# down after warm-up + half the steps were done, before the last
	# measured step ended
	jq -e --argjson d "$down" --argjson n "$JCT_STEPS" '(.steps | length) == $n and
		.steps[0].start_ns < $d and $d < .steps[-1].end_ns and (.timed_out == null)' \
		"$cell/steps.json" >/dev/null
	r=$(jq -c '.rows[] | select(.label == "flowlet" and .op == "roce")' "$OUT_F/results.json")
	note "steps in the outage $(jq .fail_steps <<<"$r"), slowest $(jq '.fail_step_max_ms | round' <<<"$r") ms;" \
		"PSNs never delivered $(jq .roce_lost <<<"$r")"
	jq -e '.fail_steps >= 1 and .roce_lost == 0' <<<"$r" >/dev/null
}
