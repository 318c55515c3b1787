# Shared helpers for the lab tests. Loaded with `load helpers`.
# shellcheck disable=SC2034 # LAB, CONF are used by the .bats files

# A negated check inside a test is written `! cmd || false`: bats runs
# tests under `set -e`, which ignores a `!` command's status, so a bare
# `! cmd` fails the test only as its last line.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
LAB=$ROOT/lab/lab.sh
XDPLEAF=$ROOT/build/xdpleaf
CONF=$ROOT/lab/leaf1.conf

# Why lab tests cannot run here, or nothing when they can.
lab_unavailable() {
	if [[ $EUID -ne 0 ]]; then
		echo "lab tests need root"
		return 0
	fi
	if [[ ! -x $XDPLEAF ]]; then
		echo "build/xdpleaf not built (run make)"
		return 0
	fi
	local tool
	for tool in ip ethtool iperf3 jq ping nsenter bpftool ss; do
		if ! command -v "$tool" >/dev/null; then
			echo "$tool not installed (make deps)"
			return 0
		fi
	done
}

# Skip this test unless lab tests can run. Call it from setup(): bats 1.8
# cannot skip from setup_file (it reports "setup_file failed"), so files
# with a setup_file record lab_unavailable in LAB_SKIP there and return.
require_lab() {
	local why=${LAB_SKIP-$(lab_unavailable)}
	if [[ -n $why ]]; then
		skip "$why"
	fi
}

# in_ns, ensure_bpffs, lab_warm_up, the lab's addresses
# shellcheck source=lab/lib.sh
source "$ROOT/lab/lib.sh"

# Capture on interface $2 of namespace $1 into file $5, BPF filter $4,
# until $3 packets arrived (or 60 s passed), in the background (CAP_PID);
# returns once dumpcap captures (it says so). dumpcap, tshark's capture
# engine, starts in a moment even on a busy machine; read the file with
# tshark.
start_dumpcap() { # ns interface count filter file
	local err=$BATS_TEST_TMPDIR/dumpcap.err tries=600
	# nsenter execs timeout: $! is a process, not a subshell around it
	nsenter --net="/run/netns/$1" -- timeout 60 dumpcap -q -i "$2" -c "$3" -f "$4" -w "$5" \
		</dev/null >/dev/null 2>"$err" 3>&- &
	CAP_PID=$!
	while ! grep -q Capturing "$err" && ((tries-- > 0)); do sleep 0.05; done
}

# `xdpleaf sink` in namespace $RX on its eth0 with the given options, its
# JSON to $SINK_OUT, stderr to $SINK_ERR; returns once it says it is
# ready (up to 5 s). nsenter execs the sink, so $SINK_PID is the sink
# itself (in_ns, a shell function, would put a subshell in between that a
# signal would hit).
start_sink() {
	SINK_OUT=$BATS_TEST_TMPDIR/sink.json
	SINK_ERR=$BATS_TEST_TMPDIR/sink.err
	# the background job truncates them only once it runs: a previous
	# sink's "ready" must not be read as this one's
	rm -f "$SINK_OUT" "$SINK_ERR"
	nsenter --net="/run/netns/$RX" -- "$XDPLEAF" sink --dev eth0 --json "$@" \
		>"$SINK_OUT" 2>"$SINK_ERR" 3>&- &
	SINK_PID=$!
	local tries=50
	while ((tries-- > 0)); do
		grep -qs 'ready' "$SINK_ERR" && return 0
		kill -0 "$SINK_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "sink did not get ready:" >&2
	cat "$SINK_ERR" >&2
	return 1
}

# RoCE frames an `xdpleaf sink` on NS's DEV consumed so far: its XDP
# drops, summed over the veth's queues. What a test waits for before
# stopping the sink, rather than DEV's received packets: those also count
# what the host's kernel receives (neighbour probes and the like: r1 got
# 34 packets in 51 s of an idle lab), and a wait for N received packets
# stopped the sink with the last frame still on its way (1 of 10^6
# "lost" once, with no drop anywhere).
sink_consumed() { # ns dev
	ip netns exec "$1" ethtool -S "$2" |
		awk '$1 ~ /^rx_queue_[0-9]+_xdp_drops:$/ { s += $2 } END { print s + 0 }'
}

# Wait until that sink has consumed N frames more than BASE, at most 10 s
# (the caller's assertions then say what is missing).
wait_sink_consumed() { # ns dev base n
	local tries=200
	while (($(sink_consumed "$1" "$2") - $3 < $4)) && ((tries-- > 0)); do
		sleep 0.05
	done
}

# Wait for the sink started last to finish; fail if it failed.
wait_sink() {
	local rc=0
	wait "$SINK_PID" || rc=$?
	SINK_PID=
	if ((rc != 0)); then
		cat "$SINK_ERR" >&2
		return 1
	fi
}

# Stop the sink started last (SIGTERM: it prints its counts) and wait.
stop_sink() {
	kill -TERM "$SINK_PID"
	wait_sink
}

