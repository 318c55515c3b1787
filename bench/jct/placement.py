#!/usr/bin/python3
"""Where leaf1 kept a collective's data flows during its steps.

    bench/jct/placement.py OUT [--samples N]

For every MPI cell of an xdp fabric under OUT (bench/jct/run.sh's output:
each cell's steps.json; flows0.json and flows.json, leaf1's flow table
before and after the job; moves.jsonl, its `move` events during it),
replays the moves over each data flow's first uplink (the `from` of its
first move, or where it ended if it never moved) and prints, at N evenly
spaced instants inside every measured step, how many of the cell's data
flows (sender -> receiver, a quarter of the largest one's bytes or more)
were on each uplink, then how often the busiest uplink held how many
(with unequal uplinks, read the counts against their capacities). The
flow table after a
job shows only where each flow's last flowlet went (the closing barrier's
small messages), not the steps' placement. docs/jct-bench.md.
"""
import argparse
import collections
import json
import os
import sys

DATA_SHARE = 4


def flow_key(f):
    return (f["src"], f["dst"], f["sport"], f["dport"])


def data_flows(d):
    """The collective's data flows through leaf1's uplinks in cell d, by
    flow_key: {key: (flow entry after the job, bytes, moves in the
    job)}. An earlier cell's flows are still in the table, so only what
    grew since flows0.json counts (an entry evicted and made again, whole);
    data flows carried a quarter of the largest one's bytes or more, the
    rest are control messages (one-packet flowlets that land anywhere)."""
    flows = json.load(open(os.path.join(d, "flows.json")))["flows"]
    before = {}
    f0 = os.path.join(d, "flows0.json")
    if os.path.exists(f0):
        before = {flow_key(f): f for f in json.load(open(f0))["flows"]}
    grew = {}
    for f in flows:
        if not (f["src"].startswith("10.1.") and f["dst"].startswith("10.2.")):
            continue
        b = before.get(flow_key(f), {})
        db, dm = f["bytes"] - b.get("bytes", 0), f.get("moves", 0) - b.get("moves", 0)
        if db < 0 or dm < 0:
            db, dm = f["bytes"], f.get("moves", 0)
        grew[flow_key(f)] = (f, db, dm)
    least = max((g[1] for g in grew.values()), default=0) / DATA_SHARE
    return {k: g for k, g in grew.items() if g[1] >= least > 0}


def load_cell(d):
    steps = json.load(open(os.path.join(d, "steps.json")))["steps"]
    data = {k: f for k, (f, _, _) in data_flows(d).items()}
    history = collections.defaultdict(list)  # key -> [(t, from, to)]
    for line in open(os.path.join(d, "moves.jsonl")):
        e = json.loads(line)
        if e.get("event") != "move":
            continue
        k = flow_key(e["flow"])
        if k in data:
            # "from u1, gap ... us, ..." (docs/events.md)
            history[k].append((e["monotonic_ns"], e["detail"].split()[1].rstrip(","), e["port"]))
    for h in history.values():
        h.sort()
    return data, steps, history


def uplink_at(data, history, k, t):
    h = history.get(k)
    if not h:
        return data[k]["uplink"]
    where = h[0][1]
    for (tm, _, to) in h:
        if tm > t:
            break
        where = to
    return where


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=3, help="instants per step (default 3)")
    a = ap.parse_args()
    cells = sorted(root for root, _, files in os.walk(a.out)
                   if {"steps.json", "flows.json", "moves.jsonl"} <= set(files))
    if not cells:
        sys.exit(f"placement.py: no cell with moves.jsonl under {a.out}")
    for d in cells:
        data, steps, history = load_cell(d)
        uplinks = sorted({data[k]["uplink"] for k in data} |
                         {x for h in history.values() for (_, f, t) in h for x in (f, t)})
        print(f"{os.path.relpath(d, a.out)}: {len(data)} data flows, "
              f"{sum(len(h) for h in history.values())} moves; flows per uplink "
              f"({' '.join(uplinks)}) at {a.samples} instants of each step")
        busiest = collections.Counter()
        for i, s in enumerate(steps):
            row = []
            for j in range(a.samples):
                t = s["start_ns"] + (j + 1) * (s["end_ns"] - s["start_ns"]) // (a.samples + 1)
                c = collections.Counter(uplink_at(data, history, k, t) for k in data)
                row.append("/".join(str(c.get(u, 0)) for u in uplinks))
                busiest[max(c.values()) if c else 0] += 1
            print(f"  step {i:2d} {s['time_ns'] / 1e6:7.1f} ms  " + "  ".join(row))
        total = sum(busiest.values())
        print("  busiest uplink held: " +
              ", ".join(f"{n} flows {busiest[n]}/{total}" for n in sorted(busiest)))


if __name__ == "__main__":
    main()
