#!/usr/bin/env python3
# The subscription providers of the three agent CLIs, in the fake internet:
#
#   fakeprovider.py CERT KEY PORT DIR
#
# serves HTTP/1.1 over TLS on PORT (IPv4 and IPv6; CERT names every host
# below) and writes DIR/ready once listening. It answers by the Host header
# as each real host does, with the same paths, bodies and fields (FINDINGS).
#
# State, per provider P (claude, codex, gemini), in DIR/P.json, which a test
# writes before the CLI starts and the fake rewrites at each refresh:
#   {"refresh_token": the one valid refresh token, "access_token": the one
#    valid access token (or absent), "rotate": whether a refresh answers a
#    new refresh token (default: claude and codex yes, gemini no, as the
#    real ones do), "expires_in": seconds (default: as the real ones),
#    "hostile": a token endpoint that echoes the refresh token it was sent
#    ("error": in a 400's body; "field", "base64": in another field of its
#    answer, as it is or in base64; "header": in a header), or that takes
#    the refresh and stalls ("hang": answers nothing; "drip": its head,
#    then a byte of its body every 0.2 s; either for 10 s at most, then it
#    closes)}
# A refresh checks grant_type, client_id (and gemini's client_secret), the
# body's content type and that the refresh token is the valid one; it then
# invalidates the old tokens, issues new ones and appends each to DIR/issued
# ("P access|refresh|id TOKEN"). A refresh with an invalid token gets 400
# invalid_grant. Every other call of P's hosts needs "Authorization: Bearer"
# with the valid access token (gemini's tokeninfo: in the query), else 401.
#
# Every request is appended to DIR/requests as fakeapi.py does, its first
# line "== METHOD HOST PATH". The model calls run fakeapi.py's scripted
# model (DIR/call, DIR/toolresult): a call of the CLI's shell tool first,
# "done" after its result.
#
# FINDINGS (read in each CLI's own code, then seen against this fake):
# Claude Code 2.1.332 (its native binary's JS): refreshes when expiresAt
#   (ms) is near; POST https://platform.claude.com/v1/oauth/token (hard-
#   coded; CLAUDE_CODE_CUSTOM_OAUTH_URL takes only Anthropic's own hosts),
#   JSON {grant_type, refresh_token, client_id, scope} (the scope its own
#   list, not the file's); reads access_token, refresh_token (kept when
#   absent), expires_in, scope, account, organization; writes accessToken,
#   refreshToken, expiresAt, scopes back. Then, Bearer to api.anthropic.com:
#   GET /api/oauth/profile (twice), GET /v1/mcp_servers (404 here, taken),
#   POST /v1/messages?beta=true (anthropic-beta: oauth-2025-04-20,...).
#   Off: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, DISABLE_TELEMETRY,
#   DISABLE_AUTOUPDATER. CA: NODE_EXTRA_CA_CERTS.
# codex 0.171.0 (static musl Rust): refreshes when the access JWT's exp
#   has passed; POST https://auth.openai.com/oauth/token, JSON {client_id,
#   grant_type, refresh_token}; reads id_token, access_token, refresh_token;
#   writes the three and last_refresh back. Bearer plus chatgpt-account-id
#   to https://chatgpt.com/backend-api: GET /wham/accounts/check (needed:
#   "workspace routing discovery failed" without an account of the token's
#   id and its origin), /codex/models (404 here: the bundled catalogue),
#   /wham/settings/user, /ps/plugins/..., POST /ps/mcp,
#   /codex/analytics-events/events; the model call first as a WebSocket
#   (GET /codex/responses, Upgrade: this fake answers 426, as otogate does,
#   and codex goes on at once; to a 404 or a 5xx it tries 6 times, about
#   6 s) and then POST /codex/responses, its body zstd (Content-Encoding).
#   The catalogue's default model offers only a JavaScript "exec" tool
#   (code mode): the test names examples/codex's model. CA:
#   CODEX_CA_CERTIFICATE. Off: [analytics] enabled = false,
#   check_for_update_on_startup = false.
# gemini-cli 0.61.0 (google-auth-library 10): refreshes when expiry_date
#   (ms) is near; POST https://oauth2.googleapis.com/token, a form
#   {refresh_token, client_id, client_secret, grant_type}; then POST
#   oauth2.googleapis.com/tokeninfo with the Bearer (this version: not in
#   the query), GET www.googleapis.com/oauth2/v2/userinfo, and
#   cloudcode-pa.googleapis.com/v1internal: loadCodeAssist,
#   retrieveUserQuota, listExperiments (404 here, taken),
#   streamGenerateContent?alt=sse. It writes the refresh ANSWER as its file
#   (access_token, expiry_date, scope, token_type, id_token) with the old
#   refresh_token put back: a rotated one would be lost (the library sets
#   the old one on the tokens after its "tokens" event, before the file is
#   written), so this fake does not rotate Google's by default, as Google
#   does not. Off: privacy.usageStatisticsEnabled, general.enableAutoUpdate.
#   CA: NODE_EXTRA_CA_CERTS.
import base64, json, os, secrets, subprocess, sys, threading, time, urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakeapi  # noqa: E402  the scripted model, the server class

