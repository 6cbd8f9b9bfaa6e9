#!/usr/bin/env python3
# The agent's side in otogate's tests, run inside the sandbox:
#
#   gateclient.py STEP...
#
# each STEP one request to $API_KEY_URL (the gateway; https://HOST for a
# transparent grant: over TLS, verified by the default trust, which
# SSL_CERT_FILE names), on one kept-alive
# connection while it lasts, printing one line per step:
#   STEP: STATUS BODY   (the body on one line; "ERR EXCEPTION" when it failed)
# Steps:
#   echo-x        GET /echo with x-api-key: $API_KEY
#   echo-bearer   GET /echo with Authorization: Bearer $API_KEY
#   echo-body     POST /echo?k=$API_KEY, the phantom in the query and in the body
#   echo-chunked  POST /echo, a chunked body holding the phantom
#   echo-big      POST /echo, 300 kB holding the phantom at its end: STATUS and
#                 whether the upstream echoed the whole body
#   leak          GET /leak: the response's X-Echo header and body
#   sse           GET /sse: after the first event, touches $FLAG; prints both events
#   close, drop, eof, bye   GET /close, /drop, /eof, /bye
#   pause         no request: 0.5 s
#   hold          GET /sse without touching $FLAG: both events
#   expect        POST /echo with "Expect: 100-continue", the body sent only
#                 after the 100 (given up on after 2 s: "no-100"); the status
#   other         GET /echo with x-api-key: $OTHER_KEY (another grant's phantom)
#   reflect, reflect-deflate, reflect-range, reflect-force   GET /reflect (the
#                 hostile upstream) with the phantom in x-api-key,
#                 Authorization: Bearer, X-E and Cookie, asking for gzip (or
#                 deflate; or two Range slices; or ?force=gzip): the status
#                 of each response and each whole response (head and body) as
#                 it came, in base64, for tests/helpers/leakcheck.py
#   basic         GET /echo with Authorization: Basic base64(alice:$API_KEY)
#   twice         GET /echo with x-api-key: $API_KEY,$API_KEY (the phantom twice)
#   te-cl, two-host   a request with both Transfer-Encoding and Content-Length,
#                 or with two Host headers, on a connection of its own: the
#                 status line and the body
#   abandon       GET /sse on a connection of its own, closed once the first
#                 event has come (a person cancelling): "closed"
#   abandon-slow  GET /slow on a connection of its own, closed 0.5 s after it
#                 was sent, before any answer: "closed"
#   websocket, h2c   a WebSocket's handshake (as codex sends its model call
#                 first) or an h2c upgrade, with the phantom in Authorization,
#                 on a connection of its own: the status line and the body
#   hop           POST /echo (a chunked body) with every hop-by-hop header and
#                 one that Connection names, on a connection of its own: the
#                 status line and the body
#   bulk          POST /sum 1 MB of random bytes, GET /rand and GET /big (1 MiB
#                 each, the one of Content-Length, the other chunked): "ok" for
#                 each whose bytes are exact, else what came
import http.client, json, os, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["API_KEY_URL"])
key = os.environ["API_KEY"]
conn = None
tls = None
if url.scheme == "https":
    import ssl
    tls = ssl.create_default_context()


def c():
    global conn
    if conn is None:
        if tls:
            conn = http.client.HTTPSConnection(url.hostname, url.port, timeout=20, context=tls)
        else:
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=20)
    return conn


def connect(timeout):
    """A connection of its own: TLS for a transparent grant."""
    import socket
    s = socket.create_connection((url.hostname, url.port), timeout)
    return tls.wrap_socket(s, server_hostname=url.hostname) if tls else s


def req(method, path, headers, body=None, encode_chunked=False):
    h = c()
    h.request(method, path, body=body, headers=headers, encode_chunked=encode_chunked)
    return h.getresponse()


def recv_all(s):
    """What s sends until it closes."""
    got = b""
    while True:
        x = s.recv(65536)
        if not x:
            return got
        got += x


def raw(path, extra):
    """One request on a connection of its own: the response's bytes as they came."""
    s = connect(10)
    head = (f"GET {path} HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\nAuthorization: Bearer {key}\r\n"
            f"X-E: {key}\r\nCookie: k={key}\r\n{extra}Connection: close\r\n\r\n")
    s.sendall(head.encode())
    got = recv_all(s)
    s.close()
    return got.split(b" ", 2)[1].decode() + " " + __import__("base64").b64encode(got).decode()


def head_only(data):
    """data on a connection of its own: the response's status line and body."""
    import socket
    s = socket.create_connection((url.hostname, url.port), 10)
    s.sendall(data)
    got = recv_all(s)
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode() + " " + body.decode().strip()


