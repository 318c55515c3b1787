#!/usr/bin/env bats
# xdpleaf upgrade (docs/operations.md): this build's programs replace the
# loaded ones on every link (bpf_link_update) while RoCEv2 traffic from
# xdpleaf gen crosses leaf1; the sink at r1 (and the kernel's interface
# counters) must see every frame, and the instance's state must survive
# (counters and flows not reset; the programs' ids new).

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$u"
	lab_up_ready "$P"
}

setup() {
	require_lab
	SINK_PID=
}

teardown() {
	if [[ -n ${SINK_PID-} ]]; then
		kill "$SINK_PID" 2>/dev/null || true
		wait "$SINK_PID" 2>/dev/null || true
	fi
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	"$LAB" down --prefix "$P" 3>&-
}

xl() {
	in_ns "$P-leaf1" "$XDPLEAF" "$@"
}

# xdpleaf sink on r1, in the background until sink_finish; returns once it
# counts. C0: the frames it had consumed then (sink_consumed).
sink_start() {
	nsenter --net="/run/netns/$P-r1" -- "$XDPLEAF" sink --dev eth0 --json \
		>"$BATS_TEST_TMPDIR/sink.json" 2>"$BATS_TEST_TMPDIR/sink.err" 3>&- &
	SINK_PID=$!
	until grep -q ready "$BATS_TEST_TMPDIR/sink.err"; do
		kill -0 "$SINK_PID" 2>/dev/null || { cat "$BATS_TEST_TMPDIR/sink.err"; return 1; }
		sleep 0.05
	done
	C0=$(sink_consumed "$P-r1" eth0)
}

# Once the sink has consumed $1 frames since sink_start (or 10 s passed),
# stop it; its JSON into SINK_JSON. (Not in a subshell: the sink is this
# shell's child.)
sink_finish() {
	wait_sink_consumed "$P-r1" eth0 "$C0" "$1"
	kill -TERM "$SINK_PID"
	wait "$SINK_PID"
	SINK_PID=
	SINK_JSON=$(<"$BATS_TEST_TMPDIR/sink.json")
}

@test "upgrade x10 under RoCEv2 traffic: no frame lost, counters and flows kept, new programs" {
	local st0 st1 id0 id1 g s n=0 gen_pid
	st0=$(stats_json "$P")
	id0=$(xl status --json --instance "$P" | jq .prog_id)
	sink_start
	# 4 QPs x 10 Mbit/s, well within what any machine forwards, until the
	# 10th upgrade is done however long they take (SIGTERM ends gen with
	# its counts); nsenter execs gen: $! is gen itself
	nsenter --net="/run/netns/$P-s1" -- "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 \
		--qps 4 --rate 40M --duration 120s --json >"$BATS_TEST_TMPDIR/gen.json" 2>&1 3>&- &
	gen_pid=$!
	for _ in $(seq 10); do
		run --separate-stderr xl upgrade --instance "$P"
		echo "$output $stderr"
		[[ $status -eq 0 ]] || { kill "$gen_pid"; return 1; }
		[[ $output == *"8 tc links switched"* || $output == *"8 XDP links switched"* ]]
		n=$((n + 1))
	done
	kill -0 "$gen_pid" # still sending: every upgrade was under traffic
	kill -TERM "$gen_pid"
	wait "$gen_pid"
	# gen's JSON (its stderr, with a warning if any, went to the same file)
	g=$(sed -n '/^{/,$p' "$BATS_TEST_TMPDIR/gen.json")
	echo "gen: $g"
	local sent
	sent=$(jqv "$g" '.packets')
	# the sink counts until it has consumed every frame (or 10 s pass)
	sink_finish "$sent"
	s=$SINK_JSON
	st1=$(stats_json "$P")
	id1=$(xl status --json --instance "$P" | jq .prog_id)
	note "upgrade x$n during gen: $(jqv "$g" '.packets') frames sent (device drops $(jqv "$g" '.dev_tx_dropped')), sink $(jqv "$s" '.total | {packets, lost, reordered, duplicates} | tojson'); prog id $id0 -> $id1"
	[[ $(jqv "$g" '.dev_tx_dropped') -eq 0 ]]
	[[ $(jqv "$s" '.total.packets') -eq $(jqv "$g" '.packets') ]]
	[[ $(jqv "$s" '.total.lost') -eq 0 ]]
	[[ $(jqv "$s" '.total.duplicates') -eq 0 ]]
	# state kept: s1's counters went on from where they were, and every
	# QP's flow entry holds at least all of this run's packets
	(($(jqv "$st1" '.ports[] | select(.name == "s1") | .rx_packets') >= \
	  $(jqv "$st0" '.ports[] | select(.name == "s1") | .rx_packets') + $(jqv "$g" '.packets')))
	[[ $(xl flows --json --interval 0 --instance "$P" |
		jq '[.flows[] | select(.proto == 17 and .dport == 4791 and .packets >= 1)] | length') -eq 4 ]]
	# new programs, pinned and attached; the record says who upgraded
	[[ $id1 -ne $id0 ]]
	[[ $(xl status --json --instance "$P" | jq '[.ports[] | select(.attached == false)] | length') -eq 0 ]]
	[[ $(xl status --json --instance "$P" | jq -r .loaded_by.git_commit) == \
	   $(xl status --json --instance "$P" | jq -r .git_commit) ]]
}

