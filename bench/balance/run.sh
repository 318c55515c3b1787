#!/usr/bin/env bash
# Load-balancing benchmark: the same workloads through leaf1 in every
# lb_mode (hash, flowlet, flowlet-random, spray) and through kernel ECMP,
# over uplinks with real capacity (TBF on each spine's egress toward
# leaf2), workload 5 also through a non-blocking reference, and one table
# of the results. docs/load-balancing-bench.md.
#
#   bench/balance/run.sh [--modes LIST] [--workloads LIST] [--seconds N]
#                            [--steps N] [--out DIR] [--prefix P]
#                            [--no-cpu-check] [--quiet-wait N]
#
# Workloads: 1 one sender, 8 QPs, NCCL-like messages; 2 four senders x 4
# QPs into one receiver; 3 as 2 over unequal uplinks (2:1:1:1); 4 as 2 with
# one uplink failing and coming back; 5 synchronized TCP collective steps.
# Mode ref (workload 5 only): the non-blocking reference, kernel forwarding
# over unlimited uplinks with each receiver's link shaped to one uplink's
# rate instead: the same 4 connections per TBF, without a balancer.
# Every lab it builds is removed on exit, also on failure or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BENCH_NAME=bench_balance
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
XDPLEAF=$ROOT/build/xdpleaf
BENCH=$ROOT/bench/balance

MODES="ref kernel hash flowlet flowlet-random spray"
WORKLOADS="1 2 3 4 5"
RUN_SECONDS=5      # each of workloads 1-3 (4 has its own 9 s timeline)
STEPS=25           # measured steps of workload 5 (after 2 warm-up steps)
RATE=100M          # every uplink's capacity ...
RATE_BIG=200M      # ... except u1's in workload 3 (2:1:1:1)
BUFFER_US=2000     # TBF limit, in time at the rate (leaf1's default buffer
                   # is the same 2 ms of its rate: config.md)
LOAD=0.7           # mean offered load / aggregate capacity, workloads 1-3
FAIL_LOAD=0.5      # workload 4: 0.67 of the three uplinks left (0.83 at peak)
DUTY=0.8           # NCCL-like QPs send 80 % of the time, in 256K messages
MESSAGE=262144
SIZE=1400          # RoCE payload per packet: 1458-byte frames
FRAME_OVERHEAD=58  # Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4
TCP_BYTES=262144   # workload 5: bytes per connection per step
TCP_CONNS=4        # connections per sender
OUT=
PREFIX=xlb$$
CPU_CHECK=1
QUIET_WAIT=60      # seconds to wait, before each run, for other work to end

usage() {
	cat >&2 <<EOF
usage: $0 [--modes LIST] [--workloads LIST] [--seconds N] [--steps N]
          [--out DIR] [--prefix P] [--no-cpu-check] [--quiet-wait N]
  --modes LIST      of ref kernel hash flowlet flowlet-random spray (default:
                    all; ref, the non-blocking reference, runs workload 5 only)
  --workloads LIST  of 1 2 3 4 5 (default: all); comma or space separated
  --seconds N       length of workloads 1-3 (default $RUN_SECONDS)
  --steps N         measured steps of workload 5 (default $STEPS)
  --out DIR         where raw data, results.json, table.txt and plots/ go
                    (default build/bench-balance/<date>)
  --prefix P        lab prefix stem (default xlb<pid>); labs are P<mode><e|u|n>
                    (mode letters: k h f r s, and b for ref)
  --no-cpu-check    skip the CPU checks
  --quiet-wait N    before each run wait up to N s (default $QUIET_WAIT) until
                    the CPUs are idle (other work on a shared machine distorts
                    the shaped links; 0: do not wait)
EOF
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--modes) MODES=${2//,/ }; shift 2 ;;
	--workloads) WORKLOADS=${2//,/ }; shift 2 ;;
	--seconds) RUN_SECONDS=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	--no-cpu-check) CPU_CHECK=0; shift ;;
	--quiet-wait) QUIET_WAIT=$2; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done

need_root
[[ $RUN_SECONDS =~ ^[1-9][0-9]*$ ]] || die "--seconds: a whole number of seconds"
[[ $STEPS =~ ^[1-9][0-9]*$ ]] || die "--steps: a positive number"
[[ $QUIET_WAIT =~ ^[0-9]+$ ]] || die "--quiet-wait: a whole number of seconds"
[[ $PREFIX =~ ^[A-Za-z0-9_]{1,14}$ ]] || die "--prefix: letters, digits, _; at most 14"
for m in $MODES; do
	[[ $m =~ ^(ref|kernel|hash|flowlet|flowlet-random|spray)$ ]] || die "unknown mode '$m'"
