#!/usr/bin/env python3
# A TLS client whose ClientHello reaches the relay cut in two, at every offset:
#
#   splithello.py HOST PORT PATH [FIRST LAST]
#
# For each offset k from FIRST to LAST (default 1 to the hello's length
# less one), a new connection to HOST:PORT sends the hello's first k bytes,
# waits 20 ms (TCP_NODELAY: a segment of its own), sends the rest, then
# completes the handshake (verified by the default trust: SSL_CERT_FILE)
# and sends "GET PATH" with "Authorization: token $TOKEN". Eight
# connections at a time (each its own cut; the 20 ms waits overlap). Prints
# one line per offset that did not get a 200 ("K: what happened", in the
# offsets' order), then "LEN offsets, N ok": LEN the hello's length.
import os, socket, ssl, sys, time
from concurrent.futures import ThreadPoolExecutor

host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
token = os.environ["TOKEN"]
ctx = ssl.create_default_context()


def hello_len():
    o, i = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=host)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return len(o.read())


def pump(s, t, o, i):
    """The handshake (and then each write) through the memory BIOs over s."""
    while True:
        try:
            t.do_handshake()
            break
        except ssl.SSLWantReadError:
            out = o.read()
            if out:
                s.sendall(out)
            data = s.recv(65536)
            if not data:
                raise EOFError("closed in the handshake")
            i.write(data)
    out = o.read()
    if out:
        s.sendall(out)


def one(k):
    o, i = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=host)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = o.read()
    s = socket.create_connection((host, port), 10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        s.sendall(hello[:k])
        time.sleep(0.02)
        s.sendall(hello[k:])
        pump(s, t, o, i)
        t.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: token %s\r\n"
                 "Connection: close\r\n\r\n" % (path, host, port, token)).encode())
        s.sendall(o.read())
        got = b""
        while b"\r\n" not in got:
            try:
                got += t.read(4096)
            except ssl.SSLWantReadError:
                data = s.recv(65536)
                if not data:
                    break
                i.write(data)
        return got.split(b"\r\n")[0].decode()
    except Exception as e:
        return "ERR " + type(e).__name__ + " " + str(e)
    finally:
        s.close()


n = hello_len()
first = int(sys.argv[4]) if len(sys.argv) > 4 else 1
last = int(sys.argv[5]) if len(sys.argv) > 5 else n - 1
ok = 0
with ThreadPoolExecutor(8) as pool:
    for k, r in zip(range(first, last + 1), pool.map(one, range(first, last + 1))):
        if r == "HTTP/1.1 200 OK":
            ok += 1
        else:
            print("%d: %s" % (k, r))
print("%d offsets, %d ok" % (last - first + 1, ok))
