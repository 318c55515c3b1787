#!/usr/bin/env bash
# Demo: bring up the lab with xdpleaf in leaf1 and show, with numbers
# measured here and now, what it does. Four sections, each ending in one
# "proves:" line:
#
#   1. the fast path: TCP from four senders, leaf1's per-port counters, the
#      share of packets xdpleaf forwarded without the kernel's routing
#      (at tc: the default config's `hook = auto` on the lab's veths)
#   2. load balancing: 8 TCP flows of one rate through lb_mode flowlet and
#      hash (ECMP's 5-tuple hash), each uplink's share and max/mean
#   3. ECN: an incast into r1, whose port on leaf2 is a 400 Mb/s phantom
#      queue; what it delivered, marked and dropped
#   4. DCQCN in host mode: the same incast with r1 sending CNPs and the
#      senders' reaction points pacing each QP, their steps and timers
#      scaled to the lab's rate; each QP's rate before, at the cut and
#      after recovery, then the port's drops and the QPs' shares with and
#      without DCQCN at the same offered load
#
# Everything it creates (namespaces, xdpleaf instances, processes) is
# removed on exit, also on failure or Ctrl-C. Exits 1 if a section did not
# show what it is meant to. Environment: DEMO_QUICK=1 shortens the
# traffic (the lab test's mode), DEMO_SECONDS sets the TCP runs' length,
# DEMO_PREFIX the namespace prefix (default xldemo).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LAB=$ROOT/lab/lab.sh
XDPLEAF=$ROOT/build/xdpleaf
PY=/usr/bin/python3 # Debian's: sample.py needs nothing else
P=${DEMO_PREFIX:-xldemo}
PINS=/sys/fs/bpf/xdpleaf
if [[ ${DEMO_QUICK:-0} == 1 ]]; then
	SECONDS_PER_RUN=${DEMO_SECONDS:-2}
	INCAST_S=1
else
	SECONDS_PER_RUN=${DEMO_SECONDS:-4}
	INCAST_S=2
fi
FLOW_RATE=150M    # section 2: each TCP connection's rate (8 of them)
C=250M            # DCQCN senders' line rate: each QP's start rate
# r1's port on leaf2: well below what 8 QPs at C offer even on a busy
# machine (500-700M measured during a full build), so the incast always
# congests it; LIGHT per QP (8 of them) leaves it half idle
PORT_RATE=400M
LIGHT=25M
C_BPS=250000000
RECOVER_S=5       # bound on the wait for every QP to be back near C
# The RP's rate steps, floor and timers as the specification (and host
# mode's defaults) have them are sized for a 40 Gbit/s NIC: with them the
# 8 QPs' floor alone (8 x 100M) overloads r1's port, and a cut QP climbs
# back before r1's queue, drained 100 times slower at 400M than at 40G,
# is gone. Scaled to this lab (as bench-dcqcn and bench-jct --host-dcqcn
# lab do; docs/dcqcn.md): R_AI and R_HAI the config's least (1/40 of
# 40M, 200M), the floor 1 % of C, the timers K and T 10 times longer.
NIC_BPS=40000000000
SCALED=(r_ai=1M r_hai=5M min_rate=2.5M k=550us t=550us)
# Section 4's targets against section 3 (the same gens, no DCQCN): at
# least 95 % fewer drops at r1's port, and every QP's share of what r1
# received within 25 % of an equal 1/8 (12.5 %: 9.4 to 15.6 %).
FEWER_PCT=95
SHARE_TOL_PCT=25
TMP=$(mktemp -d)
HOSTS=(r1 s1 s2 s3 s4) # host-mode instances of section 4: P_<host>
FAILED=0

# shellcheck source=lab/lib.sh
source "$ROOT/lab/lib.sh"

