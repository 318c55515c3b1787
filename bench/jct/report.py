#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The table of bench/jct/run.sh, from the raw data it left in DIR.

  bench/jct/report.py DIR        prints the table, writes DIR/results.json
                                 and DIR/plots/cdf-UPLINKS-OP-SIZE.png

Each cell is DIR/HOSTS/UPLINKS/LABEL/OP-SIZE/ (HOSTS: the hosts' TCP
profile, dc or as-is; a run from before the profiles has no such level;
OP may itself hold '-', as mpich-allreduce: SIZE is what follows the last)
with steps.json (the collective's
output: per-step, per-rank CLOCK_MONOTONIC start and end) and counter
snapshots before (c0.json) and after (c1.json) the mpirun: nstat of every
host, the qdiscs of every node, xdpleaf's stats. A roce cell's steps.json
(bench/jct/roce_steps.py) has the same steps, the senders' (gen) and
receivers' (sink) reports, and host-H.json each host's host-mode counters.
LABEL is ref, kernel-N, krepath, flowlet, hash, spray, static or kstatic. Columns: docs/jct-bench.md.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  (bench/plot.py)
from benchlib import (load, map_port, nstat_delta, percentile,  # noqa: E402  (bench/benchlib.py)
                      qdisc_drops, size_bytes)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement  # noqa: E402  (bench/jct/placement.py: which flows carry the data)
import bound  # noqa: E402  (bench/jct/bound.py: the bound each cell can reach)

HOSTS = ["s1", "s2", "s3", "s4", "r1", "r2", "r3", "r4"]
RECEIVERS = ["r1", "r2", "r3", "r4"]
SPINES = ["sp1", "sp2", "sp3", "sp4"]
UPLINKS = ["u1", "u2", "u3", "u4"]
NSTAT = ["TcpExtTCPSACKReorder", "TcpExtTCPTSReorder", "TcpExtTCPRenoReorder",
         "TcpExtTCPOFOQueue", "TcpRetransSegs", "TcpExtTCPDSACKRecv",
         "TcpExtTCPLostRetransmit", "TcpExtTCPTimeouts", "TcpOutSegs", "TcpInSegs"]
PROFILES = ["dc", "as-is", "rto5"]  # the hosts' TCP (run.sh --host-tcp)
USETS = ["equal", "unequal", "degraded", "fail"]
LABEL_ORDER = ["ref", "kernel", "krepath", "flowlet", "hash", "spray", "static", "kstatic"]


def map_sum(c0, c1, field):
    t = 0
    for u in UPLINKS:
        a, b = map_port(c0, u), map_port(c1, u)
        if a and b and field in a:
            t += b[field] - a[field]
    return t


def data_flow_moves(path):
    """Moves in the cell of the collective's data flows (placement.py's
    data_flows), or None without leaf1's flow table before and after it.
    The other moves are control messages: in a 1 MiB all-reduce they made
    nearly all of leaf1's moves while the data connections never moved
    (measured 27 November 2026: bench/results/2026-11-28-jct-notebook/
    README.md, "why the unequal all-to-all trails `static`")."""
    if not all(os.path.exists(os.path.join(path, f)) for f in ("flows0.json", "flows.json")):
        return None
    return sum(m for (_, _, m) in placement.data_flows(path).values())