@test "upgrade of an instance that is not loaded says so; --help tells what it keeps" {
	run --separate-stderr "$XDPLEAF" upgrade --instance "${P}none"
	[[ $status -ne 0 && $stderr == *"not loaded"* ]]
	run --separate-stderr "$XDPLEAF" upgrade --help
	[[ $status -eq 0 && $output == *"keeping every map"* ]]
}

# The pinned map leaf_counters swapped for one of another layout, as an
# instance of an older build would have it: upgrade refuses by name and
# changes nothing; with the real map back it goes through.
@test "upgrade refuses a map whose layout changed, naming it, and changes nothing" {
	local pin=/sys/fs/bpf/xdpleaf/$P/leaf_counters id prog0 prog1
	id=$(bpftool -j map show pinned "$pin" | jq .id)
	prog0=$(xl status --json --instance "$P" | jq .prog_id)
	rm "$pin"
	bpftool map create "$pin" type array key 4 value 4 entries 1 name leaf_counters
	run --separate-stderr xl upgrade --instance "$P"
	# the real map back, whatever happened
	rm "$pin"
	bpftool map pin id "$id" "$pin"
	echo "status $status: $stderr"
	[[ $status -eq 1 ]]
	[[ $stderr == *"map leaf_counters changed layout (pinned: type 2, key 4, value 4 bytes; this build:"*"unload and load instead"* ]]
	prog1=$(xl status --json --instance "$P" | jq .prog_id)
	[[ $prog1 -eq $prog0 ]]
	# nothing else was touched: forwarding goes on, and the upgrade works now
	in_ns "$P-s1" ping -q -c 3 -i 0.2 -W 1 10.2.1.2 >/dev/null
	run --separate-stderr xl upgrade --instance "$P"
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	[[ $(xl status --json --instance "$P" | jq .prog_id) -ne $prog0 ]]
}

# leaf1's config with lb_mode hash, u1 at 1 Gbit/s and one route more
changed_conf() {
	sed -e 's/^lb_mode = flowlet$/lb_mode = hash/' \
		-e 's/^\[port u1\]$/[port u1]\nrate = 1G/' "$CONF" >"$1"
	printf '\n[route 10.9.0.0/16]\ngroup = spine\n' >>"$1"
}

