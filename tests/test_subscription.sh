#!/bin/sh
# The three agent CLIs in subscription (OAuth) mode against the fake
# providers (tests/helpers/fakeprovider.py, tests/net/provider.sh), WITHOUT
# oto: the proof that the fakes answer as the real endpoints do. Each CLI,
# at its pinned version (tests/net/api.sh), starts in the fake host with its
# login file in a fresh home and the access token there expired an hour
# ago. It refreshes at its provider's real token endpoint (by name, the
# test CA trusted), makes its model call, runs the scripted model's shell
# tool, and answers "done". Each test asserts that the refresh carried the
# file's refresh token, every call after it the new access token, and that
# the CLI wrote the new tokens back into its file.
#
# Then the same CLIs THROUGH oto, each as examples/EX/subscription.conf runs
# it (otorun --login, the login file sealed with otosecret import), with an
# access token still valid: the fake gets the real token, and the tool's
# output, the environment, /proc and every file of the view's writable
# trees and the home hold phantoms only. examples/setup.sh makes that
# recipe. Then with an expired token, refreshed through the gateway: the
# fake gets the real refresh token, the store the rotated tokens, and a
# second session starts from them with no refresh.
# run-as: root
# sanitized: no (about 45 s more of CI for the real CLIs; the gateway's --login and refresh
# run under the sanitizers in test_otogate_login.sh and test_otogate_refresh.sh)
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"
. "$OTO_TESTS/net/api.sh"
. "$OTO_TESTS/net/provider.sh"

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'prov_down; topo_down' EXIT
	trap 'prov_down; topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	prov_up || { echo "the fake providers failed" >&2; exit 1; }
}

oneTimeTearDown() {
	[ -n "$IS_ROOT" ] || return 0
	prov_down
	topo_down
}

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$P/requests"
	: >"$P/issued"
	rm -f "$P/toolresult" "$P/call"
	mkdir -p "$T/home/work"
}

# login NAME: a new subscription at the fake, its login file in $T/home
# ($F), the refresh token it holds in $R.
login() {
	F=$($PY "$OTO_TESTS/helpers/fakeprovider.py" seed "$P" "$1" "$T/home")
	R=$(state "$1" refresh_token)
}

# state NAME FIELD: the fake's current FIELD of NAME (access_token,
# refresh_token, refreshes; 0 when it has none).
state() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$P/$1.json" "$2"; }

# field FILE PATH: a field of the login file (PATH dotted).
field() {
	$PY -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$1" "$2"
}

# cli ENV... -- CMD...: CMD as the test user in the fake host, in
# $T/home/work, with a bare environment: HOME, PATH, the test CA, ENVs; the
# CLI's install $C seen at $T/cli (a bind mount in ip netns exec's own
# mount namespace: the account may not reach $C itself, under a checkout
# in /root).
cli() {
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$T/home"
	mkdir -p "$T/cli"
	_env=
	while [ "$1" != -- ]; do _env="$_env $1"; shift; done
	shift
	# shellcheck disable=SC2016,SC2086 # the mount's script; _env: words
	run in_host sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$C" "$T/cli" \
		setpriv --reuid "$OTO_TEST_USER" --regid "$OTO_TEST_USER" --clear-groups \
		sh -c 'cd "$0" && exec "$@"' "$T/home/work" timeout 30 env -i PATH=/usr/bin:/bin HOME="$T/home" \
		NODE_EXTRA_CA_CERTS="$K/ca.pem" $_env "$@" </dev/null
}

# assertRefreshed NAME HOST-RE: one refresh at the fake, with the refresh
# token of the login file; every call to NAME's API hosts (HOST-RE) with
# the access token it issued; the tool's output back in the model call.
assertRefreshed() {
	assertEquals "rc: $(tail -c 1500 "$T/err")" 0 "$rc"
	assertEquals "done" "$(tail -n 1 "$T/out")"
	assertEquals "one refresh" 1 "$(state "$1" refreshes)"
	A=$(state "$1" access_token)
	assertEquals "the issued access token" "$1 access $A" "$(grep "^$1 access " "$P/issued")"
	# JSON as it is, a form's body with its slashes encoded (%2F).
	assertContains "the refresh, with the file's refresh token" \
		"$(sed -n '/^== POST [a-z2.]* \/[a-z/0-9]*token$/,/^== /p' "$P/requests" | sed 's|%2F|/|g')" "$R"
	assertEquals "the calls after it, with the new access token" "authorization: Bearer $A" \
		"$(awk -v re="^== [A-Z]+ ($2) " '/^== /{on = $0 ~ re} on && tolower($0) ~ /^authorization:/' \
			"$P/requests" | sed 's/^[Aa]uthorization/authorization/' | sort -u)"
	assertEquals "the tool ran: its HOME" 1 "$(grep -c "^HOME=$T/home$" "$P/toolresult")"
}

