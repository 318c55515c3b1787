#!/usr/bin/env bats
# `make demo` (lab/demo.sh) in its quick mode (DEMO_QUICK=1: shorter
# traffic) under a per-run prefix: it tells four stories, the fast path,
# hash vs flowlet, ECN marking and DCQCN's cut and recovery (then its drops
# and shares against ECN alone), each ending in one "proves:" line backed
# by the numbers it printed, and leaves no namespace or xdpleaf instance
# behind; also when it is stopped halfway.

load helpers

setup() {
	require_lab
	export DP="xlt$$d"
	DEMO_PID=
}

teardown() {
	if [[ -n $DEMO_PID ]]; then
		kill -TERM "$DEMO_PID" 2>/dev/null || true
		wait "$DEMO_PID" 2>/dev/null || true
	fi
	# what the demo should have removed itself, in case it did not
	local d
	for d in /sys/fs/bpf/xdpleaf/"$DP"_*; do
		if [[ -d $d ]]; then
			"$XDPLEAF" unload --instance "${d##*/}" >/dev/null 2>&1 3>&- || true
		fi
	done
	"$LAB" down --prefix "$DP" >/dev/null 2>&1 3>&- || true
}

# Nothing of prefix DP left: namespaces, pinned instances, lab state.
nothing_left() {
	local ns pins
	ns=$(ip netns list | awk '{print $1}' | grep -E "^$DP-" || true)
	pins=$(find /sys/fs/bpf/xdpleaf -maxdepth 1 -name "$DP*" 2>/dev/null || true)
	[[ -z $ns ]] || { echo "namespaces left: $ns"; return 1; }
	[[ -z $pins ]] || { echo "instances left: $pins"; return 1; }
	[[ ! -e /run/xdpleaf-lab/$DP ]] || { echo "lab state left"; return 1; }
}

@test "demo: four sections, each with its numbers and one 'proves:' line; nothing left behind" {
	run env DEMO_QUICK=1 DEMO_PREFIX="$DP" "$ROOT/lab/demo.sh"
	echo "$output"
	[[ $status -eq 0 ]]
	[[ $output != *"did not prove"* ]]
	# each section's header, then exactly one proves: line before the next
	local sec n proves
	for sec in 1 2 3 4; do
		n=$(grep -c "^== $sec\. " <<<"$output")
		((n == 1)) || { echo "section $sec: $n headers"; return 1; }
		proves=$(awk -v s="== $sec. " -v next_s="== $((sec + 1)). " \
			'index($0, s) == 1 { on = 1; next } index($0, next_s) == 1 { on = 0 }
			 on && /^proves: / { c++ } END { print c + 0 }' <<<"$output")
		((proves == 1)) || { echo "section $sec: $proves proves: lines"; return 1; }
	done
	# the numbers behind them
	grep -qE '^proves: xdpleaf at tc forwarded (99|100)\.[0-9]+ % of the [0-9]+ packets' <<<"$output"
	grep -qE '^hash +([0-9.]+ +){4}[0-9.]+ +[0-9]+ Mbit/s' <<<"$output"
	grep -qE '^flowlet +([0-9.]+ +){4}[0-9.]+ +[0-9]+ Mbit/s' <<<"$output"
	grep -qE '^  CE-marked +[1-9][0-9]* packets' <<<"$output"
	(($(grep -cE '^s[1-4]/[0-9]+ +[0-9]+ Mb/s' <<<"$output") == 8))
	# section 4 says at what fraction of a NIC's rate the lab runs and
	# how the RP was scaled to it ...
	grep -qE '^   the lab runs at 1/160 of a 40 Gbit/s NIC.s rate' <<<"$output"
	grep -qE '^   scaled to the lab: R_AI 40M -> 1M, .*min_rate 100M -> 2\.5M.*K = T 55us -> [0-9]+us' <<<"$output"
	# ... and ends with the drops and shares at the same offered load:
	# at least 95 % fewer drops with DCQCN than without (section 3), and
	# every QP's share of what r1 received within 25 % of an equal 1/8
	# (12.5 %: 9.375..15.625 %)
	local without with lo hi
	read -r without with < <(sed -nE 's/^  tail drops at the port +([0-9]+) +([0-9]+) \(.*/\1 \2/p' <<<"$output")
	((without > 0 && with * 100 <= without * 5)) ||
		{ echo "drops at r1's port: $with with DCQCN, $without without"; return 1; }
	read -r lo hi < <(sed -nE 's/^  share per QP +[0-9.]+\.\.[0-9.]+ % +([0-9.]+)\.\.([0-9.]+) % \(equal: 12\.5 %\)$/\1 \2/p' <<<"$output")
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo != "" && lo >= 9.375 && hi <= 15.625) }' ||
		{ echo "QP shares with DCQCN: '$lo'..'$hi' %"; return 1; }
	# every reason the demo printed is explained in docs/architecture.md
	local r reasons
	reasons=$(sed -n '/^## Reasons/,/^## [^R]/p' "$ROOT/docs/architecture.md")
	[[ -n $reasons ]]
	# shellcheck disable=SC2013 # reason names: one word each
	for r in $(grep -oE '\b[a-z_]+=[0-9]+' <<<"$output" | cut -d= -f1 | sort -u); do
		grep -qE "^\|.*\`$r\`" <<<"$reasons" ||
			{ echo "reason $r is not in docs/architecture.md's Reasons"; return 1; }
	done
	nothing_left
}

@test "demo: stopped halfway (SIGTERM in section 2), it still removes everything" {
	local out=$BATS_TEST_TMPDIR/demo.out tries=1200
	DEMO_QUICK=1 DEMO_PREFIX="$DP" "$ROOT/lab/demo.sh" >"$out" 2>&1 3>&- &
	DEMO_PID=$!
	until grep -q '^== 2\. ' "$out"; do
		kill -0 "$DEMO_PID" 2>/dev/null || { cat "$out"; return 1; }
		((tries-- > 0)) || { cat "$out"; echo "section 2 never started"; return 1; }
		sleep 0.05
	done
	kill -TERM "$DEMO_PID"
	local rc=0
	wait "$DEMO_PID" || rc=$?
	DEMO_PID=
	cat "$out"
	((rc == 130)) || { echo "exit status $rc, expected 130"; return 1; }
	nothing_left
}