# Each reload rewrites the port counters' labels; a rewrite of a live
# per-CPU entry puts back the counters it read, losing what leaf1 counted
# meanwhile (xl_percpu_set_label writes only a label that changed). Ten
# reloads, so that a lost count shows here and not once in a while.
@test "reload x10 under RoCEv2 traffic: the changed file applies and the old one back, no frame lost, counters kept" {
	local b=$BATS_TEST_TMPDIR/changed.conf g s st0 st1 j gen_pid sent i rx
	changed_conf "$b"
	st0=$(stats_json "$P")
	sink_start
	# until the 10th reload is done, however long they take (SIGTERM ends
	# gen with its counts)
	nsenter --net="/run/netns/$P-s1" -- "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 \
		--qps 4 --rate 40M --duration 120s --json >"$BATS_TEST_TMPDIR/gen.json" 2>&1 3>&- &
	gen_pid=$!
	for i in 1 2 3 4 5; do
		run --separate-stderr xl reload --config "$b" --instance "$P"
		echo "reload $i: $output $stderr"
		[[ $status -eq 0 ]] || { kill "$gen_pid"; return 1; }
		j=$(stats_json "$P")
		[[ $(jqv "$j" '.groups[0].lb_mode') == hash ]]
		[[ $(jqv "$j" '.ports[] | select(.name == "u1") | .queue.line_rate_bps') -eq 1000000000 ]]
		xl routes --json --instance "$P" | jq -e '.routes[] | select(.prefix == "10.9.0.0/16" and .target == "spine")' >/dev/null
		run --separate-stderr xl reload --config "$CONF" --instance "$P"
		[[ $status -eq 0 ]] || { kill "$gen_pid"; return 1; }
	done
	kill -0 "$gen_pid" # still sending: every reload was under traffic
	kill -TERM "$gen_pid"
	wait "$gen_pid"
	g=$(sed -n '/^{/,$p' "$BATS_TEST_TMPDIR/gen.json")
	sent=$(jqv "$g" '.packets')
	sink_finish "$sent"
	s=$SINK_JSON
	st1=$(stats_json "$P")
	rx=$(($(jqv "$st1" '.ports[] | select(.name == "s1") | .rx_packets') -
	      $(jqv "$st0" '.ports[] | select(.name == "s1") | .rx_packets')))
	note "reload x10 during gen: $sent frames sent, sink $(jqv "$s" '.total | {packets, lost} | tojson'), leaf1 s1 rx_packets +$rx"
	[[ $(jqv "$s" '.total.packets') -eq $sent && $(jqv "$s" '.total.lost') -eq 0 ]]
	# back as loaded: flowlet, no rate on u1, the extra route gone
	[[ $(jqv "$st1" '.groups[0].lb_mode') == flowlet ]]
	[[ $(jqv "$st1" '.ports[] | select(.name == "u1") | .queue') == null ]]
	! xl routes --json --instance "$P" | jq -e '.routes[] | select(.prefix == "10.9.0.0/16")' >/dev/null || false
	# counters went on: every frame gen sent counted at s1 (and s1's own
	# ARP/ND besides)
	((rx >= sent))
}

@test "reload of a refused file changes nothing: bad keys, other ports, another mode" {
	local before after f bad=$BATS_TEST_TMPDIR/bad.conf
	before=$(xl routes --json --instance "$P" | jq -c '.routes'; stats_json "$P" | jq -c '.groups, [.ports[] | {name, queue}]')
	for f in unknown-key-port.conf prefix-host-bits.conf dcqcn-unknown-key.conf; do
		run --separate-stderr xl reload --config "$ROOT/tests/configs/bad/$f" --instance "$P"
		echo "$f: $stderr"
		[[ $status -eq 1 && $stderr == *"$f:"* ]]
	done
	# valid, but without port s4: not the loaded ports
	sed '/^\[port s4\]/,/^$/d; /port = s4/d' "$CONF" | sed '/^\[route 10.1.4.0\/24\]$/d; /^\[route fd00:1:4::\/64\]$/d' >"$bad"
	run --separate-stderr xl reload --config "$bad" --instance "$P"
	echo "$stderr"
	[[ $status -eq 1 && $stderr == *"the ports differ from the loaded ones"* ]]
	# a host-mode file for a leaf instance
	printf '[xdpleaf]\nmode = host\n[port s1]\nrate = 100G\n' >"$bad"
	run --separate-stderr xl reload --config "$bad" --instance "$P"
	[[ $status -eq 1 && $stderr == *"host-mode file"* ]]
	after=$(xl routes --json --instance "$P" | jq -c '.routes'; stats_json "$P" | jq -c '.groups, [.ports[] | {name, queue}]')
	[[ $before == "$after" ]]
}

# ---- failover (docs/operations.md) --------------------------------------

uplink_tx() { # leaf1's tx packets on uplink $1
	stats_json "$P" | jq ".ports[] | select(.name == \"$1\") | .tx_packets"
}

