#!/usr/bin/env python3
# A stand-in for otogate's side of OTO_GATEWAY, for otonet's tests:
#
#   fakegate.py PORTS MODE -- CMD...
#
# makes a unix socket pair, runs CMD with one end inherited and
# OTO_GATEWAY=FD:PORTS in its environment, and serves the other end: each
# message is one flow, the port as a native int and the flow's socket (one
# fd, SCM_RIGHTS). A flow is read to its EOF and answered with one line,
# "port=P bytes=N sha=HEX16" (the first 16 hex digits of the SHA-256 of what
# came), then closed. MODE "dead": the gateway's end is closed before CMD
# starts. MODE "echo": each flow is answered with all it sent instead (the
# gateway's way back, in bulk). MODE "late": each flow is read only after
# half a second (its socket pair full meanwhile). Exits with CMD's code; each flow's line also goes to stderr as
# "fakegate: ...", in the order they ended.
import hashlib, os, socket, struct, subprocess, sys, threading, time


ECHO = False
LATE = False


def flow(fd, port):
    with socket.socket(fileno=fd) as s:
        s.setblocking(True)
        h, n, got = hashlib.sha256(), 0, []
        if LATE:
            time.sleep(0.1)
        while True:
            x = s.recv(65536)
            if not x:
                break
            h.update(x)
            n += len(x)
            if ECHO:
                got.append(x)
        line = f"port={port} bytes={n} sha={h.hexdigest()[:16]}"
        s.sendall(b"".join(got) if ECHO else line.encode() + b"\n")
    print("fakegate: " + line, file=sys.stderr, flush=True)


def serve(sock):
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 4)
        except OSError:
            return
        if not msg and not fds:
            return
        if len(msg) != 4 or len(fds) != 1:
            print(f"fakegate: bad message {msg!r} with {len(fds)} fds", file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            continue
        threading.Thread(target=flow, args=(fds[0], struct.unpack("i", msg)[0]), daemon=True).start()


def main():
    ports, mode, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    assert sep == "--" and mode in ("serve", "dead", "echo", "late") and cmd
    global ECHO, LATE
    ECHO = mode == "echo"
    LATE = mode == "late"
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    env = dict(os.environ, OTO_GATEWAY=f"{theirs.fileno()}:{ports}")
    if mode == "dead":
        ours.close()
    else:
        threading.Thread(target=serve, args=(ours,), daemon=True).start()
    # CMD inherits what this process inherited (a --log-fd), and the socket.
    os.set_inheritable(theirs.fileno(), True)
    rc = subprocess.run(cmd, env=env, close_fds=False).returncode
    sys.exit(rc if rc >= 0 else 128 - rc)


main()
