#!/usr/bin/env bash
# Training beside inference (issue 43): request/response latency between
# hosts on both leaves, idle and while an MPI ring all-reduce fills the
# fabric, and the all-reduce's step time with and without the requests,
# in the same run. docs/inference-bench.md.
#
#   bench/mixed/run.sh [--fabrics LIST] [--switches LIST] [--host-tcp LIST]
#                      [--sizes LIST] [--duration S] [--out DIR] [--prefix P]
#                      [--quiet-wait N]
#
# Background: bench-jct's Open MPI ring all-reduce (4 MiB per rank, one
# rank in each of the lab's 8 hosts, ranks s1, r1, s2, r2, ...) over four
# equal uplinks of 100 Mbit/s, running without a break from before the
# first loaded request window to after the last (collective --until).
# Foreground: sockperf ping-pong over TCP, client in s1, server in r2,
# both ends DSCP 18 (--tos 72), every sample logged (--full-log).
#
# One cell per fabric, switch and hosts' TCP profile; in each, one after
# the other: every size's request window with the fabric idle; then the
# all-reduce starts and, after its warm-up, alternates windows without
# requests and with each size's (off, SIZE1, off, SIZE2, off), each
# --duration long; then it stops. sockperf keeps a CPU busy while it runs
# (it paces its requests by spinning on the clock), which on a machine of
# a few cores slows the ranks by itself: so in the windows "without
# requests" the same sockperf runs too, from s1 to a server on s1's own
# loopback, and the requests' only difference is the fabric they cross. Every lab it builds, and every process
# in its hosts, is removed on exit, also on failure or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BENCH_NAME=bench_mixed
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
XDPLEAF=$ROOT/build/xdpleaf
BENCH=$ROOT/bench/mixed

FABRICS="kernel flowlet latency"
SWITCHES="single class"
HOST_TCPS="dc as-is"
SIZES="small medium"
DURATION=30
QUIET_WAIT=60
HOOK=
ECN=
OUT=
PREFIX=xlm$$
RATES=100M,100M,100M,100M
AR_BYTES=4M # the all-reduce's bytes per rank
AR_WARMUP=2
# DSCP 18 (AF21, RFC 4594's low-latency data: client/server transactions)
# in the TOS byte: 18 << 2
LATENCY_DSCP=18
TOS=$((LATENCY_DSCP << 2))
PORT=11111
# The sizes, as sockperf's options. small: 64..512 bytes, uniformly drawn
# per message (-m 288 -r 224: 288 +- 224), 2,000 per second. medium: a
# KV-cache block of 64 KiB would be 65,536 bytes, but a sockperf server
# takes at most 65,507 (the largest UDP payload, whatever the protocol;
# more and it drops the connection): 65,507 bytes, 29 short of 64 KiB,
# 50 per second (26 Mbit/s each way: a quarter of one uplink).
# shellcheck disable=SC2034 # read by name, as SIZE_$size
SIZE_small="-m 288 -r 224 --mps 2000"
# shellcheck disable=SC2034
SIZE_medium="-m 65507 --mps 50"

