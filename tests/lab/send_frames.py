#!/usr/bin/python3
# Craft and send frames the event tests need, with scapy (independent of
# xdpleaf's own generator), on one interface of the namespace it runs in.
#
#   send_frames.py IFACE DMAC bad-ip4 SRC DST N
#       N IPv4 frames whose total length runs past the frame (bad_ip4)
#   send_frames.py IFACE DMAC roce SRC DST QP PSN[,PSN...]
#       one RoCEv2 RC SEND ONLY per PSN, in that order, UDP sport 49152
#   send_frames.py IFACE DMAC nak SRC DST QP
#       one RoCEv2 ACKNOWLEDGE with an AETH NAK syndrome (0x60)
#   send_frames.py IFACE DMAC udp-flows SRC DST N
#       one UDP datagram on each of N flows (source ports 10000..)
#   send_frames.py IFACE - pfc PRIORITY QUANTA N INTERVAL
#       N PFC frames (01:80:c2:00:00:01, 0x8808, opcode 0x0101) pausing
#       PRIORITY for QUANTA, INTERVAL seconds apart; prints the wall
#       clock (ns) at which the last one was sent
#
# Needs Debian's python3-scapy: run it with /usr/bin/python3.
import logging
import struct
import sys
import time

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, UDP, Ether, Raw, get_if_hwaddr, sendp  # noqa: E402
from scapy.contrib.roce import AETH, BTH  # noqa: E402


def roce(dmac, smac, src, dst, opcode, qp, psn, payload):
    """scapy's BTH appends the ICRC after its payload itself."""
    return (Ether(dst=dmac, src=smac) / IP(src=src, dst=dst, ttl=64) /
            UDP(sport=49152, dport=4791, chksum=0) /
            BTH(opcode=opcode, dqpn=qp, psn=psn) / payload)


def main(argv):
    iface, dmac, kind = argv[1], argv[2], argv[3]
    smac = get_if_hwaddr(iface)
    frames = []
    if kind == "bad-ip4":
        src, dst, n = argv[4], argv[5], int(argv[6])
        p = Ether(dst=dmac, src=smac) / IP(src=src, dst=dst, len=1400) / UDP(sport=1, dport=2)
        frames = [p] * n
    elif kind == "udp-flows":
        src, dst, n = argv[4], argv[5], int(argv[6])
        frames = [Ether(dst=dmac, src=smac) / IP(src=src, dst=dst) /
                  UDP(sport=10000 + i, dport=9) / Raw(b"f") for i in range(n)]
    elif kind == "roce":
        src, dst, qp = argv[4], argv[5], int(argv[6], 0)
        frames = [roce(dmac, smac, src, dst, 0x04, qp, int(psn), Raw(b"x" * 32))
                  for psn in argv[7].split(",")]
    elif kind == "nak":
        src, dst, qp = argv[4], argv[5], int(argv[6], 0)
        frames = [roce(dmac, smac, src, dst, 0x11, qp, 7, AETH(syndrome=0x60, msn=1))]
    elif kind == "pfc":
        prio, quanta, n, gap = int(argv[4]), int(argv[5]), int(argv[6]), float(argv[7])
        times = [0] * 8
        times[prio] = quanta
        body = struct.pack("!HH8H", 0x0101, 1 << prio, *times) + b"\0" * 26
        f = Ether(dst="01:80:c2:00:00:01", src=smac, type=0x8808) / Raw(body)
        for i in range(n):
            if i:
                time.sleep(gap)
            sendp(f, iface=iface, verbose=False)
        # when the last pause began, not when this process ends: a busy
        # machine may take long to tear python down
        print(time.time_ns())
        return 0
    else:
        print(f"unknown kind {kind}", file=sys.stderr)
        return 2
    sendp(frames, iface=iface, verbose=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