# Align tab-separated columns (column(1) is not in minimal images).
align() {
	awk -F'\t' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i
			if (length($i) > w[i]) w[i] = length($i) }
		nf[NR] = NF }
		END { for (r = 1; r <= NR; r++) { line = ""
			for (i = 1; i <= nf[r]; i++)
				line = line (i < nf[r] ? sprintf("%-" w[i] "s  ", cell[r, i]) : cell[r, i])
			print line } }'
}

# Host instances first (lab down knows only leaf1's and leaf2's); their
# pins are enough to unload them from here.
unload_hosts() {
	local h
	for h in "${HOSTS[@]}"; do
		[[ -d $PINS/${P}_$h ]] || continue
		"$XDPLEAF" unload --instance "${P}_$h" >/dev/null 2>&1 || true
	done
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local pid f
	# our background jobs (gens, the sampler, iperf3 clients): only this
	# shell's, and only those still running
	for pid in $(jobs -p); do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	# the iperf3 servers daemonize: stop any a failed client left
	for f in "$TMP"/iperf-*.pid; do
		if [[ -e $f ]]; then
			kill "$(<"$f")" 2>/dev/null || true
		fi
	done
	unload_hosts
	"$LAB" down --prefix "$P" || true
	rm -rf "$TMP"
}

proves() { echo "proves: $*"; }
# bit/s as Mb/s: whole above 10M, one decimal below (the scaled floor, 2.5M)
mbps() { awk -v b="$1" 'BEGIN { printf (b < 1e7 ? "%.1f" : "%d"), b / 1e6 }'; }
# A section that did not show its point says so, and the demo exits 1.
did_not() { echo "did not prove: $*"; FAILED=1; }

stats() { # namespace instance
	in_ns "$1" "$XDPLEAF" stats --json --instance "$2"
}

# Per uplink u1..u4 of leaf1: tx bytes (xdpleaf's counters), one line.
uplink_tx() {
	stats "$P-leaf1" "$P" | jq -r '[.ports[] | select(.role == "uplink")] | sort_by(.name)
		| map(.tx_bytes) | @tsv'
}

rx_bytes() { # namespace: eth0's received bytes (the kernel's counter)
	ip -n "$1" -s -j link show dev eth0 | jq '.[0].stats64.rx.bytes'
}

[[ $EUID -eq 0 ]] || { echo "demo.sh: must run as root" >&2; exit 1; }
[[ $P =~ ^[A-Za-z0-9]{1,10}$ ]] || { echo "demo.sh: DEMO_PREFIX: 1-10 letters or digits" >&2; exit 2; }
[[ $SECONDS_PER_RUN =~ ^[1-9][0-9]?$ ]] || { echo "demo.sh: DEMO_SECONDS: 1..99" >&2; exit 2; }
# A demo lab left by an interrupted earlier run would make `up` refuse.
unload_hosts
"$LAB" down --prefix "$P"
trap cleanup EXIT
trap 'exit 130' INT TERM
"$LAB" up --prefix "$P" --mode xdp

echo "== ping: every sender to every receiver (v4 and v6)"
for s in 1 2 3 4; do
	for r in 1 2 3 4; do
		for dst in "10.2.$r.2" "fd00:2:$r::2"; do
			if ! in_ns "$P-s$s" ping -q -c2 -i0.2 -W2 "$dst" >/dev/null; then
				echo "ping s$s -> $dst failed" >&2
				exit 1
			fi
		done
	done
	echo "  s$s -> r1..r4 ok"
done
lab_warm_up "$P" 4
lab_wait_neigh "$P"

