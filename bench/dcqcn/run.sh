#!/usr/bin/env bash
# DCQCN closed-loop benchmark (docs/dcqcn.md, "The closed loop in the lab"):
# 4 senders x 2 QPs -> r1, whose port on leaf2 is emulated at 1 Gb/s with a
# buffer and ECN marking for the RoCE class (DSCP 26). r1 runs the NP (host
# mode), the senders the RP, and `xdpleaf gen` paces each QP by the rate its
# RP publishes (--rate-map). Each run gets a fresh lab; runs:
#
#   off     no RP on the senders: gen sends at its cap C (the NP still
#           answers marks with CNPs, which nobody acts on)
#   paper   RP variant paper (defaults of docs/dcqcn-spec.md)
#   nvidia  RP variant nvidia (defaults)
#
# and prints one table (bench/dcqcn/report.py) of delivered rate,
# drops at the port, marked %, CNPs, Jain's index over 100 ms windows,
# time above Kmax; per-QP rates over time go to CSV files in --out.
#
#   bench/dcqcn/run.sh [--runs LIST] [--seconds N] [--rate C] [--size B]
#                          [--buffer B] [--kmin B] [--kmax B] [--pmax P]
#                          [--set KEY=VALUE]... [--spec-defaults] [--out DIR]
#                          [--prefix P]
#
# Every lab and host instance it makes is removed on exit, also on failure
# or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BENCH_NAME=bench-dcqcn
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
XDPLEAF=$ROOT/build/xdpleaf
BENCH=$ROOT/bench/dcqcn

RUNS="off paper nvidia"
RUN_SECONDS=10
# C, the senders' line rate: every QP starts at C and gen never sends a QP
# faster. 8 QPs x 250M = 2 Gb/s nominal into the 1 Gb/s port; more would
# exceed what this 2-CPU lab forwards without losses of its own (docs/dcqcn.md).
RATE=250M
# RoCE payload per packet: 1458-byte frames (86 kpps at 1 Gb/s instead of
# 115 kpps with 1024): CPU headroom for the kernel-forwarding spines.
SIZE=1400
PORT_RATE=1G   # r1's emulated port on leaf2
BUFFER=400K
# The RoCE class's marking profile and the RPs' steps, scaled to this 1 Gb/s
# port: the paper's R_AI 40M / R_HAI 200M / min 100M are sized for 40 Gb/s
# links (a step of 4 % of this port every 55 us); scaled by 1G/40G they are
# 1M / 5M, with a 10M floor (1 % of C). Kmax 100K / Pmax 20 % marks harder
# and earlier than the paper's 200K / 1 %. With the specification's own
# defaults (--spec-defaults) the loop still works but drops a little (paper)
# or a lot (nvidia): docs/dcqcn.md has both.
KMIN=5K
KMAX=100K
PMAX=20%
QPS=2          # per sender
SETS=(r_ai=1M r_hai=5M min_rate=10M) # [dcqcn] keys for the senders' RP
OUT=
PREFIX=xdq$$

# --set KEY=VALUE replaces a default for KEY instead of repeating the key
# (the config refuses a key given twice).
set_key() {
	local kv=$1 k=${1%%=*} keep=() s
	for s in "${SETS[@]}"; do
		[[ ${s%%=*} == "$k" ]] || keep+=("$s")
	done
	SETS=("${keep[@]}" "$kv")
}

