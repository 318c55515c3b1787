#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Flowlet's cells of one or more bench/jct/run.sh runs against the
targets docs/jct-bench.md states: one grid per host TCP profile, op and
size down, uplink set across, each cell p50x/p99x (flowlet over the
reference of its own run), '!' where a target is missed, and the
whole-flow placement bound of the cell (bench/jct/bound.py) after 'b'.

  bench/jct/targets.py [--json | --markdown] DIR|results.json ...

--markdown prints each grid as a Markdown table (for docs/jct-bench.md).

The runs must have been reported (bench/jct/report.py wrote
DIR/results.json). Exits 0 whether or not targets are met: it reports.
"""
import json
import os
import sys

# p50 over the reference, per host profile and uplink set; p99 for all
# dc cells. as-is hosts: unequal uplinks, and never above kernel ECMP's
# median of its hash draws (where the run measured kernel ECMP).
P50_TARGET = {("dc", "equal"): 1.10, ("dc", "unequal"): 1.15, ("dc", "degraded"): 1.30,
              ("as-is", "unequal"): 1.30}
P99_TARGET = {"dc": 1.35}
USETS = ["equal", "unequal", "degraded"]
CELL_W = 29  # "1.83!/1.56! b1.625 (k 2.44!)"


def load_rows(paths):
    """Every row and summary of the given runs (a directory or its
    results.json)."""
    rows, summary = [], []
    for p in paths:
        f = os.path.join(p, "results.json") if os.path.isdir(p) else p
        with open(f) as fh:
            data = json.load(fh)
        rows += data.get("rows", [])
        summary += data.get("summary", [])
    return rows, summary


def verdicts(rows, summary):
    """One entry per flowlet cell that has a ratio: its figures and each
    target's verdict (None where no target applies)."""
    medians = {(s["host_tcp"], s["uplinks"], s["op"], s["size"]): s.get("kernel_p50_median_x")
               for s in summary}
    out = []
    for r in rows:
        if r.get("label") != "flowlet" or "p50_x" not in r:
            continue
        hosts, uset = r.get("host_tcp", ""), r["uplinks"]
        t50, t99 = P50_TARGET.get((hosts, uset)), P99_TARGET.get(hosts)
        kmed = medians.get((hosts, uset, r["op"], r["size"]))
        c = {"host_tcp": hosts, "uplinks": uset, "op": r["op"], "size": r["size"],
             "bytes": r["bytes"], "p50_x": r["p50_x"], "p99_x": r["p99_x"],
             "whole_flow_bound_x": (r.get("bound") or {}).get("whole_flow_x"),
             "reordered": r.get("reorder_all"), "timed_out": bool(r.get("timed_out")),
             "p50_target": t50, "p99_target": t99, "kernel_median_x": kmed,
             "p50_ok": None if t50 is None else r["p50_x"] <= t50 and not r.get("timed_out"),
             "p99_ok": None if t99 is None else r["p99_x"] <= t99 and not r.get("timed_out"),
             "le_kernel_median": None if kmed is None else r["p50_x"] <= kmed}
        out.append(c)
    return out


def cell_text(c):
    """One cell: p50x/p99x, '!' on a miss, the whole-flow bound, kernel
    ECMP's median."""
    s = (f"{c['p50_x']:.2f}{'!' if c['p50_ok'] is False else ''}/"
         f"{c['p99_x']:.2f}{'!' if c['p99_ok'] is False else ''}")
    if c["whole_flow_bound_x"] is not None:
        s += " b" + f"{c['whole_flow_bound_x']:.3f}".rstrip("0").rstrip(".")
    if c["kernel_median_x"] is not None:
        s += f" (k {c['kernel_median_x']:.2f}{'' if c['le_kernel_median'] else '!'})"
    return s


def grid(cells, hosts, markdown=False):
    """The grid of one profile, as text or as a Markdown table."""
    mine = [c for c in cells if c["host_tcp"] == hosts]
    sets = [u for u in USETS if any(c["uplinks"] == u for c in mine)]
    keys = sorted({(c["op"], c["bytes"], c["size"]) for c in mine})
    t = ", ".join(f"{u} {P50_TARGET[(hosts, u)]:.2f}" for u in sets if (hosts, u) in P50_TARGET)
    lines = [f"== hosts' TCP {hosts}: flowlet p50x/p99x over the reference of the same run"
             + (f" (p50 targets: {t}" if t else " (no p50 target")
             + (f"; p99 {P99_TARGET[hosts]:.2f})" if hosts in P99_TARGET else ")")
             + "; ! misses a target, b the whole-flow bound, (k) kernel ECMP's median"
             + " of its hash draws"]
    opw = max([9] + [len(k[0]) for k in keys])
    if markdown:
        lines += ["", "| op | size | " + " | ".join(sets) + " |",
                  "| --- | --- |" + " ---: |" * len(sets)]
    else:
        lines.append((f"{'op':<{opw}} {'size':>4}  " + "".join(f"{u:<{CELL_W}}" for u in sets)).rstrip())
    for op, _, size in keys:
        texts = []
        for u in sets:
            c = next((c for c in mine if (c["op"], c["size"], c["uplinks"]) == (op, size, u)), None)
            texts.append("-" if c is None else cell_text(c))
        if markdown:
            lines.append(f"| `{op}` | {size} | " + " | ".join(texts) + " |")
        else:
            lines.append((f"{op:<{opw}} {size:>4}  " + "".join(f"{x:<{CELL_W}}" for x in texts)).rstrip())
    if markdown:
        lines.append("")
    n = len(mine)
    for what in ("p50_ok", "p99_ok", "le_kernel_median"):
        judged = [c for c in mine if c[what] is not None]
        if judged:
            label = {"p50_ok": "meet the p50 target", "p99_ok": "meet the p99 target",
                     "le_kernel_median": "are at or below kernel ECMP's median"}[what]
            lines.append(f"{sum(1 for c in judged if c[what])} of {len(judged)} cells {label}")
    bounded = [c for c in mine if c["whole_flow_bound_x"] is not None]
    if bounded:
        n_in = sum(1 for c in bounded if c["p50_x"] <= c["whole_flow_bound_x"])
        lines.append(f"{n_in} of {len(bounded)} cells at or below their whole-flow bound (p50)")
    reord = [c["reordered"] for c in mine if c["reordered"] is not None]
    lines.append(f"{n} flowlet cells; reordered segments: {sum(reord)} in all "
                 f"(largest {max(reord) if reord else 0})")
    return lines


def main(argv):
    as_json = "--json" in argv
    markdown = "--markdown" in argv
    paths = [a for a in argv if a not in ("--json", "--markdown")]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        cells = verdicts(*load_rows(paths))
    except (OSError, ValueError) as e:
        print(f"targets.py: {e}", file=sys.stderr)
        return 1
    if as_json:
        json.dump(cells, sys.stdout, indent=1)
        print()
        return 0
    order = ["dc", "as-is", "rto5"]
    for i, hosts in enumerate(sorted({c["host_tcp"] for c in cells},
                                     key=lambda h: order.index(h) if h in order else 9)):
        if i:
            print()
        print("\n".join(grid(cells, hosts, markdown)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
