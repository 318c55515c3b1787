#!/usr/bin/env bats
# Events (docs/events.md) end to end in the lab: frames crafted with scapy
# (tests/lab/send_frames.py, not xdpleaf's generator) make leaf1 write drop,
# PSN, NAK, link and PFC events; `xdpleaf events` must show each with its
# port, flow and packet, and its --pcap file must be one that tshark
# decodes. leaf1 runs lab/leaf1.conf with malformed = drop, a 10 ms PFC
# watchdog and s1 at 100 Mbit/s (PFC quanta are bit times of the port),
# tracking the PSNs of what arrives on s1.

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	local tool
	for tool in tshark /usr/bin/python3; do
		command -v "$tool" >/dev/null || { LAB_SKIP="$tool not installed (make deps)"; return 0; }
	done
	ensure_bpffs
	export P="xlt$$e"
	export EVCONF=$BATS_FILE_TMPDIR/leaf1-events.conf
	sed -e 's/^malformed = pass$/malformed = drop\npfc_watchdog = 10ms\nflow_table_size = 1K/' \
		-e 's/^\[port s1\]$/[port s1]\nrate = 100M\npsn_tracking = yes/' "$CONF" >"$EVCONF"
	grep -q '^pfc_watchdog = 10ms$' "$EVCONF"
	lab_up_ready "$P" --config "$EVCONF"
	export S1MAC
	S1MAC=$(ip -n "$P-leaf1" -j link show s1 | jq -r '.[0].address')
}

setup() {
	require_lab
	EV_OUT=$BATS_TEST_TMPDIR/events.out
	EV_ERR=$BATS_TEST_TMPDIR/events.err
}

teardown() {
	[[ -n ${EV_PID-} ]] && kill "$EV_PID" 2>/dev/null
	return 0
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	"$LAB" down --prefix "$P" 3>&-
}

# Start `xdpleaf events ARGS` on leaf1's instance in the background and
# return once it reads the ring (it says so on stderr).
start_events() {
	in_ns "$P-leaf1" "$XDPLEAF" events --instance "$P" --duration 30s "$@" \
		>"$EV_OUT" 2>"$EV_ERR" 3>&- &
	EV_PID=$!
	local tries=200
	until grep -q "reading instance" "$EV_ERR"; do
		((tries-- > 0)) || { cat "$EV_ERR"; return 1; }
		sleep 0.05
	done
}

# Wait for the events reader to finish (its --count reached).
wait_events() {
	local rc=0
	wait "$EV_PID" || rc=$?
	EV_PID=
	cat "$EV_OUT" "$EV_ERR"
	return $rc
}

send() { # from s1: send_frames.py arguments after the interface
	in_ns "$P-s1" /usr/bin/python3 "$ROOT/tests/lab/send_frames.py" eth0 "$@"
}