# Claude Code: its token endpoint (platform.claude.com, JSON), its profile,
# and the Messages API with the Bearer; it writes the rotated pair back.
test_claude_code_refreshes_and_calls_with_the_new_token() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	login claude
	cli CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 -- \
		"$T/cli/node_modules/.bin/claude" -p "Show me the environment." --dangerously-skip-permissions
	assertRefreshed claude api.anthropic.com
	assertEquals "the refresh's body" \
		"{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\",\"client_id\":\"9d1c250a-e61b-44d9-88ed-5944d1962f5e\",\"scope\":\"user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload user:plugins\"}" \
		"$(sed -n '/^== POST platform.claude.com \/v1\/oauth\/token$/,/^== /{/^{/p}' "$P/requests")"
	assertEquals "2 model calls" 2 "$(grep -c '^== POST api.anthropic.com /v1/messages?beta=true$' "$P/requests")"
	assertEquals "the new access token, in the file" "$A" "$(field "$F" claudeAiOauth.accessToken)"
	assertEquals "the rotated refresh token, in the file" "$(state claude refresh_token)" \
		"$(field "$F" claudeAiOauth.refreshToken)"
	assertNotEquals "rotated" "$R" "$(field "$F" claudeAiOauth.refreshToken)"
}

# codex, ChatGPT sign-in: its token endpoint (auth.openai.com, JSON), the
# ChatGPT backend's account check and Responses API (over HTTPS: the fake
# refuses the WebSocket it tries first); the model of examples/codex, whose
# tools are the plain ones; it writes the three tokens back.
test_codex_refreshes_and_calls_with_the_new_token() {
	C=$AGENTS/codex
	npm_cli "$C" "$CODEX" || return 0
	login codex
	printf '%s\n' 'sandbox_mode = "danger-full-access"' 'approval_policy = "never"' \
		'check_for_update_on_startup = false' 'model = "gpt-5-codex"' '[analytics]' 'enabled = false' \
		>"$T/home/.codex/config.toml"
	cli CODEX_CA_CERTIFICATE="$K/ca.pem" -- \
		"$T/cli/node_modules/.bin/codex" exec --skip-git-repo-check "Show me the environment."
	assertRefreshed codex chatgpt.com
	assertEquals "2 model calls" 2 "$(grep -c '^== POST chatgpt.com /backend-api/codex/responses$' "$P/requests")"
	# Its WebSocket tried first, refused 426 by the fake: tried no more.
	assertEquals "the WebSocket's tries" 1 "$(grep -c '^== GET chatgpt.com /backend-api/codex/responses$' "$P/requests")"
	assertEquals "the account header" "chatgpt-account-id: 8f2d3c4e-1a2b-4c5d-9e8f-0a1b2c3d4e5f" \
		"$(grep -i '^chatgpt-account-id:' "$P/requests" | sort -u)"
	assertEquals "the new access token, in the file" "$A" "$(field "$F" tokens.access_token)"
	assertEquals "the new id token, in the file" "codex id $(field "$F" tokens.id_token)" \
		"$(grep '^codex id ' "$P/issued")"
	assertEquals "the rotated refresh token, in the file" "$(state codex refresh_token)" \
		"$(field "$F" tokens.refresh_token)"
	assertNotEquals "rotated" "$R" "$(field "$F" tokens.refresh_token)"
}