usage() {
	cat >&2 <<EOF
usage: $0 [--fabrics LIST] [--switches LIST] [--host-tcp LIST] [--sizes LIST]
          [--duration S] [--out DIR] [--prefix P] [--quiet-wait N]
          [--hook auto|xdp|tc] [--ecn]
  --fabrics LIST  of (default: all)
                  kernel   kernel ECMP in leaf1 (lab --mode kernel)
                  flowlet  xdpleaf, lab/leaf1.conf with each uplink's rate:
                           the shipped defaults otherwise
                  latency  flowlet and a latency class for DSCP $LATENCY_DSCP
                           ([class inference] dscp = $LATENCY_DSCP, latency = yes)
  --switches LIST of (default: all)
                  single   the lab's switches with one queue per link (TBF)
                  class    per-class queues, DSCP $LATENCY_DSCP served first
                           (lab.sh --switch-queues class --latency-dscp $LATENCY_DSCP)
  --host-tcp LIST the hosts' TCP profiles, as bench-jct's: dc (reno, minimum
                  RTO 5 ms, no slow start after idle), as-is (the hosts as
                  they come) (default: dc as-is)
  --sizes LIST    of small (64-512 B, 2,000/s) and medium (65,507 B, 50/s)
                  (default: both)
  --duration S    seconds of each request window, and of each window of
                  the all-reduce without requests (default $DURATION)
  --out DIR       raw data, results.json, table.txt, cdf.png
                  (default build/bench-mixed/<date>)
  --prefix P      lab prefix stem (default xlm<pid>); labs are P<f><s>
  --quiet-wait N  before each cell wait up to N s (default $QUIET_WAIT) until the
                  CPUs are idle (0: do not wait)
  --hook H        the xdpleaf fabrics' hook (lab.sh --hook; default: the
                  config's, auto: tc on the lab's veths, where a TCP stream
                  reaches the leaf as GRO aggregates; xdp: frame by frame,
                  as on a NIC)
  --ecn           the hosts' TCP also asks for ECN (net.ipv4.tcp_ecn = 1; as
                  they come they only answer it): profile names get '+ecn'
Lists are comma or space separated.
EOF
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--fabrics) FABRICS=${2//,/ }; shift 2 ;;
	--switches) SWITCHES=${2//,/ }; shift 2 ;;
	--host-tcp) HOST_TCPS=${2//,/ }; shift 2 ;;
	--sizes) SIZES=${2//,/ }; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--hook) HOOK=$2; shift 2 ;;
	--ecn) ECN=1; shift ;;
	--out) OUT=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	--quiet-wait) QUIET_WAIT=$2; shift 2 ;;
	*) usage ;;
	esac
done

need_root
for f in $FABRICS; do
	[[ $f =~ ^(kernel|flowlet|latency)$ ]] || die "unknown fabric '$f' (kernel, flowlet, latency)"
done
for s in $SWITCHES; do
	[[ $s =~ ^(single|class)$ ]] || die "unknown switch '$s' (single, class)"
done
for h in $HOST_TCPS; do
	[[ $h =~ ^(dc|as-is)$ ]] || die "--host-tcp: a list of dc and as-is, not '$h'"
done
for s in $SIZES; do
	[[ $s =~ ^(small|medium)$ ]] || die "unknown size '$s' (small, medium)"
done
[[ -n $FABRICS && -n $SWITCHES && -n $HOST_TCPS && -n $SIZES ]] ||
	die "--fabrics, --switches, --host-tcp, --sizes: not empty"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration: a positive whole number of seconds"
[[ $QUIET_WAIT =~ ^[0-9]+$ ]] || die "--quiet-wait: a whole number of seconds"
[[ -z $HOOK || $HOOK =~ ^(auto|xdp|tc)$ ]] || die "--hook: auto, xdp or tc, not '$HOOK'"
[[ $PREFIX =~ ^[A-Za-z0-9_]{1,16}$ ]] || die "--prefix: letters, digits, _; at most 16"
[[ -x $COLLECTIVE ]] || die "$COLLECTIVE not built (make build/bench/collective)"
[[ ! " $FABRICS " =~ \ (flowlet|latency)\  || -x $XDPLEAF ]] || die "$XDPLEAF not built (run make)"
need_tools sockperf mpirun.openmpi ip tc ss jq nsenter ping awk "$PY"
bench_out "$ROOT/build/bench-mixed/$(date +%Y%m%d-%H%M%S)"

# ---- cleanup: our processes, our labs -------------------------------------

# Everything this script starts in a lab (the sockperf server and clients,
# mpirun, its daemons and ranks) lives in the lab's hosts
# (kill_lab_procs); the launchers are also this shell's jobs.
lab_down() { # prefix
	servers_stop
	kill_lab_procs "$1"
	rm -rf /tmp/xl-mpi-"$1"-* # the MPI daemons' temporary files
	lab_remove "$1"
}
BENCH_LAB_DOWN=lab_down
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# ---- the lab ----------------------------------------------------------------

