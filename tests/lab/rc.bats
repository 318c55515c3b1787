#!/usr/bin/env bats
# Go-back-N between `xdpleaf gen --reliable` and `xdpleaf sink --respond`
# (docs/traffic-tools.md, "Go-back-N") across a router namespace whose
# link toward the receiver is a TBF at 20 Mbit/s with a small queue
# (P-tx eth0 10.9.1.1 -- P-r -- P-rx eth0 10.9.2.1): sent faster than that,
# frames are dropped, and every step must still arrive complete and in
# order, with every frame gen sent accounted for as received or dropped by
# the TBF. The ACK and NAK frames are decoded by scapy and tshark. No
# assertion depends on this machine's speed: the drops come from sending
# 1.5 x the link's rate, and the figures compared are counted in one run.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	for tool in tshark /usr/bin/python3 tc; do
		command -v "$tool" >/dev/null || { LAB_SKIP="$tool not installed (make deps)"; return 0; }
	done
	export P="xlt$$r"
	export TX="$P-tx" R="$P-r" RX="$P-rx"
	local ns
	for ns in "$TX" "$R" "$RX"; do
		ip netns add "$ns"
		ip -n "$ns" link set lo up
	done
	ip link add eth0 netns "$TX" type veth peer name eth0 netns "$R"
	ip link add eth0 netns "$RX" type veth peer name eth1 netns "$R"
	ip -n "$TX" addr add 10.9.1.1/24 dev eth0
	ip -n "$R" addr add 10.9.1.254/24 dev eth0
	ip -n "$R" addr add 10.9.2.254/24 dev eth1
	ip -n "$RX" addr add 10.9.2.1/24 dev eth0
	ip -n "$TX" link set eth0 up
	ip -n "$RX" link set eth0 up
	ip -n "$R" link set eth0 up
	ip -n "$R" link set eth1 up
	ip -n "$TX" route add default via 10.9.1.254
	ip -n "$RX" route add default via 10.9.2.254
	in_ns "$R" sysctl -qw net.ipv4.ip_forward=1
	# 20 Mbit/s, a queue of ~10 frames: what arrives faster is dropped
	tc -n "$R" qdisc add dev eth1 root tbf rate 20mbit burst 4kb limit 12kb
	# neighbours resolved both ways before gen asks for them
	in_ns "$TX" ping -c1 -W2 10.9.2.1 >/dev/null
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	local ns
	for ns in tx r rx; do
		ip netns del "$P-$ns" 2>/dev/null || true
	done
}

setup() {
	require_lab
}

teardown() {
	kill_left_running CAP_PID SINK_PID
}

tbf_drops() {
	tc -n "$R" -s -j qdisc show dev eth1 | jq '[.[] | select(.kind == "tbf") | .drops] | add'
}

# gen --reliable --pattern steps from TX, releasing $1 steps; the last
# JSON document (the summary) to $GEN_OUT, the step lines to $GEN_STEPS.
gen_steps() {
	local n=$1
	shift
	GEN_OUT=$BATS_TEST_TMPDIR/gen.json
	GEN_STEPS=$BATS_TEST_TMPDIR/steps.jsonl
	local all=$BATS_TEST_TMPDIR/gen.out
	yes '' | head -n "$n" | in_ns "$TX" timeout 60 "$XDPLEAF" gen --dev eth0 \
		--dst 10.9.2.1 --pattern steps --reliable --json "$@" >"$all"
	grep '^{"step"' "$all" >"$GEN_STEPS" || true
	sed -n '/^{$/,$p' "$all" >"$GEN_OUT"
}

@test "go-back-N: at 1.5 x a lossy link's rate every step arrives whole and in order; every frame sent is received or dropped" {
	start_sink --respond
	local d0 d1
	d0=$(tbf_drops)
	gen_steps 3 --qps 2 --message 256K --rate 15M --afpacket
	d1=$(tbf_drops)
	stop_sink
	local g s
	g=$(cat "$GEN_OUT")
	s=$(cat "$SINK_OUT")
	[[ $(wc -l <"$GEN_STEPS") -eq 3 ]]
	# 3 messages of 256 packets per QP, PSNs from 0: the responder expects
	# 768 next on both, nothing is missing, and gen has nothing unacknowledged
	[[ $(jqv "$s" '[.qps[] | select(.next_psn == 768)] | length') -eq 2 ]]
	# and took 3 messages on each: the resends carried the opcodes of
	# their place in the message (LAST where a message ends)
	[[ $(jqv "$s" '[.qps[] | select(.msn == 3)] | length') -eq 2 ]]
	[[ $(jqv "$s" '.total.lost') -eq 0 ]]
	[[ $(jqv "$g" '[.qps[] | select(.unacked == 0 and .next_psn == 768)] | length') -eq 2 ]]
	# losses happened and were repaired by NAKs and resends
	local sent got drops resent naks
	sent=$(jqv "$g" .packets)
	got=$(jqv "$s" .total.packets)
	drops=$((d1 - d0))
	resent=$(jqv "$g" .resent)
	naks=$(jqv "$g" .naks)
	note "gen sent $sent frames in $(jqv "$g" .seconds) s ($resent again, after $naks NAKs, $(jqv "$g" .timeouts) timeouts); sink got $got; TBF dropped $drops"
	((drops > 0 && resent > 0 && naks > 0))
	[[ $(jqv "$s" .total.naks) -ge $naks ]]
	# every frame accounted for: received, dropped by the TBF, or refused
	# by gen's own device
	((sent == got + drops + $(jqv "$g" .dev_tx_dropped)))
	# resends are marked: the sink saw them and did not take any for the
	# fabric's reordering (this path has one queue: it reorders nothing)
	(($(jqv "$s" .total.resent) > 0))
	[[ $(jqv "$s" .total.reordered) -eq 0 ]]
	[[ $(jqv "$s" .total.replies_lost) -eq 0 ]]
	# a step ends when acknowledged: its end is after its start
	(($(jq -s '[.[] | select(.end_ns > .start_ns)] | length' "$GEN_STEPS") == 3))
}

