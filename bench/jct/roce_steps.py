#!/usr/bin/python3
"""RoCEv2 steps through a lab, for bench/jct/run.sh (docs/jct-bench.md).

Every sender sN sends one message per QP to its receiver rN in each step,
as the ring's cross-fabric hops of a collective do; a step starts when
every sender has finished the previous one (a barrier), so the slowest
sender decides each step, as in a collective.

The senders are `xdpleaf gen --pattern steps --reliable` (a line on its
stdin releases a step; it answers with a line of JSON once all of the
step is acknowledged) paced by host mode's DCQCN reaction point
(--rate-map); the receivers run `xdpleaf sink --pass --respond` (counting
every QP's packets, out-of-order PSNs and CE marks, handing the packets on
to host mode's notification point, which answers CE with CNPs, and
answering as an RC responder: ACKs, and a NAK for a PSN gap). Between them
they do what RoCE NICs do with a lost packet, go-back-N: the sender sends
again from the PSN the receiver NAKs (or, when an ACK it asked for does
not come within gen's --ack-timeout, from the oldest one not
acknowledged), so a packet the fabric drops costs the step the time it
takes to send it and everything after it again.

    roce_steps.py --xdpleaf BIN --prefix P --pins DIR --bytes N --qps N
                  --rate BPS --steps N --warmup N --timeout S --seed N
                  > steps.json

Writes the collective's steps.json layout (bench/jct/collective.c: per
step start, end, time and each sender's stamps) plus "gens" and "sinks":
their final reports, "sinks_after_warmup": each sink's counts once the
warm-up steps had arrived, and "events": every out-of-order PSN host mode
saw at a receiver (psn_old) and, with --leaf1-instance, every move of a
flow to another uplink in leaf1, each with its CLOCK_MONOTONIC time, so
that the report can tell reordering that followed a move from reordering
the lab made on its own.
"""
import argparse
import json
import os
import random
import select
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import json_values  # noqa: E402  (bench/benchlib.py)

PAIRS = [(f"s{n}", f"r{n}", f"10.1.{n}.2", f"10.2.{n}.2") for n in range(1, 5)]


def in_ns(prefix, host, argv):
    return ["nsenter", f"--net=/run/netns/{prefix}-{host}", "--"] + argv


class Sink:
    """xdpleaf sink on a receiver, its stdout read as it comes (the pipe
    must not fill) and its latest cumulative packet count kept."""

    def __init__(self, a, host):
        self.host, self.lines, self.packets, self.latest = host, [], -1, None
        self.proc = subprocess.Popen(
            in_ns(a.prefix, host, [a.xdpleaf, "sink", "--dev", "eth0", "--pass", "--json",
                                   "--interval", "20ms", "--respond"]),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.cond = threading.Condition()
        self.ready, self.err = False, []
        self.threads = [threading.Thread(target=t, daemon=True) for t in (self._out, self._err)]
        for t in self.threads:
            t.start()

    def _out(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line)
                if line.startswith("{") and line.rstrip().endswith("}"):
                    try:
                        d = json.loads(line)
                        self.packets = sum(f.get("packets", 0) for f in d.get("qps", []))
                        self.latest = d
                    except ValueError:
                        pass
                self.cond.notify_all()

    def _err(self):
        for line in self.proc.stderr:
            self.err.append(line)
            if "ready" in line:
                with self.cond:
                    self.ready = True
                    self.cond.notify_all()

    def wait(self, pred, timeout):
        end = time.monotonic() + timeout
        with self.cond:
            while not pred():
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return pred()
                self.cond.wait(left)
            return True

    def settled(self, timeout):
        """Wait until two samples in a row count the same packets: what the
        fabric still held has arrived (or is lost)."""
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            with self.cond:
                n = len(self.lines)
                self.cond.wait_for(lambda: len(self.lines) > n, timeout=1)
                cur = self.packets
            if cur == last:
                return True
            last = cur
        return False

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)
        for t in self.threads:  # the last lines, up to EOF
            t.join(timeout=5)
        docs = list(json_values("".join(self.lines)))
        return docs[-1] if docs else None