# iperf3 TCP, s1->r1 .. s4->r4 at once, 2 connections each; results in
# $TMP/tcp-<tag>-N.json.
tcp_run() { # tag [rate per connection]
	local n pid pids=() cap=()
	[[ -n ${2-} ]] && cap=(-b "$2")
	for n in 1 2 3 4; do
		# -1: the server exits after one test; -D daemonizes it once it
		# is set up. Poll for the listening socket rather than sleeping.
		in_ns "$P-r$n" iperf3 -s -1 -D -I "$TMP/iperf-$n.pid" </dev/null >/dev/null 2>&1
		for _ in $(seq 50); do
			[[ -n $(in_ns "$P-r$n" ss -Hltn 'sport = :5201') ]] && break
			sleep 0.1
		done
	done
	for n in 1 2 3 4; do
		in_ns "$P-s$n" iperf3 -c "10.2.$n.2" -P 2 -t "$SECONDS_PER_RUN" "${cap[@]}" -J \
			>"$TMP/tcp-$1-$n.json" </dev/null &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || { echo "an iperf3 client failed" >&2; exit 1; }
	done
}

tcp_total_mbps() { # tag
	cat "$TMP"/tcp-"$1"-*.json | jq -s '[.[].end.sum_received.bits_per_second // 0] | add / 1e6 | floor'
}

# "u1% u2% u3% u4% max/mean" from two uplink_tx lines
shares() { # before after
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, A, "\t"); split(b, B, "\t")
		for (i = 1; i <= n; i++) { d[i] = B[i] - A[i]; t += d[i]; if (d[i] > m) m = d[i] }
		for (i = 1; i <= n; i++) printf "%.1f\t", t ? 100 * d[i] / t : 0
		printf "%.2f\n", t ? m / (t / n) : 0 }'
}

echo
echo "== 1. The fast path: iperf3 TCP, ${SECONDS_PER_RUN}s, s1->r1 .. s4->r4 (2 connections each) through leaf1 (lb_mode flowlet, the default)"
tcp_run fast
st=$(stats "$P-leaf1" "$P")
{
	printf 'PORT\tROLE\tRX_PKTS\tRX_BYTES\tTX_PKTS\tTX_BYTES\tREDIRECT\tPASS\tDROP\tPASSED/DROPPED BECAUSE\n'
	jq -r '.ports[] |
		[.name, .role, .rx_packets, .rx_bytes, .tx_packets, .tx_bytes,
		 .verdicts.redirect, .verdicts.pass, .verdicts.drop,
		 ([.reasons | to_entries[] | select(.key != "forwarded" and .value > 0)
		   | "\(.key)=\(.value)"] | join(",") | if . == "" then "-" else . end)]
		| @tsv' <<<"$st"
} | align
for n in 1 2 3 4; do
	printf '  s%d -> r%d  %6d Mbit/s\n' "$n" "$n" \
		"$(jq '(.end.sum_received.bits_per_second // 0) / 1e6 | floor' "$TMP/tcp-fast-$n.json")"
done
printf '  total     %6d Mbit/s\n' "$(tcp_total_mbps fast)"
read -r rx redirect kernel < <(jq -r '[([.ports[].rx_packets] | add), ([.ports[].verdicts.redirect] | add),
	([.ports[].verdicts.pass] | add)] | @tsv' <<<"$st")
pct=$(awk -v r="$redirect" -v t="$rx" 'BEGIN { printf "%.3f", t ? 100 * r / t : 0 }')
echo "  (PASS: to the kernel, for the reason named; every reason: docs/architecture.md, \"Reasons\")"
# where the default config's program runs (hook = auto: tc on veths)
hook=$(in_ns "$P-leaf1" "$XDPLEAF" status --json --instance "$P" | jq -r .hook)
if awk -v p="$pct" 'BEGIN { exit !(p >= 99) }'; then
	proves "xdpleaf at $hook forwarded $pct % of the $rx packets leaf1 received ($redirect) without the kernel's routing; the kernel saw $kernel, each for a reason in the table"
else
	did_not "only $pct % of leaf1's $rx packets took xdpleaf's path (at $hook)"
fi

