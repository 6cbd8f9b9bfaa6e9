#!/usr/bin/env python3
# An HTTPS upstream for otogate's tests, in the fake internet:
#
#   fakeapi.py CERT KEY PORT DIR SECRETFILE
#
# serves HTTP/1.1 over TLS on PORT (IPv4 and IPv6) and writes DIR/ready once
# listening. Every request's head and body, as received, is appended to
# DIR/requests (a line "== METHOD PATH" first). Paths:
#   /echo     200, a JSON body with the request's x-api-key, authorization,
#             path and body (Content-Length)
#   /leak     200, the secret (SECRETFILE's) in a response header (X-Echo) and in a chunked body,
#             cut across two chunks, twice
#   /sse      200, text/event-stream, chunked: "data: one", then waits (up to
#             10 s) for DIR/flag to exist, then "data: two" or "data: late"
#   /slow     waits (up to 10 s) for DIR/flag to exist, then 200 "slow"
#             (a model that thinks before it answers)
#   /close    a Content-Length of 100, 10 bytes, then the connection closes
#   /eof      200, no length: "a SECRET b", then the connection closes
#   /bye      200 (kept alive, as far as the client knows), then the
#             connection closes
#   /big      200, chunked: 1 MiB in chunks of 16 KiB (for bench/gate.sh)
#   /bigtext  the same, of a model's streamed text (SSE events of JSON text
#             deltas: English, digits, escapes) instead of one letter
#   /sum      200, "SHA256 LENGTH" of the request's body
#   /rand     200, a Content-Length of 1 MiB: random.Random(7).randbytes(1 MiB)
#   /v1/messages   a scripted model (the Messages API, streamed or not):
#             a request with tools and no tool result yet is answered with a
#             call of the client's shell tool (the first of SHELLS its tools
#             name: Claude Code's Bash, opencode's bash) running "env" (and
#             writing the working directory's path in agent-was-here there),
#             or the command in DIR/call when that file exists;
#             one carrying a tool result gets "done", and the result's text
#             is written to DIR/toolresult; a request without tools gets "ok"
#   /v1/responses  the same scripted model in the Responses API (codex):
#             its exec_command tool runs CALL's command; the call's output
#             goes to DIR/toolresult, then "done"
#   /v1beta/models/MODEL:generateContent, :streamGenerateContent (?alt=sse)
#             the same scripted model in the Gemini API (gemini-cli): its
#             run_shell_command tool runs CALL's command; the functionResponse's
#             output goes to DIR/toolresult, then "done"
#   /repos/..., /repository, /user..., /users, /admin   a REST API: 200, a
#             JSON body with the request's method, path and authorization
#   /drop     the request is read and the connection closed without a word
#   /reflect  a hostile upstream: every request header, name and value, back in
#             a JSON body in every form (raw, upper and lower case, %HH,
#             urllib's quote, \u00hh escapes, json.dumps, hexadecimal, base64
#             and base64url after 0, 1 and 2 other bytes), the Authorization
#             again in X-Echo and all of them base64 in X-Echo-B64; gzip or
#             deflate as Accept-Encoding asks (?force=gzip: gzip whatever it
#             asks), and a Range's slice as a 206
import base64, gzip, hashlib, json, os, random, socket, ssl, sys, threading, time, urllib.parse, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Set by main (or by tests/helpers/fakeprovider.py, which imports this file
# for its scripted model): the directory of requests, call and toolresult.
DIR = SECRET = PORT = None
# The one tool call the scripted model makes: the environment, and a file
# in the working directory (where the agent's writes land).
# DIR/call, when a test writes it, holds another command for the call.
CALL = {"command": "env && pwd >agent-was-here", "description": "Show the environment"}


def call():
    try:
        with open(os.path.join(DIR, "call")) as f:
            return dict(CALL, command=f.read().strip())
    except FileNotFoundError:
        return CALL
# The shell tool's name in each client: the model's call must name a tool
# the request offers.
SHELLS = ("Bash", "bash", "exec_command", "run_shell_command")
lock = threading.Lock()


def shell_tool(names, default):
    return next((n for n in names if n in SHELLS), default)


def gemini_answer(req, model):
    """The scripted model's turn in the Gemini API, for the request REQ."""
    result = None
    for c in req.get("contents", []):
        for part in c.get("parts", []):
            if "functionResponse" in part:
                r = part["functionResponse"].get("response")
                out = r.get("output") if isinstance(r, dict) else None
                result = out if isinstance(out, str) else json.dumps(r)
    if result is not None:
        with open(os.path.join(DIR, "toolresult"), "w") as f:
            f.write(result)
    names = [d.get("name") for t in req.get("tools", []) for d in t.get("functionDeclarations", [])]
    if names and result is None:
        part = {"functionCall": {"name": shell_tool(names, "run_shell_command"), "args": call()}}
    else:
        part = {"text": "done" if result is not None else "ok"}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": model}


# /bigtext's 16 KiB: a model's answer as the Messages API streams it.
_words = ("The session's settings are kept in settings.json; its 32 tests pass, "
          "and \"make check\" says so.\nSee docs/setup.md (section 4.2) for the "
          "steps: 1, 2 and 3. ").split(" ")
_ev, _n = [], 0
while sum(map(len, _ev)) < 16384:
    _t = " ".join(_words[_n % len(_words):] + _words[:_n % len(_words)])[:60]
    _ev.append("event: content_block_delta\ndata: " + json.dumps(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": _t}})
        + "\n\n")
    _n += 7
TEXT16K = "".join(_ev).encode()[:16384]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A head and a body in two writes: with Nagle, the body waits for the
    # peer's delayed ACK (40 ms), which would be every request's time.
    disable_nagle_algorithm = True

    def log_message(self, *a):
        pass

    def read_body(self):
        """The request's body, by its Content-Length or chunked."""
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if not size:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        return data

    def body(self):
        data = self.read_body()
        with lock, open(os.path.join(DIR, "requests"), "ab") as f:
            f.write(f"== {self.command} {self.path}\n".encode() + bytes(self.headers) + data + b"\n")
        return data

    def json_body(self, out):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def chunk(self, b):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
        self.wfile.flush()

    def sse(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for e in events:
            self.chunk(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode())
        self.wfile.write(b"0\r\n\r\n")

    def messages(self, data):
        req = json.loads(data or b"{}")
        result = None
        for m in req.get("messages", []):
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        c = b.get("content")
                        result = c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
        if result is not None:
            with open(os.path.join(DIR, "toolresult"), "w") as f:
                f.write(result)
        if req.get("tools") and result is None:
            block = {"type": "tool_use", "id": "toolu_oto1", "input": {},
                     "name": shell_tool([t.get("name") for t in req["tools"]], "Bash")}
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps(call())}
            full = dict(block, input=call())
            stop = "tool_use"
        else:
            text = "done" if result is not None else "ok"
            block, delta, full, stop = ({"type": "text", "text": ""}, {"type": "text_delta", "text": text},
                                        {"type": "text", "text": text}, "end_turn")
        usage = {"input_tokens": 10, "output_tokens": 5}
        msg = {"id": "msg_oto", "type": "message", "role": "assistant", "model": req.get("model", "m"),
               "stop_sequence": None}
        if not req.get("stream"):
            out = json.dumps(dict(msg, content=[full], stop_reason=stop, usage=usage)).encode()
            self.json_body(out)
            return
        self.sse([{"type": "message_start", "message": dict(msg, content=[], stop_reason=None, usage=usage)},
                  {"type": "content_block_start", "index": 0, "content_block": block},
                  {"type": "content_block_delta", "index": 0, "delta": delta},
                  {"type": "content_block_stop", "index": 0},
                  {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 5}},
                  {"type": "message_stop"}])

    def responses_api(self, data):
        req = json.loads(data or b"{}")
        outs = [i for i in req.get("input", []) if isinstance(i, dict) and i.get("type") == "function_call_output"]
        result = None
        if outs:
            o = outs[-1].get("output")
            result = o if isinstance(o, str) else json.dumps(o)
            with open(os.path.join(DIR, "toolresult"), "w") as f:
                f.write(result)
        if req.get("tools") and result is None:
            names = [t.get("name") for t in req["tools"] if isinstance(t, dict)]
            item = {"type": "function_call", "id": "fc_oto1", "call_id": "call_oto1",
                    "name": shell_tool(names, "exec_command"),
                    "arguments": json.dumps({"cmd": call()["command"]})}
        else:
            item = {"type": "message", "id": "msg_oto", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "done" if result is not None else "ok",
                                 "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        resp = {"id": "resp_oto", "object": "response", "model": req.get("model", "m")}
        if not req.get("stream"):
            out = json.dumps(dict(resp, status="completed", output=[item], usage=usage)).encode()
            self.json_body(out)
            return
        self.sse([{"type": "response.created", "response": dict(resp, status="in_progress", output=[])},
                  {"type": "response.output_item.added", "output_index": 0, "item": item},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": dict(resp, status="completed", output=[item],
                                                                  usage=usage)}])

    def gemini(self, data, stream):
        out = json.dumps(gemini_answer(json.loads(data or b"{}"), self.path.split("/")[-1].split(":")[0])).encode()
        if not stream:
            self.json_body(out)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.chunk(b"data: " + out + b"\r\n\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def reflect(self):
        def forms(v):
            b = v.encode("latin-1")
            f = {"raw": v, "upper": v.upper(), "lower": v.lower(),
                 "pct": "".join("%%%02X" % c for c in b), "quote": urllib.parse.quote(v, safe=""),
                 "u": "".join("\\u%04x" % c for c in b), "hex": b.hex()}
            for k, pre in enumerate((b"", b"x", b"xy")):
                f["b64_%d" % k] = base64.b64encode(pre + b).decode()
                f["url_%d" % k] = base64.urlsafe_b64encode(pre + b).decode()
            return f
        items = list(self.headers.items())
        out = ('{"headers": [' + ", ".join(json.dumps({"name": n, "forms": forms(v)}) for n, v in items) +
               '], "escaped": ' + json.dumps({n: v for n, v in items}).replace("/", "\\/") + "}").encode()
        ae = (self.headers.get("Accept-Encoding") or "").lower()
        force = "force=gzip" in self.path
        enc = "gzip" if force or "gzip" in ae else "deflate" if "deflate" in ae else None
        if enc == "gzip":
            out = gzip.compress(out)
        elif enc == "deflate":
            out = zlib.compress(out)
        status, rng = 200, self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            a, b = int(a), int(b) if b else len(out) - 1
            out, status = out[a:b + 1], 206
        self.send_response(status)
        if enc:
            self.send_header("Content-Encoding", enc)
        self.send_header("X-Echo", self.headers.get("Authorization") or "-")
        self.send_header("X-Echo-B64", base64.b64encode(bytes(self.headers)).decode())
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def handle_one(self):
        data = self.body()
        p = self.path.split("?")[0]
        if p == "/reflect":
            self.reflect()
            return
        if p == "/v1/messages":
            self.messages(data)
            return
        if p == "/v1/responses":
            self.responses_api(data)
            return
        if p.startswith("/v1beta/models/") and p.endswith((":generateContent", ":streamGenerateContent")):
            self.gemini(data, p.endswith(":streamGenerateContent"))
            return
        if p == "/drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if p == "/echo":
            out = json.dumps({"x-api-key": self.headers.get("x-api-key"),
                              "authorization": self.headers.get("authorization"),
                              "path": self.path, "body": data.decode("latin-1")}).encode()
            self.json_body(out)
        elif p == "/leak":
            s = SECRET.encode()
            self.send_response(200)
            self.send_header("X-Echo", "key=" + SECRET)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            body = b"a " + s + b" b " + s + b" c"
            cut = 2 + len(s) // 2
            self.chunk(body[:cut])
            self.chunk(body[cut:])
            self.wfile.write(b"0\r\n\r\n")
        elif p == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.chunk(b"data: one\n\n")
            self.chunk(b"data: two\n\n" if flag_within(10) else b"data: late\n\n")
            self.wfile.write(b"0\r\n\r\n")
        elif p == "/slow":
            flag_within(10)
            self.send_response(200)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"slow")
        elif p == "/sum":
            out = f"{hashlib.sha256(data).hexdigest()} {len(data)}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        elif p == "/rand":
            out = random.Random(7).randbytes(1 << 20)
            self.send_response(200)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        elif p in ("/big", "/bigtext"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(64):
                self.chunk(b"x" * 16384 if p == "/big" else TEXT16K)
            self.wfile.write(b"0\r\n\r\n")
        elif p == "/bye":
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"bye")
            self.wfile.flush()
            self.close_connection = True
        elif p == "/eof":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"a " + SECRET.encode() + b" b")
            self.wfile.flush()
            self.close_connection = True
        elif p == "/close":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif p == "/":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif p.split("/")[1] in ("repos", "repository", "user", "users", "admin"):
            out = json.dumps({"method": self.command, "path": self.path,
                              "authorization": self.headers.get("authorization")}).encode()
            self.json_body(out)
        elif p == "/v1/messages/count_tokens":
            out = b'{"input_tokens": 10}'
            self.json_body(out)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = handle_one


def flag_within(seconds):
    """Whether DIR/flag exists, waited for up to seconds (the test's go)."""
    flag = os.path.join(DIR, "flag")
    t = time.time() + seconds
    while not os.path.exists(flag) and time.time() < t:
        time.sleep(0.05)
    return os.path.exists(flag)


class S(ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        # No reverse lookup (there is no DNS here), and IPv4 too.
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(self.server_address)
        self.server_name, self.server_port = "fakeapi", PORT


def main():
    global DIR, SECRET, PORT
    cert, key, PORT, DIR = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    SECRET = open(sys.argv[5]).read()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    # FAKEAPI_WEAK=1: an upstream that serves a key too small for security
    # level 2 (tests/test_otogate.sh), which OpenSSL would refuse to load.
    if os.environ.get("FAKEAPI_WEAK"):
        ctx.set_ciphers("DEFAULT@SECLEVEL=0")
    ctx.load_cert_chain(cert, key)
    srv = S(("::", PORT), H)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    open(os.path.join(DIR, "ready"), "w").close()
    srv.serve_forever()


if __name__ == "__main__":
    main()
