#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The scaling curves of `make bench` (build/bench/scale) from DIR/scale.jsonl:

  bench/perf/plot_scale.py DIR

writes DIR/scale.csv (one row per measured point), DIR/scale-flows.png
(ns/packet against live flows, log x, the leaf and the stateful baseline,
and their ratio), DIR/scale-uplinks-routes.png (against uplinks in the
group and routes in the table) and prints a table. "net" is a figure with
the per-call overhead (the stateless baseline passing an ARP frame, in the
same rounds) taken out; error bars span the rounds' medians. Without
gnuplot (make deps installs gnuplot-nox) the plots are skipped, with a
word on stderr; the CSV and the table do not depend on it. Stdlib only.
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  (bench/plot.py)

CURVES = ("flows", "uplinks", "routes", "routes_new")
COLUMNS = ["kind", "x", "flows", "uplinks", "routes", "flow_table", "baseline_table",
           "calls", "rounds", "ns", "net_ns", "baseline_ns", "baseline_net_ns",
           "overhead_ns", "ratio", "net_ratio", "rel", "rel_net", "ns_min", "ns_max",
           "baseline_ns_min", "baseline_ns_max", "checks_ok"]


def load(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"plot_scale: {path}:{n}: not JSON: {e}")
    return rows


def points(rows, kind):
    """The measured points of one curve, by x."""
    return sorted((r for r in rows if r.get("section") == "scale" and r.get("kind") == kind
                   and "ns" in r), key=lambda r: r["x"])


def spread(r, key):
    v = r.get(key) or [r.get(key.replace("_rounds", ""), 0)]
    return min(v), max(v)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for kind in CURVES:
            for r in points(rows, kind):
                lo, hi = spread(r, "ns_rounds")
                blo, bhi = spread(r, "baseline_ns_rounds")
                w.writerow([r.get("kind"), r.get("x"), r.get("flows"), r.get("uplinks"),
                            r.get("routes"), r.get("flow_table"), r.get("baseline_table"),
                            r.get("calls"), r.get("rounds"), r.get("ns"), r.get("net_ns"),
                            r.get("baseline_ns"), r.get("baseline_net_ns"),
                            r.get("overhead_ns"), r.get("ratio"), r.get("net_ratio"),
                            r.get("rel"), r.get("rel_net"), lo, hi, blo, bhi,
                            str(r.get("checks", {}).get("ok", "")).lower()])


# ---- plots ---------------------------------------------------------------

def block(name, lines):
    return [f"${name} << EOD"] + (lines or ["1 0 0 0"]) + ["EOD"]


def curve_blocks(pts, tag):
    """Datablocks of a curve: leaf and baseline (x, y, lo, hi: the rounds'
    range), their net figures (x, y) and ratios (x, raw, net)."""
    leaf, base, lnet, bnet, ratio = [], [], [], [], []
    for r in pts:
        x = r["x"]
        lo, hi = spread(r, "ns_rounds")
        blo, bhi = spread(r, "baseline_ns_rounds")
        leaf.append(f"{x} {r['ns']} {lo} {hi}")
        base.append(f"{x} {r['baseline_ns']} {blo} {bhi}")
        lnet.append(f"{x} {r['net_ns']}")
        bnet.append(f"{x} {r['baseline_net_ns']}")
        ratio.append(f"{x} {r['ratio']} {r['net_ratio']} {r.get('rel', 0)} {r.get('rel_net', 0)}")
    out = []
    for name, data in (("leaf", leaf), ("base", base), ("lnet", lnet), ("bnet", bnet),
                       ("ratio", ratio)):
        out += block(f"{tag}_{name}", data)
    return out


