#!/usr/bin/env bats
# `xdpleaf sim queue` runs the dataplane's phantom queue offline: an
# overload is capped at the port's rate, marks and drops show up, a bad
# trace line is reported with its line number, field and fault, and the
# CSV forms a trace may take (an empty ect, CRLF, a BOM, long lines) read. `xdpleaf sim flowlet` runs
# the uplink choice over on/off flows: shares follow capacities.

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

# replay FIXTURE CAPS FLOWLET_MAX HASH_MIN: a captured trace of
# tests/fixtures/flow-traces/ replayed over CAPS in 20 ms windows: flowlet
# moves, none unsafe, and keeps every member's longest run over its capacity
# within FLOWLET_MAX s; hash's longest is HASH_MIN s or more.
replay() {
	local trace=$BATS_TEST_TMPDIR/trace.csv
	zcat "$BATS_TEST_DIRNAME/../fixtures/flow-traces/$1" >"$trace"
	local w=(--trace "$trace" --caps "$2" --window 20ms --json)
	run --separate-stderr "$XDPLEAF" sim flowlet "${w[@]}"
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	jq -c '{flows, moves, moves_refused, longest: [.members[].longest_overload_s]}' <<<"$output"
	jq -e --argjson max "$3" '.flows == 4 and .moves > 0 and .moves_unsafe == 0 and
		all(.members[]; .longest_overload_s <= $max)' <<<"$output" >/dev/null
	run --separate-stderr "$XDPLEAF" sim flowlet "${w[@]}" --mode hash
	[[ $status -eq 0 ]]
	jq -c '[.members[].longest_overload_s]' <<<"$output"
	jq -e --argjson min "$4" '[.members[].longest_overload_s] | max >= $min' <<<"$output" >/dev/null
}