# A JWT as the providers sign theirs: a header and claims of the real
# shape, an RS256-sized signature of random bytes (nobody here checks it).
def jwt(claims):
    def b64(d):
        return base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).rstrip(b"=").decode()
    sig = base64.urlsafe_b64encode(secrets.token_bytes(256)).rstrip(b"=").decode()
    return b64({"alg": "RS256", "kid": "oto-fake-1", "typ": "JWT"}) + "." + b64(claims) + "." + sig


def rnd(n):
    return base64.urlsafe_b64encode(secrets.token_bytes(n)).rstrip(b"=").decode()


CLAUDE_CLIENT = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
CODEX_CLIENT = "app_EMoamEEZ73f0CkXaXp7hrann"
GEMINI_CLIENT = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
GEMINI_SECRET = "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"
ACCOUNT = "8f2d3c4e-1a2b-4c5d-9e8f-0a1b2c3d4e5f"
EMAIL = "agent@example.test"


def claude_tokens(st):
    return {"access": "sk-ant-oat01-" + rnd(80) + "AA", "refresh": "sk-ant-ort01-" + rnd(80) + "AA"}


def claude_answer(tok, st, scope):
    return {"token_type": "Bearer", "access_token": tok["access"], "expires_in": st.get("expires_in", 28800),
            "refresh_token": tok["refresh"], "scope": scope,
            "organization": {"uuid": "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d", "name": "oto test"},
            "account": {"uuid": ACCOUNT, "email_address": EMAIL}}


def codex_claims(exp):
    now = int(time.time())
    auth = {"chatgpt_account_id": ACCOUNT, "chatgpt_plan_type": "plus", "chatgpt_user_id": "user-oto0test",
            "user_id": "user-oto0test"}
    access = {"aud": ["https://api.openai.com/v1"], "client_id": CODEX_CLIENT, "exp": exp, "iat": now,
              "iss": "https://auth.openai.com", "jti": rnd(12), "nbf": now,
              "scp": ["openid", "profile", "email", "offline_access"], "sub": "auth0|oto0test",
              "https://api.openai.com/auth": auth, "https://api.openai.com/profile": {"email": EMAIL,
                                                                                    "email_verified": True}}
    idt = {"aud": [CODEX_CLIENT], "auth_provider": "password", "email": EMAIL, "email_verified": True,
           "exp": now + 3600, "iat": now, "iss": "https://auth.openai.com", "jti": rnd(12), "sub": "auth0|oto0test",
           "https://api.openai.com/auth": dict(auth, chatgpt_subscription_active_start=now - 86400,
                                               chatgpt_subscription_active_until=now + 30 * 86400)}
    return access, idt


def codex_tokens(st):
    access, idt = codex_claims(int(time.time()) + st.get("expires_in", 864000))
    return {"access": jwt(access), "refresh": "rt_" + rnd(32) + "." + rnd(32), "id": jwt(idt)}


def codex_answer(tok, st, scope):
    out = {"id_token": tok["id"], "access_token": tok["access"], "refresh_token": tok["refresh"],
           "expires_in": st.get("expires_in", 864000), "scope": "openid profile email offline_access",
           "token_type": "bearer"}
    return out


def gemini_tokens(st):
    now = int(time.time())
    idt = {"iss": "https://accounts.google.com", "azp": GEMINI_CLIENT, "aud": GEMINI_CLIENT,
           "sub": "104200000000000000001", "email": EMAIL, "email_verified": True, "at_hash": rnd(16),
           "iat": now, "exp": now + 3600}
    return {"access": "ya29.a0" + rnd(150), "refresh": "1//0" + rnd(70), "id": jwt(idt)}


