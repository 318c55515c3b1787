#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The step time a balancer could reach in a bench/jct/run.sh cell, as a
ratio to the reference fabric's, under a fluid model.

  bench/jct/bound.py --op OP[,OP..] --rates RATES [--rates RATES ..]
                     [--size 4M] [--placement s1,r1,..] [--json]

  import bound; bound.bounds(op, size_bytes, rates_bps) -> dict

RATES is a comma-separated list of the uplinks' rates in bit/s (K, M, G =
10^3, 10^6, 10^9, as lab/lib.sh: a whole number of bit/s >= 1M) or a set's
name: equal, unequal, degraded (SETS). OP is one of OPS, or `all`. SIZE is
the bytes per rank (K, M = 2^10, 2^20, as run.sh). One op and one rate set
print its phases; more print one table row per cell.

The model. A collective is a sequence of phases, each a set of flows (src
rank -> dst rank, bytes); a phase starts when the previous one ends (a
barrier between phases: what a ring's or a recursive exchange's data
dependencies impose, near enough; a pipelined ring overlaps the phases a
little, which this ignores). Only leaf1's uplinks, leaf1 -> leaf2, are
shaped: a flow from an s host to an r host crosses them, every other flow
is free (the unshaped veths are taken as infinitely fast, so a phase
without a crossing flow takes no time). Per phase:

  whole_flow  each connection on one uplink for the whole phase: the
              assignment of the crossing flows to uplinks with the least
              max over uplinks of (bits on it / its rate). Equal flows of
              b bits: the least T with sum_j floor(T c_j / b) >= k, exact;
              otherwise a branch-and-bound search over assignments.
  fluid       every flow split freely over the uplinks (per-flowlet
              spraying in the limit): crossing bits / the sum of the rates.
  ref         the reference fabric: uplinks unlimited, leaf2's port to each
              receiver shaped to (sum of the rates) / 4; every flow into
              an r host (from an s or an r host) shares that port: max
              over receivers of the bits into it / that rate.

A step is the sum of its phases; the ratios are whole_flow / ref and
fluid / ref, comparable with a cell's p50x. whole_flow is per phase; a
connection kept on one uplink for the whole step gets the same figure
when every two phases have either the same crossing connections in the
same proportions or none in common (true of every op here:
`whole_flow_exact`); otherwise it is a lower bound. docs/jct-bench.md.
"""
import argparse
import json
import math
import os
import re
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib  # noqa: E402  (bench/benchlib.py)

PLACEMENT = ("s1", "r1", "s2", "r2", "s3", "r3", "s4", "r4")  # run.sh's RANK_HOSTS
SETS = {"equal": "100M,100M,100M,100M", "unequal": "200M,100M,100M,50M",
        "degraded": "100M,100M,100M,25M"}
# collective.c's allreduce reduces floats (MPICH's selection counts elements)
FLOAT = 4
# MPICH 4.0's default selection thresholds (maint/tuning/coll/mpir/generic.json)
MPICH_ALLREDUCE_RECDBL_MAX = 8        # avg_msg_size<=8: recursive doubling
MPICH_ALLTOALL_BRUCKS_MAX = 256       # block bytes <= 256: Bruck
MPICH_ALLTOALL_SCATTERED_MAX = 32768  # <= 32768: scattered, else pairwise
MPICH_ALLTOALL_THROTTLE = 32          # MPIR_CVAR_ALLTOALL_THROTTLE's default
SEARCH_MAX = 20  # flows of unequal sizes in one phase the search takes on


class BoundError(ValueError):
    """Bad input: the CLI prints it and exits 2."""


# ---- input ------------------------------------------------------------

def parse_rate(s):
    """'200M' -> 200000000 bit/s (benchlib.rate_bps)."""
    try:
        return benchlib.rate_bps(s)
    except ValueError as e:
        raise BoundError(str(e)) from None


def parse_rates(s):
    """A set's name or a comma-separated list of rates -> [bit/s]."""
    rates = [parse_rate(r) for r in SETS.get(s, s).split(",")]
    if not rates:
        raise BoundError("no rates")
    return rates


def parse_size(s):
    """'4M' -> 4194304 bytes (benchlib.size_bytes)."""
    try:
        return benchlib.size_bytes(s)
    except ValueError as e:
        raise BoundError(str(e)) from None


# ---- what each algorithm sends ------------------------------------------

# A phase is a list of (src rank, dst rank, bytes); n ranks, N bytes per rank.

def ring(n, N):
    """Open MPI's ring all-reduce (coll_base_allreduce.c, also the
    segmented ring's traffic): n - 1 reduce-scatter and n - 1 allgather
    phases, each rank sending one block of N/n to the next."""
    return [[(i, (i + 1) % n, Fraction(N, n)) for i in range(n)] for _ in range(2 * (n - 1))]