@test "events: malformed drops carry reason, port and packet; --pcap is a pcap tshark decodes" {
	local pcap=$BATS_TEST_TMPDIR/drops.pcap smac j
	start_events --json --kind drop --count 5 --pcap "$pcap"
	send "$S1MAC" bad-ip4 10.1.1.2 10.2.1.2 5
	wait_events
	[[ $(wc -l <"$EV_OUT") -eq 5 ]]
	[[ $(jq -s '[.[] | select(.event == "drop" and .reason == "bad_ip4" and .port == "s1"
		and .schema_version > 0 and (.time | test("Z$")))] | length' <"$EV_OUT") -eq 5 ]]
	# the packet's bytes: our MAC first, the frame's length in full
	[[ $(jq -r '.packet[0:12]' <<<"$(head -1 "$EV_OUT")") == "${S1MAC//:/}" ]]
	smac=$(ip -n "$P-s1" -j link show eth0 | jq -r '.[0].address')
	# an independent decoder reads the file: every frame s1's, bad IPv4
	run --separate-stderr tshark -r "$pcap" -T fields -e eth.src -e eth.dst -e ip.src -e ip.dst -e ip.len
	echo "$output"
	[[ $status -eq 0 ]]
	[[ $(grep -c . <<<"$output") -eq 5 ]]
	[[ $(grep -c "^$smac	$S1MAC	10.1.1.2	10.2.1.2	1400$" <<<"$output") -eq 5 ]]
	note "tshark -r drops.pcap: $(head -1 <<<"$output" | tr '\t' ' ')"
	j=$(stats_json "$P")
	[[ $(jqv "$j" '.events.drop.emitted') -ge 5 ]]
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | .reasons.bad_ip4') -ge 5 ]]
}

@test "events: a RoCEv2 flow's PSN gap, old PSN and NAK are events and counted" {
	local j before
	before=$(stats_json "$P")
	start_events --json --kind psn_gap,psn_old,nak --qp 0x4d2 --count 3
	send "$S1MAC" roce 10.1.1.2 10.2.1.2 0x4d2 1,2,3,5,4
	send "$S1MAC" nak 10.1.1.2 10.2.1.2 0x4d2
	wait_events
	j=$(jq -s . <"$EV_OUT")
	[[ $(jqv "$j" 'length') -eq 3 ]]
	# PSN 5 where 4 was expected: one missing; then 4, one behind
	[[ $(jqv "$j" '.[0] | "\(.event) \(.aux) \(.aux2) \(.bth.psn) \(.bth.qp) \(.port)"') == "psn_gap 4 1 5 1234 s1" ]]
	[[ $(jqv "$j" '.[1] | "\(.event) \(.aux) \(.aux2) \(.bth.psn)"') == "psn_old 6 2 4" ]]
	[[ $(jqv "$j" '.[2] | "\(.event) \(.bth.opcode) \(.detail)"') == "nak 17 NAK" ]]
	[[ $(jqv "$j" '.[0].flow | "\(.src) \(.dst) \(.sport) \(.dport) \(.qp)"') == "10.1.1.2 10.2.1.2 49152 4791 1234" ]]
	j=$(stats_json "$P")
	[[ $(($(jqv "$j" '.roce_psn.gaps') - $(jqv "$before" '.roce_psn.gaps'))) -eq 1 ]]
	[[ $(($(jqv "$j" '.roce_psn.missing') - $(jqv "$before" '.roce_psn.missing'))) -eq 1 ]]
	[[ $(($(jqv "$j" '.roce_psn.old') - $(jqv "$before" '.roce_psn.old'))) -eq 1 ]]
	[[ $(($(jqv "$j" '.roce_psn.naks') - $(jqv "$before" '.roce_psn.naks'))) -eq 1 ]]
	# and per flow, in the flow table's listing
	j=$(in_ns "$P-leaf1" "$XDPLEAF" flows --json --interval 0 --instance "$P")
	[[ $(jqv "$j" '.flows[] | select(.qp == 1234 and .sport == 49152) | "\(.psn.gaps) \(.psn.missing) \(.psn.old) \(.psn.naks)"') == "1 1 1 1" ]]
}

@test "events: an uplink losing its link and getting it back are link_down and link_up" {
	start_events --kind link_down,link_up --count 2
	ip -n "$P-sp2" link set dev down down
	local tries=200
	until grep -q link_down "$EV_OUT"; do
		((tries-- > 0)) || break
		sleep 0.05
	done
	ip -n "$P-sp2" link set dev down up
	wait_events
	grep -Eq '^[0-9:.]+ link_down +u2 +group 0$' "$EV_OUT"
	grep -Eq '^[0-9:.]+ link_up +u2 +group 0$' "$EV_OUT"
	[[ $(sed -n 1p "$EV_OUT" | awk '{print $2}') == link_down ]]
}

@test "events: PFC frames counted per priority; an unbroken pause past pfc_watchdog is a pfc_storm" {
	local j table t_sent t_read
	start_events --json --kind pfc_storm --count 1
	# 65535 quanta at s1's 100 Mbit/s pause 335 ms; frames 5 ms apart (or
	# more on a busy machine, never 335 ms) keep priority 3 paused without
	# a break past the 10 ms watchdog
	t_sent=$(send - pfc 3 65535 12 0.005)
	# the table while the last pause still runs (335 ms): the storm is now
	table=$(in_ns "$P-leaf1" "$XDPLEAF" stats --instance "$P")
	t_read=$(date +%s%N)
	wait_events
	[[ $(jq -r '"\(.event) \(.port) \(.aux) \(.aux2)"' <"$EV_OUT") == "pfc_storm s1 3 10" ]]
	j=$(stats_json "$P")
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | .pfc[3].frames') -eq 12 ]]
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | .pfc[3].xoff') -eq 12 ]]
	# one storm per unbroken pause: one here, and each an event
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | .pfc[3].storms') -eq 1 ]]
	[[ $(jqv "$j" '.events.pfc_storm.emitted') -eq 1 ]]
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | [.pfc[] | select(.priority != 3) | .frames] | add') -eq 0 ]]
	[[ $(jqv "$j" '.ports[] | select(.name == "s1") | .reasons.mac_control') -ge 12 ]]
	# (a machine too busy to read it within 300 ms sees the storm over)
	if ((t_read - t_sent < 300000000)); then
		grep -Eq '^  pfc: priority 3 frames 12 xoff 12 storms 1 STORM NOW$' <<<"$table"
	else
		echo "# stats read $(((t_read - t_sent) / 1000000)) ms after the last pause frame: not checking STORM NOW" >&3
		grep -Eq '^  pfc: priority 3 frames 12 xoff 12 storms 1( STORM NOW)?$' <<<"$table"
	fi
}

@test "events: bad options are refused; a missing instance exits 3" {
	run --separate-stderr "$XDPLEAF" events --kind nope --instance "$P"
	[[ $status -eq 2 && $stderr == *"unknown kind 'nope'"* ]]
	run --separate-stderr "$XDPLEAF" events --flow 300.1.1.1 --instance "$P"
	[[ $status -eq 2 && $stderr == *"--flow: '300.1.1.1' is not an IPv4 or IPv6 address"* ]]
	run --separate-stderr "$XDPLEAF" events --instance "${P}nope"
	[[ $status -eq 3 && $stderr == *"is not loaded"* ]]
	run --separate-stderr "$XDPLEAF" events --instance "$P" --pcap /nonexistent/dir/x.pcap
	[[ $status -eq 1 && $stderr == *"/nonexistent/dir/x.pcap"* ]]
}

@test "bpftool reads the maps by name: counters as named fields, enums by name, entries labelled with their port" {
	local d=/sys/fs/bpf/xdpleaf/$P j
	# bpftool -j puts the BTF view of each entry under .formatted
	# ports: roles and overflow by enum name, not number
	j=$(bpftool -j map dump pinned "$d/ports" | jq "[.[].formatted]")
	[[ $(jq -r '[.[] | select(.value.name == "u1") | .value.role] | first' <<<"$j") == XL_ROLE_UPLINK ]]
	[[ $(jq -r '[.[] | select(.value.name == "s1") | .value.role] | first' <<<"$j") == XL_ROLE_DOWNLINK ]]
	[[ $(jq -r '[.[].value.overflow] | unique | .[0]' <<<"$j") == XL_OVERFLOW_DROP ]]
	j=$(bpftool -j map dump pinned "$d/groups" | jq "[.[].formatted]")
	[[ $(jq -r '[.[] | select(.value.name == "spine") | .value.lb_mode] | first' <<<"$j") == XL_LB_FLOWLET ]]
	# port_stats: each CPU's entry names its port; verdicts and reasons
	# are structs with named fields, and they agree with xdpleaf stats
	j=$(bpftool -j map dump pinned "$d/port_stats" | jq "[.[].formatted]")
	[[ $(jq -r '[.[].values[0].value.port | select(. != "")] | sort | join(",")' <<<"$j") == "s1,s2,s3,s4,u1,u2,u3,u4" ]]
	# s1's counters by name, summed over CPUs, are what stats says a
	# moment later (at most that: the daemon's probes may add packets)
	local fwd
	fwd=$(jq '[.[] | select(.values[0].value.port == "s1") | .values[].value.reason.forwarded] | add' <<<"$j")
	[[ $fwd -gt 0 && $fwd -le $(jqv "$(stats_json "$P")" '.ports[] | select(.name == "s1") | .reasons.forwarded') ]]
	jq -e '.[0].values[0].value.verdict | has("redirect") and has("pass") and has("drop")' <<<"$j" >/dev/null
	# queue_stats: (port, class) labels
	j=$(bpftool -j map dump pinned "$d/queue_stats" | jq "[.[].formatted]")
	[[ $(jq -r '[.[].values[0].value | select(.port == "s1") | .class_name] | sort | join(",")' <<<"$j") == "cnp,default,roce" ]]
}

@test "flow table: flows past its size are evicted, and counted" {
	local before j created evicted
	before=$(stats_json "$P")
	[[ $(jqv "$before" '.flow_table.capacity') -eq 1024 ]]
	send "$S1MAC" udp-flows 10.1.1.2 10.2.1.2 3000
	j=$(stats_json "$P")
	created=$(($(jqv "$j" '.flow_table.created') - $(jqv "$before" '.flow_table.created')))
	evicted=$(($(jqv "$j" '.flow_table.evicted') - $(jqv "$before" '.flow_table.evicted')))
	note "3000 new flows into a 1024-entry table: created +$created, evicted +$evicted, entries $(jqv "$j" '.flow_table.entries')"
	((created >= 3000))
	[[ $(jqv "$j" '.flow_table.entries') -le 1024 ]]
	# what is not in the table was evicted: all but the table's worth
	((evicted >= 3000 - 1024))
	[[ $(jqv "$j" '.flow_table.evicted') -eq $(($(jqv "$j" '.flow_table.created') - $(jqv "$j" '.flow_table.entries'))) ]]
}

# Last: it unloads leaf1's instance.
@test "events: the reader stops, saying so, when the instance is unloaded" {
	start_events --duration 60s
	in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P"
	local tries=100
	while kill -0 "$EV_PID" 2>/dev/null; do
		((tries-- > 0)) || { echo "events still running 5 s after the unload"; return 1; }
		sleep 0.05
	done
	wait_events
	grep -q "instance '$P' was unloaded" "$EV_ERR"
}
