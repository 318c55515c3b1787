#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""One cell's measured steps over time: what each uplink carried, lost and
retransmitted, and what leaf1's balancer did, in bins.

  bench/jct/timeline.py CELL_DIR [--bin-ms 10] [--rto-gap-ms MS] [--no-plot]

Reads a cell recorded with `bench/jct/run.sh --capture`: at each spine n
downN.pcap (the data packets arriving from leaf1, before the uplink's TBF)
and upN.pcap (those it sends on toward leaf2, after it), clock.json,
steps.json and, in xdp fabrics, moves.jsonl (leaf1's move, move_refused and
drop events). Writes CELL_DIR/timeline.csv and CELL_DIR/timeline.png and
prints a line per measured step. Per bin of --bin-ms from the first
measured step's start to the last one's end, and per uplink uN (spine n):

  bytes, share   IP bytes uN carried toward leaf2, and its share of all
                 the uplinks carried in the bin
  drops          segments that arrived on downN and never left on upN: the
                 TBF dropped them (or, --uplinks fail, the spine was down).
                 Matched by flow, IP id and TCP sequence number; a GRO
                 aggregate on `down` (the spines' veths merge segments)
                 stands for its segments, ids id, id+1.. at the flow's MSS
  retx           segments arriving on downN whose bytes an earlier packet of
                 the flow on any spine's `down` already carried: the
                 sender's retransmissions, on the uplink that carried them
  rto            those of the retx that came after the flow had sent nothing
                 for --rto-gap-ms: 3/4 of the hosts' minimum RTO under
                 the cell's --host-tcp profile (5 ms for dc and rto5,
                 as-is's as setup.json found it; Linux's 200 ms if
                 neither file says), a silence only the
                 retransmission timer (or a late tail-loss probe) ends;
                 fast retransmits follow within a round trip (2 ms through
                 a full uplink buffer) while the flow still sends
  moves, moves_data, moves_refused, leaf_drops
                 leaf1's events in the bin (moves_data: by the flows that
                 carried a quarter of the largest one's bytes or more, as
                 placement.py tells data flows from control messages)

Both captures keep only TCP packets of 200 bytes or more (run.sh's
filter), so a segment too small for it is neither counted nor missed.
Totals over the whole capture are printed beside the TBFs' own drop
counters (which count a GRO aggregate that fits the bucket, dropped whole,
as one) and the hosts' nstat retransmissions, timeouts and loss probes
(c0/c1.json). docs/jct-bench.md.
"""
import argparse
import bisect
import collections
import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import plot  # noqa: E402  (bench/plot.py)
from benchlib import load, nstat_delta, qdisc_drops  # noqa: E402  (bench/benchlib.py)
sys.path.insert(0, HERE)
import placement  # noqa: E402  (DATA_SHARE: which flows carry the data)

UPLINKS = ["u1", "u2", "u3", "u4"]
SPINES = ["sp1", "sp2", "sp3", "sp4"]
# run.sh's capture filter: `greater 200` keeps frames of 200 bytes or more
CAPTURE_MIN_FRAME = 200
ETH_HLEN = 14
FIELDS = ["frame.time_epoch", "ip.src", "ip.dst", "tcp.srcport", "tcp.dstport",
          "ip.id", "tcp.seq_raw", "tcp.len", "ip.len", "ip.hdr_len", "tcp.hdr_len"]


class Pkt:
    __slots__ = ("t", "flow", "ipid", "seq", "payload", "iplen", "hdrs")

    def __init__(self, t, flow, ipid, seq, payload, iplen, hdrs):
        self.t, self.flow, self.ipid, self.seq = t, flow, ipid, seq
        self.payload, self.iplen, self.hdrs = payload, iplen, hdrs


def tshark_start(path):
    """tshark printing one line of FIELDS a packet (no TCP analysis: the
    raw sequence numbers are what is matched)."""
    argv = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t",
            "-o", "tcp.analyze_sequence_numbers:FALSE",
            "-o", "tcp.relative_sequence_numbers:FALSE", "-Y", "tcp && ip"]
    for f in FIELDS:
        argv += ["-e", f]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def tshark_read(proc, path, offset_ns):
    """Pkts of one tshark, times moved to CLOCK_MONOTONIC."""
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"timeline.py: tshark failed on {path}: {err.strip()}")
    pkts = []
    for line in out.splitlines():
        v = line.split("\t")
        if len(v) != len(FIELDS) or not v[6]:
            continue
        sec, _, frac = v[0].partition(".")
        t = int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])
        pkts.append(Pkt(t - offset_ns, (v[1], v[2], int(v[3]), int(v[4])), int(v[5], 0),
                        int(v[6]), int(v[7]), int(v[8]), int(v[9]) + int(v[10])))
    return pkts


def read_captures(cell, offset_ns):
    """{"up": [pkts of u1..u4], "down": [..] or None}: the eight files
    decoded in parallel (tshark is the slow part), each read by a thread
    of its own so that none waits on a full pipe."""
    if not shutil.which("tshark"):
        sys.exit("timeline.py: tshark not installed (apt-get install tshark, or make deps)")
    procs = {}
    for side in ("up", "down"):
        for n in range(1, 5):
            p = os.path.join(cell, f"{side}{n}.pcap")
            if os.path.exists(p):
                procs[(side, n)] = (tshark_start(p), p)
    if not all(("up", n) in procs for n in range(1, 5)):
        sys.exit(f"timeline.py: {cell} has no up1..4.pcap (run.sh --capture)")
    with concurrent.futures.ThreadPoolExecutor(len(procs)) as pool:
        futs = {k: pool.submit(tshark_read, pr, p, offset_ns) for k, (pr, p) in procs.items()}
        got = {k: f.result() for k, f in futs.items()}
    down = None
    if all(("down", n) in got for n in range(1, 5)):
        down = [got[("down", n)] for n in range(1, 5)]
    return {"up": [got[("up", n)] for n in range(1, 5)], "down": down}


def flow_mss(up):
    """Each flow's segment size: the largest payload it had on any `up`,
    where every packet is one segment (a veth without TSO segments GRO's
    aggregates before the capture sees them)."""
    mss = {}
    for pkts in up:
        for p in pkts:
            if p.payload > mss.get(p.flow, 0):
                mss[p.flow] = p.payload
    return mss


def segments(p, mss):
    """The (ip id, seq, frame length) of the wire segments a captured packet
    stands for: itself, or a GRO aggregate's, mss bytes each but the last."""
    m = mss.get(p.flow) or p.payload or 1
    out, k, off = [], 0, 0
    while True:
        size = min(m, p.payload - off)
        out.append(((p.ipid + k) & 0xffff, (p.seq + off) & 0xffffffff,
                    ETH_HLEN + p.hdrs + max(size, 0)))
        off += m
        k += 1
        if off >= p.payload:
            return out


