#!/usr/bin/env python3
# bench/gate.sh's client: gatebench.py URL KIND COUNT [CAFILE]
#
# COUNT requests of KIND to URL (http:// through otogate, or https:// direct,
# verified against CAFILE) on one kept-alive connection, after 5 unmeasured;
# prints "KIND p50_ms p90_ms req_per_s". KIND: small (GET /echo with an
# x-api-key), up1m (POST /echo, 1 MB body), down1m (GET /big, a streamed
# 1 MiB response of one letter), downtext (GET /bigtext, 1 MiB of a model's
# streamed text: the scrubber's work is the text's).
import http.client, os, socket, ssl, sys, time, urllib.parse

url, kind, count = urllib.parse.urlsplit(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if url.scheme == "https":
    ctx = ssl.create_default_context(cafile=sys.argv[4])
    conn = http.client.HTTPSConnection(url.hostname, url.port, context=ctx, timeout=60)
else:
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
# No Nagle on the client either: a POST's head and body are two writes.
conn.connect()
conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
key = os.environ.get("API_KEY", "sk-bench-0123456789abcdef0123456789")
big = b"y" * 1000000


def one():
    if kind == "small":
        conn.request("GET", "/echo", headers={"x-api-key": key})
    elif kind == "up1m":
        conn.request("POST", "/echo", body=big, headers={"x-api-key": key})
    elif kind == "downtext":
        conn.request("GET", "/bigtext", headers={"x-api-key": key})
    else:
        conn.request("GET", "/big", headers={"x-api-key": key})
    r = conn.getresponse()
    n = len(r.read())
    assert r.status == 200 and n > 0, (r.status, n)


for _ in range(5):
    one()
lat = []
t0 = time.perf_counter()
for _ in range(count):
    t = time.perf_counter()
    one()
    lat.append(time.perf_counter() - t)
total = time.perf_counter() - t0
lat.sort()
print(f"{kind} {lat[len(lat) // 2] * 1000:.3f} {lat[len(lat) * 9 // 10] * 1000:.3f} {count / total:.1f}")