def cell(path):
    steps = load(os.path.join(path, "steps.json"))
    c0, c1 = load(os.path.join(path, "c0.json")), load(os.path.join(path, "c1.json"))
    if not steps or not steps.get("steps") or not c0 or not c1:
        return None
    t = [s["time_ns"] / 1e6 for s in steps["steps"]]
    skew = [(max(s["rank_start_ns"]) - min(s["rank_start_ns"])) / 1e6 for s in steps["steps"]]
    r = {"steps": len(t), "step_ms": t, "p50_ms": percentile(t, 50),
         "p99_ms": percentile(t, 99), "mean_ms": statistics.fmean(t), "max_ms": max(t),
         "start_skew_p50_ms": percentile(skew, 50), "hosts": steps.get("hosts"),
         "wrong_results": steps.get("wrong_results"), "library": steps.get("library")}
    if steps.get("timed_out"):
        # roce: the run ran out of time; its last step is its time so far,
        # so every figure of the row is a lower bound. A step cut short by
        # the end of the run may have had little time: the slowest step
        # that did finish, warm-up included, says more
        r["timed_out"] = steps["timed_out"]
        done = [x / 1e6 for x in steps.get("warmup_step_ns", [])] + \
            [s["time_ns"] / 1e6 for s in steps["steps"] if not s.get("incomplete")]
        r["slowest_done_ms"] = max(done) if done else None
    r["nstat"] = {k: {h: nstat_delta(c0, c1, h, k) for h in HOSTS} for k in NSTAT}
    tot = {k: sum(v.values()) for k, v in r["nstat"].items()}
    r["sack_reorder"] = tot["TcpExtTCPSACKReorder"]
    r["reorder_all"] = (tot["TcpExtTCPSACKReorder"] + tot["TcpExtTCPTSReorder"] +
                        tot["TcpExtTCPRenoReorder"])
    r["ofo_receivers"] = sum(r["nstat"]["TcpExtTCPOFOQueue"][h] for h in RECEIVERS)
    r["ofo_all"] = tot["TcpExtTCPOFOQueue"]
    r["retrans"] = tot["TcpRetransSegs"]
    r["out_segs"] = tot["TcpOutSegs"]
    r["dsack"] = tot["TcpExtTCPDSACKRecv"]
    r["timeouts"] = tot["TcpExtTCPTimeouts"]
    r["uplink_drops"] = [qdisc_drops(c1, s) - qdisc_drops(c0, s) for s in SPINES]
    r["host_link_drops"] = sum(qdisc_drops(c1, n) - qdisc_drops(c0, n)
                               for n in HOSTS + ["leaf1", "leaf2"])
    r["drops"] = sum(r["uplink_drops"]) + r["host_link_drops"]
    if c0.get("map"):
        r["hook"] = c0.get("hook")
        r["flowlets"] = map_sum(c0, c1, "flowlets")
        r["moves"] = map_sum(c0, c1, "moves_in")
        r["moves_refused"] = map_sum(c0, c1, "moves_refused")
        r["data_moves"] = data_flow_moves(path)
        r["uplink_flowlets"] = [map_port(c1, u).get("flowlets", 0) - map_port(c0, u).get("flowlets", 0)
                                for u in UPLINKS if map_port(c0, u) and map_port(c1, u)]
        r["uplink_tx_bytes"] = [map_port(c1, u)["tx_bytes"] - map_port(c0, u)["tx_bytes"]
                                for u in UPLINKS if map_port(c0, u) and map_port(c1, u)]
    # --uplinks fail: the steps that overlapped the link's outage
    td, tu = os.path.join(path, "t_down"), os.path.join(path, "t_up")
    if os.path.exists(td) and os.path.exists(tu):
        with open(td) as f1, open(tu) as f2:
            down, up = int(f1.read()), int(f2.read())
        hit = [s["time_ns"] / 1e6 for s in steps["steps"]
               if s["start_ns"] <= up and s["end_ns"] >= down]
        r["fail_window_ms"] = (up - down) / 1e6
        r["fail_steps"] = len(hit)
        r["fail_step_max_ms"] = max(hit) if hit else None
    if steps.get("sinks") is not None:
        roce_figures(r, steps, path)
    att = os.path.join(path, "attempts")
    if os.path.exists(att):
        with open(att) as f:
            r["attempts"] = int(f.read().strip() or 1)
    busy = os.path.join(path, "busy_before")
    if os.path.exists(busy):
        with open(busy) as f:
            r["cpu_busy_before_pct"] = int(f.read().strip() or 0)
    return r


