#!/usr/bin/env bats
# `xdpleaf gen` through the whole lab fabric at full speed: s1 -> leaf1
# (xdpleaf) -> spines (kernel forwarding) -> leaf2 (xdpleaf) -> r1 (sink).
# Every hop after gen rewrites the frames in place (MACs, TTL, checksum),
# and in live-frames mode those pages come back to gen's page pool
# (bpf/gen.bpf.c): a frame gen sent with a stale header would reach leaf1
# with a later hop's MACs (leaf1 counts it as not_our_mac and hands it to
# the kernel) or arrive with headers that disagree (the sink counts it as
# malformed), and its PSN would be missing at the sink (lost). 10^6 frames,
# default batch, no --rate; then the same with host mode (DCQCN) loaded on
# s1 and gen paced by s1's reaction point (--rate-map), the path where gen
# runs the RP's accounting between batches. (r1's notification point is
# dcqcn.bats's: here it would take every frame through r1's kernel stack.)

load helpers

N=1000000
PINS=/sys/fs/bpf/xdpleaf

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$n"
	"$LAB" up --prefix "$P" --leaf2-config "$ROOT/lab/leaf2.conf" 3>&-
	# gen sends to the gateway's MAC; leaf1 and leaf2 learn the path
	in_ns "$P-s1" ping -q -c1 -W2 10.2.1.2 >/dev/null
	wait_neigh_listed "$P-leaf1" "$P" 10.1.1.2 10.254.{1..4}.2
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	"$LAB" down --prefix "$P" 3>&- || true
}

setup() {
	require_lab
	SINK_PID=
}

teardown() {
	local n
	if [[ -n ${SINK_PID-} ]]; then
		kill "$SINK_PID" 2>/dev/null || true
		wait "$SINK_PID" 2>/dev/null || true
	fi
	# shellcheck disable=SC2043 # the senders with a host instance: s1 today
	for n in s1; do
		[[ -d $PINS/${P}_$n ]] || continue
		in_ns "$P-$n" "$XDPLEAF" unload --instance "${P}_$n" >/dev/null 2>&1 3>&- || true
	done
}

s1_counter() { # leaf1's port s1: a field of its stats JSON
	stats_json "$P" | jq ".ports[] | select(.name == \"s1\") | $1"
}

# Frames s1's kernel sent (ARP, ND, MLD: not gen's): its interface's
# transmit count less the XDP frames among them.
s1_kernel_tx() {
	local all xdp
	all=$(ip -n "$P-s1" -s -j link show eth0 | jq '.[0].stats64.tx.packets')
	xdp=$(in_ns "$P-s1" ethtool -S eth0 | awk '$1 == "tx_queue_0_xdp_xmit:" {print $2}')
	echo $((all - xdp))
}

# Every drop counter of the lab's interfaces, summed: where frames went
# missing, if they did.
lab_drops() {
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep "^$P-"); do
		ip -n "$ns" -s -j link show |
			jq -r --arg ns "$ns" '.[] | select(.stats64.rx.dropped + .stats64.tx.dropped > 0) |
				"\($ns)/\(.ifname): rx_dropped \(.stats64.rx.dropped) tx_dropped \(.stats64.tx.dropped)"'
	done
}

# Frames an XDP_REDIRECT in the lab could not put into the next veth's
# ring (it was full: that veth's receiver was behind), summed over every
# interface of the lab: ethtool's xdp_xmit_errors, which the interfaces'
# own drop counters leave out; and skbs a veth could not pass on for the
# same reason (a leaf at tc redirects skbs): its TX dropped. A busy
# receiver loses frames so, as a real NIC whose ring is full does;
# counted, they are accounted for. s1's eth0 is left out: its count is
# gen's own device drops (dev_tx_dropped).
lab_ring_drops() {
	local ns dev sum=0 n
	for ns in $(ip netns list | awk '{print $1}' | grep "^$P-"); do
		for dev in $(ip -n "$ns" -j link show type veth | jq -r '.[].ifname'); do
			[[ $ns == "$P-s1" && $dev == eth0 ]] && continue
			n=$(in_ns "$ns" ethtool -S "$dev" |
				awk '/xdp_xmit_errors:/ { s += $2 } END { print s + 0 }')
			# and skbs sent into a full ring (a leaf at tc): the
			# veth's TX dropped
			n=$((n + $(ip -n "$ns" -s -j link show dev "$dev" | jq '.[0].stats64.tx.dropped')))
			sum=$((sum + n))
		done
	done
	echo "$sum"
}

