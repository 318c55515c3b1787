#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Synchronized collective steps over TCP: workload (5) of
bench/balance/run.sh (docs/load-balancing-bench.md).

Every sender keeps several persistent TCP connections from its one IP
address to servers in the receiver namespaces. A step: every sender starts
at the same instant and writes a fixed number of bytes on each of its
connections; the step ends when the last byte of every connection has
reached its server. Step time = that last arrival - the common start.

Three roles, one file:

  bench/balance/steps.py server --port N
      In a receiver namespace. Accepts connections; each begins with a
      32-byte header "<conn id> <bytes per step>". Prints "listening" once
      ready, then "done <conn id> <step> <t_ns>" each time a connection's
      byte count reaches the end of a step. Exits when stdin closes.

  bench/balance/steps.py sender --targets IP:PORT,... --ids ID,... --bytes N
      In a sender namespace. Opens one connection per target, prints
      "ready", then for every stdin line "go <step> <t0_ns>" sleeps until
      t0 and writes N bytes on every connection at once (one thread each);
      prints "sent <step> <t_ns>" when all are written. Exits on EOF.

  bench/balance/steps.py coord --prefix P ...
      In the root namespace: starts the servers and senders with
      `nsenter --net=/run/netns/P-NODE`, runs the steps, writes JSON.

