#!/bin/sh
# otogate's allow=: what a credential kept outside may do. A grant with
# allow=METHOD:PATH-PREFIX rules serves only the requests one of them
# matches; any other request with it is answered 403 by the gateway (a path
# the upstream could read as another, 400), never forwarded, and logged. In
# the topology of tests/net/topo.sh, with the REST routes of
# tests/helpers/fakeapi.py (its requests file: what the upstream got) and
# tests/helpers/restclient.py as the agent, which sends each path exactly
# as written, with "Authorization: token PHANTOM".
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"
. "$OTO_TESTS/net/api.sh"

REST="$PY $OTO_TESTS/helpers/restclient.py"
RULES="allow=GET:/repos/,allow=POST:/repos/org/repo/pulls,allow=*:/user"

oneTimeSetUp() { api_suite_up; }
oneTimeTearDown() { api_suite_down; }

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/api/requests"
}

# gate GRANT-OPTIONS -- CMD...: CMD as the agent behind otogate and otonet,
# API_KEY granted for the fake API with ",GRANT-OPTIONS" after its URL (none
# when empty); the gateway's log in $T/log.
gate() {
	_g="API_KEY=https://$API:8443${1:+,$1}"
	shift 2
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --log-fd 3 \
		--grant "$_g" --ca-file "$K/ca.pem" -- "$OTO_BIN/otonet" $AS $PUB -- "$@" 3>"$T/log"
}

# What the upstream received: its "== METHOD PATH" lines.
got() { grep '^== ' "$TOPO_DIR/api/requests"; }

