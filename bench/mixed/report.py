#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The table of bench/mixed/run.sh, from the raw data it left in DIR.

  bench/mixed/report.py [--plot PNG] DIR
      prints the table; writes DIR/results.json (every row), each cell's
      DIR/HOSTS/SWITCH/FABRIC/result.json (its rows), and with --plot the
      CDF of the requests' round trips to PNG

A cell is DIR/HOSTS/SWITCH/FABRIC/ (HOSTS: the hosts' TCP profile) with
meta.json, and for each SIZE: idle-SIZE.csv and loaded-SIZE.csv
(sockperf's --full-log: one line per request, "packet, txTime(sec),
rxTime(sec), latency(usec)", the times in seconds since sockperf
started), loaded-SIZE.json (when that sockperf ran on the steps' clock:
launch_ns, exit_ns), off-N.csv and off-N.json of the windows between
them (the same sockperf, to a server on s1's loopback: the same CPU,
no fabric), and steps.json (the all-reduce's steps, start_ns and end_ns
on CLOCK_MONOTONIC). A cell that could not run has failed.txt.

A request's latency here is its round trip, rxTime - txTime: request
sent to response received, what an RPC client waits. (sockperf's own
summary prints half of it, its "latency".) Percentiles are nearest rank.

The all-reduce's steps with requests are those wholly inside a loaded
window's samples (its first request sent to its last response); without
requests, those wholly inside an off window's. The steps in between
(sockperf starting and ending) are counted in neither.

Targets (issue 43), judged on the xdpleaf fabrics; kernel ECMP's cells
are reported, not judged: with per-class switch queues ("class") the
loaded p99 <= 2 x the idle p99 and the all-reduce's p50 with requests <=
1.05 x its p50 without; with single-queue switches 4 x and 1.10 x; and
the loaded p99 below kernel ECMP's in the same run (same switches, hosts'
TCP and size).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  (bench/plot.py)
from benchlib import load, percentile  # noqa: E402  (bench/benchlib.py)

PROFILES = ["dc", "dc+ecn", "as-is", "as-is+ecn"]
SWITCHES = ["single", "class"]
FABRICS = ["kernel", "flowlet", "latency"]
SIZES = ["small", "medium"]
# switch -> (loaded p99 / idle p99, all-reduce p50 with / without)
TARGETS = {"class": (2.0, 1.05), "single": (4.0, 1.10)}


