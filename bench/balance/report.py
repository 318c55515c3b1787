#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The table of bench/balance/run.sh, from the raw data it left in DIR.

  bench/balance/report.py DIR        prints the table, writes DIR/results.json
                                     and DIR/plots/{shares,queue}-wN.png

Each run is DIR/MODE/wN/ with meta.json, counter snapshots (*.json from
`snap`), the receiver's counts (sink_*.json), the senders' summaries
(gen_*.json), for workloads 1-4 leaf1's counters every 100 ms
(samples.json) and, for workload 5, steps.json and TCP counters. Columns
are explained in docs/load-balancing-bench.md.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  (bench/plot.py)
from benchlib import json_values, load, map_port, percentile  # noqa: E402  (bench/benchlib.py)

UPLINKS = ["u1", "u2", "u3", "u4"]
MODES = ["ref", "kernel", "hash", "flowlet", "flowlet-random", "spray"]
TARGETS = {  # flowlet mode (docs/load-balancing-bench.md)
    "max_mean": 1.05, "share_err": 0.05, "reorder_pct": 0.1,
    "settle_ms": 10.0, "loss_after_settle": 0, "step_ratio": 1.1,
}


# ---- counters from a snapshot -----------------------------------------

def kernel_if(snap, name):
    for e in snap["leaf1"]:
        if e.get("ifname") == name:
            return e["stats64"]
    return None


def tbf(snap, i):
    for q in snap["tbf"][i]:
        if q.get("kind") == "tbf":
            return q
    return {"bytes": 0, "packets": 0, "drops": 0}


def fabric_drops(snap):
    """Drops counted by any interface of the spines, leaf2 and r1 (TBF
    drops are the qdisc's, not these)."""
    n = 0
    for ns in snap.get("fabric", []):
        for e in ns:
            st = e.get("stats64", {})
            n += st.get("rx", {}).get("dropped", 0) + st.get("tx", {}).get("dropped", 0)
    return n


def cpu_times(snap):
    v = [int(x) for x in snap["cpu"].split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v[:8]), idle


def delta(a, b, f):
    return f(b) - f(a)


def uplink_bytes(a, b, src):
    """Per-uplink transmitted bytes and packets between snapshots a and b,
    from the kernel's interface counters or from xdpleaf's map."""
    out = {}
    for u in UPLINKS:
        if src == "kernel":
            out[u] = (delta(a, b, lambda s: kernel_if(s, u)["tx"]["bytes"]),
                      delta(a, b, lambda s: kernel_if(s, u)["tx"]["packets"]))
        else:
            out[u] = (delta(a, b, lambda s: map_port(s, u)["tx_bytes"]),
                      delta(a, b, lambda s: map_port(s, u)["tx_packets"]))
    return out


def map_sum(a, b, names, f):
    return sum(delta(a, b, lambda s: f(map_port(s, n))) for n in names)


def tbf_drops(a, b):
    return sum(delta(a, b, lambda s: tbf(s, i)["drops"]) for i in range(4))


def cpu_busy(a, b):
    t0, i0 = cpu_times(a)
    t1, i1 = cpu_times(b)
    return 100.0 * (1 - (i1 - i0) / (t1 - t0)) if t1 > t0 else float("nan")


def others_cpu(a, b, setup):
    """CPU used by processes that are not this bench's (nor kernel
    threads), in % of all CPUs: other work on the machine competing with
    the lab. Processes that started and ended between the snapshots are
    not seen, so this is a lower bound."""
    if "procs" not in a or "procs" not in b or "bench_pid" not in setup:
        return None
    pa = {p: (pp, t) for p, pp, t in a["procs"]}
    pb = {p: (pp, t) for p, pp, t in b["procs"]}
    bench = setup["bench_pid"]

    def foreign(pid):
        seen = 0
        while pid not in (0, 1) and seen < 64:
            if pid == bench:
                return False
            if pid == 2:
                return False  # kernel threads: softirqs, our packets too
            pp = (pb.get(pid) or pa.get(pid) or (0, 0))[0]
            pid, seen = pp, seen + 1
        return True

    ticks = sum(t - (pa[p][1] if p in pa else 0) for p, (pp, t) in pb.items()
                if foreign(p))
    dt = b["t"] - a["t"]
    return 100.0 * ticks / (setup.get("clk_tck", 100) * dt * setup.get("cpus", 1))


