#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The fabric simulator's cells (DIR/cells/*.json, one per collective and
fabric and seed, from xdpleaf-fabric) as DIR/results.json and
DIR/table.txt: each cell's p50 and p99 step time and their ratios to the
same collective's reference cell (p50 to p50, p99 to p99, as bench-jct
takes them), beside the bounds of bench/fabric/bound.py: the step time
with every connection whole on its best spine (whole_flow_x) and split
freely (fluid_x), as ratios to the reference's under the same model.

  bench/fabric/report.py DIR [UPLINKS]
  bench/fabric/report.py --plot PNG DIR...   p50 ratio against hosts, one
                                             panel per collective (the mean
                                             over a fabric's seeds)
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib  # noqa: E402
import plot  # noqa: E402
import bound  # noqa: E402  (bench/fabric/bound.py)

KEEP = ("hosts", "leaves", "spines", "collective", "bytes", "fabric", "lb_mode",
        "uplink_bps", "degrade", "tcp", "channels", "seed", "steps_ms", "flowlets", "moves",
        "moves_refused", "marked", "ip_sent", "ip_received", "ip_dropped",
        "events", "sim_s", "wall_s",
        # --transport roce's
        "transport", "dcqcn", "roce_retransmitted", "roce_naks", "roce_timeouts", "red_marked",
        "ce_received", "cnps_sent", "cnps_received", "rate_cuts", "min_rate_bps")


def fmt_x(v):
    return "-" if v is None else f"{v:.2f}"


def scale_plot(png, dirs):
    """Each run's results.json: per collective, a series per fabric of
    (hosts, mean p50 ratio over its seeds)."""
    pts = {}
    for d in dirs:
        res = benchlib.load(os.path.join(d, "results.json"))
        if res is None:
            sys.exit(f"report.py: {d}/results.json: missing or not JSON")
        for c in res["cells"]:
            key = (c["collective"], c["lb_mode"] or c["fabric"])
            pts.setdefault(key, {}).setdefault(c["hosts"], []).append(c["ratio_p50"])
    panels = []
    for op in sorted({k[0] for k in pts}):
        series = [(name, sorted((h, sum(v) / len(v)) for h, v in by_h.items()))
                  for (o, name), by_h in sorted(pts.items()) if o == op]
        panels.append({"title": op, "ylabel": "p50 / reference p50", "series": series})
    if plot.lines(png, panels, "hosts", "step time against the non-blocking reference"):
        print(f"report.py: {png}")


def bounds(cell, ref):
    """whole_flow_x, fluid_x and bound_exact of a cell against its
    reference (bound.py), or nothing for cells without the link rates
    (older runs) or a collective the model has no phases for."""
    if "leaf_up_bps" not in cell or "leaf_up_bps" not in ref:
        return {}
    try:
        mc, mr = bound.model_times(cell), bound.model_times(ref)
    except bound.jct_bound.BoundError:
        return {}
    return {"whole_flow_x": round(mc["whole_flow_s"] / mr["whole_flow_s"], 4),
            "fluid_x": round(mc["fluid_s"] / mr["whole_flow_s"], 4),
            "bound_exact": mc["exact"]}


def main(argv):
    if len(argv) >= 4 and argv[1] == "--plot":
        scale_plot(argv[2], argv[3:])
        return
    if len(argv) < 2:
        sys.exit(__doc__)
    out, uplinks = argv[1], argv[2] if len(argv) > 2 else ""
    cells = []
    for path in sorted(glob.glob(os.path.join(out, "cells", "*.json"))):
        c = benchlib.load(path)
        if c is None or not c.get("steps_ms"):
            sys.exit(f"report.py: {path}: no steps")
        cells.append(c)
    if not cells:
        sys.exit(f"report.py: {out}/cells: no cells")
    ref = {}
    for c in cells:
        if c["fabric"] == "ref":
            if c["collective"] in ref:
                sys.exit(f"report.py: two ref cells for {c['collective']}")
            ref[c["collective"]] = c
    rows = []
    for c in cells:
        r = ref.get(c["collective"])
        if r is None:
            sys.exit(f"report.py: no ref cell for {c['collective']}")
        row = {k: c[k] for k in KEEP if k in c}
        row["uplinks"] = uplinks
        row["p50_ms"] = benchlib.percentile(c["steps_ms"], 50)
        row["p99_ms"] = benchlib.percentile(c["steps_ms"], 99)
        row["ref_p50_ms"] = benchlib.percentile(r["steps_ms"], 50)
        ref_p99 = benchlib.percentile(r["steps_ms"], 99)
        row["ratio_p50"] = round(row["p50_ms"] / row["ref_p50_ms"], 4)
        row["ratio_p99"] = round(row["p99_ms"] / ref_p99, 4)
        row["events_per_s"] = round(c["events"] / c["wall_s"]) if c.get("wall_s") else None
        row.update(bounds(c, r))
        rows.append(row)
    order = {"ref": 0, "ecmp": 1}
    rows.sort(key=lambda x: (x["collective"], order.get(x["fabric"], 2), x["lb_mode"], x["seed"]))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"cells": rows}, f, indent=1, sort_keys=True)
        f.write("\n")
    lines = [f"{'hosts':>5} {'op':<9} {'bytes':>8} {'fabric':<16} {'seed':>4} {'p50ms':>9} {'p99ms':>9}"
             f" {'p50x':>5} {'p99x':>5} {'moves':>6} {'refused':>7} {'dropped':>9}"
             f" {'wholex':>6} {'fluidx':>6} {'wall_s':>7} {'Mev/s':>6}"]
    for r in rows:
        name = r["lb_mode"] or r["fabric"]
        lines.append(f"{r['hosts']:>5} {r['collective']:<9} {r['bytes']:>8} {name:<16} {r['seed']:>4}"
                     f" {r['p50_ms']:>9.4g} {r['p99_ms']:>9.4g} {r['ratio_p50']:>5.2f}"
                     f" {r['ratio_p99']:>5.2f} {r['moves']:>6} {r['moves_refused']:>7}"
                     f" {r['ip_dropped']:>9} {fmt_x(r.get('whole_flow_x')):>6}"
                     f" {fmt_x(r.get('fluid_x')):>6} {r['wall_s']:>7.1f}"
                     f" {(r['events_per_s'] or 0) / 1e6:>6.2f}")
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"report.py: {len(rows)} cells -> {out}/results.json, table.txt")


if __name__ == "__main__":
    main(sys.argv)