def log2_of(n, op):
    k = n.bit_length() - 1
    if n != 1 << k:
        raise BoundError(f"{op}: needs a power-of-two number of ranks, not {n}")
    return k


def recursive_doubling(n, N, op="allreduce-recdbl"):
    """log2 n phases; in phase k rank i exchanges all N bytes with i XOR 2^k."""
    return [[(i, i ^ (1 << k), Fraction(N)) for i in range(n)] for k in range(log2_of(n, op))]


def rabenseifner(n, N, op="allreduce-rabenseifner"):
    """Reduce-scatter by recursive halving (partner i XOR 1, 2, 4..: N/2,
    N/4, N/8..), then allgather by recursive doubling in reverse (partner
    ..4, 2, 1: ..N/8, N/4, N/2). Open MPI's
    ompi_coll_base_allreduce_intra_redscat_allgather and MPICH's
    MPIR_Allreduce_intra_reduce_scatter_allgather both run the distances
    in this order."""
    k = log2_of(n, op)
    rs = [[(i, i ^ (1 << s), Fraction(N, 2 << s)) for i in range(n)] for s in range(k)]
    return rs + rs[::-1]


def pairwise(n, N):
    """Open MPI's pairwise all-to-all: in phase k (1..n-1) rank i sends
    its block of N/n to i + k (and receives from i - k)."""
    return [[(i, (i + k) % n, Fraction(N, n)) for i in range(n)] for k in range(1, n)]


def linear(n, N):
    """Every block at once (Open MPI's basic linear all-to-all, MPICH's
    scattered one when n <= its throttle): one phase of n(n-1) flows."""
    return [[(i, j, Fraction(N, n)) for i in range(n) for j in range(n) if i != j]]


def mpich_allreduce(n, N):
    """MPICH 4.0's default for an intra-communicator, a built-in op
    (MPI_SUM) and a commutative one: recursive doubling for messages of 8
    bytes or less or fewer elements than the largest power of two <= n,
    else reduce_scatter_allgather (Rabenseifner)."""
    pof2 = 1 << (n.bit_length() - 1)
    if N <= MPICH_ALLREDUCE_RECDBL_MAX or N // FLOAT < pof2:
        return recursive_doubling(n, N, "mpich-allreduce")
    return rabenseifner(n, N, "mpich-allreduce")


def mpich_alltoall(n, N):
    """MPICH 4.0's default (not in place, comm_size >= 8; by the block of
    N/n bytes): Bruck up to 256 bytes, scattered up to 32 KiB (all blocks
    at once when n <= MPIR_CVAR_ALLTOALL_THROTTLE), else pairwise: in
    phase k (1..n-1) partner i XOR k for a power-of-two n, else i + k."""
    block = Fraction(N, n)
    if block <= MPICH_ALLTOALL_BRUCKS_MAX:
        # step 2^k: to i + 2^k the blocks whose index has bit k set
        out, p = [], 1
        while p < n:
            nb = sum(1 for b in range(n) if b & p)
            out.append([(i, (i + p) % n, block * nb) for i in range(n)])
            p *= 2
        return out
    if block <= MPICH_ALLTOALL_SCATTERED_MAX:
        if n > MPICH_ALLTOALL_THROTTLE:
            raise BoundError(f"mpich-alltoall: scattered with {n} ranks is not modelled")
        return linear(n, N)
    if n & (n - 1) == 0:
        return [[(i, i ^ k, block) for i in range(n)] for k in range(1, n)]
    return pairwise(n, N)


OPS = {
    "allreduce": ring,
    "allreduce-segring": ring,
    "allreduce-recdbl": recursive_doubling,
    "allreduce-rabenseifner": rabenseifner,
    "alltoall": pairwise,
    "alltoall-linear": linear,
    "mpich-allreduce": mpich_allreduce,
    "mpich-alltoall": mpich_alltoall,
    "roce": None,  # by host, not by rank: phases_of
}


def phases_of(op, size_bytes, placement=PLACEMENT):
    """The op's phases over ranks placed on placement's hosts."""
    if op not in OPS:
        raise BoundError(f"unknown op '{op}' (one of {', '.join(OPS)})")
    n = len(placement)
    if op == "roce":
        # bench/jct/roce_steps.py: every sN sends N bytes to rN at once
        # (one message per step, a barrier between steps)
        rank = {h: i for i, h in enumerate(placement)}
        pairs = [(rank[h], rank["r" + h[1:]]) for h in placement
                 if h.startswith("s") and "r" + h[1:] in rank]
        return [[(s, r, Fraction(size_bytes)) for s, r in pairs]]
    return OPS[op](n, size_bytes)


