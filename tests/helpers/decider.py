#!/usr/bin/env python3
# A scripted decider for otonet --ask-fd (otonet(1), ASKING), for the tests.
#
#   decider.py [--log FILE] [--delay S] [--listen PATH] POLICY -- CMD [ARG]...
#   decider.py --connect PATH -- CMD [ARG]...
#
# --connect: no decider here, only the wiring: a connection to the decider
# listening at PATH (otoask --listen) put on fd 3, and CMD exec'd.
# Without --listen: a socket pair, one end on CMD's fd 3 (CMD names it:
# otonet --ask-fd 3), the other read here. With --listen PATH: a unix socket
# listening at PATH, one connection taken (otorun --ask PATH), CMD run
# alongside. The session's line (otorun's, "source":"session") asks for no
# answer: it goes to FILE.session. Each request line is appended to FILE as
# it came, then answered by the next word of POLICY (comma-separated; the
# last one repeats):
#
#   allow-once, allow-session, deny   "ID WORD\n", after --delay seconds
#   silent       no answer
#   close        the socket closed (the decider gone)
#   garbage      a line that is not an answer
#   raw=TEXT     TEXT as it is (Python escapes), for the parser's edges
#
# Exits with CMD's code.
import os
import socket
import subprocess
import sys
import threading
import time


def answer(conn, req, word, delay):
    rid = req.split(b'"id":', 1)[1].split(b",", 1)[0].decode()
    if word == "silent":
        return True
    if word == "close":
        conn.shutdown(socket.SHUT_RDWR)
        conn.close()
        return False
    time.sleep(delay)
    if word == "garbage":
        conn.sendall(b"this is not an answer\n")
    elif word.startswith("raw="):
        conn.sendall(word[4:].encode().decode("unicode_escape").encode("latin-1"))
    else:
        conn.sendall(f"{rid} {word}\n".encode())
    return True


def serve(conn, policy, log, delay):
    words = policy.split(",")
    buf, k = b"", 0
    while True:
        try:
            x = conn.recv(65536)
        except OSError:
            return
        if not x:
            return
        buf += x
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if b'"source":"session"' in line and b'"id":' not in line:
                if log:
                    with open(log + ".session", "ab") as f:
                        f.write(line + b"\n")
                continue
            if log:
                with open(log, "ab") as f:
                    f.write(line + b"\n")
            word = words[min(k, len(words) - 1)]
            k += 1
            if not answer(conn, line, word, delay):
                return


def main():
    args, log, delay, listen = sys.argv[1:], None, 0.0, None
    if args[0] == "--connect":
        for _ in range(200):
            if os.path.exists(args[1]):
                break
            time.sleep(0.05)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(args[1])
        if c.fileno() != 3:
            os.dup2(c.fileno(), 3)
        os.set_inheritable(3, True)
        os.execvp(args[3], args[3:])
    while args[0].startswith("--"):
        opt, val, args = args[0], args[1], args[2:]
        if opt == "--log":
            log = val
        elif opt == "--delay":
            delay = float(val)
        elif opt == "--listen":
            listen = val
    policy, cmd = args[0], args[2:]
    if listen:
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(listen)
        os.chmod(listen, 0o777)
        ls.listen(1)
        p = subprocess.Popen(cmd, close_fds=False)

        def take():
            c, _ = ls.accept()
            serve(c, policy, log, delay)
        threading.Thread(target=take, daemon=True).start()
    else:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

        def child_fd():
            if theirs.fileno() != 3:
                os.dup2(theirs.fileno(), 3)
            os.set_inheritable(3, True)
        p = subprocess.Popen(cmd, preexec_fn=child_fd, close_fds=False)
        theirs.close()
        threading.Thread(target=serve, args=(mine, policy, log, delay), daemon=True).start()
    sys.exit(p.wait())


if __name__ == "__main__":
    main()
