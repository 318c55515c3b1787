#!/usr/bin/env bats
# hook = tc: the lab's leaf1 with its program at tc ingress (tcx links)
# instead of XDP. The traffic takes the program's path (leaf1's counters,
# not the kernel's forwarding), GRO aggregates arrive whole, status says
# where it runs, reload keeps the hook, unload leaves no program behind.

load helpers

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	if [[ -n $LAB_SKIP ]]; then
		return 0
	fi
	ensure_bpffs
	export P="xlt$$h"
	lab_up_ready "$P" --hook tc
	start_iperf_server "$P-r1"
}

setup() {
	require_lab
}

teardown_file() {
	if [[ -z ${P:-} ]]; then
		return 0
	fi
	stop_iperf_servers
	"$LAB" down --prefix "$P" 3>&-
}

@test "hook = tc: status says tc, every port's tcx link runs the instance's program; no XDP on any port" {
	local st
	st=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P")
	[[ $(jqv "$st" .hook) == tc ]]
	[[ $(jqv "$st" '[.ports[] | select(.attached)] | length') -eq 8 ]]
	[[ -z $(xdp_links "$P-leaf1") ]]
	# the kernel's view: eight tcx links (type 11; this bpftool predates
	# the name) run the instance's program
	[[ $(tcx_links_of "$(jqv "$st" .prog_id)") -eq 8 ]]
}

# leaf1's uplinks as the kernel counts them: "bytes packets dropped" summed
uplinks_tx() {
	ip -n "$P-leaf1" -s -j link show | jq -r '[.[] | select(.ifname | test("^u[1-4]$"))
		| .stats64.tx] | "\([.[].bytes] | add) \([.[].packets] | add) \([.[].dropped] | add)"'
}

@test "hook = tc: TCP crosses leaf1 on the program's path, as GRO aggregates, not through the kernel's forwarding" {
	local before after json fwd0 fwd1 rx redir rxb bytes k0 k1 kb kp kd mb
	fwd0=$(in_ns "$P-leaf1" nstat -az IpForwDatagrams | awk '/IpForwDatagrams/ {print $2}')
	before=$(stats_json "$P")
	k0=$(uplinks_tx)
	json=$(in_ns "$P-s1" timeout 30 iperf3 -c 10.2.1.2 -t 1 -J) ||
		{ echo "iperf3: $json"; return 1; }
	k1=$(uplinks_tx)
	after=$(stats_json "$P")
	fwd1=$(in_ns "$P-leaf1" nstat -az IpForwDatagrams | awk '/IpForwDatagrams/ {print $2}')
	bytes=$(jqv "$json" '.end.sum_received.bytes')
	rx=$(($(jqv "$after" '.ports[] | select(.name == "s1") | .rx_packets') -
		$(jqv "$before" '.ports[] | select(.name == "s1") | .rx_packets')))
	rxb=$(($(jqv "$after" '.ports[] | select(.name == "s1") | .rx_bytes') -
		$(jqv "$before" '.ports[] | select(.name == "s1") | .rx_bytes')))
	redir=$(($(jqv "$after" '.ports[] | select(.name == "s1") | .verdicts.redirect') -
		$(jqv "$before" '.ports[] | select(.name == "s1") | .verdicts.redirect')))
	note "tc: $((bytes / 1000000)) MB received; s1 rx $rx packets, $rxb bytes" \
		"($((rxb / (rx > 0 ? rx : 1))) per packet), redirect $redir; kernel forwarded $((fwd1 - fwd0))"
	((bytes > 0 && rx > 0))
	# every data packet on the program's path, the kernel forwarded
	# (almost) none of them: at most what the neighbour resolution needs
	((redir * 100 >= rx * 99))
	((fwd1 - fwd0 <= rx / 100 + 5))
	# aggregates: more bytes per packet than one frame can hold
	((rxb / rx > 1514))
	# ... each of which left as frames with their own headers: the bytes
	# leaf1 counted on its uplinks are the wire's, as the uplinks' veths
	# count them (plus the 14-byte Ethernet header a veth leaves out of
	# each skb it hands its peer's NAPI). Counting an aggregate's headers
	# once was 1-4 % short.
	kb=$(($(cut -d' ' -f1 <<<"$k1") - $(cut -d' ' -f1 <<<"$k0")))
	kp=$(($(cut -d' ' -f2 <<<"$k1") - $(cut -d' ' -f2 <<<"$k0")))
	kd=$(($(cut -d' ' -f3 <<<"$k1") - $(cut -d' ' -f3 <<<"$k0")))
	mb=$(($(jqv "$after" '[.ports[] | select(.role == "uplink") | .tx_bytes] | add') -
		$(jqv "$before" '[.ports[] | select(.role == "uplink") | .tx_bytes] | add')))
	note "uplinks: the veths counted $kb bytes in $kp frames (+ 14 each: $((kb + 14 * kp))), leaf1 $mb bytes;" \
		"dropped there $kd"
	((kb > 0))
	# a frame a veth dropped (its peer's ring full) the leaf has counted
	# already: up to a full frame each on top
	((mb * 1000 >= (kb + 14 * kp) * 997 && mb * 1000 <= (kb + 14 * kp + 1514 * kd) * 1003))
}

