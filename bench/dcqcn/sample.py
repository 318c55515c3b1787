#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Sample the DCQCN loop's BPF state while bench/dcqcn/run.sh runs.

  bench/dcqcn/sample.py --out DIR --leaf PINDIR --port IF [--rp NAME=PINDIR ...]
                  [--queue-every MS] [--rate-every MS] [--max-seconds S]

Reads pinned maps directly (bpf(2) through libbpf, no bpftool per sample):

  DIR/queue.csv   every --queue-every ms (default 1): mono_ns, the leaf
                  port's phantom-queue length in bytes (from its vtime, the
                  way include/ecn.h computes it), and the port's cumulative
                  counters summed over classes and CPUs: enq_packets,
                  enq_bytes, marked, dropped
  DIR/rates.csv   every --rate-every ms (default 10), for every flow in each
                  --rp host's rp_rates: mono_ns, sender, qp, rate_bps (the
                  published rate gen paces by) and, from rp_flows, rt_bps,
                  alpha (as a fraction) and cnps (matched so far)
  DIR/hosts.csv   every --rate-every ms, for every --rp and --np host: mono_ns,
                  host and its host_stats (summed over CPUs): ce_seen,
                  cnps_sent, cnps_suppressed, cnps_received, cnps_unknown

mono_ns is CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns() and of
`xdpleaf sink --interval`'s samples. Prints "dcqcn_sample: ready" to stderr
once every map is open, stops on SIGTERM/SIGINT (or after --max-seconds).
Map layouts mirror include/xdpleaf.h and include/host.h; each map's key and
value sizes are checked against them first.
"""
import argparse
import ctypes
import os
import resource
import signal
import sys
import time

LIB = ctypes.CDLL("libbpf.so.1", use_errno=True)
LIB.bpf_obj_get.argtypes = [ctypes.c_char_p]
LIB.bpf_map_lookup_elem.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
LIB.bpf_map_get_next_key.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
LIB.bpf_obj_get_info_by_fd.argtypes = [ctypes.c_int, ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_uint32)]

XL_MAX_CLASSES = 8          # include/ecn.h
XL_QHIST_BUCKETS = 24
VT_SHIFT = 6                # vtime is in 1/64 ns


class Port(ctypes.Structure):  # struct xl_port (include/xdpleaf.h)
    _fields_ = [("ifindex", ctypes.c_uint32), ("slot", ctypes.c_uint32),
                ("role", ctypes.c_uint32), ("group", ctypes.c_uint32),
                ("mac", ctypes.c_uint8 * 6), ("has_nexthop4", ctypes.c_uint8),
                ("has_nexthop6", ctypes.c_uint8), ("nexthop4", ctypes.c_uint8 * 4),
                ("nexthop6", ctypes.c_uint8 * 16), ("name", ctypes.c_char * 16),
                ("line_rate_bps", ctypes.c_uint64), ("drain_bps", ctypes.c_uint64),
                ("gamma_ppm", ctypes.c_uint32), ("buffer_bytes", ctypes.c_uint32),
                ("overflow", ctypes.c_uint32), ("pad", ctypes.c_uint32)]


class QueueStats(ctypes.Structure):  # struct xl_queue_stats
    _fields_ = [("enq_packets", ctypes.c_uint64), ("enq_bytes", ctypes.c_uint64),
                ("marked", ctypes.c_uint64), ("dropped", ctypes.c_uint64),
                ("peak_bytes", ctypes.c_uint64),
                ("hist", ctypes.c_uint64 * XL_QHIST_BUCKETS),
                ("port", ctypes.c_char * 16), ("class_name", ctypes.c_char * 16)]


class QpKey(ctypes.Structure):  # struct xl_qp_key (include/host.h)
    _fields_ = [("addr", ctypes.c_uint8 * 16), ("family", ctypes.c_uint32),
                ("qp", ctypes.c_uint32)]


class RpRate(ctypes.Structure):  # struct xl_rp_rate
    _fields_ = [("rate_bps", ctypes.c_uint64), ("updated_ns", ctypes.c_uint64)]


HOST_FIELDS = ["ce_seen", "cnps_sent", "cnps_suppressed", "cnps_received",
               "cnps_unknown"]  # the first fields of struct xl_host_stats


class DcqcnState(ctypes.Structure):  # struct xl_dcqcn_state (include/dcqcn.h)
    _fields_ = [("rc", ctypes.c_uint64), ("rt", ctypes.c_uint64),
                ("alpha", ctypes.c_uint64), ("alpha_due", ctypes.c_uint64),
                ("inc_due", ctypes.c_uint64), ("dec_due", ctypes.c_uint64),
                ("bytes_left", ctypes.c_int64), ("b_cnt", ctypes.c_uint32),
                ("t_cnt", ctypes.c_uint32), ("phase", ctypes.c_uint8),
                ("cnp_seen", ctypes.c_uint8), ("alpha_cnp", ctypes.c_uint8),
                ("dec_cnp", ctypes.c_uint8), ("pad", ctypes.c_uint32)]


class RpFlow(ctypes.Structure):  # struct xl_rp_flow (its leading fields)
    _fields_ = [("lock", ctypes.c_uint32), ("version", ctypes.c_uint32),
                ("s", DcqcnState), ("last_ns", ctypes.c_uint64),
                ("cnps", ctypes.c_uint64), ("bytes", ctypes.c_uint64)]


def die(msg):
    print("dcqcn_sample: " + msg, file=sys.stderr)
    sys.exit(1)


def ncpus_possible():
    with open("/sys/devices/system/cpu/possible") as f:
        n = 0
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            n = max(n, int(hi or lo) + 1)
        return n


class Map:
    def __init__(self, path, key_size, value_size, exact=True):
        self.fd = LIB.bpf_obj_get(path.encode())
        if self.fd < 0:
            die("cannot open %s: %s" % (path, os.strerror(ctypes.get_errno())))
        info = (ctypes.c_uint8 * 256)()
        ln = ctypes.c_uint32(256)
        if LIB.bpf_obj_get_info_by_fd(self.fd, info, ctypes.byref(ln)):
            die("cannot read map info of %s" % path)
        u32 = ctypes.cast(info, ctypes.POINTER(ctypes.c_uint32))
        self.key_size, self.value_size = u32[2], u32[3]
        if self.key_size != key_size or (self.value_size != value_size if exact
                                         else self.value_size < value_size):
            die("%s: key/value sizes %d/%d, expected %d/%d (layout changed? "
                "update this script)" % (path, self.key_size, self.value_size,
                                          key_size, value_size))
        self.buf = (ctypes.c_uint8 * max(self.value_size, 8))()

    def lookup(self, key):
        if LIB.bpf_map_lookup_elem(self.fd, ctypes.byref(key), self.buf):
            return None
        return self.buf

    def keys(self, ktype):
        out, prev, nxt = [], None, ktype()
        while LIB.bpf_map_get_next_key(self.fd, ctypes.byref(prev) if prev else None,
                                       ctypes.byref(nxt)) == 0:
            out.append(nxt)
            prev, nxt = nxt, ktype()
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--leaf", required=True, help="leaf instance pin dir")
    ap.add_argument("--port", required=True)
    ap.add_argument("--rp", action="append", default=[], help="NAME=PINDIR")
    ap.add_argument("--np", action="append", default=[], help="NAME=PINDIR")
    ap.add_argument("--queue-every", type=float, default=1.0)
    ap.add_argument("--rate-every", type=float, default=10.0)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    a = ap.parse_args()

    ports = Map(a.leaf + "/ports", 4, ctypes.sizeof(Port))
    port = None
    for k in ports.keys(ctypes.c_uint32):
        v = ports.lookup(k)
        if v is not None:
            p = Port.from_buffer_copy(v)
            if p.name.decode() == a.port:
                port = p
    if port is None or not port.drain_bps:
        die("leaf port %s not found or has no rate" % a.port)
    queues = Map(a.leaf + "/queues", 4, 8)
    ncpu = ncpus_possible()
    qstats = Map(a.leaf + "/queue_stats", 4, ctypes.sizeof(QueueStats))
    qs_size = (ctypes.sizeof(QueueStats) + 7) // 8 * 8
    qs_buf = (ctypes.c_uint8 * (qs_size * ncpu))()
    rps = []
    for spec in a.rp:
        name, _, d = spec.partition("=")
        rps.append((name, Map(d + "/rp_rates", ctypes.sizeof(QpKey), ctypes.sizeof(RpRate)),
                    Map(d + "/rp_flows", ctypes.sizeof(QpKey), ctypes.sizeof(RpFlow),
                        exact=False)))

    hosts = []
    for spec in a.np + a.rp:
        name, _, d = spec.partition("=")
        m = Map(d + "/host_stats", 4, 8 * len(HOST_FIELDS), exact=False)
        vs = (m.value_size + 7) // 8 * 8
        hosts.append((name, m, vs, (ctypes.c_uint8 * (vs * ncpu))()))

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    os.makedirs(a.out, exist_ok=True)
    fq = open(os.path.join(a.out, "queue.csv"), "w")
    fr = open(os.path.join(a.out, "rates.csv"), "w")
    fq.write("mono_ns,queue_bytes,enq_packets,enq_bytes,marked,dropped\n")
    fr.write("mono_ns,sender,qp,rate_bps,rt_bps,alpha,cnps\n")
    fh = open(os.path.join(a.out, "hosts.csv"), "w")
    fh.write("mono_ns,host," + ",".join(HOST_FIELDS) + "\n")
    slot = ctypes.c_uint32(port.slot)
    vt = ctypes.c_uint64()
    drain = port.drain_bps
    mono = time.clock_gettime_ns
    CM = time.CLOCK_MONOTONIC
    q_every = int(a.queue_every * 1e6)
    r_every = int(a.rate_every * 1e6)
    start = mono(CM)
    next_q = next_r = start
    print("dcqcn_sample: ready (port %s slot %d, %d CPUs, %d RP hosts)"
          % (a.port, port.slot, ncpu, len(rps)), file=sys.stderr, flush=True)
    key = ctypes.c_uint32()
    while not stop:
        now = mono(CM)
        if now - start > a.max_seconds * 1e9:
            break
        if now >= next_q:
            LIB.bpf_map_lookup_elem(queues.fd, ctypes.byref(slot), ctypes.byref(vt))
            t = mono(CM)
            ahead = vt.value - (t << VT_SHIFT)
            qbytes = ahead * drain // (8000000000 << VT_SHIFT) if ahead > 0 else 0
            tot = [0, 0, 0, 0]
            for c in range(XL_MAX_CLASSES):
                key.value = port.slot * XL_MAX_CLASSES + c
                if LIB.bpf_map_lookup_elem(qstats.fd, ctypes.byref(key), qs_buf):
                    continue
                for cpu in range(ncpu):
                    s = QueueStats.from_buffer(qs_buf, cpu * qs_size)
                    tot[0] += s.enq_packets
                    tot[1] += s.enq_bytes
                    tot[2] += s.marked
                    tot[3] += s.dropped
            fq.write("%d,%d,%d,%d,%d,%d\n" % (t, qbytes, *tot))
            next_q += q_every
            if next_q < now:
                next_q = now + q_every
        if now >= next_r:
            for name, rates, flows in rps:
                for k in rates.keys(QpKey):
                    v = rates.lookup(k)
                    if v is None:
                        continue
                    r = RpRate.from_buffer_copy(v)
                    f = flows.lookup(k)
                    rt, alpha, cnps = "", "", ""
                    if f is not None:
                        fl = RpFlow.from_buffer_copy(f)
                        rt, alpha, cnps = fl.s.rt, "%.6f" % (fl.s.alpha / 2**32), fl.cnps
                    fr.write("%d,%s,%d,%d,%s,%s,%s\n" % (now, name, k.qp, r.rate_bps,
                                                         rt, alpha, cnps))
            for name, m, vs, buf in hosts:
                key.value = 0
                if LIB.bpf_map_lookup_elem(m.fd, ctypes.byref(key), buf):
                    continue
                tot = [0] * len(HOST_FIELDS)
                for cpu in range(ncpu):
                    v = (ctypes.c_uint64 * len(HOST_FIELDS)).from_buffer(buf, cpu * vs)
                    for i in range(len(HOST_FIELDS)):
                        tot[i] += v[i]
                fh.write("%d,%s,%s\n" % (now, name, ",".join(map(str, tot))))
            next_r += r_every
            if next_r < now:
                next_r = now + r_every
        wake = min(next_q, next_r) - mono(CM)
        if wake > 0:
            time.sleep(wake / 1e9)
    fq.close()
    fr.close()
    fh.close()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print("dcqcn_sample: done, %.2f s of CPU in %.2f s" % (
        ru.ru_utime + ru.ru_stime, (mono(CM) - start) / 1e9), file=sys.stderr)


if __name__ == "__main__":
    main()
