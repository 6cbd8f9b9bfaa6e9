#!/bin/sh
# otogate --login ENTRY=PROFILE: a CLI's login file sealed whole in a store
# (otosecret import) reaches the agent with a phantom in place of each
# secret (a sealed memfd, OTO_LOGIN; otomount writes it in the home), and
# the gateway puts the real access token into the requests to the
# profile's hosts (transparent grants), scrubs every real of the file from
# the responses, and records a phantom it sees where no grant swaps it.
# The profile's host is rest.example.test, tests/helpers/fakehub.py on its
# port 443 in a server's namespace behind the fake internet (topo_server),
# with a profile file: the built-in ones' text, hosts changed (the token
# endpoint's too: the gateway resolves it at start).
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

# The real access token: the hub takes it, and nothing else, as a Bearer.
REAL=sk-ant-oat01-Q2xhdWRlUmVhbEFjY2Vzc1Rva2VuMDEyMzQ1Njc4OUFCQ0RFRg-real
REFRESH=sk-ant-ort01-UmVhbFJlZnJlc2hUb2tlbjAxMjM0NTY3ODlBQkNERUZHSElK-refresh
HOST=rest.example.test
PORT=443
HUB4=203.0.113.31
HUB6=2001:db8:1::31
HUB_NS=oto-hub-$TOPO_ID

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'hub_down; topo_down' EXIT
	trap 'hub_down; topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	# The profile's host is reached on 443, as a provider's.
	topo_server "$HUB_NS" hub0 $HUB4 $HUB6 || { echo "the hub's namespace failed" >&2; exit 1; }
	printf '%s %s\n%s %s\n' $HUB4 $HOST $HUB6 $HOST >"$TOPO_DIR/hosts.d/.$HOST.tmp" &&
		mv "$TOPO_DIR/hosts.d/.$HOST.tmp" "$TOPO_DIR/hosts.d/$HOST"
	hub_up || { echo "the fake hub failed" >&2; exit 1; }
	L=$TOPO_DIR/login
	mkdir -p "$L" && chmod 0755 "$L"
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":1999999999000,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}\n' \
		"$REAL" "$REFRESH" >"$L/claude.json"
	# codex's: JWTs whose header and claims the CLI reads.
	jwt() { printf '%s.%s.%s' "$(printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d =)" \
		"$(printf '%s' "$2" | base64 -w0 | tr '+/' '-_' | tr -d =)" "$3"; }
	ACCESS_JWT=$(jwt '{"alg":"RS256","typ":"JWT","kid":"k1"}' '{"exp":1999999999,"https://api.openai.com/auth":{"chatgpt_plan_type":"pro"}}' \
		"c2lnbmF0dXJlT2ZUaGVBY2Nlc3NUb2tlbjAxMjM0NTY3ODlhYmNkZWZnaGlqa2xtbm9w")
	ID_JWT=$(jwt '{"alg":"RS256","typ":"JWT"}' '{"email":"a@example.test","https://api.openai.com/auth":{"chatgpt_account_id":"acc-1"}}' \
		"aWRUb2tlblNpZ25hdHVyZTAxMjM0NTY3ODlhYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5")
	printf '{"auth_mode":"chatgpt","OPENAI_API_KEY":null,"tokens":{"id_token":"%s","access_token":"%s","refresh_token":"rt_codexRefreshToken0123456789abcdefABCDEF","account_id":"acc-1"},"last_refresh":"2026-12-01T00:00:00Z"}\n' \
		"$ID_JWT" "$ACCESS_JWT" >"$L/codex.json"
	"$OTO_BIN/otosecret" import --profile claude --name CLAUDE_LOGIN --key-file "$K/key" \
		--store "$K/store" "$L/claude.json" >/dev/null &&
		"$OTO_BIN/otosecret" import --profile codex --name CODEX_LOGIN --key-file "$K/key" \
			--store "$K/store" "$L/codex.json" >/dev/null || exit 1
	cat >"$L/claude.profile" <<EOF