def rx_bytes(a, b, r=0):
    return delta(a, b, lambda s: s["rx"][r][0]["stats64"]["rx"]["bytes"])


# ---- balance metrics ---------------------------------------------------

def balance(by, caps):
    """Shares, max/mean load ratio and Jain's index of capacity-normalized
    loads, and the largest relative deviation of a share from its
    capacity's proportion."""
    b = [by[u][0] for u in UPLINKS]
    tot, ctot = sum(b), sum(caps)
    if tot <= 0:
        return None
    share = [x / tot for x in b]
    x = [bi / ci for bi, ci in zip(b, caps)]
    mean = tot / ctot
    return {
        "shares": share,
        "max_mean": max(x) / mean,
        "jain": sum(x) ** 2 / (len(x) * sum(v * v for v in x)),
        "share_err": max(abs(s - c / ctot) / (c / ctot) for s, c in zip(share, caps)),
    }


def sink_totals(path):
    d = load(path)
    if not d:
        return None
    return d["total"]


def gen_totals(run):
    pk = by = 0
    secs = 0.0
    n = 0
    while True:
        g = load(os.path.join(run, f"gen_s{n + 1}.json"))
        if not g:
            break
        pk += g["packets"]
        by += g["bytes"]
        secs = max(secs, g["seconds"])
        n += 1
    return {"packets": pk, "bytes": by, "seconds": secs, "senders": n}


