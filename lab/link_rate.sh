#!/usr/bin/env bash
# Does a lab link (a TBF, as lab.sh --uplink-rates makes them, with one
# queue or the two of --switch-queues class) keep its rate when the CPUs
# are busy? Two namespaces joined by a veth, the link at RATE on one end,
# untagged UDP (the bulk queue) offered at 1.6 x RATE through it; the
# TBF's own counters over SECONDS give the rate it delivered in line
# bytes (frames plus their line overhead, as its rate counts them), first
# on idle CPUs, then beside HOGS busy loops (the lab's MPI ranks spin as
# these do). Printed as a fraction of RATE for each queue setting and
# burst. The busy loops call sched_yield() as they spin, as Open MPI's
# ranks do with mpi_yield_when_idle (the benchmark's setting).
# bench/results/2026-11-28-jct-notebook/README.md ("The lab's links ran
# below their rate") has the figures that set lab/lib.sh's TBF_BURST_US,
# and why a lone link is not the evidence.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/lab/lib.sh" # rate_bps, shape_link(_classes), in_ns

RATE=50M BURSTS=100,$TBF_BURST_US HOGS=8 SECONDS_=5 REPEATS=2 QUEUES=single
usage() {
	cat <<EOF
usage: lab/link_rate.sh [--rate R] [--bursts US,US,...] [--hogs N]
                        [--seconds S] [--repeats N] [--queues LIST]
  --rate R        the TBF's rate (default $RATE; K/M/G = 10^3/10^6/10^9)
  --bursts LIST   TBF buckets to compare, in microseconds of RATE (default
                  $BURSTS, the lab's; never below two full frames, as in
                  the lab)
  --hogs N        busy loops beside the loaded measurement (default $HOGS)
  --seconds S     length of one measurement (default $SECONDS_)
  --repeats N     measurements per burst and load (default $REPEATS)
  --queues LIST   the links to compare, comma-separated: single (the TBF's
                  one queue), class (lab.sh --switch-queues class's two)
                  (default $QUEUES)
Needs root, iproute2, iperf3 and python3. Creates namespaces xlr<pid>-a/-b and
removes them (and its busy loops) on exit.
EOF
}
while (($#)); do
	case $1 in
	--rate) RATE=${2:?--rate needs a value}; shift 2 ;;
	--bursts) BURSTS=${2:?--bursts needs a value}; shift 2 ;;
	--hogs) HOGS=${2:?--hogs needs a value}; shift 2 ;;
	--seconds) SECONDS_=${2:?--seconds needs a value}; shift 2 ;;
	--repeats) REPEATS=${2:?--repeats needs a value}; shift 2 ;;
	--queues) QUEUES=${2:?--queues needs a value}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "link_rate.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
die() { echo "link_rate.sh: $*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || die "needs root (namespaces and qdiscs)"
for tool in iperf3 python3; do
	command -v "$tool" >/dev/null || die "needs $tool"
done
BPS=$(rate_bps "$RATE") || die "bad --rate '$RATE' (a whole number of bit/s >= 1M, e.g. 50M)"
for n in "$HOGS" "$SECONDS_" "$REPEATS"; do
	[[ $n =~ ^[0-9]+$ ]] || die "--hogs, --seconds and --repeats take whole numbers"
done
IFS=, read -r -a bursts <<<"$BURSTS"
for us in "${bursts[@]}"; do
	[[ $us =~ ^[0-9]+$ ]] || die "bad burst '$us' (microseconds)"
done
IFS=, read -r -a queues <<<"$QUEUES"
for q in "${queues[@]}"; do
	[[ $q == single || $q == class ]] || die "bad queue setting '$q' (single or class)"
done

P=xlr$$
HOG_PIDS=()
cleanup() {
	((${#HOG_PIDS[@]} == 0)) || kill "${HOG_PIDS[@]}" 2>/dev/null || true
	ip netns del "$P-a" 2>/dev/null || true
	ip netns del "$P-b" 2>/dev/null || true
}
trap cleanup EXIT

ip netns add "$P-a"
ip netns add "$P-b"
ip link add la netns "$P-a" type veth peer name lb netns "$P-b"
ip -n "$P-a" addr add 10.77.0.1/24 dev la
ip -n "$P-b" addr add 10.77.0.2/24 dev lb
ip -n "$P-a" link set la up
ip -n "$P-b" link set lb up

# sent_bytes: the line bytes the TBF has let through: its frames' bytes
# plus each frame's TBF_OVERHEAD_BYTES, which its rate also pays for.
sent_bytes() {
	ip netns exec "$P-a" tc -s qdisc show dev la |
		sed -n 's/.*Sent \([0-9]*\) bytes \([0-9]*\) pkt.*/\1 \2/p' | head -1 |
		awk -v o="$TBF_OVERHEAD_BYTES" '{ print $1 + $2 * o }'
}

# measure: the fraction of RATE the link delivered over SECONDS_, with UDP
# offered at 1.6 x RATE (so it always has a queue) from 1 s before to 1 s
# after the window.
measure() {
	local b0 b1 t0 t1 client
	ip netns exec "$P-b" iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	local server=$!
	local tries=0
	until ip netns exec "$P-b" ss -Hltn 'sport = :5301' | grep -q .; do
		((++tries < 100)) || die "iperf3's server did not start listening"
		sleep 0.05
	done
	ip netns exec "$P-a" iperf3 -c 10.77.0.2 -p 5301 -u -l 1400 \
		-b $((BPS * 16 / 10)) -t $((SECONDS_ + 2)) >/dev/null 2>&1 &
	client=$!
	sleep 1 # the queue fills: not a synchronisation, the window's lead-in
	b0=$(sent_bytes) t0=$(date +%s%N)
	sleep "$SECONDS_"
	b1=$(sent_bytes) t1=$(date +%s%N)
	wait "$client" || true
	wait "$server" || true
	awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v r="$BPS" \
		'BEGIN { printf "%.3f", b * 8 / (t / 1e9) / r }'
}

hogs_start() {
	local i
	for ((i = 0; i < HOGS; i++)); do
		python3 -c 'import os
while True: os.sched_yield()' &
		HOG_PIDS+=($!)
	done
}
hogs_stop() {
	kill "${HOG_PIDS[@]}" 2>/dev/null || true
	wait "${HOG_PIDS[@]}" 2>/dev/null || true
	HOG_PIDS=()
}

printf '%-8s %-10s %s\n' queues burst_us "delivered/rate: idle ... | beside $HOGS busy loops ..."
for us in "${bursts[@]}"; do
	for q in "${queues[@]}"; do
		if [[ $q == class ]]; then
			shape_link_classes "$P-a" la "$BPS" 18 "$us"
		else
			shape_link "$P-a" la "$BPS" "$us"
		fi
		idle=() loaded=()
		for ((r = 0; r < REPEATS; r++)); do idle+=("$(measure)"); done
		hogs_start
		for ((r = 0; r < REPEATS; r++)); do loaded+=("$(measure)"); done
		hogs_stop
		printf '%-8s %-10s %s | %s\n' "$q" "$us" "${idle[*]}" "${loaded[*]}"
	done
done