# gemini-cli, Google sign-in: its token endpoint (oauth2.googleapis.com, a
# form), tokeninfo and userinfo, then Code Assist (cloudcode-pa); Google
# keeps the refresh token, the file gets the answer's access token.
test_gemini_cli_refreshes_and_calls_with_the_new_token() {
	gemini_cli || return 0
	login gemini
	printf '{"security": {"auth": {"selectedType": "oauth-personal"}, "folderTrust": {"enabled": true}},
 "model": {"name": "gemini-2.5-pro"}, "privacy": {"usageStatisticsEnabled": false},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}}\n' >"$T/home/.gemini/settings.json"
	printf '{"%s": "TRUST_FOLDER"}\n' "$T/home/work" >"$T/home/.gemini/trustedFolders.json"
	cli PATH="$T/cli/bin:/usr/bin:/bin" -- "$T/cli/bin/gemini" -p "Show me the environment." --yolo
	assertRefreshed gemini 'cloudcode-pa.googleapis.com|www.googleapis.com|oauth2.googleapis.com /tokeninfo'
	assertEquals "the refresh's body" \
		"refresh_token=$(printf %s "$R" | sed 's|/|%2F|g')&client_id=681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com&client_secret=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&grant_type=refresh_token" \
		"$(sed -n '/^== POST oauth2.googleapis.com \/token$/,/^== /{/^refresh_token=/p}' "$P/requests")"
	assertEquals "2 model calls" 2 \
		"$(grep -c '^== POST cloudcode-pa.googleapis.com /v1internal:streamGenerateContent?alt=sse$' "$P/requests")"
	assertEquals "the new access token, in the file" "$A" "$(field "$F" access_token)"
	assertEquals "the refresh token kept" "$R" "$(field "$F" refresh_token)"
}

# ---- Through oto: each CLI as examples/EX/subscription.conf runs it,
# otorun --login, its login file sealed with otosecret import. ----

# sealed NAME: a subscription of NAME at the fake, its login file on the
# host ($F, in $T/host, outside any view) sealed whole into $T/st/store (key
# $T/key) by otosecret import; every real token of the file in $T/reals,
# one a line, with a JWT's signature alone too (a phantom JWT keeps the
# rest). The access token expired an hour ago, or, with "valid", is valid
# for 8 hours.
sealed() {
	mkdir -p "$T/host" "$T/st"
	F=$($PY "$OTO_TESTS/helpers/fakeprovider.py" seed "$P" "$1" "$T/host" ${2:+"$2"})
	R=$(state "$1" refresh_token)
	"$OTO_BIN/otosecret" keygen --out "$T/key" &&
		"$OTO_BIN/otosecret" import --profile "$1" --key-file "$T/key" --store "$T/st/store" "$F" >"$T/import" ||
		fail "import: $(cat "$T/import")"
	# The store's, as an operator keeps it: the account the gateway runs as
	# owns it and its directory, so that a refresh's tokens are sealed back.
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$T/st"
	reals "$F" >"$T/reals"
}

# reals FILE [TOKEN...]: the tokens of a login file (each secret field of
# the three profiles) and the TOKENs, each JWT's signature after it.
reals() {
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2:]
for path in ("claudeAiOauth.accessToken", "claudeAiOauth.refreshToken", "tokens.access_token",
             "tokens.refresh_token", "tokens.id_token", "access_token", "refresh_token", "id_token"):
    v = d
    for k in path.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    if isinstance(v, str):
        out.append(v)
for v in out:
    print(v)
    if v.count(".") == 2 and v.startswith("eyJ"):
        print(v.rsplit(".", 1)[1])' "$@"
}

# sub_recipe EX: examples/EX/subscription.conf in $T/subscription.conf,
# its places the test's: the tree $A, the account, the store and key in
# $T, the CLI's install $C, the home skeleton $T/skel.
sub_recipe() {
	sed -e "s|^--agent-root .*|--agent-root $A|" -e "s|^--as .*|--as $OTO_TEST_USER|" \
		-e "s|^--store .*|--store $T/st/store|" -e "s|^--key-file .*|--key-file $T/key|" \
		-e "s|^--ro /opt/\([a-z]*\):|--ro $C:|" -e "s|^--home-skel .*|--home-skel $T/skel|" \
		"$OTO_TOP/examples/$1/subscription.conf" >"$T/subscription.conf"
	assertEquals "the recipe, only its places changed" 6 \
		"$(diff "$OTO_TOP/examples/$1/subscription.conf" "$T/subscription.conf" | grep -c '^>')"
}