done
for w in $WORKLOADS; do
	[[ $w =~ ^[1-5]$ ]] || die "unknown workload '$w'"
done
[[ -x $XDPLEAF ]] || die "$XDPLEAF not built (run make)"
"$XDPLEAF" gen --help >/dev/null 2>&1 || die "this xdpleaf has no 'gen' command yet"
"$XDPLEAF" sink --help >/dev/null 2>&1 || die "this xdpleaf has no 'sink' command yet"
need_tools ip tc jq nsenter taskset awk "$PY"
bench_out "$ROOT/build/bench-balance/$(date +%Y%m%d-%H%M%S)"
NCPU=$(nproc)

# senders and receiver counters (this shell's jobs), and every lab, on exit
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# ---- numbers -----------------------------------------------------------

# NCCL-like QP parameters for a mean rate per QP (bit/s): prints
# "PEAK_BPS GAP_MIN_US GAP_MAX_US". A QP sends a message at PEAK (DUTY of
# the time on average), then stays idle for a uniform gap around the
# mean that makes up the rest.
nccl_params() {
	awk -v avg="$1" -v duty="$DUTY" -v msg="$MESSAGE" -v size="$SIZE" \
		-v ovh="$FRAME_OVERHEAD" 'BEGIN {
		n = int((msg + size - 1) / size)
		bits = ((n - 1) * (size + ovh) + (msg - (n - 1) * size + ovh)) * 8
		peak = avg / duty
		tmsg = bits / peak                 # seconds per message
		gap = tmsg * (1 - duty) / duty     # mean idle gap
		printf "%.0f %.0f %.0f\n", peak, gap * 0.5e6, gap * 1.5e6 }'
}

# ---- the lab -----------------------------------------------------------

# The leaf is the kernel (kernel ECMP, or the reference's plain routing).
kernel_leaf() { [[ $LABMODE == kernel || $LABMODE == ref ]]; }

# Bring a lab up for mode with uplink rates R1..R4; sets P and LABMODE.
# Tag n: the same lab without shaping (the CPU check's headroom run).
# Mode ref: uplinks unlimited, each receiver's link (leaf2's rN) shaped to
# R1 instead, the capacity each receiver gets when the uplinks' is spread
# perfectly (workload 5 sends each receiver a quarter of every step).
# leaf1's configuration: leaf1_conf with lb_mode = mode (bench/lib.sh).
lab_up() { # mode r1 r2 r3 r4 tag
	local mode=$1 tag=$6 conf n h shape=(--uplink-rates "$2,$3,$4,$5")
	P=$PREFIX${mode:0:1}$tag
	[[ $mode == flowlet-random ]] && P=${PREFIX}r$tag
	[[ $mode == ref ]] && P=${PREFIX}b$tag && shape=(--receiver-rate "$2")
	[[ $tag == n ]] && shape=()
	LABMODE=$mode
	conf=$OUT/leaf1-$mode-$tag.conf
	leaf1_conf "$2,$3,$4,$5" "$mode" >"$conf"
	if kernel_leaf; then
		lab_start "$P" --mode kernel "${shape[@]}"
	else
		lab_start "$P" --mode xdp --config "$conf" "${shape[@]}"
	fi
	# A link that lost its carrier must not keep its share of the kernel's
	# multipath routes (Linux keeps using it by default): what a routing
	# daemon would arrange, and xdpleaf's slow path in xdp mode.
	for n in all default u1 u2 u3 u4; do
		in_ns "$P-leaf1" sysctl -qw "net.ipv4.conf.$n.ignore_routes_with_linkdown=1"
	done
	for n in 1 2 3 4; do
		for h in s r; do
			# Datacenter hosts keep a minimum RTO of a few ms, not
			# Linux's 200 ms (workload 5; RTTs here are < 3 ms).
			in_ns "$P-$h$n" sysctl -qw net.ipv4.tcp_rto_min_us=5000
		done
		in_ns "$P-s$n" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
		in_ns "$P-s$n" sysctl -qw net.ipv4.tcp_ecn=1
	done
	# every neighbour resolved before measuring (lab/lib.sh), and in xdp
	# modes learned by leaf1's xdpleaf
	lab_warm_up "$P" 4
	kernel_leaf || leaf1_learned "$P"
}

