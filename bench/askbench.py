#!/usr/bin/env python3
# The agent's side of bench/ask.sh, run in the sandbox.
#
#   askbench.py lat HOST PORT N          N connects, each: connect, one byte out,
#                                        the first byte back; "P50 P90" in us
#   askbench.py pending HOST PORT0 K PID K connects at once to PORT0.. that the
#                                        decider never answers: the relay's
#                                        (PID) VmRSS in kB before and while
#                                        they are held, and how many are held
import os
import socket
import sys
import time


def vmrss(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(x for x in f if x.startswith("VmRSS:")).split()[1])


def lat(host, port, n):
    ts = []
    for _ in range(int(n)):
        t = time.perf_counter()
        s = socket.create_connection((host, int(port)), 10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"x")
        if s.recv(1) != b"x":
            sys.exit("askbench: no echo")
        ts.append((time.perf_counter() - t) * 1e6)
        s.close()
    ts.sort()
    return f"{ts[len(ts) // 2]:.0f} {ts[len(ts) * 9 // 10]:.0f}"


def pending(host, port0, k, pid):
    before, socks = vmrss(pid), []
    for i in range(int(k)):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, int(port0) + i))
        socks.append(s)
    time.sleep(1)
    held = 0
    for s in socks:
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            try:
                s.getpeername()
            except OSError:
                held += 1  # neither connected nor refused: still waiting
    return f"{before} {vmrss(pid)} held={held}"


if __name__ == "__main__":
    print({"lat": lat, "pending": pending}[sys.argv[1]](*sys.argv[2:]), flush=True)
