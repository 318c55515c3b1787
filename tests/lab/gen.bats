#!/usr/bin/env bats
# `xdpleaf gen` into `xdpleaf sink` across one veth pair between two
# throwaway namespaces (P-tx eth0 10.9.0.1 / fd00:9::1 -- P-rx eth0
# 10.9.0.2 / fd00:9::2): paced QPs arrive complete and in order, full speed
# is faster than the AF_PACKET baseline measured in the same run, the
# packets decode as RoCEv2 with a correct ICRC (scapy, tshark), gen says
# when it cannot reach the rate it was asked for, and the sink leaves
# nothing attached however it ends. No assertion depends on how fast this
# machine is: rates are compared with what gen reports it sent.

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

FRAME=1082 # 1024-byte payload: 14 + 20 + 8 + 12 + 1024 + 4

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	for tool in tshark /usr/bin/python3; do
		command -v "$tool" >/dev/null || { LAB_SKIP="$tool not installed (make deps)"; return 0; }
	done
	export P="xlt$$g"
	export TX="$P-tx" RX="$P-rx"
	ip netns add "$TX"
	ip netns add "$RX"
	# no DAD, also on the link-local addresses: ND works at once
	local ns
	for ns in "$TX" "$RX"; do
		in_ns "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip link add eth0 netns "$TX" type veth peer name eth0 netns "$RX"
	ip -n "$TX" addr add 10.9.0.1/24 dev eth0
	ip -n "$RX" addr add 10.9.0.2/24 dev eth0
	ip -n "$TX" addr add fd00:9::1/64 dev eth0 nodad
	ip -n "$RX" addr add fd00:9::2/64 dev eth0 nodad
	for ns in "$TX" "$RX"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
	done
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	ip netns del "$P-tx" 2>/dev/null || true
	ip netns del "$P-rx" 2>/dev/null || true
}

setup() {
	require_lab
}

teardown() {
	kill_left_running CAP_PID SINK_PID
}

gen() {
	in_ns "$TX" "$XDPLEAF" gen --dev eth0 "$@"
}

rx_has_xdp() {
	[[ -n $(ip -n "$RX" -j link show eth0 | jq -r '.[0].xdp // empty') ]]
}

@test "gen: 4 QPs at 200 Mbit/s for 1 s arrive complete, in order, never above the rate" {
	start_sink --duration 4s
	local g
	g=$(gen --dst 10.9.0.2 --qps 4 --rate 200M --duration 1s --json)
	wait_sink
	local s
	s=$(<"$SINK_OUT")
	echo "$g"
	echo "$s"
	# 200e6 bit/s / (1082 * 8) bit per frame * 1 s
	local want=$((200000000 / (FRAME * 8)))
	local short
	short=$(jqv "$g" '.rate_shortfall')
	[[ $(jqv "$g" '.asked_bps') == 800000000 ]]
	[[ $(jqv "$s" '.qps | length') -eq 4 ]]
	local i qp n lost reord dup first last gp
	for i in 0 1 2 3; do
		qp=$(jqv "$s" ".qps[$i].qp")
		[[ $qp -eq $((0x100 + i)) ]]
		[[ $(jqv "$s" ".qps[$i].sport") -eq $((49152 + i)) ]]
		[[ $(jqv "$s" ".qps[$i].src") == 10.9.0.1 ]]
		n=$(jqv "$s" ".qps[$i].packets")
		lost=$(jqv "$s" ".qps[$i].lost")
		reord=$(jqv "$s" ".qps[$i].reordered")
		dup=$(jqv "$s" ".qps[$i].duplicates")
		first=$(jqv "$s" ".qps[$i].first_psn")
		last=$(jqv "$s" ".qps[$i].last_psn")
		gp=$(jqv "$g" ".qps[$i].packets")
		note "QP $qp: $n packets (rate: $want), lost $lost, reordered $reord, PSN $first..$last"
		# pacing never exceeds the rate; and reaching it is gen's to
		# report: either within 5 % or flagged as a shortfall
		((n * 100 <= want * 103))
		((n * 100 >= want * 95)) || [[ $short == true ]]
		((lost == 0 && reord == 0 && dup == 0))
		# consecutive PSNs: from 0, one per packet
		((first == 0 && last == n - 1))
		# and everything gen sent arrived
		((gp == n))
		[[ $(jqv "$s" ".qps[$i].bytes") -eq $((n * FRAME)) ]]
	done
}

