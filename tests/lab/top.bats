#!/usr/bin/env bats
# xdpleaf top: --once prints a frame with its sections; the live view runs
# under tmux (a real terminal), shows rates while traffic crosses leaf1,
# follows the instance away and back, and leaves the terminal as it found
# it on q and on SIGTERM. Bad options change nothing and say why.

load helpers

# Each screen check polls the pane up to this many times, 0.1 s apart.
PANE_TRIES=150

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	if [[ -z $LAB_SKIP ]] && ! command -v tmux >/dev/null; then
		LAB_SKIP="tmux not installed (make deps)"
	fi
	if [[ -n $LAB_SKIP ]]; then
		return 0
	fi
	ensure_bpffs
	# one prefix (lab and instance) and one tmux server per run
	export P="xlt$$o" TSOCK="xdpleaf-top-$$"
	lab_up_ready "$P"
}

setup() {
	require_lab
}

teardown() {
	stop_traffic
	host_pair_down
	if [[ -n ${TSOCK:-} ]]; then
		tm kill-server 2>/dev/null || true
	fi
}

teardown_file() {
	if [[ -z ${P:-} ]]; then
		return 0
	fi
	"$LAB" down --prefix "$P" 3>&-
}

tm() {
	tmux -L "$TSOCK" "$@"
}

# RoCEv2 from s1 to r1 (xdpleaf gen: 8 QPs at 20 Mbit/s each) over
# leaf1's uplinks, bounded by --duration and timeout; returns once leaf1's
# uplinks carry it (polled).
start_traffic() {
	local before now tries=100
	before=$(uplink_tx "$(stats_json "$P")")
	# nsenter execs timeout: $! is a process that stops gen on TERM
	nsenter --net="/run/netns/$P-s1" -- timeout 60 "$XDPLEAF" gen --dev eth0 \
		--dst "$(lab_receiver4 1)" --qps 8 --rate 20M --duration 50s \
		</dev/null >/dev/null 2>&1 3>&- &
	TRAFFIC_PID=$!
	while ((tries-- > 0)); do
		now=$(uplink_tx "$(stats_json "$P")")
		((now > before + 1000)) && return 0
		sleep 0.1
	done
	echo "no traffic on leaf1's uplinks ($before -> $now packets)" >&2
	return 1
}

stop_traffic() {
	if [[ -n ${TRAFFIC_PID:-} ]]; then
		kill "$TRAFFIC_PID" 2>/dev/null || true
		wait "$TRAFFIC_PID" 2>/dev/null || true
		TRAFFIC_PID=
	fi
}

# packets leaf1 sent out of its uplinks, from a stats JSON
uplink_tx() {
	jqv "$1" '[.ports[] | select(.role == "uplink") | .tx_packets] | add'
}

# Start `xdpleaf top ARGS...` in leaf1's namespace in a detached 160x50
# tmux pane, under a shell that prints its exit status and then waits for
# a line, so that the terminal's state after top can be read from the
# live pane (tmux hides the cursor of a dead one).
start_top() {
	tm new-session -d -s top -x 160 -y 50 \
		"nsenter --net=/run/netns/$P-leaf1 $XDPLEAF top --instance $P $*; echo top-exit=\$?; read -r _"
}

# The pid of top: the pane's shell's child (nsenter execs xdpleaf).
top_pid() {
	pgrep -P "$(pane_state '#{pane_pid}')"
}

pane() {
	tm capture-pane -p -t top
}

pane_state() { # a tmux format, e.g. '#{pane_dead}'
	tm display-message -p -t top "$1"
}

# Poll the pane until every check holds: each is a command line run with
# F naming a file that holds the pane's text. Prints the last capture on
# failure.
wait_pane() {
	local F=$BATS_TEST_TMPDIR/pane tries=$PANE_TRIES c ok
	while :; do
		pane >"$F"
		ok=1
		for c in "$@"; do
			eval "$c" >/dev/null 2>&1 || { ok=; break; }
		done
		[[ -n $ok ]] && return 0
		((--tries > 0)) || break
		sleep 0.1
	done
	echo "pane never satisfied: $c; it shows:" >&2
	cat "$F" >&2
	return 1
}

