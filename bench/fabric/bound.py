#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The step time a balancer could reach in a fabric simulator cell, under
bench/jct/bound.py's fluid model, over the rates the cell's links had
(xdpleaf-fabric's JSON: leaf_up_bps, leaf_down_bps, host_up_bps,
host_down_bps, hosts_per_leaf, channels).

  import bound; bound.model_times(cell) -> {"whole_flow_s", "fluid_s", "exact"}

Rank r sits on leaf r mod L (the simulator's order). A phase's flows
(bench/jct/bound.py's phases of the same algorithm, each connection split
over the cell's channels) cross from their source leaf to their destination
leaf over one spine each; spine s carries a flow from leaf a to leaf b at
most at min(a's link to s, s's link to b). Per phase, the longest of:

  whole_flow  per pair of leaves, each flow whole on one spine
              (bench/jct/bound.py's exact time for equal flows);
  fluid       per pair of leaves, the bits over the sum of its paths;
  hosts       (both) each host's bits out over its link to the leaf,
              and in over the leaf's port to it.

A step is the sum of its phases. Taken over the reference cell's own
rates the same sum is the reference's time, so a cell's bound is
whole_flow_s (or fluid_s) over the reference's. Pairs of leaves are taken
apart: `exact` is false when two pairs of a phase share a leaf's side (a
source leaf sending to two leaves, or a leaf receiving from two), where
they would also share links and the figure is a lower bound. In every
algorithm here each leaf sends to one leaf per phase (ranks alternate
between leaves; a partner r XOR 2^i sits on leaf (r mod L) XOR 2^i while
2^i < L, a power of two, and on r's own leaf after).
"""
import importlib.util
import os
from fractions import Fraction

# bench/jct/bound.py, by its path: this module has the same name
_spec = importlib.util.spec_from_file_location(
    "jct_bound", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jct", "bound.py"))
jct_bound = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jct_bound)

PHASES = {"allreduce": jct_bound.ring, "alltoall": jct_bound.pairwise,
          "allreduce-recdbl": jct_bound.recursive_doubling,
          "allreduce-rabenseifner": jct_bound.rabenseifner}


def model_times(cell):
    """The cell's whole-flow and fluid step times in seconds (module doc)."""
    op = cell["collective"]
    if op not in PHASES:
        raise jct_bound.BoundError(f"no phases for collective '{op}'")
    leaves, ch = cell["leaves"], max(1, cell.get("channels", 1))
    up, down = cell["leaf_up_bps"], cell["leaf_down_bps"]
    host_up, host_down = cell["host_up_bps"], cell["host_down_bps"]
    n = cell["hosts"]
    total = {"whole_flow": Fraction(0), "fluid": Fraction(0)}
    exact = True
    for ph in PHASES[op](n, cell["bytes"]):
        pairs, out, into = {}, {}, {}
        for s, d, b in ph:
            bits = 8 * b
            out[s] = out.get(s, 0) + bits
            into[d] = into.get(d, 0) + bits
            ls, ld = s % leaves, d % leaves
            if ls != ld:
                pairs.setdefault((ls, ld), []).extend([bits / ch] * ch)
        hosts = max([Fraction(v) / host_up[r % leaves] for r, v in out.items()] +
                    [Fraction(v) / host_down[r % leaves] for r, v in into.items()], default=0)
        srcs = [a for a, _ in pairs]
        dsts = [b for _, b in pairs]
        exact &= len(set(srcs)) == len(srcs) and len(set(dsts)) == len(dsts)
        whole, fluid = hosts, hosts
        for (a, b), flows in pairs.items():
            caps = [min(u, v) for u, v in zip(up[a], down[b])]
            whole = max(whole, jct_bound.whole_flow_time(flows, caps))
            fluid = max(fluid, Fraction(sum(flows)) / sum(caps))
        total["whole_flow"] += whole
        total["fluid"] += fluid
    return {"whole_flow_s": float(total["whole_flow"]), "fluid_s": float(total["fluid"]),
            "exact": exact}
