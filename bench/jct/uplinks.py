#!/usr/bin/python3
"""What each uplink carried during a collective's steps, packet by packet.

    bench/jct/uplinks.py CELL_DIR [--bin-ms N] [--cap-mbit LIST]

Reads a cell recorded with `bench/jct/run.sh --capture` (up1..4.pcap: the
headers of the data packets each spine sent on toward leaf2, after the
uplink's TBF; clock.json; steps.json) and prints, for every measured step:
when each uplink carried the step's last byte (ms after the step began),
the share of the step each uplink was busy (a bin counts as busy when it
carried half the uplink's capacity or more), and how many connections sent
on each uplink in the average busy bin. An uplink idle while another still
works is capacity the placement left unused. docs/jct-bench.md.
"""
import argparse
import collections
import json
import os

from scapy.all import IP, TCP, PcapReader  # Debian's python3-scapy


def read_pcap(path):
    """(realtime_ns, flow 4-tuple, ip length) of every IPv4/TCP packet,
    decoded by scapy."""
    out = []
    with PcapReader(path) as pcap:
        for pkt in pcap:
            if IP in pkt and TCP in pkt:
                ip = pkt[IP]
                out.append((int(pkt.time * 1000000000),
                            (ip.src, ip.dst, ip[TCP].sport, ip[TCP].dport), ip.len))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cell")
    ap.add_argument("--bin-ms", type=float, default=5.0)
    ap.add_argument("--cap-mbit", default="100,100,100,100",
                    help="the uplinks' rates, Mbit/s (default 4 x 100)")
    a = ap.parse_args()
    caps = [float(c) * 1e6 for c in a.cap_mbit.split(",")]
    clock = json.load(open(os.path.join(a.cell, "clock.json")))
    offset = clock["realtime_ns"] - clock["monotonic_ns"]
    steps = json.load(open(os.path.join(a.cell, "steps.json")))["steps"]
    ups = []
    for n in range(1, 5):
        pkts = read_pcap(os.path.join(a.cell, f"up{n}.pcap"))
        ups.append([(t - offset, fl, ln) for t, fl, ln in pkts])
    bin_ns = int(a.bin_ms * 1e6)
    print(f"{a.cell}: {sum(map(len, ups))} packets; per step: last byte on "
          "each uplink (ms), busy share, connections per busy bin")
    spreads, idle_shares = [], []
    for i, st in enumerate(steps):
        t0, t1 = st["start_ns"], st["end_ns"]
        nbins = max(1, (t1 - t0 + bin_ns - 1) // bin_ns)
        last, busy, conns = [], [], []
        for n, pkts in enumerate(ups):
            inside = [(t, fl, ln) for t, fl, ln in pkts if t0 <= t <= t1]
            last.append((max(t for t, _, _ in inside) - t0) / 1e6 if inside else 0.0)
            bins = collections.defaultdict(lambda: [0, set()])
            for t, fl, ln in inside:
                b = bins[(t - t0) // bin_ns]
                b[0] += ln
                b[1].add(fl)
            full = caps[n] * bin_ns / 1e9 / 8 / 2
            busy_bins = [b for b in bins.values() if b[0] >= full]
            busy.append(len(busy_bins) / nbins)
            conns.append(sum(len(b[1]) for b in busy_bins) / len(busy_bins)
                         if busy_bins else 0.0)
        end = max(last)
        spreads.append(end - min(last))
        # capacity left idle before the last uplink finished
        idle_shares.append(sum(end - l for l in last) / (len(last) * end) if end else 0)
        print(f"  step {i:2d} {st['time_ns'] / 1e6:7.1f} ms: last "
              + "/".join(f"{l:.0f}" for l in last)
              + "  busy " + "/".join(f"{b * 100:.0f}" for b in busy) + " %"
              + "  conns " + "/".join(f"{c:.1f}" for c in conns))
    spreads.sort()
    idle_shares.sort()
    print(f"median spread between the first and last uplink to finish: "
          f"{spreads[len(spreads) // 2]:.0f} ms; capacity idle before the "
          f"last finished: median {idle_shares[len(idle_shares) // 2] * 100:.0f} %")


if __name__ == "__main__":
    main()