# ---- the three models ---------------------------------------------------

def crosses(placement, src, dst):
    """Through leaf1's uplinks: from a host behind leaf1 to one behind leaf2."""
    return placement[src].startswith("s") and placement[dst].startswith("r")


def equal_flows_time(k, bits, rates):
    """k flows of bits each on uplinks of rates, each whole on one: the
    least T with sum_j floor(T rate_j / bits) >= k. T is m bits / rate_j
    for some uplink j and some m <= k (the last flow on the busiest uplink)."""
    cands = sorted({Fraction(m * bits, c) for c in rates for m in range(1, k + 1)})
    for t in cands:
        if sum(math.floor(t * c / bits) for c in rates) >= k:
            return t
    raise AssertionError("unreachable: m = k on any uplink fits all")


def search_time(flows, rates):
    """Unequal flows: branch and bound over assignments, largest flow
    first, uplinks in the same state tried once; starts from the greedy
    (each flow where it finishes first)."""
    if len(flows) > SEARCH_MAX:
        raise BoundError(f"{len(flows)} unequal flows in one phase: more than the "
                         f"search takes ({SEARCH_MAX})")
    flows = sorted(flows, reverse=True)
    load = [Fraction(0)] * len(rates)
    for f in flows:
        j = min(range(len(rates)), key=lambda j: (load[j] + f) / rates[j])
        load[j] += f
    best = [max(l / c for l, c in zip(load, rates))]
    load = [Fraction(0)] * len(rates)

    def go(i, worst):
        if worst >= best[0]:
            return
        if i == len(flows):
            best[0] = worst
            return
        tried = set()
        for j, c in enumerate(rates):
            if (c, load[j]) in tried:
                continue
            tried.add((c, load[j]))
            load[j] += flows[i]
            go(i + 1, max(worst, load[j] / c))
            load[j] -= flows[i]

    go(0, Fraction(0))
    return best[0]


def whole_flow_time(flows_bits, rates):
    if not flows_bits:
        return Fraction(0)
    if len(set(flows_bits)) == 1:
        return equal_flows_time(len(flows_bits), flows_bits[0], rates)
    return search_time(flows_bits, rates)


def pinning_exact(phases, placement):
    """True when per-phase whole-flow assignments can be one per connection
    for the whole step: any two phases share no crossing connection, or
    carry the same ones in the same proportions (then one assignment is
    best for both)."""
    seen = []
    for ph in phases:
        cx = {}
        for s, d, b in ph:
            if crosses(placement, s, d):
                cx[(s, d)] = cx.get((s, d), 0) + b
        if not cx:
            continue
        for other in seen:
            common = cx.keys() & other.keys()
            if not common:
                continue
            if cx.keys() != other.keys():
                return False
            k0 = next(iter(cx))
            ratio = cx[k0] / other[k0]
            if any(cx[k] != other[k] * ratio for k in cx):
                return False
        seen.append(cx)
    return True


def bounds(op, size_bytes, rates_bps, placement=PLACEMENT):
    """The cell's model times (seconds) and ratios; see the module's doc."""
    placement = tuple(placement)
    bad = [h for h in placement if not re.fullmatch(r"[sr][1-9][0-9]*", h)]
    if bad or len(set(placement)) != len(placement) or len(placement) < 2:
        raise BoundError(f"bad placement {','.join(placement)} (distinct hosts sN, rN)")
    rates = [int(r) for r in rates_bps]
    if not rates or min(rates) <= 0:
        raise BoundError("rates: one or more, each > 0 bit/s")
    if int(size_bytes) <= 0:
        raise BoundError("size: > 0 bytes")
    phases = phases_of(op, int(size_bytes), placement)
    total = sum(rates)
    recv_rate = Fraction(total, 4)  # run.sh's ref: aggregate / 4 per receiver
    per = []
    for ph in phases:
        cross = [8 * b for s, d, b in ph if crosses(placement, s, d)]
        into = {}
        for s, d, b in ph:
            if placement[d].startswith("r") and s != d:
                into[d] = into.get(d, 0) + 8 * b
        per.append({"cross_flows": len(cross),
                    "cross_bytes": sum(cross) / 8,
                    "whole_flow": whole_flow_time(cross, rates),
                    "fluid": Fraction(sum(cross)) / total,
                    "ref": max(into.values(), default=Fraction(0)) / recv_rate})
    t = {k: sum((p[k] for p in per), Fraction(0)) for k in ("whole_flow", "fluid", "ref")}

    def x(k):
        return float(t[k] / t["ref"]) if t["ref"] else None

    return {"op": op, "size_bytes": int(size_bytes), "rates_bps": rates,
            "placement": list(placement), "phases": len(per),
            "cross_phases": sum(1 for p in per if p["cross_flows"]),
            "whole_flow_s": float(t["whole_flow"]), "fluid_s": float(t["fluid"]),
            "ref_s": float(t["ref"]),
            "whole_flow_x": x("whole_flow"), "fluid_x": x("fluid"),
            "whole_flow_exact": pinning_exact(phases, placement),
            "per_phase": [{"cross_flows": p["cross_flows"], "cross_bytes": float(p["cross_bytes"]),
                           "whole_flow_s": float(p["whole_flow"]), "fluid_s": float(p["fluid"]),
                           "ref_s": float(p["ref"])} for p in per]}


