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
	# a TBF from before would keep its queues (shape_link_classes)
	in_ns "$ns" tc qdisc del dev "$dev" root 2>/dev/null || true
	in_ns "$ns" tc qdisc add dev "$dev" root handle 1: tbf rate "${bps}bit" \
		burst "$LINK_BURST" limit "$LINK_LIMIT" overhead "$TBF_OVERHEAD_BYTES"
}

# shape_link_classes NS DEV BPS DSCPS [BURST_US]: DEV of namespace NS
# becomes a link of BPS bit/s with two queues, as a switch port that maps
# DSCP to priority queues: packets whose DSCP is in DSCPS (comma-separated)
# go to a latency queue served with strict priority, everything else
# (IPv4, IPv6, ARP) to a bulk queue, each a bfifo of the link's buffer.
#   1:   tbf, the link of shape_link: rate, bucket, line overhead
#   2:   htb under it (default 2:20), only to order the queues:
#   2:10 latency: prio 0    2:20 bulk: prio 1
# The TBF shapes, so the link has the single queue's rate exactly: an HTB
# shaping at the same rate and bucket carried 0.94-0.96 of it under the
# lab's bulk TCP on two busy cores, where the TBF carried 0.99-1.02. The
# HTB's classes have rates far above the link's (SWQ_ORDER_X times), so
# both are always within their rate ("green") and HTB serves green
# classes by prio: strict priority. The TBF takes the HTB's next packet
# once it has the tokens for it (it peeks, and the HTB hands out the
# packet it chose), so a latency packet waits for at most that one bulk
# frame and the tokens of both, as on a switch port that finishes the
# frame on the wire. Each class has its quantum (one frame): HTB's
# default, rate / r2q, is out of range at these rates and tc warns. tc's
# ip6 priority is the traffic class byte; mask 0xfc takes its DSCP bits.
SWQ_ORDER_X=10
shape_link_classes() {
	local ns=$1 dev=$2 bps=$3 dscps=$4 d tos
	local -a list
	shape_link "$ns" "$dev" "$bps" "${5:-$TBF_BURST_US}"
	local cls="htb rate $((bps * SWQ_ORDER_X))bit burst $LINK_BURST quantum $LINK_FRAME"
	IFS=, read -r -a list <<<"$dscps"
	{
		echo "qdisc add dev $dev parent 1:1 handle 2: htb default 20"
		echo "class add dev $dev parent 2: classid 2:10 $cls prio 0"
		echo "class add dev $dev parent 2: classid 2:20 $cls prio 1"
		echo "qdisc add dev $dev parent 2:10 handle 10: bfifo limit $LINK_LIMIT"
		echo "qdisc add dev $dev parent 2:20 handle 20: bfifo limit $LINK_LIMIT"
		for d in "${list[@]}"; do
			tos=$(printf '0x%02x' $((10#$d << 2)))
			echo "filter add dev $dev parent 2: protocol ip prio 1 u32 match ip dsfield $tos 0xfc flowid 2:10"
			echo "filter add dev $dev parent 2: protocol ipv6 prio 2 u32 match ip6 priority $tos 0xfc flowid 2:10"
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