@test "gen: asked for more than it can reach, it says so (stderr and --json)" {
	start_sink --duration 4s
	# 4 x 100 Gbit/s of 1082-byte frames is 46 Mpps: far past any
	# software sender
	run --separate-stderr gen --dst 10.9.0.2 --qps 4 --rate 100G --duration 300ms --json
	wait_sink
	[[ $status -eq 0 ]]
	echo "$stderr"
	[[ $stderr == *"warning: reached"*"short of the 4e+11 bit/s asked for"* ]]
	[[ $(jqv "$output" '.rate_shortfall') == true ]]
	[[ $(jqv "$output" '.asked_bps') == 400000000000 ]]
	# without --rate nothing was asked: no warning
	start_sink --duration 4s
	run --separate-stderr gen --dst 10.9.0.2 --qps 1 --count 1000 --json
	wait_sink
	[[ $status -eq 0 && $stderr != *warning* ]]
	[[ $(jqv "$output" '.asked_bps') == null ]]
}

@test "gen: live frames at full speed beat the AF_PACKET baseline of the same run (counted by the sink)" {
	local g a s secs sent got pps apps
	start_sink --duration 5s
	g=$(gen --dst 10.9.0.2 --qps 4 --duration 1s --json)
	wait_sink
	s=$(<"$SINK_OUT")
	secs=$(jqv "$g" '.seconds')
	sent=$(jqv "$g" '.packets')
	got=$(jqv "$s" '.total.packets')
	pps=$(jq -n "$got / $secs | floor")
	start_sink --duration 5s
	a=$(gen --dst 10.9.0.2 --qps 4 --duration 1s --afpacket --json)
	wait_sink
	apps=$(jq -n "$(jqv "$(<"$SINK_OUT")" '.total.packets') / $(jqv "$a" '.seconds') | floor")
	note "live frames: gen sent $sent in $secs s, sink counted $got: $pps pps," \
		"$(jq -n "$got * $FRAME * 8 / $secs / 1e9 * 10 | floor / 10") Gbit/s;" \
		"lost $(jqv "$s" '.total.lost'), reordered $(jqv "$s" '.total.reordered');" \
		"AF_PACKET $apps pps (x$(jq -n "$pps / $apps * 10 | floor / 10"))"
	((apps > 0))
	((pps > 2 * apps))
	# the sink kept up: it saw what gen sent, in order
	((got * 1000 >= sent * 999))
	[[ $(jqv "$s" '.total.reordered') -eq 0 ]]
	[[ $(jqv "$s" '.total.malformed') -eq 0 ]]
}

# Capture what gen sends to RX (sink --pass lets RoCE up the stack): the
# capture stops after the N packets gen sends.
capture() { # file N gen-args...
	local pcap=$1 n=$2
	shift 2
	start_sink --pass --duration 90s
	start_dumpcap "$RX" eth0 "$n" 'udp port 4791' "$pcap"
	gen --count "$n" "$@" >/dev/null
	wait "$CAP_PID" || true
	CAP_PID=
	kill -TERM "$SINK_PID"
	wait_sink
}

@test "gen: IPv4 SEND_ONLY decodes as RoCEv2 (tshark, scapy) with a correct ICRC" {
	local pcap=$BATS_TEST_TMPDIR/v4.pcap
	capture "$pcap" 20 --dst 10.9.0.2 --qps 2 --dscp 26 --ecn ect0
	local f
	f=$(tshark -r "$pcap" -o ip.check_checksum:TRUE -Y infiniband -T fields \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e ip.dsfield.dscp -e ip.dsfield.ecn -e ip.ttl -e ip.flags.df \
		-e ip.checksum.status -e udp.srcport 2>/dev/null)
	echo "$f"
	[[ $(wc -l <<<"$f") -eq 20 ]]
	# first packet: SEND_ONLY (4) to QP 0x100, PSN 0, DSCP 26, ECT(0),
	# TTL 64, DF, good IP checksum, source port 49152
	[[ $(head -1 <<<"$f") == $'4\t0x000100\t0\t26\t2\t64\t1\t1\t49152' ]]
	[[ $(grep -c $'^4\t0x000101\t' <<<"$f") -eq 10 ]]
	local c
	c=$(/usr/bin/python3 "$ROOT/tests/lab/roce_check.py" "$pcap")
	echo "$c"
	[[ $(wc -l <<<"$c") -eq 20 ]]
	! grep -q '"icrc_ok": false' <<<"$c" || false
	! grep -q '_csum_ok": false' <<<"$c" || false
	note "scapy: 20 IPv4 packets, ICRC correct in all"
}

