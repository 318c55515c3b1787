#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Reading what the benchmarks leave behind, shared by their reports and
helpers (bench/*/report.py, bench/jct/*.py).

  import benchlib                 (bench/ on sys.path)
  benchlib.load(path, default)    a JSON file, or default if missing or bad
  benchlib.json_values(text)      every JSON value of concatenated text
  benchlib.percentile(v, p)       nearest rank
  benchlib.rate_bps("200M")       bit/s, as lab/lib.sh's rate_bps
  benchlib.size_bytes("4M")       bytes, K and M = 2^10 and 2^20 (run.sh --sizes)
  benchlib.map_port(snap, name)   a port of `xdpleaf stats --json` in a snapshot
  benchlib.qdisc_drops(snap, node, kind)
  benchlib.nstat_delta(c0, c1, host, key)

A snapshot is the JSON a run.sh writes of a lab's counters: "map" is
leaf1's `xdpleaf stats --json` (null in kernel fabrics), "tc" every
node's `tc -s -j qdisc show`, "nstat" every host's `nstat -asz -j`.
"""
import json
import math
import re
from fractions import Fraction


def load(path, default=None):
    """The JSON in path; default when it is missing or does not parse."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def json_values(text):
    """Every JSON value in text, in order (one-line samples, a pretty
    report after them). A value that does not parse raises ValueError
    once the values before it are out."""
    dec, i = json.JSONDecoder(), 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        v, i = dec.raw_decode(text, i)
        yield v


def percentile(v, p):
    """Nearest rank: the smallest value with at least p % of v at or below."""
    s = sorted(v)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


RATE_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def rate_bps(s):
    """'200M' -> 200000000, as lab/lib.sh's rate_bps: a whole number of
    bit/s of at least 1M, else ValueError."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]{1,6})?)([KMGT]?)", s.strip())
    v = Fraction(m.group(1)) * RATE_UNITS[m.group(2)] if m else None
    if v is None or v.denominator != 1 or v < 10**6:
        raise ValueError(f"bad rate '{s}' (a whole number of bit/s >= 1M, e.g. 200M)")
    return int(v)


def size_bytes(s):
    """'4M' -> 4194304 bytes, as run.sh's --sizes (K, M = 2^10, 2^20),
    else ValueError."""
    m = re.fullmatch(r"([1-9][0-9]*)([KM]?)", s.strip())
    if not m:
        raise ValueError(f"bad size '{s}' (bytes per rank, e.g. 4M)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20}[m.group(2)]


def map_port(snap, name):
    """The port called name in the snapshot's xdpleaf stats, or None."""
    for p in (snap.get("map") or {}).get("ports", []):
        if p.get("name") == name:
            return p
    return None


def qdisc_drops(snap, node, kind="tbf"):
    """Drops of node's qdiscs of that kind."""
    return sum(q.get("drops", 0) for q in snap["tc"].get(node, []) if q.get("kind") == kind)


def nstat_delta(c0, c1, host, key):
    """How far host's nstat counter key moved from snapshot c0 to c1."""
    a = c0["nstat"].get(host, {}).get("kernel", {})
    b = c1["nstat"].get(host, {}).get("kernel", {})
    return b.get(key, 0) - a.get(key, 0)
