#!/usr/bin/python3
# Decode RoCEv2 packets from a pcap with scapy (scapy.contrib.roce) and check
# their ICRC and checksums independently of xdpleaf's C code. Prints one
# JSON object per RoCEv2 packet:
#   {"family", "opcode", "qp", "psn", "sport", "icrc_ok", "ip_csum_ok",
#    "udp_csum_ok", "len"}
# IPv4: the ICRC is recomputed by scapy itself (BTH.compute_icrc: the
# packet with the ICRC field cleared, rebuilt). IPv6: scapy's contrib.roce
# does not compute it for IPv6, so this script does, from the IBTA rule
# (8 bytes of 0xFF, then the IPv6 header with traffic class, flow label and
# hop limit set to ones, the UDP header with its checksum set to ones, the
# BTH with its byte 4 set to ones, the rest unchanged; CRC-32 as zlib's,
# sent least significant byte first).
# Usage: roce_check.py FILE.pcap [MAX]
# Needs Debian's python3-scapy: run it with /usr/bin/python3.
import json
import struct
import sys
import zlib

from scapy.all import IP, UDP, IPv6, Ether, rdpcap, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402


def icrc6(pkt):
    ip6 = bytearray(raw(pkt[IPv6]))
    ip6[0] |= 0x0F
    ip6[1] = ip6[2] = ip6[3] = 0xFF
    ip6[7] = 0xFF
    ip6[46] = ip6[47] = 0xFF  # UDP checksum (40 + 6)
    ip6[48 + 4] = 0xFF  # BTH byte 4
    body = bytes(ip6[:-4])
    return zlib.crc32(b"\xff" * 8 + body) & 0xFFFFFFFF


def main():
    pkts = rdpcap(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else len(pkts)
    for p in pkts[:limit]:
        if BTH not in p or UDP not in p or Ether not in p:
            continue
        b = p[BTH]
        wire_icrc = struct.unpack("<I", raw(p)[-4:])[0]
        out = {
            "opcode": b.opcode, "qp": b.dqpn, "psn": b.psn,
            "sport": p[UDP].sport, "len": len(raw(p)),
        }
        if IP in p:
            q = p.copy()
            q[BTH].icrc = None
            expect = struct.unpack("<I", raw(q)[-4:])[0]
            ip = p[IP].copy()
            ip.chksum = None
            out["family"] = 4
            out["ip_csum_ok"] = IP(raw(ip)).chksum == p[IP].chksum
            out["udp_csum_ok"] = p[UDP].chksum == 0
        else:
            expect = icrc6(p)
            u = p[UDP].copy()
            u.chksum = None
            q = p.copy()
            q[UDP].chksum = None
            out["family"] = 6
            out["ip_csum_ok"] = True
            out["udp_csum_ok"] = IPv6(raw(q[IPv6]))[UDP].chksum == p[UDP].chksum
        out["icrc_ok"] = expect == wire_icrc
        print(json.dumps(out))


if __name__ == "__main__":
    main()