# ---- measuring ---------------------------------------------------------

# One snapshot of every counter the report needs, as JSON: leaf1's
# interfaces (the kernel's counters), xdpleaf's stats (xdp modes), the
# TBF qdiscs, the receivers' interfaces, the other interfaces' drops, the
# CPU times of /proc/stat and of every process.
snap() { # file
	local n sep
	{
		printf '{"t": %s,\n"leaf1": ' "$(date +%s.%N)"
		ip -n "$P-leaf1" -s -j link
		printf ',\n'
		if kernel_leaf; then leaf1_snap "$P" kernel; else leaf1_snap "$P"; fi
		# the shaped links: the uplinks (spine N's up), or in ref the
		# receivers' (leaf2's rN)
		printf ',\n"tbf": ['
		sep=
		for n in 1 2 3 4; do
			printf '%s' "$sep"
			if [[ $LABMODE == ref ]]; then
				in_ns "$P-leaf2" tc -s -j qdisc show dev "r$n"
			else
				in_ns "$P-sp$n" tc -s -j qdisc show dev up
			fi
			sep=,
		done
		printf '],\n"rx": ['
		sep=
		for n in 1 2 3 4; do
			printf '%s' "$sep"
			ip -n "$P-r$n" -s -j link show dev eth0
			sep=,
		done
		# every other interface's drop counters: a drop anywhere but
		# in a TBF shows up here
		printf '],\n"fabric": ['
		sep=
		for n in sp1 sp2 sp3 sp4 leaf2 r1; do
			printf '%s' "$sep"
			ip -n "$P-$n" -s -j link
			sep=,
		done
		printf '],\n"cpu": "%s",\n"procs": [' "$(grep '^cpu ' /proc/stat)"
		# every process's pid, parent and CPU ticks (utime + stime), so
		# that the report can tell this bench's CPU use from others'
		awk '{ i = index($0, ") "); split(substr($0, i + 2), f, " ")
			printf "%s[%d,%d,%d]", (NR > 1 ? "," : ""), $1, f[2], f[12] + f[13] }' \
			/proc/[0-9]*/stat 2>/dev/null || true # a process may exit meanwhile
		printf ']}\n'
	} >"$1"
}

# TCP counters of the senders and receivers (/proc/net/snmp and netstat
# are per namespace when read from inside it).
tcp_snap() { # file
	local n h
	for n in 1 2 3 4; do
		for h in s r; do
			echo "== $h$n"
			in_ns "$P-$h$n" cat /proc/net/snmp /proc/net/netstat
		done
	done >"$1"
}

# The time series behind the report's plots (uplink shares and queue
# lengths over time): every 100 ms while a workload runs, one record
# {"t": epoch seconds, "stats": ...} to DIR/samples.json, where stats is
# `xdpleaf stats --json` of leaf1 (uplink tx_bytes and phantom queue
# length_bytes) or, in kernel mode, leaf1's `ip -s -j link`. One command
# per sample and no fork for the clock: a few ms of CPU a second, small
# beside the senders.
SAMPLER_PID=
sampler_start() { # run-dir
	local dir=$1
	while :; do
		printf '{"t": %s, "stats": ' "$EPOCHREALTIME"
		if kernel_leaf; then
			ip -n "$P-leaf1" -s -j link
		else
			in_ns "$P-leaf1" "$XDPLEAF" stats --json --instance "$P"
		fi
		printf '}\n'
		sleep 0.1
	done >"$dir/samples.json" 2>/dev/null </dev/null &
	SAMPLER_PID=$!
}

sampler_stop() {
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
}

SINK_PID=
sink_start() { # run-dir name
	local f=$1/sink_$2
	# a plain command, not a function, in the background: $! is then the
	# sink itself, not a subshell around it
	nsenter --net="/run/netns/$P-r1" -- "$XDPLEAF" sink --dev eth0 --json \
		>"$f.json" 2>"$f.err" </dev/null &
	SINK_PID=$!
	wait_ready "$f.err" "$SINK_PID" sink
}

sink_stop() {
	# TERM, not INT: a non-interactive shell starts background jobs with
	# SIGINT ignored, and the sink would never see it
	kill -TERM "$SINK_PID" 2>/dev/null || true
	wait "$SINK_PID" || die "sink exited with an error"
}