# through EX CLI [ARG]...: examples/EX/subscription.conf (the login file at
# $LOGIN under the home), its places the
# test's (the tree, the account, the store and key, the CLI's install in
# $C, the home skeleton in $T/skel), run by otorun in the fake host with the
# fake internet public and the fakes' CA trusted (the gateway's upstreams;
# the view's bundle). After the CLI, the same session writes into
# /work/.scan (on the host, $A/workspace/.scan): env, /proc's environ and
# cmdline, the home's login file, the list of the view's writable mounts,
# and all, every file under them and the home.
through() {
	_ex=$1
	shift
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$T/skel"
	sub_recipe "$_ex"
	# shellcheck disable=SC2016,SC2086 # the session's script; PUB: options
	run in_host "$OTO_BIN/otorun" --config "$T/subscription.conf" $PUB --ca-file "$K/ca.pem" -- sh -c 'login=$1
		shift
		"$@" </dev/null
		rc=$?
		mkdir /work/.scan && cd /work/.scan || exit 99
		env >env
		cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline >proc 2>/dev/null
		cp "$HOME/$login" login
		awk '\''$6 ~ /^rw/ && $5 !~ /^\/(proc|sys)(\/|$)/ && $5 != "/dev" {print $5}'\'' /proc/self/mountinfo | sort -u >mounts
		{ cat mounts; echo "$HOME"; } | while IFS= read -r m; do
			find "$m" -xdev -path /work/.scan -prune -o -type f -print
		done | sort -u >files
		while IFS= read -r f; do cat "$f"; done <files >all 2>/dev/null
		exit $rc' sh "$LOGIN" "$@"
	S=$A/workspace/.scan
}

# assertNoReal: no real token ($T/reals) in the tool's output, the
# environment, /proc, the login file in the home or any file of the view's
# writable trees (the scan), or what the CLI printed.
assertNoReal() {
	assertTrue "the scan" "[ -s '$S/files' ] && [ -s '$S/env' ] && [ -s '$S/proc' ]"
	assertContains "the home among the scanned" "$(cat "$S/files")" "/home/agent/$LOGIN"
	assertContains "/work among the mounts" "$(cat "$S/mounts")" "/work"
	for f in "$P/toolresult" "$S/env" "$S/proc" "$S/login" "$S/all" "$T/out" "$T/err"; do
		assertFalse "a real token in $f: $(grep -aoF -f "$T/reals" "$f" | head -n 1)" \
			"grep -aqF -f '$T/reals' '$f'"
	done
}

# assertOnlyPhantoms NAME: the fake's calls to NAME's API hosts (HOST-RE)
# carried the real access token $2; the CLI answered, its tool ran; no real
# token ($T/reals) in the tool's output, the environment, /proc, the login
# file in the home or any file of the view's writable trees; the login file
# there, a phantom of the same shape for each.
assertOnlyPhantoms() { # NAME HOST-RE ACCESS
	assertEquals "rc: $(tail -c 1500 "$T/err")" 0 "$rc"
	assertEquals "done" "$(tail -n 1 "$T/out")"
	assertEquals "the calls, with the real access token" "authorization: Bearer $3" \
		"$(awk -v re="^== [A-Z]+ ($2) " '/^== /{on = $0 ~ re} on && tolower($0) ~ /^authorization:/' \
			"$P/requests" | sed 's/^[Aa]uthorization/authorization/' | sort -u)"
	assertEquals "the tool ran: its HOME" 1 "$(grep -c '^HOME=/home/agent$' "$P/toolresult")"
	assertNoReal
	# The same file, each real token a phantom of its shape (its length, its
	# punctuation where it was; a JWT: its signature alone new).
	assertEquals "the login file's shape" "same" "$($PY -c 'import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def shape(t):
    return "".join(c if not c.isalnum() else "a" for c in t)
def walk(x, y):
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(walk(x[k], y[k]) for k in x)
    if isinstance(x, str) and x != y:
        if x.count(".") == 2 and x.startswith("eyJ"):
            return x.rsplit(".", 1)[0] == y.rsplit(".", 1)[0] and len(x) == len(y)
        return isinstance(y, str) and shape(x) == shape(y)
    return x == y
print("same" if walk(a, b) and a != b else "differs")' "$F" "$S/login")"
}

