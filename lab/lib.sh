# shellcheck shell=bash
# Shell functions shared by lab/lab.sh, the benchmarks (bench/*/run.sh)
# and the lab tests (tests/lab/helpers.bash): sourced, never run. The
# caller sets XDPLEAF. Each is written here once.

# Run a command inside a lab namespace. nsenter --net keeps our mount
# namespace, so the bpffs at /sys/fs/bpf stays visible (ip netns exec
# would remount /sys and hide the pinned maps).
in_ns() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" -- "$@"
}

# conf_with_hook FILE HOOK: the xdpleaf config FILE on stdout with
# `hook = HOOK` in its [xdpleaf] section (a hook line it had dropped; the
# section added first if it had none).
conf_with_hook() {
	local file=$1 hook=$2
	if grep -q '^\[xdpleaf\]' "$file"; then
		awk -v hook="$hook" '
			/^[ \t]*hook[ \t]*=/ { next }
			{ print }
			/^\[xdpleaf\]/ { print "hook = " hook }' "$file"
	else
		printf '[xdpleaf]\nhook = %s\n\n' "$hook"
		cat "$file"
	fi
}

# wait_neigh_listed NS INSTANCE ADDR...: wait (up to ~5 s) until the xdpleaf
# instance in namespace NS lists every ADDR in `xdpleaf neigh` (its
# daemon has learned them). 1 if not, with what it lists on stderr.
wait_neigh_listed() {
	local ns=$1 inst=$2 tries=50 out a missing
	shift 2
	while ((tries-- > 0)); do
		out=$(in_ns "$ns" "$XDPLEAF" neigh --instance "$inst" 2>/dev/null || true)
		missing=0
		for a in "$@"; do
			grep -qF "$a" <<<"$out" || missing=1
		done
		((missing == 0)) && return 0
		sleep 0.1
	done
	echo "$inst did not list all of: $*; it has:" >&2
	echo "$out" >&2
	return 1
}

# xdpleaf pins maps into bpffs; mount it if this machine has not yet.
ensure_bpffs() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
}

# A rate in bit/s from xdpleaf's syntax (200M, 2.5G, 400000000): prints the
# whole number of bit/s, or fails (not a rate, not whole, below 1M).
rate_bps() {
	local v=$1 num mult=1
	[[ $v =~ ^([0-9]+(\.[0-9]{1,6})?)([KMGT]?)$ ]] || return 1
	num=${BASH_REMATCH[1]}
	case ${BASH_REMATCH[3]} in
	K) mult=1000 ;; M) mult=1000000 ;; G) mult=1000000000 ;;
	T) mult=1000000000000 ;;
	esac
	awk -v n="$num" -v m="$mult" 'BEGIN {
		b = n * m; if (b != int(b) || b < 1000000) exit 1
		printf "%.0f\n", b }'
}

# A lab link of a given rate is a TBF (lab.sh --uplink-rates and
# --receiver-rate, lab/link_rate.sh). Its sizes are in time of the rate, so
# every link keeps the same buffer in time: a tail-drop buffer of
# TBF_BUFFER_US (a realistic switch-port buffer at this scale: it absorbs
# the sub-millisecond bursts a paced sender makes, but a link loaded past
# its rate queues by up to 2 ms and then drops) and a bucket of
# TBF_BURST_US. The bucket is what keeps the link at its rate when the
# TBF's dequeue timer fires late: tokens past the bucket are lost, so a
# busy CPU that delays the timer by more than the bucket takes capacity
# away. 100 us lost 11-14 % of the rate beside eight MPI ranks on two
# cores; with 1 ms the loss stops (2 ms is no faster). Both are at least
# two full frames, so back-to-back frames are not cut.
# docs/load-balancing-bench.md and bench/results/2026-11-28-jct-notebook/
# README.md ("The lab's links ran below their rate") have the figures.
TBF_BURST_US=1000
TBF_BUFFER_US=2000
# Each frame also takes Ethernet's 24 bytes of line overhead (preamble and
# delimiter, FCS, inter-frame gap), as on a real port and in the leaf's
# phantom queues (`line_overhead`, XL_DEFAULT_LINE_OVERHEAD): a lab link
# of 100 Mbit/s carries 98.4 Mbit/s of 1,514-byte frames.
TBF_OVERHEAD_BYTES=24

