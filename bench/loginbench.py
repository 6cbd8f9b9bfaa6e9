#!/usr/bin/env python3
# bench/login.sh's client: loginbench.py KIND COUNT CAFILE LOGIN
#
# COUNT requests of KIND on one kept-alive connection, after 5 unmeasured,
# as Claude Code makes them on its subscription; prints "KIND p50_ms p90_ms
# req_per_s". LOGIN is Claude Code's login file (.credentials.json; through
# the gateway, the one of phantoms). KIND: refresh (POST
# https://platform.claude.com/v1/oauth/token, the CLI's JSON body with the
# file's refresh token, then each answer's: the provider rotates it on
# every use), call (POST https://api.anthropic.com/v1/messages, a streamed
# model call with "Authorization: Bearer" and the file's access token, or
# $ACCESS when set: an API-key grant's phantom). Verified against CAFILE.
# Refreshes come one at a time with 5 ms between them, as a CLI's come (an
# hour apart): each one's own time is measured, not the disk's work the
# last one left (the gateway syncs the store's directory after answering).
# Its requests per second are then the pauses' as much as its own.
import http.client, json, os, socket, ssl, sys, time

kind, count, cafile, login = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
oauth = json.load(open(login))["claudeAiOauth"]
host = "platform.claude.com" if kind == "refresh" else "api.anthropic.com"
conn = http.client.HTTPSConnection(host, 443, context=ssl.create_default_context(cafile=cafile), timeout=60)
# No Nagle on the client either: a POST's head and body are two writes.
conn.connect()
conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
refresh = oauth["refreshToken"]
access = os.environ.get("ACCESS") or oauth["accessToken"]
call = json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 64, "stream": True,
                   "messages": [{"role": "user", "content": "Say ok."}]})


def one():
    global refresh
    if kind == "refresh":
        conn.request("POST", "/v1/oauth/token", headers={"Content-Type": "application/json"},
                     body=json.dumps({"grant_type": "refresh_token", "refresh_token": refresh,
                                      "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
                                      "scope": "user:inference"}))
    else:
        conn.request("POST", "/v1/messages?beta=true", body=call,
                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + access,
                              "anthropic-beta": "oauth-2025-04-20", "anthropic-version": "2023-06-01"})
    r = conn.getresponse()
    body = r.read()
    assert r.status == 200, (r.status, body[:200])
    if kind == "refresh":
        refresh = json.loads(body)["refresh_token"]
    else:
        assert b"message_stop" in body, body[:200]


for _ in range(5):
    one()
    if kind == "refresh":
        time.sleep(0.005)
lat = []
t0 = time.perf_counter()
for _ in range(count):
    if kind == "refresh":
        time.sleep(0.005)
    t = time.perf_counter()
    one()
    lat.append(time.perf_counter() - t)
total = time.perf_counter() - t0
lat.sort()
print(f"{kind} {lat[len(lat) // 2] * 1000:.3f} {lat[len(lat) * 9 // 10] * 1000:.3f} {count / total:.1f}")