def ns_plot(tag):
    return ("plot "
            f"${tag}_leaf using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#c0392b' "
            "title 'leaf (flowlet + queue)', "
            f"${tag}_lnet using 1:2 with linespoints dt 2 pt 6 lc rgb '#c0392b' "
            "title 'leaf, net of the call', "
            f"${tag}_base using 1:2:3:4 with yerrorlines lw 2 pt 5 lc rgb '#2471a3' "
            "title 'stateful baseline', "
            f"${tag}_bnet using 1:2 with linespoints dt 2 pt 4 lc rgb '#2471a3' "
            "title 'baseline, net of the call'")


def gnuplot(png, script):
    return plot.render(png, lambda out: script.replace("@OUT@", plot.quote(out)))


def plot_flows(png, pts, subtitle):
    s = curve_blocks(pts, "f")
    s += ["set terminal pngcairo size 1100,480 font 'sans,9' noenhanced",
          "set output @OUT@",
          "set grid", "set logscale x", "set format x '%.0s%c'", "set xrange [500:2000000]",
          "set key top left",
          "set multiplot layout 1,2 title "
          + plot.quote("xdpleaf: flowlet path with a phantom queue against live flows "
                       "(test_run, one packet of another flow per call)\n" + subtitle),
          "set title 'ns per packet'", "set xlabel 'live flows in the tables'",
          "set ylabel 'ns/packet'", "set yrange [0:*]", ns_plot("f"),
          "set title 'leaf / stateful baseline'", "set ylabel 'ratio'",
          "set yrange [0:*]", "set key bottom right",
          "plot $f_ratio using 1:2 with linespoints lw 2 pt 7 lc rgb '#7d3c98' title 'raw', "
          "$f_ratio using 1:3 with linespoints dt 2 pt 6 lc rgb '#7d3c98' "
          "title 'net of the call', "
          "1.5 with lines dt 3 lc rgb '#555555' title 'target 1.5'",
          "unset multiplot"]
    return gnuplot(png, "\n".join(s) + "\n")


def plot_uplinks_routes(png, ups, rts, rts_new, subtitle):
    s = curve_blocks(ups, "u") + curve_blocks(rts, "r") + curve_blocks(rts_new, "n")
    s += ["set terminal pngcairo size 1500,480 font 'sans,9' noenhanced",
          "set output @OUT@",
          "set grid", "set key bottom right",
          "set multiplot layout 1,3 title "
          + plot.quote("xdpleaf: flowlet path with a phantom queue, 16k live flows "
                       "(test_run, one packet of another flow per call)\n" + subtitle),
          "set title 'uplinks in the group (64: not configurable, at most 16)'",
          "set xlabel 'uplinks'", "set ylabel 'ns/packet'", "set logscale x 2",
          "set xtics (2, 4, 8, 16)", "set xrange [1.6:20]", "set yrange [0:*]",
          ns_plot("u"),
          "unset logscale x", "set xtics autofreq", "set logscale x",
          "set format x '%.0s%c'",
          "set title 'routes in the table (the same 2048 destinations)'",
          "set xlabel 'routes'", "set xrange [6:30000]", "set yrange [0:*]",
          ns_plot("r"),
          "set title 'routes in the table (a destination per route: cache misses)'",
          ns_plot("n"), "unset multiplot"]
    return gnuplot(png, "\n".join(s) + "\n")


# ---- the table -------------------------------------------------------------

def fmt_x(kind, x):
    if kind == "flows" and x >= 1000:
        return f"{x // 1000000}M" if x >= 1000000 else f"{x // 1000}k"
    return str(x)