def roce_figures(r, steps, path):
    """RoCE cells: what the receivers' sinks counted over every QP (warm-up
    included), and the CNPs host mode sent and received."""
    qps = [q for s in steps["sinks"] if s for q in s.get("qps", [])]
    warm = [q for s in steps.get("sinks_after_warmup") or [] if s for q in s.get("qps", [])]
    r["roce_sent"] = sum(g.get("packets", 0) for g in steps.get("gens", []))
    for k in ("packets", "lost", "reordered", "duplicates", "ce"):
        r["roce_" + k] = sum(q.get(k, 0) for q in qps)
        # the measured steps only: less what the sinks had counted by then
        r["roce_measured_" + k] = r["roce_" + k] - sum(q.get(k, 0) for q in warm)
    r["roce_qps"] = len(qps)
    # go-back-N (gen --reliable; runs before it had no per-step counts):
    # what the senders sent in the measured steps, resends included, and
    # what of it never arrived
    if steps.get("sent_in_warmup"):
        # the senders' totals less the warm-up's: right also for a run out
        # of time, whose last step has no line from its senders
        w = steps["sent_in_warmup"]
        r["roce_measured_sent"] = sum(g.get("packets", 0) for g in steps["gens"]) - w["packets"]
        r["roce_measured_resent"] = sum(g.get("resent", 0) for g in steps["gens"]) - w["resent"]
        r["roce_measured_dropped"] = max(r["roce_measured_sent"] - r["roce_measured_packets"], 0)
        for k in ("naks", "timeouts"):
            r["roce_" + k] = sum(g.get(k, 0) for g in steps.get("gens", []))
    cnt = {h: (load(os.path.join(path, f"host-{h}.json")) or {}).get("counters", {}) for h in HOSTS}
    r["cnps_sent"] = sum(c.get("cnps_sent", 0) for c in cnt.values())
    r["cnps_received"] = sum(c.get("cnps_received", 0) for c in cnt.values())
    move_attribution(r, steps, path, load(os.path.join(path, "c0.json")),
                     load(os.path.join(path, "c1.json")))


# An out-of-order PSN counts as after a move if leaf1 moved its flow at
# most this long before: the old uplink's queue holds at most its buffer
# (2 ms in the lab), so a move's overtaking is over well within it.
MOVE_WINDOW_NS = 10_000_000


def move_attribution(r, steps, path, c0, c1):
    """roce cells: the out-of-order PSNs host mode saw at the receivers over
    the whole job (warm-up included: a move then reorders as much), and how
    many of them followed a move of their flow in leaf1 (roce_steps.py
    records both, with their times)."""
    ev = (steps.get("events") or {}).get("events")
    if ev is None:
        return
    t0 = steps["steps"][0]["start_ns"]
    moves = {}
    for e in ev:
        if e["event"] == "move" and e["t"] is not None:
            moves.setdefault((e["dst"], e["sport"]), []).append(e)
    old = [e for e in ev if e["event"] == "psn_old" and e["t"] is not None]
    after, culprits = 0, {}
    for e in old:
        near = [m for m in moves.get((e["dst"], e["sport"]), [])
                if 0 <= e["t"] - m["t"] <= MOVE_WINDOW_NS]
        if near:
            after += 1
            m = max(near, key=lambda m: m["t"])
            culprits[(m["t"], m["dst"])] = m
    r["roce_psn_old_events"] = len(old)
    r["roce_measured_psn_old_events"] = sum(1 for e in old if e["t"] >= t0)
    r["roce_psn_old_after_move"] = after
    # what the rule weighed for each move that was followed by reordering
    # (include/lb.h xl_move_detail: gap and old queue, us)
    r["roce_reordering_moves"] = [
        {"t_ns": m["t"], "dst": m["dst"], "sport": m["sport"], "detail": m["detail"],
         "gap_us": (m["aux2"] or 0) & 0xffff, "old_queue_us": (m["aux2"] or 0) >> 16}
        for m in sorted(culprits.values(), key=lambda m: m["t"])]
    r["roce_moves_events"] = sum(len(v) for v in moves.values())
    r["roce_moves_measured"] = sum(1 for v in moves.values() for m in v if m["t"] >= t0)
    # events of these kinds the dataplane counted but did not write (over
    # event_rate, or a full ring): the receivers' host mode and leaf1
    def lost(ev_counts, kind):
        c = (ev_counts or {}).get(kind, {})
        return c.get("limited", 0) + c.get("ring_full", 0)

    # host mode is loaded for the cell; leaf1's counts span its lab's
    # earlier cells too, so its part is the difference over the job
    counts = [(h, lost((load(os.path.join(path, f"host-{h}.json")) or {}).get("events"), "psn_old"))
              for h in RECEIVERS]
    leaf = [((snap or {}).get("map") or {}).get("events") for snap in (c0, c1)]
    counts.append(("leaf1", lost(leaf[1], "move") - lost(leaf[0], "move")))
    unwritten = []
    for h, n in counts:
        if n:
            unwritten.append(f"{h}: {n}")
    r["events_unwritten"] = unwritten
    r["events_readers_failed"] = [x["host"] for x in steps["events"].get("readers", [])
                                  if x.get("exit") not in (0, None)]


