#!/usr/bin/python3
# Frames host mode must not trust, crafted with scapy (independent of
# xdpleaf's own builders), sent on one interface of the namespace it runs in.
#
#   host_frames.py IFACE ce DMAC SRC DST QP [udp-len N] [opcode N] [zero-icrc] [count N]
#       CE-marked RoCEv2 RC SEND ONLY (ICRC right unless the UDP length is
#       forced or zero-icrc zeroes it), COUNT copies
#   host_frames.py IFACE cnp DMAC SRC DST QP [zero-icrc] [cut] [count N]
#       a CNP (opcode 0x81, BECN, 16 reserved bytes, ICRC); zero-icrc: the
#       ICRC field zero; cut: the frame ends after the BTH
#
# Needs Debian's python3-scapy: run it with /usr/bin/python3.
import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, UDP, Ether, Raw, get_if_hwaddr, raw, sendp  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402


def opts(args):
    o, i = {}, 0
    while i < len(args):
        if args[i] in ("zero-icrc", "cut"):
            o[args[i]] = True
            i += 1
        else:
            o[args[i]] = int(args[i + 1], 0)
            i += 2
    return o


def main(argv):
    iface, kind, dmac, src, dst, qp = argv[1:7]
    o = opts(argv[7:])
    eth = Ether(dst=dmac, src=get_if_hwaddr(iface))
    if kind == "ce":
        pkt = (eth / IP(src=src, dst=dst, tos=0x03) / UDP(sport=49152, dport=4791, chksum=0) /
               BTH(opcode=o.get("opcode", 0x04), dqpn=int(qp, 0), psn=1) / Raw(b"d" * 64))
        if "udp-len" in o:
            pkt[UDP].len = o["udp-len"]
    else:
        pkt = (eth / IP(src=src, dst=dst, tos=48 << 2) / UDP(sport=49152, dport=4791, chksum=0) /
               BTH(opcode=0x81, becn=1, pkey=0xffff, dqpn=int(qp, 0), psn=0) / Raw(b"\0" * 16))
        if "cut" in o:
            b = raw(pkt)[:14 + 20 + 8 + 12]
            pkt = Ether(b)
            pkt[IP].len = 20 + 8 + 12
            pkt[UDP].len = 8 + 12
            del pkt[IP].chksum
    if "zero-icrc" in o and "cut" not in o:
        b = bytearray(raw(pkt))
        b[-4:] = b"\0\0\0\0"
        pkt = Ether(bytes(b))
    sendp([pkt] * o.get("count", 1), iface=iface, verbose=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
