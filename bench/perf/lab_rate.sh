#!/usr/bin/env bash
# Forwarding rate of leaf1 in the netns lab (`make bench`,
# docs/performance.md): one generator core of live frames (`xdpleaf gen`, RoCEv2 SEND
# over IPv4, 4 QPs) from s1 into leaf1, through four dataplanes in leaf1:
#
#   xdp       xdpleaf with `hook = xdp`
#   tc        xdpleaf with its default hook (auto: tc ingress on veths)
#   baseline  the stateful minimal forwarder (bench/baselines/stateful.bpf.c)
#             at XDP on s1..s4, everything out of u1 (build/bench/base_attach)
#   kernel    plain kernel forwarding (no program)
#
#   bench/perf/lab_rate.sh [--out DIR] [--rounds N] [--seconds S]
#                          [--sizes LIST] [--cases LIST] [--qps N]
#                          [--gen-cpu N] [--uplink-rate R] [--prefix P]
#                          [--quiet-wait N]
#
# Prints a table and writes DIR/lab_rate.json (default DIR:
# build/bench/perf/lab_rate-<date>) with the raw samples beside it.
#
# xdpleaf is loaded as lab/lab.sh loads it (`xdpleaf load --config ...
# --instance P` inside P-leaf1, then lab_wait_neigh): lab/leaf1.conf, the
# shipped defaults, with each uplink's `rate` and `overflow = mark` as
# bench/balance and bench/jct give them (here `rate = 100G`, a fabric
# port's rate, so the phantom queues run and never fill), and for the xdp
# case `hook = xdp` in [xdpleaf] (lab/lib.sh's conf_with_hook).
#
# Where packets are counted: at the first hop after leaf1, the spines'
# `down` ports (leaf1's u1..u4 peers), each running `xdpleaf sink` (count,
# drop) for the whole run; a run's count is the sum of their veths' XDP
# receive counters (rx_queue_N_xdp_packets, ethtool -S) before and after
# it. Not at the receivers: on a veth every hop after gen runs in gen's
# softirq on gen's core, so counting behind leaf2 would add two
# kernel-forwarding hops (spine, leaf2) to every packet on that one core,
# and they are the bottleneck: with leaf1 forwarding in the kernel, 0.69
# Mpps of 62-byte frames reached r1's sink, 1.3-2.0 Mpps the spines' sinks
# (this 2-vCPU VM, kernel 6.18). With the spines' sinks the chain on the
# core is gen's program, leaf1, and one counting XDP program, the same in
# every case (it takes skbs from kernel and tc, frames from xdp and
# baseline). The sinks' own totals are kept (raw/sink-sp*.json): their
# `malformed` count (bad IPv4 checksum or UDP length) must stay 0.
#
# Rate: gen unpaced for --seconds per frame size, pinned to --gen-cpu;
# Mpps = frames counted / gen's sending time. gen, leaf1 and the counter
# share that core, so the figure is the core's rate for the whole chain,
# and ratios between cases are smaller than those of leaf1's own costs
# (the CPU figures have those).
#
# CPU per packet at a fixed offered load below saturation: gen sends in
# bursts (`--pattern nccl`: each QP 64 frames back to back, then 2 ms
# idle: ~0.12 Mpps of 62-byte frames, far below every case's rate), so
# each veth poll takes batches as under load, yet nothing queues or drops.
# leaf1's NAPI runs in gen's softirq (inline when gen's run re-enables
# bottom halves, else in ksoftirqd/<gen-cpu>), and this kernel has no IRQ
# time accounting, so that time is charged to gen's task: the CPU time of
# gen's threads plus ksoftirqd/<gen-cpu> (ns, /proc/*/schedstat) over a
# window inside the run, per frame leaf1's s1 received in it (its XDP
# receive counter), is gen + leaf1 + counter per frame. A reference case
# ("ref": the sink on leaf1's s1 itself, gen + counter without forwarding)
# is measured in every round too; its median, subtracted from each case's
# median, leaves what forwarding through leaf1 costs per frame (its program
# or stack, its transmit, and the next veth's receive it causes). Not
# /proc/stat: its softirq column is sampled at the 250 Hz tick and read
# 700-1100 ns for one case. Not a paced gen (--rate): it sends a frame or
# two per run, leaf1 then polls per frame, and gen's timer wake-ups (~5 us
# a frame here) drown the differences. Other work on the machine inflates
# these figures most (busy_before_rounds in the JSON says how busy the
# CPUs were before each round; over 20 % adds a warning).
#
# Every case is measured once in each of --rounds interleaved rounds (the
# order rotates every round); each figure is the median of its rounds, and
# ratios are of those medians. One lab (prefix P, kernel mode) serves all
# cases (a lab per case and round would take ~50 s of the ~2 min), each
# loaded into leaf1 and removed in turn. The lab runs under `flock
# /tmp/xdpleaf-bench.lock`, as every benchmark of the project, held from
# `lab.sh up` to `lab.sh down` only; everything is removed on exit, also on
# failure or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BENCH_NAME=lab_rate
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
XDPLEAF=${XDPLEAF:-$ROOT/build/xdpleaf}
BASE_ATTACH=${BASE_ATTACH:-$ROOT/build/bench/base_attach}
LOCK=/tmp/xdpleaf-bench.lock