# Claude Code on its subscription, through oto: no refresh (the access
# token is valid), the API's calls by name with the real token.
test_claude_code_through_oto_holds_phantoms_only() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	sealed claude valid
	cp -R "$OTO_TOP/examples/claude-code/home-subscription" "$T/skel"
	LOGIN=.claude/.credentials.json
	through claude-code /opt/claude/node_modules/.bin/claude -p "Show me the environment." \
		--dangerously-skip-permissions
	assertOnlyPhantoms claude api.anthropic.com "$(state claude access_token)"
	assertEquals "no refresh" 0 "$(grep -c '^== POST platform.claude.com ' "$P/requests")"
	assertEquals "2 model calls" 2 "$(grep -c '^== POST api.anthropic.com /v1/messages?beta=true$' "$P/requests")"
}


# examples/setup.sh and a store of logins the account could not write
# back into, or a key the account could replace: refused, with the fix,
# before anything is made.
test_setup_refuses_a_store_of_logins_the_account_cannot_keep() {
	A=$T/code
	sub_recipe claude-code
	mkdir -m 0755 "$T/etc"
	sed -i "s|^--store .*|--store $T/etc/code.store|" "$T/subscription.conf"
	run env CLAUDE_LOGIN=/nonexistent "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals 101 "$rc"
	assertEquals "setup: fatal: the store $T/etc/code.store holds logins (--login), and its directory $T/etc is not $OTO_TEST_USER's: the gateway, as $OTO_TEST_USER, seals a refresh's new tokens back into it (name a store in a directory of its own, which setup makes $OTO_TEST_USER's: --store $T/etc/logins/code.store)" \
		"$(cat "$T/err")"
	sed -i -e "s|^--store .*|--store $T/etc/logins/code.store|" -e "s|^--key-file .*|--key-file $T/etc/logins/code.key|" \
		"$T/subscription.conf"
	run env CLAUDE_LOGIN=/nonexistent "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals 101 "$rc"
	assertEquals "setup: fatal: the key $T/etc/logins/code.key is in the directory of the store of logins, which is $OTO_TEST_USER's (keep the key elsewhere, root's)" \
		"$(cat "$T/err")"
	assertEquals "nothing made in $T/etc" "" "$(ls -A "$T/etc")"
	assertFalse "no tree made" "[ -e '$T/code' ]"
}

# Claude Code at a terminal, on its subscription, as a person starts it
# with the recipe's skeleton (home-subscription/): it asks nothing at start,
# and the prompt typed reaches the API with the real access token.
test_claude_code_through_oto_at_a_terminal_asks_nothing() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	sealed claude valid
	cp -R "$OTO_TOP/examples/claude-code/home-subscription" "$T/skel"
	chmod -R a+rX "$T/skel"
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	sub_recipe claude-code
	# shellcheck disable=SC2086 # PUB: options
	run in_host $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 30 \
		'expect bypass
sleep 0.2
send Show me the environment.
sleep 0.2
send \r
expect agent-was-here
kill 15' -- "$OTO_BIN/otorun" --config "$T/subscription.conf" $PUB --ca-file "$K/ca.pem" -- \
		/opt/claude/node_modules/.bin/claude --dangerously-skip-permissions
	$PY -c 'import re, sys
s = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
s = re.sub(r"\x1b\[\d*[GC]", " ", s)
s = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[78=>]", "", s)
print(re.sub(r"[ \t]+", " ", s))' "$T/rawtty" >"$T/screen"
	assertNotContains "every step; $(cat "$T/out") $(tail -c 2000 "$T/screen")" "$(cat "$T/out")" "fail "
	assertContains "the prompt, ready" "$(cat "$T/screen")" "bypass permissions on"
	for q in "Welcome to Claude Code" "Select login method" "Quick safety check" "Bypass Permissions mode"; do
		assertFalse "asked: $q" "grep -qF '$q' '$T/screen'"
	done
	assertEquals "authorization: Bearer $(state claude access_token)" \
		"$(grep -i '^authorization:' "$P/requests" | sed 's/^[Aa]uthorization/authorization/' | sort -u)"
	assertFalse "a real token on the screen" "grep -aqF -f '$T/reals' '$T/rawtty'"
}

