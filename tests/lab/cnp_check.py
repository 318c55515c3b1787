#!/usr/bin/python3
# Decode RoCEv2 CNPs from a pcap with scapy (scapy.contrib.roce) and check
# every field against IBTA Annex A17.9.3 and docs/dcqcn-spec.md,
# independently of xdpleaf's C code (bpf/cnp.h builds them).
#
# Usage: cnp_check.py [--expect-bad] FILE.pcap EXPECT [EXPECT ...]
# One EXPECT per packet of the file, in order: comma-separated key=value,
# keys: family (4|6), src, dst (the CNP's IP addresses: the marked data
# packet's destination and source), smac, dmac, vlan (802.1Q VID, if
# tagged), sport (UDP source port), qp (DestQP), pkey, dscp.
# Prints one JSON object per packet: the decoded fields, "errors" (empty
# when every check passed). Exit status 0 if every packet passed and the
# file holds exactly one packet per EXPECT, 1 otherwise. With --expect-bad
# (a test of the checker itself): 0 if every packet fails some check.
#
# Checked: Ethernet addresses (and tag); IPv4: version 4, IHL 5, total
# length 60, DSCP, ECN Not-ECT, TTL 64, protocol UDP, header checksum valid;
# IPv6: traffic class DSCP / Not-ECT, flow label 0, payload length 40, next
# header UDP, hop limit 64; UDP: source port, destination 4791, length 40,
# checksum 0 (IPv4) or valid (IPv6); BTH: opcode 0x81 (CNP), SE/M/PadCnt/TVer
# 0, P_Key, FECN 0, BECN 1, reserved 0, DestQP, AckReq 0, PSN 0; the 16
# reserved bytes all zero; frame length; ICRC: computed twice, by scapy
# (IPv4: BTH.compute_icrc) and from the IBTA rule here (both families),
# each must equal the wire value.
#
# Needs Debian's python3-scapy: run it with /usr/bin/python3.
import json
import logging
import struct
import sys
import zlib

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, UDP, Dot1Q, IPv6, Ether, rdpcap, raw  # noqa: E402
from scapy.contrib.roce import BTH, CNPPadding  # noqa: E402


def icrc_rule(pkt):
    """ICRC from the IBTA rule: 8 bytes of 0xFF, the IP header with the
    variant fields as ones, UDP with its checksum as ones, BTH with byte 4
    as ones, the rest; CRC-32 (zlib's), least significant byte first."""
    if IP in pkt:
        ip = bytearray(raw(pkt[IP]))
        hl = (ip[0] & 0x0F) * 4
        ip[1] = 0xFF               # DSCP, ECN
        ip[8] = 0xFF               # TTL
        ip[10] = ip[11] = 0xFF     # header checksum
    else:
        ip = bytearray(raw(pkt[IPv6]))
        hl = 40
        ip[0] |= 0x0F              # traffic class, flow label, hop limit
        ip[1] = ip[2] = ip[3] = 0xFF
        ip[7] = 0xFF
    ip[hl + 6] = ip[hl + 7] = 0xFF  # UDP checksum
    ip[hl + 8 + 4] = 0xFF           # BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(ip[:-4])) & 0xFFFFFFFF


def parse_expect(s):
    e = {}
    for kv in s.split(","):
        k, v = kv.split("=", 1)
        e[k] = v
    return e


def num(v):
    return int(v, 0)