# From teardown: stop what a failed test left running in the background,
# given the names of the variables holding the pids (CAP_PID SINK_PID):
# those processes only.
kill_left_running() {
	local v
	for v in "$@"; do
		[[ -n ${!v-} ]] || continue
		kill "${!v}" 2>/dev/null || true
		wait "${!v}" 2>/dev/null || true
	done
}

# Print to the bats TAP stream so numbers show up in `make test` output.
note() {
	echo "# $*" >&3
}

# leaf1's counters of lab $1 as JSON.
stats_json() {
	in_ns "$1-leaf1" "$XDPLEAF" stats --json --instance "$1"
}

# jq over a JSON string: jqv JSON FILTER
jqv() {
	jq -r "$2" <<<"$1"
}

# Fill neighbour tables before measuring (lab/lib.sh), IPv4 and IPv6.
warm_up() {
	lab_warm_up "$1" 46
}

# lab_up_ready P [lab.sh up options]: a lab of prefix P up, its hosts'
# neighbours resolved and, in xdp mode, learned by the daemon.
lab_up_ready() {
	"$LAB" up --prefix "$@" 3>&-
	warm_up "$1"
	wait_neigh_learned "$1"
}

# In xdp mode, wait (up to ~5 s) until xdpleaf's daemon has learned the
# neighbours warm_up resolved; a warning, not a failure, if it has not.
wait_neigh_learned() {
	lab_wait_neigh "$1" || echo "warning: xdpleaf neigh did not list all neighbours" >&2
	return 0
}

# Start a persistent iperf3 server in namespace $1; its pid file goes to
# $BATS_FILE_TMPDIR so teardown can stop exactly that process. fd 3 must be
# closed or bats would wait for the daemon to exit.
start_iperf_server() {
	local ns=$1 pidfile=$BATS_FILE_TMPDIR/iperf-$1.pid tries=50
	in_ns "$ns" iperf3 -s -D -I "$pidfile" </dev/null >/dev/null 2>&1 3>&-
	while ((tries-- > 0)); do
		[[ -n $(in_ns "$ns" ss -Hltn 'sport = :5201') ]] && return 0
		sleep 0.1
	done
	echo "iperf3 server in $ns not listening" >&2
	return 1
}

stop_iperf_servers() {
	local f pid
	for f in "$BATS_FILE_TMPDIR"/iperf-*.pid; do
		[[ -e $f ]] || continue
		pid=$(<"$f")
		if [[ -n $pid ]]; then
			kill "$pid" 2>/dev/null || true
		fi
		rm -f "$f"
	done
}

# Interfaces of namespace $1 that have an XDP program attached.
xdp_links() {
	ip -n "$1" -j link show | jq -r '.[] | select(.xdp != null) | .ifname'
}

# The kernel's tcx links (link type 11; bpftool 7.1 has no name for it)
# that run program id $1: a leaf at tc has one per port.
tcx_links_of() {
	bpftool -j link show | jq --argjson id "$1" '[.[] | select(.type == 11 and .prog_id == $id)] | length'
}

# conf_at_xdp [FILE]: FILE (default $CONF) with `hook = xdp`, for what only
# XDP has (XDP holders, frame-by-frame counts); prints the copy's path.
conf_at_xdp() {
	local f=${1:-$CONF} out
	out=$(mktemp "$BATS_TEST_TMPDIR/at-xdp.XXXXXX")
	conf_with_hook "$f" xdp >"$out"
	echo "$out"
}

# Take spine $2's link toward leaf1 (its interface `down`) down in lab $1,
# and up again: the spine loses its routes through that interface with the
# link (routes back to leaf1's hosts), so they are saved first and put
# back once it is up (as neigh.bats does by hand).
spine_link_down() {
	spine_save_routes "$@"
	spine_link_set_down "$@"
}

# The two halves of spine_link_down, for a test that times the second.
spine_save_routes() {
	ip -n "$1-sp$2" route show dev down proto boot >"$BATS_TEST_TMPDIR/sp$2.routes4"
	ip -n "$1-sp$2" -6 route show dev down proto boot >"$BATS_TEST_TMPDIR/sp$2.routes6"
	in_ns "$1-sp$2" sysctl -qw net.ipv6.conf.down.keep_addr_on_down=1
}
spine_link_set_down() {
	ip -n "$1-sp$2" link set dev down down
}

spine_link_up() {
	local rt
	ip -n "$1-sp$2" link set dev down up
	while read -r -a rt; do
		((${#rt[@]} == 0)) || ip -n "$1-sp$2" route replace "${rt[@]}" dev down
	done <"$BATS_TEST_TMPDIR/sp$2.routes4"
	while read -r -a rt; do
		((${#rt[@]} == 0)) || ip -n "$1-sp$2" -6 route replace "${rt[@]}" dev down
	done <"$BATS_TEST_TMPDIR/sp$2.routes6"
}

# poll CMD...: true once CMD succeeds, tried for up to 10 s.
poll() {
	local tries=100
	until "$@"; do
		((--tries > 0)) || return 1
		sleep 0.1
	done
}
