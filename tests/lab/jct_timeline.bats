#!/usr/bin/env bats
# bench/jct/timeline.py on a synthetic captured cell: pcaps written with
# scapy, as run.sh --capture leaves them at each spine (downN before the
# uplink's TBF, upN after it), with a drop, a GRO aggregate, a fast
# retransmission and one after a long silence, and leaf1's moves. No lab.

load helpers

PY=/usr/bin/python3

setup() {
	command -v tshark >/dev/null || skip "tshark not installed (make deps)"
	"$PY" -c 'import scapy' 2>/dev/null || skip "python3-scapy not installed (make deps)"
	RUN=$BATS_TEST_TMPDIR/run
	CELL=$RUN/dc/unequal/flowlet/allreduce-4M
	mkdir -p "$CELL"
}

# The cell: steps 0 (0-100 ms) and 1 (100-400 ms), in CLOCK_MONOTONIC
# from 1000 s; the captures' clock is 1.7e9 s ahead. Flow A (s1 -> r1)
# on u1: an aggregate of 3 segments that all leave, then a segment u1's
# TBF drops at 20 ms; after 230 ms of silence A resends it on u4 (a
# timeout). Flow B (s2 -> r2) on u2: a segment dropped at 31 ms, sent
# again 2 ms later (fast: no timeout), and an aggregate whose 50-byte
# tail is too small for the capture filter (not judged). leaf1 refused
# a move at 50 ms and moved A to u4 at 200 ms.
make_cell() {
	"$PY" - "$CELL" <<'EOF'
import json, os, sys
from scapy.all import Ether, IP, TCP, Raw, wrpcap
cell = sys.argv[1]
R, M = 1_700_000_000, 1000  # realtime, monotonic (s) at the same instant
A = ("10.1.1.2", "10.2.1.2", 5000, 6000)
B = ("10.1.2.2", "10.2.2.2", 5001, 6001)
def pkt(ms, f, ipid, seq, payload):
    p = Ether() / IP(src=f[0], dst=f[1], id=ipid, flags="DF") / \
        TCP(sport=f[2], dport=f[3], seq=seq, flags="A") / Raw(b"x" * payload)
    p.time = R + ms / 1000
    return p
caps = {k: [] for k in ("down1", "up1", "down2", "up2", "down3", "up3", "down4", "up4")}
# A on u1: a GRO aggregate (ids 100-102) leaves as 3 segments
caps["down1"].append(pkt(10, A, 100, 1000, 3000))
caps["up1"] += [pkt(11, A, 100 + k, 1000 + 1000 * k, 1000) for k in range(3)]
caps["down1"].append(pkt(20, A, 103, 4000, 1000))   # dropped by u1's TBF
caps["down4"].append(pkt(250, A, 104, 4000, 1000))  # resent after 230 ms
caps["up4"].append(pkt(251, A, 104, 4000, 1000))
# B on u2
caps["down2"] += [pkt(30, B, 1, 0, 1000), pkt(31, B, 2, 1000, 1000)]
caps["up2"].append(pkt(30.5, B, 1, 0, 1000))        # id 2 dropped
caps["down2"].append(pkt(33, B, 3, 1000, 1000))     # fast retransmission
caps["up2"].append(pkt(33.5, B, 3, 1000, 1000))
caps["down2"].append(pkt(60, B, 4, 2000, 1050))     # 1000 + a 50-byte tail
caps["up2"].append(pkt(60.5, B, 4, 2000, 1000))
for name, pkts in caps.items():
    wrpcap(os.path.join(cell, name + ".pcap"), pkts, linktype=1)
ns = lambda ms: M * 10**9 + int(ms * 1e6)
json.dump({"realtime_ns": R * 10**9, "monotonic_ns": M * 10**9}, open(f"{cell}/clock.json", "w"))
json.dump({"steps": [{"start_ns": ns(0), "end_ns": ns(100), "time_ns": ns(100) - ns(0)},
                     {"start_ns": ns(100) + 1, "end_ns": ns(400), "time_ns": ns(400) - ns(100) - 1}]},
          open(f"{cell}/steps.json", "w"))
flow = lambda f: {"src": f[0], "dst": f[1], "proto": 6, "sport": f[2], "dport": f[3]}
with open(f"{cell}/moves.jsonl", "w") as f:
    f.write(json.dumps({"event": "move_refused", "monotonic_ns": ns(50), "port": "u2", "flow": flow(B)}) + "\n")
    f.write(json.dumps({"event": "move", "monotonic_ns": ns(200), "port": "u4",
                        "detail": "from u1, gap 180000 us", "flow": flow(A)}) + "\n")
    f.write('{"event": "mo')  # cut short when the reader stopped
def snap(drops, timeouts):
    return {"tc": {f"sp{n}": [{"kind": "tbf", "drops": d}] for n, d in enumerate(drops, 1)},
            "nstat": {"s1": {"kernel": {"TcpExtTCPTimeouts": timeouts, "TcpRetransSegs": timeouts}}}}
json.dump(snap([5, 5, 0, 0], 0), open(f"{cell}/c0.json", "w"))
json.dump(snap([6, 6, 0, 0], 1), open(f"{cell}/c1.json", "w"))
EOF
	setup_json "dc, as-is; dc = reno, rto_min 5 ms, no slow start after idle; as-is = bbr, rto_min 200 ms, slow start after idle 1; rto5 = as-is with rto_min 5 ms"
	echo '{"fabric": "flowlet", "rates": "200M,100M,100M,50M", "host_tcp": "dc"}' \
		>"$RUN/dc/unequal/flowlet/meta.json"
}