# Start the RoCE senders of a workload in the background: NS senders
# (s1..), QPS QPs each, to r1, NCCL-like at a mean of AVG bit/s per QP.
# Sender N runs on CPU (N-1) mod CPUs: a sender's packets are then
# handled by one CPU all the way (veth picks its receive queue by the
# CPU), as one NIC queue would, instead of being split across queues in
# the middle of a flow by the scheduler moving the sender.
GEN_PIDS=()
gens_start() { # run-dir nsenders qps avg_bps seconds
	local dir=$1 ns=$2 qps=$3 avg=$4 secs=$5 s peak gmin gmax
	read -r peak gmin gmax < <(nccl_params "$avg")
	GEN_PIDS=()
	for ((s = 1; s <= ns; s++)); do
		taskset -c $(((s - 1) % NCPU)) nsenter --net="/run/netns/$P-s$s" -- \
			"$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 --qps "$qps" --size "$SIZE" \
			--rate "$peak" --pattern nccl --message "$MESSAGE" \
			--gap "uniform:${gmin}us-${gmax}us" --duration "${secs}s" \
			--seed "$((s * 7919))" --json \
			>"$dir/gen_s$s.json" 2>"$dir/gen_s$s.err" </dev/null &
		GEN_PIDS+=($!)
	done
	printf '{"senders": %s, "qps": %s, "avg_bps": %s, "peak_bps": %s, "gap_us": [%s, %s], "seconds": %s}\n' \
		"$ns" "$qps" "$avg" "$peak" "$gmin" "$gmax" "$secs" >"$dir/traffic.json"
}

gens_wait() {
	local pid rc=0
	for pid in "${GEN_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	((rc == 0)) || die "a sender failed: $(cat "$RUN"/gen_s*.err)"
}

meta() { # run-dir workload caps...
	local dir=$1 wl=$2
	shift 2
	local caps=() r
	for r in "$@"; do caps+=("$(bps_of "$r")"); done
	printf '{"mode": "%s", "workload": %s, "lab": "%s", "capacity_bps": [%s]}\n' \
		"$LABMODE" "$wl" "$P" "$(IFS=,; echo "${caps[*]}")" >"$dir/meta.json"
}

newrun() { # workload -> sets RUN
	RUN=$OUT/$LABMODE/w$1
	rm -rf "$RUN"
	mkdir -p "$RUN"
	quiet_gate "$RUN" "$QUIET_WAIT"
}

# Workloads 1-3: NCCL-like QPs for RUN_SECONDS, counters before and after.
run_roce() { # workload nsenders qps aggregate_capacity_bps caps...
	local wl=$1 ns=$2 qps=$3 cap=$4
	shift 4
	local avg
	newrun "$wl"
	meta "$RUN" "$wl" "$@"
	avg=$(awk -v c="$cap" -v l="$LOAD" -v n=$((ns * qps)) 'BEGIN { printf "%.0f", c * l / n }')
	sink_start "$RUN" all
	snap "$RUN/s0.json"
	sampler_start "$RUN"
	gens_start "$RUN" "$ns" "$qps" "$avg" "$RUN_SECONDS"
	gens_wait
	sleep 0.2 # let the last packets drain through the TBF queues
	sampler_stop
	snap "$RUN/end.json"
	sink_stop
}

