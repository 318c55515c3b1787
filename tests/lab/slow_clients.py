#!/usr/bin/python3
# Slow HTTP clients, for the exporter's tests: N connections that each
# send a request line and then one more header line every INTERVAL
# seconds, never ending their request, from the source addresses given
# (taken in turn; none: the kernel's choice).
#
#   slow_clients.py HOST PORT N INTERVAL DURATION [SRC...]
#
# Prints "connected K" once the connections are made (K of N: those not
# made within 10 s are given up), then after each
# round of header lines "round R: open K": K connections that the server
# has not closed (an EOF, a reset or a failed send closes one here too).
# Ends after DURATION seconds, or on SIGTERM, closing every connection.
import resource
import select
import signal
import socket
import sys
import time

CONNECT_S = 10


def still_open(s):
    """False once the server has closed s (EOF or an error on read)."""
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True  # nothing to read: open
    except OSError:
        return False


def connect_all(host, port, n, srcs):
    """The connections that are made within CONNECT_S (in the server's
    accept queue at least), each with its request line sent; the others
    closed."""
    pending, made = {}, []
    poll = select.poll()
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        if srcs:
            s.bind((srcs[i % len(srcs)], 0))
        s.connect_ex((host, port))
        pending[s.fileno()] = s
        poll.register(s, select.POLLOUT)
    end = time.monotonic() + CONNECT_S
    while pending and time.monotonic() < end:
        for fd, _ in poll.poll(100):
            s = pending.pop(fd)
            poll.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                s.close()
                continue
            s.send(b"GET /metrics HTTP/1.1\r\nHost: slow\r\n")
            made.append(s)
    for s in pending.values():
        s.close()
    return made


def main(argv):
    if len(argv) < 6:
        sys.exit("usage: slow_clients.py HOST PORT N INTERVAL DURATION [SRC...]")
    host, port, n = argv[1], int(argv[2]), int(argv[3])
    interval, duration, srcs = float(argv[4]), float(argv[5]), argv[6:]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 32:
        if hard != resource.RLIM_INFINITY and hard < n + 32:
            sys.exit(f"slow_clients.py: {n} connections need {n + 32} open files, "
                     f"the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (n + 32, hard))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    conns = connect_all(host, port, n, srcs)
    print(f"connected {len(conns)}", flush=True)
    end = time.monotonic() + duration
    r = 0
    while time.monotonic() < end:
        time.sleep(min(interval, max(0.0, end - time.monotonic())))
        r += 1
        open_ = 0
        for s in conns:
            if not still_open(s):
                continue
            try:
                s.send(b"X-Slow: %d\r\n" % r, socket.MSG_DONTWAIT)
                open_ += 1
            except OSError:
                pass
        print(f"round {r}: open {open_}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
