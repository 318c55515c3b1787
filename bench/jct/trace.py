#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""One captured cell's offered load toward the uplinks, as a trace that
`xdpleaf sim flowlet --trace` replays through the uplink choice.

  bench/jct/trace.py CELL_DIR [--steps N] [--out FILE]

Reads a cell recorded with `bench/jct/run.sh --capture` (downN.pcap: what
leaf1 put on uplink uN, before the uplink's TBF; clock.json; steps.json)
and writes CSV lines `time_ns,flow,bytes`: every captured packet of the
first N measured steps (default all), its time from the first step's
start, its flow numbered 0, 1, ... by first appearance (a 5-tuple; the
uplink it took is left out, as the replay chooses anew) and its IP bytes.
The captures keep TCP packets of 200 bytes or more, so the trace is the
data the collective moved; a GRO aggregate on `down` is one line of its
whole size. To stdout unless --out.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timeline import read_captures  # noqa: E402  (bench/jct/timeline.py)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cell")
    ap.add_argument("--steps", type=int, help="the first N measured steps (default all)")
    ap.add_argument("--out", help="write here instead of stdout")
    a = ap.parse_args()
    try:
        clock = json.load(open(os.path.join(a.cell, "clock.json")))
        steps = json.load(open(os.path.join(a.cell, "steps.json")))["steps"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"trace.py: {a.cell}: not a captured cell ({e})")
    if a.steps is not None:
        if a.steps < 1:
            ap.error("--steps must be at least 1")
        steps = steps[:a.steps]
    if not steps:
        sys.exit(f"trace.py: {a.cell}: no measured steps")
    cap = read_captures(a.cell, clock["realtime_ns"] - clock["monotonic_ns"])
    if not cap["down"]:
        sys.exit(f"trace.py: {a.cell} has no down1..4.pcap (leaf1's side of the uplinks)")
    t0, t1 = steps[0]["start_ns"], steps[-1]["end_ns"]
    pkts = sorted((p for member in cap["down"] for p in member if t0 <= p.t < t1),
                  key=lambda p: p.t)
    flows = {}
    out = open(a.out, "w") if a.out else sys.stdout
    out.write("time_ns,flow,bytes\n")
    for p in pkts:
        out.write(f"{p.t - t0},{flows.setdefault(p.flow, len(flows))},{p.iplen}\n")
    if a.out:
        out.close()
    print(f"trace.py: {len(pkts)} packets of {len(flows)} flows over "
          f"{(t1 - t0) / 1e6:.0f} ms ({len(steps)} steps)", file=sys.stderr)


if __name__ == "__main__":
    main()
