#!/usr/bin/env bats
# The lab's switch queues (lab.sh --switch-queues single|class,
# --latency-dscp; lab/lib.sh, shape_link_classes; docs/lab.md). With
# class queues every shaped link's TBF feeds from two queues, the latency
# DSCPs' served before everything else: under bulk TCP that fills every uplink's queue,
# pings tagged with DSCP 18 must wait far less than untagged pings sent
# beside them; with one queue (the TBF) they wait as long. Kernel mode:
# the spines' queues are under test, not the leaf.
#
# Relations only, tagged against untagged in the same run. The senders'
# minimum RTO is 5 ms (a data centre's, as ecmp.bats and bench-jct's dc
# hosts): with Linux's 200 ms, 32 connections tail-dropped in 2 ms
# buffers sat in timeouts, the links idled, and the untagged median was
# 0.1 ms. With it, measured under load: untagged 1.1-1.8 ms, tagged
# through class queues 0.3-0.4 ms (the bulk frame the TBF takes next, its
# tokens, and the timers of two busy CPUs), hence ADVANTAGE. With one queue
# both wait in the same FIFO (1.4 ms each), so their medians differ by
# sampling noise only: the test asserts that the tagged ones get no such
# advantage, and that they did wait (LOADED x the class run's tagged
# median: 4-5 x measured), so the one queue was loaded.
#
# Brings up labs and sends traffic: run it as
#   flock /tmp/xdpleaf-bench.lock bats tests/lab/switch_queues.bats

load helpers

# under class queues: untagged median RTT >= ADVANTAGE x tagged median
ADVANTAGE=3
# under one queue: untagged median RTT < SAME x tagged median (no advantage),
# and the tagged median >= LOADED x the class queues' (the queue was full)
SAME=2
LOADED=2
RATES=100M,100M,100M,100M
PINGS=300

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	export PE="xlt$$e" PC="xlt$$q" PS="xlt$$s"
}

setup() {
	require_lab
}

teardown() {
	local p
	stop_bulk
	stop_iperf_servers
	for p in "$PE" "$PC" "$PS"; do
		"$LAB" down --prefix "$p" 3>&-
	done
}

# Stop the bulk senders ping_under_bulk started.
stop_bulk() {
	local p
	for p in "${BULK[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	BULK=()
}

# lab.sh up refused with a message matching $1 (a glob), and left nothing
up_refused() {
	local want=$1
	shift
	run "$LAB" up --prefix "$PE" --mode kernel "$@" 3>&-
	echo "$output"
	((status != 0))
	[[ $output == *$want* ]]
	[[ -z $(ip netns list | awk -v p="$PE-" 'index($1, p) == 1') ]]
	[[ ! -e /run/xdpleaf-lab/$PE.env ]]
}

@test "bad --switch-queues and --latency-dscp are refused before anything is made" {
	up_refused "bad --switch-queues 'fifo'" --switch-queues fifo --uplink-rates "$RATES"
	up_refused "--latency-dscp needs --switch-queues class" --latency-dscp 18 --uplink-rates "$RATES"
	up_refused "--latency-dscp needs --switch-queues class" --switch-queues single --latency-dscp 18 \
		--uplink-rates "$RATES"
	local bad
	for bad in 64 -1 '18,' ,18 18,,46 x 18,4x 100; do
		up_refused "--latency-dscp: bad list '$bad'" --switch-queues class --latency-dscp "$bad" \
			--uplink-rates "$RATES"
	done
	up_refused "--switch-queues class needs --uplink-rates or --receiver-rate" --switch-queues class
}

# the qdiscs of $1's DEV $2 as "kind handle packets drops" lines
qdiscs() {
	tc -n "$1" -s -j qdisc show dev "$2" | jq -r '.[] | "\(.kind) \(.handle) \(.packets) \(.drops)"'
}

# packets the bfifo HANDLE ($2, e.g. 10:) of every spine's up of lab $1 sent
spines_sent() {
	local n sum=0 p
	for n in "${LAB_N[@]}"; do
		p=$(tc -n "$1-sp$n" -s -j qdisc show dev up |
			jq --arg h "$2" '[.[] | select(.handle == $h) | .packets] | add // 0')
		sum=$((sum + p))
	done
	echo "$sum"
}