def find_drops(down, up, mss):
    """[(t, member index)] of every segment that arrived on a spine's down
    and never left on its up. A segment smaller than the capture filter
    keeps cannot be seen leaving, so it is not judged."""
    drops = []
    for n, (dpk, upk) in enumerate(zip(down, up)):
        left = {(p.flow, p.ipid, p.seq) for p in upk}
        for p in dpk:
            for ipid, seq, frame in segments(p, mss):
                if frame >= CAPTURE_MIN_FRAME and (p.flow, ipid, seq) not in left:
                    drops.append((p.t, n))
    return drops


class Seen:
    """The sequence ranges a flow has sent, merged: how many bytes of a new
    packet an earlier one already carried."""

    def __init__(self):
        self.starts, self.ends = [], []

    def add(self, a, b):
        s, e = self.starts, self.ends
        if not e or a >= e[-1]:  # the common case: new data at the end
            if e and a == e[-1]:
                e[-1] = b
            else:
                s.append(a)
                e.append(b)
            return 0
        i = bisect.bisect_right(e, a)
        j, overlap, lo, hi = i, 0, a, b
        while j < len(s) and s[j] < b:
            overlap += min(b, e[j]) - max(a, s[j])
            lo, hi = min(lo, s[j]), max(hi, e[j])
            j += 1
        s[i:j], e[i:j] = [lo], [hi]
        return overlap