# run.sh's setup.json, its hosts' TCP as given
setup_json() { # tcp_congestion_control
	printf '{"tcp_congestion_control": "%s"}\n' "$1" >"$RUN/setup.json"
}

@test "timeline: a drop on its uplink, retransmissions and the timeout, moves; per step and per bin" {
	make_cell
	run "$PY" "$ROOT/bench/jct/timeline.py" "$CELL"
	echo "$output"
	[[ $status -eq 0 ]]
	# 3/4 of run.sh's 5 ms minimum RTO (setup.json)
	[[ $output == *"timeouts: retransmissions after 3.75 ms of silence"* ]]
	# step 0: the drops on u1 and u2, B's fast retransmission on u2, the
	# refused move; step 1: A's timeout on u4 and its move (a data flow)
	local s0 s1
	s0=$(grep -E '^ +0 ' <<<"$output")
	s1=$(grep -E '^ +1 ' <<<"$output")
	read -r -a f <<<"$s0"
	[[ "${f[3]} ${f[4]} ${f[5]} ${f[6]} ${f[7]} ${f[8]}" == "1/1/0/0 0/1/0/0 0 0 0 1" ]]
	read -r -a f <<<"$s1"
	[[ "${f[3]} ${f[4]} ${f[5]} ${f[6]} ${f[7]} ${f[8]}" == "0/0/0/0 0/0/0/1 1 1 1 0" ]]
	# the bytes carried: step 0 three segments each on u1 and u2, step 1
	# only A's retransmission on u4
	[[ ${f[2]} == 0/0/0/100 ]]
	read -r -a f <<<"$s0"
	[[ ${f[2]} == 50/50/0/0 ]]
	[[ $output == *"drops 1/1/0/0, retransmissions 0/1/0/1, timeouts 1; the TBFs counted 1/1/0/0 drops (aggregates as one), the hosts 1 retransmissions, 1 timeouts"* ]]
	# the CSV: 40 bins of 10 ms; the drop at 20 ms on u1, the timeout at
	# 250 ms on u4, the move at 200 ms
	[[ $(wc -l <"$CELL/timeline.csv") -eq 41 ]]
	run "$PY" -c "import csv
rows = list(csv.DictReader(open('$CELL/timeline.csv')))
def at(ms): return next(r for r in rows if float(r['t_ms']) == ms)
print(at(20)['drops_u1'], at(30)['drops_u2'], at(30)['retx_u2'], at(30)['rto_u2'],
      at(250)['retx_u4'], at(250)['rto_u4'], at(200)['moves'], at(200)['moves_data'],
      at(50)['moves_refused'], at(110)['step'], at(100)['step_start'], at(10)['share_u1'],
      sum(int(r['drops_u' + str(n)]) for r in rows for n in range(1, 5)))"
	echo "$output"
	[[ $status -eq 0 && $output == "1 1 1 0 1 1 1 1 1 1 1 1.000 2" ]]
	if command -v gnuplot >/dev/null; then
		[[ $(head -c 4 "$CELL/timeline.png" | od -An -tx1 | tr -d ' \n') == 89504e47 ]]
	fi
}

@test "timeline: without the down captures, bytes only; --rto-gap-ms and a cell without captures" {
	make_cell
	rm "$CELL"/down?.pcap
	run "$PY" "$ROOT/bench/jct/timeline.py" --no-plot --rto-gap-ms 1 "$CELL"
	echo "$output"
	[[ $status -eq 0 ]]
	[[ $output == *"no down1..4.pcap: drops and retransmissions not known"* ]]
	[[ $output == *"timeouts: retransmissions after 1 ms"* ]]
	[[ ! -e $CELL/timeline.png ]]
	rm "$CELL"/up?.pcap
	run "$PY" "$ROOT/bench/jct/timeline.py" "$CELL"
	echo "$output"
	[[ $status -ne 0 && $output == *"no up1..4.pcap (run.sh --capture)"* ]]
}

@test "timeline: the timeout's silence follows the cell's host TCP profile" {
	make_cell
	gap() { # profile in meta.json, or none
		local meta=$RUN/dc/unequal/flowlet/meta.json
		if [[ -n $1 ]]; then
			printf '{"host_tcp": "%s"}\n' "$1" >"$meta"
		else
			echo '{}' >"$meta"
		fi
		"$PY" -c "import sys; sys.path.insert(0, '$ROOT/bench/jct'); import timeline
print(timeline.rto_gap_ms('$CELL'))"
	}
	# 3/4 of: dc's 5 ms, as-is's 200 ms (as setup.json found it), rto5's 5 ms
	[[ $(gap dc) == 3.75 && $(gap as-is) == 150.0 && $(gap rto5) == 3.75 ]]
	# a run from before the profiles: one setting, dc's or the bare algorithm
	setup_json "reno, rto_min 5 ms, no slow start after idle"
	[[ $(gap "") == 3.75 ]]
	setup_json "bbr"
	[[ $(gap "") == 150.0 ]]
	rm "$RUN/setup.json"
	[[ $(gap dc) == 150.0 ]]
}