usage() {
	cat >&2 <<EOF
usage: $0 [--runs LIST] [--seconds N] [--rate C] [--size B] [--buffer B]
          [--kmin B] [--kmax B] [--pmax P] [--set KEY=VALUE]... [--out DIR]
          [--prefix P]
  --runs LIST     of off paper nvidia (default: all three; comma or space)
  --seconds N     traffic per run (default $RUN_SECONDS)
  --rate C        senders' line rate C = each QP's start rate and gen's cap
                  (default $RATE)
  --size B        RoCE payload bytes per packet (default $SIZE)
  --buffer B      r1's port buffer on leaf2 (default $BUFFER)
  --kmin/--kmax/--pmax
                  marking profile of the RoCE class, DSCP 26 (default
                  $KMIN / $KMAX / $PMAX)
  --set KEY=VALUE extra [dcqcn] key for the senders' RP (repeatable),
                  e.g. --set r_ai=5M (default: r_ai=1M r_hai=5M min_rate=10M)
  --spec-defaults the specification's RP defaults and the paper's marking
                  profile (Kmax 200K, Pmax 1 %) instead of the 1 Gb/s scaling
  --out DIR       raw data, CSVs, results.json, table.txt, qp_rates.png
                  (default build/bench-dcqcn/<date>)
  --prefix P      lab prefix stem (default xdq<pid>); labs are P<o|p|n>
EOF
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--runs) RUNS=${2//,/ }; shift 2 ;;
	--seconds) RUN_SECONDS=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--buffer) BUFFER=$2; shift 2 ;;
	--kmin) KMIN=$2; shift 2 ;;
	--kmax) KMAX=$2; shift 2 ;;
	--pmax) PMAX=$2; shift 2 ;;
	--set) set_key "$2"; shift 2 ;;
	--spec-defaults) SETS=(); KMAX=200K; PMAX=1%; shift ;;
	--out) OUT=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
done
[[ $RUN_SECONDS =~ ^[1-9][0-9]*$ ]] || { echo "bad --seconds" >&2; exit 2; }
[[ $PREFIX =~ ^[A-Za-z0-9_]{1,18}$ ]] || { echo "bad --prefix (at most 18 of [A-Za-z0-9_])" >&2; exit 2; }
for r in $RUNS; do
	[[ $r == off || $r == paper || $r == nvidia ]] || { echo "bad run '$r'" >&2; exit 2; }
done
for s in "${SETS[@]}"; do
	[[ $s =~ ^[a-z_]+=[^[:space:]]+$ ]] || { echo "bad --set '$s'" >&2; exit 2; }
done
need_root
[[ -x $XDPLEAF ]] || die "$XDPLEAF not built (make)"
need_tools ip jq bpftool nsenter ping
OUT=${OUT:-$ROOT/build/bench-dcqcn/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"

# ---- cleanup: our processes by pid, our instances, our labs ---------------
# A run's lab goes (bench/lib.sh's bench_cleanup, after every run and on
# exit) with the host instances loaded in it, whose pins outlive the
# namespaces.
INSTANCES=() # "namespace instance"
run_down() { # prefix
	local li ns inst
	for li in "${INSTANCES[@]}"; do
		read -r ns inst <<<"$li"
		[[ -d $PINS/$inst ]] || continue
		if [[ -e /run/netns/$ns ]]; then
			in_ns "$ns" "$XDPLEAF" unload --instance "$inst" >/dev/null 2>&1 || true
		fi
		# once more from here (a host instance's pins are enough to
		# unload it), e.g. if the binary was being rebuilt a moment ago
		[[ -d $PINS/$inst ]] && { sleep 1; "$XDPLEAF" unload --instance "$inst" >/dev/null 2>&1 || true; }
		[[ -d $PINS/$inst ]] && log "warning: could not unload $inst ($PINS/$inst left)"
	done
	INSTANCES=()
	lab_remove "$1"
}
BENCH_LAB_DOWN=run_down
trap bench_cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- configs ----------------------------------------------------------------
# leaf2: lab/leaf2.conf with r1 limited to PORT_RATE and BUFFER, tail
# drop when full, and a RoCE class (DSCP 26) with the chosen profile.
L2CONF=$OUT/leaf2.conf
sed "/^\[port r1\]/,/^role/ s/^role = downlink/role = downlink\nrate = $PORT_RATE\nbuffer = $BUFFER\noverflow = drop/" \
	"$ROOT/lab/leaf2.conf" >"$L2CONF"
cat >>"$L2CONF" <<EOF

# RoCE data (DSCP 26): marked by this profile; CNPs (DSCP 48) keep the
# built-in class cnp (never marked, never dropped).
[class roce]
dscp = 26
kmin = $KMIN
kmax = $KMAX
pmax = $PMAX
EOF
grep -q "^rate = $PORT_RATE" "$L2CONF" || { log "could not derive $L2CONF"; exit 1; }

# r1: the NP only (no RP: it sends no RoCE data).
R1CONF=$OUT/r1.conf
cat >"$R1CONF" <<EOF
[xdpleaf]
mode = host

[port eth0]

[dcqcn]
np = yes
rp = no
EOF

sender_conf() { # variant -> file
	local f=$OUT/sender-$1.conf s
	{
		printf '[xdpleaf]\nmode = host\n\n[port eth0]\nrate = %s\n\n[dcqcn]\nvariant = %s\nnp = no\nrp = yes\n' \
			"$RATE" "$1"
		for s in "${SETS[@]}"; do
			printf '%s = %s\n' "${s%%=*}" "${s#*=}"
		done
	} >"$f"
	echo "$f"
}

# A host instance's counters as one JSON object: `xdpleaf stats --json`'s
# "counters", or, from a build without host-mode stats, host_stats summed
# over the CPUs with bpftool.
host_stats() { # namespace instance
	local j
	if j=$(in_ns "$1" "$XDPLEAF" stats --json --instance "$2" 2>/dev/null) &&
		jq -e '.counters.cnps_sent != null' <<<"$j" >/dev/null 2>&1; then
		jq '.counters' <<<"$j"
		return
	fi
	bpftool map dump pinned "$PINS/$2/host_stats" -j |
		jq '[.[0].formatted.values[].value] | reduce .[] as $v ({}; . as $a |
		    reduce ($v | keys[]) as $k ($a; .[$k] += $v[$k]))'
}

