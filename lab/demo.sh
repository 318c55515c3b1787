#!/usr/bin/env bash
# Demo: bring up the lab with xdpleaf in leaf1, push traffic from all four
# senders at once, show leaf1's per-port counters and the throughputs, and
# tear everything down again (also on Ctrl-C or failure).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LAB=$ROOT/lab/lab.sh
XDPLEAF=$ROOT/build/xdpleaf
P=xldemo
SECONDS_PER_RUN=${DEMO_SECONDS:-4}
TMP=$(mktemp -d)

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

cleanup() {
	local f
	# The iperf3 servers are one-shot, but stop any a failed client left.
	for f in "$TMP"/iperf-*.pid; do
		if [[ -e $f ]]; then
			kill "$(<"$f")" 2>/dev/null || true
		fi
	done
	"$LAB" down --prefix "$P" || true
	rm -rf "$TMP"
}

[[ $EUID -eq 0 ]] || { echo "demo.sh: must run as root" >&2; exit 1; }
# A demo lab left by an interrupted earlier run would make `up` refuse.
"$LAB" down --prefix "$P"
trap cleanup EXIT
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

echo "== iperf3 TCP, ${SECONDS_PER_RUN}s, s1->r1 s2->r2 s3->r3 s4->r4 in parallel"
for n in 1 2 3 4; do
	# -1: the server exits after one test; -D daemonizes it once it is set
	# up. Poll for the listening socket rather than sleeping.
	in_ns "$P-r$n" iperf3 -s -1 -D -I "$TMP/iperf-$n.pid" </dev/null >/dev/null 2>&1
	for _ in $(seq 50); do
		[[ -n $(in_ns "$P-r$n" ss -Hltn 'sport = :5201') ]] && break
		sleep 0.1
	done
done
pids=()
for n in 1 2 3 4; do
	in_ns "$P-s$n" iperf3 -c "10.2.$n.2" -t "$SECONDS_PER_RUN" -J >"$TMP/tcp-$n.json" &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	wait "$pid" || echo "an iperf3 client failed (see above)" >&2
done

echo
echo "== leaf1 per-port counters (xdpleaf stats)"
stats=$(in_ns "$P-leaf1" "$XDPLEAF" stats --json --instance "$P")
{
	printf 'PORT\tROLE\tRX_PKTS\tRX_BYTES\tTX_PKTS\tTX_BYTES\tREDIRECT\tPASS\tDROP\tPASSED/DROPPED BECAUSE\n'
	jq -r '.ports[] |
		[.name, .role, .rx_packets, .rx_bytes, .tx_packets, .tx_bytes,
		 .verdicts.redirect, .verdicts.pass, .verdicts.drop,
		 ([.reasons | to_entries[] | select(.key != "forwarded" and .value > 0)
		   | "\(.key)=\(.value)"] | join(",") | if . == "" then "-" else . end)]
		| @tsv' <<<"$stats"
} | align

echo
echo "== iperf3 TCP throughput"
total=0
for n in 1 2 3 4; do
	mbps=$(jq -r '(.end.sum_received.bits_per_second // 0) / 1e6 | floor' "$TMP/tcp-$n.json" 2>/dev/null || echo 0)
	printf '  s%d -> r%d  %6d Mbit/s\n' "$n" "$n" "$mbps"
	total=$((total + mbps))
done
printf '  total     %6d Mbit/s\n' "$total"
echo