# codex on its ChatGPT plan, through oto: its own provider, chatgpt.com
# by name; the session CA trusted from the view's bundle (SSL_CERT_FILE:
# codex reads CODEX_CA_CERTIFICATE first, then it).
test_codex_through_oto_holds_phantoms_only() {
	C=$AGENTS/codex
	npm_cli "$C" "$CODEX" || return 0
	sealed codex valid
	cp -R "$OTO_TOP/examples/codex/home-subscription" "$T/skel"
	LOGIN=.codex/auth.json
	through codex /opt/codex/node_modules/.bin/codex exec --skip-git-repo-check "Show me the environment."
	assertOnlyPhantoms codex chatgpt.com "$(state codex access_token)"
	assertEquals "no refresh" 0 "$(grep -c '^== POST auth.openai.com ' "$P/requests")"
	assertEquals "2 model calls" 2 "$(grep -c '^== POST chatgpt.com /backend-api/codex/responses$' "$P/requests")"
	# Its WebSocket tried first, refused 426 by the gateway: tried no more.
	assertEquals "the WebSocket's tries: $(grep 'otogate: info: .*an Upgrade' "$T/err" | sort | uniq -c)" 1 \
		"$(grep -c 'otogate: info: port [0-9]* (CODEX_LOGIN): 426 an Upgrade (WebSocket, h2c) refused' "$T/err")"
	assertEquals "the account header" "chatgpt-account-id: 8f2d3c4e-1a2b-4c5d-9e8f-0a1b2c3d4e5f" \
		"$(grep -i '^chatgpt-account-id:' "$P/requests" | sort -u)"
	assertEquals "the upstream got no WebSocket's try" 0 \
		"$(grep -c '^== GET chatgpt.com /backend-api/codex/responses$' "$P/requests")"
}

# gemini-cli on its Google sign-in, through oto: tokeninfo, userinfo and
# Code Assist by name, each with the real token.
test_gemini_cli_through_oto_holds_phantoms_only() {
	gemini_cli || return 0
	sealed gemini valid
	cp -R "$OTO_TOP/examples/gemini-cli/home-subscription" "$T/skel"
	LOGIN=.gemini/oauth_creds.json
	through gemini-cli /opt/gemini/bin/gemini -p "Show me the environment." --yolo
	assertOnlyPhantoms gemini 'cloudcode-pa.googleapis.com|www.googleapis.com|oauth2.googleapis.com /tokeninfo' \
		"$(state gemini access_token)"
	assertEquals "no refresh" 0 "$(grep -c '^== POST oauth2.googleapis.com /token$' "$P/requests")"
	assertEquals "2 model calls" 2 \
		"$(grep -c '^== POST cloudcode-pa.googleapis.com /v1internal:streamGenerateContent?alt=sse$' "$P/requests")"
}