def lost_pct(r):
    """A roce row's packets lost in the measured steps: with go-back-N, %
    of the frames sent that never arrived; before it (no resends), % of
    the PSNs due that never arrived."""
    if "roce_measured_sent" in r:
        n = r["roce_measured_sent"]
        return 100 * r["roce_measured_dropped"] / n if n else 0.0
    n = r["roce_measured_packets"] + r["roce_measured_lost"]
    return 100 * r["roce_measured_lost"] / n if n else 0.0


def resent_pct(r):
    """go-back-N: % of the frames sent in the measured steps that were resends."""
    n = r.get("roce_measured_sent")
    return 100 * r["roce_measured_resent"] / n if n else 0.0


def add_bound(r):
    """The bound the cell's op can reach on its uplinks (bound.py: a
    whole-flow placement's and a fluid split's model time over the
    reference's), where the model has the op and the set is not the
    failure (which it does not model)."""
    if r["uplinks"] == "fail" or r["op"] not in bound.OPS or not r.get("rates"):
        return
    try:
        b = bound.bounds(r["op"], r["bytes"], bound.parse_rates(r["rates"]))
    except (ValueError, KeyError):
        return
    r["bound"] = {"whole_flow_x": b["whole_flow_x"], "fluid_x": b["fluid_x"]}


def bound_text(r):
    b = r.get("bound")
    return f"{b['whole_flow_x']:.2f}/{b['fluid_x']:.2f}" if b else "-"


def label_key(label):
    base, _, n = label.partition("-")
    return (LABEL_ORDER.index(base) if base in LABEL_ORDER else 99, int(n or 0))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    top = sys.argv[1]
    setup = load(os.path.join(top, "setup.json"), {})
    rows = []
    for hosts in PROFILES + [None]:
        base = os.path.join(top, hosts) if hosts else top
        for uset in USETS:
            d = os.path.join(base, uset)
            if not os.path.isdir(d):
                continue
            for label in sorted(os.listdir(d), key=label_key):
                meta = load(os.path.join(d, label, "meta.json"))
                if not meta:
                    continue
                for c in sorted(os.listdir(os.path.join(d, label))):
                    p = os.path.join(d, label, c)
                    if not os.path.isdir(p) or "-" not in c:
                        continue
                    op, size = c.rsplit("-", 1)
                    r = cell(p)
                    row = {"host_tcp": hosts or "", "uplinks": uset, "rates": meta.get("rates"),
                           "fabric": meta["fabric"], "label": label, "lab": meta.get("lab"),
                           "op": op, "size": size, "bytes": size_bytes(size)}
                    if r is None:
                        row["failed"] = True
                    else:
                        row.update(r)
                    rows.append(row)
    for i, hosts in enumerate(sorted({r["host_tcp"] for r in rows}, key=profile_key)):
        if i:
            print()
        report(top, setup, hosts, [r for r in rows if r["host_tcp"] == hosts])
    with open(os.path.join(top, "results.json"), "w") as f:
        json.dump({"setup": setup, "rows": rows,
                   "summary": [s for r in rows for s in r.pop("_summary", [])]}, f, indent=1)
    pngs = plot_cdfs(top, rows)
    if pngs:
        print(f"\nstep-time CDFs per fabric: {len(pngs)} plots in {os.path.join(top, 'plots')}/")


def profile_key(hosts):
    return PROFILES.index(hosts) if hosts in PROFILES else len(PROFILES)