def gemini_answer(tok, st, scope):
    out = {"access_token": tok["access"], "expires_in": st.get("expires_in", 3599),
           "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email "
                    "https://www.googleapis.com/auth/userinfo.profile openid",
           "token_type": "Bearer", "id_token": tok["id"]}
    if st.get("rotate", False):
        out["refresh_token"] = tok["refresh"]
    return out


# Each provider: its token endpoint (host, path, body kind, client), the
# tokens' shapes, its answer, and the hosts whose calls need its Bearer.
PROVIDERS = {
    "claude": {"token": ("platform.claude.com", "/v1/oauth/token", "json"),
               "client": {"client_id": CLAUDE_CLIENT}, "rotate": True,
               "tokens": claude_tokens, "answer": claude_answer, "hosts": ("api.anthropic.com",)},
    "codex": {"token": ("auth.openai.com", "/oauth/token", "json"),
              "client": {"client_id": CODEX_CLIENT}, "rotate": True,
              "tokens": codex_tokens, "answer": codex_answer, "hosts": ("chatgpt.com",)},
    "gemini": {"token": ("oauth2.googleapis.com", "/token", "form"),
               "client": {"client_id": GEMINI_CLIENT, "client_secret": GEMINI_SECRET}, "rotate": False,
               "tokens": gemini_tokens, "answer": gemini_answer,
               "hosts": ("cloudcode-pa.googleapis.com", "www.googleapis.com", "oauth2.googleapis.com")},
}
lock = threading.Lock()


