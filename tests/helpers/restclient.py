#!/usr/bin/env python3
# A REST client in the sandbox for otogate's allow= tests, sending each
# request exactly as given (no client-side normalisation of the path):
#
#   restclient.py [--split] 'METHOD TARGET[|HEADER-LINE]...'...
#
# each one request to $API_KEY_URL with "Authorization: token $API_KEY", on
# a connection of its own, each HEADER-LINE sent as written after it (before
# Host when it starts with '^', the '^' left out; "\t" a tab), printing
# "METHOD TARGET[|HEADER-LINE]...: STATUS BODY" (the body on
# one line). An element ">BODY" is the request's body, sent with its
# Content-Length; ">>BODY" sends it chunked, a byte a chunk ("\r" and
# "\n" in BODY are CR and LF). With --split, the head is sent in two writes at every offset
# from 1 to its length less one (a pause between them, Nagle off), one
# connection each, and the line is "METHOD TARGET: STATUS xCOUNT" for each
# status seen, in order of first sight.
import os, socket, sys, time, urllib.parse

url = urllib.parse.urlsplit(os.environ["API_KEY_URL"])
key = os.environ["API_KEY"]


def send(head, cut):
    s = socket.create_connection((url.hostname, url.port), 10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if cut:
        s.sendall(head[:cut])
        time.sleep(0.005)
        s.sendall(head[cut:])
    else:
        s.sendall(head)
    got = b""
    while True:
        x = s.recv(65536)
        if not x:
            break
        got += x
    s.close()
    status = got.split(b" ", 2)[1].decode() if got else "-"
    body = got.split(b"\r\n\r\n", 1)[1].decode().strip().replace("\n", " ") if b"\r\n\r\n" in got else ""
    return status, body


split = sys.argv[1:2] == ["--split"]
for r in sys.argv[1 + split:]:
    line, *extra = r.split("|")
    method, target = line.split(" ", 1)
    body = [h for h in extra if h.startswith(">")]
    extra = [h.replace("\\t", "\t") for h in extra if not h.startswith(">")]
    first = "".join(h[1:] + "\r\n" for h in extra if h.startswith("^"))
    after = "".join(h + "\r\n" for h in extra if not h.startswith("^"))
    data, framing = b"", "Content-Length: 0\r\n"
    if body:
        b = body[0]
        data = b.lstrip(">").replace("\\r", "\r").replace("\\n", "\n").encode()
        if b.startswith(">>"):
            framing = "Transfer-Encoding: chunked\r\n"
            data = b"".join(b"1\r\n" + data[i:i + 1] + b"\r\n" for i in range(len(data))) + b"0\r\n\r\n"
        else:
            framing = f"Content-Length: {len(data)}\r\n"
    head = (f"{method} {target} HTTP/1.1\r\n{first}Host: x\r\nAuthorization: token {key}\r\n"
            f"{after}{framing}Connection: close\r\n\r\n").encode("utf-8", "surrogateescape") + data
    if not split:
        status, body = send(head, 0)
        print(f"{r}: {status} {body}", flush=True)
        continue
    seen = {}
    for cut in range(1, len(head)):
        st = send(head, cut)[0]
        seen[st] = seen.get(st, 0) + 1
    print(f"{r}: " + " ".join(f"{k} x{v}" for k, v in seen.items()), flush=True)