def tcp_counters(path):
    """{host: {"Tcp": {...}, "TcpExt": {...}}} from tcp_snap's dump."""
    out, host, hdr = {}, None, {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith("== "):
            host = line[3:]
            out[host] = {}
            hdr = {}
            continue
        if ":" not in line or host is None:
            continue
        key, rest = line.split(":", 1)
        vals = rest.split()
        if key in hdr:
            out[host][key] = dict(zip(hdr.pop(key), (int(v) for v in vals)))
        else:
            hdr[key] = vals
    return out


def tcp_delta(t0, t1, hosts, group, key):
    return sum(t1[h][group][key] - t0[h][group][key] for h in hosts
               if h in t0 and h in t1)


# ---- one run -----------------------------------------------------------

def analyse(run, setup):
    meta = load(os.path.join(run, "meta.json"))
    if not meta:
        return None
    caps = meta["capacity_bps"]
    a, b = load(os.path.join(run, "s0.json")), load(os.path.join(run, "end.json"))
    if not a or not b:
        return None
    r = {"mode": meta["mode"], "workload": meta["workload"], "capacity_bps": caps}
    kb = uplink_bytes(a, b, "kernel")
    r["uplink_bytes_kernel"] = {u: kb[u][0] for u in UPLINKS}
    # ref's uplinks are unlimited: where the kernel hashed says nothing of
    # a balance of capacity, so its row shows none
    bal = balance(kb, caps) if meta["mode"] != "ref" else None
    if bal:
        r.update(bal)
    if a.get("map"):
        mb = uplink_bytes(a, b, "map")
        r["uplink_bytes_map"] = {u: mb[u][0] for u in UPLINKS}
        # the map counts frames the leaf redirected; the kernel's veth
        # counter what the peer received, plus the kernel's own packets
        # (ARP, ...). A veth counts an skb it hands to its peer's NAPI
        # after the Ethernet header was pulled: at tc, where the leaf
        # sends skbs, 14 bytes per packet go back in to compare frames
        # with frames (at XDP it counts the frame whole).
        r["hook"] = a.get("hook")
        eth = 14 if r["hook"] == "tc" else 0
        kf = {u: kb[u][0] + eth * kb[u][1] for u in UPLINKS}
        # relative per uplink, over the uplinks that carried at least 1 %
        # of the bytes (one that carried only ARP is not a comparison)
        tot = sum(kf.values()) or 1
        r["counter_diff"] = max([abs(kf[u] - mb[u][0]) / kf[u] for u in UPLINKS
                                 if kf[u] >= tot / 100] or [0.0])
        r["counter_diff_bytes"] = {u: kf[u] - mb[u][0] for u in UPLINKS}
        r["flowlets"] = map_sum(a, b, UPLINKS, lambda p: p["flowlets"])
        r["moves"] = map_sum(a, b, UPLINKS, lambda p: p["moves_in"])
        r["pq_marked"] = map_sum(a, b, UPLINKS, lambda p: (p.get("queue") or {}).get("marked", 0))
        r["downlink_not_our_mac"] = map_sum(a, b, ["s1", "s2", "s3", "s4"],
                                      lambda p: p["reasons"]["not_our_mac"])
        r["slow_path"] = map_sum(a, b, ["s1", "s2", "s3", "s4"],
                                 lambda p: p["reasons"]["no_neigh"])
    r["tbf_drops"] = tbf_drops(a, b)
    r["tbf_drops_per_link"] = [delta(a, b, lambda x: tbf(x, i)["drops"]) for i in range(4)]
    if "fabric" in a and "fabric" in b:
        r["fabric_drops"] = fabric_drops(b) - fabric_drops(a)
    r["cpu_busy_pct"] = cpu_busy(a, b)
    r["cpu_others_pct"] = others_cpu(a, b, setup)
    wl = meta["workload"]
    if wl == 5:
        return analyse_steps(run, r, a, b)
    gen = gen_totals(run)
    secs = gen["seconds"] or 1
    r["offered_bps"] = gen["bytes"] * 8 / secs
    r["delivered_bps"] = rx_bytes(a, b) * 8 / secs
    sinks = [sink_totals(os.path.join(run, f"sink_{n}.json")) for n in
             (["A", "B", "C", "D"] if wl == 4 else ["all"])]
    sinks = [s for s in sinks if s]
    pk = sum(s["packets"] for s in sinks)
    r["reordered"] = sum(s["reordered"] for s in sinks)
    r["reorder_pct"] = 100.0 * r["reordered"] / pk if pk else float("nan")
    r["lost"] = sum(s["lost"] for s in sinks)
    r["loss_pct"] = 100.0 * r["lost"] / (pk + r["lost"]) if pk else float("nan")
    r["ce"] = sum(s["ce"] for s in sinks)
    r["gen_packets"] = gen["packets"]
    r["sink_packets"] = pk
    down, n = unusable_samples(os.path.join(run, "samples.json"))
    if n:
        r["uplink_unusable_samples"] = down
        r["samples"] = n
    m0, m1 = load(os.path.join(run, "m0.json")), load(os.path.join(run, "m1.json"))
    if m0 and m1:  # the CPU checks: rates in the middle of the run
        dt = m1["t"] - m0["t"]
        r["mid_delivered_bps"] = rx_bytes(m0, m1) * 8 / dt
        r["mid_tbf_bps"] = [delta(m0, m1, lambda x: tbf(x, i)["bytes"]) * 8 / dt
                            for i in range(4)]
        r["mid_cpu_busy_pct"] = cpu_busy(m0, m1)
        r["mid_cpu_others_pct"] = others_cpu(m0, m1, setup)
    if wl == 4:
        analyse_failover(run, r)
    return r


def analyse_failover(run, r):
    s = {n: load(os.path.join(run, n + ".json")) for n in
         ["s0", "pre0", "pre1", "a_end", "b_start", "b_end", "c_start", "c_end",
          "d_start", "end"]}
    sink = {n: sink_totals(os.path.join(run, f"sink_{n}.json")) for n in "ABCD"}
    if any(v is None for v in s.values()) or any(v is None for v in sink.values()):
        r["failover_error"] = "missing data"
        return
    # packet rate u2 carried in the second before it failed
    dt = s["pre1"]["t"] - s["pre0"]["t"]
    pps = delta(s["pre0"], s["pre1"], lambda x: kernel_if(x, "u2")["tx"]["packets"]) / dt
    r["u2_pps_before"] = pps
    # blackholed: what the dataplane still sent into the dead link. xdp:
    # frames the map counted as sent on u2 that its peer never received;
    # any mode: what the receiver lost in phase A beyond the TBF drops
    lost_a = sink["A"]["lost"] - tbf_drops(s["s0"], s["a_end"])
    r["blackholed_sink"] = max(0, lost_a)
    if s["pre1"].get("map"):
        # from the start (nothing in flight) to after the failure (u2 is
        # dead, nothing in flight on it either): frames the map counted on
        # u2 that its peer never took in. The kernel's own packets on u2
        # (ARP, ND: a few) count against it, so this is exact to a few.
        sent = delta(s["s0"], s["a_end"], lambda x: map_port(x, "u2")["tx_packets"])
        got = delta(s["s0"], s["a_end"], lambda x: kernel_if(x, "u2")["tx"]["packets"])
        r["blackholed_map"] = max(0, sent - got)
        r["blackholed"] = r["blackholed_map"]
        r["sent_on_dead_link"] = delta(s["b_start"], s["b_end"],
                                       lambda x: map_port(x, "u2")["tx_packets"])
        r["slow_path_at_up"] = map_sum(s["c_start"], s["d_start"], ["s1", "s2", "s3", "s4"],
                                       lambda p: p["reasons"]["no_neigh"])
    else:
        # kernel: the receiver's view, or what u2 counted as dropped
        r["u2_tx_dropped"] = delta(s["pre1"], s["a_end"],
                                   lambda x: kernel_if(x, "u2")["tx"]["dropped"])
        r["blackholed"] = max(r["blackholed_sink"], r["u2_tx_dropped"])
    # the time the dataplane kept sending into the dead link, at the
    # rate the link carried before; with nothing blackholed, less than
    # one packet's time at that rate
    if pps > 0:
        r["settle_ms"] = 1000.0 * r["blackholed"] / pps
        r["settle_bound_ms"] = 1000.0 * (r["blackholed"] + 1) / pps
    else:
        r["settle_ms"] = r["settle_bound_ms"] = None
    # after the failure settled: failed (B), coming back (C), back (D)
    r["loss_after_settle"] = sink["B"]["lost"] + sink["C"]["lost"] + sink["D"]["lost"]
    r["loss_at_up"] = sink["C"]["lost"]
    r["tbf_drops_at_up"] = tbf_drops(s["c_start"], s["c_end"])
    try:
        r["arp_after_up_ms"] = int(open(os.path.join(run, "arp_us")).read()) / 1000
    except (OSError, ValueError):
        r["arp_after_up_ms"] = None
    # from the end of the phase before, so that a drop in the moment the
    # receiver's counter restarted, which it may see as a hole, counts
    r["tbf_drops_settled"] = tbf_drops(s["a_end"], s["b_end"]) + tbf_drops(s["c_end"], s["end"])
    r["u2_bytes_while_down"] = delta(s["b_start"], s["b_end"],
                                     lambda x: kernel_if(x, "u2")["tx"]["bytes"])
    # u2 after it came back: its share of the bytes in phase D
    d = uplink_bytes(s["d_start"], s["end"], "kernel")
    tot = sum(v[0] for v in d.values())
    r["u2_share_after_up"] = d["u2"][0] / tot if tot else None


def analyse_steps(run, r, a, b):
    st = load(os.path.join(run, "steps.json"))
    if not st:
        r["steps_error"] = "no steps.json"
        return r
    ms = [x / 1e6 for x in st["steps_ns"]]
    ideal = st["ideal_s"] * 1000
    r["steps_ms"] = ms
    r["ideal_ms"] = ideal
    r["step_p50_ms"] = percentile(ms, 50)
    r["step_p99_ms"] = percentile(ms, 99)
    r["step_max_ms"] = max(ms)
    r["step_ratio"] = r["step_p50_ms"] / ideal
    r["delivered_bps"] = st["volume_bytes"] * 8 * len(ms) / (sum(ms) / 1000)
    t0 = tcp_counters(os.path.join(run, "tcp0.txt"))
    t1 = tcp_counters(os.path.join(run, "tcp1.txt"))
    snd = [f"s{i}" for i in range(1, 5)]
    rcv = [f"r{i}" for i in range(1, 5)]
    out = tcp_delta(t0, t1, snd, "Tcp", "OutSegs")
    ret = tcp_delta(t0, t1, snd, "Tcp", "RetransSegs")
    # reordering as the senders detected it (SACK, timestamps, DSACK'd
    # spurious retransmissions point to it); out-of-order arrivals at the
    # receivers are mostly the holes that losses leave, not reordering
    reord = sum(tcp_delta(t0, t1, snd, "TcpExt", k) for k in
                ("TCPSACKReorder", "TCPTSReorder", "TCPRenoReorder"))
    r["tcp_reorder_events"] = reord
    r["tcp_dsack"] = tcp_delta(t0, t1, snd, "TcpExt", "TCPDSACKRecv")
    r["tcp_ofo"] = tcp_delta(t0, t1, rcv, "TcpExt", "TCPOFOQueue")
    r["tcp_retrans_pct"] = 100.0 * ret / out if out else float("nan")
    r["reorder_pct"] = 100.0 * reord / out if out else float("nan")
    r["tcp_timeouts"] = tcp_delta(t0, t1, snd, "TcpExt", "TCPTimeouts")
    return r


# ---- the table ---------------------------------------------------------

def f(v, fmt, none="-"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return none
    return format(v, fmt)


def unusable_samples(path):
    """Per uplink, in how many of the sampler's records (xdpleaf stats,
    every 0.1 s) its group member was not usable for IPv4 (link down or
    next hop unresolved, as the daemon marks it), and how many records
    there were: an uplink that sat out part of a run explains a share far
    from its capacity's."""
    down, n = {}, 0
    for rec in sampler_records(path):
        st = rec.get("stats")
        if not isinstance(st, dict) or not st.get("groups"):
            continue
        n += 1
        for g in st["groups"]:
            for m in g.get("members", []):
                if not m.get("up_ipv4", True):
                    down[m["port"]] = down.get(m["port"], 0) + 1
    return down, n


def notes(r):
    wl = r["workload"]
    if wl == 4:
        if "failover_error" in r:
            return r["failover_error"]
        if r["settle_ms"] is None:
            st = "u2 idle before"
        elif r["blackholed"] == 0:
            st = f"settle < {r['settle_bound_ms']:.2f} ms (0 blackholed)"
        else:
            st = f"settle ~{r['settle_ms']:.2f} ms ({r['blackholed']} blackholed)"
        dead = (f", sent into the dead link {r['sent_on_dead_link']}"
                if "sent_on_dead_link" in r else "")
        return (f"{st}; lost once settled {r['loss_after_settle']} (TBF drops "
                f"{r['tbf_drops_settled']}{dead}); at up: lost {r['loss_at_up']}, ARP "
                f"{f(r['arp_after_up_ms'], '.0f')} ms"
                + (f", slow path {r['slow_path_at_up']}" if "slow_path_at_up" in r else ""))
    if wl == 5:
        if "steps_error" in r:
            return r["steps_error"]
        i = r["ideal_ms"]
        ref = ("the non-blocking reference (receivers' links shaped, uplinks "
               "unlimited): " if r["mode"] == "ref" else "")
        if "step_ref_ratio" in r and r["mode"] != "ref":
            ref = (f"{r['step_ref_ratio']:.2f}/{r['step_ref_ratio_p99']:.2f} x "
                   "ref p50/p99; ")
        return ref + (f"step p50/p99/max {r['step_p50_ms']:.0f}/{r['step_p99_ms']:.0f}/"
                f"{r['step_max_ms']:.0f} ms = {r['step_p50_ms'] / i:.2f}/"
                f"{r['step_p99_ms'] / i:.2f}/{r['step_max_ms'] / i:.2f} x ideal {i:.1f} ms; "
                f"TBF drops {r['tbf_drops']}, reorder events {r['tcp_reorder_events']}, "
                f"DSACKs {r['tcp_dsack']}")
    s = f"TBF drops {r['tbf_drops']}"
    if r.get("fabric_drops"):
        s += f", other drops {r['fabric_drops']}"
    if "flowlets" in r:
        s += f", flowlets {r['flowlets']}, moves {r['moves']}"
    for u, k in sorted((r.get("uplink_unusable_samples") or {}).items()):
        s += f", {u} unusable in {k} of {r['samples']} samples"
    return s


def table(rows):
    hdr = ["mode", "wl", "u1%", "u2%", "u3%", "u4%", "max/mean", "Jain", "shareErr",
           "reord%", "offer", "deliv", "loss%", "ctrDiff", "cpu%/oth", "notes"]
    out = []
    for r in rows:
        sh = r.get("shares") or [None] * 4
        out.append([
            r["mode"], str(r["workload"]),
            *[f(x * 100 if x is not None else None, ".1f") for x in sh],
            f(r.get("max_mean"), ".3f"), f(r.get("jain"), ".4f"),
            f(r["share_err"] * 100 if "share_err" in r else None, ".1f") +
            ("%" if "share_err" in r else ""),
            f(r.get("reorder_pct"), ".3f"),
            f(r["offered_bps"] / 1e6 if "offered_bps" in r else None, ".0f"),
            f(r["delivered_bps"] / 1e6 if "delivered_bps" in r else None, ".0f"),
            f(r.get("loss_pct"), ".3f") if r["workload"] != 5 else
            f(r.get("tcp_retrans_pct"), ".1f") + "R",
            f(r["counter_diff"] * 100 if "counter_diff" in r else None, ".4f") +
            ("%" if "counter_diff" in r else ""),
            f(r.get("cpu_busy_pct"), ".0f") + "/" + f(r.get("cpu_others_pct"), ".0f"),
            notes(r),
        ])
    w = [max(len(hdr[i]), *(len(x[i]) for x in out)) if out else len(hdr[i])
         for i in range(len(hdr))]
    lines = ["  ".join(h.ljust(w[i]) if i < len(hdr) - 1 else h for i, h in enumerate(hdr))]
    for x in out:
        lines.append("  ".join(c.ljust(w[i]) if i < len(x) - 1 else c for i, c in enumerate(x)))
    return "\n".join(lines)


def against_reference(rows):
    """Workload 5's step times over those of the non-blocking reference
    (mode ref) of the same run, into every other row of workload 5; the
    reference's row, or None without one."""
    ref = next((r for r in rows if r["mode"] == "ref" and r["workload"] == 5
                and "step_p50_ms" in r), None)
    if not ref:
        return None
    for r in rows:
        if r["workload"] == 5 and "step_p50_ms" in r and r is not ref:
            r["step_ref_ratio"] = r["step_p50_ms"] / ref["step_p50_ms"]
            r["step_ref_ratio_p99"] = r["step_p99_ms"] / ref["step_p99_ms"]
    return ref


def check_targets(rows):
    res = []
    for r in rows:
        if r["mode"] != "flowlet":
            continue
        wl = r["workload"]

        def chk(name, val, lim, le=True):
            ok = val is not None and (val <= lim if le else val >= lim)
            res.append({"workload": wl, "target": name, "value": val, "limit": lim,
                        "met": bool(ok)})
        if wl in (1, 2):
            chk("max/mean <= 1.05", r.get("max_mean"), TARGETS["max_mean"])
        if wl == 3:
            chk("shares within 5% of capacity", r.get("share_err"), TARGETS["share_err"])
        if wl in (1, 2, 3, 4):
            chk("reordering <= 0.1% of packets", r.get("reorder_pct"), TARGETS["reorder_pct"])
        if "counter_diff" in r and not r.get("slow_path"):
            chk("interface counters = maps within 1%", r["counter_diff"], 0.01)
        if wl == 4 and "settle_ms" in r:
            chk("settled within 10 ms of the link change", r.get("settle_ms"),
                TARGETS["settle_ms"])
            chk("no loss once settled", r.get("loss_after_settle"), 0)
        if wl == 5 and "step_ratio" in r:
            chk("step p50 <= 1.1 x ideal", r.get("step_ratio"), TARGETS["step_ratio"])
    return res


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/balance/report.py DIR")
    top = sys.argv[1]
    setup = load(os.path.join(top, "setup.json"), {})
    rows = []
    for m in MODES:
        for wl in range(1, 6):
            run = os.path.join(top, m, f"w{wl}")
            if os.path.isdir(run):
                r = analyse(run, setup)
                if r:
                    rows.append(r)
    cpu = analyse(os.path.join(top, "cpu-check"), setup) if os.path.isdir(
        os.path.join(top, "cpu-check")) else None
    cpu2 = analyse(os.path.join(top, "cpu-check-unshaped"), setup) if os.path.isdir(
        os.path.join(top, "cpu-check-unshaped")) else None
    ref = against_reference(rows)
    targets = check_targets(rows)
    print(f"uplinks {setup.get('rate')} x 4 (workload 3: {setup.get('rate_big')} + 3 x "
          f"{setup.get('rate')}); TBF buffer {setup.get('buffer_us')} us; flowlet_timeout "
          f"{setup.get('flowlet_timeout')}; load {setup.get('load')} (workload 4: "
          f"{setup.get('fail_load')}); {setup.get('seconds')} s per RoCE run, "
          f"{setup.get('steps')} TCP steps")
    print(table(rows))
    print("shares, max/mean, Jain, shareErr: from leaf1's interface counters (tx bytes of "
          "u1..u4); ctrDiff: largest |interface - map| / interface over the uplinks "
          "(xdp modes; at tc the interface's bytes + 14 per packet, the Ethernet header a veth leaves out of an skb; in 4 the kernel also forwards what took xdpleaf's slow path); "
          "offer/deliv: Mbit/s of frames; loss%: RoCE PSN gaps at the receiver, or in 5 "
          "TCP retransmitted segments (R); reord% in 5: reorderings TCP detected per "
          "segment; cpu%/oth: all CPUs busy / of which other processes on the machine")
    if cpu:
        cap = sum(cpu["capacity_bps"])
        print(f"CPU check ({cpu['mode']}): offered {cpu['offered_bps'] / 1e6:.0f} Mbit/s "
              f"= {cpu['offered_bps'] / cap:.2f} x capacity {cap / 1e6:.0f} -> delivered "
              f"{cpu['mid_delivered_bps'] / 1e6:.0f} Mbit/s = "
              f"{cpu['mid_delivered_bps'] / cap:.3f} x capacity (TBFs: "
              f"{' '.join(format(x / 1e6, '.1f') for x in cpu['mid_tbf_bps'])} Mbit/s; "
              f"middle 2 s), CPUs {cpu['mid_cpu_busy_pct']:.0f}% busy "
              f"({f(cpu['mid_cpu_others_pct'], '.0f')}% other processes)")
    if cpu2:
        cap = sum(cpu2["capacity_bps"])
        print(f"CPU check without TBFs ({cpu2['mode']}): offered "
              f"{cpu2['offered_bps'] / 1e6:.0f} Mbit/s = {cpu2['offered_bps'] / cap:.2f} x "
              f"capacity -> delivered {cpu2['mid_delivered_bps'] / 1e6:.0f} Mbit/s (middle "
              f"2 s), lost {cpu2['lost']} of {cpu2['gen_packets']} packets, CPUs "
              f"{cpu2['mid_cpu_busy_pct']:.0f}% busy ({f(cpu2['mid_cpu_others_pct'], '.0f')}% "
              f"other processes)")
    if targets:
        print("flowlet targets:")
        for t in targets:
            v = t["value"]
            vs = "-" if v is None else (f"{v:.4g}")
            print(f"  ({t['workload']}) {t['target']}: {vs} "
                  f"{'met' if t['met'] else 'MISSED'}")
    if ref:
        # not a target: what TCP itself reaches here without a balancer
        print(f"workload 5 against the non-blocking reference (p50 "
              f"{ref['step_p50_ms']:.0f} ms = {ref['step_ratio']:.2f} x ideal, p99 "
              f"{ref['step_p99_ms']:.0f} ms): " + ", ".join(
                  f"{r['mode']} {r['step_ref_ratio']:.2f} x (p99 {r['step_ref_ratio_p99']:.2f} x)"
                  for r in rows if "step_ref_ratio" in r))
    with open(os.path.join(top, "results.json"), "w") as fh:
        json.dump({"setup": setup, "rows": rows, "cpu_check": cpu,
                   "cpu_check_unshaped": cpu2, "targets": targets},
                  fh, indent=1)
    pngs = plot_series(top)
    if pngs:
        print(f"uplink shares and queue lengths over time: {len(pngs)} plots in "
              f"{os.path.join(top, 'plots')}/")


# ---- plots over time (samples.json) -----------------------------------

def sampler_records(path):
    """The sampler's records (samples.json), in order. The last may be cut
    short by the sampler's stop: whatever does not parse ends them."""
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError:
        return
    try:
        yield from json_values(text)
    except ValueError:
        return


def read_samples(path):
    """The sampler's records, in order: (t seconds, {uplink: (tx_bytes,
    queue_bytes or None)})."""
    out = []
    for rec in sampler_records(path):
        st, ups = rec.get("stats"), {}
        if isinstance(st, list):  # kernel mode: ip -s -j link
            for e in st:
                if e.get("ifname") in UPLINKS:
                    ups[e["ifname"]] = (e["stats64"]["tx"]["bytes"], None)
        elif isinstance(st, dict):  # xdpleaf stats --json
            for p in st.get("ports", []):
                if p.get("name") in UPLINKS:
                    q = p.get("queue") or {}
                    ups[p["name"]] = (p["tx_bytes"], q.get("length_bytes"))
        if len(ups) == len(UPLINKS):
            out.append((rec["t"], ups))
    return out


def series_of(samples):
    """Per uplink: its share (%) of the uplinks' bytes in each interval
    between samples, and its queue length (KB) at each sample."""
    shares = {u: [] for u in UPLINKS}
    queues = {u: [] for u in UPLINKS}
    t0 = samples[0][0] if samples else 0
    for (ta, a), (tb, b) in zip(samples, samples[1:]):
        d = {u: b[u][0] - a[u][0] for u in UPLINKS}
        tot = sum(d.values())
        if tot > 0:
            for u in UPLINKS:
                shares[u].append(((ta + tb) / 2 - t0, 100.0 * d[u] / tot))
    for t, s in samples:
        for u in UPLINKS:
            if s[u][1] is not None:
                queues[u].append((t - t0, s[u][1] / 1024))
    return shares, queues


def plot_series(top):
    """Per workload with samples: plots/shares-wN.png and plots/queue-wN.png,
    a panel per mode (queues: the xdpleaf modes' phantom queues; kernel
    ECMP has none to read)."""
    pngs = []
    for wl in range(1, 6):
        share_panels, queue_panels = [], []
        for m in MODES:
            samples = read_samples(os.path.join(top, m, f"w{wl}", "samples.json"))
            if len(samples) < 2:
                continue
            shares, queues = series_of(samples)
            share_panels.append({"title": m, "ylabel": "share of uplink bytes (%)",
                                 "yrange": (0, 100), "series": list(shares.items())})
            if any(queues.values()):
                queue_panels.append({"title": m, "ylabel": "phantom queue (KB)",
                                     "series": list(queues.items())})
        if not share_panels:
            continue
        os.makedirs(os.path.join(top, "plots"), exist_ok=True)
        for name, panels, what in (("shares", share_panels, "uplink shares, 100 ms intervals"),
                                   ("queue", queue_panels, "leaf1's uplink queues")):
            png = os.path.join(top, "plots", f"{name}-w{wl}.png")
            if panels and plot.lines(png, panels, "time from the first sample (s)",
                                     f"workload {wl}: {what}"):
                pngs.append(png)
    return pngs


if __name__ == "__main__":
    main()