# link_sizes NS DEV BPS BURST_US: the sizes of a link of BPS bit/s on DEV
# of namespace NS (above), in bytes: LINK_FRAME (a full frame), LINK_BURST
# (the bucket) and LINK_LIMIT (the buffer).
link_sizes() {
	local ns=$1 dev=$2 bps=$3 burst_us=$4 mtu
	mtu=$(ip -n "$ns" -o link show dev "$dev" |
		sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
	LINK_FRAME=$((mtu + 14))
	LINK_BURST=$((bps * burst_us / 8000000))
	((LINK_BURST >= 2 * LINK_FRAME)) || LINK_BURST=$((2 * LINK_FRAME))
	LINK_LIMIT=$((bps * TBF_BUFFER_US / 8000000))
	((LINK_LIMIT >= 2 * LINK_FRAME)) || LINK_LIMIT=$((2 * LINK_FRAME))
}

# shape_link NS DEV BPS [BURST_US]: DEV of namespace NS becomes a link of
# BPS bit/s with one queue (a TBF as above; BURST_US replaces
# TBF_BURST_US, for lab/link_rate.sh's comparisons).
shape_link() {
	local ns=$1 dev=$2 bps=$3 burst_us=${4:-$TBF_BURST_US}
	link_sizes "$ns" "$dev" "$bps" "$burst_us"
	in_ns "$ns" tc qdisc replace dev "$dev" root tbf rate "${bps}bit" \
		burst "$LINK_BURST" limit "$LINK_LIMIT" overhead "$TBF_OVERHEAD_BYTES"
}

# The bulk class's guaranteed share of a link with class queues, in
# percent: small, so the latency class keeps nearly all of the link.
SWQ_BULK_PERCENT=1

# shape_link_classes NS DEV BPS DSCPS [BURST_US]: DEV of namespace NS
# becomes a link of BPS bit/s with two queues, as a switch port that maps
# DSCP to priority queues: packets whose DSCP is in DSCPS (comma-separated)
# go to a latency queue served with strict priority, everything else
# (IPv4, IPv6, ARP) to a bulk queue. An HTB with the TBF's rate, bucket
# (burst, cburst), line overhead and buffer (a bfifo per queue):
#   1:   htb, default 1:20
#   1:1  the link: rate = ceil = BPS
#   1:10 latency: rate = ceil = BPS, prio 0
#   1:20 bulk: rate SWQ_BULK_PERCENT of BPS, ceil BPS, prio 1
# Why that is strict priority: HTB first serves the classes that are
# within their own rate ("green"), by prio, and only then those that
# borrow from their parent ("yellow"), by prio. The latency class's rate
# is the whole link, so it is green whenever its traffic fits the link
# and goes before the bulk class's borrowed traffic, and before the bulk
# class's own small rate by prio: a latency packet waits at most for the
# frame being sent. Every send is charged to the link class, so the bulk
# class borrows only what the latency class left; the link exceeds BPS
# by at most the bulk class's own rate, and only while the latency class
# alone fills it. The line overhead is the classes' `overhead`, the TBF's
# mechanism, so the byte counters and the bfifo count frames as the
# TBF's do (a `stab` would add it to both). Each class has its quantum
# (one frame): HTB's default, its rate / r2q, is out of range at these
# rates and the kernel warns. tc's ip6 priority is the traffic class
# byte, 0xfc its DSCP bits.
shape_link_classes() {
	local ns=$1 dev=$2 bps=$3 dscps=$4 burst_us=${5:-$TBF_BURST_US} d tos
	local -a list
	link_sizes "$ns" "$dev" "$bps" "$burst_us"
	local cls="burst $LINK_BURST cburst $LINK_BURST overhead $TBF_OVERHEAD_BYTES quantum $LINK_FRAME"
	IFS=, read -r -a list <<<"$dscps"
	# a root of another kind (a TBF, or none) goes: classes are added anew
	in_ns "$ns" tc qdisc del dev "$dev" root 2>/dev/null || true
	{
		echo "qdisc add dev $dev root handle 1: htb default 20"
		echo "class add dev $dev parent 1: classid 1:1 htb rate ${bps}bit ceil ${bps}bit $cls"
		echo "class add dev $dev parent 1:1 classid 1:10 htb rate ${bps}bit ceil ${bps}bit prio 0 $cls"
		echo "class add dev $dev parent 1:1 classid 1:20 htb rate $((bps * SWQ_BULK_PERCENT / 100))bit ceil ${bps}bit prio 1 $cls"
		echo "qdisc add dev $dev parent 1:10 handle 10: bfifo limit $LINK_LIMIT"
		echo "qdisc add dev $dev parent 1:20 handle 20: bfifo limit $LINK_LIMIT"
		for d in "${list[@]}"; do
			tos=$(printf '0x%02x' $((10#$d << 2)))
			echo "filter add dev $dev parent 1: protocol ip prio 1 u32 match ip dsfield $tos 0xfc flowid 1:10"
			echo "filter add dev $dev parent 1: protocol ipv6 prio 2 u32 match ip6 priority $tos 0xfc flowid 1:10"
		done
	} | in_ns "$ns" tc -batch -
}

# dscp_list LIST: 0 if LIST is DSCPs (0-63), comma-separated.
dscp_list() {
	local IFS=, d
	local -a list
	[[ $1 =~ ^[0-9]+(,[0-9]+)*$ ]] || return 1
	read -r -a list <<<"$1"
	for d in "${list[@]}"; do
		[[ $d =~ ^[0-9]{1,2}$ ]] && ((10#$d <= 63)) || return 1
	done
}

# The lab's addresses (docs/lab.md): host n (1..4) behind leaf1 is sn at
# 10.1.n.2 / fd00:1:n::2, behind leaf2 rn at 10.2.n.2 / fd00:2:n::2; spine n
# is 10.254.n.2 / fd00:254:n::2 toward leaf1 and 10.253.n.2 toward leaf2,
# whose end is 10.253.n.1.
LAB_N=(1 2 3 4)
lab_sender4() { echo "10.1.$1.2"; }
lab_sender6() { echo "fd00:1:$1::2"; }
lab_receiver4() { echo "10.2.$1.2"; }
lab_receiver6() { echo "fd00:2:$1::2"; }
lab_spine4() { echo "10.254.$1.2"; }
lab_spine6() { echo "fd00:254:$1::2"; }

# lab_warm_up P [4|46]: fill the neighbour tables before measuring, so no
# flow starts on a slow path: leaf1 resolves every spine and every sender,
# leaf2 every spine, and every sender reaches every receiver once; IPv4, or
# IPv4 and IPv6 (46). Unreachable pings are not errors here (a test that
# needs a path asserts it).
lab_warm_up() {
	local p=$1 fams=${2:-4} n r
	for n in "${LAB_N[@]}"; do
		in_ns "$p-leaf1" ping -q -c1 -W2 "$(lab_spine4 "$n")" >/dev/null || true
		in_ns "$p-leaf1" ping -q -c1 -W2 "$(lab_sender4 "$n")" >/dev/null || true
		in_ns "$p-leaf2" ping -q -c1 -W2 "10.253.$n.1" >/dev/null || true
		if [[ $fams == 46 ]]; then
			in_ns "$p-leaf1" ping -q -6 -c1 -W2 "$(lab_spine6 "$n")" >/dev/null || true
			in_ns "$p-leaf1" ping -q -6 -c1 -W2 "$(lab_sender6 "$n")" >/dev/null || true
		fi
		for r in "${LAB_N[@]}"; do
			in_ns "$p-s$n" ping -q -c1 -W2 "$(lab_receiver4 "$r")" >/dev/null || true
			[[ $fams != 46 ]] ||
				in_ns "$p-s$n" ping -q -6 -c1 -W2 "$(lab_receiver6 "$r")" >/dev/null || true
		done
	done
}

# lab_wait_neigh P: in xdp mode, wait (up to ~5 s) until leaf1's xdpleaf
# (instance P) lists every spine and sender lab_warm_up resolved. 1, with
# what it has on stderr, if not.
lab_wait_neigh() {
	wait_neigh_listed "$1-leaf1" "$1" 10.254.{1..4}.2 10.1.{1..4}.2
}

# CPU busy % over the next half second, all CPUs.
cpu_busy_now() {
	local a b
	a=$(grep '^cpu ' /proc/stat)
	sleep 0.5
	b=$(grep '^cpu ' /proc/stat)
	echo "$a $b" | awk '{ for (i = 2; i <= 11; i++) t += $(i + 11) - $i
		printf "%.0f\n", t ? 100 * (1 - ($16 - $5 + $17 - $6) / t) : 0 }'
}

# quiet_gate DIR SECONDS: before a measurement, wait up to SECONDS until
# nothing else keeps the CPUs busy (a lab is idle between measurements,
# so what is busy is other work on this machine: the shaped links are
# timers and softirqs and lose rate when they queue for a CPU). Writes the
# last reading to DIR/busy_before; says on stderr when it waited or gave up.
quiet_gate() {
	local dir=$1 wait_s=$2 busy waited=0
	while :; do
		busy=$(cpu_busy_now)
		if ((busy <= 20 || waited >= wait_s * 2)); then
			break
		fi
		((waited == 0)) && echo "  CPUs ${busy}% busy with other work: waiting up to ${wait_s} s" >&2
		waited=$((waited + 1))
	done
	echo "$busy" >"$dir/busy_before"
	((busy <= 20)) || echo "  warning: starting with the CPUs ${busy}% busy with other work" >&2
}