@test "gen: IPv6 RDMA WRITE messages: FIRST/MIDDLE/LAST, RETH, ICRC and UDP checksum" {
	local pcap=$BATS_TEST_TMPDIR/v6.pcap
	# 2 QPs, 2500-byte messages of 1024-byte packets: WRITE_FIRST (with
	# RETH), WRITE_MIDDLE, WRITE_LAST (452 bytes + pad)
	capture "$pcap" 12 --dst fd00:9::2 --qps 2 --opcode write --message 2500
	local f
	f=$(tshark -r "$pcap" -Y infiniband -T fields -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e infiniband.bth.psn -e frame.len 2>/dev/null)
	echo "$f"
	[[ $(wc -l <<<"$f") -eq 12 ]]
	# QP 0x100's packets, in order: FIRST 6, MIDDLE 7, LAST 8, FIRST 6 ...
	[[ $(grep $'\t0x000100\t' <<<"$f" | cut -f1 | tr '\n' ' ') == "6 7 8 6 7 8 " ]]
	[[ $(grep $'\t0x000100\t' <<<"$f" | cut -f3 | tr '\n' ' ') == "0 1 2 3 4 5 " ]]
	# FIRST: 14 + 40 + 8 + 12 + 16 + 1024 + 4; LAST: 452 payload
	[[ $(grep $'^6\t0x000100\t0\t' <<<"$f" | cut -f4) -eq 1118 ]]
	[[ $(grep $'^8\t0x000100\t2\t' <<<"$f" | cut -f4) -eq $((14 + 40 + 8 + 12 + 452 + 4)) ]]
	local c
	c=$(/usr/bin/python3 "$ROOT/tests/lab/roce_check.py" "$pcap")
	echo "$c"
	[[ $(wc -l <<<"$c") -eq 12 ]]
	! grep -q '"icrc_ok": false' <<<"$c" || false
	! grep -q '"udp_csum_ok": false' <<<"$c" || false
}

@test "gen: IPv6 QPs counted by the sink, exact --count" {
	start_sink --duration 3s
	local g
	g=$(gen --dst fd00:9::2 --qps 3 --qp-base 0x2000 --sport-base 60000 --count 3000 --json)
	wait_sink
	local s
	s=$(<"$SINK_OUT")
	[[ $(jqv "$g" '.packets') -eq 3000 ]]
	[[ $(jqv "$s" '.qps | length') -eq 3 ]]
	[[ $(jqv "$s" '[.qps[] | select(.src == "fd00:9::1" and .packets == 1000 and .lost == 0)] | length') -eq 3 ]]
	[[ $(jqv "$s" '.qps[2].qp') -eq $((0x2002)) ]]
	[[ $(jqv "$s" '.qps[2].sport') -eq 60002 ]]
}

@test "gen: nccl pattern sends messages with gaps, seeded" {
	start_sink --duration 3s
	local g
	g=$(gen --dst 10.9.0.2 --qps 2 --pattern nccl --message 64K --gap fixed:2ms \
		--rate 1G --duration 500ms --seed 5 --json)
	wait_sink
	local s msgs
	s=$(<"$SINK_OUT")
	echo "$g"
	# a 64K message is 64 packets at 1 Gbit/s: 0.55 ms, then 2 ms idle
	msgs=$(jqv "$g" '.qps[0].messages')
	note "nccl: QP 0x100 sent $msgs messages in 0.5 s (at most 196: 0.5 s / 2.55 ms)"
	# never more than the gaps allow; at least half of it, a floor any
	# sender that keeps a 2 ms schedule at all clears
	((msgs >= 98 && msgs <= 197))
	# every message is 64 packets (the last may be cut by --duration)
	local pk
	pk=$(jqv "$g" '.qps[0].packets')
	((pk >= msgs * 64 && pk < (msgs + 1) * 64))
	# with --seed the PSNs start at random, still consecutive at the sink
	[[ $(jqv "$s" '.total.lost') -eq 0 ]]
	[[ $(jqv "$g" '.qps[0].first_psn') -eq $(jqv "$s" '.qps[0].first_psn') ]]
}