# The switches' per-class queues are lab.sh's --switch-queues; a lab.sh
# without it cannot build `class` cells, and says so in its usage.
switch_queues_known() { [[ $("$LAB" help 2>&1 || true) == *--switch-queues* ]]; }

kernel_fabric() { [[ $FABRIC == kernel ]]; }

# leaf1's configuration for the xdpleaf fabrics: lab/leaf1.conf with each
# uplink's rate (its phantom queues' drain rate) and nothing else but the
# shipped defaults (overflow too); latency adds the latency class.
fabric_conf() { # fabric
	leaf1_conf "$RATES" "" default
	[[ $1 != latency ]] ||
		printf '\n[class inference]\ndscp = %s\nlatency = yes\n' "$LATENCY_DSCP"
}

# Bring lab P up for FABRIC and SWITCH; 1 (with why in LAB_WHY) if it
# cannot be built here.
lab_up() {
	local args=(--uplink-rates "$RATES") conf
	if [[ $SWITCH == class ]]; then
		if ! switch_queues_known; then
			LAB_WHY="lab/lab.sh has no --switch-queues (the switches' per-class queues, issue 43): no 'class' switch here"
			return 1
		fi
		args+=(--switch-queues class --latency-dscp "$LATENCY_DSCP")
	elif switch_queues_known; then
		args+=(--switch-queues single)
	fi # else: lab.sh's links have one queue (a TBF), its only kind
	if kernel_fabric; then
		args+=(--mode kernel)
	else
		conf=$OUT/leaf1-$FABRIC.conf
		fabric_conf "$FABRIC" >"$conf"
		args+=(--mode xdp --config "$conf")
		[[ -z $HOOK ]] || args+=(--hook "$HOOK")
	fi
	if ! lab_try_start "$P" "${args[@]}"; then
		# its last word that is not about its own cleaning up
		LAB_WHY="lab.sh up failed: $(grep -v -e 'cleaning up' -e 'nothing to unload' <<<"$LAB_UP_TAIL" | tail -n 1)"
		return 1
	fi
	host_tcp_save
	if kernel_fabric; then hosts_warm_up "$P" kernel; else hosts_warm_up "$P"; fi
	server_start
}

# The sockperf servers, up once they listen: r2's, DSCP 18 on its
# replies too, and the off windows' on s1's loopback.
SERVER_ADDR=$(lab_receiver4 2)
SERVER_PIDS=()
server_start() {
	local host addr tries
	for host in r2 s1; do
		addr=$SERVER_ADDR
		[[ $host == r2 ]] || addr=127.0.0.1
		nsenter --net="/run/netns/$P-$host" -- sockperf server --tcp -i "$addr" -p "$PORT" \
			--tos "$TOS" </dev/null >"$RUN_LAB/server-$host.log" 2>&1 &
		SERVER_PIDS+=($!)
		tries=100
		until in_ns "$P-$host" ss -Htln "sport = :$PORT" | grep -q .; do
			((tries-- > 0)) || die "sockperf server in $P-$host did not listen: $(tail -n 3 "$RUN_LAB/server-$host.log")"
			sleep 0.1
		done
	done
}

servers_stop() {
	local pid
	for pid in "${SERVER_PIDS[@]}"; do # (jobs: ended and reaped quietly)
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	SERVER_PIDS=()
}

# ---- one request window -------------------------------------------------------

