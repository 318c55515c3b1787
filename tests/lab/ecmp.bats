#!/usr/bin/env bats
# The lab's kernel ECMP, the baseline every benchmark compares xdpleaf
# with, must hash a TCP connection once, as a switch hashing the 5-tuple
# does. A router namespace's ECMP takes the hash the sending socket gave
# the packet (the veths carry it), and Linux draws that hash anew after an
# RTO (net.core.txrehash): left so, a connection that times out moves to
# another uplink, which no IPv4 switch can make it do. lab.sh sets the
# hosts' txrehash to 0 unless --host-repath (lab/lab.sh, host_hash;
# docs/lab.md).
#
# Both labs below stall one TCP connection's uplink (a TBF at 8 kbit/s on
# leaf1's port: nearly everything dropped) for STALL_S seconds with the
# sender's minimum RTO at 5 ms, so the connection times out several
# times; what is asserted is where its packets went meanwhile, counted in
# packets, not rates: the other uplinks carry next to nothing while the
# connection stays (a few neighbour probes), thousands once it moved.

load helpers

STALL_S=0.6
# packets the other three uplinks may carry in the stall without the
# connection: ARP/ND and iperf3's control connection, a handful
OTHERS_MAX=50
# packets that show the connection running on another uplink: its
# timeouts over a stall of 0.6 s leave it ~0.3 s there, at veth speed
MOVED_MIN=500

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	if [[ -n $LAB_SKIP ]]; then
		return 0
	fi
	command -v nstat >/dev/null || LAB_SKIP="nstat not installed (make deps)"
	export P1="xlt$$h" P2="xlt$$p"
}

setup() {
	require_lab
}

teardown() {
	kill_left_running IPERF
	stop_iperf_servers
	"$LAB" down --prefix "$P1" 3>&-
	"$LAB" down --prefix "$P2" 3>&-
}

# packets leaf1's u1..u4 of lab $1 sent, in that order, from one dump
uplinks_tx() {
	ip -n "$1-leaf1" -s -j link show | jq -r \
		'[.[] | select(.ifname | test("^u[1-4]$"))] | sort_by(.ifname) | map(.stats64.tx.packets) | join(" ")'
}

# one TcpExt counter of host $2 of lab $1, without touching nstat's history
tcp_counter() {
	in_ns "$1-$2" nstat -asz "$3" | awk -v c="$3" '$1 == c { print $2 }'
}

# Lab $1 (up): a TCP connection s1 -> r1, its uplink stalled for STALL_S.
# Sets UPLINK (the connection's), OTHERS (packets the other uplinks sent
# in the stall), STALLED (packets the stalled uplink's TBF dropped) and
# TIMEOUTS (s1's RTOs in the stall).
stall_connection() {
	local p=$1 n tries=100 busiest=0 t0 a b d
	in_ns "$p-s1" sysctl -qw net.ipv4.tcp_rto_min_us=5000
	start_iperf_server "$p-r1"
	in_ns "$p-s1" timeout 30 iperf3 -c 10.2.1.2 -t 5 </dev/null >/dev/null 2>&1 3>&- &
	# shellcheck disable=SC2034 # teardown kills it by name (kill_left_running IPERF)
	IPERF=$!
	read -r -a a < <(uplinks_tx "$p")
	# the connection is running once its uplink has sent a few thousand
	while read -r -a b < <(uplinks_tx "$p") &&
		((b[0] + b[1] + b[2] + b[3] - a[0] - a[1] - a[2] - a[3] <= 2000)); do
		((--tries > 0)) || { echo "iperf3 s1 -> r1 sent nothing"; return 1; }
		sleep 0.05
	done
	for n in 0 1 2 3; do
		d=$((b[n] - a[n]))
		((d <= busiest)) || { busiest=$d; UPLINK=u$((n + 1)); }
	done
	t0=$(tcp_counter "$p" s1 TcpExtTCPTimeouts)
	tc -n "$p-leaf1" qdisc replace dev "$UPLINK" root tbf rate 8kbit burst 1600 limit 1600
	read -r -a a < <(uplinks_tx "$p")
	sleep "$STALL_S" # the stall's length, not a wait for something
	read -r -a b < <(uplinks_tx "$p")
	TIMEOUTS=$(($(tcp_counter "$p" s1 TcpExtTCPTimeouts) - t0))
	STALLED=$(tc -n "$p-leaf1" -s -j qdisc show dev "$UPLINK" | jq '.[0].drops')
	tc -n "$p-leaf1" qdisc del dev "$UPLINK" root
	OTHERS=0
	for n in 0 1 2 3; do
		[[ u$((n + 1)) == "$UPLINK" ]] || OTHERS=$((OTHERS + b[n] - a[n]))
	done
	note "$p: connection on $UPLINK; in the stall s1 timed out $TIMEOUTS times, the TBF dropped $STALLED, the other uplinks sent $OTHERS packets"
}

@test "kernel ECMP: a connection keeps its uplink through its timeouts (hosts' txrehash 0)" {
	"$LAB" up --prefix "$P1" --mode kernel 3>&-
	[[ $(in_ns "$P1-s1" sysctl -n net.core.txrehash) == 0 ]]
	stall_connection "$P1"
	((TIMEOUTS >= 2)) || { echo "only $TIMEOUTS RTOs in the stall: nothing tested"; return 1; }
	((STALLED > 0))
	((OTHERS <= OTHERS_MAX)) ||
		{ echo "the other uplinks sent $OTHERS packets: the connection moved"; return 1; }
}

@test "kernel ECMP with --host-repath: the connection leaves its stalled uplink after a timeout (Linux's default)" {
	"$LAB" up --prefix "$P2" --mode kernel --host-repath 3>&-
	[[ $(in_ns "$P2-s1" sysctl -n net.core.txrehash) == 1 ]]
	stall_connection "$P2"
	((TIMEOUTS >= 1)) || { echo "no RTO in the stall: nothing tested"; return 1; }
	# each RTO draws one of 4 uplinks: staying through every one of
	# them is (1/4)^TIMEOUTS
	((OTHERS >= MOVED_MIN)) ||
		{ echo "the other uplinks sent $OTHERS packets: the connection stayed"; return 1; }
}