@test "hook = tc: upgrade switches the tcx links to the new program, keeps the hook and the counters" {
	local st0 st1 id0 id1 rx0 rx1
	st0=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P")
	rx0=$(jqv "$(stats_json "$P")" '.ports[] | select(.name == "s1") | .rx_packets')
	run in_ns "$P-leaf1" "$XDPLEAF" upgrade --instance "$P"
	[[ $status -eq 0 && $output == *"8 tc links switched"* ]] || { echo "$output"; return 1; }
	st1=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P")
	id0=$(jqv "$st0" .prog_id)
	id1=$(jqv "$st1" .prog_id)
	rx1=$(jqv "$(stats_json "$P")" '.ports[] | select(.name == "s1") | .rx_packets')
	note "upgrade: program $id0 -> $id1, s1 rx_packets $rx0 -> $rx1"
	((id1 != id0))
	[[ $(jqv "$st1" .hook) == tc && $(jqv "$st1" '[.ports[] | select(.attached)] | length') -eq 8 ]]
	[[ $(tcx_links_of "$id1") -eq 8 && $(tcx_links_of "$id0") -eq 0 ]]
	((rx1 >= rx0 && rx0 > 0))
	in_ns "$P-s1" ping -c 1 -W 2 10.2.1.2 >/dev/null
}

@test "hook = tc: reload with hook = xdp is refused and changes nothing, with auto keeps tc; unload leaves no tc program" {
	local xconf st
	xconf=$(conf_at_xdp "$ROOT/lab/leaf1.conf")
	run in_ns "$P-leaf1" "$XDPLEAF" reload --config "$xconf" --instance "$P"
	[[ $status -ne 0 ]]
	[[ $output == *"hook = xdp, but the instance is attached at tc"* ]] || { echo "$output"; return 1; }
	st=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P")
	[[ $(jqv "$st" .hook) == tc && $(jqv "$st" '[.ports[] | select(.attached)] | length') -eq 8 ]]
	local id
	id=$(jqv "$st" .prog_id)
	[[ $(tcx_links_of "$id") -eq 8 ]]
	# lab/leaf1.conf says no hook: auto, content with the instance's
	run in_ns "$P-leaf1" "$XDPLEAF" reload --config "$ROOT/lab/leaf1.conf" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	[[ $(tcx_links_of "$id") -eq 8 ]]
	in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P"
	[[ $(tcx_links_of "$id") -eq 0 ]]
	# and the lab forwards again, in the kernel
	in_ns "$P-s1" ping -c 1 -W 2 10.2.1.2 >/dev/null
}