file .claude/.credentials.json
secret claudeAiOauth.accessToken access
secret claudeAiOauth.refreshToken refresh
expiry claudeAiOauth.expiresAt ms
host $HOST
token https://$HOST/v1/oauth/token json refresh_token
EOF
	cat >"$L/codex.profile" <<EOF
file .codex/auth.json
secret tokens.access_token access
secret tokens.refresh_token refresh
secret tokens.id_token id
expiry tokens.access_token jwt
host $HOST
token https://$HOST/oauth/token json refresh_token
EOF
}

oneTimeTearDown() {
	[ -n "$IS_ROOT" ] || return 0
	hub_down
	topo_down
}

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/hub/requests"
}

# gate [OTOGATE OPTIONS] -- CMD...: CMD as the agent behind otogate and
# otonet in the fake host, in $T; the phantom file of the first login in
# $T/login.json (read from OTO_LOGIN's fd: no otomount here), the session
# CA trusted; the gateway's log in $T/log, stdout in $T/out, stderr in $T/err.
gate() {
	_opts=''
	while [ "$1" != -- ]; do
		_opts="$_opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # options split on purpose
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --log-fd 3 \
		--ca-file "$K/ca.pem" $_opts -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c 'cd "$0" || exit 99
		cat <&"$OTO_GATE_CA" >"$0/ca.pem"
		[ -z "${OTO_LOGIN:-}" ] || cat <&"${OTO_LOGIN%%:*}" >"$0/login.json"
		export SSL_CERT_FILE="$0/ca.pem" CURL_CA_BUNDLE="$0/ca.pem"
		exec "$@"' "$T" "$@" 3>"$T/log"
}
CLAUDE="--login CLAUDE_LOGIN=$TOPO_DIR/login/claude.profile"
CODEX="--login CODEX_LOGIN=$TOPO_DIR/login/codex.profile"