@test "--switch-queues class: a latency and a bulk queue under every shaped link's TBF, recorded and shown; the default is the TBF alone" {
	run "$LAB" up --prefix "$PC" --mode kernel --uplink-rates "$RATES" --receiver-rate 200M \
		--switch-queues class --latency-dscp 18,46 3>&-
	echo "$output"
	((status == 0))
	# tc says when a class's quantum (rate / r2q by default) is out of range
	[[ $output != *Warning* ]]
	grep -qx SWITCH_QUEUES=class "/run/xdpleaf-lab/$PC.env"
	grep -qx LATENCY_DSCP=18,46 "/run/xdpleaf-lab/$PC.env"
	run "$LAB" status --prefix "$PC"
	[[ $output == *"switch queues: class (latency DSCPs 18,46)"* ]]
	local ns dev q
	for ns in "$PC-sp1 up" "$PC-sp4 up" "$PC-leaf2 r1" "$PC-leaf2 r4"; do
		read -r ns dev <<<"$ns"
		q=$(qdiscs "$ns" "$dev")
		echo "$ns $dev: $q"
		[[ $(awk '{ print $1, $2 }' <<<"$q" | sort | tr '\n' ' ') == "bfifo 10: bfifo 20: htb 2: tbf 1: " ]]
	done
	tc -n "$PC-sp2" class show dev up | grep -q '^class htb 2:10 root leaf 10: prio 0 rate 1Gbit'
	tc -n "$PC-sp2" class show dev up | grep -q '^class htb 2:20 root leaf 20: prio 1 rate 1Gbit'
	tc -n "$PC-leaf2" qdisc show dev r2 | grep -q '^qdisc tbf 1: root .* rate 200Mbit burst 25'
	tc -n "$PC-sp3" qdisc show dev up | grep -q '^qdisc bfifo 20: parent 2:20 limit 25000b'
	# one u32 filter per DSCP and family, to the latency class
	[[ $(tc -n "$PC-sp3" filter show dev up parent 2: | grep -c 'flowid 2:10') == 4 ]]
	local class_tbf
	class_tbf=$(tc -n "$PC-sp3" qdisc show dev up root)

	# classification: both tagged DSCPs, IPv4 and IPv6, go to the latency
	# queue of the spine they cross, untagged pings to the bulk queue
	warm_up "$PC"
	local l0 b0 l1 b1
	l0=$(spines_sent "$PC" 10:) b0=$(spines_sent "$PC" 20:)
	in_ns "$PC-s1" ping -q -c 10 -i 0.01 -Q 72 "$(lab_receiver4 1)" >/dev/null
	in_ns "$PC-s2" ping -q -c 10 -i 0.01 -Q 0xb8 "$(lab_receiver4 2)" >/dev/null
	in_ns "$PC-s3" ping -q -6 -c 10 -i 0.01 -Q 72 "$(lab_receiver6 3)" >/dev/null
	in_ns "$PC-s4" ping -q -6 -c 10 -i 0.01 -Q 0xb9 "$(lab_receiver6 4)" >/dev/null
	in_ns "$PC-s1" ping -q -c 10 -i 0.01 -Q 0x4c "$(lab_receiver4 1)" >/dev/null # DSCP 19
	in_ns "$PC-s1" ping -q -c 10 -i 0.01 "$(lab_receiver4 2)" >/dev/null
	l1=$(spines_sent "$PC" 10:) b1=$(spines_sent "$PC" 20:)
	note "latency queues sent $((l1 - l0)) packets, bulk queues $((b1 - b0))"
	# 40 tagged echo requests cross the spines' up (the replies go down)
	((l1 - l0 == 40))
	((b1 - b0 >= 20))

	"$LAB" down --prefix "$PC" 3>&-
	"$LAB" up --prefix "$PS" --mode kernel --uplink-rates "$RATES" 3>&-
	grep -qx SWITCH_QUEUES=single "/run/xdpleaf-lab/$PS.env"
	run "$LAB" status --prefix "$PS"
	[[ $output == *"switch queues: single"* ]]
	q=$(qdiscs "$PS-sp1" up)
	echo "$q"
	[[ $(awk '{ print $1 }' <<<"$q") == tbf ]]
	# the same TBF as the class queues' (rate, burst, overhead)
	[[ $(tc -n "$PS-sp3" qdisc show dev up root) == "$class_tbf" ]]
}