class Events:
    """xdpleaf events of some kinds from one instance, as JSON lines kept
    as they come (the pipe must not fill); its stderr has the totals of
    events the dataplane counted but could not write (over event_rate)."""

    def __init__(self, a, host, instance, kinds):
        self.host, self.events, self.err = host, [], ""
        # the ring keeps what no one read: an earlier cell's events are
        # left out by their time (CLOCK_MONOTONIC, as bpf_ktime_get_ns)
        self.since_ns = time.monotonic_ns()
        self.proc = subprocess.Popen(
            in_ns(a.prefix, host, [a.xdpleaf, "events", "--instance", instance,
                                   "--kind", kinds, "--json"]),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._out, daemon=True)
        self.thread.start()

    def _out(self):
        for line in self.proc.stdout:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if (e.get("monotonic_ns") or 0) < self.since_ns:
                continue
            f = e.get("flow") or {}
            self.events.append({"host": self.host, "event": e.get("event"),
                                "t": e.get("monotonic_ns"), "port": e.get("port"),
                                "detail": e.get("detail"), "aux": e.get("aux"),
                                "aux2": e.get("aux2"), "src": f.get("src"), "dst": f.get("dst"),
                                "sport": f.get("sport"), "qp": f.get("qp")})

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, self.err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, self.err = self.proc.communicate()
        self.thread.join(timeout=5)
        return {"host": self.host, "exit": self.proc.returncode, "stderr": self.err.strip()}