def report(top, setup, hosts, rows):
    """The table of one host TCP profile's rows (ratios against the
    reference of the same profile), and its summary, which goes to
    results.json with the first row."""
    def find(uset, label, op, size):
        for r in rows:
            if (r["uplinks"], r["label"], r["op"], r["size"]) == (uset, label, op, size) \
                    and not r.get("failed"):
                return r
        return None

    def ref_of(uset):  # the failure is measured against equal uplinks
        return "equal" if uset == "fail" else uset

    for r in rows:
        add_bound(r)
        ref = find(ref_of(r["uplinks"]), "ref", r["op"], r["size"])
        if ref and not r.get("failed"):
            r["p50_x"] = r["p50_ms"] / ref["p50_ms"]
            r["p99_x"] = r["p99_ms"] / ref["p99_ms"]
            r["max_x"] = r["max_ms"] / ref["p50_ms"]
            if r.get("fail_step_max_ms") is not None:
                r["fail_step_x"] = r["fail_step_max_ms"] / ref["p50_ms"]

    # kernel ECMP: one hash draw per lab; the spread over labs, and flowlet
    # against the median of the draws
    summary = []
    for uset, op, size in sorted({(r["uplinks"], r["op"], r["size"]) for r in rows},
                                 key=lambda k: (k[0], k[1], size_bytes(k[2]))):
        ks = [r for r in rows if (r["uplinks"], r["op"], r["size"]) == (uset, op, size)
              and r["fabric"] == "kernel" and not r.get("failed")]
        s = {"host_tcp": hosts, "uplinks": uset, "op": op, "size": size}
        if ks and "roce_packets" in ks[0]:
            s["kernel_lost_pct"] = [lost_pct(r) for r in ks]
            if "roce_measured_sent" in ks[0]:
                s["kernel_resent_pct"] = [resent_pct(r) for r in ks]
        if ks:
            p50s = [r["p50_ms"] for r in ks]
            s["kernel_labs"] = len(ks)
            s["kernel_p50_ms"] = p50s
            s["kernel_p50_median_ms"] = statistics.median(p50s)
            # a lab that timed out gave a lower bound: so is the median, and
            # flowlet at or below it is at or below the true median
            s["kernel_timed_out"] = sum(1 for r in ks if r.get("timed_out"))
        fl = find(uset, "flowlet", op, size)
        ref = find(ref_of(uset), "ref", op, size)
        if fl:
            s["flowlet_p50_ms"] = fl["p50_ms"]
            s["flowlet_reorder"] = fl["reorder_all"]
            if "roce_packets" in fl:
                s["flowlet_lost_pct"] = lost_pct(fl)
                if "roce_measured_sent" in fl:
                    s["flowlet_resent_pct"] = resent_pct(fl)
                if "roce_psn_old_after_move" in fl:
                    s["flowlet_psn_old_after_move"] = fl["roce_psn_old_after_move"]
            if ks:
                s["flowlet_le_ecmp_median"] = fl["p50_ms"] <= s["kernel_p50_median_ms"]
        # ECMP with the hosts re-drawing a connection's hash after an RTO
        rp = find(uset, "krepath", op, size)
        if rp:
            s["krepath_p50_ms"] = rp["p50_ms"]
            if fl:
                s["flowlet_le_krepath"] = fl["p50_ms"] <= rp["p50_ms"]
        if ref:
            s["ref_p50_ms"] = ref["p50_ms"]
            if ks:
                s["kernel_p50_median_x"] = s["kernel_p50_median_ms"] / ref["p50_ms"]
        summary.append(s)

    if rows:
        rows[0]["_summary"] = summary

    tcp = setup.get("tcp_congestion_control")
    libs = setup.get("mpi", "MPI")
    if any(r["op"].startswith("mpich-") for r in rows):
        libs += f" and {setup.get('mpich', 'MPICH')}"
    print((f"== hosts' TCP {hosts}\n" if hosts else "")
          + f"{libs}, 8 ranks ({setup.get('rank_hosts')}), "
          f"{setup.get('steps')} steps after {setup.get('warmup')} warm-up; "
          f"host TCP: {tcp}; "
          f"roce hosts' DCQCN: {setup.get('host_dcqcn', 'spec')}, "
          f"{setup.get('roce_qps', 1)} QP(s) per sender; "
          f"ref = uplinks unlimited, receivers' links at aggregate/4")
    opw = max([9] + [len(r["op"]) for r in rows])  # allreduce-rabenseifner: 22
    hdr = (f"{'uplinks':<24} {'op':<{opw}} {'size':>4}  {'fabric':<9} {'p50ms':>8} {'p99ms':>8} "
           f"{'p50x':>6} {'p99x':>6} {'bound':>11} {'reord':>6} {'ofo(r)':>7} {'retx':>6} "
           f"{'drops':>6}  notes")
    print(hdr)
    last = None
    for r in sorted(rows, key=lambda r: (r["uplinks"], r["op"], r["bytes"], label_key(r["label"]))):
        key = (r["uplinks"], r["op"], r["size"])
        if last and key != last:
            print()
        last = key
        up = f"{r['uplinks']} {r.get('rates', '')}"
        if r.get("failed"):
            print(f"{up:<24} {r['op']:<{opw}} {r['size']:>4}  {r['label']:<9} failed"
                  + (f" {'':>8} {'':>8} {'':>6} {'':>6} {bound_text(r):>11}" if "bound" in r else ""))
            continue
        ge = ">=" if r.get("timed_out") else ""
        x50 = f"{ge}{r['p50_x']:.2f}" if "p50_x" in r else "-"
        x99 = f"{ge}{r['p99_x']:.2f}" if "p99_x" in r else "-"
        notes = []
        if r.get("timed_out"):
            t = r["timed_out"]
            notes.append(f"OUT OF TIME in step {t['after_steps'] + 1} of {t['of']}: "
                         "times are lower bounds"
                         + (f" (slowest step done, warm-up included: "
                            f"{r['slowest_done_ms']:.0f} ms)" if r.get("slowest_done_ms") else ""))
        if "moves" in r:
            notes.append((f"at {r['hook']}; " if r.get("hook") else "")
                         + f"flowlets {r['flowlets']}, moves {r['moves']}"
                         + (f" ({r['data_moves']} by data flows)" if r.get("data_moves") is not None
                            and r["moves"] else "")
                         + (f" (refused {r['moves_refused']})" if r.get("moves_refused") else ""))
        if r.get("uplink_tx_bytes") and sum(r["uplink_tx_bytes"]):
            t = sum(r["uplink_tx_bytes"])
            notes.append("uplink bytes " + "/".join(f"{100 * b / t:.0f}" for b in r["uplink_tx_bytes"])
                         + " %")
        if "fail_steps" in r:
            notes.append(f"u2 down {r['fail_window_ms']:.0f} ms: {r['fail_steps']} steps in it, "
                         f"slowest {r['fail_step_max_ms'] or 0:.0f} ms"
                         + (f" = {r['fail_step_x']:.2f} x ref p50" if "fail_step_x" in r else ""))
        roce = "roce_packets" in r
        if roce:
            sent = r["roce_sent"]
            if "roce_measured_sent" in r:
                notes.append(f"RoCE go-back-N, measured steps: {r['roce_measured_sent']} frames "
                             f"sent, {r['roce_measured_resent']} of them resends "
                             f"({resent_pct(r):.2f} %), {r['roce_measured_dropped']} dropped "
                             f"({lost_pct(r):.2f} %), CE {r['roce_measured_ce']}; whole job: "
                             f"{r['roce_naks']} NAKs, {r['roce_timeouts']} ACK timeouts, "
                             f"{r['roce_lost']} never delivered, {r['roce_reordered']} out of "
                             f"order, CNPs {r['cnps_sent']}")
            else:
                notes.append(f"RoCE, measured steps: {r['roce_measured_lost']} packets lost "
                             f"({lost_pct(r):.2f} %), "
                             f"CE {r['roce_measured_ce']}; whole job: {sent} sent, "
                             f"{r['roce_lost']} lost, {r['roce_reordered']} out of order, "
                             f"CNPs {r['cnps_sent']}")
            if "roce_psn_old_events" in r:
                notes.append(f"host mode saw {r['roce_psn_old_events']} PSNs out of "
                             f"order, {r['roce_psn_old_after_move']} of them within "
                             f"{MOVE_WINDOW_NS // 1000000} ms after a move of their flow "
                             f"({r['roce_moves_events']} moves)"
                             + "".join(f"; a move {m['detail']}" for m in r["roce_reordering_moves"]))
            if r.get("events_unwritten"):
                notes.append("events not written (so not in that count): "
                             + ", ".join(r["events_unwritten"]))
            if r.get("events_readers_failed"):
                notes.append("events readers failed: " + ", ".join(r["events_readers_failed"]))
        if r["timeouts"]:
            notes.append(f"RTOs {r['timeouts']}")
        if r.get("attempts", 1) > 1:
            notes.append(f"attempt {r['attempts']} (the first hung)")
        if r.get("wrong_results"):
            notes.append(f"WRONG RESULTS {r['wrong_results']}")
        if r.get("cpu_busy_before_pct", 0) > 20:
            notes.append(f"CPUs {r['cpu_busy_before_pct']}% busy before")
        print(f"{up:<24} {r['op']:<{opw}} {r['size']:>4}  {r['label']:<9} {r['p50_ms']:>8.1f} "
              f"{r['p99_ms']:>8.1f} {x50:>6} {x99:>6} {bound_text(r):>11} "
              f"{r['roce_measured_reordered'] if roce else r['reorder_all']:>6} "
              f"{'-' if roce else r['ofo_receivers']:>7} {'-' if roce else r['retrans']:>6} "
              f"{r['drops']:>6}  {'; '.join(notes)}")
    if any("kernel_labs" in s for s in summary):
        print("\nkernel ECMP over its labs (one hash draw each) and flowlet against their median:")
        for s in summary:
            if "kernel_labs" not in s:
                continue
            ge = ">=" if s.get("kernel_timed_out") else ""
            line = (f"  {s['uplinks']:<8} {s['op']:<{opw}} {s['size']:>4}: kernel p50 "
                    f"{'/'.join(f'{v:.0f}' for v in s['kernel_p50_ms'])} ms, median "
                    f"{ge}{s['kernel_p50_median_ms']:.0f} ms"
                    + (f" ({s['kernel_timed_out']} lab(s) out of time: lower bounds)"
                       if s.get("kernel_timed_out") else ""))
            if "kernel_p50_median_x" in s:
                line += f" = {s['kernel_p50_median_x']:.2f} x ref"
            if "flowlet_p50_ms" in s:
                line += (f"; flowlet {s['flowlet_p50_ms']:.0f} ms: "
                         f"{'<=' if s['flowlet_le_ecmp_median'] else '>'} median")
            if "flowlet_le_krepath" in s:
                line += (f"; krepath {s['krepath_p50_ms']:.0f} ms: flowlet "
                         f"{'<=' if s['flowlet_le_krepath'] else '>'} it")
            if "kernel_resent_pct" in s and "flowlet_resent_pct" in s:
                line += (f"; frames dropped / resent in the measured steps: kernel "
                         + "/".join(f"{d:.1f}/{x:.1f}" for d, x in
                                    zip(s["kernel_lost_pct"], s["kernel_resent_pct"]))
                         + f" %, flowlet {s['flowlet_lost_pct']:.1f}/"
                         f"{s['flowlet_resent_pct']:.1f} %")
            elif "kernel_lost_pct" in s and "flowlet_lost_pct" in s:
                line += (f"; packets lost in the measured steps: kernel "
                         f"{'/'.join(f'{v:.1f}' for v in s['kernel_lost_pct'])} %, "
                         f"flowlet {s['flowlet_lost_pct']:.1f} %")
            print(line)


def plot_cdfs(top, rows):
    """One PNG per (uplinks, op, size): the step-time CDF of each fabric."""
    cells = {}
    for r in rows:
        if not r.get("failed"):
            cells.setdefault((r["host_tcp"], r["uplinks"], r["op"], r["size"]), []).append(r)
    if not cells:
        return []
    os.makedirs(os.path.join(top, "plots"), exist_ok=True)
    pngs = []
    for (hosts, uset, op, size), rs in sorted(cells.items()):
        rs.sort(key=lambda r: label_key(r["label"]))
        png = os.path.join(top, "plots", "cdf-" + (f"{hosts}-" if hosts else "")
                           + f"{uset}-{op}-{size}.png")
        panel = {"title": f"{op} {size}, uplinks {uset} {rs[0].get('rates') or ''}"
                 + (f", hosts' TCP {hosts}" if hosts else ""),
                 "ylabel": "fraction of steps", "yrange": (0, 1), "steps": True,
                 "series": [(r["label"], plot.cdf(r["step_ms"])) for r in rs]}
        if plot.lines(png, [panel], "step time (ms)"):
            pngs.append(png)
    return pngs


if __name__ == "__main__":
    main()