test_allowed_and_refused_requests() {
	gate "$RULES" -- $REST 'GET /repos/org/repo' 'GET /repos/org/repo?per_page=1&q=/../admin' \
		'POST /repos/org/repo/pulls' 'DELETE /user/keys/1' 'DELETE /repos/org/repo' \
		'POST /repos/org/repo/issues' 'GET /admin' 'GET /repos' 'HEAD /repos/org/repo' \
		'get /repos/org/repo' 'GET /Repos/org/repo' 'GET /users' 'POST /repos/org/repo/pullsx'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	ph=$(sed -n 's/.*"authorization": "token \([^"]*\)".*/\1/p' "$T/out" | head -n 1)
	assertEquals "oto-phantom-" "$(echo "$ph" | cut -c1-12)"
	no='403 otogate: no allow= of the grant serves this method and path'
	assertEquals "GET /repos/org/repo: 200 {\"method\": \"GET\", \"path\": \"/repos/org/repo\", \"authorization\": \"token $ph\"}
GET /repos/org/repo?per_page=1&q=/../admin: 200 {\"method\": \"GET\", \"path\": \"/repos/org/repo?per_page=1&q=/../admin\", \"authorization\": \"token $ph\"}
POST /repos/org/repo/pulls: 200 {\"method\": \"POST\", \"path\": \"/repos/org/repo/pulls\", \"authorization\": \"token $ph\"}
DELETE /user/keys/1: 200 {\"method\": \"DELETE\", \"path\": \"/user/keys/1\", \"authorization\": \"token $ph\"}
DELETE /repos/org/repo: $no
POST /repos/org/repo/issues: $no
GET /admin: $no
GET /repos: $no
HEAD /repos/org/repo: $no
get /repos/org/repo: $no
GET /Repos/org/repo: $no
GET /users: $no
POST /repos/org/repo/pullsx: $no" "$(cat "$T/out")"
	# The upstream got the allowed four only, each with the real value.
	assertEquals "== GET /repos/org/repo
== GET /repos/org/repo?per_page=1&q=/../admin
== POST /repos/org/repo/pulls
== DELETE /user/keys/1" "$(got)"
	assertEquals 4 "$(grep -c "^Authorization: token $REAL" "$TOPO_DIR/api/requests")"
	# One log line each, the refusals with their reason.
	assertEquals 13 "$(wc -l <"$T/log")"
	assertEquals 4 "$(grep -c '"status":200,' "$T/log")"
	assertEquals 1 "$(grep -c '"grant":"API_KEY","method":"DELETE","host":"api.example.test","path":"/repos/org/repo","status":403,"bytes_up":0,"bytes_down":[0-9]*,"error":"no allow= of the grant serves this method and path"}' "$T/log")"
	assertEquals 9 "$(grep -c '"status":403,"bytes_up":0,.*"error":"no allow= of the grant serves this method and path"}' "$T/log")"
	assertFalse "the log holds the real value" "grep -qF '$REAL' '$T/log'"
}

# Paths an upstream could read as another one: 400 before any rule is
# looked at, never forwarded.
test_path_tricks_are_refused() {
	gate "$RULES" -- $REST 'GET /repos/../admin' 'GET /repos/%2e%2e/admin' 'GET /repos/%2E%2E/admin' \
		'GET /repos%2f..%2fadmin' 'GET /repos//admin' 'GET //repos/x' 'GET /repos/x/..;/admin' \
		'GET /repos/x\..\y' 'GET /repos/%252e%252e/admin' 'GET /repos/%c0%ae%c0%ae/admin' \
		'GET /repos/x/.' 'GET /repos/a%zz' 'GET /repos/x#/../admin'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	b='400 otogate: a path the upstream could read as another:'
	assertEquals "GET /repos/../admin: $b a . or .. segment
GET /repos/%2e%2e/admin: $b a percent-encoded / \\ . % or ;
GET /repos/%2E%2E/admin: $b a percent-encoded / \\ . % or ;
GET /repos%2f..%2fadmin: $b a percent-encoded / \\ . % or ;
GET /repos//admin: $b an empty segment (//)
GET //repos/x: $b an empty segment (//)
GET /repos/x/..;/admin: $b a ; (path parameters)
GET /repos/x\\..\\y: $b a backslash
GET /repos/%252e%252e/admin: $b a percent-encoded / \\ . % or ;
GET /repos/%c0%ae%c0%ae/admin: $b a non-ASCII byte, raw or percent-encoded
GET /repos/x/.: $b a . or .. segment
GET /repos/a%zz: $b a malformed percent-encoding
GET /repos/x#/../admin: $b a # or ?" "$(cat "$T/out")"
	assertEquals "the upstream got: $(got)" 0 "$(wc -c <"$TOPO_DIR/api/requests")"
	assertEquals 13 "$(grep -c '"status":400,"bytes_up":0,.*"error":"a path the upstream could read as another: ' "$T/log")"
	assertContains "$(cat "$T/log")" '"path":"/repos/../admin","status":400,'
}

# The issue's attack: an upstream that honours a method or URL override
# (Rack, express's method-override, IIS) would act on another request than
# the one judged. Under allow=, every override header (any case, any
# position, twice, empty, '_' for '-') and a _method parameter are refused
# 400, and the upstream sees none of them.
test_overrides_are_refused() {
	P='POST /repos/o/r/issues'
	gate "allow=POST:/repos/o/r/issues" -- $REST "$P" "$P|X-HTTP-Method-Override: DELETE" \
		"$P|X-Original-URL: /admin" "$P|^x-http-method: DELETE" \
		"$P|X-METHOD-OVERRIDE: PUT|X-Method-Override: PUT" "$P|X-Rewrite-URL:" \
		"$P|X-Original-Method: DELETE" "$P|X-Forwarded-Prefix: /admin" \
		"$P|X_HTTP_METHOD_OVERRIDE: DELETE" "$P|X-A: b|\tX-HTTP-Method-Override: DELETE" \
		"$P?_method=DELETE" "$P?a=1;_METHOD=DELETE" "$P?%5Fmethod=DELETE" "$P?.method=DELETE"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	o='400 otogate: a method or URL override the upstream could act on:'
	assertEquals "$P: 200
$P|X-HTTP-Method-Override: DELETE: $o X-HTTP-Method-Override
$P|X-Original-URL: /admin: $o X-Original-URL
$P|^x-http-method: DELETE: $o X-HTTP-Method
$P|X-METHOD-OVERRIDE: PUT|X-Method-Override: PUT: $o X-Method-Override
$P|X-Rewrite-URL:: $o X-Rewrite-URL
$P|X-Original-Method: DELETE: $o X-Original-Method
$P|X-Forwarded-Prefix: /admin: $o X-Forwarded-Prefix
$P|X_HTTP_METHOD_OVERRIDE: DELETE: $o X-HTTP-Method-Override
$P|X-A: b|\tX-HTTP-Method-Override: DELETE: 400 otogate: folded header line
$P?_method=DELETE: $o a _method parameter
$P?a=1;_METHOD=DELETE: $o a _method parameter
$P?%5Fmethod=DELETE: $o a _method parameter
$P?.method=DELETE: $o a _method parameter" "$(sed 's/^\(POST [^ ]*: 200\) .*/\1/' "$T/out")"
	assertEquals "the upstream got: $(got)" "== POST /repos/o/r/issues" "$(got)"
	assertEquals 12 "$(grep -c '"status":400,"bytes_up":0,.*"error":"a method or URL override the upstream could act on: ' "$T/log")"
	assertContains "$(cat "$T/log")" '"method":"POST","host":"api.example.test","path":"/repos/o/r/issues","status":400,"bytes_up":0,"bytes_down":'
}

# Rack's MethodOverride and Symfony's read _method from a POST's form body
# too (urlencoded, multipart, or a POST with no Content-Type at all). Under
# allow=, such a body is refused 400 before the piece that completes the
# parameter is sent: the upstream never gets a whole request to act on. Split a byte a chunk, or
# encoded, it is found all the same; a JSON body or a value that says
# _method is not a form's parameter, and passes.
test_a_method_override_in_a_form_body_is_refused() {
	P='POST /repos/o/r/issues'
	U='Content-Type: application/x-www-form-urlencoded'
	M='Content-Type: multipart/form-data; boundary=b'
	gate "allow=POST:/repos/o/r/issues" -- $REST "$P|$U|>title=x&_method=DELETE" \
		"$P|>_method=DELETE" "$P|$U|>>title=x;+_me%74hod=DELETE" "$P|$U|>a=1&.METHOD" \
		"$P|$M|>--b\\r\\nContent-Disposition: form-data; name=\"_method\"\\r\\n\\r\\nDELETE\\r\\n--b--\\r\\n" \
		"$P|$M|>>--b\\r\\nContent-Disposition: form-data; NAME=_method\\r\\n\\r\\nDELETE\\r\\n--b--\\r\\n" \
		"$P|$M|>name=_method" \
		"$P|Content-Type: application/json|>{\"_method\": \"DELETE\"}" "$P|$U|>title=_method&x%26_method=1"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	o='400 otogate: a method or URL override the upstream could act on: a _method parameter in the form body'
	assertEquals "$o
$o
$o
$o
$o
$o
$o
200
200" "$(sed 's/^.*: \(200\) .*/\1/; s/^.*: \(400 otogate\)/\1/' "$T/out")"
	# The refused bodies were cut before the override's value: DELETE
	# reached the upstream in the JSON body alone.
	assertEquals "the upstream got: $(cat "$TOPO_DIR/api/requests")" \
		'{"_method": "DELETE"}' "$(grep -a DELETE "$TOPO_DIR/api/requests")"
	assertContains "$(cat "$TOPO_DIR/api/requests")" "title=_method&x%26_method=1"
	assertEquals 7 "$(grep -c '"status":400,.*"error":"a method or URL override the upstream could act on: a _method parameter in the form body"' "$T/log")"
}

# Any non-ASCII byte in the path, raw or percent-encoded: the look-alikes of
# . / and \ some servers fold to ASCII (U+2024, U+2025, U+FE52, U+FE68, the
# fullwidth ones) and every other.
test_non_ascii_paths_are_refused() {
	gate "$RULES" -- $REST 'GET /repos/%e2%80%a4%e2%80%a4/admin' 'GET /repos/%E2%80%A5/admin' \
		'GET /repos/x%ef%b9%92%ef%b9%92%ef%b9%a8admin' 'GET /repos/caf%c3%a9' 'GET /repos/%ff' \
		'GET /repos/‥/admin'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	b='400 otogate: a path the upstream could read as another: a non-ASCII byte, raw or percent-encoded'
	assertEquals "GET /repos/%e2%80%a4%e2%80%a4/admin: $b
GET /repos/%E2%80%A5/admin: $b
GET /repos/x%ef%b9%92%ef%b9%92%ef%b9%a8admin: $b
GET /repos/caf%c3%a9: $b
GET /repos/%ff: $b
GET /repos/‥/admin: 400 otogate: request target not a path (origin form)" "$(cat "$T/out")"
	assertEquals "the upstream got: $(got)" 0 "$(wc -c <"$TOPO_DIR/api/requests")"
}

# An override header cut anywhere in two writes: refused at every cut.
test_split_overrides_are_refused() {
	gate "allow=POST:/repos/o/r/issues" -- $REST --split 'POST /repos/o/r/issues|X-HTTP-Method-Override: DELETE'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	n=$(printf 'POST /repos/o/r/issues HTTP/1.1\r\nHost: x\r\nAuthorization: token %s\r\nX-HTTP-Method-Override: DELETE\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' "$REAL" | wc -c)
	assertEquals "POST /repos/o/r/issues|X-HTTP-Method-Override: DELETE: 400 x$((n - 1))" "$(cat "$T/out")"
	assertEquals "the upstream got: $(got)" 0 "$(wc -c <"$TOPO_DIR/api/requests")"
}

# A prefix without its slash ends at a segment's end: allow=GET:/repos
# serves /repos and /repos/x, not /repository.
test_a_prefix_ends_at_a_segment() {
	gate "allow=GET:/repos" -- $REST 'GET /repos' 'GET /repos/x' 'GET /repos?x' 'GET /repository' 'GET /repos-admin'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "GET /repos: 200
GET /repos/x: 200
GET /repos?x: 200
GET /repository: 403
GET /repos-admin: 403" "$(sed 's/: \([0-9]*\) .*/: \1/' "$T/out")"
	assertEquals "== GET /repos
== GET /repos/x
== GET /repos?x" "$(got)"
}

# The head in two writes, cut at every offset: each judged as when whole.
test_split_heads_are_judged_whole() {
	gate "$RULES" -- $REST --split 'GET /repos/x' 'GET /admin' 'GET /repos/../admin'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	n=$(printf 'GET /repos/x HTTP/1.1\r\nHost: x\r\nAuthorization: token %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' "$REAL" | wc -c)
	assertEquals "GET /repos/x: 200 x$((n - 1))
GET /admin: 403 x$((n - 3))
GET /repos/../admin: 400 x$((n + 6))" "$(cat "$T/out")"
	assertEquals "$((n - 1))" "$(got | grep -c '^== GET /repos/x$')"
	assertEquals "the upstream got a refused one" "$((n - 1))" "$(got | wc -l)"
}

# Without allow=, everything is served as before, the odd paths, the
# overrides and the non-ASCII bytes included.
test_without_allow_everything_is_served() {
	gate "" -- $REST 'DELETE /repos/org/repo' 'GET /admin' 'GET /repos/../admin' \
		'POST /repos/x|X-HTTP-Method-Override: DELETE' 'GET /user?_method=DELETE' 'GET /repos/caf%c3%a9'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "DELETE /repos/org/repo: 200
GET /admin: 200
GET /repos/../admin: 200
POST /repos/x|X-HTTP-Method-Override: DELETE: 200
GET /user?_method=DELETE: 200
GET /repos/caf%c3%a9: 200" "$(sed 's/: \([0-9]*\) .*/: \1/' "$T/out")"
	assertEquals 6 "$(got | wc -l)"
	assertEquals 1 "$(grep -c '^X-HTTP-Method-Override: DELETE' "$TOPO_DIR/api/requests")"
}

test_bad_allow_options_are_usage_errors() {
	for a in "allow=GET|allow=: not METHOD:PATH-PREFIX" \
		"allow=GET:/a/../b|allow=: the prefix must be a path in the form the gateway serves (/..., no //, . or .. segment, %2F, %2E, %5C, %25, ;, ?, # or non-ASCII byte)" \
		"allow=G(T:/a|allow=: not a method (a token, or * for any)" \
		"allowed=GET:/|unknown grant option (header=NAME, allow=METHOD:PATH-PREFIX, ask=METHOD:PATH-PREFIX, ask=writes or transparent)"; do
		run "$OTO_BIN/otogate" $AS --store "$K/store" --key-file "$K/key" \
			--grant "API_KEY=https://$API,${a%%|*}" -- true
		assertEquals "<$a>" 100 "$rc"
		assertEquals "<$a>" "otogate: fatal: --grant API_KEY=https://$API,${a%%|*}: ${a#*|}" \
			"$(head -n 1 "$T/err")"
	done
}

# otorun passes the rules through in its --grant, as they were given.
test_otorun_passes_allow_through() {
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--store s --key-file k --grant "API_KEY=https://$API,allow=GET:/repos/,allow=*:/user" -- x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" "--grant 'API_KEY=https://$API,allow=GET:/repos/,allow=*:/user' --"
}

. shunit2
