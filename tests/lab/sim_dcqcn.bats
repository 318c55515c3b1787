#!/usr/bin/env bats
# `xdpleaf sim dcqcn` replays a trace through the DCQCN reaction point
# (include/dcqcn.h) as docs/dcqcn-spec.md specifies: output header and
# first row, the paper cut and its recovery, the nvidia first cut, pace
# semantics, the paper's default B (10^7 bytes), --set, trace errors
# (each naming its line, field and fault), the CSV forms read (an empty
# optional field, CRLF, a BOM, lines of any length), --help. Needs only build/xdpleaf.
# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr

load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

C=100000000000

# trace NAME LINE... : write a trace (with its header) to $BATS_TEST_TMPDIR
trace() {
	local f=$BATS_TEST_TMPDIR/$1
	shift
	{
		echo time_ns,event,arg
		printf '%s\n' "$@"
	} >"$f"
	echo "$f"
}

# dcqcn TRACE ARGS... : run the simulator, stdout in $output / $lines
dcqcn() {
	local t=$1
	shift
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" "$@"
	[[ $status -eq 0 ]] || { echo "status $status: $stderr"; return 1; }
}

# first_row_where AWK_CONDITION: the first output row ($1 time, $2 rc,
# $3 rt, $4 alpha) matching, or nothing
first_row_where() {
	printf '%s\n' "${lines[@]:1}" | awk -F, "$1 { print; exit }"
}