def samples(path):
    """sockperf's --full-log: [(tx_s, rx_s)] of every request, in order.
    The lines of its summary around them are skipped; a missing file is
    no samples."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split(",")
                if len(parts) != 4 or not parts[0].strip().isdigit():
                    continue
                out.append((float(parts[1]), float(parts[2])))
    except OSError:
        pass
    return out


def rtts_us(s):
    return [(rx - tx) * 1e6 for tx, rx in s]


def stats(v):
    """p50, p99, p99.9 of v, None without samples."""
    if not v:
        return None
    return {"n": len(v), "p50": percentile(v, 50), "p99": percentile(v, 99),
            "p999": percentile(v, 99.9)}


def span(cell, stem):
    """The window of sockperf run STEM on CLOCK_MONOTONIC (ns), from its
    first request sent to its last response; None if it did not run."""
    meta = load(os.path.join(cell, stem + ".json"))
    s = samples(os.path.join(cell, stem + ".csv"))
    if not meta or not s:
        return None
    t0 = meta["launch_ns"]
    return (t0 + round(s[0][0] * 1e9), t0 + round(s[-1][1] * 1e9))


def off_stems(cell):
    """off-1, off-2, ... of a cell, in order."""
    n = sorted(int(f[4:-5]) for f in os.listdir(cell)
               if f.startswith("off-") and f.endswith(".json") and f[4:-5].isdigit())
    return [f"off-{i}" for i in n]


def inside(steps, w):
    """The times (ms) of the steps wholly inside window w."""
    if w is None:
        return []
    return [st["time_ns"] / 1e6 for st in steps if st["start_ns"] >= w[0] and st["end_ns"] <= w[1]]


def ratio(a, b):
    return a / b if a is not None and b else None


def cell_rows(cell, meta):
    """One row per size of a cell."""
    sizes = meta.get("sizes", "").split()
    base = {k: meta.get(k) for k in ("host_tcp", "switch", "fabric", "lab", "duration_s")}
    failed = None
    if os.path.exists(os.path.join(cell, "failed.txt")):
        with open(os.path.join(cell, "failed.txt")) as f:
            failed = f.read().strip()
    run = load(os.path.join(cell, "steps.json"), {}) or {}
    steps = run.get("steps", [])
    without = [t for stem in off_stems(cell) for t in inside(steps, span(cell, stem))]
    ar_without = statistics.median(without) if without else None
    rows = []
    for size in sizes:
        idle = stats(rtts_us(samples(os.path.join(cell, f"idle-{size}.csv"))))
        loaded = stats(rtts_us(samples(os.path.join(cell, f"loaded-{size}.csv"))))
        # the same requests to s1's own loopback under the all-reduce:
        # what the hosts' CPUs alone add, no fabric (the cell's bound)
        host = stats(rtts_us([v for stem in off_stems(cell)
                              if (load(os.path.join(cell, stem + ".json"), {}) or {})
                              .get("size") == size
                              for v in samples(os.path.join(cell, stem + ".csv"))]))
        with_ = inside(steps, span(cell, f"loaded-{size}"))
        ar_with = statistics.median(with_) if with_ else None
        row = dict(base, size=size, idle=idle, loaded=loaded, host_loaded=host,
                   p99_x=ratio(loaded and loaded["p99"], idle and idle["p99"]),
                   host_p99_x=ratio(host and host["p99"], idle and idle["p99"]),
                   ar_steps_with=len(with_), ar_steps_without=len(without),
                   ar_p50_with_ms=ar_with, ar_p50_without_ms=ar_without,
                   ar_x=ratio(ar_with, ar_without),
                   ar_wrong_results=run.get("wrong_results"))
        if failed:
            row["failed"] = failed
        rows.append(row)
    return rows


def judge(rows):
    """Each xdpleaf row's targets: p99_ok, ar_ok, beats_kernel (None where
    a figure is missing); kernel ECMP's rows get none."""
    kernel = {(r["host_tcp"], r["switch"], r["size"]): r for r in rows if r["fabric"] == "kernel"}
    for r in rows:
        if r["fabric"] == "kernel":
            continue
        p99_max, ar_max = TARGETS[r["switch"]]
        k = kernel.get((r["host_tcp"], r["switch"], r["size"]))
        mine = r["loaded"] and r["loaded"]["p99"]
        theirs = k and k["loaded"] and k["loaded"]["p99"]
        r["targets"] = {
            "p99_x_max": p99_max, "ar_x_max": ar_max,
            "p99_ok": None if r["p99_x"] is None else r["p99_x"] <= p99_max,
            "ar_ok": None if r["ar_x"] is None else r["ar_x"] <= ar_max,
            "kernel_p99": theirs,
            "beats_kernel": None if mine is None or theirs is None else mine < theirs,
        }


def order(r):
    def at(lst, v):
        return lst.index(v) if v in lst else len(lst)
    return (at(PROFILES, r["host_tcp"]), at(SWITCHES, r["switch"]),
            at(SIZES, r["size"]), at(FABRICS, r["fabric"]))


def collect(root):
    rows, cells = [], []
    for dirpath, _, files in sorted(os.walk(root)):
        if "meta.json" not in files:
            continue
        meta = load(os.path.join(dirpath, "meta.json"))
        if not meta or "switch" not in meta:
            continue
        cr = cell_rows(dirpath, meta)
        cells.append((dirpath, cr))
        rows += cr
    judge(rows)
    rows.sort(key=order)
    return rows, cells


def us(v):
    return "-" if v is None else f"{v:,.0f}"


def trio(s):
    return "-" if not s else f"{us(s['p50'])}/{us(s['p99'])}/{us(s['p999'])}"