@test "gen: steps pattern sends a message per QP per line read, reports each step, ends at EOF" {
	start_sink --duration 5s
	local out steps
	# 64K messages: 64 packets per QP per step, at 100 Mbit/s per QP
	out=$(printf '\n\n\n' | gen --dst 10.9.0.2 --qps 2 --pattern steps --message 64K \
		--rate 100M --json)
	wait_sink
	steps=$(jq -c 'select(has("step"))' <<<"$out")
	echo "$steps"
	[[ $(jq -s 'length' <<<"$steps") -eq 3 ]]
	jq -se '[.[].step] == [1, 2, 3]' <<<"$steps"
	jq -se 'all(.packets == 128 and .bytes == 128 * '"$FRAME"')' <<<"$steps"
	# paced: a QP's 64 packets are 63 spacings of 1082 bytes at 100 Mbit/s
	# after its first (a lower bound: no machine is too fast for it)
	jq -se 'all(.end_ns - .start_ns >= 63 * '"$FRAME"' * 8 * 10)' <<<"$steps"
	# a step starts after the previous one ended: one at a time
	jq -se '.[1].start_ns >= .[0].end_ns and .[2].start_ns >= .[1].end_ns' <<<"$steps"
	# the summary after EOF: three steps and nothing more
	jq -se 'map(select(.kind == "gen")) | .[0] | .steps == 3 and .packets == 384' <<<"$out"
	jq -e '.total.packets == 384 and .total.lost == 0' "$SINK_OUT"
	# no line at all: no step, nothing sent
	out=$(gen --dst 10.9.0.2 --pattern steps --json </dev/null)
	jq -e '.steps == 0 and .packets == 0' <<<"$out"
}

@test "sink: detaches on SIGTERM (prints its counts) and when killed with SIGKILL" {
	start_sink
	rx_has_xdp
	kill -TERM "$SINK_PID"
	wait_sink
	! rx_has_xdp || false
	jq -e '.total.packets == 0' "$SINK_OUT"
	# SIGKILL: the link is not pinned, so it dies with the process
	start_sink
	rx_has_xdp
	kill -KILL "$SINK_PID"
	wait "$SINK_PID" || true
	SINK_PID=
	local tries=20
	while rx_has_xdp && ((tries-- > 0)); do sleep 0.1; done
	! rx_has_xdp || false
	# and gen leaves no anchor device behind
	# shellcheck disable=SC2143 # [[ -z ]] fails the test wherever it stands; a bare ! grep would not
	[[ -z $(ip -n "$TX" -j link show | jq -r '.[].ifname' | grep '^xlgen') ]]
}

@test "gen, sink: bad options, missing interface, no privileges, unresolved neighbour" {
	run --separate-stderr gen --dst 10.9.0.2 --qps 0
	[[ $status -eq 2 && $stderr == *"--qps"* ]]
	run --separate-stderr gen --dst 10.9.0.2 --rate fast
	[[ $status -eq 2 && $stderr == *"rate"* ]]
	run --separate-stderr gen --dst nowhere
	[[ $status -ne 0 && $stderr == *"not an IPv4 or IPv6"* ]]
	run --separate-stderr gen --dst 10.9.0.2 --gap fixed:1ms
	[[ $status -eq 2 && $stderr == *"nccl"* ]]
	run --separate-stderr in_ns "$TX" "$XDPLEAF" gen --dev nosuch0 --dst 10.9.0.2
	[[ $status -eq 1 && $stderr == *"no interface 'nosuch0'"* ]]
	run --separate-stderr in_ns "$RX" "$XDPLEAF" sink --dev nosuch0
	[[ $status -eq 1 && $stderr == *"no interface 'nosuch0'"* ]]
	run --separate-stderr in_ns "$TX" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$XDPLEAF" gen --dev eth0 --dst 10.9.0.2 --count 1
	[[ $status -eq 1 && $stderr == *"needs root"* ]]
	run --separate-stderr in_ns "$RX" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$XDPLEAF" sink --dev eth0
	[[ $status -eq 1 && $stderr == *"needs root"* ]]
	# nobody answers ARP for .77: a clear error after about 1 s
	run --separate-stderr gen --dst 10.9.0.77 --count 1
	[[ $status -eq 1 && $stderr == *"no MAC for next hop 10.9.0.77"* ]]
	# --gw-mac skips the resolution
	run --separate-stderr gen --dst 10.9.0.77 --gw-mac 02:00:00:00:00:77 --count 1
	[[ $status -eq 0 ]]
	# a second sink on the same interface is refused while one runs
	start_sink
	run --separate-stderr in_ns "$RX" "$XDPLEAF" sink --dev eth0
	[[ $status -eq 1 && $stderr == *"already has an XDP program"* ]]
	# and says what holds it: the first sink's BPF link, which
	# 'ip link set ... xdp off' cannot detach
	[[ $stderr == *"xdpleaf_sink"*"BPF link"*"cannot detach"* ]]
}