@test "failover: every flow of a dead uplink moves at its next packet, nothing more goes into it, and it is used again once up" {
	local ev=$BATS_TEST_TMPDIR/ev.json everr=$BATS_TEST_TMPDIR/ev.err ev_pid gen_pid
	local up n ifx t0 tdown a b dead0 dead1 tries=100 rated=$BATS_TEST_TMPDIR/rated.conf
	local qps moves snap tsnap
	# The uplinks get their capacity (1G, far above gen's 160M), the one
	# fact of the fabric a user gives; nothing else is set. A flow then
	# stays on its member unless another is clearly less loaded, so which
	# flows the failure hits is known before it (without one, paced flows
	# changed member between two reads), and the few moves fit the default
	# event_rate (asserted below: none lost to it).
	sed -e 's/^\[port u\([1-4]\)\]$/[port u\1]\nrate = 1G/' "$CONF" >"$rated"
	xl reload --config "$rated" --instance "$P"
	# nsenter execs events: $! is events itself, which SIGTERM stops
	nsenter --net="/run/netns/$P-leaf1" -- "$XDPLEAF" events --instance "$P" --json \
		--kind link_down,link_up,move \
		--duration 30s >"$ev" 2>"$everr" 3>&- &
	ev_pid=$!
	until grep -q "reading instance" "$everr"; do
		((tries-- > 0)) || { cat "$everr"; return 1; }
		sleep 0.05
	done
	in_ns "$P-s1" "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 --qps 4 --qp-base 0x700 \
		--rate 40M --duration 4s >/dev/null 2>&1 3>&- &
	gen_pid=$!
	# gen's flows and their uplinks (one read); the one most of them run on
	tries=100
	until tsnap=$(date +%s%N) && snap=$(xl flows --json --interval 0 --instance "$P" |
		jq -c '[.flows[] | select(.qp >= 1792 and .qp < 1796) |
			{qp, uplink}] | select(length == 4)') && [[ -n $snap ]]; do
		((tries-- > 0)) || { kill "$gen_pid" "$ev_pid"; return 1; }
		sleep 0.05
	done
	up=$(jq -r 'group_by(.uplink) | max_by(length) | .[0].uplink' <<<"$snap")
	n=${up#u}
	ifx=$(ip -n "$P-leaf1" -j link show "$up" | jq '.[0].ifindex')
	spine_save_routes "$P" "$n"
	t0=$(date +%s%N)
	spine_link_set_down "$P" "$n"
	# polled: the dead link's tx count stops growing
	tries=100
	a=$(uplink_tx "$up")
	while sleep 0.2; b=$(uplink_tx "$up"); ((b != a)); do
		a=$b
		((tries-- > 0)) || break
	done
	dead0=$(uplink_tx "$up")
	sleep 0.5 # a window in which nothing may go into it, gen still sending
	dead1=$(uplink_tx "$up")
	spine_link_up "$P" "$n"
	wait "$gen_pid"
	# after it is back, new flows (other QPs) are placed on it again
	a=$(uplink_tx "$up")
	in_ns "$P-s1" "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 --qps 8 --qp-base 0x800 \
		--rate 40M --duration 1s >/dev/null 2>&1 3>&-
	kill "$ev_pid"
	wait "$ev_pid" || true
	xl reload --config "$CONF" --instance "$P"
	grep "lost meanwhile: 0 to event_rate" "$everr"
	tdown=$(jq -s --arg p "$up" '[.[] | select(.event == "link_down" and .port == $p) | .time_ns][0]' "$ev")
	[[ $tdown != null ]]
	# the affected flows: those on the uplink when it failed. A flow may
	# have moved between the read and the failure (the balancer's own
	# moves): its last move before the event, if any, says where it was.
	qps=$(jq -s -c --argjson s "$tsnap" --argjson t "$tdown" --argjson snap "$snap" \
		--arg up "$up" '. as $ev | [$snap[] | . as $f |
		([$ev[] | select(.event == "move" and .flow.qp == $f.qp and
			.time_ns >= $s and .time_ns < $t)] | last | .port // $f.uplink) |
		select(. == $up) | $f.qp]' "$ev")
	# each affected flow's first move off the dead uplink, after the event
	moves=$(jq -s -c --argjson f "$ifx" --argjson t "$tdown" --argjson q "$qps" '
		[$q[] as $qp | [.[] | select(.event == "move" and .aux == $f and
			.flow.qp == $qp and .time_ns >= $t) | .time_ns] | min]' "$ev")
	note "failover off $up (flows of QPs $qps): link_down event $(((tdown - t0) / 1000)) us after 'ip link set down' began; each flow moved off after its next packet: $(jq -c --argjson t "$tdown" '[.[] | if . then ((. - $t) / 1000 | floor) else null end]' <<<"$moves") us after the event, the last $(( ($(jq 'max' <<<"$moves") - t0) / 1000 )) us after 'ip link set down'; $up tx +$((dead1 - dead0)) in 0.5 s down under traffic; after up: +$(($(uplink_tx "$up") - a)) packets"
	(($(jq length <<<"$qps") >= 1))
	# the dataplane's part: the next packet of every affected flow moves
	# (gen paces each QP's 1082-byte frames 0.22 ms apart)
	jq -e --argjson t "$tdown" 'all(.[]; . != null and . - $t <= 10000000)' <<<"$moves"
	((dead1 == dead0))
	(($(uplink_tx "$up") > a))
}

# ---- the daemon as a process -------------------------------------------

daemon_pid() {
	xl status --json --instance "$P" 2>/dev/null | jq .daemon_pid
}

@test "daemon: kill -9 under traffic loses no packet; the next status starts a new one, which works and resets nothing" {
	local old new ping_out=$BATS_TEST_TMPDIR/ping.out rx0 rx1
	rx0=$(stats_json "$P" | jq '[.ports[].rx_packets] | add')
	old=$(daemon_pid)
	((old > 0))
	[[ $(cat "/proc/$old/comm") == xdpleaf-daemon ]]
	in_ns "$P-s1" ping -q -c 400 -i 0.005 10.2.1.2 >"$ping_out" 2>&1 3>&- &
	local ping_pid=$!
	sleep 0.5 # mid-way through the pings
	kill -9 "$old"
	wait "$ping_pid" || true
	cat "$ping_out"
	note "daemon killed -9 during 400 pings s1 -> r1: $(grep -o '[0-9]* received, [0-9.]*% packet loss' "$ping_out")"
	grep -q ' 0% packet loss' "$ping_out"
	# the next status notices and starts a new daemon
	run --separate-stderr xl status --instance "$P"
	echo "$stderr"
	[[ $status -eq 0 && $stderr == *"its daemon (pid $old) was gone; started a new one"* ]]
	new=$(daemon_pid)
	((new > 0 && new != old))
	[[ $output == *"daemon running, pid $new"* ]]
	# the counters went on from where they were: 400 pings and their
	# replies crossed leaf1 since rx0
	rx1=$(stats_json "$P" | jq '[.ports[].rx_packets] | add')
	((rx1 >= rx0 + 800)) || { echo "rx $rx0 -> $rx1"; return 1; }
	# and it does its work: a neighbour the kernel forgets leaves the map
	ip -n "$P-leaf1" neigh del 10.1.1.2 dev s1
	local tries=100
	while xl neigh --json --instance "$P" | jq -e '.neigh[] | select(.address == "10.1.1.2")' >/dev/null; do
		((tries-- > 0)) || { echo "the new daemon did not follow the kernel"; return 1; }
		sleep 0.05
	done
}

# Last: it unloads leaf1's instance.
@test "daemon: a pid on file that is not the daemon is never signalled" {
	local pidfile=/run/xdpleaf/$P.pid decoy w tries=100
	sleep 60 3>&- &
	decoy=$!
	w=$(daemon_pid)
	kill "$w"
	while kill -0 "$w" 2>/dev/null; do ((tries-- > 0)) || return 1; sleep 0.05; done
	echo "$decoy" >"$pidfile"
	# status: not our daemon, so none; it starts one (the file said one ran)
	run --separate-stderr xl status --json --instance "$P"
	[[ $(jq .daemon_pid <<<"$output") -ne $decoy ]]
	run --separate-stderr xl unload --instance "$P"
	[[ $status -eq 0 ]]
	kill -0 "$decoy" # the decoy lives
	kill "$decoy"
}
