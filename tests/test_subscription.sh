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
# run-as: root
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
# refresh_token, refreshes).
state() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$P/$1.json" "$2"; }

# field FILE PATH: a field of the login file (PATH dotted).
field() {
	$PY -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$1" "$2"
}

# cli ENV... -- CMD...: CMD as the test user in the fake host, in
# $T/home/work, with a bare environment: HOME, PATH, the test CA, ENVs.
cli() {
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$T/home"
	_env=
	while [ "$1" != -- ]; do _env="$_env $1"; shift; done
	shift
	# shellcheck disable=SC2086 # _env: words
	run in_host setpriv --reuid "$OTO_TEST_USER" --regid "$OTO_TEST_USER" --clear-groups \
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
		"$C/node_modules/.bin/claude" -p "Show me the environment." --dangerously-skip-permissions
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
		"$C/node_modules/.bin/codex" exec --skip-git-repo-check "Show me the environment."
	assertRefreshed codex chatgpt.com
	assertEquals "2 model calls" 2 "$(grep -c '^== POST chatgpt.com /backend-api/codex/responses$' "$P/requests")"
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
	cli PATH="$C/bin:/usr/bin:/bin" -- "$C/bin/gemini" -p "Show me the environment." --yolo
	assertRefreshed gemini 'cloudcode-pa.googleapis.com|www.googleapis.com|oauth2.googleapis.com /tokeninfo'
	assertEquals "the refresh's body" \
		"refresh_token=$(printf %s "$R" | sed 's|/|%2F|g')&client_id=681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com&client_secret=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&grant_type=refresh_token" \
		"$(sed -n '/^== POST oauth2.googleapis.com \/token$/,/^== /{/^refresh_token=/p}' "$P/requests")"
	assertEquals "2 model calls" 2 \
		"$(grep -c '^== POST cloudcode-pa.googleapis.com /v1internal:streamGenerateContent?alt=sse$' "$P/requests")"
	assertEquals "the new access token, in the file" "$A" "$(field "$F" access_token)"
	assertEquals "the refresh token kept" "$R" "$(field "$F" refresh_token)"
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