# examples/claude-code's subscription recipe as its README says: with the
# login file in CLAUDE_LOGIN, examples/setup.sh makes the tree, the key, the
# store (otosecret import) and the home skeleton (home-subscription/, no
# home.sh), then its otorun line runs. Again: nothing changes; a newer
# login file: the entry updated.
test_setup_makes_the_subscription_recipe() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	mkdir -p "$T/host"
	F=$($PY "$OTO_TESTS/helpers/fakeprovider.py" seed "$P" claude "$T/host" valid)
	A=$T/code
	sub_recipe claude-code
	printf -- '--public %s\n--ca-file %s\n' 203.0.113.0/24 "$K/ca.pem" >>"$T/subscription.conf"
	run env CLAUDE_LOGIN="$F" "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code -- \
		/opt/claude/node_modules/.bin/claude -p "Show me the environment." --dangerously-skip-permissions
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "setup: account $OTO_TEST_USER: unchanged
setup: tree $A: made (a copy of examples/agent, $OTO_TEST_USER's)
setup: key $T/key: made
setup: store $T/st/store, CLAUDE_LOGIN: made
setup: install $C: unchanged
setup: home $T/skel: made" "$(grep '^setup: ' "$T/err")"
	assertEquals "import's lines" "profile claude" "$(grep '^profile ' "$T/err")"
	# The gateway, as the account, seals a refresh's tokens back: the store
	# and its directory are the account's; the key root's.
	assertEquals "$OTO_TEST_USER 700 $OTO_TEST_USER 600 0 600" \
		"$(stat -c '%u %a' "$T/st" "$T/st/store" "$T/key" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "the skeleton: home-subscription/" "" "$(diff -r "$OTO_TOP/examples/claude-code/home-subscription" "$T/skel")"
	run in_host sh -c "$(cat "$T/out") </dev/null"
	assertEquals "rc: $(tail -c 1500 "$T/err")" 0 "$rc"
	assertEquals "done" "$(tail -n 1 "$T/out")"
	assertEquals "the real access token" "authorization: Bearer $(state claude access_token)" \
		"$(grep -i '^authorization:' "$P/requests" | sed 's/^[Aa]uthorization/authorization/' | sort -u)"
	run env CLAUDE_LOGIN="$F" "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals "again: $(cat "$T/err")" 0 "$rc"
	assertEquals "setup: store $T/st/store, CLAUDE_LOGIN: unchanged" "$(grep CLAUDE_LOGIN "$T/err")"
	assertEquals "setup: home $T/skel: unchanged" "$(grep 'home ' "$T/err")"
	$PY "$OTO_TESTS/helpers/fakeprovider.py" seed "$P" claude "$T/host" valid >/dev/null
	run env CLAUDE_LOGIN="$F" "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals "a newer login: $(cat "$T/err")" 0 "$rc"
	assertEquals "setup: store $T/st/store, CLAUDE_LOGIN: updated" "$(grep 'CLAUDE_LOGIN:' "$T/err")"
	run "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals "none given, one in the store: $(cat "$T/err")" 0 "$rc"
	rm "$T/st/store"
	run "$OTO_TOP/examples/setup.sh" --config "$T/subscription.conf" claude-code
	assertEquals 100 "$rc"
	assertEquals "setup: fatal: no login CLAUDE_LOGIN in the store $T/st/store: set CLAUDE_LOGIN to the CLI's login file on this host (CLAUDE_LOGIN=~/.claude/.credentials.json), or seal it with otosecret import" \
		"$(cat "$T/err")"
}

# ---- An EXPIRED access token, refreshed through the gateway (the real
# refresh token swapped in at the token endpoint, the answer's tokens turned
# into phantoms), the new tokens sealed back into the store, a second
# session starting from them with no refresh.

# stored ENTRY FIELD: the login file sealed in $T/st/store as ENTRY, its FIELD
# (dotted), read by otosecret as a session would.
stored() {
	"$OTO_BIN/otosecret" --store "$T/st/store" --key-file "$T/key" --use "$1:env=LOGIN_FILE" -- \
		$PY -c 'import json, os, sys
v = json.loads(os.environ["LOGIN_FILE"])
for k in sys.argv[1].split("."): v = v[k]
print(v)' "$2"
}

# assertRefreshedThroughOto NAME HOST-RE TOKEN-RE ENTRY ACCESS-FIELD
# REFRESH-FIELD: one refresh at the fake (the token endpoint TOKEN-RE), with
# the real refresh token of the sealed file ($R); every call to NAME's API
# hosts with the access token it issued; the tool ran; no real token, the
# sealed ones or those issued, in the view; the store holds the new ones.
assertRefreshedThroughOto() {
	assertEquals "rc: $(tail -c 1500 "$T/err")" 0 "$rc"
	assertEquals "done" "$(tail -n 1 "$T/out")"
	assertEquals "one refresh" 1 "$(state "$1" refreshes)"
	A=$(state "$1" access_token)
	assertContains "the refresh, with the real refresh token" \
		"$(sed -n "/^== POST $3\$/,/^== /p" "$P/requests" | sed 's|%2F|/|g')" "$R"
	assertEquals "the calls after it, with the new access token" "authorization: Bearer $A" \
		"$(awk -v re="^== [A-Z]+ ($2) " '/^== /{on = $0 ~ re} on && tolower($0) ~ /^authorization:/' \
			"$P/requests" | sed 's/^[Aa]uthorization/authorization/' | sort -u)"
	assertEquals "the tool ran: its HOME" 1 "$(grep -c '^HOME=/home/agent$' "$P/toolresult")"
	# shellcheck disable=SC2046 # the tokens issued: words
	reals "$F" $(awk '{print $3}' "$P/issued") >"$T/reals"
	assertNoReal
	assertEquals "the store: the new access token" "$A" "$(stored "$4" "$5")"
	assertEquals "the store: the refresh token now valid" "$(state "$1" refresh_token)" "$(stored "$4" "$6")"
}