def find_retx(down, mss, gap_ns):
    """[(t, member index, segments, after a silence of gap_ns or more)] of
    the retransmissions: a packet on any down whose bytes its flow had
    already sent, in time order over the four. Sequence numbers relative
    to the flow's first (a cell's flow sends far less than 2 GiB)."""
    allp = sorted(((p.t, n, p) for n, pkts in enumerate(down) for p in pkts),
                  key=lambda x: x[0])
    seen, base, last = {}, {}, {}
    out = []
    for t, n, p in allp:
        b0 = base.setdefault(p.flow, p.seq)
        a = ((p.seq - b0 + (1 << 31)) & 0xffffffff) - (1 << 31)
        overlap = seen.setdefault(p.flow, Seen()).add(a, a + p.payload)
        if overlap > 0:
            m = mss.get(p.flow) or p.payload
            silent = p.flow in last and t - last[p.flow] >= gap_ns
            out.append((t, n, max(1, -(-overlap // m)), silent))
        last[p.flow] = t
    return out


def load_events(path):
    """leaf1's events (xdpleaf events --json lines), or None without the
    file (kernel fabrics have no balancer to record)."""
    if not os.path.exists(path):
        return None
    evs = []
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line cut short when the reader stopped
            if "monotonic_ns" in e:
                evs.append(e)
    return evs


def flow_of(e):
    f = e.get("flow") or {}
    return (f.get("src"), f.get("dst"), f.get("sport"), f.get("dport"))


def rto_gap_ms(cell):
    """3/4 of the cell's hosts' minimum RTO. The run's setup.json names it
    per host TCP profile ("dc = reno, rto_min 5 ms, ..; as-is = bbr,
    rto_min 200 ms, ..; rto5 = as-is with rto_min 5 ms"), the cell's
    meta.json its profile; a run from before the profiles has one
    ("reno, rto_min 5 ms, .." under dc, the bare algorithm as-is). Without
    either, Linux's default 200 ms."""
    setup = {}
    for up in ("../../..", "../../../.."):  # OUT[/PROFILE]/SET/LABEL/CELL
        p = os.path.join(cell, up, "setup.json")
        if os.path.exists(p):
            setup = json.load(open(p))
            break
    meta = load(os.path.join(cell, "..", "meta.json"), {})
    tcp = setup.get("tcp_congestion_control", "")
    prof = meta.get("host_tcp")
    m = None
    if prof:
        m = re.search(rf"(?:^|; ){re.escape(prof)} = [^;]*?rto_min ([0-9.]+) ms", tcp)
    if not m and " = " not in tcp:
        m = re.search(r"rto_min ([0-9.]+) ms", tcp)
    return 0.75 * (float(m.group(1)) if m else 200.0)


def counter_deltas(cell):
    """The TBFs' drops per spine and the hosts' nstat timeouts and loss
    probes over the job (c1 - c0), or None."""
    c0, c1 = (load(os.path.join(cell, f)) for f in ("c0.json", "c1.json"))
    if c0 is None or c1 is None:
        return None

    def nstat(key):
        return sum(nstat_delta(c0, c1, h, key) for h in c1["nstat"])

    return {"tbf_drops": [qdisc_drops(c1, s) - qdisc_drops(c0, s) for s in SPINES],
            "timeouts": nstat("TcpExtTCPTimeouts"), "loss_probes": nstat("TcpExtTCPLossProbes"),
            "retrans": nstat("TcpRetransSegs")}


def capture_losses(cell):
    """Packets a capture itself dropped (dumpcap's closing line on stderr):
    a packet missing from an up capture would read as a TBF drop."""
    bad = []
    for side in ("down", "up"):
        for n in range(1, 5):
            p = os.path.join(cell, f"{side}{n}.err")
            if not os.path.exists(p):
                continue
            for m in re.finditer(r"received/dropped on interface '[^']*': (\d+)/(\d+)", open(p).read()):
                if int(m.group(2)):
                    bad.append(f"{side}{n}: {m.group(2)} of {m.group(1)}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cell")
    ap.add_argument("--bin-ms", type=float, default=10.0, help="bin width (default 10 ms)")
    ap.add_argument("--rto-gap-ms", type=float,
                    help="a retransmission after this much silence of its flow is a timeout "
                    "(default: 3/4 of the hosts' minimum RTO, from setup.json)")
    ap.add_argument("--no-plot", action="store_true", help="the CSV and the table only")
    a = ap.parse_args()
    if a.bin_ms <= 0:
        ap.error("--bin-ms must be > 0")
    cell = a.cell
    try:
        clock = json.load(open(os.path.join(cell, "clock.json")))
        steps = json.load(open(os.path.join(cell, "steps.json")))["steps"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"timeline.py: {cell}: not a captured cell ({e})")
    if not steps:
        sys.exit(f"timeline.py: {cell}: no measured steps")
    offset = clock["realtime_ns"] - clock["monotonic_ns"]
    gap_ms = a.rto_gap_ms if a.rto_gap_ms is not None else rto_gap_ms(cell)
    cap = read_captures(cell, offset)
    up, down = cap["up"], cap["down"]
    mss = flow_mss(up)
    drops = find_drops(down, up, mss) if down else []
    retx = find_retx(down, mss, int(gap_ms * 1e6)) if down else []
    events = load_events(os.path.join(cell, "moves.jsonl"))

    t0, t1 = steps[0]["start_ns"], steps[-1]["end_ns"]
    bin_ns = int(a.bin_ms * 1e6)
    nbins = max(1, -(-(t1 - t0) // bin_ns))

    def bin_of(t):
        return (t - t0) // bin_ns if t0 <= t < t0 + nbins * bin_ns else None

    step_starts = [s["start_ns"] for s in steps]

    def step_of(t):
        i = bisect.bisect_right(step_starts, t) - 1
        return i if i >= 0 and t <= steps[i]["end_ns"] else None

    # data flows: a quarter of the largest one's bytes on the uplinks or more
    fbytes = collections.Counter()
    for pkts in up:
        for p in pkts:
            if t0 <= p.t <= t1:
                fbytes[p.flow] += p.iplen
    least = max(fbytes.values(), default=0) / placement.DATA_SHARE
    data = {f for f, b in fbytes.items() if b >= least > 0}

    cols = ["bytes", "drops", "retx", "rto"]
    rows = [{"bytes": [0] * 4, "drops": [0] * 4, "retx": [0] * 4, "rto": [0] * 4,
             "moves": 0, "moves_data": 0, "moves_refused": 0, "leaf_drops": 0}
            for _ in range(nbins)]
    per_step = [{"bytes": [0] * 4, "drops": [0] * 4, "retx": [0] * 4, "rto": [0] * 4,
                 "moves": 0, "moves_data": 0, "moves_refused": 0, "leaf_drops": 0}
                for _ in steps]

    def count(t, key, n=None, v=1):
        """Add v to key (of uplink n) in t's bin and t's step, if any."""
        b, s = bin_of(t), step_of(t)
        for target in ([rows[b]] if b is not None else []) + ([per_step[s]] if s is not None else []):
            if n is None:
                target[key] += v
            else:
                target[key][n] += v

    for n, pkts in enumerate(up):
        for p in pkts:
            count(p.t, "bytes", n, p.iplen)
    for t, n in drops:
        count(t, "drops", n)
    for t, n, segs, silent in retx:
        count(t, "retx", n, segs)
        if silent:
            count(t, "rto", n, segs)
    for e in events or []:
        kind = {"move": "moves", "move_refused": "moves_refused", "drop": "leaf_drops"}.get(e.get("event"))
        if kind:
            count(e["monotonic_ns"], kind)
            if kind == "moves" and flow_of(e) in data:
                count(e["monotonic_ns"], "moves_data")

    # the CSV: one row per bin
    starts = {bin_of(s["start_ns"]) for s in steps}
    csv_path = os.path.join(cell, "timeline.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_ms", "step", "step_start"]
                   + [f"{c}_{u}" for c in ("bytes", "share") for u in UPLINKS]
                   + [f"{c}_{u}" for c in cols[1:] for u in UPLINKS]
                   + ["moves", "moves_data", "moves_refused", "leaf_drops"])
        for b, r in enumerate(rows):
            tb = t0 + b * bin_ns
            s = step_of(tb)
            tot = sum(r["bytes"])
            w.writerow([f"{b * a.bin_ms:g}", "" if s is None else s, int(b in starts)]
                       + r["bytes"] + [f"{x / tot:.3f}" if tot else "" for x in r["bytes"]]
                       + [x for c in cols[1:] for x in r[c]]
                       + [r["moves"], r["moves_data"], r["moves_refused"], r["leaf_drops"]])

    png = os.path.join(cell, "timeline.png")
    drawn = False
    if not a.no_plot:
        drawn = draw(png, cell, rows, steps, t0, a.bin_ms, down is not None, events is not None)

    # the table
    print(f"{cell}: {len(steps)} measured steps, {sum(map(len, up))} packets on the uplinks"
          + (f", {sum(map(len, down))} arriving at the spines" if down else
             " (no down1..4.pcap: drops and retransmissions not known)")
          + f"; {a.bin_ms:g} ms bins in {csv_path}" + (f" and {png}" if drawn else ""))
    print(f"timeouts: retransmissions after {gap_ms:g} ms of silence of their flow")

    def q(v):
        return "/".join(str(x) for x in v) if down else "-"

    print(f"{'step':>4} {'ms':>8}  {'bytes % u1/u2/u3/u4':<20} {'drops':<15} {'retx':<15} "
          f"{'RTOs':>4} {'moves':>5} {'data':>4} {'refused':>7}")
    for i, (s, r) in enumerate(zip(steps, per_step)):
        tot = sum(r["bytes"])
        share = "/".join(f"{100 * x / tot:.0f}" for x in r["bytes"]) if tot else "-"
        ev = (lambda k: str(r[k])) if events is not None else (lambda k: "-")
        print(f"{i:>4} {s['time_ns'] / 1e6:>8.1f}  {share:<20} {q(r['drops']):<15} "
              f"{q(r['retx']):<15} {sum(r['rto']) if down else '-':>4} {ev('moves'):>5} "
              f"{ev('moves_data'):>4} {ev('moves_refused'):>7}")
    if down:
        whole_d = [sum(1 for _, n in drops if n == k) for k in range(4)]
        whole_r = [sum(x for _, n, x, _ in retx if n == k) for k in range(4)]
        whole_t = sum(x for _, _, x, silent in retx if silent)
        line = (f"whole capture (warm-up included): drops {q(whole_d)}, retransmissions "
                f"{q(whole_r)}, timeouts {whole_t}")
        c = counter_deltas(cell)
        if c:
            # a TBF counts what it was handed: a GRO aggregate that fits its
            # bucket is dropped whole, as one
            line += (f"; the TBFs counted {'/'.join(map(str, c['tbf_drops']))} drops (aggregates "
                     f"as one), the hosts {c['retrans']} retransmissions, {c['timeouts']} "
                     f"timeouts, {c['loss_probes']} loss probes")
        print(line)
    lost = capture_losses(cell)
    if lost:
        print("warning: the captures themselves dropped packets (a missing packet on up reads "
              "as a drop): " + ", ".join(lost))


def draw(png, cell, rows, steps, t0, bin_ms, have_down, have_events):
    """The bins as panels over time (ms from the first measured step's
    start), step starts marked."""
    xs = [b * bin_ms for b in range(len(rows))]
    marks = [(s["start_ns"] - t0) / 1e6 for s in steps]

    def series(key, n, scale=1.0):
        return [(x, r[key][n] * scale) for x, r in zip(xs, rows)]

    def share(n):
        return [(x, 100 * r["bytes"][n] / sum(r["bytes"]) if sum(r["bytes"]) else 0)
                for x, r in zip(xs, rows)]

    mbit = 8 / (bin_ms * 1e3)  # bytes per bin -> Mbit/s
    panels = [
        {"title": "share of the bytes the uplinks carried", "ylabel": "%", "yrange": (0, 100),
         "steps": True, "vlines": marks, "series": [(u, share(n)) for n, u in enumerate(UPLINKS)]},
        {"title": "carried toward leaf2", "ylabel": "Mbit/s", "steps": True, "vlines": marks,
         "series": [(u, series("bytes", n, mbit)) for n, u in enumerate(UPLINKS)]}]
    if have_down:
        panels.append({"title": "segments the uplink's TBF dropped", "ylabel": "per bin",
                       "steps": True, "vlines": marks,
                       "series": [(u, series("drops", n)) for n, u in enumerate(UPLINKS)]})
        panels.append({"title": "retransmitted segments by the uplink that carried them",
                       "ylabel": "per bin", "steps": True, "vlines": marks,
                       "series": [(u, series("retx", n)) for n, u in enumerate(UPLINKS)]
                       + [("RTOs, all", [(x, sum(r["rto"])) for x, r in zip(xs, rows)])]})
    if have_events:
        panels.append({"title": "leaf1's balancer", "ylabel": "per bin", "steps": True,
                       "vlines": marks,
                       "series": [(name, [(x, r[k]) for x, r in zip(xs, rows)])
                                  for name, k in (("moves", "moves"), ("by data", "moves_data"),
                                                  ("refused", "moves_refused"))]})
    # "dc/unequal/flowlet/allreduce-4M, uplinks 200M,..": the run's layout
    path = os.path.normpath(os.path.abspath(cell)).split(os.sep)
    meta = load(os.path.join(cell, "..", "meta.json"), {})
    # keys of one width, so that the panels' x axes line up
    width = max(len(name) for p in panels for name, _ in p["series"])
    for p in panels:
        p["series"] = [(name.ljust(width), pts) for name, pts in p["series"]]
    title = ("/".join(path[-4 if meta.get("host_tcp") else -3:]) + (f", uplinks {meta['rates']}" if meta.get("rates") else "")
             + f": {len(steps)} measured steps, {bin_ms:g} ms bins")
    return plot.lines(png, panels, "ms since the first measured step began", title=title)


if __name__ == "__main__":
    main()