def state(p):
    try:
        with open(os.path.join(fakeapi.DIR, p + ".json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def save(p, st):
    path = os.path.join(fakeapi.DIR, p + ".json")
    with open(path + ".tmp", "w") as f:
        json.dump(st, f)
    os.replace(path + ".tmp", path)


class H(fakeapi.H):
    def body(self):
        # fakeapi's log, with the host (the providers share paths) and each
        # header on one line (email's folding splits a long Bearer).
        data = self.read_body()
        # codex compresses its model calls' bodies (zstd), as the ChatGPT
        # backend accepts: the log and the scripted model get them plain.
        if self.headers.get("Content-Encoding", "").lower() == "zstd" and data:
            data = subprocess.run(["zstd", "-dcq"], input=data, capture_output=True, check=True).stdout
        host = (self.headers.get("Host") or "").split(":")[0]
        head = "".join(f"{k}: {v}\n" for k, v in self.headers.items())
        with fakeapi.lock, open(os.path.join(fakeapi.DIR, "requests"), "ab") as f:
            f.write(f"== {self.command} {host} {self.path}\n{head}\n".encode("latin-1") + data + b"\n")
        return data

    def stall(self, drip):
        """Nothing, or a head and a byte every 0.2 s, until the client closes (10 s at most)."""
        import select
        if drip:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
        for _ in range(50):
            r, _w, _x = select.select([self.connection], [], [], 0.2)
            try:
                # The client sends nothing more: readable means it closed.
                if r and not self.connection.recv(1):
                    break
            except OSError:
                break
            if drip:
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    break
        self.close_connection = True

    def send_json(self, status, obj, headers=()):
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for h in headers:
            self.send_header(*h)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def refresh(self, p, data):
        prov = PROVIDERS[p]
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if prov["token"][2] == "json":
            want = "application/json"
            try:
                form = json.loads(data)
            except ValueError:
                form = None
        else:
            want = "application/x-www-form-urlencoded"
            pairs = urllib.parse.parse_qsl(data.decode("latin-1"), keep_blank_values=True)
            form = dict(pairs) if len({k for k, _ in pairs}) == len(pairs) else None
        if ctype != want or not isinstance(form, dict):
            self.send_json(400, {"error": "invalid_request", "error_description": "body"})
            return
        if form.get("grant_type") != "refresh_token":
            self.send_json(400, {"error": "unsupported_grant_type"})
            return
        if any(form.get(k) != v for k, v in prov["client"].items()):
            self.send_json(401, {"error": "invalid_client"})
            return
        # A hostile endpoint (DIR/P.json's "hostile"): the refresh token it
        # was sent, echoed in an error body, another field, base64, a header.
        hostile, sent = state(p).get("hostile"), form.get("refresh_token", "")
        if hostile in ("hang", "drip"):
            self.stall(hostile == "drip")
            return
        if hostile == "error":
            self.send_json(400, {"error": "invalid_grant", "error_description": "bad token " + sent})
            return
        with lock:
            st = state(p)
            if not st.get("refresh_token") or form.get("refresh_token") != st["refresh_token"]:
                self.send_json(400, {"error": "invalid_grant", "error_description": "refresh token invalid"})
                return
            tok = prov["tokens"](st)
            rotate = st.get("rotate", prov["rotate"])
            if not rotate:
                tok["refresh"] = st["refresh_token"]
            st["access_token"] = tok["access"]
            st["refresh_token"] = tok["refresh"]
            st.setdefault("refreshes", 0)
            st["refreshes"] += 1
            save(p, st)
            with open(os.path.join(fakeapi.DIR, "issued"), "a") as f:
                for k in ("access", "refresh", "id"):
                    if k in tok and (k != "refresh" or rotate):
                        f.write(f"{p} {k} {tok[k]}\n")
        answer, headers = prov["answer"](tok, dict(st, rotate=rotate), form.get("scope", "")), ()
        if hostile == "field":
            answer["echo"] = sent
        elif hostile == "base64":
            answer["b"] = base64.b64encode(sent.encode()).decode()
        elif hostile == "header":
            headers = (("X-Echo", sent),)
        self.send_json(200, answer, headers)

    def authorized(self, p, token=None):
        if token is None:
            a = self.headers.get("Authorization") or ""
            token = a[7:] if a.startswith("Bearer ") else None
        with lock:
            good = state(p).get("access_token")
        if token and token == good:
            return True
        if p == "claude":
            self.send_json(401, {"type": "error", "error": {"type": "authentication_error",
                                                            "message": "Invalid bearer token"}})
        elif p == "codex":
            self.send_json(401, {"error": {"message": "Your authentication token has expired.",
                                           "type": "invalid_request_error", "code": "token_expired"}})
        else:
            self.send_json(401, {"error": {"code": 401, "message": "Request had invalid authentication "
                                           "credentials.", "status": "UNAUTHENTICATED"}})
        return False

    def handle_one(self):
        data = self.body()
        host = (self.headers.get("Host") or "").split(":")[0]
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        for p, prov in PROVIDERS.items():
            if (host, url.path) == prov["token"][:2] and self.command == "POST":
                self.refresh(p, data)
                return
        p = next((p for p, prov in PROVIDERS.items() if host in prov["hosts"]), None)
        if p is None:
            self.send_json(404, {"error": "no such host here"})
            return
        # gemini-cli's check of the token: google-auth-library's
        # getTokenInfo, a POST with the Bearer (10.x); older versions put
        # it in the query, which Google still takes.
        if (host, url.path) == ("oauth2.googleapis.com", "/tokeninfo"):
            if self.authorized(p, q.get("access_token")):
                self.send_json(200, {"azp": GEMINI_CLIENT, "aud": GEMINI_CLIENT, "sub": "104200000000000000001",
                                     "scope": PROVIDERS["gemini"]["answer"]({"access": "", "id": ""}, {}, "")[
                                         "scope"], "exp": str(int(time.time()) + 3000), "expires_in": "3000",
                                     "email": EMAIL, "email_verified": "true", "access_type": "offline"})
            return
        if not self.authorized(p):
            return
        getattr(self, "api_" + p)(url.path, q, data)

    def api_claude(self, path, q, data):
        if path == "/v1/messages":
            self.messages(data)
        elif path == "/api/oauth/profile":
            self.send_json(200, {"account": {"uuid": ACCOUNT, "email": EMAIL, "email_address": EMAIL,
                                             "full_name": "Oto Test", "display_name": "oto",
                                             "has_claude_max": False, "has_claude_pro": True,
                                             "created_at": "2025-01-01T00:00:00Z"},
                                 "organization": {"uuid": "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
                                                  "name": "oto test", "organization_type": "claude_pro",
                                                  "billing_type": "stripe_subscription",
                                                  "rate_limit_tier": "default_claude_ai",
                                                  "has_extra_usage_enabled": False,
                                                  "subscription_created_at": "2025-01-01T00:00:00Z"}})
        elif path == "/v1/messages/count_tokens":
            self.send_json(200, {"input_tokens": 10})
        else:
            self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}})

    def api_codex(self, path, q, data):
        if path == "/backend-api/codex/responses" and self.command == "POST":
            self.responses_api(data)
        elif path == "/backend-api/codex/responses" and self.headers.get("Upgrade"):
            self.send_json(426, {"detail": "no WebSocket here"})
        elif path == "/backend-api/wham/accounts/check":
            # The workspace routing codex needs before a turn: the account
            # of the token, its backend origin (codex-rs app-server's
            # routing_from_account).
            self.send_json(200, {"accounts": [{"id": ACCOUNT, "name": None, "structure": "personal",
                                               "workspace_backend_origin": "https://chatgpt.com",
                                               "account_routing_override": "NO_CONSTRAINT"}],
                                 "account_ordering": [ACCOUNT], "default_account_id": ACCOUNT})
        else:
            self.send_json(404, {"detail": "Not Found"})

    def api_gemini(self, path, q, data):
        if path == "/oauth2/v2/userinfo":
            self.send_json(200, {"id": "104200000000000000001", "email": EMAIL, "verified_email": True,
                                 "name": "Oto Test", "picture": "https://example.test/p.png"})
        elif path == "/v1internal:loadCodeAssist":
            tier = {"id": "standard-tier", "name": "Gemini Code Assist", "description": "",
                    "userDefinedCloudaicompanionProject": False}
            self.send_json(200, {"currentTier": tier, "allowedTiers": [dict(tier, isDefault=True)],
                                 "cloudaicompanionProject": "oto-test-project", "gcpManaged": False})
        elif path in ("/v1internal:streamGenerateContent", "/v1internal:generateContent"):
            req = json.loads(data or b"{}")
            out = json.dumps({"response": fakeapi.gemini_answer(req.get("request", {}), req.get("model", "m")),
                              "traceId": rnd(8)}).encode()
            if path.endswith("generateContent") and "stream" not in path:
                self.json_body(out)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.chunk(b"data: " + out + b"\r\n\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_json(404, {"error": {"code": 404, "message": "Not found", "status": "NOT_FOUND"}})

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = handle_one


# The login file each CLI keeps in its home, as its own login writes it,
# with the access token expiring at EXP (seconds since the epoch): P's
# path under the home, and its text for the tokens TOK.
def login_file(p, tok, exp):
    if p == "claude":
        return ".claude/.credentials.json", {"claudeAiOauth": {
            "accessToken": tok["access"], "refreshToken": tok["refresh"], "expiresAt": exp * 1000,
            "scopes": ["user:inference", "user:profile", "user:sessions:claude_code"],
            "subscriptionType": "pro", "rateLimitTier": "default_claude_ai"}}
    if p == "codex":
        return ".codex/auth.json", {"OPENAI_API_KEY": None, "tokens": {
            "id_token": tok["id"], "access_token": tok["access"], "refresh_token": tok["refresh"],
            "account_id": ACCOUNT}, "last_refresh": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z",
                                                                  time.gmtime(exp - 86400))}
    return ".gemini/oauth_creds.json", {"access_token": tok["access"], "refresh_token": tok["refresh"],
                                        "scope": gemini_answer(tok, {}, "")["scope"], "token_type": "Bearer",
                                        "id_token": tok["id"], "expiry_date": exp * 1000}


# fakeprovider.py seed DIR P HOME [valid]: a new subscription of P, its
# refresh token the valid one in DIR/P.json, its login file written into
# HOME as above; the file's path printed. Its access token expired an hour
# ago (none valid yet), or with "valid" expires in 8 hours and is the valid
# one.
def seed(d, p, home, valid=None):
    tok = PROVIDERS[p]["tokens"]({})
    exp = int(time.time()) + (8 * 3600 if valid == "valid" else -3600)
    if p == "codex":
        tok["access"] = jwt(codex_claims(exp)[0])
    path, text = login_file(p, tok, exp)
    fakeapi.DIR = d
    st = {"refresh_token": tok["refresh"]}
    if valid == "valid":
        st["access_token"] = tok["access"]
    save(p, st)
    full = os.path.join(home, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        json.dump(text, f, indent=2)
    os.chmod(full, 0o600)
    print(full)


def main():
    if sys.argv[1] == "seed":
        seed(*sys.argv[2:6])
        return
    import ssl
    cert, key, fakeapi.PORT, fakeapi.DIR = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = fakeapi.S(("::", fakeapi.PORT), H)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    open(os.path.join(fakeapi.DIR, "ready"), "w").close()
    srv.serve_forever()


if __name__ == "__main__":
    main()
