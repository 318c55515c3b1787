#!/usr/bin/env bats
# The leaf daemon mirrors the kernel's neighbour table into the
# dataplane's `neigh` map: uplink next hops are resolved without traffic,
# new neighbours appear, removed ones disappear (and their traffic goes to
# the kernel until it has resolved them again).

load helpers

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$n"
	"$LAB" up --prefix "$P" 3>&-
}

setup() {
	require_lab
}

teardown_file() {
	[[ -n ${P:-} ]] || return 0
	"$LAB" down --prefix "$P" 3>&-
}

neigh_json() {
	in_ns "$P-leaf1" "$XDPLEAF" neigh --json --instance "$P" | jq .neigh
}

# Poll (up to 5 s) until `xdpleaf neigh` lists address $1 on port $2
# (or, with $3 = absent, no longer lists it).
wait_neigh() {
	local addr=$1 port=$2 want=${3:-present} tries=100 n
	while ((tries-- > 0)); do
		n=$(neigh_json | jq --arg a "$addr" --arg p "$port" \
			'[.[] | select(.address == $a and .port == $p)] | length')
		[[ $want == present && $n -eq 1 ]] && return 0
		[[ $want == absent && $n -eq 0 ]] && return 0
		sleep 0.05
	done
	echo "neighbour $addr on $port not $want; map has:" >&2
	neigh_json >&2
	return 1
}

@test "uplink next hops are learned without any traffic" {
	local n
	for n in 1 2 3 4; do
		wait_neigh "10.254.$n.2" "u$n"
		wait_neigh "fd00:254:$n::2" "u$n"
	done
}

@test "the learned MAC is the spine's real MAC" {
	local n mac want
	for n in 1 2 3 4; do
		wait_neigh "10.254.$n.2" "u$n"
		want=$(ip -n "$P-sp$n" -j link show down | jq -r '.[0].address')
		mac=$(neigh_json | jq -r --arg a "10.254.$n.2" '.[] | select(.address == $a) | .mac')
		[[ $mac == "$want" ]] || { echo "u$n: map $mac, spine $want"; return 1; }
	done
}

@test "multicast neighbour entries are not mirrored" {
	local json mcast
	wait_neigh "fd00:254:1::2" u1 # the daemon has done its first dump
	json=$(neigh_json)
	mcast=$(jq '[.[] | select(.address | startswith("ff"))] | length' <<<"$json")
	[[ $mcast -eq 0 ]] || { echo "$json"; return 1; }
}

@test "a host appears when resolved and disappears when the kernel forgets it" {
	in_ns "$P-s2" ping -q -c1 -W2 10.2.2.2 >/dev/null
	wait_neigh 10.1.2.2 s2
	ip -n "$P-leaf1" neigh del 10.1.2.2 dev s2
	wait_neigh 10.1.2.2 s2 absent
	# Traffic resolves it again through the kernel, and the map follows.
	in_ns "$P-s2" ping -q -c2 -i 0.2 -W2 10.2.2.2 >/dev/null
	wait_neigh 10.1.2.2 s2
}

# u2's state in its group, as `xdpleaf stats --json` shows it: "v4 v6"
# with 1 for usable, 0 for not.
u2_usable() {
	in_ns "$P-leaf1" "$XDPLEAF" stats --json --instance "$P" |
		jq -r '.groups[].members[] | select(.port == "u2") |
			"\(if .up_ipv4 then 1 else 0 end) \(if .up_ipv6 then 1 else 0 end)"'
}

@test "an uplink that loses its link leaves its group, and returns per family once that next hop resolves" {
	# (down for 1.5 s: long enough for a once-a-second solicitation)
	local st tries t_up last=
	[[ $(u2_usable) == "1 1" ]]
	# The spine's end goes down: leaf1's u2 loses carrier (the spine's
	# routes through that interface are saved and put back: helpers.bash)
	spine_link_down "$P" 2
	restore() {
		spine_link_up "$P" 2
	}
	tries=100
	until [[ $(u2_usable) == "0 0" ]]; do
		((tries-- > 0)) || { restore; echo "u2 still usable: $(u2_usable)"; return 1; }
		sleep 0.05
	done
	sleep 1.5 # an outage the daemon's periodic solicitation runs through
	restore
	t_up=$(date +%s%N)
	# Back: each family returns only with its next hop in the map (read
	# after the state, so a next hop resolved in between cannot fail it).
	tries=200
	while :; do
		st=$(u2_usable)
		if [[ ${st% *} == 1 ]]; then
			neigh_json | jq -e '.[] | select(.address == "10.254.2.2" and .port == "u2")' >/dev/null ||
				{ echo "u2 usable for IPv4 without its next hop"; return 1; }
		fi
		if [[ ${st#* } == 1 ]]; then
			neigh_json | jq -e '.[] | select(.address == "fd00:254:2::2" and .port == "u2")' >/dev/null ||
				{ echo "u2 usable for IPv6 without its next hop"; return 1; }
		fi
		[[ $st == "${last:-}" ]] ||
			echo "# u2 usable (IPv4 IPv6): $st at +$((($(date +%s%N) - t_up) / 1000000)) ms" >&3
		last=$st
		[[ $st == "1 1" ]] && break
		((tries-- > 0)) || { echo "u2 not back after 10 s: $st"; return 1; }
		sleep 0.05
	done
	# resolution starts when the link comes back (the daemon leaves no
	# probing entry behind on a dead link): sooner than the kernel's own
	# retry of an unanswered solicitation (the port's retrans_time, 1 s
	# by default), which is what a neighbour left probing would wait for
	local back_ms retrans_ms
	back_ms=$((($(date +%s%N) - t_up) / 1000000))
	retrans_ms=$(in_ns "$P-leaf1" cat /proc/sys/net/ipv6/neigh/u2/retrans_time_ms)
	((back_ms < retrans_ms)) ||
		{ echo "u2 back only after $back_ms ms (retrans_time $retrans_ms ms)"; return 1; }
	# and it forwards again: a ping over every spine's path works
	in_ns "$P-s1" ping -q -c3 -i 0.2 -W2 10.2.1.2 >/dev/null
}

# Last: it changes s1's MAC for good.
@test "a host that changes its MAC without telling anyone is reached again through the fast path within 10 s" {
	local new=02:de:ad:00:00:01 t0 ms tries=300
	in_ns "$P-r1" ping -q -c3 -i 0.2 -W1 10.1.1.2 >/dev/null
	wait_neigh 10.1.1.2 s1
	# the kernel's entry REACHABLE with the old MAC, as after traffic
	ip -n "$P-s1" link set dev eth0 address "$new"
	t0=$(date +%s%N)
	until in_ns "$P-r1" ping -q -c1 -W0.2 10.1.1.2 >/dev/null 2>&1; do
		((tries-- > 0)) || { echo "s1 not reachable 60 s after its MAC changed"; return 1; }
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	note "s1 changed its MAC (no gratuitous ARP): r1 -> s1 again after $ms ms"
	((ms <= 10000))
	# and the fast path has the new MAC
	[[ $(neigh_json | jq -r '.[] | select(.address == "10.1.1.2" and .port == "s1") | .mac') == "$new" ]]
}
