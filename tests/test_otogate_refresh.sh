#!/bin/sh
# otogate --login: the CLI's refresh goes through the gateway. Against the
# fake providers (tests/helpers/fakeprovider.py, tests/net/provider.sh, by
# the real names), with Claude Code's built-in profile: the agent posts
# its phantom refresh token to the token endpoint, the fake gets the real
# one, the agent gets phantoms of the new tokens, its next call with the
# new phantom reaches the fake with the new real, and the store holds the
# rotated tokens at once. Hostile requests and a hostile token endpoint:
# nothing real reaches the agent, nothing phantom-made is sent where the
# gateway would swap it. Two sessions on one store both keep working.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"
. "$OTO_TESTS/net/provider.sh"

CLIENT=9d1c250a-e61b-44d9-88ed-5944d1962f5e
GEMINI_CLIENT=681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com
GEMINI_SECRET=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
TOKEN_URL=https://platform.claude.com/v1/oauth/token

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

# A new subscription at the fake for each test, sealed into a store of
# the gateway's account ($S, its directory writable by it); the fake's
# refresh token in $R.
suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	subscribe
}
# subscribe [PROVIDER [ENTRY]]: claude and CLAUDE_LOGIN by default.
subscribe() {
	PROV=${1:-claude}
	ENTRY=${2:-CLAUDE_LOGIN}
	: >"$P/requests"
	: >"$P/issued"
	S=$T/s
	rm -rf "${S:?}" "${T:?}/home"
	mkdir -p "$S" "$T/home"
	F=$($PY "$OTO_TESTS/helpers/fakeprovider.py" seed "$P" "$PROV" "$T/home")
	R=$(state refresh_token)
	otosecret keygen --out "$S/key" >/dev/null &&
		otosecret import --profile "$PROV" --name "$ENTRY" --key-file "$S/key" \
			--store "$S/store" "$F" >/dev/null || fail "the store"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$S"
	chmod 0700 "$S"
	chmod 0755 "$T"
}