def one(step):
    global conn
    if step == "te-cl":
        return head_only(b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                         b"Content-Length: 5\r\nConnection: close\r\n\r\n0\r\n\r\n")
    if step == "abandon":
        import socket
        s = socket.create_connection((url.hostname, url.port), 10)
        s.sendall(f"GET /sse HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\n\r\n".encode())
        got = b""
        while b"data: one" not in got:
            d = s.recv(4096)
            if not d:
                return "ended before the first event"
            got += d
        s.close()
        return "closed"
    if step == "abandon-slow":
        import socket, time
        s = socket.create_connection((url.hostname, url.port), 10)
        s.sendall(f"GET /slow HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\n\r\n".encode())
        time.sleep(0.5)
        s.close()
        return "closed"
    if step == "websocket":
        return head_only(b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                         b"Authorization: Bearer " + key.encode() + b"\r\n\r\n")
    if step == "h2c":
        return head_only(b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                         b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
                         b"Authorization: Bearer " + key.encode() + b"\r\n\r\n")
    if step == "two-host":
        return head_only(b"GET /echo HTTP/1.1\r\nHost: x\r\nHost: y\r\nx-api-key: " +
                         key.encode() + b"\r\nConnection: close\r\n\r\n")
    if step == "twice":
        r = req("GET", "/echo", {"x-api-key": key + "," + key})
        return f"{r.status} {r.read().decode()}"
    if step == "reflect":
        return raw("/reflect", "Accept-Encoding: gzip\r\n")
    if step == "reflect-deflate":
        return raw("/reflect", "Accept-Encoding: deflate\r\n")
    if step == "reflect-force":
        return raw("/reflect?force=gzip", "")
    if step == "reflect-range":
        return (raw("/reflect", "Range: bytes=0-99\r\nIf-Range: x\r\n") + " " +
                raw("/reflect", "Range: bytes=100-\r\n"))
    if step == "basic":
        import base64
        r = req("GET", "/echo", {"Authorization": "Basic " + base64.b64encode(("alice:" + key).encode()).decode()})
        return f"{r.status} {r.read().decode()}"
    if step == "echo-x":
        r = req("GET", "/echo", {"x-api-key": key})
    elif step == "echo-bearer":
        r = req("GET", "/echo", {"Authorization": "Bearer " + key})
    elif step == "echo-body":
        r = req("POST", "/echo?k=" + key, {"Content-Type": "text/plain"}, ("body " + key).encode())
    elif step == "echo-chunked":
        r = req("POST", "/echo", {"Transfer-Encoding": "chunked"},
                iter([b"chunk ", key.encode()]), encode_chunked=True)
    elif step == "echo-big":
        body = ("z" * 300000 + key).encode()
        r = req("POST", "/echo", {"Content-Type": "text/plain"}, body)
        got = json.loads(r.read())["body"].encode()
        return f"{r.status} same={got == body}"
    elif step == "leak":
        r = req("GET", "/leak", {})
        return f"{r.status} X-Echo={r.getheader('X-Echo')} {r.read().decode()}"
    elif step == "sse":
        r = req("GET", "/sse", {})
        first = r.readline().decode().strip()
        r.readline()
        open(os.environ["FLAG"], "w").close()
        return f"{r.status} {first} {r.read().decode().strip()}"
    elif step == "pause":
        import time
        time.sleep(0.5)
        return "-"
    elif step == "hold":
        r = req("GET", "/sse", {})
        return f"{r.status} " + " ".join(x for x in r.read().decode().split("\n") if x)
    elif step == "expect":
        import socket
        s = connect(10)
        body = ("exp " + key).encode()
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
        s.settimeout(2)
        try:
            first = s.recv(4096)
        except socket.timeout:
            return "no-100"
        if not first.startswith(b"HTTP/1.1 100"):
            return "no-100 " + first.split(b"\r\n")[0].decode()
        s.settimeout(10)
        s.sendall(body)
        rest = recv_all(s)
        return "100 then " + rest.split(b"\r\n")[0].decode() + " " + rest.split(b"\r\n\r\n", 1)[1].decode()
    elif step == "hop":
        s = connect(10)
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nTE: trailers\r\n"
                  b"Connection: TE, X-Hop, keep-alive\r\nKeep-Alive: timeout=5\r\n"
                  b"Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic YTpi\r\n"
                  b"Trailer: X-T\r\nX-Hop: 1\r\nX-Stays: 2\r\nx-api-key: " + key.encode() +
                  b"\r\nTransfer-Encoding: chunked\r\nconnection: close\r\n\r\n"
                  b"4\r\nbody\r\n0\r\n\r\n")
        got = recv_all(s)
        s.close()
        head, _, body = got.partition(b"\r\n\r\n")
        return head.split(b"\r\n")[0].decode() + " " + body.decode().strip()
    elif step == "bulk":
        import hashlib, random
        up = os.urandom(1000000)
        r = req("POST", "/sum", {"x-api-key": key}, up)
        got = r.read().decode()
        res = ["up=" + ("ok" if got == f"{hashlib.sha256(up).hexdigest()} {len(up)}" else got)]
        for path, want in (("/rand", random.Random(7).randbytes(1 << 20)), ("/big", b"x" * (1 << 20))):
            r = req("GET", path, {"x-api-key": key})
            got = r.read()
            ok = hashlib.sha256(got).digest() == hashlib.sha256(want).digest()
            res.append(path[1:] + "=" + ("ok" if ok else f"{r.status},{len(got)}"))
        return " ".join(res)
    elif step == "other":
        r = req("GET", "/echo", {"x-api-key": os.environ["OTHER_KEY"]})
    else:
        r = req("GET", "/" + step, {})
    body = r.read().decode().strip()
    if r.getheader("Connection", "").lower() == "close":
        conn.close()
        conn = None
    return f"{r.status} {body}"


for s in sys.argv[1:]:
    try:
        line = one(s)
    except Exception as e:
        line = "ERR " + type(e).__name__
        conn = None
    print(f"{s}: {line}", flush=True)