def table(rows):
    run = next((r for r in rows if r.get("kind") == "run"), {})
    print("xdpleaf scaling, BPF_PROG_TEST_RUN, one packet per call (repeat 1), each of another "
          f"live flow; median of {run.get('rounds', '?')} rounds of a block each of the overhead, "
          "the stateful baseline and the leaf")
    print("net: without the call's own cost (the stateless baseline passing an ARP frame, "
          "same rounds); vs 1st: against the curve's first point")
    print(f"{'curve':10} {'x':>6} {'leaf ns':>8} {'net':>6} {'base ns':>8} {'net':>6} "
          f"{'call':>5} {'ratio':>6} {'net':>6} {'vs 1st':>7} {'net':>6}  checks")
    for kind in CURVES:
        for r in points(rows, kind):
            c = r.get("checks", {})
            ok = "ok" if c.get("ok") else "FAILED"
            print(f"{kind:10} {fmt_x(kind, r['x']):>6} {r['ns']:8.0f} {r['net_ns']:6.0f} "
                  f"{r['baseline_ns']:8.0f} {r['baseline_net_ns']:6.0f} "
                  f"{r['overhead_ns']:5.0f} {r['ratio']:6.2f} {r['net_ratio']:6.2f} "
                  f"{r['rel']:7.2f} {r['rel_net']:6.2f}  {ok}")
        for r in rows:
            if r.get("kind") == kind and r.get("possible") is False:
                print(f"{kind:10} {fmt_x(kind, r['x']):>6}  not measured: {r.get('why', '')}")
    for r in rows:
        if r.get("kind") == "hot":
            print(f"warm caches (one flow, repeat {r['repeat']} per call, as paths.c): "
                  f"leaf {r['ns']:.0f} ns, baseline {r['baseline_ns']:.0f} ns, "
                  f"ratio {r['ratio']:.2f}{'' if r.get('ok') else '  FAILED'}")
        elif r.get("kind") == "sampler":
            print(f"uplink rate sample (held off above): {r['cost_ns']:+.0f} ns in the call "
                  f"that takes one ({r['off_ns']:.0f} -> {r['on_ns']:.0f} ns)"
                  f"{'' if r.get('ok') else '  FAILED'}")
    for r in rows:
        if r.get("section") != "memory":
            continue
        if r.get("key") == "flow_entry":
            print(f"memory per flow entry (memlock, {r['entries'][0]} -> {r['entries'][1]} "
                  f"entries): leaf {r['leaf_bytes_per_entry']:.0f} B (key {r['key_bytes']} + "
                  f"value {r['value_bytes']}), baseline {r['baseline_bytes_per_entry']:.0f} B")
        elif r.get("key") == "instance":
            big = sorted(r.get("maps", {}).items(), key=lambda kv: -kv[1])[:3]
            print(f"memory per instance ({r['config']}, {r.get('cpus')} CPUs): "
                  f"{r['total_bytes'] / 2**20:.1f} MiB, maps {r['maps_bytes'] / 2**20:.1f} MiB "
                  f"(largest: " + ", ".join(f"{k} {v / 2**20:.1f}" for k, v in big)
                  + f"), programs {r['programs_bytes'] / 1024:.0f} KiB")
    if run:
        print(f"run: {run.get('elapsed_s')} s on CPU {run.get('cpu')} of {run.get('cpus')}, "
              f"load average {run.get('loadavg_start')} -> {run.get('loadavg_end')}"
              f"{'' if run.get('ok') else ', FAILED'}")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out = argv[1]
    src = os.path.join(out, "scale.jsonl")
    if not os.path.exists(src):
        print(f"plot_scale: {src}: no such file (build/bench/scale > it)", file=sys.stderr)
        return 1
    rows = load(src)
    write_csv(os.path.join(out, "scale.csv"), rows)
    run = next((r for r in rows if r.get("kind") == "run"), {})
    sub = (f"median of {run.get('rounds', '?')} rounds, bars: their range; "
           f"load average {run.get('loadavg_start', '?')}")
    if points(rows, "flows"):
        plot_flows(os.path.join(out, "scale-flows.png"), points(rows, "flows"), sub)
    if points(rows, "uplinks") or points(rows, "routes"):
        plot_uplinks_routes(os.path.join(out, "scale-uplinks-routes.png"),
                            points(rows, "uplinks"), points(rows, "routes"),
                            points(rows, "routes_new"), sub)
    table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