# A JSON value of FILE by a python expression over it, d.
jget() { $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

test_the_agent_holds_phantoms_and_the_hub_gets_the_real_token() {
	gate $CLAUDE -- sh -c 'A=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"accessToken\"])")
		curl -sS -H "Authorization: Bearer $A" https://'$HOST'/api/echo; echo
		cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null >proc.dump; env >env.dump; echo "L=$OTO_LOGIN"' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	access=$(jget "$T/login.json" 'd["claudeAiOauth"]["accessToken"]')
	refresh=$(jget "$T/login.json" 'd["claudeAiOauth"]["refreshToken"]')
	# Phantoms of the same length and prefix; every other byte as it was.
	assertEquals "$(wc -c <"$L/claude.json")" "$(wc -c <"$T/login.json")"
	assertEquals ${#REAL} ${#access}
	assertEquals ${#REFRESH} ${#refresh}
	assertEquals sk-ant-oat01- "$(echo "$access" | cut -c1-13)"
	assertEquals sk-ant-ort01- "$(echo "$refresh" | cut -c1-13)"
	assertNotEquals "$REAL" "$access"
	assertEquals "$(sed "s/$REAL/A/; s/$REFRESH/R/" "$L/claude.json")" \
		"$(sed "s/$access/A/; s/$refresh/R/" "$T/login.json")"
	# The hub got the real token; the agent read its echo as the phantom.
	assertEquals "Authorization: Bearer $REAL" "$(hub_auth)"
	assertEquals "{\"authorization\": \"Bearer $access\"}" "$(sed -n 1p "$T/out")"
	# No otomount here: the variable reaches the agent, naming the fd and the file.
	assertEquals "L=N:.claude/.credentials.json" "$(sed -n 2p "$T/out" | sed 's/=[0-9]*:/=N:/')"
	for f in login.json proc.dump env.dump out log; do
		assertFalse "$f holds a real token" "grep -qF -e '$REAL' -e '$REFRESH' '$T/$f'"
	done
	# No variable names the login: the CLI reads its file.
	assertEquals 0 "$(grep -c '^CLAUDE_LOGIN' "$T/env.dump")"
	assertEquals 1 "$(grep -c '"grant":"CLAUDE_LOGIN","method":"GET","host":"rest.example.test","path":"/api/echo","status":200' "$T/log")"
}

# Fresh phantoms every session.
test_each_session_has_its_own_phantoms() {
	gate $CLAUDE -- true
	a=$(jget "$T/login.json" 'd["claudeAiOauth"]["accessToken"]')
	gate $CLAUDE -- true
	b=$(jget "$T/login.json" 'd["claudeAiOauth"]["accessToken"]')
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertNotEquals "$a" "$b"
	assertEquals ${#a} ${#b}
}

# A JWT keeps its header and its claims (the CLI reads them); its signature is new.
test_a_jwt_keeps_its_header_and_claims() {
	gate $CODEX -- sh -c 'A=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"tokens\"][\"access_token\"])")
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" https://'$HOST'/api/user' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	# The hub takes $REAL alone: a 401, but it got the real JWT.
	assertEquals 401 "$(cat "$T/out")"
	for k in access_token id_token; do
		real=$(jget "$L/codex.json" "d['tokens']['$k']")
		ph=$(jget "$T/login.json" "d['tokens']['$k']")
		assertEquals "$k: header and claims" "${real%.*}" "${ph%.*}"
		assertNotEquals "$k: signature" "${real##*.}" "${ph##*.}"
		assertEquals ${#real} ${#ph}
		assertFalse "grep -qF '${real##*.}' '$T/login.json'"
	done
	assertEquals "Authorization: Bearer $(jget "$L/codex.json" "d['tokens']['access_token']")" "$(hub_auth)"
}

# Every real of the file, in the responses of the profile's host, becomes its
# phantom: the refresh token too, and the access token in base64.
test_no_real_comes_back_in_a_response() {
	printf '{"a":"%s","r":"%s","b":"%s"}' "$REAL" "$REFRESH" "$(printf '%s' "$REFRESH" | base64 -w0)" \
		>"$TOPO_DIR/hub/say"
	gate $CLAUDE -- sh -c 'A=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"accessToken\"])")
		curl -sS -H "Authorization: Bearer $A" https://'$HOST'/api/say' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	access=$(jget "$T/login.json" 'd["claudeAiOauth"]["accessToken"]')
	refresh=$(jget "$T/login.json" 'd["claudeAiOauth"]["refreshToken"]')
	assertEquals "$access" "$(jget "$T/out" 'd["a"]')"
	assertEquals "$refresh" "$(jget "$T/out" 'd["r"]')"
	assertNotEquals "$(printf '%s' "$REFRESH" | base64 -w0)" "$(jget "$T/out" 'd["b"]')"
	assertFalse "grep -qF -e '$REAL' -e '$REFRESH' '$T/out'"
}

# A phantom where its grant does not put the real value goes out as it is,
# and the record says where: the query, another header; the refresh token's
# anywhere (no grant swaps it).
test_a_phantom_elsewhere_goes_out_as_it_is_and_is_recorded() {
	gate $CLAUDE -- sh -c 'eval "$(python3 -c "import json; d = json.load(open(\"login.json\"))[\"claudeAiOauth\"]; print(\"A=%s R=%s\" % (d[\"accessToken\"], d[\"refreshToken\"]))")"
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" -H "X-Copy: $A" "https://'$HOST'/api/user?t=$R"
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $R" "https://'$HOST'/api/$A"' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	access=$(jget "$T/login.json" 'd["claudeAiOauth"]["accessToken"]')
	refresh=$(jget "$T/login.json" 'd["claudeAiOauth"]["refreshToken"]')
	assertEquals "200
401" "$(cat "$T/out")"
	assertEquals '"grant":"CLAUDE_LOGIN","host":"rest.example.test","verdict":"pass","phantom":"access","where":"header X-Copy"
"grant":"CLAUDE_LOGIN","host":"rest.example.test","verdict":"pass","phantom":"refresh","where":"query"
"grant":"CLAUDE_LOGIN","host":"rest.example.test","verdict":"pass","phantom":"access","where":"path"
"grant":"CLAUDE_LOGIN","host":"rest.example.test","verdict":"pass","phantom":"refresh","where":"header Authorization"' \
		"$(grep '"verdict":"pass"' "$T/log" | sed 's/^{"time":[0-9.]*,//; s/}$//')"
	# As they were sent: the hub saw the phantoms where the agent put them.
	assertEquals 1 "$(grep -c "^== $HOST GET /api/user?t=$refresh" "$TOPO_DIR/hub/requests")"
	assertEquals 1 "$(grep -ci "^x-copy: $access" "$TOPO_DIR/hub/requests")"
	assertEquals 1 "$(grep -c "^== $HOST GET /api/$access" "$TOPO_DIR/hub/requests")"
	assertEquals "Authorization: Bearer $REAL
Authorization: Bearer $refresh" "$(hub_auth)"
}

# Refused before the chain runs, in one line: exit 100 for usage, 101 for a store or a file.
test_bad_logins_are_refused_before_the_chain_runs() {
	printf 'file .claude/.credentials.json\nhost %s\n' "$HOST" >"$T/noaccess.profile"
	for a in "NOPE=claude|101|--login NOPE=claude: no such name in the store" \
		"CLAUDE_LOGIN=mistral|100|--login CLAUDE_LOGIN=mistral: no profile named mistral (claude, codex, gemini, or a file's path)" \
		"GH_TOKEN=$L/claude.profile|101|--login GH_TOKEN=$L/claude.profile: the file is not strict JSON: not JSON at byte 0" \
		"CODEX_LOGIN=$L/claude.profile|101|--login CODEX_LOGIN=$L/claude.profile: claudeAiOauth.accessToken: is missing" \
		"CLAUDE_LOGIN=$T/noaccess.profile|101|--login CLAUDE_LOGIN=$T/noaccess.profile: profile: no secret of the role access" \
		"CLAUDE_LOGIN|100|--login CLAUDE_LOGIN: expected ENTRY=PROFILE"; do
		spec=${a%%|*} rest=${a#*|}
		run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --login "$spec" -- \
			"$OTO_BIN/otonet" $AS -- touch "$T/ran"
		assertEquals "<$spec> $(cat "$T/err")" "${rest%%|*}" "$rc"
		assertEquals "otogate: fatal: ${rest#*|}" "$(cat "$T/err")"
		assertFalse "<$spec> the chain ran" "[ -e '$T/ran' ]"
	done
	run "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" --grant "K=https://$HOST,transparent" \
		--login "CLAUDE_LOGIN=$L/claude.profile" -- true
	assertEquals 100 "$rc"
	assertEquals "otogate: fatal: --login CLAUDE_LOGIN=$L/claude.profile: K is transparent for $HOST already" "$(cat "$T/err")"
}

# otomount writes each OTO_LOGIN file in the home: parents 0700, the file
# 0600, the bytes of the sealed memfd; the variable and the fd consumed. A
# file the skeleton has already, an unsealed fd, a path out of the home:
# refused.
test_otomount_writes_the_file_in_the_home() {
	S=$T/skel
	mkdir -p "$S/.claude" && echo '{}' >"$S/.claude/settings.json" && chmod -R go+rX "$T"
	memfd='import fcntl, os, sys
fd = os.memfd_create("t", os.MFD_ALLOW_SEALING)
os.write(fd, sys.argv[1].encode())
if sys.argv[2] == "seal":
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
os.set_inheritable(fd, True)
os.environ["OTO_LOGIN"] = "%d:%s" % (fd, sys.argv[3])
os.execvp(sys.argv[4], sys.argv[4:])'
	probe='cd && stat -c "%a %n" .a .a/b .a/b/c.json && cat .a/b/c.json && env | grep -c OTO_LOGIN; ls -l /proc/self/fd | grep -c memfd || :'
	run $PY -c "$memfd" '{"x":"phantom"}' seal .a/b/c.json otons $AS -- otomount -- sh -c "$probe"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals '700 .a
700 .a/b
600 .a/b/c.json
{"x":"phantom"}0
0' "$(cat "$T/out")"
	# Beside the skeleton's files, in its directory.
	run $PY -c "$memfd" '{}' seal .claude/.credentials.json otons $AS -- otomount --home-skel "$S" -- \
		sh -c 'cd && stat -c "%a %n" .claude/.credentials.json .claude/settings.json'
	assertEquals "rc: $(cat "$T/err") $(cat "$T/out")" 0 "$rc"
	assertEquals '600 .claude/.credentials.json
644 .claude/settings.json' "$(cat "$T/out")"
	cp "$S/.claude/settings.json" "$S/.claude/.credentials.json"
	run $PY -c "$memfd" '{}' seal .claude/.credentials.json otons $AS -- otomount --home-skel "$S" -- touch "$T/ran"
	assertEquals 100 "$rc"
	assertEquals "otomount: fatal: --home-skel $S holds .claude/.credentials.json, where otogate's --login puts its file: drop one of the two" "$(cat "$T/err")"
	run $PY -c "$memfd" '{}' open .x otons $AS -- otomount -- touch "$T/ran"
	assertEquals 101 "$rc"
	assertContains "$(cat "$T/err")" "otomount: fatal: OTO_LOGIN: fd "
	assertContains "$(cat "$T/err")" " is not a sealed memfd (otogate's)"
	run $PY -c "$memfd" '{}' seal ../x otons $AS -- otomount -- touch "$T/ran"
	assertEquals 100 "$rc"
	assertContains "$(cat "$T/err")" ": ../x is not a path under the home"
	assertFalse "the agent ran" "[ -e '$T/ran' ]"
}

# The whole chain as otorun composes it: otorun --login ENTRY=PROFILE
# hands the login to otogate, otomount writes the phantom file in the
# fresh home, the view trusts the session CA, and the hub gets the real
# token; --print shows the option; its usage errors are otorun's.
test_otorun_login_composes_the_chain() {
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	run ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" $PUB --agent-root "$A" \
		--person alice --role member --store "$K/store" --key-file "$K/key" --ca-file "$K/ca.pem" \
		$CLAUDE -- sh -c 'cd && stat -c "%a %U" .claude/.credentials.json
		A=$(python3 -c "import json; print(json.load(open(\".claude/.credentials.json\"))[\"claudeAiOauth\"][\"accessToken\"])")
		curl -sS -H "Authorization: Bearer $A" https://'$HOST'/api/echo; echo
		echo "$A"; n=$(env | grep -c "^OTO_LOGIN"); echo "$n"'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	access=$(sed -n 3p "$T/out")
	assertEquals "600 agent
{\"authorization\": \"Bearer $access\"}
$access
0" "$(cat "$T/out")"
	assertEquals sk-ant-oat01- "$(echo "$access" | cut -c1-13)"
	assertEquals "Authorization: Bearer $REAL" "$(hub_auth)"
	assertFalse "a real token in the output" "grep -qF -e '$REAL' -e '$REFRESH' '$T/out'"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root "$A" --role member --person p \
		--store "$K/store" --key-file "$K/key" --mode ask-writes --ask-fd 12 $CLAUDE -- true
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(sed -n 2p "$T/out")" "/otogate --store-fd 5 --key-fd 6 --as nobody --login CLAUDE_LOGIN=$TOPO_DIR/login/claude.profile --ask-fd 12 -- "
	for a in "--login CLAUDE_LOGIN=claude|--login needs --store and --key-file" \
		"--store $K/store --key-file $K/key --login CLAUDE_LOGIN|--login CLAUDE_LOGIN: expected ENTRY=PROFILE (claude, codex, gemini or a file)" \
		"--store $K/store --key-file $K/key --login 9X=claude|--login 9X=claude: expected ENTRY=PROFILE (claude, codex, gemini or a file)" \
		"--no-net --store $K/store --key-file $K/key --login A=claude|--no-net excludes --login (the gateway is reached through otonet)"; do
		# shellcheck disable=SC2086 # the case's options
		run "$OTO_BIN/otorun" --print --as nobody --agent-root "$A" --role member --person p ${a%%|*} -- true
		assertEquals "$a" 100 "$rc"
		assertEquals "otorun: fatal: ${a#*|}" "$(cat "$T/err")"
	done
}

# OTO_TEST_ONLY="NAME...": those tests alone (while one is being worked on).
if [ -n "${OTO_TEST_ONLY:-}" ]; then
	suite() { for _t in $OTO_TEST_ONLY; do suite_addTest "$_t"; done; }
fi

. shunit2