# top exited with status $1 and left the terminal as it found it: off the
# alternate screen, cursor shown.
top_exited() {
	wait_pane "grep -q '^top-exit=' \"\$F\""
	grep -q "^top-exit=$1\$" "$BATS_TEST_TMPDIR/pane"
	[[ $(pane_state '#{alternate_on}') == 0 ]]
	[[ $(pane_state '#{cursor_flag}') == 1 ]]
	# and the pane shows what the shell printed after it, not the frame
	! grep -q '^UPLINKS' "$BATS_TEST_TMPDIR/pane"
}

# Rows of file $1's UPLINKS table with a rate above 0 (the PORTS table's
# uplink rows have their role, not a number, in column 2).
uplink_rate() {
	awk '$1 ~ /^u[1-4]$/ && $2 + 0 > 0 { n++ } END { exit !n }' "$1"
}

# Every port of lab/leaf1.conf starts a line of file $1.
all_ports() {
	local p
	for p in s1 s2 s3 s4 u1 u2 u3 u4; do
		grep -qE "^$p " "$1" || return 1
	done
}

@test "top --once: one frame with every section, every port and the uplinks' rates" {
	start_traffic
	run in_ns "$P-leaf1" "$XDPLEAF" top --once --interval 500 --instance "$P"
	stop_traffic
	echo "$output"
	[[ $status -eq 0 ]]
	for section in UPLINKS PORTS "TOP FLOWS" "RECENT EVENTS"; do
		grep -q "^$section" <<<"$output"
	done
	grep -q "instance $P   leaf mode" <<<"$output"
	# the rates cover the interval asked for (and the reads' own time)
	grep -qE "rates over the last (0\.[5-9]|[1-9][0-9]*\.)[0-9]+ s" <<<"$output"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once"
	all_ports "$BATS_TEST_TMPDIR/once"
	uplink_rate "$BATS_TEST_TMPDIR/once"
	# gen's RoCEv2 flows show with their ports, QP, uplink and rate
	grep -qE "^$(lab_sender4 1) -> $(lab_receiver4 1) +17 +[0-9]+/4791 +[0-9]+ u[1-4] +[1-9][0-9]*\.[0-9] " <<<"$output"
	# events: the counters' rates, and where the events themselves are
	grep -qE "^  per second: " <<<"$output"
	grep -q "xdpleaf events --instance $P " <<<"$output"
	# no curses: plain text, no escape sequences
	! grep -q $'\e' <<<"$output" || false
}

@test "top --once: an instance that is not loaded exits 3 and says so" {
	run in_ns "$P-leaf1" "$XDPLEAF" top --once --instance "${P}nosuch"
	echo "$output"
	[[ $status -eq 3 ]]
	[[ $output == *"instance '${P}nosuch' is not loaded"* ]]
}

@test "top: a bad --interval is refused with a message (exit 2), as is a stray argument" {
	local bad
	for bad in 0 99 60001 abc 1s -5 ""; do
		run "$XDPLEAF" top --once --interval "$bad" --instance "$P"
		echo "$bad: $output"
		[[ $status -eq 2 ]]
		[[ $output == *"--interval"* ]]
		[[ $output != *UPLINKS* ]]
	done
	run "$XDPLEAF" top --once --instance "$P" extra
	[[ $status -eq 2 && $output == *"unexpected argument 'extra'"* ]]
	run "$XDPLEAF" top --instance 'bad/name' --once
	[[ $status -eq 2 && $output == *"bad instance name"* ]]
	# --help is the truth about the options and keys it lists
	run "$XDPLEAF" top --help
	[[ $status -eq 0 ]]
	for word in --instance --interval --once "q quit" "p pause" "s the flow"; do
		[[ $output == *"$word"* ]]
	done
}