def check(p, e):
    err = []
    out = {}
    b = raw(p)
    out["len"] = len(b)

    def want(name, got, exp):
        out[name] = got
        if got != exp:
            err.append("%s: %r, expected %r" % (name, got, exp))

    if Ether not in p or UDP not in p or BTH not in p:
        return out, ["not Ethernet/IP/UDP/BTH: " + p.summary()]
    fam = num(e.get("family", "4"))
    l2 = 14
    if "dmac" in e:
        want("dmac", p[Ether].dst, e["dmac"].lower())
    if "smac" in e:
        want("smac", p[Ether].src, e["smac"].lower())
    if "vlan" in e:
        l2 = 18
        if Dot1Q not in p:
            err.append("no 802.1Q tag")
        else:
            want("vlan", p[Dot1Q].vlan, num(e["vlan"]))
    elif Dot1Q in p:
        err.append("unexpected 802.1Q tag")
    if fam == 4:
        if IP not in p:
            return out, err + ["not IPv4"]
        ip = p[IP]
        out["family"] = 4
        want("ihl", ip.ihl, 5)
        want("ip_len", ip.len, 60)
        want("dscp", ip.tos >> 2, num(e.get("dscp", "48")))
        want("ecn", ip.tos & 3, 0)
        want("ttl", ip.ttl, 64)
        want("proto", ip.proto, 17)
        c = ip.copy()
        c.chksum = None
        want("ip_csum_ok", IP(raw(c)).chksum == ip.chksum, True)
        want("src", ip.src, e["src"])
        want("dst", ip.dst, e["dst"])
        want("udp_csum", p[UDP].chksum, 0)
        want("frame_len", len(b), l2 + 20 + 40)
    else:
        if IPv6 not in p:
            return out, err + ["not IPv6"]
        ip = p[IPv6]
        out["family"] = 6
        want("dscp", ip.tc >> 2, num(e.get("dscp", "48")))
        want("ecn", ip.tc & 3, 0)
        want("flow_label", ip.fl, 0)
        want("plen", ip.plen, 40)
        want("nh", ip.nh, 17)
        want("hlim", ip.hlim, 64)
        want("src", ip.src, e["src"])
        want("dst", ip.dst, e["dst"])
        q = p[IPv6].copy()
        q[UDP].chksum = None
        want("udp_csum_ok", IPv6(raw(q))[UDP].chksum == p[UDP].chksum, True)
        want("frame_len", len(b), l2 + 40 + 40)
    u = p[UDP]
    if "sport" in e:
        want("sport", u.sport, num(e["sport"]))
    want("dport", u.dport, 4791)
    want("udp_len", u.len, 40)
    t = p[BTH]
    want("opcode", t.opcode, 0x81)
    want("se_m_pad_tver", (t.solicited, t.migreq, t.padcount, t.version),
         (0, 0, 0, 0))
    want("pkey", t.pkey, num(e.get("pkey", "0xffff")))
    want("fecn", t.fecn, 0)
    want("becn", t.becn, 1)
    want("resv6", t.resv6, 0)
    if "qp" in e:
        want("qp", t.dqpn, num(e["qp"]))
    want("ackreq", t.ackreq, 0)
    want("resv7", t.resv7, 0)
    want("psn", t.psn, 0)
    if CNPPadding not in p:
        err.append("no CNP padding decoded")
    else:
        want("reserved", (p[CNPPadding].reserved1, p[CNPPadding].reserved2),
             (0, 0))
    # the 16 bytes after the BTH, straight from the wire as well
    bth_off = l2 + (20 if fam == 4 else 40) + 8
    want("reserved_bytes", b[bth_off + 12:bth_off + 28].hex(), "00" * 16)
    wire = struct.unpack("<I", b[-4:])[0]
    out["icrc"] = "0x%08x" % wire
    rule = icrc_rule(p)
    if rule != wire:
        err.append("ICRC 0x%08x, the IBTA rule gives 0x%08x" % (wire, rule))
    if fam == 4:
        q = p.copy()
        q[BTH].icrc = None
        sc = struct.unpack("<I", raw(q)[-4:])[0]
        if sc != wire:
            err.append("ICRC 0x%08x, scapy computes 0x%08x" % (wire, sc))
    out["icrc_ok"] = not any(x.startswith("ICRC") for x in err)
    return out, err


def main():
    args = sys.argv[1:]
    bad = bool(args) and args[0] == "--expect-bad"
    if bad:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: cnp_check.py [--expect-bad] FILE.pcap "
                         "EXPECT...\n")
        return 2
    pkts = rdpcap(args[0])
    exps = [parse_expect(s) for s in args[1:]]
    ok = len(pkts) == len(exps)
    if not ok:
        print(json.dumps({"errors": ["%d packets, %d expected" %
                                     (len(pkts), len(exps))]}))
    for p, e in zip(pkts, exps):
        out, err = check(p, e)
        out["errors"] = err
        ok = ok and bool(err) == bad
        print(json.dumps(out, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