Times are CLOCK_MONOTONIC, which network namespaces share, so a start
time chosen by the coordinator means the same instant everywhere.
"""
import argparse
import json
import os
import queue
import selectors
import socket
import subprocess
import sys
import threading
import time

HDR = 32  # connection header length
SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def sleep_until(t_ns):
    """Sleep coarsely, then spin the last half millisecond."""
    while True:
        left = t_ns - now_ns()
        if left <= 0:
            return
        if left > 600_000:
            time.sleep((left - 500_000) / 1e9)


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# ---- server ---------------------------------------------------------------

def server(args):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(256)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, "listen")
    sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    buf = bytearray(1 << 20)
    say("listening")
    while True:
        for key, _ in sel.select():
            if key.data == "stdin":
                if not sys.stdin.readline():
                    return 0
            elif key.data == "listen":
                c, _ = ls.accept()
                c.setblocking(False)
                sel.register(c, selectors.EVENT_READ,
                             {"hdr": b"", "id": None, "per": 0, "got": 0, "step": 0})
            else:
                st, c = key.data, key.fileobj
                try:
                    n = c.recv_into(buf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    n = 0
                t = now_ns()
                if n == 0:
                    sel.unregister(c)
                    c.close()
                    continue
                data = memoryview(buf)[:n]
                if st["id"] is None:
                    need = HDR - len(st["hdr"])
                    st["hdr"] += bytes(data[:need])
                    data = data[need:]
                    if len(st["hdr"]) < HDR:
                        continue
                    cid, per = st["hdr"].decode().split()
                    st["id"], st["per"] = cid, int(per)
                st["got"] += len(data)
                while st["got"] >= (st["step"] + 1) * st["per"]:
                    st["step"] += 1
                    say(f"done {st['id']} {st['step']} {t}")


# ---- sender ---------------------------------------------------------------

def sender(args):
    targets = args.targets.split(",")
    ids = args.ids.split(",")
    if len(ids) != len(targets):
        sys.exit("balance_steps.py sender: --ids and --targets differ in length")
    payload = bytes(args.bytes)
    socks = []
    for tgt, cid in zip(targets, ids):
        host, port = tgt.rsplit(":", 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if args.cc:
            # per socket: a namespace may only pick from the host's
            # tcp_allowed_congestion_control by sysctl, root may pick any
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
        s.settimeout(10)
        s.connect((host, int(port)))
        s.settimeout(None)
        if args.pace_bps:
            # SO_MAX_PACING_RATE also turns on TCP's own pacing (no fq
            # needed): the connection leaves the host at most this fast
            s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE,
                         int(args.pace_bps / 8))
        s.sendall(f"{cid} {args.bytes}".ljust(HDR).encode())
        socks.append(s)
    todo = [queue.Queue() for _ in socks]
    sent = queue.Queue()

    def writer(s, q):
        while True:
            step = q.get()
            if step is None:
                return
            s.sendall(payload)
            sent.put(step)

    threads = [threading.Thread(target=writer, args=(s, q), daemon=True)
               for s, q in zip(socks, todo)]
    for th in threads:
        th.start()
    say("ready")
    for line in sys.stdin:
        word = line.split()
        if not word or word[0] != "go":
            break
        step, t0 = int(word[1]), int(word[2])
        sleep_until(t0)
        for q in todo:
            q.put(step)
        for _ in socks:
            sent.get()
        say(f"sent {step} {now_ns()}")
    for q in todo:
        q.put(None)
    for s in socks:
        s.close()
    return 0


# ---- coordinator ----------------------------------------------------------

class Child:
    """A role in a namespace, talked to over its stdin/stdout."""

    def __init__(self, ns, argv, lines, cpu=None):
        self.ns = ns
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        self.p = subprocess.Popen(
            pin + ["nsenter", f"--net=/run/netns/{ns}", "--", sys.executable,
                   os.path.abspath(__file__)] + argv,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.first = queue.Queue()
        self.t = threading.Thread(target=self._read, args=(lines,), daemon=True)
        self.t.start()

    def _read(self, lines):
        first = True
        for line in self.p.stdout:
            if first:
                self.first.put(line.strip())
                first = False
            else:
                lines.put((self.ns, line.split()))
        if first:
            self.first.put("")

    def expect(self, word, timeout=10):
        try:
            got = self.first.get(timeout=timeout)
        except queue.Empty:
            got = "(nothing)"
        if got != word:
            raise RuntimeError(f"{self.ns}: expected '{word}', got '{got}'")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def stop(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def coord(args):
    senders = [int(x) for x in args.senders.split(",")]
    receivers = [int(x) for x in args.receivers.split(",")]
    lines = queue.Queue()
    children = []
    result = {"senders": senders, "receivers": receivers, "conns_per_sender": args.conns,
              "bytes_per_conn": args.bytes, "warmup": args.warmup,
              "capacity_bps": args.capacity_bps}
    try:
        servers = {}
        for r in receivers:
            c = Child(f"{args.prefix}-r{r}", ["server", "--port", str(args.port)], lines)
            children.append(c)
            servers[r] = c
        for c in servers.values():
            c.expect("listening")
        snd = []
        for i in senders:
            # connection j of sender i goes to receiver (i + j) mod R:
            # every receiver gets one connection from every sender
            tg, ids = [], []
            for j in range(args.conns):
                r = receivers[(senders.index(i) + j) % len(receivers)]
                tg.append(f"10.2.{r}.2:{args.port}")
                ids.append(f"s{i}c{j}")
            c = Child(f"{args.prefix}-s{i}", ["sender", "--targets", ",".join(tg),
                                              "--ids", ",".join(ids),
                                              "--bytes", str(args.bytes),
                                              "--pace-bps", str(args.pace_bps),
                                              "--cc", args.cc], lines,
                      cpu=(i - 1) % os.cpu_count() if args.pin else None)
            children.append(c)
            snd.append(c)
        for c in snd:
            c.expect("ready")
        nconn = len(senders) * args.conns
        steps = []
        conn_done = []  # per measured step: connection id -> ns after the start
        pending = {}  # step -> list of done times, arriving early
        for k in range(1, args.warmup + args.steps + 1):
            t0 = now_ns() + 20_000_000
            for c in snd:
                c.send(f"go {k} {t0}")
            done = pending.pop(k, {})
            deadline = time.monotonic() + args.timeout
            while len(done) < nconn:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(
                        f"step {k}: only {len(done)} of {nconn} connections finished "
                        f"within {args.timeout} s (done: {' '.join(sorted(done))})")
                try:
                    ns, w = lines.get(timeout=left)
                except queue.Empty:
                    continue
                if w[0] == "done":
                    ks = int(w[2])
                    (done if ks == k else pending.setdefault(ks, {}))[w[1]] = int(w[3])
            if k > args.warmup:
                steps.append(max(done.values()) - t0)
                conn_done.append({c: t - t0 for c, t in sorted(done.items())})
            time.sleep(args.gap_ms / 1000)
        result["steps_ns"] = steps
        result["conn_done_ns"] = conn_done
        volume = nconn * args.bytes
        result["volume_bytes"] = volume
        result["ideal_s"] = volume * 8 / args.capacity_bps
    finally:
        for c in children:
            c.stop()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="role", required=True)
    a = sub.add_parser("server")
    a.add_argument("--port", type=int, required=True)
    a = sub.add_parser("sender")
    a.add_argument("--targets", required=True)
    a.add_argument("--ids", required=True)
    a.add_argument("--bytes", type=int, required=True)
    a.add_argument("--pace-bps", type=float, default=0)
    a.add_argument("--cc", default="")
    a = sub.add_parser("coord")
    a.add_argument("--prefix", required=True)
    a.add_argument("--senders", default="1,2,3,4")
    a.add_argument("--receivers", default="1,2,3,4")
    a.add_argument("--conns", type=int, default=4)
    a.add_argument("--bytes", type=int, default=256 * 1024,
                   help="bytes per connection per step")
    a.add_argument("--steps", type=int, default=25)
    a.add_argument("--warmup", type=int, default=2)
    a.add_argument("--gap-ms", type=float, default=30)
    a.add_argument("--timeout", type=float, default=20)
    a.add_argument("--port", type=int, default=7471)
    a.add_argument("--pace-bps", type=float, default=0,
                   help="pace every connection to at most this rate (bit/s)")
    a.add_argument("--cc", default="cubic",
                   help="TCP congestion control of the senders' connections")
    a.add_argument("--pin", action="store_true",
                   help="pin sender i to CPU (i-1) mod CPUs, as the RoCE senders are")
    a.add_argument("--capacity-bps", type=float, required=True)
    a.add_argument("--out", required=True)
    args = ap.parse_args()
    return {"server": server, "sender": sender, "coord": coord}[args.role](args)


if __name__ == "__main__":
    sys.exit(main())