# shellcheck disable=SC2016 # wait_pane evaluates its conditions later, $F the pane's text
@test "top under tmux: rates under traffic, keys, resize, q restores the terminal (exit 0)" {
	local screen cols
	start_traffic
	start_top --interval 300
	# the flows fill the rows the other sections leave: the last line,
	# about events, still fits
	wait_pane 'grep -q "^UPLINKS" "$F"' 'uplink_rate "$F"' 'all_ports "$F"' \
		'grep -q "xdpleaf events --instance $P " "$F"'
	# curses owns the screen: the alternate screen is on
	[[ $(pane_state '#{alternate_on}') == 1 ]]
	screen=$(pane)
	mkdir -p "$ROOT/build"
	printf '%s\n' "$screen" >"$ROOT/build/top-screen.txt"
	note "xdpleaf top, xdpleaf gen s1 -> r1 RoCEv2 8 QPs x 20M (160x50 tmux pane):"
	# without the pane's empty lines at the bottom
	awk 'NF { n = NR } { l[NR] = $0 } END { for (i = 1; i <= n; i++) print l[i] }' \
		<<<"$screen" | while IFS= read -r line; do note "  $line"; done

	# s cycles the flow order, + and - step the interval, p pauses
	tm send-keys -t top s
	wait_pane 'grep -q "now: moves" "$F"'
	tm send-keys -t top +
	wait_pane 'grep -q "refresh every 500 ms" "$F"'
	tm send-keys -t top -- -
	wait_pane 'grep -q "refresh every 200 ms" "$F"'
	tm send-keys -t top p
	wait_pane 'grep -q PAUSED "$F"'
	tm send-keys -t top p
	wait_pane '! grep -q PAUSED "$F"'
	# a narrower terminal: redrawn to its width, every section still there
	tm resize-window -t top -x 100 -y 50
	wait_pane 'grep -q "^UPLINKS" "$F"' 'grep -q "^RECENT EVENTS" "$F"' \
		'[[ $(pane_state "#{window_width}") == 100 ]]'
	cols=$(pane | awk '{ if (length($0) > m) m = length($0) } END { print m }')
	((cols <= 100))

	tm send-keys -t top q
	top_exited 0
}

# shellcheck disable=SC2016 # wait_pane evaluates its conditions later, $F the pane's text
@test "top under tmux: follows the instance away (not loaded) and back; SIGTERM restores the terminal" {
	local pid
	start_top --interval 200
	wait_pane 'grep -q "leaf mode" "$F"' 'grep -q "^UPLINKS" "$F"'
	in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P"
	wait_pane 'grep -q "instance .$P. is not loaded; trying again" "$F"'
	# still running, still drawing
	[[ $(pane_state '#{pane_dead}') == 0 ]]
	# stdin and fd 3 closed: the daemon load leaves running must not
	# hold them (bats waits for fd 3)
	in_ns "$P-leaf1" "$XDPLEAF" load --config "$CONF" --instance "$P" </dev/null 3>&-
	wait_pane 'grep -q "leaf mode" "$F"' 'grep -q "^UPLINKS" "$F"' 'all_ports "$F"'
	pid=$(top_pid)
	[[ -n $pid ]]
	kill -TERM "$pid"
	top_exited $((128 + 15))
}

# shellcheck disable=SC2016 # wait_pane evaluates its conditions later, $F the pane's text
@test "top under tmux: Ctrl-C (SIGINT) restores the terminal" {
	start_top
	wait_pane 'grep -q "^UPLINKS" "$F"'
	[[ $(pane_state '#{alternate_on}') == 1 ]]
	tm send-keys -t top C-c
	top_exited $((128 + 2))
}