# requests SIZE FILE-STEM [ADDR]: sockperf ping-pong from s1 to r2 (or to
# ADDR) for DURATION seconds: every sample in STEM.csv (its --full-log),
# its summary in STEM.log, and in STEM.json when it ran on the steps'
# clock (CLOCK_MONOTONIC, ns): the samples' times are seconds since
# sockperf started (its TSC clock), so launch_ns + a sample's time places
# it among the all-reduce's steps, to within the few ms sockperf takes to
# start. 1 if sockperf failed.
requests() {
	local size=$1 stem=$2 addr=${3:-$SERVER_ADDR} opts t0 t1 rc=0
	opts=SIZE_$size
	read -r -a opts <<<"${!opts}"
	t0=$(mono_ns)
	nsenter --net="/run/netns/$P-s1" -- timeout $((DURATION + 60)) \
		sockperf ping-pong --tcp -i "$addr" -p "$PORT" --tos "$TOS" \
		"${opts[@]}" -t "$DURATION" --full-log "$stem.csv" \
		</dev/null >"$stem.log" 2>&1 || rc=$?
	t1=$(mono_ns)
	printf '{"size": "%s", "server": "%s", "sockperf": "%s", "launch_ns": %s, "exit_ns": %s, "exit_status": %s}\n' \
		"$size" "$addr" "${opts[*]}" "$t0" "$t1" "$rc" >"$stem.json"
	if ((rc != 0)); then
		log "  $size requests failed ($rc): $(grep -m1 -i error "$stem.log" || tail -n 1 "$stem.log")"
		return 1
	fi
}

# ---- the all-reduce in the background --------------------------------------------