@test "sim queue: 2.4G into a 1G/200K port forwards ~1G, marks and drops" {
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --buffer 200K \
		--load 2.4G --packet 1442 --duration 50ms
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	echo "$stderr"
	# one CSV row per packet after the header: 50 ms x 2.4G / 1442 B
	local rows=$((${#lines[@]} - 1)) want=$((50000000 * 2400 / 1442 / 8000))
	((rows >= want - 1 && rows <= want + 1)) || { echo "rows $rows, want $want"; return 1; }
	[[ ${lines[0]} == time_ns,bytes,queue_bytes,action ]]
	local mbps
	mbps=$(sed -nE 's/.*forwarded ([0-9]+)\..*/\1/p' <<<"$stderr")
	((mbps >= 990 && mbps <= 1050)) || { echo "forwarded $mbps Mbit/s"; return 1; }
	printf '%s\n' "${lines[@]}" | grep -q ',dropped$'
	printf '%s\n' "${lines[@]}" | grep -q ',marked$'
}

# 99 Mbit/s of 1,500-byte frames is 100.6 Mbit/s on the line with
# Ethernet's 24 bytes per frame: a 100M port's queue grows by ~0.6 Mbit/s
# (725 bytes in 10 ms); counting the frames alone it stays empty.
@test "sim queue: each frame costs its line overhead (default 24 bytes), --line-overhead 0 counts frames alone" {
	local peak
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 99M --duration 10ms
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	peak=$(sed -nE 's/.*peak queue ([0-9]+) bytes.*/\1/p' <<<"$stderr")
	echo "default: $stderr"
	((peak >= 600 && peak <= 800))
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 99M --duration 10ms \
		--line-overhead 0
	echo "0: $stderr"
	[[ $status -eq 0 && $stderr == *"peak queue 0 bytes"* ]]
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 99M --duration 10ms \
		--line-overhead 257
	[[ $status -eq 2 && $stderr == *"--line-overhead: 257 is out of range 0..256"* ]]
}

# 120 Mbit/s into a 100M port with its default 25,000-byte buffer: the
# paper's 5K / 200K as they are mark next to nothing before the buffer is
# full; fitted (--fit, the roce class) every packet above 12,500 bytes is
# marked, the first of them long before the first drop.
@test "sim queue: --fit marks from half the buffer, as the roce class; not with --kmin" {
	local first_mark first_drop
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 120M --packet 1000 --duration 20ms
	[[ $status -eq 0 ]]
	echo "as they are: $stderr"
	[[ $stderr == *"marked 0 (0.00%)"* ]]
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 120M --packet 1000 \
		--duration 20ms --fit
	[[ $status -eq 0 ]]
	echo "fitted: $stderr"
	first_mark=$(printf '%s\n' "${lines[@]}" | awk -F, '$4 == "marked" { print $3; exit }')
	first_drop=$(printf '%s\n' "${lines[@]}" | awk -F, '$4 == "dropped" { print $1; exit }')
	# the first mark finds just over 12,500 bytes queued (one frame more at most)
	((first_mark > 12500 && first_mark <= 12500 + 1024)) || { echo "first mark at $first_mark"; return 1; }
	(($(printf '%s\n' "${lines[@]}" | awk -F, '$4 == "marked" { print $1; exit }') < first_drop))
	run --separate-stderr "$XDPLEAF" sim queue --rate 100M --load 120M --duration 20ms \
		--fit --kmax 100K
	[[ $status -eq 2 && $stderr == *"--fit fits the default kmin and kmax, not ones given"* ]]
}

@test "sim queue: Not-ECT traffic is never marked" {
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --buffer 200K \
		--load 2G --duration 20ms --not-ect
	[[ $status -eq 0 ]]
	! printf '%s\n' "${lines[@]}" | grep -q ',marked$' || false
	printf '%s\n' "${lines[@]}" | grep -q ',dropped$'
}

@test "sim queue: a bad trace line is reported with its line number" {
	local trace=$BATS_TEST_TMPDIR/t.csv
	printf 'time_ns,bytes\n0,1500\n10,zero\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$trace"
	[[ $status -ne 0 ]]
	[[ $stderr == *"$trace:3:"* ]]
	# numbers are plain decimals (a negative time used to wrap to 2^64 - N)
	local bad
	for bad in -5,1500 10,-1500 10,1500,-1 10,1500,2 10,1500,1,0 10,1500x; do
		printf 'time_ns,bytes\n0,1500\n%s\n' "$bad" >"$trace"
		run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$trace"
		[[ $status -eq 1 && $stderr == *"$trace:3:"* ]] || { echo "$bad: $status $stderr"; return 1; }
	done
}

# qtrace NAME LINE... : a queue trace (header time_ns,bytes,ect) in
# $BATS_TEST_TMPDIR, its path on stdout
qtrace() {
	local f=$BATS_TEST_TMPDIR/$1
	shift
	{
		echo time_ns,bytes,ect
		printf '%s\n' "$@"
	} >"$f"
	echo "$f"
}

# The CSV forms the reader once refused with one generic message: an
# empty optional ect (the default then: 1, or 0 with --not-ect), CRLF, a
# UTF-8 BOM, a line longer than the old 256-byte buffer. Each gives the
# plain trace's output.
@test "sim queue: an empty ect, CRLF, a UTF-8 BOM and a 4,000-byte line read as the plain trace" {
	local plain pad t=$BATS_TEST_TMPDIR/forms
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$(qtrace plain 0,1500,1 10,1500,1 20,64,0)"
	[[ $status -eq 0 && ${#lines[@]} -eq 4 ]] || { echo "$stderr"; return 1; }
	plain=$output
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$(qtrace empty 0,1500, 10,1500 20,64,0)"
	[[ $status -eq 0 && $output == "$plain" ]] || { echo "empty ect: $stderr"; return 1; }
	printf '\xef\xbb\xbftime_ns,bytes,ect\r\n0,1500,1\r\n10,1500,1\r\n20,64,0\r\n' >"$t"
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$t"
	[[ $status -eq 0 && $output == "$plain" ]] || { echo "CRLF and BOM: $stderr"; return 1; }
	printf -v pad '%4000s' ''
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$(qtrace long "0,1500,1$pad" 10,1500,1 20,64,0)"
	[[ $status -eq 0 && $output == "$plain" ]] || { echo "long line: $stderr"; return 1; }
	# an empty ect is the default: ECT (marked past kmax), or --not-ect's 0
	t=$(qtrace empty_ect 0,1500, 1,1500,)
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --kmin 0 --kmax 1 --trace "$t"
	[[ $status -eq 0 && ${lines[2]} == 1,1500,*,marked ]] || { echo "${lines[*]}"; return 1; }
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --kmin 0 --kmax 1 --not-ect --trace "$t"
	[[ $status -eq 0 && ${lines[2]} == 1,1500,*,queued ]] || { echo "${lines[*]}"; return 1; }
	t=$(qtrace long_then_bad "0,1500,1$pad" 10,1500,2)
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$t"
	[[ $status -eq 1 && $stderr == "$t:3: ect: 2 is not 0 or 1" ]] || { echo "$stderr"; return 1; }
}

@test "sim queue: each refusal names the line, the field and the fault" {
	local t line want
	while IFS='|' read -r line want; do
		t=$(qtrace refused 0,1500 "$line")
		run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$t"
		# refused whole: not one row of the good line before it
		[[ $status -eq 1 && -z $output && $stderr == "$t:3: $want" ]] ||
			{ echo "'$line': status $status, stderr '$stderr', want '$want'"; return 1; }
	done <<-'EOF'
		10,zero|bytes: 'zero' is not a decimal number
		10|bytes: missing
		10,|bytes: empty, need a number
		,1500|time_ns: empty, need a number
		-5,1500|time_ns: '-5' has a sign; numbers are plain decimal digits
		10,1500x|bytes: '1500x' is not a decimal number (text after the digits)
		10,0|bytes: 0 is out of range 1..65535
		10,65536|bytes: 65536 is out of range 1..65535
		10,1500,-1|ect: '-1' has a sign; numbers are plain decimal digits
		10,1500,2|ect: 2 is not 0 or 1
		10,1500,1,0|4 fields, at most 3: time_ns,bytes,ect
	EOF
	t=$(qtrace backwards 0,1500 10,1500 5,1500)
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --trace "$t"
	[[ $status -eq 1 && $stderr == "$t:4: time_ns: 5 is before the previous packet's 10 (time must not decrease)" ]] ||
		{ echo "$stderr"; return 1; }
}

@test "sim queue: a duration without its unit and a bad seed exit 2 with the reason" {
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --load 2G --duration 10
	[[ $status -eq 2 && $stderr == *"duration '10' has no unit"* ]]
	run --separate-stderr "$XDPLEAF" sim queue --rate 1G --load 2G --duration 1ms --seed x
	[[ $status -eq 2 && $stderr == *"--seed: 'x' is not a whole number"* ]]
}

@test "sim flowlet: the default (workload 3) gives each uplink its capacity's share, LetFlow does not" {
	run --separate-stderr "$XDPLEAF" sim flowlet --json
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	echo "$output" | jq -c '[.members[].share]'
	jq -e '(.members | length) == 4 and
		all(.members[]; (.share / .capacity_share - 1) | fabs <= 0.05)' <<<"$output" >/dev/null
	run --separate-stderr "$XDPLEAF" sim flowlet --mode flowlet-random --json
	[[ $status -eq 0 ]]
	jq -e '.members[0].share < 0.3' <<<"$output" >/dev/null
}

@test "sim flowlet: on the degraded set (100/100/100/25M) at 70 % load every member carries its capacity's share and is never over it for more than 1 % of the time; hash's whole flows overload one for seconds" {
	run --separate-stderr "$XDPLEAF" sim flowlet --caps 100M,100M,100M,25M --flows 16 \
		--rate 14M --duration 20s --json
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	echo "$output" | jq -c '[.members[] | [.share, .capacity_share, .overloaded_s]]'
	jq -e 'all(.members[]; (.share - .capacity_share) | fabs <= 0.02) and
		all(.members[]; .overloaded_s <= 0.2)' <<<"$output" >/dev/null
	# whole flows by hash: some member over its capacity far longer
	run --separate-stderr "$XDPLEAF" sim flowlet --caps 100M,100M,100M,25M --flows 16 \
		--rate 14M --duration 20s --mode hash --json
	[[ $status -eq 0 ]]
	echo "$output" | jq -c '[.members[].overloaded_s]'
	jq -e '[.members[].overloaded_s] | max > 2' <<<"$output" >/dev/null
}

@test "sim flowlet: moves the reorder-free rule refuses are shown; --reorder free makes them, as unsafe" {
	# 95 % load, ~0.2 ms gaps between 16K messages: queues outlast gaps
	local w=(--duty 0.99 --message 16K --rate 30M --duration 5s)
	run --separate-stderr "$XDPLEAF" sim flowlet "${w[@]}"
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	echo "${lines[-1]}"
	[[ ${lines[-1]} =~ moves\ refused\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] > 0))
	run --separate-stderr "$XDPLEAF" sim flowlet "${w[@]}" --json
	[[ $status -eq 0 ]]
	jq -e '.moves_refused > 0 and .moves_unsafe == 0' <<<"$output" >/dev/null
	run --separate-stderr "$XDPLEAF" sim flowlet "${w[@]}" --reorder free --json
	[[ $status -eq 0 ]]
	jq -c '{moves, moves_unsafe}' <<<"$output"
	jq -e '.moves_refused == 0 and .moves_unsafe > 0 and .moves_unsafe <= .moves' \
		<<<"$output" >/dev/null
	# the default workload's gaps are milliseconds: nothing refused
	run --separate-stderr "$XDPLEAF" sim flowlet --duration 5s --json
	jq -e '.moves_refused == 0' <<<"$output" >/dev/null
	run --separate-stderr "$XDPLEAF" sim flowlet --reorder maybe
	[[ $status -eq 2 && $stderr == *"--reorder: 'maybe' is not safe or free"* ]]
}

@test "sim flowlet: the table lists every member; bad options exit 2, --help exits 0" {
	run --separate-stderr "$XDPLEAF" sim flowlet --caps 100M,100M,100M --flows 6 --duration 2s
	[[ $status -eq 0 ]]
	[[ ${lines[0]} == member* ]]
	[[ ${#lines[@]} -eq 5 ]] # header, 3 members, the flowlet count
	run --separate-stderr "$XDPLEAF" sim flowlet --caps 100M,,100M
	[[ $status -eq 2 && $stderr == *"--caps"* ]]
	run --separate-stderr "$XDPLEAF" sim flowlet --no-such-option
	[[ $status -eq 2 ]]
	run "$XDPLEAF" sim flowlet --help
	[[ $status -eq 0 && $output == *"usage: xdpleaf sim flowlet"* ]]
	run "$XDPLEAF" sim --help
	[[ $status -eq 0 && $output == *flowlet* ]]
}

# The first two measured steps of a lab cell (bench-jct, dc hosts, Open MPI's
# ring all-reduce of 4 MiB, flowlet over 200/100/100/50M; from its captures by
# bench/jct/trace.py): 4 flows leaf1 -> leaf2. Replayed open loop, the uplink
# choice keeps every member within its capacity but for windows of tens of
# ms; whole flows by hash put two on the 50M member for the whole trace.
@test "sim flowlet --trace: a lab all-reduce replayed: no member over its capacity for more than 100 ms in a row; hash's for far longer" {
	replay dc-unequal-allreduce-4M.csv.gz 200M,100M,100M,50M 0.1 0.3
}

# The six measured steps of a lab cell (bench-jct, dc hosts, Open MPI's ring
# all-reduce of 4 MiB, flowlet over the degraded set 100/100/100/25M;
# bench/results/2026-11-28-degraded-trace): 4 flows on 3 usable members, so
# one member carries two at a time. Flows that take turns at sharing one
# (include/lb.h, time-sharing) keep every member within its capacity but for
# 80 ms at a stretch at most; a pair that stayed where it formed kept one over
# it for 160 ms. Whole flows by hash: the 25M member for seconds.
@test "sim flowlet --trace: the degraded all-reduce replayed: no member over its capacity for more than 100 ms in a row; hash's for seconds" {
	replay dc-degraded-allreduce-4M.csv.gz 100M,100M,100M,25M 0.1 2
}

@test "sim flowlet --trace: a bad line is refused with its line and field, nothing printed" {
	local trace=$BATS_TEST_TMPDIR/bad.csv
	printf 'time_ns,flow,bytes\n100,0,1500\n50,1,1500\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$trace"
	[[ $status -ne 0 && -z $output && $stderr == *"bad.csv:3: time_ns"*"must not decrease"* ]]
	printf 'time_ns,flow,bytes\n100,65536,1500\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$trace"
	[[ $status -ne 0 && $stderr == *"flow"*"out of range 0..65535"* ]]
	printf 'time_ns,flow,bytes\n100,0,0\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$trace"
	[[ $status -ne 0 && $stderr == *"bytes"*"out of range 1..65535"* ]]
	printf 'time_ns,flow,bytes\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$trace"
	[[ $status -ne 0 && $stderr == *"no packets"* ]]
	# the replay steps through every 50 us up to the last packet
	printf 'time_ns,flow,bytes\n3600000000001,0,1500\n' >"$trace"
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$trace"
	[[ $status -ne 0 && $stderr == *"time_ns"*"out of range"* ]]
	run --separate-stderr "$XDPLEAF" sim flowlet --trace "$BATS_TEST_TMPDIR/missing.csv"
	[[ $status -ne 0 && $stderr == *missing.csv* ]]
	run --separate-stderr "$XDPLEAF" sim flowlet --window 10us
	[[ $status -eq 2 && $stderr == *"'10us' out of range (50us..3600s)"* ]]
	run --separate-stderr "$XDPLEAF" sim flowlet --window 75us
	[[ $status -eq 2 && $stderr == *"--window: a multiple of 50us"* ]]
}