# median of the RTTs (ms) in ping's output file $1
median_rtt() {
	sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# drops of the TBF (of every queue under it) per spine of lab $1,
# space-separated
bulk_drops() {
	local n
	for n in "${LAB_N[@]}"; do
		tc -n "$1-sp$n" -s -j qdisc show dev up | jq -r '.[] | select(.kind == "tbf") | .drops'
	done | tr '\n' ' '
}

# every uplink's bulk queue of lab $1 has dropped more than in $2 (a
# bulk_drops line): each has been full
all_queues_full() {
	local -a a b
	read -r -a a <<<"$2"
	read -r -a b <<<"$(bulk_drops "$1")"
	((b[0] > a[0] && b[1] > a[1] && b[2] > a[2] && b[3] > a[3]))
}

# In lab $1 (up): bulk TCP from every sender to its receiver, 8
# connections each, until every uplink's queue has overflowed; then
# PINGS tagged (DSCP 18) and PINGS untagged pings s1 -> r2 side by side.
# Sets TAGGED and UNTAGGED, the median RTTs in ms.
ping_under_bulk() {
	local p=$1 n d0 out=$BATS_TEST_TMPDIR
	for n in "${LAB_N[@]}"; do
		start_iperf_server "$p-r$n"
	done
	warm_up "$p"
	for n in "${LAB_N[@]}"; do
		in_ns "$p-s$n" sysctl -qw net.ipv4.tcp_rto_min_us=5000
	done
	d0=$(bulk_drops "$p")
	BULK=()
	for n in "${LAB_N[@]}"; do
		# nsenter execs timeout, which passes a kill on to iperf3
		nsenter --net="/run/netns/$p-s$n" -- timeout 60 iperf3 -c "$(lab_receiver4 "$n")" -P 8 -t 40 \
			</dev/null >/dev/null 2>&1 3>&- &
		BULK+=($!)
	done
	poll all_queues_full "$p" "$d0" ||
		{ echo "not every uplink's queue overflowed: drops $d0 -> $(bulk_drops "$p")"; return 1; }
	in_ns "$p-s1" ping -c "$PINGS" -i 0.01 -Q 72 "$(lab_receiver4 2)" >"$out/tagged" 2>&1 3>&- &
	local tagged=$!
	in_ns "$p-s1" ping -c "$PINGS" -i 0.01 "$(lab_receiver4 2)" >"$out/untagged" 2>&1 3>&- || true
	wait "$tagged" || true
	# the bulk was still on while the pings ran
	for n in "${!BULK[@]}"; do
		kill -0 "${BULK[n]}" || { echo "iperf3 from s$((n + 1)) ended early"; return 1; }
	done
	TAGGED=$(median_rtt "$out/tagged")
	UNTAGGED=$(median_rtt "$out/untagged")
	note "$p: median RTT under bulk: tagged $TAGGED ms, untagged $UNTAGGED ms ($(tail -1 "$out/tagged" | cut -d= -f2) / $(tail -1 "$out/untagged" | cut -d= -f2) min/avg/max/mdev); bulk drops per uplink $(bulk_drops "$p")"
	[[ -n $TAGGED && -n $UNTAGGED ]] || { cat "$out/tagged" "$out/untagged"; return 1; }
}

@test "under bulk TCP on every uplink, DSCP 18 pings wait far less than untagged ones with class queues, not with one queue" {
	"$LAB" up --prefix "$PC" --mode kernel --uplink-rates "$RATES" --switch-queues class 3>&-
	ping_under_bulk "$PC"
	local class_tagged=$TAGGED
	awk -v t="$TAGGED" -v u="$UNTAGGED" -v a="$ADVANTAGE" 'BEGIN { exit !(u >= a * t) }' ||
		{ echo "class queues: untagged $UNTAGGED ms is not $ADVANTAGE x tagged $TAGGED ms"; return 1; }
	stop_bulk
	stop_iperf_servers
	"$LAB" down --prefix "$PC" 3>&-

	"$LAB" up --prefix "$PS" --mode kernel --uplink-rates "$RATES" 3>&-
	ping_under_bulk "$PS"
	awk -v t="$TAGGED" -v u="$UNTAGGED" -v s="$SAME" 'BEGIN { exit !(u < s * t) }' ||
		{ echo "one queue: untagged $UNTAGGED ms is $SAME x tagged $TAGGED ms or more"; return 1; }
	awk -v t="$TAGGED" -v c="$class_tagged" -v a="$LOADED" 'BEGIN { exit !(t >= a * c) }' ||
		{ echo "one queue: tagged $TAGGED ms, not $LOADED x the $class_tagged ms through class queues: the queue was not loaded"; return 1; }
}
