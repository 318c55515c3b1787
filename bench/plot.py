#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Line plots as PNG through gnuplot, shared by the benchmarks' reports.

  import plot                     (bench/ on sys.path)
  plot.lines(png, panels, xlabel, title=None)
  plot.render(png, make_script)   a script of one's own (make_script(path))
  plot.cdf(values)                -> [(x, fraction at or below x)]
  plot.quote(s)                   s as a gnuplot string

A panel is {"title": str, "ylabel": str, "series": [(name, [(x, y), ...])],
optionally "yrange": (lo, hi), "logx": True (a logarithmic x axis), "steps": True (drawn as steps) and
"vlines": [x, ...] (dashed grey marks across the panel, e.g. where a step
begins)}. Panels stack vertically in one PNG, sharing
the x label. The data travel inside the gnuplot script (datablocks), so
nothing but the PNG is written. Without gnuplot (make deps installs
gnuplot-nox) lines() says so on stderr and returns False: the reports'
tables do not depend on it.
"""
import os
import shutil
import subprocess
import sys


def cdf(values):
    """The empirical CDF as a step curve's corners: each sorted value with
    the fraction of values at or below it."""
    s = sorted(values)
    n = len(s)
    return [(v, (i + 1) / n) for i, v in enumerate(s)]


def quote(s):
    """s as a gnuplot string in double quotes (a newline in it breaks the line)."""
    return ('"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            + '"')


def script(png, panels, xlabel, title):
    out = []
    for p, panel in enumerate(panels):
        for k, (_, pts) in enumerate(panel["series"]):
            out.append(f"$d{p}_{k} << EOD")
            out += [f"{x!r} {y!r}" for x, y in pts] or ["0 0"]
            out.append("EOD")
    h = 80 + 260 * len(panels)
    out += [f"set terminal pngcairo size 900,{h} font 'sans,9'",
            f"set output {quote(png)}",
            "set grid", "set key outside right top",
            # one left margin for every panel, so that stacked x axes line up
            "set lmargin 10",
            f"set multiplot layout {len(panels)},1"
            + (f" title {quote(title)}" if title else "")]
    for p, panel in enumerate(panels):
        out.append(f"set title {quote(panel.get('title', ''))}")
        out.append(f"set xlabel {quote(xlabel)}")
        out.append(f"set ylabel {quote(panel.get('ylabel', ''))}")
        lo, hi = panel.get("yrange", ("*", "*"))
        out.append(f"set yrange [{lo}:{hi}]")
        out.append("set logscale x" if panel.get("logx") else "unset logscale x")
        out.append("unset arrow")
        out += [f"set arrow from {x!r}, graph 0 to {x!r}, graph 1 nohead dt 2 lc rgb 'gray50'"
                for x in panel.get("vlines", [])]
        style = "steps" if panel.get("steps") else "lines"
        plots = [f"$d{p}_{k} using 1:2 with {style} lw 1.5 title {quote(name)}"
                 for k, (name, _) in enumerate(panel["series"])]
        out.append("plot " + ", ".join(plots) if plots else "plot 0 notitle")
    out.append("unset multiplot")
    return "\n".join(out) + "\n"


def lines(png, panels, xlabel, title=None):
    """Write panels to png; True when gnuplot wrote it."""
    return render(png, lambda out: script(out, panels, xlabel, title))


def render(png, make_script):
    """Run gnuplot on make_script(path), a script that writes its PNG to
    path: a file beside png that replaces it only once gnuplot wrote it
    whole. True when it did; without gnuplot, or when it fails, a word on
    stderr and False."""
    if not shutil.which("gnuplot"):
        print(f"plot: gnuplot not installed (make deps), {png} not drawn", file=sys.stderr)
        return False
    tmp = png + ".tmp"
    # stdout to /dev/null: when `set output` fails gnuplot draws the PNG
    # there instead
    r = subprocess.run(["gnuplot"], input=make_script(tmp), text=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    written = os.path.exists(tmp) and os.path.getsize(tmp) > 0
    if r.returncode != 0 or not written:
        print(f"plot: gnuplot failed on {png}: {r.stderr.strip()}", file=sys.stderr)
        if os.path.exists(tmp):
            os.unlink(tmp)
        return False
    os.replace(tmp, png)
    return True