# Host mode: two namespaces joined by one veth pair, both ends host-mode
# instances (as tests/lab/host.bats sets them up); the peer sends
# CE-marked RoCEv2 to h0, whose NP answers with CNPs, which the peer's RP
# reacts to.
host_pair_up() {
	NH=$P-h NP=$P-p
	ip netns add "$NH"
	ip netns add "$NP"
	ip link add h0 netns "$NH" type veth peer name p0 netns "$NP"
	ip -n "$NH" addr add 10.77.0.1/24 dev h0
	ip -n "$NP" addr add 10.77.0.2/24 dev p0
	ip -n "$NH" link set h0 up
	ip -n "$NP" link set p0 up
	printf '[xdpleaf]\nmode = host\n\n[port h0]\nrate = 100G\n' >"$BATS_TEST_TMPDIR/h.conf"
	printf '[xdpleaf]\nmode = host\n\n[port p0]\nrate = 100G\n' >"$BATS_TEST_TMPDIR/p.conf"
	in_ns "$NH" "$XDPLEAF" load --config "$BATS_TEST_TMPDIR/h.conf" --instance "${P}h"
	in_ns "$NP" "$XDPLEAF" load --config "$BATS_TEST_TMPDIR/p.conf" --instance "${P}p"
}

host_pair_down() {
	[[ -n ${NH-} ]] || return 0
	in_ns "$NH" "$XDPLEAF" unload --instance "${P}h" >/dev/null 2>&1 || true
	in_ns "$NP" "$XDPLEAF" unload --instance "${P}p" >/dev/null 2>&1 || true
	ip netns del "$NH" 2>/dev/null || true
	ip netns del "$NP" 2>/dev/null || true
	NH='' NP=''
}

@test "top --once in host mode: DCQCN per second, the peer's RP flow, h0's NP flow" {
	local hmac before tries=100
	host_pair_up
	hmac=$(ip -n "$NH" -j link show h0 | jq -r '.[0].address')
	# CE-marked sends from the peer, fed to its RP (--rate-map), bounded
	nsenter --net="/run/netns/$NP" -- timeout 60 "$XDPLEAF" gen --dev p0 --dst 10.77.0.1 \
		--gw-mac "$hmac" --afpacket --ecn ce --qp-base 0x100 --rate 20M --duration 50s \
		--rate-map "/sys/fs/bpf/xdpleaf/${P}p/rp_rates" </dev/null >/dev/null 2>&1 3>&- &
	TRAFFIC_PID=$!
	# until h0's NP has seen CE-marked packets arrive
	until (($(in_ns "$NH" "$XDPLEAF" stats --json --instance "${P}h" | jq .counters.ce_seen) > 100)) ||
		((tries-- == 0)); do
		sleep 0.05
	done
	run in_ns "$NH" "$XDPLEAF" top --once --interval 500 --instance "${P}h"
	echo "$output"
	[[ $status -eq 0 ]]
	grep -q "instance ${P}h   host mode" <<<"$output"
	for section in DCQCN "RP FLOWS" "NP FLOWS" "RECENT EVENTS"; do
		grep -q "^$section" <<<"$output"
	done
	# the counters' row: CE seen and CNPs sent per second, both above 0
	awk '/^DCQCN/ { getline; getline; exit !($1 > 0 && $2 > 0) }' <<<"$output"
	# h0's NP flow: the peer, its QP, CE/s above 0
	grep -qE '^10\.77\.0\.2 +0x000100 +[1-9][0-9]* ' <<<"$output"
	# and the events the NP wrote for the CNPs it sent
	grep -qE '^  per second: .*cnp_sent [1-9]' <<<"$output"

	run in_ns "$NP" "$XDPLEAF" top --once --interval 500 --instance "${P}p"
	stop_traffic
	echo "$output"
	[[ $status -eq 0 ]]
	# CNPs received per second above 0
	awk '/^DCQCN/ { getline; getline; exit !($4 > 0) }' <<<"$output"
	# the peer's RP flow toward h0: sending (Mbit/s above 0), Rc cut below
	# the line rate by the CNPs
	grep -E '^10\.77\.0\.1 +0x000100 ' <<<"$output" |
		awk '{ exit !($3 > 0 && $4 < 100) }'
	grep -qE '^  per second: .*cnp_received [1-9]' <<<"$output"
	note "host mode (the peer's side):"
	while IFS= read -r l; do note "  $l"; done <<<"$output"
}
