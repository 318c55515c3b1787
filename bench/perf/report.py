#!/usr/bin/env python3
"""`make bench`'s table and results.json from one run's files in DIR:
paths.jsonl (build/bench/paths) and, if there, scale.jsonl
(build/bench/scale; bench/perf/plot_scale.py tabulates and plots it) and
lab_rate.json (bench/perf/lab_rate.sh, which prints its own table).
docs/performance.md explains the columns."""
import json
import os
import platform
import sys


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"kernel": platform.release(), "cpu": cpu, "cpus": os.cpu_count()}


def main(out):
    rows = []
    with open(os.path.join(out, "paths.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    res = {"machine": machine(),
           "paths": [r for r in rows if r["section"] in ("leaf", "host")],
           "features": [r for r in rows if r["section"] == "feature"]}
    scale = os.path.join(out, "scale.jsonl")
    if os.path.exists(scale):
        with open(scale) as f:
            srows = [json.loads(line) for line in f if line.strip()]
        res["scale"] = [r for r in srows if r.get("section") == "scale"]
        res["memory"] = [r for r in srows if r.get("section") == "memory"]
    lab = os.path.join(out, "lab_rate.json")
    if os.path.exists(lab):
        with open(lab) as f:
            res["lab"] = json.load(f)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)

    verdicts = {"leaf": {1: "drop", 2: "pass", 3: "tx", 4: "redirect", 7: "redirect"},  # XDP; tc
                "host": {0: "ok", 2: "shot", 7: "redirect"}}  # tc
    print("xdpleaf per packet, BPF_PROG_TEST_RUN (median of rounds; ratio to the "
          "baseline measured beside it)")
    print(f"  {'path':58} {'ns':>7} {'baseline':>15} {'ratio':>6}  verdict")
    for r in res["paths"]:
        base = f"{r['baseline']} {r['baseline_ns']:.0f}" if r["baseline"] else ""
        print(f"  {r['name']:58} {r['ns']:7.1f} {base:>15} {r['ratio']:6.2f}  "
              f"{verdicts[r['section']].get(r['verdict'], r['verdict'])}")
    print("\nfeatures on the flowlet path with a queue (on - off, ns per packet)")
    for r in res["features"]:
        print(f"  {r['name']:66} {r['on_ns']:6.1f} {r['off_ns']:6.1f} {r['cost_ns']:+6.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: report.py DIR")
    main(sys.argv[1])