echo
echo "== 2. Load balancing: 8 TCP connections again, each held by its sender to $FLOW_RATE (iperf3 -b), through lb_mode flowlet, then hash (5-tuple ECMP)"
# Held to one rate, every connection offers the same load, so the shares
# show where each mode placed them; unheld, each runs as fast as the two
# CPUs let it (200-500 Mbit/s in one run here) and the shares say as much
# about that as about placement.
before=$(uplink_tx)
tcp_run flowlet "$FLOW_RATE"
after=$(uplink_tx)
share_flowlet=$(shares "$before" "$after")
sed 's/^lb_mode = flowlet$/lb_mode = hash/' "$ROOT/lab/leaf1.conf" >"$TMP/leaf1-hash.conf"
grep -q '^lb_mode = hash$' "$TMP/leaf1-hash.conf"
in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P" >/dev/null
in_ns "$P-leaf1" "$XDPLEAF" load --config "$TMP/leaf1-hash.conf" --instance "$P" </dev/null >/dev/null
lab_warm_up "$P" 4
lab_wait_neigh "$P"
before=$(uplink_tx)
tcp_run hash "$FLOW_RATE"
after=$(uplink_tx)
share_hash=$(shares "$before" "$after")
{
	printf 'LB_MODE\tu1 %%\tu2 %%\tu3 %%\tu4 %%\tMAX/MEAN\tTCP TOTAL\n'
	printf 'hash\t%s\t%s Mbit/s\n' "$share_hash" "$(tcp_total_mbps hash)"
	printf 'flowlet\t%s\t%s Mbit/s\n' "$share_flowlet" "$(tcp_total_mbps flowlet)"
} | align
echo "  (shares of the bytes leaf1 sent on its uplinks, from xdpleaf's counters; max/mean 1.00 is even)"
mm_hash=${share_hash##*$'\t'}
mm_flowlet=${share_flowlet##*$'\t'}
if awk -v h="$mm_hash" -v f="$mm_flowlet" 'BEGIN { exit !(f < h) }'; then
	proves "with the same 8 TCP flows the busiest uplink carried $mm_hash x the mean under the 5-tuple hash and $mm_flowlet x under flowlet switching: flowlets spread by measured load where a hash can only place flows by chance"
elif awk -v f="$mm_flowlet" 'BEGIN { exit !(f <= 1.25) }'; then
	# 8 flows on 4 uplinks: the hash places them 2-2-2-2 about 1 time in 26
	proves "nothing this run: the hash happened to place these 8 flows as evenly ($mm_hash x the mean, flowlet $mm_flowlet x); a fresh draw of ports usually does not"
else
	did_not "flowlet left the busiest uplink at $mm_flowlet x the mean, the hash at $mm_hash x"
fi

echo
echo "== 3. ECN: incast of 4 senders x 2 RoCEv2 QPs x $C (ECT(0), DSCP 26) into r1 for ${INCAST_S}s"
echo "   r1's port on leaf2 runs a phantom queue: $PORT_RATE, 400 KB buffer, RoCE class marks from Kmin 5K to Kmax 200K"
sed "/^\[port r1\]/,/^role/ s/^role = downlink/role = downlink\nrate = $PORT_RATE\nbuffer = 400K/" \
	"$ROOT/lab/leaf2.conf" >"$TMP/leaf2.conf"
printf '\n[class roce]\ndscp = 26\nkmin = 5K\nkmax = 200K\npmax = 1%%\n' >>"$TMP/leaf2.conf"
grep -q "^rate = $PORT_RATE" "$TMP/leaf2.conf"
in_ns "$P-leaf2" "$XDPLEAF" load --config "$TMP/leaf2.conf" --instance "${P}_leaf2" </dev/null >/dev/null
for n in 1 2 3 4; do
	# gen sends to its gateway's MAC: resolve it (and r1) first
	in_ns "$P-s$n" ping -q -c1 -W2 10.2.1.2 >/dev/null
done
wait_neigh_listed "$P-leaf2" "${P}_leaf2" 10.2.1.2 10.253.{1..4}.1

r1_queue() { # the totals of leaf2's r1 queue over its classes
	stats "$P-leaf2" "${P}_leaf2" | jq -r '.ports[] | select(.name == "r1") | .queue
		| [([.classes[].packets] | add), ([.classes[].bytes] | add), .marked, .dropped, .peak_bytes]
		| @tsv'
}

GEN_PIDS=()
# 2 QPs per sender into r1, ECT(0), DSCP 26; with "dcqcn", each sender
# paces every QP by the rate its own RP publishes (gen --rate-map).
gens() { # seconds rate [dcqcn]
	local secs=$1 rate=$2 n pace=()
	GEN_PIDS=()
	for n in 1 2 3 4; do
		[[ ${3-} == dcqcn ]] && pace=(--rate-map "$PINS/${P}_s$n/rp_rates")
		# nsenter execs gen: $! is gen itself
		nsenter --net="/run/netns/$P-s$n" -- "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 \
			--qps 2 --size 1400 --rate "$rate" --dscp 26 --ecn ect0 \
			--sport-base $((49152 + 16 * n)) --duration "${secs}s" "${pace[@]}" \
			>"$TMP/gen-$n.out" 2>&1 </dev/null &
		GEN_PIDS+=($!)
	done
}
gens_wait() {
	local pid rc=0
	for pid in "${GEN_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	((rc == 0)) || { cat "$TMP"/gen-*.out >&2; exit 1; }
}

# xdpleaf sink on r1 counts each QP's delivered bytes during an incast
# (--pass: the kernel, and in section 4 r1's NP at tc, still get every
# packet).
SINK_PID=
sink_start() { # tag
	nsenter --net="/run/netns/$P-r1" -- "$XDPLEAF" sink --dev eth0 --pass --json \
		>"$TMP/sink-$1.json" 2>"$TMP/sink-$1.err" </dev/null &
	SINK_PID=$!
	for _ in $(seq 100); do
		grep -q ready "$TMP/sink-$1.err" && return 0
		kill -0 "$SINK_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/sink-$1.err" >&2
	exit 1
}
sink_stop() { # tag
	kill -TERM "$SINK_PID"
	wait "$SINK_PID" || { cat "$TMP/sink-$1.err" >&2; exit 1; }
}
# "QPS MIN MAX": the QPs r1 received from, and the smallest and largest
# share of the bytes, in % (one decimal)
qp_shares() { # tag
	jq -r '[.qps[].bytes] as $b | ($b | add) as $t
		| [($b | length)] + ([($b | min), ($b | max)] | map(. * 1000 / $t | round / 10))
		| @tsv' "$TMP/sink-$1.json"
}

read -r q0pk q0by q0mk q0dr _ < <(r1_queue)
sink_start ecn
d0=$(rx_bytes "$P-r1")
t0=$(date +%s%N)
gens "$INCAST_S" "$C"
gens_wait
t1=$(date +%s%N)
read -r q1pk q1by q1mk q1dr peak < <(r1_queue)
d1=$(rx_bytes "$P-r1")
sink_stop ecn
ms=$(((t1 - t0) / 1000000))
pk=$((q1pk - q0pk)) mk=$((q1mk - q0mk)) dr=$((q1dr - q0dr))
ecn_drops=$dr ecn_mbps=$(((d1 - d0) * 8 / ms / 1000))
read -r ecn_qps ecn_min ecn_max < <(qp_shares ecn)
printf '  offered to the port  %5d Mbit/s  (%d packets)\n' $(((q1by - q0by) * 8 / ms / 1000)) "$pk"
printf '  delivered to r1      %5d Mbit/s\n' "$ecn_mbps"
printf '  share per QP         %s..%s %% of what r1 received (%d QPs; equal: 12.5 %%)\n' \
	"$ecn_min" "$ecn_max" "$ecn_qps"
printf '  CE-marked            %5d packets (%s %%)\n' "$mk" \
	"$(awk -v m="$mk" -v p="$pk" 'BEGIN { printf "%.1f", p ? 100 * m / p : 0 }')"
printf '  tail-dropped         %5d packets (past the 400 KB buffer)\n' "$dr"
printf '  peak queue           %5d KB\n' $((peak / 1024))
echo "  leaf2's reasons (tail_drop counts on the ingress port):" \
	"$(stats "$P-leaf2" "${P}_leaf2" | jq -r '[.ports[].reasons | to_entries[] | select(.value > 0)]
		| group_by(.key) | map("\(.[0].key)=\(map(.value) | add)") | join(", ")')"
if ((mk > 0)); then
	proves "an oversubscribed port's phantom queue CE-marked $mk ECN-capable RoCE packets as it built past Kmin: the congestion signal DCQCN reacts to (nothing reacted here, so it also dropped $dr)"
else
	did_not "no packet was marked at r1's port (offered $pk packets)"
fi

echo
echo "== 4. DCQCN in host mode: the same incast; r1 sends CNPs for marked packets (NP), each sender cuts and recovers its QPs' rates (RP, paper variant, C = $C)"
echo "   the lab runs at 1/$((NIC_BPS / C_BPS)) of a $((NIC_BPS / 1000000000)) Gbit/s NIC's rate (C = $C), the rate the specification's RP steps and timers are sized for;"
echo "   scaled to the lab: R_AI 40M -> 1M, R_HAI 200M -> 5M (1/40: the config's least), min_rate 100M -> 2.5M (1 % of C), K = T 55us -> 550us (x10)"
printf '[xdpleaf]\nmode = host\n\n[port eth0]\n\n[dcqcn]\nnp = yes\nrp = no\n' >"$TMP/r1.conf"
{
	printf '[xdpleaf]\nmode = host\n\n[port eth0]\nrate = %s\n\n[dcqcn]\nvariant = paper\nnp = no\n' "$C"
	for kv in "${SCALED[@]}"; do
		printf '%s = %s\n' "${kv%%=*}" "${kv#*=}"
	done
} >"$TMP/sender.conf"
in_ns "$P-r1" "$XDPLEAF" load --config "$TMP/r1.conf" --instance "${P}_r1" </dev/null >/dev/null
for n in 1 2 3 4; do
	in_ns "$P-s$n" "$XDPLEAF" load --config "$TMP/sender.conf" --instance "${P}_s$n" </dev/null >/dev/null
	in_ns "$P-r1" ping -q -c1 -W2 "10.1.$n.2" >/dev/null # CNPs' next hop
done
# Every QP's published rate every 10 ms (bench/dcqcn/sample.py reads the
# maps directly: a command per sample would cost too much CPU).
"$PY" "$ROOT/bench/dcqcn/sample.py" --out "$TMP/sample" --leaf "$PINS/${P}_leaf2" --port r1 \
	--queue-every 10 --rate-every 10 --max-seconds 30 \
	--rp "s1=$PINS/${P}_s1" --rp "s2=$PINS/${P}_s2" --rp "s3=$PINS/${P}_s3" --rp "s4=$PINS/${P}_s4" \
	2>"$TMP/sample.err" </dev/null &
samp_pid=$!
for _ in $(seq 100); do
	grep -q ready "$TMP/sample.err" 2>/dev/null && break
	kill -0 "$samp_pid" 2>/dev/null || { cat "$TMP/sample.err" >&2; exit 1; }
	sleep 0.05
done
# "sN/QP RATE" per QP of every sender: the rate its RP publishes now
published() {
	local n
	for n in 1 2 3 4; do
		in_ns "$P-s$n" "$XDPLEAF" qps --json --instance "${P}_s$n" |
			jq -r --arg s "s$n" '.rp_flows[] | "\($s)/\(.qp) \(.published_rate_bps)"'
	done
}

# Before: the QPs at LIGHT each (half the port, no congestion).
declare -A before=() back=() rate_back=()
gens 1 "$LIGHT" dcqcn
gens_wait
while read -r qp r; do
	before[$qp]=$r
done < <(published)
# The incast, then light load again: poll until every QP's published
# rate is back at >= 95 % of C, or RECOVER_S has passed.
read -r q0pk q0by q0mk q0dr _ < <(r1_queue)
sink_start dcqcn
d0=$(rx_bytes "$P-r1")
t0=$(date +%s%N)
gens "$INCAST_S" "$C" dcqcn
gens_wait
t1=$(date +%s%N)
read -r q1pk q1by q1mk q1dr _ < <(r1_queue)
d1=$(rx_bytes "$P-r1")
sink_stop dcqcn
dcqcn_drops=$((q1dr - q0dr))
dcqcn_mbps=$(((d1 - d0) * 8 / ((t1 - t0) / 1000000) / 1000))
read -r dcqcn_qps dcqcn_min dcqcn_max < <(qp_shares dcqcn)
# what the incast offered r1's port, and how much of it was marked
incast_mbps=$(((q1by - q0by) * 8 / ((t1 - t0) / 1000000) / 1000))
incast_marked=$((q1mk - q0mk)) incast_pk=$((q1pk - q0pk))
gens $((RECOVER_S + 3)) "$LIGHT" dcqcn
t0=$(date +%s%N)
while ((${#back[@]} < 8)); do
	elapsed=$((($(date +%s%N) - t0) / 1000000))
	while read -r qp r; do
		[[ -n $qp && -z ${back[$qp]:-} ]] || continue
		if ((r * 100 >= C_BPS * 95)); then
			back[$qp]=$elapsed
			rate_back[$qp]=$r
		fi
	done < <(published)
	((elapsed < RECOVER_S * 1000)) || break
	((${#back[@]} == 8)) || sleep 0.1
done
for pid in "${GEN_PIDS[@]}"; do
	kill -INT "$pid" 2>/dev/null || true
done
gens_wait
kill -TERM "$samp_pid"
wait "$samp_pid" || true
cnps_sent=$(stats "$P-r1" "${P}_r1" | jq .counters.cnps_sent)
cnps_recv=0
for n in 1 2 3 4; do
	cnps_recv=$((cnps_recv + $(stats "$P-s$n" "${P}_s$n" | jq .counters.cnps_received)))
done
# Per QP from the sampler (every 10 ms): its lowest published rate, and
# how long after its last cut (the last sample lower than the one before)
# it was back at >= 95 % of C.
awk -F, -v c="$C_BPS" 'NR > 1 { k = $2 "/" $3; r = $4; t = $1 / 1e6
		if (!(k in low) || r < low[k]) low[k] = r
		if (k in prev && r < prev[k]) { cut[k] = t; rec[k] = "" }
		else if (k in cut && rec[k] == "" && r * 100 >= c * 95) rec[k] = t - cut[k]
		prev[k] = r }
	END { for (k in low) printf "%s %d %s\n", k, low[k], (rec[k] == "" ? "-" : sprintf("%.0f", rec[k])) }' \
	"$TMP/sample/rates.csv" | sort >"$TMP/qp-rates.txt"
cut=0 lowest=$C_BPS highest_low=0 slowest=0
{
	printf 'QP\tBEFORE\tAT THE CUT\tAFTER\tBACK AT 95 %% OF C\n'
	while read -r qp low rec; do
		printf '%s\t%s\t%s Mb/s\t%s\t%s\n' "$qp" \
			"${before[$qp]:+$(mbps "${before[$qp]}") Mb/s}" "$(mbps "$low")" \
			"${rate_back[$qp]:+$(mbps "${rate_back[$qp]}") Mb/s}" \
			"$([[ $rec == - ]] && echo "not seen" || echo "$rec ms after its last cut")"
	done <"$TMP/qp-rates.txt"
} | align
while read -r qp low rec; do
	if ((low * 10 < C_BPS * 9)); then cut=$((cut + 1)); fi
	if ((low < lowest)); then lowest=$low; fi
	if ((low > highest_low)); then highest_low=$low; fi
	if [[ $rec != - ]] && ((rec > slowest)); then slowest=$rec; fi
done <"$TMP/qp-rates.txt"
echo "  (BEFORE and AFTER: published rates at $LIGHT per QP, before the incast and once back; AT THE CUT: the lowest"
echo "   during the incast; rates sampled every 10 ms from the senders' maps)"
echo "  the incast offered r1's port $incast_mbps Mbit/s ($incast_pk packets, $incast_marked CE-marked)"
echo "  CNPs: r1 sent $cnps_sent, the senders received $cnps_recv"
# the rate a cut never goes below ([dcqcn] min_rate)
floor=$(in_ns "$P-s1" "$XDPLEAF" status --json --instance "${P}_s1" | jq '.dcqcn.min_rate_bps')
cut_to="$(mbps "$lowest")..$(mbps "$highest_low") Mb/s"
((lowest == highest_low && lowest == floor)) && cut_to="the RP's floor, min_rate = $(mbps "$floor") Mb/s,"

# Drops and shares with and without DCQCN: the same gens (8 QPs at C for
# INCAST_S into the same port), section 3's run without it.
fewer=$(awk -v a="$ecn_drops" -v b="$dcqcn_drops" 'BEGIN { printf "%.1f", a ? 100 * (a - b) / a : 0 }')
echo
echo "  at the same offered load, 8 QPs x $C for ${INCAST_S}s into r1's $PORT_RATE port:"
{
	printf '\tWITHOUT DCQCN (section 3)\tWITH DCQCN\n'
	printf 'delivered to r1\t%d Mbit/s\t%d Mbit/s\n' "$ecn_mbps" "$dcqcn_mbps"
	printf 'tail drops at the port\t%d\t%d (%s %% fewer)\n' "$ecn_drops" "$dcqcn_drops" "$fewer"
	printf 'share per QP\t%s..%s %%\t%s..%s %% (equal: 12.5 %%)\n' \
		"$ecn_min" "$ecn_max" "$dcqcn_min" "$dcqcn_max"
} | align | sed 's/^/  /'
# the targets: FEWER_PCT fewer drops, every share within SHARE_TOL_PCT of 1/8
fewer_ok=$(awk -v a="$ecn_drops" -v b="$dcqcn_drops" -v p="$FEWER_PCT" \
	'BEGIN { print (a > 0 && 100 * (a - b) >= p * a) }')
shares_ok=$(awk -v n="$dcqcn_qps" -v lo="$dcqcn_min" -v hi="$dcqcn_max" -v t="$SHARE_TOL_PCT" \
	'BEGIN { e = 100 / 8; print (n == 8 && lo >= e * (1 - t / 100) && hi <= e * (1 + t / 100)) }')
echo "  (targets: >= $FEWER_PCT % fewer drops; every QP's share within $SHARE_TOL_PCT % of 12.5 %, i.e. 9.4..15.6 %)"
if ((cut == 8 && ${#back[@]} == 8 && cnps_sent > 0 && fewer_ok && shares_ok)); then
	proves "r1 turned CE marks into $cnps_sent CNPs; every one of the 8 QPs was cut from $((C_BPS / 1000000)) Mb/s to $cut_to and was back at >= 95 % of C at most $slowest ms after its last cut; at the same offered load r1's port dropped $fewer % fewer packets than without DCQCN ($dcqcn_drops vs $ecn_drops) and every QP got $dcqcn_min..$dcqcn_max % of what it delivered"
else
	did_not "$cut of 8 QPs cut below 90 % of C, ${#back[@]} of 8 back within ${RECOVER_S}s, $cnps_sent CNPs sent; drops $dcqcn_drops with DCQCN vs $ecn_drops without ($fewer % fewer, target $FEWER_PCT); shares $dcqcn_min..$dcqcn_max % of $dcqcn_qps QPs (target: 8 QPs within $SHARE_TOL_PCT % of 12.5 %)"
fi

echo
exit "$FAILED"
