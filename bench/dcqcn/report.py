#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The table of bench/dcqcn/run.sh, from the raw data it left in DIR.

  dcqcn_report.py DIR      prints the table, writes DIR/results.json and,
                           per run DIR/RUN/: qp_rates.csv, qp_delivered.csv,
                           queue_ms.csv; DIR/qp_rates.png (every QP's
                           published rate over time, a panel per run)

Each run is DIR/RUN/ (off, paper, nvidia) with meta.json, the sampler's
queue.csv and rates.csv (dcqcn_sample.py), the sink's samples and summary
(sink.jsonl), the senders' summaries (gen_sN.json), leaf2's stats
(leaf2_stats.json) and the hosts' counters (host_*.json, rp_flows_*.json).

Time 0 of a run is the first queue sample in which r1's port on leaf2 had
seen the run's traffic (its enqueue counter moved by 8 packets or more);
the run lasts --seconds from there. docs/dcqcn.md, "The closed loop in the
lab", explains every column.
"""
import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  (bench/plot.py)
from benchlib import load  # noqa: E402  (bench/benchlib.py)

RUN_ORDER = ["off", "paper", "nvidia"]
WARMUP_S = 1.0            # Jain's index and the steady rate: after 1 s
DROP_GRACE_S = 0.1        # the target: no drops after the first 100 ms
TARGET_UTIL = 0.90
TARGET_JAIN = 0.95
TARGET_JAIN_FRAC = 0.90
RECOVER_FRAC = 0.95       # "back near C": Rc >= 95 % of C


def parse_units(v, k=1000):
    """1G, 400M, 200K (K = 1024 for bytes when k=1024), 1% -> number."""
    v = str(v).strip()
    if v.endswith("%"):
        return float(v[:-1]) / 100
    mult = {"K": k, "M": k * k, "G": k ** 3, "T": k ** 4}
    if v and v[-1] in mult:
        return float(v[:-1]) * mult[v[-1]]
    return float(v)


def read_csv(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def read_sink(path):
    """(samples, summary): samples are (mono_ns, {(src, qp, sport): row})."""
    samples, rest = [], []
    try:
        with open(path) as f:
            for line in f:
                # an interval sample is one line (kind sink-interval; before
                # schema_version 2 its line began with "t")
                if '"kind":"sink-interval"' in line or line.startswith('{"t":'):
                    j = json.loads(line)
                    samples.append((j["mono_ns"], {(q["src"], q["qp"], q["sport"]): q
                                                   for q in j["qps"]}))
                else:
                    rest.append(line)
    except OSError:
        pass
    try:
        summary = json.loads("".join(rest)) if rest else None
    except ValueError:
        summary = None
    return samples, summary


def sender_of(src):
    # lab addressing: sender N is 10.1.N.2
    parts = src.split(".")
    return "s" + parts[2] if len(parts) == 4 else src


def jain(xs):
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else 0.0


def analyse(d):
    meta = load(os.path.join(d, "meta.json"), {})
    run = meta.get("run", os.path.basename(d))
    secs = float(meta.get("seconds", 10))
    c_bps = parse_units(meta.get("rate", "400M"))
    port_bps = parse_units(meta.get("port_rate", "1G"))
    kmax = parse_units(meta.get("kmax", "200K"), 1024)
    n_qps = int(meta.get("qps", 2)) * 4
    r = {"run": run, "meta": meta}

    # -- the port's queue and counters (sampled) -----------------------------
    q = [{k: int(v) for k, v in row.items()} for row in read_csv(os.path.join(d, "queue.csv"))]
    if not q:
        r["error"] = "no queue samples"
        return r
    base = q[0]
    t0 = next((s["mono_ns"] for s in q if s["enq_packets"] - base["enq_packets"] >= 8), None)
    if t0 is None:
        r["error"] = "no traffic reached the port"
        return r
    t_end = t0 + int(secs * 1e9)
    r["t0_mono_ns"] = t0
    last = q[-1]
    r["port_packets"] = last["enq_packets"] - base["enq_packets"]
    r["port_dropped"] = last["dropped"] - base["dropped"]
    r["port_marked"] = last["marked"] - base["marked"]
    r["marked_pct"] = 100.0 * r["port_marked"] / r["port_packets"] if r["port_packets"] else 0
    r["dropped_pct"] = 100.0 * r["port_dropped"] / r["port_packets"] if r["port_packets"] else 0
    grace = next((s for s in q if s["mono_ns"] >= t0 + DROP_GRACE_S * 1e9), last)
    r["dropped_after_100ms"] = last["dropped"] - grace["dropped"]
    # when the last drop happened, relative to t0
    last_drop = None
    for a, b in zip(q, q[1:]):
        if b["dropped"] > a["dropped"]:
            last_drop = b["mono_ns"]
    r["last_drop_ms"] = (last_drop - t0) / 1e6 if last_drop else None
    # time above Kmax: time-weighted over the samples in [t0, t_end]; a
    # sample stands for the time until the next one (capped at 5 ms, so a
    # stalled sampler does not stretch one sample over a long gap)
    above = total = 0
    gaps = []
    for a, b in zip(q, q[1:]):
        if a["mono_ns"] < t0 or a["mono_ns"] >= t_end:
            continue
        dt = min(b["mono_ns"] - a["mono_ns"], 5_000_000)
        gaps.append(b["mono_ns"] - a["mono_ns"])
        total += dt
        if a["queue_bytes"] > kmax:
            above += dt
    r["above_kmax_ms"] = above / 1e6
    r["above_kmax_pct"] = 100.0 * above / total if total else 0
    r["queue_samples"] = len(gaps)
    r["queue_sample_median_us"] = statistics.median(gaps) / 1e3 if gaps else None
    in_run = [s["queue_bytes"] for s in q if t0 <= s["mono_ns"] < t_end]
    r["queue_mean_bytes"] = statistics.mean(in_run) if in_run else 0
    with open(os.path.join(d, "queue_ms.csv"), "w") as f:
        f.write("time_ms,queue_bytes,enq_packets,marked,dropped\n")
        for s in q:
            f.write("%.3f,%d,%d,%d,%d\n" % ((s["mono_ns"] - t0) / 1e6, s["queue_bytes"],
                                           s["enq_packets"] - base["enq_packets"],
                                           s["marked"] - base["marked"],
                                           s["dropped"] - base["dropped"]))

    # leaf2's own view of the queue: histogram of the length at enqueue
    st = load(os.path.join(d, "leaf2_stats.json"), {})
    pq = next((p.get("queue") for p in st.get("ports", []) if p.get("name") == "r1"), None)
    if pq:
        hist = pq.get("hist", [])
        tot = sum(hist) or 1
        # bucket b holds [2^(b-1), 2^b - 1] bytes: the packets that found
        # more than Kmax queued lie between these two bounds
        lo_b = next(b for b in range(1, 64) if 2 ** (b - 1) > kmax)
        hi_b = next(b for b in range(1, 64) if 2 ** b - 1 > kmax)
        r["hist_above_kmax_pct"] = [100.0 * sum(hist[lo_b:]) / tot,
                                    100.0 * sum(hist[hi_b:]) / tot]
        r["peak_bytes"] = pq.get("peak_bytes")

    # -- the receiver: delivered per QP over 100 ms windows --------------------
    samples, summary = read_sink(os.path.join(d, "sink.jsonl"))
    keys = sorted({k for _, m in samples for k in m}, key=lambda k: (k[0], k[1]))
    win_rows, jains, win_tot = [], [], []
    for (ta, ma), (tb, mb) in zip(samples, samples[1:]):
        dt = (tb - ta) / 1e9
        if dt <= 0:
            continue
        xs = []
        for k in keys:
            ba = ma.get(k, {}).get("bytes", 0)
            bb = mb.get(k, {}).get("bytes", 0)
            xs.append((bb - ba) * 8 / dt)
            win_rows.append(((tb - t0) / 1e6, sender_of(k[0]), k[1], xs[-1]))
        if ta >= t0 + WARMUP_S * 1e9 and tb <= t_end + 20_000_000:
            xs += [0.0] * max(0, n_qps - len(xs))  # a QP that sent nothing
            jains.append(jain(xs))
            win_tot.append(sum(xs))
    with open(os.path.join(d, "qp_delivered.csv"), "w") as f:
        f.write("time_ms,sender,qp,delivered_bps\n")
        for t, s, qp, bps in win_rows:
            f.write("%.1f,%s,%d,%.0f\n" % (t, s, qp, bps))
    r["jain_windows"] = len(jains)
    r["jain_ok_pct"] = 100.0 * sum(j >= TARGET_JAIN for j in jains) / len(jains) if jains else 0
    r["jain_median"] = statistics.median(jains) if jains else None
    r["jain_min"] = min(jains) if jains else None
    # steady delivered rate: the sink's bytes from 1 s to the end
    sa = next((s for s in samples if s[0] >= t0 + WARMUP_S * 1e9), None)
    sb = next((s for s in reversed(samples) if s[0] <= t_end + 20_000_000), None)
    if sa and sb and sb[0] > sa[0]:
        by = sum(v["bytes"] for v in sb[1].values()) - sum(v["bytes"] for v in sa[1].values())
        r["delivered_bps"] = by * 8 / ((sb[0] - sa[0]) / 1e9)
        r["utilisation_pct"] = 100.0 * r["delivered_bps"] / port_bps
    r["window_min_bps"] = min(win_tot) if win_tot else None
    if summary:
        t = summary["total"]
        r["sink_packets"], r["sink_lost"] = t["packets"], t["lost"]
        r["sink_reordered"] = t["reordered"]
        r["sink_ce"] = t["ce"]

    # -- the senders ---------------------------------------------------------
    gp = gb = gdrop = 0
    for n in range(1, 5):
        g = load(os.path.join(d, "gen_s%d.json" % n), {})
        gp += g.get("packets", 0)
        gb += g.get("bps", 0)
        gdrop += g.get("dev_tx_dropped", 0)
    r["gen_packets"], r["offered_bps"], r["gen_tx_dropped"] = gp, gb, gdrop
    if "sink_packets" in r:
        # sent, minus received, minus dropped at the port: lost anywhere
        # else (CPU-bound kernel hops would show here)
        r["lost_elsewhere"] = gp - r["sink_packets"] - r["port_dropped"]

    # -- CPU: all CPUs' busy share while gen ran (/proc/stat), and the
    # sampler's own CPU time
    try:
        with open(os.path.join(d, "cpu_before.txt")) as f:
            c0 = [int(x) for x in f.read().split()[1:]]
        with open(os.path.join(d, "cpu_after.txt")) as f:
            c1 = [int(x) for x in f.read().split()[1:]]
        dc = [b - a for a, b in zip(c0, c1)]
        idle = dc[3] + dc[4]  # idle + iowait
        r["cpu_busy_pct"] = 100.0 * (sum(dc) - idle) / sum(dc) if sum(dc) else None
        r["cpu_softirq_pct"] = 100.0 * dc[6] / sum(dc) if sum(dc) else None
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(os.path.join(d, "sample.err")) as f:
            for line in f:
                if "s of CPU in" in line:
                    w = line.split()
                    r["sampler_cpu_pct"] = 100.0 * float(w[2]) / float(w[7])
    except (OSError, ValueError, IndexError):
        pass

    # -- CNPs ------------------------------------------------------------------
    h = load(os.path.join(d, "host_r1.json"), {})
    r["np_ce_seen"] = h.get("ce_seen")
    r["cnps_sent"] = h.get("cnps_sent")
    r["cnps_suppressed"] = h.get("cnps_suppressed")
    r["cnp_failed"] = (h.get("cnp_clone_failed", 0) or 0) + (h.get("cnp_build_failed", 0) or 0)
    # when the senders first counted an unknown CNP (ms from t0), if ever
    unk = {}
    for x in read_csv(os.path.join(d, "hosts.csv")):
        if x["host"] != "r1" and int(x["cnps_unknown"]) > 0 and x["host"] not in unk:
            unk[x["host"]] = (int(x["mono_ns"]) - t0) / 1e6
    r["cnps_unknown_first_ms"] = unk
    hs = [load(os.path.join(d, "host_s%d.json" % n)) for n in range(1, 5)]
    if all(hs):
        r["cnps_received"] = sum(x.get("cnps_received", 0) for x in hs)
        r["cnps_unknown"] = sum(x.get("cnps_unknown", 0) for x in hs)
        r["cnps_received_per_sender"] = [x.get("cnps_received", 0) for x in hs]
        matched = 0
        for n in range(1, 5):
            for e in load(os.path.join(d, "rp_flows_s%d.json" % n), []) or []:
                matched += e.get("cnps", 0) or 0
        r["cnps_matched"] = matched

    # -- per-QP rate over time (the RPs' published rates) ------------------------
    rows = read_csv(os.path.join(d, "rates.csv"))
    if rows:
        with open(os.path.join(d, "qp_rates.csv"), "w") as f:
            f.write("time_ms,sender,qp,rate_bps,rt_bps,alpha\n")
            for x in rows:
                f.write("%.3f,%s,%s,%s,%s,%s\n" % ((int(x["mono_ns"]) - t0) / 1e6, x["sender"],
                                                  x["qp"], x["rate_bps"], x["rt_bps"], x["alpha"]))
        per = {}
        for x in rows:
            t = int(x["mono_ns"])
            if t0 <= t < t_end:
                per.setdefault((x["sender"], x["qp"]), []).append(int(x["rate_bps"]))
        r["rate_samples"] = sum(len(v) for v in per.values())
        r["qps_cut"] = sum(1 for v in per.values() if min(v) < c_bps)
        r["rate_mean_bps"] = statistics.mean(statistics.mean(v) for v in per.values()) if per else None
        r["rate_min_bps"] = min(min(v) for v in per.values()) if per else None
        allv = [x for v in per.values() for x in v]
        r["rate_at_c_pct"] = 100.0 * sum(x >= RECOVER_FRAC * c_bps for x in allv) / len(allv) if allv else None
        r["rate_at_min_pct"] = 100.0 * sum(x <= min(allv) for x in allv) / len(allv) if allv else None

    if run != "off":
        r["targets"] = {
            "no_drops_after_100ms": r.get("dropped_after_100ms") == 0,
            "utilisation_ge_90pct": (r.get("utilisation_pct") or 0) >= 100 * TARGET_UTIL,
            "jain_ge_0.95_in_90pct": r.get("jain_ok_pct", 0) >= 100 * TARGET_JAIN_FRAC,
        }
    return r


def fmt(v, spec="%.0f", none="-"):
    if v is None:
        return none
    if isinstance(v, bool):
        return "yes" if v else "MISSED"
    return spec % v


def plot_rates(top, res):
    """DIR/qp_rates.png: each QP's published rate (Mb/s) against time from
    the run's t0, one panel per run that has qp_rates.csv."""
    panels = []
    for r in res:
        series = {}
        for x in read_csv(os.path.join(top, r["run"], "qp_rates.csv")):
            series.setdefault("%s/%s" % (x["sender"], x["qp"]), []).append(
                (float(x["time_ms"]) / 1e3, int(x["rate_bps"]) / 1e6))
        if series:
            panels.append({"title": "DCQCN off" if r["run"] == "off" else "DCQCN " + r["run"],
                           "ylabel": "published rate (Mb/s)",
                           "series": sorted(series.items())})
    return bool(panels) and plot.lines(os.path.join(top, "qp_rates.png"), panels,
                                       "time from the first packet at the port (s)")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    top = sys.argv[1]
    runs = [x for x in RUN_ORDER if os.path.isdir(os.path.join(top, x))]
    res = [analyse(os.path.join(top, x)) for x in runs]
    with open(os.path.join(top, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    m = res[0]["meta"] if res else {}
    print("DCQCN closed loop: 4 senders x %s QPs -> r1 @ %s, buffer %s, RoCE class "
          "Kmin %s / Kmax %s / Pmax %s; C = %s per QP, %s-byte payloads, %s s per run%s"
          % (m.get("qps"), m.get("port_rate"), m.get("buffer"), m.get("kmin"), m.get("kmax"),
             m.get("pmax"), m.get("rate"), m.get("size"), m.get("seconds"),
             ("; senders' [dcqcn] " + m["sets"]) if m.get("sets") else ""))
    M = lambda v: fmt(v / 1e6 if v is not None else None, "%.0f")  # noqa: E731
    lines = [
        ("offered by gen (Mb/s, mean)", lambda r: M(r.get("offered_bps"))),
        ("delivered at r1, 1 s..end (Mb/s)", lambda r: M(r.get("delivered_bps"))),
        ("link utilisation (%)", lambda r: fmt(r.get("utilisation_pct"), "%.1f")),
        ("lowest 100 ms window (Mb/s)", lambda r: M(r.get("window_min_bps"))),
        ("packets at r1's port", lambda r: fmt(r.get("port_packets"), "%d")),
        ("drops at the port", lambda r: fmt(r.get("port_dropped"), "%d")),
        ("  of which after the first 100 ms", lambda r: fmt(r.get("dropped_after_100ms"), "%d")),
        ("  drops (%)", lambda r: fmt(r.get("dropped_pct"), "%.2f")),
        ("  last drop at (ms)", lambda r: fmt(r.get("last_drop_ms"), "%.0f")),
        ("sink: lost (PSN gaps)", lambda r: fmt(r.get("sink_lost"), "%d")),
        ("lost elsewhere (sent-recv-drops)", lambda r: fmt(r.get("lost_elsewhere"), "%d")),
        ("CPU busy while sending (%, 2 CPUs)", lambda r: fmt(r.get("cpu_busy_pct"), "%.0f")),
        ("  of which the sampler (% of 1 CPU)", lambda r: fmt(r.get("sampler_cpu_pct"), "%.0f")),
        ("marked (%)", lambda r: fmt(r.get("marked_pct"), "%.1f")),
        ("CE seen by the NP (r1)", lambda r: fmt(r.get("np_ce_seen"), "%d")),
        ("CNPs sent (r1)", lambda r: fmt(r.get("cnps_sent"), "%d")),
        ("CNPs received (senders)", lambda r: fmt(r.get("cnps_received"), "%d")),
        ("CNPs matched to a QP (RPs)", lambda r: fmt(r.get("cnps_matched"), "%d")),
        ("CNPs unknown (senders)", lambda r: fmt(r.get("cnps_unknown"), "%d")),
        ("QPs cut below C", lambda r: fmt(r.get("qps_cut"), "%d")),
        ("published rate: mean of QPs (Mb/s)", lambda r: M(r.get("rate_mean_bps"))),
        ("published rate: min (Mb/s)", lambda r: M(r.get("rate_min_bps"))),
        ("  samples at >= 95 % of C (%)", lambda r: fmt(r.get("rate_at_c_pct"), "%.1f")),
        ("Jain >= 0.95, 100 ms windows (%)", lambda r: fmt(r.get("jain_ok_pct"), "%.1f")),
        ("  Jain median / min", lambda r: ("%.3f / %.3f" % (r["jain_median"], r["jain_min"]))
         if r.get("jain_median") is not None else "-"),
        ("  windows after 1 s", lambda r: fmt(r.get("jain_windows"), "%d")),
        ("queue > Kmax (% of time, 1 ms samples)", lambda r: fmt(r.get("above_kmax_pct"), "%.1f")),
        ("  time > Kmax (ms)", lambda r: fmt(r.get("above_kmax_ms"), "%.0f")),
        ("  packets finding q > Kmax (%, hist)", lambda r: ("%.1f..%.1f" % tuple(r["hist_above_kmax_pct"]))
         if r.get("hist_above_kmax_pct") else "-"),
        ("  queue mean / peak (KB)", lambda r: "%.0f / %s" % (r.get("queue_mean_bytes", 0) / 1024,
                                                           fmt((r.get("peak_bytes") or 0) / 1024, "%.0f"))),
        ("  queue samples (median gap us)", lambda r: "%d (%s)" % (r.get("queue_samples", 0),
                                                                 fmt(r.get("queue_sample_median_us"), "%.0f"))),
        ("target: 0 drops after 100 ms", lambda r: fmt(r.get("targets", {}).get("no_drops_after_100ms"))),
        ("target: utilisation >= 90 %", lambda r: fmt(r.get("targets", {}).get("utilisation_ge_90pct"))),
        ("target: Jain >= 0.95 in >= 90 %", lambda r: fmt(r.get("targets", {}).get("jain_ge_0.95_in_90pct"))),
    ]
    names = [("DCQCN off" if r["run"] == "off" else "DCQCN " + r["run"]) for r in res]
    w0 = max(len(x[0]) for x in lines)
    print("%-*s %s" % (w0, "", " ".join("%14s" % n for n in names)))
    for label, f in lines:
        print("%-*s %s" % (w0, label, " ".join("%14s" % (f(r) if "error" not in r else "-")
                                               for r in res)))
    for r in res:
        if "error" in r:
            print("%s: %s" % (r["run"], r["error"]))
    if plot_rates(top, res):
        print("per-QP rates over time: %s/qp_rates.png" % top)
    print("per-QP rates: %s/<run>/qp_rates.csv (time_ms,sender,qp,rate_bps,rt_bps,alpha), "
          "delivered per 100 ms: qp_delivered.csv, queue: queue_ms.csv" % top)


if __name__ == "__main__":
    main()