# Workload 4: as 2, at FAIL_LOAD; u2's link fails at 3 s: its spine's end
# goes down, so leaf1's u2 loses carrier as with a cut fibre or a dead
# peer; it comes back at 5.5 s. The receiver's counter is restarted
# around the events, so its loss is known for each phase: A (start ..
# 3.4 s, the failure), B (3.4 .. 5.2 s, failed and settled), C (5.2 ..
# 6.9 s, the link coming back), D (6.9 s .. the end, back and settled).
run_failover() { # aggregate_capacity_bps caps...
	local cap=$1
	shift
	local avg t0 routes4 routes6 tu rt
	newrun 4
	meta "$RUN" 4 "$@"
	avg=$(awk -v c="$cap" -v l="$FAIL_LOAD" 'BEGIN { printf "%.0f", c * l / 16 }')
	# What the spine loses with its interface: static routes through it
	# (restored after), IPv6 addresses (kept).
	routes4=$(ip -n "$P-sp2" route show dev down proto boot)
	routes6=$(ip -n "$P-sp2" -6 route show dev down proto boot)
	in_ns "$P-sp2" sysctl -qw net.ipv6.conf.down.keep_addr_on_down=1
	sink_start "$RUN" A
	snap "$RUN/s0.json"
	sampler_start "$RUN"
	t0=$(date +%s.%N)
	gens_start "$RUN" 4 4 "$avg" 9
	at() { # seconds after the start
		local d
		d=$(awk -v t0="$t0" -v s="$1" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + s - now; print (d > 0 ? d : 0) }')
		sleep "$d"
	}
	at 2.0; snap "$RUN/pre0.json"
	at 3.0; snap "$RUN/pre1.json"
	ip -n "$P-sp2" link set dev down down
	date +%s.%N >"$RUN/t_down"
	at 3.4; sink_stop; snap "$RUN/a_end.json"
	sink_start "$RUN" B; snap "$RUN/b_start.json"
	at 5.2; sink_stop; snap "$RUN/b_end.json"
	sink_start "$RUN" C; snap "$RUN/c_start.json"
	at 5.5
	ip -n "$P-sp2" link set dev down up
	tu=$(date +%s%N)
	echo "$tu" >"$RUN/t_up"
	# The spine's routes come back with its link (as its routing would
	# bring them): before leaf1 can resolve it and send it traffic.
	while read -r -a rt; do
		if ((${#rt[@]})); then
			ip -n "$P-sp2" route replace "${rt[@]}" dev down
		fi
	done <<<"$routes4"
	while read -r -a rt; do
		if ((${#rt[@]})); then
			ip -n "$P-sp2" -6 route replace "${rt[@]}" dev down
		fi
	done <<<"$routes6"
	# How long until leaf1 knows the spine's MAC again (the kernel
	# flushed it with the carrier): every forwarding path needs it.
	for _ in $(seq 400); do
		if ip -n "$P-leaf1" neigh show 10.254.2.2 dev u2 | grep -q lladdr; then
			echo $((($(date +%s%N) - tu) / 1000)) >"$RUN/arp_us"
			break
		fi
		sleep 0.003
	done
	at 6.9; sink_stop; snap "$RUN/c_end.json"
	sink_start "$RUN" D; snap "$RUN/d_start.json"
	gens_wait
	sleep 0.2
	sampler_stop
	snap "$RUN/end.json"
	sink_stop
}

# Workload 5: synchronized TCP steps (bench/balance/steps.py).
run_steps() { # aggregate_capacity_bps caps...
	local cap=$1
	shift
	newrun 5
	meta "$RUN" 5 "$@"
	snap "$RUN/s0.json"
	tcp_snap "$RUN/tcp0.txt"
	# Each connection is paced to at most one uplink's rate (a host NIC
	# of the uplinks' speed): veth is infinitely fast, and an unpaced
	# sender would put each congestion window on the wire as one burst.
	"$PY" "$BENCH/steps.py" coord --prefix "$P" --senders 1,2,3,4 --receivers 1,2,3,4 \
		--conns "$TCP_CONNS" --bytes "$TCP_BYTES" --steps "$STEPS" --warmup 2 \
		--capacity-bps "$cap" --pace-bps "$(bps_of "$RATE")" --cc cubic --pin \
		--out "$RUN/steps.json" 2>"$RUN/steps.err" ||
		die "workload 5 failed: $(tail -3 "$RUN/steps.err")"
	snap "$RUN/end.json"
	tcp_snap "$RUN/tcp1.txt"
}

# CPU check: 16 constant-rate QPs offering FACTOR x the aggregate
# capacity. Shaped (1.25 x): if the CPUs keep up, the TBFs (the real
# links) are what limits the delivered rate, which then equals the
# capacity. Unshaped (2.5 x, a lab without TBFs): the path itself carries
# far more than the capacity, so it is never what limits a workload.
run_cpu_check() { # name factor aggregate_capacity_bps caps...
	local name=$1 factor=$2 cap=$3 s per
	shift 3
	RUN=$OUT/$name
	rm -rf "$RUN"
	mkdir -p "$RUN"
	quiet_gate "$RUN" "$QUIET_WAIT"
	meta "$RUN" 0 "$@"
	per=$(awk -v c="$cap" -v f="$factor" 'BEGIN { printf "%.0f", c * f / 16 }')
	sink_start "$RUN" all
	snap "$RUN/s0.json"
	GEN_PIDS=()
	for s in 1 2 3 4; do
		taskset -c $(((s - 1) % NCPU)) nsenter --net="/run/netns/$P-s$s" -- \
			"$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 --qps 4 --size "$SIZE" \
			--rate "$per" --duration 4s --json \
			>"$RUN/gen_s$s.json" 2>"$RUN/gen_s$s.err" </dev/null &
		GEN_PIDS+=($!)
	done
	printf '{"senders": 4, "qps": 4, "avg_bps": %s, "peak_bps": %s, "seconds": 4}\n' \
		"$per" "$per" >"$RUN/traffic.json"
	# the rates are read in the middle, away from the senders' staggered
	# starts and ends
	sleep 1
	snap "$RUN/m0.json"
	sleep 2
	snap "$RUN/m1.json"
	gens_wait
	sleep 0.2
	snap "$RUN/end.json"
	sink_stop
}

# ---- the run -----------------------------------------------------------

has() { [[ " $WORKLOADS " == *" $1 "* ]]; }
CAP_EQ=$(($(bps_of "$RATE") * 4))
CAP_UNEQ=$(($(bps_of "$RATE_BIG") + 3 * $(bps_of "$RATE")))
CPU_MODE=
((CPU_CHECK)) && for m in spray flowlet hash flowlet-random kernel; do # not ref
	[[ " $MODES " == *" $m "* ]] && { CPU_MODE=$m; break; }
done
T_START=$(date +%s)
log "results in $OUT"
printf '{"bench_pid": %s, "clk_tck": %s, "rate": "%s", "rate_big": "%s", "buffer_us": %s, "flowlet_timeout": "%s", "load": %s, "fail_load": %s, "duty": %s, "message": %s, "size": %s, "seconds": %s, "steps": %s, "tcp_bytes": %s, "tcp_conns": %s, "modes": "%s", "workloads": "%s", "cpus": %s}\n' \
	"$$" "$(getconf CLK_TCK)" "$RATE" "$RATE_BIG" "$BUFFER_US" "auto (default)" "$LOAD" "$FAIL_LOAD" "$DUTY" \
	"$MESSAGE" "$SIZE" "$RUN_SECONDS" "$STEPS" "$TCP_BYTES" "$TCP_CONNS" "$MODES" \
	"$WORKLOADS" "$NCPU" >"$OUT/setup.json"

for mode in $MODES; do
	if [[ $mode == ref ]]; then
		has 5 || { log "ref: runs workload 5 only, not in --workloads"; continue; }
		log "ref: non-blocking reference (uplinks unlimited, receivers' links $RATE)"
		lab_up ref "$RATE" "$RATE" "$RATE" "$RATE" e
		log "ref: workload 5 ($STEPS synchronized TCP steps)"
		run_steps "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		lab_remove "$P"
		continue
	fi
	if [[ $mode == "$CPU_MODE" ]]; then
		log "$mode: CPU check without shaping (offered 2.5 x capacity)"
		lab_up "$mode" "$RATE" "$RATE" "$RATE" "$RATE" n
		run_cpu_check cpu-check-unshaped 2.5 "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		lab_remove "$P"
	fi
	if has 1 || has 2 || has 4 || has 5 || [[ $mode == "$CPU_MODE" ]]; then
		log "$mode: uplinks $RATE x 4"
		lab_up "$mode" "$RATE" "$RATE" "$RATE" "$RATE" e
		if [[ $mode == "$CPU_MODE" ]]; then
			log "$mode: CPU check (offered 1.25 x capacity)"
			run_cpu_check cpu-check 1.25 "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		fi
		if has 1; then
			log "$mode: workload 1 (1 sender x 8 QPs)"
			run_roce 1 1 8 "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		fi
		if has 2; then
			log "$mode: workload 2 (4 senders x 4 QPs -> 1 receiver)"
			run_roce 2 4 4 "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		fi
		if has 4; then
			log "$mode: workload 4 (u2 fails at 3 s, back at 5.5 s)"
			run_failover "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		fi
		if has 5; then
			log "$mode: workload 5 ($STEPS synchronized TCP steps)"
			run_steps "$CAP_EQ" "$RATE" "$RATE" "$RATE" "$RATE"
		fi
		lab_remove "$P"
	fi
	if has 3; then
		log "$mode: workload 3 (uplinks $RATE_BIG,$RATE,$RATE,$RATE)"
		lab_up "$mode" "$RATE_BIG" "$RATE" "$RATE" "$RATE" u
		run_roce 3 4 4 "$CAP_UNEQ" "$RATE_BIG" "$RATE" "$RATE" "$RATE"
		lab_remove "$P"
	fi
done
log "measured in $(($(date +%s) - T_START)) s"
"$PY" "$BENCH/report.py" "$OUT" | tee "$OUT/table.txt"