def x(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def verdict(t):
    """'p99 ok, ar MISS, <k ok' from a row's targets."""
    if t is None:
        return "(reported)"
    words = {True: "ok", False: "MISS", None: "-"}
    return (f"p99 {words[t['p99_ok']]}, ar {words[t['ar_ok']]}, "
            f"<k {words[t['beats_kernel']]}")


def table(rows):
    head = ["hosts", "switch", "size", "fabric", "idle p50/p99/p99.9 us",
            "loaded p50/p99/p99.9 us", "p99 x", "host p99 x", "all-reduce p50 ms with/without (steps)",
            "ar x", "targets"]
    body = []
    for r in rows:
        if r.get("failed") and not r["loaded"]:
            body.append([r["host_tcp"], r["switch"], r["size"], r["fabric"],
                         "-", "-", "-", "-", "-", "-", "FAILED: " + r["failed"]])
            continue
        body.append([r["host_tcp"], r["switch"], r["size"], r["fabric"], trio(r["idle"]),
                     trio(r["loaded"]), x(r["p99_x"], 1), x(r.get("host_p99_x"), 1),
                     f"{x(r['ar_p50_with_ms'], 0)}/{x(r['ar_p50_without_ms'], 0)}"
                     f" ({r['ar_steps_with']}/{r['ar_steps_without']})",
                     x(r["ar_x"], 3),
                     verdict(r.get("targets")) + (" (part FAILED)" if r.get("failed") else "")])
    w = [max(len(str(c[i])) for c in body + [head]) for i in range(len(head) - 1)]
    lines = ["  ".join(str(c).ljust(w[i]) if i < len(w) else str(c) for i, c in enumerate(row))
             .rstrip() for row in [head] + body]
    lines.append("")
    lines.append("Request latency: the round trip (request sent to response received), us.")
    lines.append("p99 x: loaded p99 / idle p99. host p99 x: the same requests to s1's own loopback")
    lines.append("under the all-reduce (the off windows: the hosts' CPUs alone, no fabric) / idle p99,")
    lines.append("the bound of p99 x here. ar x: the all-reduce's p50 step with requests /")
    lines.append("without, in the same run. Targets (xdpleaf fabrics): class switches p99 x <= 2,")
    lines.append("ar x <= 1.05; single-queue p99 x <= 4, ar x <= 1.10; <k: loaded p99 below kernel")
    lines.append("ECMP's of the same switches, hosts and size.")
    return "\n".join(lines)


def cdf_points(v, n=600):
    """The CDF's corners, thinned to about 2n points: n evenly over the
    body and n over the top 1 %, where the tail is."""
    s = sorted(v)
    if len(s) <= 2 * n:
        return plot.cdf(s)
    cut = int(len(s) * 0.99)
    idx = sorted(set([i * cut // n for i in range(n)]
                     + [cut + i * (len(s) - cut) // n for i in range(n)] + [len(s) - 1]))
    return [(s[i], (i + 1) / len(s)) for i in idx]


def draw(png, cells):
    """One panel per hosts' TCP profile and size: each cell's loaded CDF,
    and its idle one."""
    panels = {}
    for cell, rows in cells:
        for r in rows:
            key = (r["host_tcp"], r["size"])
            p = panels.setdefault(key, {"title": f"{r['size']} requests, {r['host_tcp']} hosts",
                                        "ylabel": "fraction of requests", "series": [],
                                        "logx": True, "yrange": (0, 1)})
            for phase in ("idle", "loaded"):
                v = rtts_us(samples(os.path.join(cell, f"{phase}-{r['size']}.csv")))
                if v:
                    p["series"].append((f"{r['fabric']}/{r['switch']} {phase}", cdf_points(v)))
    if not panels:
        return False
    keys = sorted(panels, key=lambda k: (PROFILES.index(k[0]) if k[0] in PROFILES else 9,
                                         SIZES.index(k[1]) if k[1] in SIZES else 9))
    return plot.lines(png, [panels[k] for k in keys], "request round trip (us, log scale)",
                      "bench-mixed: request latency, idle and under the all-reduce")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--plot", metavar="PNG", help="the CDF of the round trips")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        sys.exit(f"report.py: {a.dir}: not a directory")
    rows, cells = collect(a.dir)
    if not rows:
        sys.exit(f"report.py: no cells (meta.json) under {a.dir}")
    for cell, cr in cells:  # (judged in place by collect)
        with open(os.path.join(cell, "result.json"), "w") as f:
            json.dump(cr, f, indent=1)
    with open(os.path.join(a.dir, "results.json"), "w") as f:
        json.dump({"setup": load(os.path.join(a.dir, "setup.json"), {}), "rows": rows}, f,
                  indent=1)
    print(table(rows))
    if a.plot:
        draw(a.plot, cells)


if __name__ == "__main__":
    main()
