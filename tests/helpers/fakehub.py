#!/usr/bin/env python3
# The real hosts of otogate's transparent grants, in the fake internet:
#
#   fakehub.py CERT KEY PORT DIR SECRETFILE
#
# serves HTTP/1.1 over TLS on PORT (IPv4 and IPv6, every address) and writes
# DIR/ready once listening. Each request's head is appended to
# DIR/requests ("== HOST METHOD PATH" first). The credential is SECRETFILE's
# value; each service takes it in the form its real counterpart does:
#
#   /git/REPO...   git's smart HTTP (git http-backend, the repositories in
#                  DIR/repos): Basic auth whose password is the value (any
#                  user name), else 401 with WWW-Authenticate: Basic
#   /api/...       a REST API as GitHub's: "Authorization: token VALUE"
#                  (or Bearer), else 401; GET /api/user: 200 {"login": "oto"},
#                  GET /api/echo: 200, the Authorization it got, as JSON;
#                  GET /api/say: 200, the file DIR/say as it is
#   /npm/...       a private npm registry: "Authorization: Bearer VALUE",
#                  else 401; the packument of @oto/private (version 1.0.0)
#                  and its tarball (DIR/private-1.0.0.tgz); PUT of a package
#                  (npm publish): 200 {"ok": true}, its body kept in
#                  DIR/published
#   /open          200 "open\n", no credential asked (the hosts not granted)
import base64, json, os, socket, ssl, subprocess, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CERT, KEY, PORT, DIR = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
SECRET = open(sys.argv[5]).read()
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", ctype="text/plain", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
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

    def auth(self, scheme):
        a = self.headers.get("Authorization", "")
        if scheme == "basic":
            if not a.lower().startswith("basic "):
                return False
            try:
                user, _, pw = base64.b64decode(a[6:].strip(), validate=True).decode().partition(":")
            except Exception:
                return False
            return pw == SECRET
        return a in ("token " + SECRET, "Bearer " + SECRET)

    def git(self, data):
        path, _, query = self.path.partition("?")
        env = {
            "GIT_PROJECT_ROOT": os.path.join(DIR, "repos"),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "oto",
            "REMOTE_ADDR": self.client_address[0],
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path[len("/git"):],
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(data)),
            "PATH": "/usr/bin:/bin",
            "HOME": DIR,
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["/usr/lib/git-core/git-http-backend"], input=data, env=env,
                             capture_output=True).stdout
        head, _, body = out.partition(b"\r\n\r\n")
        status, extra, ctype = 200, [], "text/plain"
        for line in head.split(b"\r\n"):
            k, _, v = line.decode().partition(":")
            v = v.strip()
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k.lower() == "content-type":
                ctype = v
            elif k and k.lower() not in ("content-length",):
                extra.append((k, v))
        self.reply(status, body, ctype, extra)

    def handle_one(self):
        data = self.body()
        with lock:
            with open(os.path.join(DIR, "requests"), "ab") as f:
                f.write(("== %s %s %s\n" % (self.headers.get("Host"), self.command,
                                            self.path)).encode())
                f.write(str(self.headers).encode())
        p = self.path.partition("?")[0]
        host = self.headers.get("Host", "")
        if p == "/open":
            return self.reply(200, b"open\n")
        if p.startswith("/git/"):
            if not self.auth("basic"):
                return self.reply(401, b"auth\n", extra=[("WWW-Authenticate",
                                                         'Basic realm="fakehub"')])
            return self.git(data)
        if p.startswith("/api/"):
            if not self.auth("token"):
                return self.reply(401, b'{"message": "Bad credentials"}', "application/json")
            if p == "/api/user":
                return self.reply(200, b'{"login": "oto"}', "application/json")
            if p == "/api/say":
                with open(os.path.join(DIR, "say"), "rb") as f:
                    return self.reply(200, f.read(), "application/json")
            if p == "/api/echo":
                out = json.dumps({"authorization": self.headers.get("Authorization")})
                return self.reply(200, out.encode(), "application/json")
            return self.reply(404, b'{"message": "Not Found"}', "application/json")
        if p.startswith("/npm/"):
            if not self.auth("token"):
                return self.reply(401, b'{"error": "unauthorized"}', "application/json")
            if self.command == "PUT":
                with open(os.path.join(DIR, "published"), "wb") as f:
                    f.write(data)
                return self.reply(200, b'{"ok": true}', "application/json")
            tgz = os.path.join(DIR, "private-1.0.0.tgz")
            if p in ("/npm/@oto%2fprivate", "/npm/@oto%2Fprivate", "/npm/@oto/private"):
                with open(tgz, "rb") as t:
                    import hashlib
                    blob = t.read()
                meta = {"name": "@oto/private", "dist-tags": {"latest": "1.0.0"},
                        "versions": {"1.0.0": {
                            "name": "@oto/private", "version": "1.0.0",
                            "dist": {"tarball": "https://%s/npm/@oto/private/-/private-1.0.0.tgz"
                                     % host,
                                     "shasum": hashlib.sha1(blob).hexdigest()}}}}
                return self.reply(200, json.dumps(meta).encode(), "application/json")
            if p == "/npm/@oto/private/-/private-1.0.0.tgz":
                with open(tgz, "rb") as t:
                    return self.reply(200, t.read(), "application/octet-stream")
            return self.reply(404, b'{"error": "not found"}', "application/json")
        self.reply(404, b"")

    do_GET = do_POST = do_HEAD = do_PUT = handle_one


class S(ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        # No reverse lookup (there is no DNS here), and IPv4 too.
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(self.server_address)
        self.server_name, self.server_port = "fakehub", PORT


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
srv = S(("::", PORT), H)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open(os.path.join(DIR, "ready"), "w").close()
srv.serve_forever()