# At most this many steps: far more than the windows take (a 4 MiB ring
# step over 4 x 100M takes ~0.6 s at best); --until ends it.
ar_cap() { echo $(((2 * ${#SIZE_LIST[@]} + 1) * DURATION * 20 + 100)); }

AR_PID=
ar_start() { # dir
	rm -f "$1/stop" "$1/progress"
	: >"$1/progress"
	ompi_launch allreduce "$1/hostfile"
	mpi_start "$1" --op allreduce --bytes "$AR_BYTES" --steps "$(ar_cap)" --warmup "$AR_WARMUP" \
		--progress "$1/progress" --until "$1/stop"
	AR_PID=$!
	# running once the warm-up is done (every rank up, every connection made)
	local t0=$SECONDS n
	while :; do
		n=$(cat "$1/progress" 2>/dev/null || true)
		[[ -n $n ]] && ((n >= AR_WARMUP)) && return 0
		kill -0 "$AR_PID" 2>/dev/null || { log "  all-reduce ended at start: $(tail -n 3 "$1/mpirun.err")"; return 1; }
		((SECONDS - t0 < 120)) || { log "  all-reduce: warm-up not done within 120 s"; return 1; }
		sleep 0.2
	done
}

ar_running() { kill -0 "$AR_PID" 2>/dev/null; }

# Stop after the step under way; 1 if it had ended on its own (cap, error)
# or does not end within 60 s of that step.
ar_stop() { # dir
	local ok=0 t0=$SECONDS
	ar_running || ok=1
	touch "$1/stop"
	while ar_running && ((SECONDS - t0 < 60)); do sleep 0.2; done
	if ar_running; then
		log "  all-reduce did not stop within 60 s"
		servers_stop
		kill_lab_procs "$P"
		server_start # (it went with the rest)
		ok=1
	fi
	[[ -z $AR_PID ]] || wait "$AR_PID" || ok=1
	AR_PID=
	((ok == 0)) && jq -e '.wrong_results == 0 and (.steps | length > 0)' "$1/steps.json" >/dev/null
}

# ---- one cell -------------------------------------------------------------------

# Idle windows, then the loaded ones under a running all-reduce. Returns 1
# if any part failed (what ran is kept).
run_cell() {
	local size ok=1 n=0
	quiet_gate "$RUN" "$QUIET_WAIT"
	log "  idle: ${SIZE_LIST[*]}"
	for size in "${SIZE_LIST[@]}"; do
		requests "$size" "$RUN/idle-$size" || ok=0
	done
	log "  under the all-reduce: off ${SIZE_LIST[*]/%/ off}"
	if ! ar_start "$RUN"; then
		ar_stop "$RUN" || true
		return 1
	fi
	# each off window runs the next window's size, the last the last's
	for size in "${SIZE_LIST[@]}"; do
		requests "$size" "$RUN/off-$((++n))" 127.0.0.1 || ok=0
		requests "$size" "$RUN/loaded-$size" || ok=0
	done
	requests "$size" "$RUN/off-$((++n))" 127.0.0.1 || ok=0
	ar_running || { log "  the all-reduce ended before its windows did: $(tail -n 3 "$RUN/mpirun.err")"; ok=0; }
	ar_stop "$RUN" || { log "  the all-reduce failed: $(tail -n 3 "$RUN/mpirun.err")"; ok=0; }
	# leaf1's counters since the lab came up (its queues', the guard's)
	kernel_fabric || in_ns "$P-leaf1" "$XDPLEAF" stats --json --instance "$P" >"$RUN/stats.json" || true
	((ok))
}

# One lab (fabric x switch), each hosts' TCP profile in turn: results in
# OUT/PROFILE/SWITCH/FABRIC. A lab that cannot be built fails each of
# its cells with why (failed.txt).
run_lab() {
	local bad=0 h profile
	FABRIC=$1 SWITCH=$2
	P=$PREFIX${FABRIC:0:1}${SWITCH:0:1}
	RUN_LAB=$OUT/lab-$FABRIC-$SWITCH
	mkdir -p "$RUN_LAB"
	log "$FABRIC, switches $SWITCH"
	LAB_WHY=
	lab_up || { log "  $LAB_WHY"; bad=1; }
	for HOST_TCP in $HOST_TCPS; do
		profile=$HOST_TCP${ECN:++ecn}
		RUN=$OUT/$profile/$SWITCH/$FABRIC
		rm -rf "$RUN"
		mkdir -p "$RUN"
		printf '{"fabric": "%s", "switch": "%s", "host_tcp": "%s", "lab": "%s", "rates": "%s", "duration_s": %s, "sizes": "%s", "hook": "%s"}\n' \
			"$FABRIC" "$SWITCH" "$profile" "$P" "$RATES" "$DURATION" "${SIZE_LIST[*]}" "${HOOK:-config}" >"$RUN/meta.json"
		if [[ -n $LAB_WHY ]]; then
			echo "$LAB_WHY" >"$RUN/failed.txt"
			continue
		fi
		log "  hosts' TCP: $profile"
		host_tcp
		if [[ -n $ECN ]]; then
			for h in s1 s2 s3 s4 r1 r2 r3 r4; do
				in_ns "$P-$h" sysctl -qw net.ipv4.tcp_ecn=1
			done
		fi
		run_cell || { echo "a part of the cell failed (see the bench's log)" >"$RUN/failed.txt"; bad=1; }
	done
	lab_down "$P"
	return "$bad"
}

# ---- the run ----------------------------------------------------------------------

read -r -a SIZE_LIST <<<"$SIZES"
mono_init
T_START=$(date +%s)
log "results in $OUT"
printf '{"fabrics": "%s", "switches": "%s", "host_tcp": "%s", "sizes": "%s", "duration_s": %s, "rates": "%s", "allreduce_bytes": "%s", "rank_hosts": "%s", "latency_dscp": %s, "size_small": "%s", "size_medium": "%s", "sockperf": "%s", "mpi": "%s", "cpus": %s}\n' \
	"$FABRICS" "$SWITCHES" "$HOST_TCPS" "$SIZES" "$DURATION" "$RATES" "$AR_BYTES" "$RANK_HOSTS" \
	"$LATENCY_DSCP" "$SIZE_small" "$SIZE_medium" "$(sockperf --version 2>&1 | sed -n 's/^sockperf, version //p')" \
	"$(ompi_info --version 2>/dev/null | head -1)" "$(nproc)" >"$OUT/setup.json"
[[ ! -x $XDPLEAF ]] || printf '%s\n%s\n' "$("$XDPLEAF" --version)" "$(sha256sum "$XDPLEAF")" >"$OUT/xdpleaf_version"

FAILED=0
for switch in $SWITCHES; do
	for fabric in $FABRICS; do
		run_lab "$fabric" "$switch" || FAILED=1
	done
done
log "measured in $(($(date +%s) - T_START)) s"
"$PY" "$BENCH/report.py" --plot "$OUT/cdf.png" "$OUT" | tee "$OUT/table.txt"
((FAILED == 0)) || die "some cells failed (failed.txt under $OUT)"