@test "go-back-N: below the link's rate nothing is sent twice" {
	start_sink --respond
	# a long ACK timeout: a sink thread that a busy machine wakes late must
	# not count as a loss here (the default, 10 ms, is for the bench)
	gen_steps 2 --qps 2 --message 128K --rate 5M --afpacket --ack-timeout 1s
	stop_sink
	local g s
	g=$(cat "$GEN_OUT")
	s=$(cat "$SINK_OUT")
	[[ $(jqv "$g" '.resent + .naks + .timeouts') -eq 0 ]]
	# an ACK per 64 PSNs: 2 steps x 128 packets / 64 per QP
	[[ $(jqv "$g" .acks) -eq 8 ]]
	[[ $(jqv "$s" .total.acks) -eq 8 ]]
	[[ $(jqv "$s" '.total.duplicates + .total.resent + .total.lost') -eq 0 ]]
}

@test "go-back-N: the ACK and NAK frames decode as RoCEv2 (tshark, scapy) with a correct ICRC" {
	local pcap=$BATS_TEST_TMPDIR/replies.pcap
	start_sink --respond
	start_dumpcap "$TX" eth0 40 'udp port 4791 and src host 10.9.2.1' "$pcap"
	gen_steps 2 --qps 1 --message 256K --rate 30M --afpacket
	wait "$CAP_PID" || true
	CAP_PID=
	stop_sink
	local f c
	f=$(tshark -r "$pcap" -o ip.check_checksum:TRUE -Y infiniband -T fields \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.aeth.syndrome \
		-e ip.dsfield.ecn -e ip.checksum.status -e udp.dstport 2>/dev/null)
	echo "$f" | sort | uniq -c
	(($(wc -l <<<"$f") >= 10))
	# every one an ACK (opcode 17) for QP 0x100, Not-ECT, good IP
	# checksum, to port 4791; both ACKs (AETH syndrome 0x1f = 31) and NAKs
	# for a PSN sequence error (0x60 = 96) among them
	[[ $(grep -Evc $'^17\t0x000100\t[0-9]+\t0\t1\t4791$' <<<"$f") -eq 0 ]]
	grep -q $'\t31\t' <<<"$f"
	grep -q $'\t96\t' <<<"$f"
	c=$(/usr/bin/python3 "$ROOT/tests/lab/roce_check.py" "$pcap")
	[[ $(wc -l <<<"$c") -eq $(wc -l <<<"$f") ]]
	! grep -q '"icrc_ok": false' <<<"$c" || false
	! grep -q '_csum_ok": false' <<<"$c" || false
	note "scapy: $(wc -l <<<"$c") ACK/NAK frames, ICRC correct in all"
}

@test "gen --reliable without a responder says so and fails; --ack-timeout needs --reliable" {
	start_sink # counts, answers nothing
	run --separate-stderr bash -c "echo | nsenter --net=/run/netns/$TX -- '$XDPLEAF' gen \
		--dev eth0 --dst 10.9.2.1 --pattern steps --reliable --message 16K --rate 5M"
	stop_sink
	echo "$stderr"
	[[ $status -eq 1 ]]
	[[ $stderr == *"no ACK or NAK from 10.9.2.1 for QP 0x000100 after 7 timeouts"* ]]
	[[ $stderr == *"xdpleaf sink --respond"* ]]
	run --separate-stderr in_ns "$TX" "$XDPLEAF" gen --dev eth0 --dst 10.9.2.1 --ack-timeout 5ms
	[[ $status -eq 2 ]]
	[[ $stderr == *"--ack-timeout applies to --reliable only"* ]]
	run --separate-stderr in_ns "$TX" "$XDPLEAF" gen --dev eth0 --dst 10.9.2.1 --reliable \
		--ack-timeout 1ns
	[[ $status -eq 2 ]]
	[[ -n $stderr ]]
}
