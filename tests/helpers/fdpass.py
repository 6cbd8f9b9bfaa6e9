#!/usr/bin/env python3
# Descriptors across otoconnect's socket, for tests/test_otoconnect.sh:
#
#   fdpass.py agent-send SOCKET FILE   connects, sends "hello" with FILE's
#       descriptor (SCM_RIGHTS), half-closes; prints what comes back
#   fdpass.py agent-recv SOCKET        connects, half-closes, receives until
#       the end with room for descriptors; prints "agent: N fds, BYTES"
#   fdpass.py tool-recv                the tool: its stdin read with recvmsg
#       (room for descriptors) when it is a socket, else with read; prints
#       "tool: N fds (WHAT), BYTES" on stdout
#   fdpass.py tool-send FILE           the tool: "hi" and FILE's descriptor
#       on its stdout with sendmsg when it is a socket, else "hi" alone
#       with write (saying why on stderr)
import errno, os, socket, sys


def recv_all(s):
    fds, data = [], b""
    while True:
        d, f, _, _ = socket.recv_fds(s, 65536, 8)
        fds += f
        if not d:
            return data, fds
        data += d


def main():
    mode = sys.argv[1]
    if mode == "agent-send":
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[2])
        fd = os.open(sys.argv[3], os.O_RDONLY)
        socket.send_fds(s, [b"hello"], [fd])
        s.shutdown(socket.SHUT_WR)
        data, fds = recv_all(s)
        print(data.decode().strip())
    elif mode == "agent-recv":
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[2])
        s.shutdown(socket.SHUT_WR)
        data, fds = recv_all(s)
        print(f"agent: {len(fds)} fds, {data.decode()}")
    elif mode == "tool-recv":
        try:
            s = socket.socket(fileno=os.dup(0))
            data, fds = recv_all(s)
            how = "a socket"
        except OSError as e:
            if e.errno != errno.ENOTSOCK:
                raise
            fds, data, how = [], b"", "not a socket"
            while True:
                d = os.read(0, 65536)
                if not d:
                    break
                data += d
        print(f"tool: {len(fds)} fds ({how}), {data.decode()}", flush=True)
    elif mode == "tool-send":
        fd = os.open(sys.argv[2], os.O_RDONLY)
        try:
            s = socket.socket(fileno=os.dup(1))
            socket.send_fds(s, [b"hi"], [fd])
        except OSError as e:
            if e.errno != errno.ENOTSOCK:
                raise
            print("tool-send: stdout is not a socket", file=sys.stderr)
            os.write(1, b"hi")


main()