OUT=
ROUNDS=3
RUN_SECONDS=1.5      # each rate run
SIZES="64 1024"      # frames, bytes with the FCS (Ethernet's convention)
CASES="xdp tc baseline kernel"
QPS=4
GEN_CPU=$(($(nproc) - 1))
UPLINK_RATE=100G
CPU_BURST=64         # CPU runs: frames per QP per burst ...
CPU_GAP_US=2000      # ... and the idle gap after each
CPU_WINDOW=1.5       # seconds measured, 0.5 s into a run stopped after it
PREFIX=xlr$$
QUIET_WAIT=10

usage() {
	cat >&2 <<EOF
usage: $0 [--out DIR] [--rounds N] [--seconds S] [--sizes LIST] [--cases LIST]
          [--qps N] [--gen-cpu N] [--uplink-rate R] [--prefix P] [--quiet-wait N]
  --out DIR         where lab_rate.json and the raw samples go
                    (default build/bench/perf/lab_rate-<date>)
  --rounds N        interleaved rounds; each figure is their median (default $ROUNDS)
  --seconds S       length of each rate run (default $RUN_SECONDS)
  --sizes LIST      frame sizes in bytes with the FCS, each made the nearest
                    RoCEv2 frame gen can build (58 + 4k bytes without the FCS);
                    the first is also the CPU runs' (default "$SIZES")
  --cases LIST      of xdp tc baseline kernel (default all); comma or space separated
  --qps N           gen's queue pairs (default $QPS)
  --gen-cpu N       the generator's core (default $GEN_CPU, the last)
  --uplink-rate R   \`rate\` of leaf1's uplinks in xdpleaf's config (default $UPLINK_RATE)
  --prefix P        lab prefix (default xlr<pid>)
  --quiet-wait N    before each round wait up to N s until other work leaves
                    the CPUs idle (default $QUIET_WAIT; 0: do not wait)
Needs root, make (build/xdpleaf) and make build/bench/base_attach; XDPLEAF
and BASE_ATTACH in the environment name other builds of them.
EOF
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--out) OUT=${2:?--out needs a value}; shift 2 ;;
	--rounds) ROUNDS=${2:?}; shift 2 ;;
	--seconds) RUN_SECONDS=${2:?}; shift 2 ;;
	--sizes) SIZES=${2//,/ }; shift 2 ;;
	--cases) CASES=${2//,/ }; shift 2 ;;
	--qps) QPS=${2:?}; shift 2 ;;
	--gen-cpu) GEN_CPU=${2:?}; shift 2 ;;
	--uplink-rate) UPLINK_RATE=${2:?}; shift 2 ;;
	--prefix) PREFIX=${2:?}; shift 2 ;;
	--quiet-wait) QUIET_WAIT=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done

need_root
[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || die "--rounds: 1..99"
if ! [[ $RUN_SECONDS =~ ^[0-9]+(\.[0-9]{1,3})?$ ]] ||
	! awk -v s="$RUN_SECONDS" 'BEGIN { exit !(s >= 0.2 && s <= 60) }'; then
	die "--seconds: 0.2..60"
fi
[[ $QPS =~ ^[1-9][0-9]{0,2}$ ]] || die "--qps: 1..999"
if ! [[ $GEN_CPU =~ ^[0-9]+$ ]] || ((GEN_CPU >= $(nproc))); then
	die "--gen-cpu: 0..$(($(nproc) - 1))"
fi
rate_bps "$UPLINK_RATE" >/dev/null || die "--uplink-rate: bad rate '$UPLINK_RATE' (e.g. 100G)"
[[ $QUIET_WAIT =~ ^[0-9]+$ ]] || die "--quiet-wait: a whole number of seconds"
[[ $PREFIX =~ ^[A-Za-z0-9_]{1,16}$ ]] || die "--prefix: letters, digits, _; at most 16"
for c in $CASES; do
	[[ $c =~ ^(xdp|tc|baseline|kernel)$ ]] || die "unknown case '$c' (xdp tc baseline kernel)"
done
[[ -n $CASES ]] || die "--cases: none given"
# Frame sizes: N bytes with the FCS is N - 4 in the kernel; gen's RoCEv2
# SEND over IPv4 is 58 bytes of headers and ICRC plus the payload padded to
# 4, so the frame is the nearest 58 + 4k at or above N - 4 (64 -> 62,
# 1024 -> 1022): PAYLOAD[N] bytes of payload, FRAME[N] bytes.
declare -A PAYLOAD FRAME
for s in $SIZES; do
	if ! [[ $s =~ ^[0-9]+$ ]] || ((s < 62 || s > 1518)); then
		die "--sizes: $s: 62..1518"
	fi
	p=$(((s - 4 - 58 + 3) / 4 * 4))
	((p >= 0)) || p=0
	PAYLOAD[$s]=$p
	FRAME[$s]=$((58 + p))
done
CPU_SIZE=${SIZES%% *}

[[ -x $XDPLEAF ]] || die "$XDPLEAF not built (run make)"
[[ -x $BASE_ATTACH ]] || [[ ! $CASES =~ baseline ]] ||
	die "$BASE_ATTACH not built (run make build/bench/base_attach)"
need_tools ip ethtool jq nsenter taskset flock awk "$PY"
KSOFTIRQD=$(pgrep -x "ksoftirqd/$GEN_CPU") || die "no ksoftirqd/$GEN_CPU"
bench_out "$ROOT/build/bench/perf/lab_rate-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/raw"
RAW=$OUT/raw/samples.tsv
: >"$RAW"

# ---- cleanup: our processes by pid, the lab by prefix, the lock ---------

# Background processes (sinks, the baseline's loader, gen) are this
# shell's jobs: `jobs -p` lists only those still running, so no pid that
# has been reused is ever signalled. The lock is fd 9, closed in every
# child (9>&-) so that none can keep it after we exit.
LAB_UP=0
LOCKED=0
cleanup() {
	stop_jobs
	if ((LAB_UP)); then
		lab_remove "$P"
	fi
	if ((LOCKED)); then
		flock -u 9 || true
		exec 9>&-
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- helpers ------------------------------------------------------------

# Sum of an interface's XDP receive counters (every rx queue) in NS.
xdp_rx() { # ns dev
	in_ns "$1" ethtool -S "$2" |
		awk '$1 ~ /^rx_queue_[0-9]+_xdp_packets:$/ { s += $2 } END { print s + 0 }'
}

# Frames past leaf1: what the spines' down ports received.
spines_rx() {
	local n sum=0
	for n in "${LAB_N[@]}"; do
		sum=$((sum + $(xdp_rx "$P-sp$n" down)))
	done
	echo "$sum"
}

# CPU time (ns) of a process's threads, and of one task.
proc_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
task_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }

# gen from s1 to r1 on the generator core; stdout its --json.
gen() {
	in_ns "$P-s1" taskset -c "$GEN_CPU" "$XDPLEAF" gen --dev eth0 \
		--dst "$(lab_receiver4 1)" --qps "$QPS" --json "$@" 9>&-
}

# ---- the cases ----------------------------------------------------------

BASE_PID=
case_up() { # case
	local hook conf
	case $1 in
	xdp | tc)
		conf=$OUT/leaf1-$1.conf
		in_ns "$P-leaf1" "$XDPLEAF" load --config "$conf" --instance "$P" \
			</dev/null >/dev/null 9>&- || die "$1: xdpleaf load failed"
		lab_wait_neigh "$P" || die "$1: xdpleaf did not learn the lab's neighbours"
		hook=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P" | jq -r .hook)
		[[ $hook == "$1" ]] || die "$1: xdpleaf attached at $hook, not $1"
		;;
	baseline)
		local mac
		mac=$(ip -n "$P-sp1" -j link show dev down | jq -r '.[0].address')
		nsenter --net="/run/netns/$P-leaf1" -- "$BASE_ATTACH" \
			--dev s1 --dev s2 --dev s3 --dev s4 --egress u1 --dst-mac "$mac" \
			2>"$OUT/raw/base_attach.err" 9>&- &
		BASE_PID=$!
		wait_ready "$OUT/raw/base_attach.err" "$BASE_PID" base_attach
		;;
	ref)
		# the CPU runs' reference: the counter on s1 itself
		nsenter --net="/run/netns/$P-leaf1" -- "$XDPLEAF" sink --dev s1 \
			>/dev/null 2>"$OUT/raw/ref_sink.err" 9>&- &
		BASE_PID=$!
		wait_ready "$OUT/raw/ref_sink.err" "$BASE_PID" "sink on leaf1's s1"
		;;
	esac
}

case_down() { # case
	case $1 in
	xdp | tc)
		in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P" >/dev/null ||
			die "$1: xdpleaf unload failed"
		;;
	baseline | ref)
		local err=$OUT/raw/base_attach.err
		[[ $1 == baseline ]] || err=$OUT/raw/ref_sink.err
		kill "$BASE_PID"
		wait "$BASE_PID" || die "$1: its program's process failed: $(tail -n 2 "$err")"
		BASE_PID=
		;;
	esac
}

# gen slowed by another process's BPF_PROG_RUN: each of its runs then waits
# for the kernel's XDP dispatcher (docs/traffic-tools.md, "Limits"), ~35 ms
# a run here, where a run takes well under 1 ms. Such a sample measures
# the other process, so it is taken once more.
slowed() { # gen's --json file
	jq -e '.runs / .seconds < 100' "$1" >/dev/null
}

# One rate run: gen unpaced, frames counted at the spines.
rate_run() { # round case size
	local r=$1 c=$2 s=$3 a b js try
	js=$OUT/raw/gen-rate-$c-$s-r$r.json
	for try in 1 2; do
		a=$(spines_rx)
		gen --size "${PAYLOAD[$s]}" \
			--duration "$(awk -v s="$RUN_SECONDS" 'BEGIN { printf "%dms", s * 1000 }')" \
			>"$js" 2>"$js.err" || die "gen failed ($c, $s B): $(tail -n 2 "$js.err")"
		sleep 0.05 # the last batch, if ksoftirqd took it
		b=$(spines_rx)
		slowed "$js" || break
		log "  $c, $s B: gen made only $(jq '.runs / .seconds | floor' "$js") runs/s" \
			"(another process's BPF_PROG_RUN holds the XDP dispatcher)$( ((try == 1)) && echo '; once more')"
	done
	jq -r --arg r "$r" --arg c "$c" --arg s "$s" --arg f "${FRAME[$s]}" --arg n $((b - a)) \
		'["rate", $r, $c, $s, $f, .packets, $n, .seconds, .dev_tx_dropped, .backoffs, .runs] | @tsv' \
		"$js" >>"$RAW"
	awk -F'\t' 'END { printf "    %-8s %4s B  %.3f Mpps\n", $3, $4, $7 / $8 / 1e6 }' "$RAW" >&2
}

# One CPU run: bursts at a fixed mean rate; CPU of gen and ksoftirqd over a
# window, per frame leaf1's s1 received in it. gen runs until stopped.
cpu_run() { # round case
	local r=$1 c=$2 s=$CPU_SIZE gp js g0 g1 k0 k1 p0 p1 t0 t1 try
	js=$OUT/raw/gen-cpu-$c-r$r.json
	for try in 1 2; do
		in_ns "$P-s1" true # fail here, not in the background, if s1 is gone
		nsenter --net="/run/netns/$P-s1" -- taskset -c "$GEN_CPU" "$XDPLEAF" gen \
			--dev eth0 --dst "$(lab_receiver4 1)" --qps "$QPS" --json \
			--size "${PAYLOAD[$s]}" --pattern nccl \
			--message $((CPU_BURST * PAYLOAD[$s])) --gap "fixed:${CPU_GAP_US}us" \
			--duration 60s >"$js" 2>"$js.err" 9>&- &
		gp=$!
		sleep 0.5
		t0=$(date +%s%N) g0=$(proc_ns "$gp") k0=$(task_ns "$KSOFTIRQD")
		p0=$(xdp_rx "$P-leaf1" s1)
		sleep "$CPU_WINDOW"
		t1=$(date +%s%N) g1=$(proc_ns "$gp") k1=$(task_ns "$KSOFTIRQD")
		p1=$(xdp_rx "$P-leaf1" s1)
		kill -TERM "$gp" 2>/dev/null || true
		wait "$gp" || die "gen failed ($c, CPU run): $(tail -n 2 "$js.err")"
		((g1 > g0 && p1 > p0)) || die "CPU run $c: gen did not run through the window"
		# under half the bursts' rate: gen was slowed (slowed(), above)
		(((p1 - p0) * CPU_GAP_US * 2000 < (t1 - t0) * QPS * CPU_BURST)) || break
		log "  $c, CPU run: only $(((p1 - p0) * 1000000000 / (t1 - t0))) frames/s" \
			"(another process's BPF_PROG_RUN holds the XDP dispatcher?)$( ((try == 1)) && echo '; once more')"
	done
	printf 'cpu\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$s" "${FRAME[$s]}" \
		$((p1 - p0)) $((t1 - t0)) $((g1 - g0)) $((k1 - k0)) >>"$RAW"
	awk -F'\t' 'END { printf "    %-8s CPU at %.0f kpps: %.0f ns/frame (gen + leaf1 + counter)\n",
		$3, $6 / $7 * 1e6, ($8 + $9) / $6 }' "$RAW" >&2
}

# ---- run ------------------------------------------------------------------

# leaf1's config: bench/lib.sh's leaf1_conf, every uplink at UPLINK_RATE
leaf1_conf "$UPLINK_RATE,$UPLINK_RATE,$UPLINK_RATE,$UPLINK_RATE" >"$OUT/leaf1-tc.conf"
conf_with_hook "$OUT/leaf1-tc.conf" xdp >"$OUT/leaf1-xdp.conf"
P=$PREFIX
T_START=$(date +%s)

exec 9>>"$LOCK"
if ! flock -n 9; then
	log "waiting for $LOCK (another benchmark is running)"
	flock 9
fi
LOCKED=1
T_LOCKED=$(date +%s)

log "lab $P (kernel mode; cases loaded into leaf1 in turn)"
"$LAB" down --prefix "$P" >/dev/null 2>&1 || true
LAB_UP=1
"$LAB" up --prefix "$P" --mode kernel 9>&- 2>&1 | sed 's/^/  /' >&2
[[ -e /run/netns/$P-leaf1 ]] || die "lab $P did not come up"
lab_warm_up "$P" 4

# The counters: a sink on every spine's down port for the whole run.
for n in "${LAB_N[@]}"; do
	nsenter --net="/run/netns/$P-sp$n" -- "$XDPLEAF" sink --dev down --json \
		>"$OUT/raw/sink-sp$n.json" 2>"$OUT/raw/sink-sp$n.err" 9>&- &
	wait_ready "$OUT/raw/sink-sp$n.err" $! "sink on sp$n"
done

read -r -a LIST <<<"$CASES ref"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((QUIET_WAIT > 0)); then
		quiet_gate "$OUT/raw" "$QUIET_WAIT"
		printf 'busy\t%s\t%s\n' "$r" "$(cat "$OUT/raw/busy_before")" >>"$RAW"
	fi
	log "round $r of $ROUNDS"
	for ((i = 0; i < ${#LIST[@]}; i++)); do
		c=${LIST[(i + r - 1) % ${#LIST[@]}]}
		case_up "$c"
		if [[ $c != ref ]]; then
			# warm-up: flows, neighbours, caches (not counted)
			gen --size "${PAYLOAD[$CPU_SIZE]}" --duration 300ms >/dev/null 2>&1 ||
				die "gen failed (warm-up, $c)"
			for s in $SIZES; do
				rate_run "$r" "$c" "$s"
			done
		fi
		cpu_run "$r" "$c"
		case_down "$c"
	done
done

T_LAB=$(($(date +%s) - T_LOCKED))
lab_remove "$P"
LAB_UP=0
for pid in $(jobs -p); do
	wait "$pid" 2>/dev/null || true
done
flock -u 9
exec 9>&-
LOCKED=0

# ---- report ---------------------------------------------------------------

"$PY" - "$RAW" "$OUT/lab_rate.json" <<EOF
import glob, json, os, statistics, sys, time
raw, out = sys.argv[1], sys.argv[2]
cases = "$CASES".split()
sizes = [int(s) for s in "$SIZES".split()]
names = {"xdp": "xdpleaf hook=xdp", "tc": "xdpleaf hook=tc (default)",
         "baseline": "baseline (stateful, XDP)", "kernel": "kernel forwarding"}
rate, cpu, busy = {}, {}, []
for line in open(raw):
    f = line.rstrip("\n").split("\t")
    if f[0] == "rate":
        _, r, c, s, frame, sent, counted, secs, dropped, backoffs, runs = f
        rate.setdefault((c, int(s)), []).append(dict(
            round=int(r), frame=int(frame), sent=int(sent), counted=int(counted),
            seconds=float(secs), mpps=int(counted) / float(secs) / 1e6,
            dev_tx_dropped=int(dropped), backoffs=int(backoffs), gen_runs=int(runs)))
    elif f[0] == "busy":
        busy.append(int(f[2]))
    elif f[0] == "cpu":
        _, r, c, s, frame, pkts, win_ns, gen_ns, ksi_ns = f
        cpu.setdefault(c, {})[int(r)] = dict(
            frame=int(frame), packets=int(pkts), pps=int(pkts) / (int(win_ns) / 1e9),
            ns_per_frame=(int(gen_ns) + int(ksi_ns)) / int(pkts))
med = statistics.median
res = {"schema_version": 1, "kind": "lab_rate",
       "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
       "xdpleaf": "$("$XDPLEAF" --version 2>/dev/null | head -n 1)",
       "machine": {"cpus": $(nproc), "kernel": "$(uname -r)"},
       "setup": {"rounds": $ROUNDS, "seconds": $RUN_SECONDS, "qps": $QPS,
                 "gen_cpu": $GEN_CPU, "uplink_rate": "$UPLINK_RATE",
                 "counted_at": "spines' down ports (xdpleaf sink), XDP rx counters",
                 "cpu_load": {"frames_per_qp_burst": $CPU_BURST,
                              "gap_us": $CPU_GAP_US, "window_s": $CPU_WINDOW,
                              "size": $CPU_SIZE}},
       "sizes": {str(s): {"frame": rate[(cases[0], s)][0]["frame"]} for s in sizes},
       "busy_before_rounds": busy, "cases": {}, "ratios": {}, "cpu": {}}
for c in cases:
    res["cases"][c] = {"name": names[c], "mpps": {}, "rounds": {}}
    for s in sizes:
        rs = rate[(c, s)]
        res["cases"][c]["mpps"][str(s)] = round(med([x["mpps"] for x in rs]), 4)
        res["cases"][c]["rounds"][str(s)] = rs
def ratio(a, b, s):
    if a in cases and b in cases:
        return round(res["cases"][a]["mpps"][str(s)] / res["cases"][b]["mpps"][str(s)], 3)
for s in sizes:
    res["ratios"][str(s)] = {k: v for k, v in {
        "xdp_over_baseline": ratio("xdp", "baseline", s),
        "xdp_over_kernel": ratio("xdp", "kernel", s),
        "tc_over_baseline": ratio("tc", "baseline", s),
        "tc_over_kernel": ratio("tc", "kernel", s)}.items() if v is not None}
ref = cpu.get("ref", {})
res["cpu"]["ref"] = {"ns_per_frame": round(med([x["ns_per_frame"] for x in ref.values()]), 1),
                     "rounds": ref}
for c in cases:
    rs = cpu.get(c, {})
    total = med([x["ns_per_frame"] for x in rs.values()])
    res["cpu"][c] = {"offered_pps": round(med([x["pps"] for x in rs.values()])),
                     "ns_per_frame": round(total, 1),
                     "leaf1_ns_per_frame": round(total - res["cpu"]["ref"]["ns_per_frame"], 1),
                     "rounds": rs}
# The counters' own view: RoCEv2 frames that leaf1 sent them with a bad
# IPv4 checksum or UDP length (a forwarder's broken rewrite) are malformed.
sinks = []
for f in sorted(glob.glob(os.path.join(os.path.dirname(raw), "sink-sp*.json"))):
    try:
        sinks.append(json.load(open(f))["total"])
    except (ValueError, KeyError):
        pass
res["counters"] = {"sinks": len(sinks),
                   "roce_packets": sum(t.get("packets", 0) for t in sinks),
                   "malformed": sum(t.get("malformed", 0) for t in sinks)}
json.dump(res, open(out, "w"), indent=1)

def span(xs):
    return "%.2f-%.2f" % (min(xs), max(xs))
print("leaf1's forwarding rate: gen on CPU %d (%d QPs of RoCEv2 SEND, IPv4) from s1, "
      "counted at the spines; median of %d rounds" % ($GEN_CPU, $QPS, $ROUNDS))
hdr = "%-26s" % "Mpps, median (min-max)"
for s in sizes:
    hdr += "  %-18s" % ("%d B frames (%d)" % (s, res["sizes"][str(s)]["frame"]))
print(hdr)
for c in cases:
    line = "%-26s" % names[c]
    for s in sizes:
        xs = [x["mpps"] for x in rate[(c, s)]]
        line += "  %-18s" % ("%.2f (%s)" % (med(xs), span(xs)))
    print(line)
for k, label in (("xdp_over_baseline", "xdpleaf-xdp / baseline"),
                 ("xdp_over_kernel", "xdpleaf-xdp / kernel"),
                 ("tc_over_kernel", "xdpleaf-tc / kernel")):
    if k not in res["ratios"][str(sizes[0])]:
        continue
    line = "%-26s" % label
    for s in sizes:
        line += "  %-18s" % ("%.2f" % res["ratios"][str(s)][k])
    print(line)
print()
print("CPU ns per frame at %.0f kpps of %d B frames (bursts of %d per QP, %d us apart)"
      % (med([res["cpu"][c]["offered_pps"] for c in cases]) / 1e3, $CPU_SIZE,
         $CPU_BURST, $CPU_GAP_US))
print("%-26s  %-18s  %s" % ("", "leaf1", "gen + leaf1 + counter, median (min-max)"))
def nspan(rs):
    xs = [x["ns_per_frame"] for x in rs.values()]
    return "%.0f (%.0f-%.0f)" % (med(xs), min(xs), max(xs))
for c in cases:
    cc = res["cpu"][c]
    print("%-26s  %-18.0f  %s" % (names[c], cc["leaf1_ns_per_frame"], nspan(cpu[c])))
print("%-26s  %-18s  %s, subtracted"
      % ("reference: sink on s1", "", nspan(ref)))
lost = [(c, s, x["sent"] - x["counted"]) for (c, s), xs in rate.items() for x in xs
        if x["sent"] - x["counted"] > x["sent"] * 0.001]
if any(b > 20 for b in busy):
    print("warning: other work kept the CPUs busy before some rounds (%s %%): "
          "figures are noisier" % " ".join(map(str, busy)))
if len(sinks) != 4:
    print("warning: %d of the 4 spines' sinks reported" % len(sinks))
if res["counters"]["malformed"]:
    print("warning: the spines' sinks saw %d malformed RoCEv2 frames" % res["counters"]["malformed"])
for (c, s), xs in sorted(rate.items()):
    for x in xs:
        if x["gen_runs"] / x["seconds"] < 100:
            print("warning: %s, %d B, round %d: gen was slowed by another BPF_PROG_RUN "
                  "user (%d runs/s); the median leaves it out if it is the only one"
                  % (c, s, x["round"], x["gen_runs"] / x["seconds"]))
for c, s, n in lost:
    print("warning: %s, %d B: %d frames sent but not counted past leaf1" % (c, s, n))
EOF
log "lab held $T_LAB s; $(($(date +%s) - T_START)) s in all; $OUT/lab_rate.json"