# ---- the command ----------------------------------------------------------

def fmt_x(v):
    return f"{v:.3f}" if v is not None else "-"


def rates_name(rates):
    for name, s in SETS.items():
        if parse_rates(s) == rates:
            return name
    return ""


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] + " " + __doc__.splitlines()[1],
        epilog="ops: " + ", ".join(OPS) + "; rate sets: "
        + ", ".join(f"{k} ({v})" for k, v in SETS.items()))
    ap.add_argument("--op", required=True, help="an op, a comma-separated list, or all")
    ap.add_argument("--rates", action="append", required=True,
                    help="the uplinks' rates (200M,100M,100M,50M) or a set's name; repeatable")
    ap.add_argument("--size", default="4M", help="bytes per rank (default 4M)")
    ap.add_argument("--placement", default=",".join(PLACEMENT),
                    help="rank 0's host, rank 1's, .. (default %(default)s)")
    ap.add_argument("--json", action="store_true", help="a JSON list of bounds() results")
    a = ap.parse_args(argv)
    try:
        ops = list(OPS) if a.op == "all" else [o for o in a.op.split(",") if o]
        for o in ops:
            if o not in OPS:
                raise BoundError(f"unknown op '{o}' (one of {', '.join(OPS)})")
        sets = [parse_rates(r) for r in a.rates]
        size = parse_size(a.size)
        placement = a.placement.split(",")
        res = [bounds(o, size, r, placement) for r in sets for o in ops]
    except BoundError as e:
        print(f"bound.py: {e}", file=sys.stderr)
        return 2
    if a.json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    if len(res) == 1:
        r = res[0]
        print(f"{r['op']} {a.size} ({r['size_bytes']} bytes per rank), uplinks "
              f"{','.join(str(c) for c in r['rates_bps'])} bit/s, ranks "
              f"{' '.join(r['placement'])}: {r['phases']} phases, {r['cross_phases']} "
              "with flows across leaf1 -> leaf2")
        print(f"  {'phase':>5} {'cross':>5} {'MiB':>7} {'whole_ms':>9} {'fluid_ms':>9} {'ref_ms':>9}")
        for i, p in enumerate(r["per_phase"]):
            print(f"  {i:>5} {p['cross_flows']:>5} {p['cross_bytes'] / 2**20:>7.3f} "
                  f"{p['whole_flow_s'] * 1e3:>9.2f} {p['fluid_s'] * 1e3:>9.2f} {p['ref_s'] * 1e3:>9.2f}")
        print(f"  whole-flow {r['whole_flow_s'] * 1e3:9.2f} ms = {fmt_x(r['whole_flow_x'])} x ref"
              + ("" if r["whole_flow_exact"] else " (a lower bound: phases share connections)"))
        print(f"  fluid      {r['fluid_s'] * 1e3:9.2f} ms = {fmt_x(r['fluid_x'])} x ref")
        print(f"  ref        {r['ref_s'] * 1e3:9.2f} ms")
        return 0
    print(f"size {a.size}, ranks {' '.join(res[0]['placement'])}; model ms and x ref")
    print(f"{'uplinks':<28} {'op':<23} {'whole_ms':>9} {'fluid_ms':>9} {'ref_ms':>9} "
          f"{'whole_x':>8} {'fluid_x':>8}")
    for r in res:
        up = ",".join(f"{c / 1e6:g}M" for c in r["rates_bps"])
        name = rates_name(r["rates_bps"])
        up = f"{name} {up}" if name else up
        print(f"{up:<28} {r['op']:<23} {r['whole_flow_s'] * 1e3:>9.2f} {r['fluid_s'] * 1e3:>9.2f} "
              f"{r['ref_s'] * 1e3:>9.2f} {fmt_x(r['whole_flow_x']):>8}"
              f"{'' if r['whole_flow_exact'] else '*'} {fmt_x(r['fluid_x']):>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
