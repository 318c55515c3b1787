#!/usr/bin/env bats
# Incast through an emulated 1 Gb/s port: 4 senders send ECT(0) UDP at
# full speed to r1, whose port on leaf2 (running xdpleaf) has rate = 1G and
# a 200 KB buffer. The phantom queue must cap what r1 receives at the line
# rate, mark, drop past the buffer and fill its histogram; with no rate the
# same port is unlimited.

load helpers

# Offered load: 4 x 600 Mbit/s of 1400-byte UDP payloads, DSCP 26 + ECT(0).
OFFER=600M
PAYLOAD=1400
TOS=0x6a
SECONDS_RUN=6

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$e" PU="xlt$$u"
	export L2CONF=$BATS_FILE_TMPDIR/leaf2-1g.conf
	# scripts/leaf2.conf with r1 limited to 1 Gb/s and a 200 KB buffer.
	sed '/^\[port r1\]/,/^role/ s/^role = downlink/role = downlink\nrate = 1G\nbuffer = 200K/' \
		"$ROOT/scripts/leaf2.conf" >"$L2CONF"
	grep -q '^rate = 1G' "$L2CONF"
}

setup() {
	require_lab
}

teardown() {
	stop_iperf_servers
	"$LAB" down --prefix "$P" 3>&- || true
	"$LAB" down --prefix "$PU" 3>&- || true
}

rx_bytes() { # namespace interface
	ip -n "$1" -s -j link show "$2" | jq '.[0].stats64.rx.bytes'
}

now_ns() { date +%s%N; }

# Incast from s1..s4 into r1 of lab $1 for SECONDS_RUN s. Prints the rate
# r1 received (bit/s) over the middle of the run, from its interface
# counters, leaving out the first and last second.
incast() {
	local p=$1 n pids=() b0 t0 b1 t1
	for n in 1 2 3 4; do
		in_ns "$p-r1" iperf3 -s -D -p "520$n" -I "$BATS_FILE_TMPDIR/iperf-$p-r1-$n.pid" \
			</dev/null >/dev/null 2>&1 3>&-
	done
	for n in 1 2 3 4; do
		wait_listen "$p-r1" "520$n"
		in_ns "$p-s$n" ping -q -c1 -W2 10.2.1.2 >/dev/null
	done
	# Count CE-marked packets arriving at r1 during the run (BPF filter:
	# the ECN bits of the IPv4 TOS byte are 11).
	in_ns "$p-r1" timeout $((SECONDS_RUN - 1)) tshark -q -i eth0 -f 'udp and ip[1] & 3 = 3' \
		-w "$BATS_FILE_TMPDIR/ce-$p.pcap" </dev/null >/dev/null 2>&1 3>&- &
	local cap=$!
	for n in 1 2 3 4; do
		in_ns "$p-s$n" iperf3 -u -c 10.2.1.2 -p "520$n" -b "$OFFER" -l "$PAYLOAD" \
			-S "$TOS" -t "$SECONDS_RUN" >/dev/null 2>&1 3>&- &
		pids+=($!)
	done
	sleep 1 # into the steady state: this is a measurement window, not a sync
	b0=$(rx_bytes "$p-r1" eth0) t0=$(now_ns)
	sleep $((SECONDS_RUN - 2))
	b1=$(rx_bytes "$p-r1" eth0) t1=$(now_ns)
	wait "${pids[@]}"
	# bit/s = bytes * 8 / seconds, in ms so the product stays in 64 bits
	echo $(((b1 - b0) * 8000 / ((t1 - t0) / 1000000)))
}

wait_listen() { # namespace port
	local tries=50
	while ((tries-- > 0)); do
		[[ -n $(in_ns "$1" ss -Hlun "sport = :$2") ]] && return 0
		sleep 0.1
	done
	return 1
}

r1_queue() { # lab prefix -> leaf2's r1 queue JSON
	in_ns "$1-leaf2" "$XDPLEAF" stats --json --instance "${1}_leaf2" |
		jq '.ports[] | select(.name == "r1") | .queue'
}

@test "incast into a 1 Gb/s port: delivered <= line rate, marks, drops, histogram" {
	"$LAB" up --prefix "$P" --leaf2-config "$L2CONF" 3>&-
	local bps q marked dropped packets buckets
	bps=$(incast "$P")
	q=$(r1_queue "$P")
	packets=$(jq .packets <<<"$q")
	marked=$(jq .marked <<<"$q")
	dropped=$(jq .dropped <<<"$q")
	buckets=$(jq '[.hist[] | select(. > 0)] | length' <<<"$q")
	note "incast 4 x $OFFER into r1 @ 1G/200K: delivered $((bps / 1000000)) Mbit/s," \
		"packets $packets, marked $marked ($(jq -r '.marked * 10000 / .packets | floor / 100' <<<"$q")%)," \
		"dropped $dropped ($(jq -r '.dropped * 10000 / .packets | floor / 100' <<<"$q")%)," \
		"peak $(jq .peak_bytes <<<"$q") B, histogram buckets used $buckets"
	note "histogram (queue bytes at enqueue, log2): $(jq -c .hist <<<"$q")"
	# Within 5 % of the line rate, and not far below it (it is saturated).
	((bps <= 1050000000)) || { echo "delivered $bps > 1.05 Gb/s"; return 1; }
	((bps >= 900000000)) || { echo "delivered $bps < 0.9 Gb/s: not saturated?"; return 1; }
	((marked > 0)) || { echo "nothing marked"; return 1; }
	local ce
	ce=$(tshark -r "$BATS_FILE_TMPDIR/ce-$P.pcap" 2>/dev/null | wc -l)
	note "r1 captured $ce CE-marked packets"
	((ce > 0)) || { echo "no CE-marked packet reached r1"; return 1; }
	((dropped > 0)) || { echo "nothing dropped past the buffer"; return 1; }
	((buckets >= 3)) || { echo "histogram too empty: $q"; return 1; }
	# Seen at enqueue, before the packet: never past the buffer.
	(($(jq .peak_bytes <<<"$q") <= 204800)) || { echo "peak past the buffer: $q"; return 1; }
}

@test "the same incast with no rate on r1: the port is unlimited" {
	"$LAB" up --prefix "$PU" --leaf2-config "$ROOT/scripts/leaf2.conf" 3>&-
	local bps
	bps=$(incast "$PU")
	note "incast 4 x $OFFER into unlimited r1: delivered $((bps / 1000000)) Mbit/s"
	[[ $(r1_queue "$PU") == null ]]
	((bps > 1500000000)) || { echo "delivered only $bps with no rate set"; return 1; }
}