# state FIELD: the fake's FIELD of $PROV (refresh_token, access_token, refreshes).
state() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$P/$PROV.json" "$1"; }
hostile() { $PY -c 'import json, sys
d = json.load(open(sys.argv[1])); d["hostile"] = sys.argv[2]; json.dump(d, open(sys.argv[1], "w"))' "$P/claude.json" "$1"; }

# stored FIELD: the store's login file's claudeAiOauth.FIELD, decrypted.
stored() {
	otosecret --store "$S/store" --key-file "$S/key" --use CLAUDE_LOGIN -- sh -c 'printf %s "$CLAUDE_LOGIN"' |
		$PY -c 'import json, sys; print(json.load(sys.stdin)["claudeAiOauth"][sys.argv[1]])' "$1"
}

# answered FILE FIELD: a top-level FIELD of FILE's JSON (the token endpoint's answer).
answered() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# gate DIR [OTOGATE OPTIONS] -- CMD...: CMD as the agent behind otogate
# (--login CLAUDE_LOGIN=claude, the store $S) and otonet in the fake host,
# in DIR; the phantom file in DIR/login.json, the session CA trusted, the
# gateway's log in DIR/log, stdout and stderr in DIR/out and DIR/err.
# STORE_ARG: otogate's store option instead of --store $S/store.
gate() {
	_d=$1
	shift
	mkdir -p "$_d"
	chmod 0777 "$_d"
	_opts=''
	while [ "$1" != -- ]; do
		_opts="$_opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # options split on purpose
	in_host "$OTO_BIN/otogate" ${STORE_ARG:---store $S/store} --key-file "$S/key" $AS --log-fd 3 \
		--ca-file "$K/ca.pem" --login "$ENTRY=$PROV" $_opts -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c 'cd "$0" || exit 99
		cat <&"$OTO_GATE_CA" >"$0/ca.pem"
		cat <&"${OTO_LOGIN%%:*}" >"$0/login.json"
		export SSL_CERT_FILE="$0/ca.pem" CURL_CA_BUNDLE="$0/ca.pem"
		exec "$@"' "$_d" "$@" 3>"$_d/log" >"$_d/out" 2>"$_d/err" &
	echo $! >"$_d/gate.pid"
	wait $!
}

# The agent's refresh, as Claude Code sends it, with the phantom refresh
# token of login.json (or ans.json's refresh_token once it has one): the
# answer in ans.json; then a model-API call with the answer's access
# token, its status printed.
REFRESH='R=$(python3 -c "import json, os
d = json.load(open(\"ans.json\")) if os.path.exists(\"ans.json\") else None
print(d[\"refresh_token\"] if d else json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"refreshToken\"])")
curl -sS -o ans.new -w "%{http_code}\n" -H "Content-Type: application/json" \
	-d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\",\"client_id\":\"'$CLIENT'\",\"scope\":\"user:inference\"}" '$TOKEN_URL'
mv ans.new ans.json
A=$(python3 -c "import json; print(json.load(open(\"ans.json\"))[\"access_token\"])")
curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" https://api.anthropic.com/api/oauth/profile'

# The refresh reaches the fake with the real refresh token; the agent
# gets phantoms; its call with the new phantom reaches the fake with the
# new real; the store holds the rotated tokens at once, and the next
# session starts from them without a refresh.
test_a_refresh_goes_through_the_gateway_and_the_store_keeps_it() {
	gate "$T/a" -- sh -c "$REFRESH"
	assertEquals "rc: $(cat "$T/a/err")" 0 $?
	assertEquals "200
200" "$(cat "$T/a/out")"
	assertEquals 1 "$(state refreshes)"
	# The fake got the file's real refresh token, in that field of that body.
	assertEquals 1 "$(grep -c "\"refresh_token\":\"$R\"" "$P/requests")"
	new_a=$(state access_token)
	new_r=$(state refresh_token)
	ph_a=$(answered "$T/a/ans.json" access_token)
	ph_r=$(answered "$T/a/ans.json" refresh_token)
	assertNotEquals "$new_a" "$ph_a"
	assertNotEquals "$new_r" "$ph_r"
	assertEquals ${#new_a} ${#ph_a}
	assertEquals ${#new_r} ${#ph_r}
	assertEquals sk-ant-oat01- "$(echo "$ph_a" | cut -c1-13)"
	# The call after it carried the new real access token.
	assertEquals "Authorization: Bearer $new_a" \
		"$(sed -n '/^== GET api.anthropic.com \/api\/oauth\/profile/,/^$/p' "$P/requests" | grep -i '^authorization:')"
	for f in ans.json login.json out log; do
		assertFalse "$f holds a real" "grep -qF -e '$new_a' -e '$new_r' -e '$R' '$T/a/$f'"
	done
	# The store: the rotated tokens, sealed.
	assertEquals "$new_a" "$(stored accessToken)"
	assertEquals "$new_r" "$(stored refreshToken)"
	# The next session: a call with its file's phantom, no refresh.
	gate "$T/b" -- sh -c 'A=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"accessToken\"])")
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" https://api.anthropic.com/api/oauth/profile'
	assertEquals "rc: $(cat "$T/b/err")" 0 $?
	assertEquals 200 "$(cat "$T/b/out")"
	assertEquals 1 "$(state refreshes)"
}

# Refused with a 400, nothing sent: the phantom twice, another field
# holding it, a second Content-Type, another content type, a duplicated key.
test_hostile_refresh_requests_are_refused_and_never_sent() {
	gate "$T/a" -- sh -c 'R=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"refreshToken\"])")
	for b in "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\",\"refresh_token\":\"$R\"}" \
		"{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\",\"x\":\"$R\"}" \
		"{\"grant_type\":\"refresh_token\",\"refresh_token\":\"sk-ant-ort01-forgedforgedforgedforged\",\"x\":\"$R\"}"; do
		curl -sS -w " %{http_code}\n" -H "Content-Type: application/json" -d "$b" '$TOKEN_URL'
	done
	curl -sS -w " %{http_code}\n" -H "Content-Type: application/json" -H "Content-Type: text/plain" \
		-d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\"}" '$TOKEN_URL'
	curl -sS -w " %{http_code}\n" -H "Content-Type: text/plain" \
		-d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\"}" '$TOKEN_URL''
	assertEquals "rc: $(cat "$T/a/err")" 0 $?
	assertEquals "otogate: a refresh the gateway will not send: a key or parameter is there twice
 400
otogate: a refresh the gateway will not send: a phantom is elsewhere in the body
 400
otogate: a refresh the gateway will not send: the field holds no refresh token's phantom
 400
otogate: a refresh with two Content-Type headers
 400
otogate: a refresh the gateway will not send: the content type is not the token endpoint's
 400" "$(cat "$T/a/out")"
	assertEquals "the fake saw nothing" 0 "$(grep -c '^== ' "$P/requests")"
	assertEquals 0 "$(state refreshes)"
}

# The phantom refresh token elsewhere: to another path of the token host,
# in a header, to another host: it goes out as the phantom it is.
test_the_phantom_elsewhere_goes_out_as_it_is() {
	gate "$T/a" -- sh -c 'R=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"refreshToken\"])")
		echo "$R" >r.txt
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Content-Type: application/json" \
			-d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$R\"}" https://platform.claude.com/v1/oauth/token2
		curl -sS -o /dev/null -w "%{http_code}\n" -H "X-R: $R" https://api.anthropic.com/api/oauth/profile'
	assertEquals "rc: $(cat "$T/a/err")" 0 $?
	ph=$(cat "$T/a/r.txt")
	assertEquals "404
401" "$(cat "$T/a/out")"
	assertEquals 1 "$(grep -c "\"refresh_token\":\"$ph\"" "$P/requests")"
	assertEquals 1 "$(grep -ci "^x-r: $ph" "$P/requests")"
	assertFalse "the real went out" "grep -qF '$R' '$P/requests'"
	assertEquals 1 "$(grep -c '"verdict":"pass","phantom":"refresh","where":"header X-R"' "$T/a/log")"
}

# The phantoms a refresh gave out, where no grant swaps them, are recorded
# as the file's are: the new access token in another header, the new
# refresh token in a query.
test_a_refreshed_phantom_elsewhere_is_recorded() {
	gate "$T/a" -- sh -c "$REFRESH"'
		A=$(python3 -c "import json; print(json.load(open(\"ans.json\"))[\"access_token\"])")
		R=$(python3 -c "import json; print(json.load(open(\"ans.json\"))[\"refresh_token\"])")
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" -H "X-Copy: $A" \
			"https://api.anthropic.com/api/oauth/profile?r=$R"'
	assertEquals "rc: $(cat "$T/a/err")" 0 $?
	assertEquals "200
200
200" "$(cat "$T/a/out")"
	assertEquals '"grant":"CLAUDE_LOGIN","host":"api.anthropic.com","verdict":"pass","phantom":"access","where":"header X-Copy"
"grant":"CLAUDE_LOGIN","host":"api.anthropic.com","verdict":"pass","phantom":"refresh","where":"query"' \
		"$(grep '"verdict":"pass"' "$T/a/log" | sed 's/^{"time":[0-9.]*,//; s/}$//')"
}

# A hostile token endpoint echoes the real refresh token: in another
# field, in base64, in a header, in an error body: a 502, nothing of it
# reaches the agent.
test_a_hostile_token_endpoint_gets_a_502() {
	for h in field base64 header error; do
		subscribe
		hostile $h
		rm -f "$T/$h/ans.json"
		gate "$T/$h" -- sh -c "$REFRESH"
		assertEquals "$h: $(head -c 300 "$T/$h/out")" 502 "$(sed -n 1p "$T/$h/out")"
		assertFalse "$h: the real reached the agent" "grep -rqF '$R' '$T/$h'"
	done
	assertContains "$(cat "$T/field/log")" "the token endpoint's answer refused: "
	assertContains "$(cat "$T/error/log")" "the token endpoint's error answer holds a real token"
}

# A token endpoint that takes the refresh and answers nothing, then one
# that drips its answer: each a 504 once the refresh's time has passed
# (OTO_TEST_REFRESH_TIMEOUT_MS: 1.5 s here, 30 s in use), nothing of it
# to the agent. The refresh lock is let go each time: the same gateway's
# next refresh, with the endpoint well again, goes through.
test_a_token_endpoint_that_stalls_gets_a_504() {
	hostile hang
	# shellcheck disable=SC2016 # the agent's script
	TRY='curl -sS -o "body$1" -w "%{http_code}\n" -H "Content-Type: application/json" \
		-d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"claudeAiOauth\"][\"refreshToken\"])")\",\"client_id\":\"'$CLIENT'\",\"scope\":\"user:inference\"}" '$TOKEN_URL'
		: >"step$1"; n=0; while [ ! -e "go$1" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done'
	export OTO_TEST_REFRESH_TIMEOUT_MS=1500
	gate "$T/a" -- sh -c "set -- 1; $TRY; set -- 2; $TRY; $REFRESH" &
	bg=$!
	unset OTO_TEST_REFRESH_TIMEOUT_MS
	for i in 1 2; do
		n=0
		while [ ! -e "$T/a/step$i" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
		[ $i = 1 ] && hostile drip
		[ $i = 2 ] && hostile none
		: >"$T/a/go$i"
	done
	wait $bg
	assertEquals "rc: $(cat "$T/a/err")" "504
504
200
200" "$(cat "$T/a/out")"
	assertEquals "otogate: the token endpoint did not answer in time" "$(cat "$T/a/body1")"
	assertEquals "otogate: the token endpoint did not answer in time" "$(cat "$T/a/body2")"
	assertEquals 2 "$(grep -c '"status":504,.*"error":"the token endpoint did not answer in time"' "$T/a/log")"
	assertEquals 1 "$(state refreshes)"
	assertEquals "$(state refresh_token)" "$(stored refreshToken)"
}

# A crash right after the answer: the store has the new tokens already
# (sealed before the agent got them); the next session starts from them.
test_a_crash_after_the_answer_loses_nothing() {
	gate "$T/a" -- sh -c "$REFRESH; sleep 2" &
	bg=$!
	n=0
	while [ ! -s "$T/a/ans.json" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	kill -9 "$(cat "$T/a/gate.pid")"
	wait $bg
	assertEquals "200" "$(sed -n 1p "$T/a/out")"
	new_r=$(state refresh_token)
	assertEquals 1 "$(state refreshes)"
	assertEquals "$new_r" "$(stored refreshToken)"
}

# Two sessions on one store, one subscription: B starts, then A refreshes
# (the fake invalidates the file's refresh token), then B refreshes with
# the phantom of that old one: B's gateway gets invalid_grant, finds A's
# newer token in the store, and sends it instead (three calls of the token
# endpoint). Both keep working; the store ends with the newest tokens. In
# that order whatever the machine's load: A starts once B has its login
# file, and B refreshes once A is done, its refresh and its call (B's
# refresh invalidates A's access token, as the provider's would).
test_two_sessions_both_keep_working() {
	gate "$T/b" -- sh -c 'n=0
		while [ "$(cat "$1/out" 2>/dev/null | wc -l)" -lt 2 ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
		'"$REFRESH" sh "$T/a" &
	b=$!
	n=0
	while [ ! -s "$T/b/login.json" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	gate "$T/a" -- sh -c "$REFRESH"
	wait $b
	assertEquals "A: $(cat "$T/a/err")" "200
200" "$(cat "$T/a/out")"
	assertEquals "B: $(cat "$T/b/err")" "200
200" "$(cat "$T/b/out")"
	assertEquals 2 "$(state refreshes)"
	assertEquals "the token endpoint's calls" 3 "$(grep -c '^== POST platform.claude.com /v1/oauth/token' "$P/requests")"
	assertEquals "$(state refresh_token)" "$(stored refreshToken)"
	assertEquals "$(state access_token)" "$(stored accessToken)"
}

# The store on an fd, as otorun passes it: the gateway finds its file by
# the fd's path (the same inode) and keeps the rotated tokens there. A
# store it cannot find (a file removed since): said once, the tokens last
# the session.
test_a_store_on_an_fd_is_kept_current_too() {
	(
		exec 5<"$S/store"
		STORE_ARG="--store-fd 5" gate "$T/a" -- sh -c "$REFRESH"
	)
	assertEquals "rc: $(cat "$T/a/err")" "200
200" "$(cat "$T/a/out")"
	assertEquals "$(state refresh_token)" "$(stored refreshToken)"
	before=$(stored refreshToken)
	cp -p "$S/store" "$S/gone"
	(
		exec 5<"$S/gone"
		rm "$S/gone"
		STORE_ARG="--store-fd 5" gate "$T/b" -- sh -c "$REFRESH"
	)
	assertEquals "rc: $(cat "$T/b/err")" "200
200" "$(cat "$T/b/out")"
	assertEquals 2 "$(state refreshes)"
	assertEquals "$before" "$(stored refreshToken)"
	assertEquals 1 "$(grep -c "^otogate: warning: --store-fd 5: no directory to seal a refresh's new tokens in: they are kept for this session only (--store FILE keeps them)$" "$T/b/err")"
}

# gemini-cli's profile: a form body, and a token host that is one of the
# profile's own (oauth2.googleapis.com): Google does not rotate its
# refresh token, so the answer holds none and the store keeps the one it
# had, with the new access token.
test_a_form_refresh_at_a_host_of_the_profile() {
	subscribe gemini GEMINI_LOGIN
	gate "$T/a" -- sh -c 'R=$(python3 -c "import json; print(json.load(open(\"login.json\"))[\"refresh_token\"])")
		curl -sS -o ans.json -w "%{http_code}\n" --data-urlencode "refresh_token=$R" \
			--data-urlencode "client_id='"$GEMINI_CLIENT"'" --data-urlencode "client_secret='"$GEMINI_SECRET"'" \
			-d grant_type=refresh_token https://oauth2.googleapis.com/token
		A=$(python3 -c "import json; print(json.load(open(\"ans.json\"))[\"access_token\"])")
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: Bearer $A" https://www.googleapis.com/oauth2/v2/userinfo'
	assertEquals "rc: $(cat "$T/a/err")" 0 $?
	assertEquals "200
200" "$(cat "$T/a/out")"
	assertEquals 1 "$(state refreshes)"
	assertEquals 1 "$(grep -c "^refresh_token=$(printf %s "$R" | sed 's|/|%2F|g')&" "$P/requests")"
	new_a=$(state access_token)
	assertNotEquals "$new_a" "$(answered "$T/a/ans.json" access_token)"
	assertFalse "a real reached the agent" "grep -rqF -e '$new_a' -e '$R' '$T/a'"
	stored_gemini=$(otosecret --store "$S/store" --key-file "$S/key" --use GEMINI_LOGIN -- sh -c 'printf %s "$GEMINI_LOGIN"')
	assertEquals "$new_a $R" "$(printf %s "$stored_gemini" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(d["access_token"], d["refresh_token"])')"
}

# OTO_TEST_ONLY="NAME...": those tests alone (while one is being worked on).
if [ -n "${OTO_TEST_ONLY:-}" ]; then
	suite() { for _t in $OTO_TEST_ONLY; do suite_addTest "$_t"; done; }
fi

. shunit2