@test "sim dcqcn: header, then a row at time 0 with C, C, 1.0" {
	local t
	t=$(trace only_end 5000,end)
	dcqcn "$t" --variant paper
	[[ ${lines[0]} == time_ns,rc_bps,rt_bps,alpha ]]
	[[ ${lines[1]} == "0,$C,$C,1.0000000000" ]]
	((${#lines[@]} == 2))
	dcqcn "$t" --variant nvidia --line-rate 25G
	[[ ${lines[0]} == time_ns,rc_bps,rt_bps,alpha ]]
	[[ ${lines[1]} == 0,25000000000,25000000000,1.0000000000 ]]
}

@test "sim dcqcn: paper halves Rc at the CNP and is back at C 495 us later" {
	local t row
	t=$(trace paper_cut 1000,cnp 700000,end)
	dcqcn "$t" --variant paper
	# α = (1 − 1/256)·1 + 1/256 = 1: Rc = 50 G, Rt = C
	[[ ${lines[2]} == "1000,50000000000,$C,1.0000000000" ]]
	# fast recovery every 55 µs, then additive (Rt += 40 M)
	local want=("56000,75000000000,$C" "111000,87500000000,$C"
		"166000,93750000000,$C" "221000,96875000000,$C"
		"276000,98457500000,100040000000" "331000,99268750000,100080000000"
		"386000,99694375000,100120000000" "441000,99927187500,100160000000"
		"496000,$C,100200000000")
	local w
	for w in "${want[@]}"; do
		printf '%s\n' "${lines[@]}" | grep -q "^$w," ||
			{ echo "no row $w"; return 1; }
	done
	row=$(first_row_where "\$1 > 1000 && \$2 == $C")
	[[ ${row%%,*} == 496000 ]] || { echo "first row at C: $row"; return 1; }
	# no rate change before the first increase timer
	row=$(first_row_where "\$1 > 1000 && \$1 < 56000")
	[[ -z $row ]]
}

@test "sim dcqcn: nvidia cuts first at +4001 ns, not at the CNP" {
	local t row
	t=$(trace nvidia_cut 1000,cnp 20000,end)
	dcqcn "$t" --variant nvidia
	# the CNP: α = 1023/1024, no cut
	[[ ${lines[2]} == "1000,$C,$C,0.9990234375" ]]
	row=$(first_row_where "\$2 != $C")
	# α after the four α timers (+1..+4 µs), Rc = trunc(C (1 − α/2));
	# 51017314610 with the exact α, 51017314603 with α in Q32
	[[ $row == "5001,51017314603,$C,"* ]] || { echo "first cut: $row"; return 1; }
	# α timer rows at +1, +2, +3, +4 µs come before it
	local n
	for n in 2000 3000 4000 5000; do
		printf '%s\n' "${lines[@]}" | grep -q "^$n,$C,$C," ||
			{ echo "no α row at $n"; return 1; }
	done
}

@test "sim dcqcn: paced packets are spaced by round(BYTES*8e9/Rc), Rc after each" {
	local t
	# B = 1000 bytes: every 1500-byte packet after the CNP overflows the
	# byte counter and moves Rc or Rt, so each packet leaves a row; the
	# first increase timer is at 56000.
	t=$(trace pace 1000,cnp 1000,pace,1500 40000,end)
	dcqcn "$t" --variant paper --set b=1000
	local prev_t=-1 prev_rc=0 n=0 row tt rc gap
	for row in "${lines[@]:1}"; do
		IFS=, read -r tt rc _ _ <<<"$row"
		((tt >= 1000 && tt < 56000)) || continue
		if ((tt > 1000 && prev_t >= 1000)); then
			# round half up, in integers
			gap=$(((2 * 1500 * 8000000000 + prev_rc) / (2 * prev_rc)))
			((gap < 1)) && gap=1
			((tt - prev_t == gap)) ||
				{ echo "row $row: gap $((tt - prev_t)), want $gap (Rc $prev_rc)"; return 1; }
			n=$((n + 1))
		fi
		prev_t=$tt
		prev_rc=$rc
	done
	((n > 50)) || { echo "only $n paced rows"; return 1; }
	# the first packet goes at the pace event's time (Rc 50 G -> 75 G),
	# the second 12e9/75e9 = 160 ns later, the third round(12e9/87.5e9)
	printf '%s\n' "${lines[@]}" | grep -q "^1000,75000000000,$C,"
	printf '%s\n' "${lines[@]}" | grep -q "^1160,87500000000,$C,"
	printf '%s\n' "${lines[@]}" | grep -q "^1297,93750000000,$C,"
}

# B of the paper variant is 10 MB = 10^7 bytes (decimal, as in the
# specification). Timers out of the way (k = t = 1 s): after the CNP at
# 1000 ns Rc is 50 G and 1000-byte packets go every 160 ns from 1000 ns;
# packet n leaves 10^7 - 1000 (n + 1) bytes, below 0 first at n = 10000,
# at 1000 + 160 * 10000 = 1601000 ns: fast recovery, Rc 75 G. With
# B = 10 * 2^20 it would be n = 10485, 1678600 ns.
@test "sim dcqcn: paper's default B is 10^7 bytes (first byte-counter event at 1601000 ns)" {
	local t row
	t=$(trace bytes_b 1000,cnp 1000,pace,1000 2000000,end)
	dcqcn "$t" --variant paper --set k=1s --set t=1s
	[[ ${lines[2]} == "1000,50000000000,$C,1.0000000000" ]]
	row=$(first_row_where "\$1 > 1000")
	[[ $row == "1601000,75000000000,$C,1.0000000000" ]] || { echo "first event: $row"; return 1; }
	# the same B written out: the same output
	local want=("${lines[@]}")
	dcqcn "$t" --variant paper --set k=1s --set t=1s --set b=10000000
	[[ "${lines[*]}" == "${want[*]}" ]]
	# 10 * 2^20, written out, moves the event
	dcqcn "$t" --variant paper --set k=1s --set t=1s --set b=10485760
	row=$(first_row_where "\$1 > 1000")
	[[ $row == "1678600,75000000000,$C,1.0000000000" ]] || { echo "b=10485760: $row"; return 1; }
}

# b takes what the config's `b` takes: plain digits; K and M (powers of
# 1024 in buffer sizes) are refused, with the paper's value to write.
@test "sim dcqcn: --set b takes plain bytes only, as the config does" {
	local t
	t=$(trace only_end_b 10,end)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper --set b=10M
	[[ $status -eq 2 ]]
	[[ $stderr == *"invalid b '10M' (bytes: a plain whole number, no K or M; the paper's 10 MB is 10000000)"* ]] ||
		{ echo "$stderr"; return 1; }
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper --set b=268435457
	[[ $status -eq 2 ]]
	[[ $stderr == *"b '268435457' out of range (0..268435456 bytes)"* ]] || { echo "$stderr"; return 1; }
	dcqcn "$t" --variant paper --set b=0
	dcqcn "$t" --variant paper --set b=268435456
}

@test "sim dcqcn: pace,0 stops the paced flow" {
	local t row
	t=$(trace pace_stop 1000,cnp 1000,pace,1500 2000,pace,0 50000,end)
	dcqcn "$t" --variant paper --set b=1000
	row=$(first_row_where "\$1 > 2000")
	[[ -z $row ]] || { echo "row after pace,0: $row"; return 1; }
	row=$(first_row_where "\$1 > 1900 && \$1 <= 2000")
	[[ -n $row ]]
}

@test "sim dcqcn: --set clamp=no keeps Rt, min_rate floors the cut" {
	local t
	t=$(trace two_cnps 1000,cnp 2000,cnp 3000,end)
	dcqcn "$t" --variant paper
	[[ ${lines[3]} == 2000,25000000000,50000000000,1.0000000000 ]]
	dcqcn "$t" --variant paper --set clamp=no
	[[ ${lines[3]} == "2000,25000000000,$C,1.0000000000" ]]
	dcqcn "$t" --variant paper --set min_rate=60G
	[[ ${lines[2]} == "1000,60000000000,$C,1.0000000000" ]]
	# the second CNP clamps Rt to 60 G and the floor holds Rc there
	[[ ${lines[3]} == 2000,60000000000,60000000000,1.0000000000 ]]
	# nvidia, α_first = 1/2: the CNP row shows it
	t=$(trace one_cnp 1000,cnp 3000,end)
	dcqcn "$t" --variant nvidia --set alpha_first=1/2
	[[ ${lines[2]} == "1000,$C,$C,0.5000000000" ]]
}

# shellcheck disable=SC2030 # refused() reads its own run's status, not this one's
@test "sim dcqcn: a bad trace line is reported with its line number" {
	local t
	t=$(trace bad_event 0,cnp 10,bogus 20,end)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	[[ $status -ne 0 ]]
	[[ $stderr == *"$t:3:"* ]] || { echo "$stderr"; return 1; }
	t=$(trace backwards 0,cnp 100,cnp 50,cnp)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant nvidia
	[[ $status -ne 0 ]]
	[[ $stderr == *"$t:4:"* ]] || { echo "$stderr"; return 1; }
	t=$(trace no_bytes 0,send)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	[[ $status -ne 0 ]]
	[[ $stderr == *"$t:2:"* ]] || { echo "$stderr"; return 1; }
	# numbers are plain decimals: a sign, hex, trailing text or a value
	# past 2^64 - 1 is refused (a negative time used to wrap to 2^64 - N:
	# found by make fuzz-sim)
	local bad
	for bad in -311853,pace,10 0x10,cnp 10ms,cnp 10,send,-5 18446744073709551616,cnp \
		10,send,12x 10,cnp,1,2; do
		t=$(trace strict 0,cnp "$bad")
		run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
		[[ $status -eq 1 && $stderr == *"$t:3:"* ]] || { echo "$bad: $status $stderr"; return 1; }
	done
	# blanks around fields are fine
	t=$(trace blanks "0, cnp" " 10 ,send, 1000 ")
	dcqcn "$t" --variant paper
}

# refused LINE MESSAGE: a trace of the header, 0,cnp and LINE is refused
# with "FILE:3: MESSAGE" (exit 1, nothing on stdout).
refused() {
	local t
	t=$(trace refused 0,cnp "$1")
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	# shellcheck disable=SC2031 # status, output: set by this function's run
	[[ $status -eq 1 && -z $output && $stderr == "$t:3: $2" ]] ||
		{ echo "'$1': status $status, stderr '$stderr', want '$t:3: $2'"; return 1; }
}

# The standard CSV forms the readers once refused with one generic
# message: an empty optional field, CRLF line ends, a UTF-8 BOM, a line
# longer than the old 256-byte buffer (fgets split it and the rest was
# refused as the next line). Each gives what the plain trace gives.
@test "sim dcqcn: an empty optional arg (1000000,cnp, and 2000000,end,) reads as none" {
	local plain
	dcqcn "$(trace plain 1000000,cnp 2000000,end)" --variant paper
	plain=$output
	dcqcn "$(trace empty_arg 1000000,cnp, 2000000,end,)" --variant paper
	[[ $output == "$plain" && ${#lines[@]} -gt 2 ]]
}

@test "sim dcqcn: CRLF line ends and a UTF-8 BOM before the header read as plain lines" {
	local plain t=$BATS_TEST_TMPDIR/crlf_bom
	dcqcn "$(trace plain 1000000,cnp 1000000,pace,1500 2000000,end)" --variant paper
	plain=$output
	printf '\xef\xbb\xbftime_ns,event,arg\r\n1000000,cnp\r\n1000000,pace,1500\r\n2000000,end\r\n' >"$t"
	dcqcn "$t" --variant paper
	[[ $output == "$plain" && ${#lines[@]} -gt 2 ]]
	# a BOM and no header
	printf '\xef\xbb\xbf1000000,cnp\n1000000,pace,1500\n2000000,end\n' >"$t"
	dcqcn "$t" --variant paper
	[[ $output == "$plain" ]]
}

@test "sim dcqcn: a line of 4,000 bytes is one line; the line after it keeps its number" {
	local plain pad t
	printf -v pad '%4000s' ''
	dcqcn "$(trace plain 1000000,cnp 2000000,end)" --variant paper
	plain=$output
	t=$(trace long "1000000,cnp$pad" "2000000,end")
	(($(sed -n 2p "$t" | wc -c) > 4000))
	dcqcn "$t" --variant paper
	[[ $output == "$plain" ]]
	t=$(trace long_then_bad "1000000,cnp$pad" "2000000,bogus")
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	[[ $status -eq 1 && $stderr == "$t:3: event: 'bogus' is not cnp, send, pace or end" ]] ||
		{ echo "$stderr"; return 1; }
}

@test "sim dcqcn: each refusal names the line, the field and the fault" {
	refused 10,bogus "event: 'bogus' is not cnp, send, pace or end"
	refused 10 "event: missing; one of cnp, send, pace, end"
	refused 10, "event: empty; one of cnp, send, pace, end"
	refused ,cnp "time_ns: empty, need a number"
	refused -5,cnp "time_ns: '-5' has a sign; numbers are plain decimal digits"
	refused +5,cnp "time_ns: '+5' has a sign; numbers are plain decimal digits"
	refused 0x10,cnp "time_ns: '0x10' is not a decimal number (text after the digits)"
	refused x,cnp "time_ns: 'x' is not a decimal number"
	refused 18446744073709551616,cnp "time_ns: '18446744073709551616' is above 2^64 - 1"
	refused 10,send "arg: missing; send needs BYTES"
	refused 10,send, "arg: empty; send needs BYTES"
	refused 10,pace "arg: missing; pace needs BYTES"
	refused 10,send,0 "arg: send needs BYTES of at least 1"
	refused 10,send,-5 "arg: '-5' has a sign; numbers are plain decimal digits"
	refused 10,cnp,1,2 "4 fields, at most 3: time_ns,event,arg"
	# time order: named only when the times are out of order
	local t
	t=$(trace backwards 0,cnp 100,cnp 50,cnp)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	[[ $status -eq 1 && $stderr == "$t:4: time_ns: 50 is before the previous event's 100 (time must not decrease)" ]] ||
		{ echo "$stderr"; return 1; }
	# garbage: a NUL byte, a long field (shown cut at 32 characters)
	t=$BATS_TEST_TMPDIR/nul
	printf 'time_ns,event,arg\n0,c\0np\n' >"$t"
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper
	[[ $status -eq 1 && $stderr == "$t:2: a NUL byte at column 4" ]] || { echo "$stderr"; return 1; }
	refused "10,$(printf 'x%.0s' {1..40})" "event: '$(printf 'x%.0s' {1..32})...' is not cnp, send, pace or end"
}

@test "sim dcqcn: bad options exit 2, --help exits 0" {
	local t
	t=$(trace only_end 10,end)
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant dctcp
	[[ $status -eq 2 ]]
	run --separate-stderr "$XDPLEAF" sim dcqcn --variant paper
	[[ $status -eq 2 ]]
	run --separate-stderr "$XDPLEAF" sim dcqcn --trace "$t" --variant paper --set nope=1
	[[ $status -eq 2 ]]
	run --separate-stderr "$XDPLEAF" sim dcqcn --help
	[[ $status -eq 0 ]]
	[[ $output == *"usage: xdpleaf sim dcqcn"* ]]
}

# A paced flow still running at the trace's last line: the simulator's own
# comment says a trace without `end` simply ends, but the pace loop keeps
# going forever (nvidia: sends change nothing, so the output stays small).
@test "sim dcqcn: a trace without end stops after its last line, even while pacing" {
	local t
	t=$(trace no_end 0,pace,1000 1000,cnp)
	run --separate-stderr timeout 3 "$XDPLEAF" sim dcqcn --trace "$t" --variant nvidia
	[[ $status -eq 0 ]] || { echo "status $status (124: still running after 3 s)"; return 1; }
}