# gen N frames from s1 to r1 at full speed with the default batch and
# check every one arrived as gen meant it. Extra arguments go to gen;
# SINK_ARGS to the sink.
through_fabric() {
	local nom0 out=$BATS_TEST_TMPDIR/sink.json err=$BATS_TEST_TMPDIR/sink.err
	local c0 g s nom k0 kernel ring0 ring drops
	# s1's kernel's frames are counted where it sends them first, at
	# leaf1 a moment later: read s1 before leaf1 here and leaf1 before s1
	# at the end, so no frame of its can be in leaf1's count alone
	k0=$(s1_kernel_tx)
	nom0=$(s1_counter .reasons.not_our_mac)
	c0=$(sink_consumed "$P-r1" eth0)
	ring0=$(lab_ring_drops)
	# nsenter execs the sink, so $! is the sink itself
	# shellcheck disable=SC2086 # SINK_ARGS: the options' words
	nsenter --net="/run/netns/$P-r1" -- "$XDPLEAF" sink --dev eth0 --json ${SINK_ARGS-} \
		>"$out" 2>"$err" 3>&- &
	SINK_PID=$!
	until grep -q ready "$err"; do
		kill -0 "$SINK_PID" 2>/dev/null || { cat "$err"; return 1; }
		sleep 0.05
	done
	g=$(in_ns "$P-s1" "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 --qps 4 --count "$N" --json "$@")
	# the sink counts until it has consumed every frame s1's device sent
	# (or 10 s pass)
	drops=$(jqv "$g" '.dev_tx_dropped')
	wait_sink_consumed "$P-r1" eth0 "$c0" $((N - drops))
	kill -TERM "$SINK_PID"
	wait "$SINK_PID"
	SINK_PID=
	s=$(<"$out")
	nom=$(($(s1_counter .reasons.not_our_mac) - nom0))
	kernel=$(($(s1_kernel_tx) - k0))
	ring=$(($(lab_ring_drops) - ring0))
	note "gen: $(jqv "$g" '.packets') frames in $(jqv "$g" '.seconds * 1000 | floor') ms" \
		"($(jqv "$g" '.pps / 1000 | floor') kpps), device drops $(jqv "$g" '.dev_tx_dropped')," \
		"full rings in the lab $ring;" \
		"leaf1 not_our_mac from s1: $nom (s1's kernel sent $kernel frames); sink: $(jqv "$s" '.total | {packets, lost, malformed, trunc_bth, reordered, duplicates} | tojson')"
	echo "gen: $g"
	echo "sink: $s"
	echo "drops in the lab: $(lab_drops)"
	[[ $(jqv "$g" '.packets') -eq $N ]]
	# s1's veth may drop a few frames when gen runs ahead of the peer's
	# NAPI on a busy machine (its ring is full; gen backs off): counted,
	# under 1 %, and then every frame the device did send must arrive
	((drops * 100 < N))
	# none of gen's frames was misaddressed: leaf1's not_our_mac can only
	# have counted frames of s1's kernel (IPv6 multicast, say)
	((nom <= kernel))
	[[ $(jqv "$s" '.total.malformed') -eq 0 ]]
	[[ $(jqv "$s" '.total.trunc_bth') -eq 0 ]]
	[[ $(jqv "$s" '.total.duplicates') -eq 0 ]]
	# lost counts holes (drops in the middle of a QP's PSNs), the packet
	# count a missing tail too: all of it is the device's drops and frames
	# a full ring in the lab took (which may also have been s1's kernel's)
	# (a full ring inside the lab, too, may take under 1 %)
	((ring * 100 < N))
	(($(jqv "$s" '.total.lost') <= drops + ring))
	(($(jqv "$s" '.total.packets') <= N - drops))
	(($(jqv "$s" '.total.packets') >= N - drops - ring))
	[[ $(jqv "$s" '.qps | length') -eq 4 ]]
	[[ $(jqv "$s" '[.qps[] | select(.src == "10.1.1.2" and .first_psn == 0)] | length') -eq 4 ]]
	((drops + ring > 0)) || [[ $(jqv "$s" '[.qps[] | select(.last_psn == 249999)] | length') -eq 4 ]]
}

@test "gen through the fabric: 10^6 frames at full speed, default batch: none misaddressed, malformed or lost" {
	through_fabric
}

@test "the same with host mode on s1: gen paced by its DCQCN reaction point (--rate-map)" {
	local sconf=$BATS_TEST_TMPDIR/s1.conf
	printf '[xdpleaf]\nmode = host\n\n[port eth0]\nrate = 100G\n\n[dcqcn]\nnp = no\n' >"$sconf"
	in_ns "$P-s1" "$XDPLEAF" load --config "$sconf" --instance "${P}_s1" 3>&-
	through_fabric --rate-map "$PINS/${P}_s1/rp_rates"
	# the RP accounted every QP gen sent on
	local q
	q=$(in_ns "$P-s1" "$XDPLEAF" qps --json --instance "${P}_s1")
	[[ $(jqv "$q" '.rp_flows | length') -eq 4 ]]
}
