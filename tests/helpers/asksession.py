#!/usr/bin/env python3
# A session as otoask sees one (otonet(1), Asking), for the tests: it
# connects to a decider listening at SOCKET and writes lines as a relay
# would, and appends each answer it reads to OUT.
#
#   asksession.py SOCKET OUT STEP...
#
#   hello PERSON AGENT   otorun's session line (session id "s" + SOCKET's pid)
#   line TEXT            TEXT and a newline, as it is (Python escapes)
#   ask ID NAME          a question about NAME:443 (tcp to 203.0.113.10)
#   wait N               until N answers in all were read (10 s at most)
#   sleep S
#   close                the connection closed (the session gone)
#
# After the last step, the session ends (its connection closed).
import os
import socket
import sys
import threading
import time

HEAD = '{"time":"2026-12-04T21:30:02.120544Z","source":"%s","session":"%s"'


def main():
    path, out, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
    for _ in range(200):
        if os.path.exists(path):
            break
        time.sleep(0.05)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    sid = "s%05d%s" % (os.getpid() % 100000, "0" * 26)
    got = []

    def reader():
        buf = b""
        while True:
            try:
                x = c.recv(4096)
            except OSError:
                break
            if not x:
                break
            buf += x
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                got.append(line)
                with open(out, "ab") as f:
                    f.write(line + b"\n")
        got.append(None)
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    i = 0
    while i < len(steps):
        verb = steps[i]
        i += 1
        if verb == "hello":
            line = HEAD % ("session", sid) + ',"person":"%s","agent":"%s"}' % (
                steps[i], steps[i + 1])
            i += 2
            c.sendall(line.encode() + b"\n")
        elif verb == "line":
            c.sendall(steps[i].encode().decode("unicode_escape").encode("latin-1") + b"\n")
            i += 1
        elif verb == "ask":
            line = HEAD % ("ask", sid) + (',"id":%s,"proto":"tcp","src":"10.0.2.100","dst":'
                                          '"203.0.113.10","port":443,"name":"%s"}' %
                                          (steps[i], steps[i + 1]))
            i += 2
            c.sendall(line.encode() + b"\n")
        elif verb == "wait":
            n, end = int(steps[i]), time.monotonic() + 10
            i += 1
            while len([g for g in got if g is not None]) < n and time.monotonic() < end:
                time.sleep(0.02)
        elif verb == "sleep":
            time.sleep(float(steps[i]))
            i += 1
        elif verb == "close":
            c.close()
            return
        else:
            sys.exit("asksession: unknown step " + verb)
    c.close()


main()