# Every RP flow of a sender as [{qp, cnps, rate_bps}]: `xdpleaf qps
# --json`, or bpftool on rp_flows and rp_rates.
rp_flows() { # namespace instance
	local j
	if j=$(in_ns "$1" "$XDPLEAF" qps --json --instance "$2" 2>/dev/null) &&
		jq -e '.rp_flows' <<<"$j" >/dev/null 2>&1; then
		jq '[.rp_flows[] | {qp, cnps, rate_bps: .published_rate_bps}]' <<<"$j"
		return
	fi
	jq -n --argjson f "$(bpftool map dump pinned "$PINS/$2/rp_flows" -j)" \
		--argjson r "$(bpftool map dump pinned "$PINS/$2/rp_rates" -j)" \
		'[$f[].formatted | .key.qp as $q | {qp: $q, cnps: .value.cnps,
		  rate_bps: ([$r[].formatted | select(.key.qp == $q)] | .[0].value.rate_bps)}]'
}

# ---- one run ------------------------------------------------------------------
run_one() { # run-name
	local run=$1 p dir n conf sink_pid samp_pid gens=() rc=0
	p=$PREFIX${run:0:1}
	dir=$OUT/$run
	mkdir -p "$dir"
	log "run $run: lab $p, ${RUN_SECONDS}s, C = $RATE, $QPS QPs x 4 senders -> r1 @ $PORT_RATE"
	BENCH_LABS+=("$p")
	"$LAB" up --prefix "$p" --leaf2-config "$L2CONF" 2>"$dir/lab.log"
	INSTANCES+=("$p-r1 ${p}_r1")
	in_ns "$p-r1" "$XDPLEAF" load --config "$R1CONF" --instance "${p}_r1" >/dev/null
	if [[ $run != off ]]; then
		conf=$(sender_conf "$run")
		for n in 1 2 3 4; do
			INSTANCES+=("$p-s$n ${p}_s$n")
			in_ns "$p-s$n" "$XDPLEAF" load --config "$conf" --instance "${p}_s$n" >/dev/null
		done
	fi
	# Resolve every next hop both ways (data and CNPs) before measuring.
	for n in 1 2 3 4; do
		in_ns "$p-s$n" ping -q -c1 -W2 10.2.1.2 >/dev/null
		in_ns "$p-r1" ping -q -c1 -W2 "10.1.$n.2" >/dev/null
	done
	wait_neigh_listed "$p-leaf1" "$p" 10.1.{1..4}.2 10.254.{1..4}.2 ||
		log "warning: $p did not learn every neighbour"
	wait_neigh_listed "$p-leaf2" "${p}_leaf2" 10.2.1.2 10.253.{1..4}.1 ||
		log "warning: ${p}_leaf2 did not learn every neighbour"

	# Receiver: per-QP counters every 100 ms; --pass so that r1's tc
	# ingress (the NP) sees the data after the sink's XDP counted it.
	nsenter --net="/run/netns/$p-r1" -- "$XDPLEAF" sink --dev eth0 --pass --json \
		--interval 100ms --duration $((RUN_SECONDS + 20))s \
		>"$dir/sink.jsonl" 2>"$dir/sink.err" &
	sink_pid=$!
	wait_ready "$dir/sink.err" "$sink_pid" sink

	local rps=()
	if [[ $run != off ]]; then
		for n in 1 2 3 4; do
			rps+=(--rp "s$n=$PINS/${p}_s$n")
		done
	fi
	"$PY" "$BENCH/sample.py" --out "$dir" --leaf "$PINS/${p}_leaf2" --port r1 \
		--np "r1=$PINS/${p}_r1" \
		--max-seconds $((RUN_SECONDS + 20)) "${rps[@]}" 2>"$dir/sample.err" &
	samp_pid=$!
	wait_ready "$dir/sample.err" "$samp_pid" sampler
	sleep 0.1 # a few idle queue samples before the traffic: the baseline

	head -1 /proc/stat >"$dir/cpu_before.txt"
	for n in 1 2 3 4; do
		local rm=()
		[[ $run == off ]] || rm=(--rate-map "$PINS/${p}_s$n/rp_rates")
		# nsenter execs gen: $! is gen itself
		nsenter --net="/run/netns/$p-s$n" -- "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 \
			--qps "$QPS" --size "$SIZE" --rate "$RATE" --ecn ect0 --dscp 26 \
			--sport-base $((49152 + 16 * n)) --duration "${RUN_SECONDS}s" --json \
			"${rm[@]}" >"$dir/gen_s$n.json" 2>"$dir/gen_s$n.err" &
		gens+=($!)
	done
	for n in "${gens[@]}"; do
		wait "$n" || rc=1
	done
	head -1 /proc/stat >"$dir/cpu_after.txt"
	((rc == 0)) || { log "a gen failed:"; cat "$dir"/gen_s*.err >&2; return 1; }
	sleep 0.3 # the last packets and CNPs of the run
	kill -TERM "$samp_pid" "$sink_pid" 2>/dev/null || true
	wait "$samp_pid" || true
	wait "$sink_pid" || { log "sink failed:"; cat "$dir/sink.err" >&2; return 1; }

	in_ns "$p-leaf2" "$XDPLEAF" stats --json --instance "${p}_leaf2" >"$dir/leaf2_stats.json"
	host_stats "$p-r1" "${p}_r1" >"$dir/host_r1.json"
	if [[ $run != off ]]; then
		for n in 1 2 3 4; do
			host_stats "$p-s$n" "${p}_s$n" >"$dir/host_s$n.json"
			rp_flows "$p-s$n" "${p}_s$n" >"$dir/rp_flows_s$n.json"
		done
	fi
	bpftool map dump pinned "$PINS/${p}_r1/np_flows" -j >"$dir/np_flows_r1.json"
	jq -n --arg run "$run" --arg rate "$RATE" --arg port_rate "$PORT_RATE" \
		--arg buffer "$BUFFER" --arg kmin "$KMIN" --arg kmax "$KMAX" --arg pmax "$PMAX" \
		--argjson seconds "$RUN_SECONDS" --argjson size "$SIZE" --argjson qps "$QPS" \
		--arg sets "${SETS[*]}" \
		'{run: $run, rate: $rate, port_rate: $port_rate, buffer: $buffer, kmin: $kmin,
		  kmax: $kmax, pmax: $pmax, seconds: $seconds, size: $size, qps: $qps,
		  sets: $sets}' >"$dir/meta.json"
	bench_cleanup
}

for r in $RUNS; do
	run_one "$r"
done
"$PY" "$BENCH/report.py" "$OUT" | tee "$OUT/table.txt"
log "raw data, CSVs and results.json in $OUT"