def write_progress(path, done):
    """Replaced whole, so a reader never sees it half written."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{done}\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xdpleaf", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--pins", required=True, help="host mode's pin directory per host: PINS/<prefix>_<host>")
    ap.add_argument("--bytes", type=int, required=True, help="per sender per step")
    ap.add_argument("--qps", type=int, default=1)
    ap.add_argument("--rate", required=True, help="per QP, gen's --rate")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--timeout", type=float, required=True,
                    help="seconds for the whole run; a step still running then ends the run, "
                         "recorded as incomplete (its time so far)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--leaf1-instance", help="xdpleaf's instance in leaf1, whose moves to record")
    ap.add_argument("--progress", help="written before each step is released: how many steps "
                    "were done (warm-up included), as collective's --progress, for a driver "
                    "that acts at a given step")
    a = ap.parse_args()
    if a.bytes % a.qps or (a.bytes // a.qps) % 4:
        sys.exit("roce_steps: --bytes must split into --qps messages of a multiple of 4 bytes")
    rng = random.Random(a.seed)
    deadline = time.monotonic() + a.timeout
    readers, sinks, gens = [], [], []
    try:  # whatever started is stopped in the end, also when a start fails
        # the event readers first (the ring keeps what comes before they
        # read; an earlier cell's events they leave out by time)
        for _, r, _, _ in PAIRS:
            readers.append(Events(a, r, f"{a.prefix}_{r}", "psn_old"))
        if a.leaf1_instance:
            readers.append(Events(a, "leaf1", a.leaf1_instance, "move"))
        for _, r, _, _ in PAIRS:
            sinks.append(Sink(a, r))
        for s in sinks:
            if not s.wait(lambda s=s: s.ready, 20):
                sys.exit(f"roce_steps: sink in {s.host} did not start: {''.join(s.err)}")
        for s, _, _, dst in PAIRS:
            # a real NIC derives each QP's UDP source port from its QP
            # numbers: a new draw per run, as new TCP connections get
            sport = rng.randrange(49152, 65536 - a.qps)
            # --afpacket: paced, gen sends a frame or two per call, and a
            # live-frames BPF_PROG_RUN sets up a page pool per call: four
            # such senders kept this 2-CPU machine busy and ran 4 MiB steps
            # at 1.6-2.7 x their paced time; AF_PACKET (qdisc bypassed, so
            # host mode's tc egress does not see the frames twice) at 1.00-1.03 x
            gens.append(subprocess.Popen(
                in_ns(a.prefix, s, [a.xdpleaf, "gen", "--dev", "eth0", "--dst", dst,
                                    "--qps", str(a.qps), "--message", str(a.bytes // a.qps),
                                    "--rate", a.rate, "--pattern", "steps", "--json", "--afpacket",
                                    "--reliable",
                                    "--sport-base", str(sport), "--rate-map",
                                    os.path.join(a.pins, f"{a.prefix}_{s}", "rp_rates")]),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, bufsize=1))
        steps, warm, timed_out = [], [None] * len(sinks), None
        warm_sent = {"packets": 0, "resent": 0}  # by the senders in the warm-up
        warm_times = []  # the warm-up steps' times (ns)
        for k in range(a.warmup + a.steps):
            if a.progress:
                write_progress(a.progress, k)
            released = time.monotonic_ns()
            for g in gens:
                g.stdin.write("\n")
                g.stdin.flush()
            got = []
            for g in gens:
                left = deadline - time.monotonic()
                r, _, _ = select.select([g.stdout], [], [], max(left, 0))
                line = g.stdout.readline() if r else ""
                if not line and not r:
                    break
                if not line:
                    err = g.stderr.read() if g.poll() is not None else ""
                    sys.exit(f"roce_steps: step {k + 1}: a sender exited {err}")
                got.append(json.loads(line))
            if len(got) < len(gens):
                # Out of time (go-back-N on a path that drops most of what
                # it is sent can take minutes a step): the step so far is
                # recorded as a lower bound of its time, and the run ends.
                timed_out = {"after_steps": k, "of": a.warmup + a.steps}
                # (in the warm-up too: a lower bound of a step's time is
                # better than no figure for a fabric this slow)
                if k >= a.warmup or not steps:
                    now = time.monotonic_ns()
                    steps.append({"start_ns": released, "end_ns": now,
                                  "time_ns": now - released, "incomplete": True,
                                  "rank_start_ns": [released] * len(gens),
                                  "rank_end_ns": [now] * len(gens)})
                for g in gens:
                    g.send_signal(signal.SIGTERM)
                break
            if k < a.warmup:
                for key in warm_sent:
                    warm_sent[key] += sum(x.get(key, 0) for x in got)
                warm_times.append(int(max(x["end_ns"] for x in got) -
                                      min(x["start_ns"] for x in got)))
            if k + 1 == a.warmup:
                # the sinks' counts after the warm-up: the measured steps'
                # losses are the final counts less these
                for s in sinks:
                    s.settled(5)
                warm = [s.latest for s in sinks]
            if k >= a.warmup:
                st = [x["start_ns"] for x in got]
                en = [x["end_ns"] for x in got]
                steps.append({"start_ns": int(min(st)), "end_ns": int(max(en)),
                              "time_ns": int(max(en) - min(st)),
                              # frames the senders sent in it, those sent again
                              "packets": sum(x.get("packets", 0) for x in got),
                              "resent": sum(x.get("resent", 0) for x in got),
                              "rank_start_ns": [int(x) for x in st],
                              "rank_end_ns": [int(x) for x in en]})
        reports = []
        for g in gens:
            try:
                out, err = g.communicate(input="", timeout=30)
            except subprocess.TimeoutExpired:
                g.kill()
                out, err = g.communicate()
            docs = [d for d in json_values(out) if "step" not in d]
            if g.returncode != 0 or not docs:
                sys.exit(f"roce_steps: a sender failed: {err}")
            reports.append(docs[-1])
        for s in sinks:
            s.settled(5)
        sink_reports = [s.stop() for s in sinks]
        reader_reports = [e.stop() for e in readers]
    finally:
        for p in gens + [s.proc for s in sinks] + [e.proc for e in readers]:
            if p.poll() is None:
                p.kill()
    json.dump({"op": "roce", "bytes": a.bytes, "ranks": len(PAIRS), "warmup": a.warmup,
               "library": f"xdpleaf gen --pattern steps --reliable, {a.qps} QPs per sender at "
                          f"{a.rate} (DCQCN host mode), xdpleaf sink --pass --respond",
               "wrong_results": 0, "hosts": [s for _, _, s, _ in PAIRS],
               "steps": steps, "gens": reports, "sinks": sink_reports,
               "sinks_after_warmup": warm, "sent_in_warmup": warm_sent,
               "warmup_step_ns": warm_times,
               "timed_out": timed_out,
               "events": {"events": [e for r in readers for e in r.events],
                          "readers": reader_reports}}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