# assertSecondSessionNoRefresh EX CLI [ARG]...: a second session of the
# same store starts from the tokens sealed back, with no refresh.
assertSecondSessionNoRefresh() {
	_n=$(state "$P_NAME" refreshes)
	: >"$P/requests"
	rm -rf "$T/agent"
	through "$@"
	assertEquals "rc: $(tail -c 1500 "$T/err")" 0 "$rc"
	assertEquals "done" "$(tail -n 1 "$T/out")"
	assertEquals "no refresh in the second session" "$_n" "$(state "$P_NAME" refreshes)"
	assertNoReal
}

test_claude_code_refreshes_through_oto() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	sealed claude
	cp -R "$OTO_TOP/examples/claude-code/home-subscription" "$T/skel"
	LOGIN=.claude/.credentials.json P_NAME=claude
	set -- claude-code /opt/claude/node_modules/.bin/claude -p "Show me the environment." \
		--dangerously-skip-permissions
	through "$@"
	assertRefreshedThroughOto claude api.anthropic.com 'platform.claude.com \/v1\/oauth\/token' CLAUDE_LOGIN \
		claudeAiOauth.accessToken claudeAiOauth.refreshToken
	assertSecondSessionNoRefresh "$@"
}

test_codex_refreshes_through_oto() {
	C=$AGENTS/codex
	npm_cli "$C" "$CODEX" || return 0
	sealed codex
	cp -R "$OTO_TOP/examples/codex/home-subscription" "$T/skel"
	LOGIN=.codex/auth.json P_NAME=codex
	set -- codex /opt/codex/node_modules/.bin/codex exec --skip-git-repo-check "Show me the environment."
	through "$@"
	assertRefreshedThroughOto codex chatgpt.com 'auth.openai.com \/oauth\/token' CODEX_LOGIN \
		tokens.access_token tokens.refresh_token
	assertEquals "the store: the new id token" "codex id $(stored CODEX_LOGIN tokens.id_token)" \
		"$(grep '^codex id ' "$P/issued")"
	assertSecondSessionNoRefresh "$@"
}

# Google keeps the refresh token (the fake does not rotate it): the store
# keeps it and gets the new access token.
test_gemini_cli_refreshes_through_oto() {
	gemini_cli || return 0
	sealed gemini
	cp -R "$OTO_TOP/examples/gemini-cli/home-subscription" "$T/skel"
	LOGIN=.gemini/oauth_creds.json P_NAME=gemini
	set -- gemini-cli /opt/gemini/bin/gemini -p "Show me the environment." --yolo
	through "$@"
	assertRefreshedThroughOto gemini 'cloudcode-pa.googleapis.com|www.googleapis.com|oauth2.googleapis.com /tokeninfo' \
		'oauth2.googleapis.com \/token' GEMINI_LOGIN access_token refresh_token
	assertEquals "the refresh token kept" "$R" "$(stored GEMINI_LOGIN refresh_token)"
	assertSecondSessionNoRefresh "$@"
}

# The fake host reaches the providers by their real names and nothing
# beyond the test's namespaces: no default route, no name but the test's.
test_nothing_leaves_the_machine() {
	run in_host getent hosts chatgpt.com
	assertEquals "$PROV6  chatgpt.com" "$(cat "$T/out")"
	run in_host getent ahostsv4 chatgpt.com
	assertEquals "$PROV4" "$(awk 'NR == 1 {print $1}' "$T/out")"
	run in_host getent hosts example.com
	assertEquals "no other name" 2 "$rc"
	run in_host ip route get 8.8.8.8
	assertContains "no route out" "$(cat "$T/err")" "unreachable"
}

. shunit2
