#!/bin/sh
# otogate: the credential gateway at the head of the chain, in the topology
# of tests/net/topo.sh. The fake internet serves HTTPS (tests/helpers/
# fakeapi.py, a certificate of a test CA made here by openssl) for
# api.example.test; the agent (tests/helpers/gateclient.py) runs behind
# otogate -- otonet, holding only the phantom. Each test asserts what the
# upstream received (its requests file) and what the agent got back.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"
. "$OTO_TESTS/net/api.sh"

CLIENT="$PY $OTO_TESTS/helpers/gateclient.py"

oneTimeSetUp() { api_suite_up; }
oneTimeTearDown() { api_suite_down; }

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/api/requests"
	rm -f "$TOPO_DIR/api/flag"
}

# gate [OTOGATE OPTIONS] -- CMD...: CMD as the agent behind otogate and
# otonet in the fake host, API_KEY granted for the fake API; the gateway's
# log in $T/log, stdout in $T/out, stderr in $T/err.
# --bind SRC:DST (the test's own, not otogate's): SRC bound on DST in the
# fake host's mount namespace, for a tree the agent's account cannot reach
# by its own path (a checkout under /root, 0700).
gate() {
	_opts='' _bind=''
	while [ "$1" != -- ]; do
		case $1 in
		--bind) _bind=$2; shift 2 ;;
		--grant) _opts="$_opts $1 $2${OTO_GATE_TRANSPARENT:+,transparent}"; shift 2 ;;
		*) _opts="$_opts $1"; shift ;;
		esac
	done
	shift
	# Through a transparent grant (tests/test_otogate_tls.sh), the agent trusts the session CA.
	[ -z "${OTO_GATE_TRANSPARENT:-}" ] ||
		set -- sh -c 'cat <&"$OTO_GATE_CA" >"$0/session-ca.pem"
			SSL_CERT_FILE="$0/session-ca.pem" exec "$@"' "$T" "$@"
	# shellcheck disable=SC2086 # options split on purpose
	run in_host sh -c '[ -z "$1" ] || mount --bind "${1%%:*}" "${1#*:}" || exit 99
		shift; exec "$@"' sh "$_bind" env FLAG="$TOPO_DIR/api/flag" "$OTO_BIN/otogate" \
		--store "$K/store" --key-file "$K/key" $AS --log-fd 3 $_opts -- \
		"$OTO_BIN/otonet" $AS $PUB -- "$@" 3>"$T/log"
}
GRANT="--grant API_KEY=https://$API:8443 --ca-file $TOPO_DIR/pki/ca.pem"

# gate_fatal: $T/err as the gateway leaves it when it stops the chain: its
# one fatal line. otonet runs beside the gateway until the gateway's go
# (otogate(1): the chain's network is built meanwhile), so its warnings
# about the test's own --public ranges may be there too, in either order:
# those are left out, and nothing else may be.
gate_fatal() {
	grep -v '^otonet: warning: --public [0-9a-f.:/]*: this range is treated as public internet$' "$T/err"
}



test_the_upstream_gets_the_real_value_in_headers() {
	gate $GRANT -- $CLIENT echo-x echo-bearer
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "x-api-key: $REAL
Authorization: Bearer $REAL" "$(grep -i '^x-api-key:\|^authorization:' "$TOPO_DIR/api/requests")"
	# The upstream echoed the value: the agent sees the phantom in its place.
	phantom=$(sed -n 's/^echo-x: 200 {"x-api-key": "\([^"]*\)".*/\1/p' "$T/out")
	assertEquals "oto-phantom-" "$(echo "$phantom" | cut -c1-12)"
	assertEquals "echo-x: 200 {\"x-api-key\": \"$phantom\", \"authorization\": null, \"path\": \"/echo\", \"body\": \"\"}
echo-bearer: 200 {\"x-api-key\": null, \"authorization\": \"Bearer $phantom\", \"path\": \"/echo\", \"body\": \"\"}" \
		"$(cat "$T/out")"
	# The Host the upstream saw is its own.
	assertEquals 2 "$(grep -c "^Host: $API:8443" "$TOPO_DIR/api/requests")"
	# One log line per request, no header value in it.
	assertEquals 2 "$(grep -c '"grant":"API_KEY","method":"GET","host":"api.example.test","path":"/echo","status":200' "$T/log")"
	assertNoSecret log "$T/log"
}

test_the_agent_holds_only_the_phantom() {
	probe='echo "K=$API_KEY"; echo "U=$API_KEY_URL"; env | grep -c OTO_GATEWAY
		cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n" | grep -c "^API_KEY=oto-phantom-"
		cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline /proc/[0-9]*/maps 2>/dev/null >'"$T"'/proc.dump; true'
	gate $GRANT -- sh -c "$probe"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^K=//p' "$T/out")
	assertEquals "the phantom is as long as the value" ${#REAL} ${#phantom}
	assertEquals "oto-phantom-" "$(echo "$phantom" | cut -c1-12)"
	assertEquals "U=http://10.0.2.4:8001" "$(grep '^U=' "$T/out")"
	assertEquals 0 "$(sed -n 3p "$T/out")"
	assertNotEquals 0 "$(sed -n 4p "$T/out")"
	assertTrue "the sandbox's /proc was read" "[ -s '$T/proc.dump' ]"
	assertNoSecret "the sandbox's /proc" "$T/proc.dump"
	assertNoSecret "the agent's output" "$T/out"
}

# The phantom is the store's and the name's: the same at two sessions, and
# what `otosecret phantom` prints; another name (with the same value) or
# another store: another; never the value. A value sealed as its own
# phantom is refused before the chain runs.
test_the_phantom_is_stable_for_a_store_and_a_name() {
	probe='echo "$API_KEY $ANTHROPIC_API_KEY"'
	both="--grant ANTHROPIC_API_KEY=https://$API:8443"
	gate $GRANT $both -- sh -c "$probe"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	first=$(cat "$T/out")
	gate $GRANT $both -- sh -c "$probe"
	assertEquals "the second session" "$first" "$(cat "$T/out")"
	p=${first% *}
	assertEquals "otosecret phantom" "$p" "$(otosecret phantom --store "$K/store" API_KEY)"
	assertEquals "${first#* }" "$(otosecret phantom --store "$K/store" ANTHROPIC_API_KEY)"
	assertNotEquals "another name" "$p" "${first#* }"
	assertEquals ${#REAL} ${#p}
	assertNotEquals "$REAL" "$p"
	# Another store (the same key, value and name).
	_k=$K
	K=$T/k
	mkdir "$K" && cp "$_k/key" "$K/key"
	printf 'API_KEY=%s\n' "$REAL" | otosecret seal --key-file "$K/key" --store "$K/store"
	gate $GRANT -- sh -c "$probe"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertNotEquals "another store" "$p" "$(cut -d' ' -f1 "$T/out")"
	assertEquals "$(otosecret phantom --store "$K/store" API_KEY)" "$(cut -d' ' -f1 "$T/out")"
	# The value sealed as its own phantom (the same length: the same phantom).
	printf 'API_KEY=%s\n' "$(otosecret phantom --store "$K/store" API_KEY)" |
		otosecret seal --key-file "$K/key" --store "$K/store"
	gate $GRANT -- sh -c "touch $T/ran"
	K=$_k
	assertEquals 101 "$rc"
	assertEquals "otogate: fatal: --grant API_KEY: the value is its own phantom: seal the real value" \
		"$(gate_fatal)"
	assertFalse "the chain ran" "[ -e '$T/ran' ]"
}

test_a_phantom_in_the_body_or_query_reaches_the_upstream_unchanged() {
	gate $GRANT -- $CLIENT echo-body echo-chunked echo-big
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-big: 200 same=True" "$(sed -n 3p "$T/out")"
	phantom=$(sed -n 's/.*"path": "\/echo?k=\([^"]*\)".*/\1/p' "$T/out")
	assertEquals "oto-phantom-" "$(echo "$phantom" | cut -c1-12)"
	assertEquals "echo-body: 200 {\"x-api-key\": null, \"authorization\": null, \"path\": \"/echo?k=$phantom\", \"body\": \"body $phantom\"}
echo-chunked: 200 {\"x-api-key\": null, \"authorization\": null, \"path\": \"/echo\", \"body\": \"chunk $phantom\"}" \
		"$(sed -n 1,2p "$T/out")"
	assertNoSecret "the upstream's requests" "$TOPO_DIR/api/requests"
	# The log names the path without its query, whatever the body.
	assertEquals 3 "$(grep -c '"grant":"API_KEY","method":"POST","host":"api.example.test","path":"/echo","status":200' "$T/log")"
}

# "Expect: 100-continue": the upstream's 100 reaches the agent, which only
# then sends the body (curl does this for large uploads).
# A phantom twice in one header: both swapped. A request two parsers could
# frame two ways (Transfer-Encoding beside Content-Length) and one with two
# Host headers are refused, 400 with the reason, their lines logged, and
# the upstream never sees them.
test_the_phantom_twice_and_ambiguous_requests() {
	gate $GRANT -- sh -c "echo P=\$API_KEY; $CLIENT twice te-cl two-host"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	# (The fake API's record folds a long header line: its value is on the next.)
	assertEquals "the upstream's x-api-key" 1 "$(grep -c "^ *$REAL,$REAL\$" "$TOPO_DIR/api/requests")"
	assertFalse "a phantom reached the upstream" "grep -q oto-phantom '$TOPO_DIR/api/requests'"
	assertEquals "twice: 200 {\"x-api-key\": \"$phantom,$phantom\", \"authorization\": null, \"path\": \"/echo\", \"body\": \"\"}
te-cl: HTTP/1.1 400 Bad Request otogate: both Transfer-Encoding and Content-Length
two-host: HTTP/1.1 400 Bad Request otogate: not exactly one Host header" "$(sed 1d "$T/out")"
	assertEquals "the upstream's requests" 1 "$(grep -c '^== ' "$TOPO_DIR/api/requests")"
	assertEquals 1 "$(grep -c '"status":400,.*"error":"both Transfer-Encoding and Content-Length"' "$T/log")"
	assertEquals 1 "$(grep -c '"status":400,.*"error":"not exactly one Host header"' "$T/log")"
	assertNoSecret "the agent's output" "$T/out"
}

# A WebSocket's handshake and an h2c upgrade: the gateway relays neither,
# and says so with a 426 naming plain HTTP/1.1, which codex, trying its
# model call as a WebSocket first, takes as "go on over HTTPS" at once (a
# 501 made it try six times, for about 6 s, per session). The upstream
# never sees them.
test_an_upgrade_is_refused_as_final() {
	gate $GRANT -- sh -c "$CLIENT websocket h2c"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	b='HTTP/1.1 426 Upgrade Required otogate: an Upgrade (WebSocket, h2c) refused: the gateway relays plain HTTP'
	assertEquals "websocket: $b
h2c: $b" "$(cat "$T/out")"
	assertEquals "the upstream's requests: $(cat "$TOPO_DIR/api/requests")" 0 \
		"$(grep -c '^== ' "$TOPO_DIR/api/requests")"
	assertEquals 2 "$(grep -c '"status":426,.*"error":"an Upgrade (WebSocket, h2c) refused: the gateway relays plain HTTP"' "$T/log")"
}

# An agent that closes its connection while the gateway awaits the
# upstream (a person cancelling a model's answer): the flow ends at once,
# and with it the upstream's request. The upstream's /sse sends its first
# event, then waits 10 s for a flag that never comes; the agent closes
# after that first event and lives 2 s more. The flow's line, with why,
# is in the record by then (without the watch, the gateway waited on the
# upstream until the agent's exit ended it, and wrote none).
# The same before any byte of the answer (/slow thinks 10 s first): the
# line has status 0, and the agent's close is no refusal: nothing said on
# stderr (nor in the agent's file, which takes 400 and more).
test_an_agent_that_closes_ends_the_upstreams_request() {
	gate $GRANT -- sh -c "$CLIENT abandon abandon-slow; sleep 2"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "abandon: closed
abandon-slow: closed" "$(cat "$T/out")"
	assertEquals "the record: $(cat "$T/log")" 1 \
		"$(grep -c '"path":"/sse","status":200,.*"error":"the agent closed while the upstream'"'"'s response was awaited"' "$T/log")"
	assertEquals "the record: $(cat "$T/log")" 1 \
		"$(grep -c '"path":"/slow","status":0,.*"error":"the agent closed while the upstream'"'"'s response was awaited"' "$T/log")"
	assertNotContains "$(cat "$T/err")" "agent closed"
}

test_expect_100_continue() {
	gate $GRANT -- sh -c "echo P=\$API_KEY; $CLIENT expect"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "expect: 100 then HTTP/1.1 200 OK {\"x-api-key\": null, \"authorization\": null, \"path\": \"/echo\", \"body\": \"exp $phantom\"}" \
		"$(sed -n 2p "$T/out")"
}

test_an_echoed_value_returns_as_the_phantom() {
	gate $GRANT -- sh -c "echo P=\$API_KEY; $CLIENT leak echo-x"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "leak: 200 X-Echo=key=$phantom a $phantom b $phantom c" "$(sed -n 2p "$T/out")"
	# The connection is kept alive across the chunked response.
	assertEquals "echo-x: 200 {\"x-api-key\": \"$phantom\", \"authorization\": null, \"path\": \"/echo\", \"body\": \"\"}" \
		"$(sed -n 3p "$T/out")"
	assertNoSecret "the agent's output" "$T/out"
}

# A hostile upstream (/reflect) echoes every request header in every form it
# can think of, compressed when asked, sliced when asked. The agent's bytes
# hold the value in none of them; the upstream had it in the two headers the
# grant names only, asked for identity and without ranges.
test_a_reflecting_upstream_returns_no_form_of_the_value() {
	gate $GRANT -- sh -c "echo P=\$API_KEY; $CLIENT reflect reflect-deflate reflect-range"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "reflect: 200 clean
reflect-deflate: 200 clean
reflect-range: 200 200 clean" "$(sed 1d "$T/out" | $PY "$OTO_TESTS/helpers/leakcheck.py" "$K/real")"
	# The checker finds what it looks for: the same bytes with the real value in place of the
	# phantom leak in every form.
	sed 1d "$T/out" | $PY -c 'import base64, sys
ph, real = sys.argv[1].encode(), open(sys.argv[2], "rb").read()
for line in sys.stdin:
    step, _, rest = line.strip().partition(": ")
    w = rest.split()
    print(step + ": " + " ".join(x if i % 2 == 0 else base64.b64encode(base64.b64decode(x).replace(ph, real)).decode() for i, x in enumerate(w)))' "$phantom" "$K/real" >"$T/unscrubbed"
	assertContains "$($PY "$OTO_TESTS/helpers/leakcheck.py" "$K/real" <"$T/unscrubbed")" "reflect: 200 LEAK "
	# The upstream: the real value in x-api-key and Authorization, the phantom in X-E and Cookie,
	# identity asked for, no Range.
	assertEquals "Authorization: Bearer $REAL
Cookie: k=$phantom
X-E: $phantom
x-api-key: $REAL" "$(grep -i "^x-api-key:\|^authorization:\|^x-e:\|^cookie:" "$TOPO_DIR/api/requests" | LC_ALL=C sort -u)"
	assertEquals "4 identity" "$(grep -ci '^accept-encoding:' "$TOPO_DIR/api/requests") $(grep -i '^accept-encoding:' "$TOPO_DIR/api/requests" | sort -u | sed 's/.*: //' | tr -d '\r')"
	assertEquals 0 "$(grep -ci '^range:\|^if-range:' "$TOPO_DIR/api/requests")"
	assertNoSecret "the agent's output" "$T/out"
}

# Told identity, the upstream compresses anyway: refused whole, before a byte of it.
test_an_encoded_response_is_refused() {
	gate $GRANT -- $CLIENT reflect-force
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	sed -n 's/^reflect-force: [0-9]* //p' "$T/out" | base64 -d >"$T/resp"
	assertEquals "reflect-force: 502" "$(cut -d' ' -f1-2 "$T/out")"
	assertEquals "otogate: the upstream sent an encoded body (Content-Encoding), although asked for identity" \
		"$(sed '1,/^\r$/d' "$T/resp")"
	assertContains "$(cat "$T/log")" '"status":502,'
}

# The headers that end at the gateway never reach the upstream: TE,
# Connection and each header it names, Keep-Alive, Proxy-Connection,
# Proxy-Authorization, Trailer. The body's framing, and the rest, go on.
test_hop_by_hop_headers_stay_at_the_gateway() {
	gate $GRANT -- $CLIENT hop
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" "hop: HTTP/1.1 200 OK"
	assertContains "$(cat "$T/out")" '"body": "body"'
	assertEquals "Host: $API:8443
X-Stays: 2
x-api-key: $REAL
Transfer-Encoding: chunked
Accept-Encoding: identity" "$(awk '/^== /{p = ($0 == "== POST /echo"); next}
		p && /^\r?$/ {p = 0} p' "$TOPO_DIR/api/requests" | tr -d '\r')"
}

# Basic: the phantom inside base64 of user:password, swapped in the decoded credentials.
test_basic_credentials_are_swapped_inside_their_base64() {
	gate $GRANT -- $CLIENT basic
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	# (The upstream's record folds a long header line, as Python's email module does.)
	assertEquals "Authorization: Basic $(printf 'alice:%s' "$REAL" | base64 -w0)" \
		"$(awk '/^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
			{ if (line ~ /^Authorization:/) print line; line = $0 }' "$TOPO_DIR/api/requests")"
	assertNoSecret "the agent's output" "$T/out"
}

# header=: the value goes where the grant says, and no longer in the defaults.
test_a_grant_names_its_header() {
	gate --grant "API_KEY=https://$API:8443,header=X-E" --ca-file "$TOPO_DIR/pki/ca.pem" -- \
		sh -c "echo P=\$API_KEY; $CLIENT reflect"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "x-api-key: $phantom
Authorization: Bearer $phantom
X-E: $REAL" "$(grep -i "^x-api-key:\|^authorization:\|^x-e:" "$TOPO_DIR/api/requests")"
	assertEquals "reflect: 200 clean" "$(sed 1d "$T/out" | $PY "$OTO_TESTS/helpers/leakcheck.py" "$K/real")"
}

# A body that ends with the upstream's close: replaced, and the agent's
# connection closes with it (it has no other way to know the end).
test_a_body_delimited_by_the_close() {
	gate $GRANT -- sh -c "echo P=\$API_KEY; $CLIENT eof echo-x"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "eof: 200 a $phantom b" "$(sed -n 2p "$T/out")"
	assertEquals "echo-x: 200" "$(sed -n 3p "$T/out" | cut -c1-11)"
	assertEquals 1 "$(grep '"path":"/eof","status":200,' "$T/log" | grep -vc '"error"')"
}

test_the_first_event_arrives_before_the_upstream_finishes() {
	gate $GRANT -- $CLIENT sse
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "sse: 200 data: one data: two" "$(cat "$T/out")"
}

# Flows are served at once: a request on a second connection is answered
# while a stream on the first is still open (the stream ends when the
# second's answer has come: "two"; a gateway serving one flow at a time
# would hold the second until the stream gave up: "late").
test_flows_are_served_concurrently() {
	gate $GRANT -- sh -c "$CLIENT hold >$T/hold & sleep 0.5; $CLIENT echo-x; touch \$FLAG; wait"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-x: 200" "$(cut -c1-11 "$T/out")"
	assertEquals "hold: 200 data: one data: two" "$(cat "$T/hold")"
}

# A megabyte each way, bytes exact (both response framings), on the host's
# link at MTU 1500 and on links slower than the TUN (tbf on the gateway's
# way to the upstream), on a kept-alive upstream connection (a small request
# first: the first connection to the fake API over IPv6 in a fresh topology
# waits a second for its SYN's retransmission, and an upload's window stays
# closed meanwhile, as it should): the agent's TCP never waits for a timer
# (the relay's window into the gateway's socket pair opens as the gateway
# reads, and the gateway's way back as the relay drains it), and the log
# counts the bytes.
test_bulk_both_ways_on_fast_and_slow_links() {
	for rate in "" 200mbit 20mbit; do
		topo_rate "$rate" || fail "tbf $rate"
		gate $GRANT -- sh -c "$CLIENT echo-x bulk >$T/bulk; $PY $OTO_TESTS/net/nettool.py tcpstat"
		assertEquals "${rate:-1500} rc: $(cat "$T/err")" 0 "$rc"
		assertEquals "${rate:-MTU 1500}" "bulk: up=ok rand=ok big=ok" "$(sed -n 2p "$T/bulk")"
		assertNoTimer "${rate:-MTU 1500}" "$(cat "$T/out")"
		assertEquals "${rate:-MTU 1500}: the log" 4 "$(grep -c '"status":200,"bytes_up":[0-9]*,"bytes_down":[0-9]*}' "$T/log")"
		assertEquals "${rate:-MTU 1500}: the upload's bytes" 1 "$(grep -c '"path":"/sum","status":200,"bytes_up":100[0-9][0-9][0-9][0-9],' "$T/log")"
	done
	topo_rate ""
}

test_a_wrong_ca_is_a_502_and_nothing_is_sent() {
	gate --grant "API_KEY=https://$API:8443" --ca-file "$TOPO_DIR/pki/ca2.pem" -- $CLIENT echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-x: 502 otogate: the upstream's certificate does not verify: unable to get local issuer certificate" \
		"$(cat "$T/out")"
	assertEquals 0 "$(wc -c <"$TOPO_DIR/api/requests")"
	assertContains "$(cat "$T/log")" '"status":502'
}

# The CA bundle is read and checked before the chain starts, and its
# certificates parsed when a handshake needs them (otogate(1)): among many
# others, after a decoy with the test CA's name and another key, between
# comments, with CRLF line ends, the test CA still verifies the upstream,
# the decoy alone does not; a bundle OpenSSL's own reader must take (a
# TRUSTED CERTIFICATE) still works; one that does not load stops the chain
# before it runs, with its reason.
test_the_ca_bundle_is_parsed_as_needed() {
	B=$T/bundle
	mkdir -p "$B" && chmod 0755 "$B"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=oto test ca" -keyout "$B/decoy.key" -out "$B/decoy.pem" 2>/dev/null
	i=0
	while [ $i -lt 60 ]; do
		echo "# another root, $i"
		cat "$TOPO_DIR/pki/ca2.pem"
		i=$((i + 1))
	done >"$B/others"
	{ cat "$B/others" "$B/decoy.pem"; echo "# the test CA"; cat "$TOPO_DIR/pki/ca.pem"; } |
		sed 's/$/\r/' >"$B/many.pem"
	openssl x509 -in "$TOPO_DIR/pki/ca.pem" -addtrust serverAuth -out "$B/trusted.pem" 2>/dev/null
	cat "$B/others" "$B/decoy.pem" >"$B/decoy-only.pem"
	chmod 0644 "$B"/*.pem
	for f in many trusted; do
		: >"$TOPO_DIR/api/requests"
		gate --grant "API_KEY=https://$API:8443" --ca-file "$B/$f.pem" -- $CLIENT echo-x
		assertEquals "$f: rc: $(cat "$T/err")" 0 "$rc"
		assertEquals "$f" "echo-x: 200" "$(cut -c1-11 "$T/out")"
		assertEquals "$f" "x-api-key: $REAL" "$(grep -i '^x-api-key:' "$TOPO_DIR/api/requests")"
	done
	: >"$TOPO_DIR/api/requests"
	gate --grant "API_KEY=https://$API:8443" --ca-file "$B/decoy-only.pem" -- $CLIENT echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-x: 502 otogate: the upstream's certificate does not verify: unable to get local issuer certificate" \
		"$(cat "$T/out")"
	assertEquals 0 "$(wc -c <"$TOPO_DIR/api/requests")"
	# Bundles that do not load: exit 111 with the reason, the chain never started.
	sed '2s/^..../!!!!/' "$TOPO_DIR/pki/ca.pem" >"$B/bad64.pem"
	head -n 3 "$TOPO_DIR/pki/ca.pem" >"$B/cut.pem"
	printf '# nothing\n' >"$B/none.pem"
	chmod 0644 "$B"/*.pem
	for f in "bad64.pem:a certificate that is not base64" "cut.pem:a certificate without its END line" \
		"none.pem:no certificate in it" ".:Invalid argument" "absent.pem:No such file or directory"; do
		rm -f "$T/ran" "$T/chain"
		run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS \
			--grant "API_KEY=https://$API:8443" --ca-file "$B/${f%%:*}" -- \
			sh -c 'echo $$ >"$1"; sleep 0.3; shift; exec "$@"' sh "$T/chain" \
			"$OTO_BIN/otonet" $AS $PUB -- sh -c "touch $T/ran"
		assertEquals "${f%%:*}" 111 "$rc"
		# The chain (otonet, its pid the shell's, which is slow to start
		# here) ended before otogate did: gone, or a zombie of init's to
		# reap; never still running.
		state=$(proc_state "$(cat "$T/chain")")
		assertTrue "${f%%:*}: the chain still runs ($state)" "[ -z '$state' ] || [ '$state' = Z ]"
		case ${f#*:} in
		[A-Z]*) want="otogate: fatal: unable to read the CA bundle $B/${f%%:*}: ${f#*:}" ;;
		*) want="otogate: fatal: unable to load the CA bundle $B/${f%%:*}: ${f#*:}" ;;
		esac
		assertEquals "$want" "$(gate_fatal)"
		assertFalse "${f%%:*}: the chain ran" "[ -e '$T/ran' ]"
	done
}

# --ca-file is certificates: a CA's key and certificate in one file (the
# test CA's, the key first, as mitmproxy's mitmproxy-ca.pem) is refused,
# 101 in one line naming the fix, the chain never started.
test_a_ca_file_with_a_private_key_is_refused() {
	B=$T/bundle
	mkdir -p "$B" && chmod 0755 "$B"
	cat "$TOPO_DIR/pki/ca.key" "$TOPO_DIR/pki/ca.pem" >"$B/mitm.pem"
	chmod 0600 "$B/mitm.pem"
	first=$(head -n1 "$B/mitm.pem")
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS \
		--grant "API_KEY=https://$API:8443" --ca-file "$B/mitm.pem" -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c "touch $T/ran"
	assertEquals "$(cat "$T/err")" 101 "$rc"
	assertEquals "otogate: fatal: --ca-file $B/mitm.pem: a private key at line 1 ($first): give a file of the CA's certificates alone (openssl x509 -in FILE -out ca.crt)" \
		"$(gate_fatal)"
	assertFalse "the chain ran" "[ -e '$T/ran' ]"
}

# The gateway's TLS is its own, whatever the host's openssl.cnf says
# (otogate reads none): security level 2, so an upstream whose certificate
# has a 1024-bit RSA key, signed by the trusted test CA, is refused before
# anything is sent, and a host file that lowers the level changes nothing.
test_a_weak_upstream_key_is_refused_whatever_the_hosts_config() {
	W=$T/weak
	mkdir -p "$W" && chmod 0755 "$W"
	openssl req -newkey rsa:1024 -nodes -subj "/CN=$API" -keyout "$W/srv.key" \
		-out "$W/srv.csr" 2>/dev/null &&
		openssl x509 -req -in "$W/srv.csr" -CA "$TOPO_DIR/pki/ca.pem" \
			-CAkey "$TOPO_DIR/pki/ca.key" -CAcreateserial -CAserial "$W/serial" -days 2 \
			-extfile "$TOPO_DIR/pki/ext" -out "$W/srv.pem" 2>/dev/null ||
		fail "the weak certificate"
	mkdir -p "$W/api" && chmod 1777 "$W/api"
	chmod 0644 "$W"/*
	ip netns exec "$NI" env FAKEAPI_WEAK=1 $PY "$OTO_TESTS/helpers/fakeapi.py" "$W/srv.pem" "$W/srv.key" 8444 \
		"$W/api" "$TOPO_DIR/pki/real" >"$W/api.log" 2>&1 &
	weak=$!
	n=0
	while [ ! -e "$W/api/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	# A host configuration that would let the key through, where OpenSSL looks for one.
	printf 'openssl_conf = c\n[c]\nssl_conf = s\n[s]\nsystem_default = d\n[d]\nCipherString = DEFAULT@SECLEVEL=0\n' \
		>"$W/openssl.cnf"
	for conf in "" "$W/openssl.cnf"; do
		[ -z "$conf" ] || export OPENSSL_CONF="$conf"
		gate --grant "API_KEY=https://$API:8444" --ca-file "$TOPO_DIR/pki/ca.pem" -- $CLIENT echo-x
		unset OPENSSL_CONF
		assertEquals "rc: $(cat "$T/err")" 0 "$rc"
		assertEquals "${conf:-no file}" \
			"echo-x: 502 otogate: the upstream's certificate does not verify: EE certificate key too weak" \
			"$(cat "$T/out")"
	done
	kill "$weak"
	assertFalse "the weak upstream got a request" "[ -s '$W/api/requests' ]"
}

test_a_wrong_host_name_is_a_502_and_nothing_is_sent() {
	gate --grant "API_KEY=https://other.example.test:8443" --ca-file "$TOPO_DIR/pki/ca.pem" -- $CLIENT echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-x: 502 otogate: the upstream's certificate does not verify: hostname mismatch" \
		"$(cat "$T/out")"
	assertEquals 0 "$(wc -c <"$TOPO_DIR/api/requests")"
}

test_an_upstream_that_closes_is_an_error_for_the_agent() {
	gate $GRANT -- $CLIENT drop close echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "drop: 502 otogate: the upstream closed before its response
close: ERR IncompleteRead
echo-x: 200" "$(sed 's/^echo-x: 200 .*/echo-x: 200/' "$T/out")"
	assertContains "$(cat "$T/log")" '"path":"/close","status":200,'
	assertContains "$(cat "$T/log")" '"error":"the upstream closed inside its response"'
}

# An upstream that closes a kept-alive connection while it is idle: the
# agent's next request on its own kept-alive connection goes out on a new one.
test_an_idle_upstream_close_is_not_an_error() {
	gate $GRANT -- $CLIENT bye pause echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "bye: 200 bye
pause: -
echo-x: 200" "$(sed 's/^echo-x: 200 .*/echo-x: 200/' "$T/out")"
	assertEquals 2 "$(grep -c '^== ' "$TOPO_DIR/api/requests")"
}

test_another_grants_phantom_is_refused() {
	gate $GRANT --grant "OTHER_KEY=https://$API:8443" -- $CLIENT other echo-x
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "other: 403 otogate: the phantom of another grant: OTHER_KEY is not for api.example.test" \
		"$(sed -n 1p "$T/out")"
	assertFalse "the other value was sent" "grep -qF '$OTHER' '$TOPO_DIR/api/requests'"
	assertEquals 1 "$(grep -c '^== ' "$TOPO_DIR/api/requests")"
}

# The gateway, once serving: the --as account, no capability, no_new_privs,
# a seccomp filter, and an empty root of its own.
test_the_gateway_is_locked_down() {
	# The agent outlives the wait below (at most 5 s, for the gateway's empty
	# root): the test ends it.
	ip netns exec "$NH" "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS $GRANT -- \
		"$OTO_BIN/otonet" $AS $PUB -- sleep 30 >"$T/out" 2>"$T/err" &
	pid=$!
	n=0
	while ! grep -q oto-gateway "/proc/$pid/mountinfo" 2>/dev/null && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	locked_down "$pid"
	st=$(grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" | tr -s '\t' ' ')
	mounts=$(cut -d' ' -f5,8- "/proc/$pid/mountinfo")
	kill -TERM "$pid"
	wait_child "$pid" 10
	assertEquals 143 "$rc"
	assertEquals "Uid: $OTO_TEST_USER $OTO_TEST_USER $OTO_TEST_USER $OTO_TEST_USER
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
NoNewPrivs: 1
Seccomp: 2" "$st"
	assertEquals "/ tmpfs oto-gateway ro,size=4k,nr_inodes=2,mode=500,uid=$OTO_TEST_USER,gid=$OTO_TEST_USER" "$mounts"
}

# A grant's host that does not resolve at start: its name, the grant, and
# the fix, before anything runs. The resolver's own words differ between libcs.
test_a_grant_host_that_does_not_resolve_says_the_fix() {
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS \
		--grant API_KEY=https://no-such-host.invalid -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c "touch $T/ran"
	assertEquals "$(cat "$T/err")" 111 "$rc"
	assertEquals "otogate: fatal: unable to resolve no-such-host.invalid (--grant API_KEY): RESOLVER (upstreams are resolved at start: add no-such-host.invalid to /etc/hosts, or check the host of the --grant)" \
		"$(gate_fatal | sed 's/\(--grant API_KEY)\): [^(]* (/\1: RESOLVER (/')"
	assertFalse "the chain ran" "[ -e '$T/ran' ]"
}

# The key is read and the values decrypted only by the gateway, after the
# fork: a wrong key still stops everything before the chain starts (the
# child waits for the gateway's word), and a --key-fd never reaches the chain.
test_a_wrong_key_stops_the_chain_and_the_key_fd_stays_outside() {
	otosecret keygen --out "$T/wrong"
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$T/wrong" $AS $GRANT -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c "touch $T/ran"
	assertEquals 101 "$rc"
	assertEquals "otogate: fatal: entry 0 (API_KEY): the key does not open this store (another key, or the store was altered)" \
		"$(gate_fatal)"
	sleep 0.2
	assertFalse "the chain ran" "[ -e '$T/ran' ]"
	# The fds the sandbox holds under otonet alone (the harness's own among them), and with
	# otogate and its key on fd 5 before it: the same, but for the ends for the agent's
	# file (OTO_WHY_FD, which otomount, were it in the chain, would take and close):
	# otonet's, and the gateway's one more. Never the key's.
	probe='ls /proc/self/fd | tr "\n" " "; echo; echo "$API_KEY" | cut -c1-12; echo "why=$OTO_WHY_FD"'
	run in_host "$OTO_BIN/otonet" $AS $PUB -- sh -c "$probe"
	without=$(why_less "$T/out")
	assertEquals 1 "$(sed -n 's/^why=//p' "$T/out" | tr , '\n' | wc -l)"
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-fd 5 $AS $GRANT -- \
		"$OTO_BIN/otonet" $AS $PUB -- sh -c "$probe" 5<"$K/key"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "$without
oto-phantom-" "$(why_less "$T/out")"
	assertEquals 2 "$(sed -n 's/^why=//p' "$T/out" | tr , '\n' | wc -l)"
}

# A gateway that dies takes the agent's way to the upstream with it: otonet's
# relay tells the sandbox to end (SIGTERM), and until it does (an agent
# that ignores it: blocked from before otogate's start, so that it cannot
# come before the trap) the next request is refused (otonet has nowhere to
# hand it), nothing goes another way, and the upstream sees nothing.
test_a_dead_gateway_fails_closed() {
	ip netns exec "$NH" env FLAG="$T/go" $PY -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.execv(sys.argv[1], sys.argv[1:])' "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" \
		$AS $GRANT -- "$OTO_BIN/otonet" $AS $PUB -- sh -c \
		'trap "" TERM; while [ ! -e "$FLAG" ]; do sleep 0.05; done; '"$CLIENT"' echo-x >'"$T"'/agent.out; echo done >>'"$T"'/agent.out' \
		>"$T/out" 2>"$T/err" &
	pid=$!
	n=0
	while ! grep -q oto-gateway "/proc/$pid/mountinfo" 2>/dev/null && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	kill -KILL "$pid"
	wait_child "$pid" 5
	assertEquals 137 "$rc"
	touch "$T/go"
	n=0
	while ! grep -qx 'done' "$T/agent.out" 2>/dev/null && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	assertEquals "echo-x: ERR ConnectionRefusedError
done" "$(cat "$T/agent.out")"
	assertEquals 0 "$(wc -c <"$TOPO_DIR/api/requests")"
	assertContains "$(cat "$T/err")" "otonet: warning: the gateway (otogate) is gone: the session ends"
}

# Run by an unprivileged user (no --as): the same gateway, and the same lockdown.
test_run_by_an_unprivileged_user() {
	cp "$K/store" "$K/key" "$T/"
	chown "$OTO_TEST_USER:$OTO_TEST_USER" "$T/store" "$T/key"
	# shellcheck disable=SC2086 # options split on purpose
	run in_host setpriv --reuid "$OTO_TEST_USER" --regid "$OTO_TEST_USER" --clear-groups \
		"$OTO_BIN/otogate" --store "$T/store" --key-file "$T/key" $GRANT -- \
		"$OTO_BIN/otonet" $PUB -- $CLIENT echo-x
	assertEquals "rc: $(grep -v 'treated as public' "$T/err")" 0 "$rc"
	assertEquals "echo-x: 200" "$(cut -c1-11 "$T/out")"
	assertEquals "x-api-key: $REAL" "$(grep -i '^x-api-key:' "$TOPO_DIR/api/requests")"
}

# The whole chain as otorun composes it (--grant, --ca-file): the agent in
# its view reaches the upstream with the real value, and holds only the
# phantom (otoexec keeps NAME and NAME_URL).
# otorun_grant GRANT CMD: CMD run by otorun in the fake host, as alice's
# member agent (examples/agent, gateclient.py in its workspace), with the
# --grant GRANT of the test's store.
otorun_grant() {
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp "$OTO_TESTS/helpers/gateclient.py" "$A/workspace/"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	run ip netns exec "$NH" env FLAG=/dev/null "$OTO_BIN/otorun" --as "$OTO_TEST_USER" \
		--public 203.0.113.0/24 --agent-root "$A" --person alice --role member \
		--store "$K/store" --key-file "$K/key" --grant "$1" \
		--ca-file "$K/ca.pem" --env-keep FLAG -- sh -c "$2"
}

test_otorun_grant_composes_the_chain() {
	otorun_grant "API_KEY=https://$API:8443" 'echo "K=$API_KEY"; echo "U=$API_KEY_URL"; cat /proc/[0-9]*/environ | tr "\0" "\n" | grep -c "^API_KEY=oto-phantom-"; ls /proc/self/fd | tr "\n" " "; echo; python3 /work/gateclient.py echo-x'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^K=//p' "$T/out")
	assertEquals "oto-phantom-" "$(echo "$phantom" | cut -c1-12)"
	assertEquals "U=http://10.0.2.4:8001" "$(sed -n 2p "$T/out")"
	assertNotEquals 0 "$(sed -n 3p "$T/out")"
	# 0 1 2, and the directory ls reads: no store, key or gateway fd.
	assertEquals "0 1 2 3 " "$(sed -n 4p "$T/out")"
	assertEquals "echo-x: 200 {\"x-api-key\": \"$phantom\", \"authorization\": null, \"path\": \"/echo\", \"body\": \"\"}" \
		"$(sed -n 5p "$T/out")"
	assertEquals "x-api-key: $REAL" "$(grep -i '^x-api-key:' "$TOPO_DIR/api/requests")"
	assertNoSecret "the agent's output" "$T/out"
}

# The gateway's own refusals reach the agent's file (OTO_WHY, oto(7)) as
# they happen, one short line each from its record's line; what it served
# is not there.
test_gateway_refusals_in_the_agents_file() {
	otorun_grant "API_KEY=https://$API:8443,allow=GET:/echo" \
		'python3 /work/gateclient.py echo-x admin | cut -c1-16; cat "$OTO_WHY"'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "echo-x: 200 {\"x-
admin: 403 otoga
gate: refused GET https://api.example.test/admin (grant API_KEY): 403 no allow= of the grant serves this method and path" \
		"$(cat "$T/out")"
}

test_otorun_grant_usage_errors() {
	for a in "--grant API_KEY=https://a|--secret and --grant need --store and --key-file" \
		"--store s --key-file k --no-net --grant API_KEY=https://a|--no-net excludes --grant (the gateway is reached through otonet)" \
		"--store s --key-file k --grant API_KEY=http://a|--grant API_KEY=http://a: expected NAME=https://HOST[:PORT]" \
		"--store s --key-file k --grant A;B=https://a|--grant A;B=https://a: NAME must be letters, digits and _"; do
		# shellcheck disable=SC2086 # split on purpose
		run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p ${a%%|*} -- x
		assertEquals "<$a>" 100 "$rc"
		assertEquals "otorun: fatal: ${a#*|}" "$(cat "$T/err")"
		assertEquals "" "$(cat "$T/out")"
	done
}

# A real coding-agent CLI from the npm registry (installed once into
# build/agents), pointed at the gateway, answered by fakeapi's scripted
# model, which has it run "env" in its shell tool: the tool's output it
# sends back holds the phantom, never the key, and the upstream got the key.
test_a_real_agent_cli_sees_only_the_phantom() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	mkdir -p "$T/home" "$T/claude"
	chown "$OTO_TEST_USER:$OTO_TEST_USER" "$T/home"
	gate --bind "$C:$T/claude" --grant "ANTHROPIC_API_KEY=https://$API:8443" --ca-file "$K/ca.pem" -- \
		env HOME="$T/home" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
		DISABLE_AUTOUPDATER=1 sh -c 'cd "$HOME" && ANTHROPIC_BASE_URL=$ANTHROPIC_API_KEY_URL exec "$0" \
			-p "Show me the environment." --dangerously-skip-permissions' "$T/claude/node_modules/.bin/claude"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done" "$(cat "$T/out")"
	assertTrue "the tool's output came back" "[ -s '$TOPO_DIR/api/toolresult' ]"
	assertEquals 1 "$(grep -c '^ANTHROPIC_API_KEY=oto-phantom-' "$TOPO_DIR/api/toolresult")"
	assertNoSecret "the tool's output" "$TOPO_DIR/api/toolresult"
	assertEquals "x-api-key: $REAL" "$(grep -i '^x-api-key:' "$TOPO_DIR/api/requests" | sort -u)"
	rm -f "$TOPO_DIR/api/toolresult"
}

test_the_exit_code_is_the_agents() {
	gate $GRANT -- sh -c 'exit 7'
	assertEquals 7 "$rc"
	gate $GRANT -- sh -c 'kill -TERM $$'
	assertEquals 143 "$rc"
}

test_usage_and_rejections() {
	for a in "" "--store $K/store --key-file $K/key -- true" \
		"--store $K/store --key-file $K/key --grant API_KEY=http://$API -- true" \
		"--store $K/store --key-file $K/key --grant API_KEY=https://$API/v1 -- true" \
		"--store $K/store --key-file $K/key --grant API_KEY=https://$API:0 -- true" \
		"--store $K/store --key-file $K/key --grant API_KEY=https://$API --grant API_KEY=https://$API -- true" \
		"--store $K/store --key-file $K/key --grant API_KEY=https://$API"; do
		# shellcheck disable=SC2086 # split on purpose
		run "$OTO_BIN/otogate" $AS $a
		assertEquals "<$a>: $(cat "$T/err")" 100 "$rc"
		assertOneLine otogate
	done
	run "$OTO_BIN/otogate" $AS --store "$K/store" --key-file "$K/key" --grant NOPE=https://$API -- true
	assertEquals 101 "$rc"
	assertEquals "otogate: fatal: --grant NOPE: no such name in the store" "$(cat "$T/err")"
	run "$OTO_BIN/otogate" $AS --store "$K/store" --key-file "$K/key" --grant SHORT=https://$API -- true
	assertEquals 101 "$rc"
	assertEquals "otogate: fatal: --grant SHORT: the value is 8 bytes: the gateway takes 16 to 4096" "$(cat "$T/err")"
}

. shunit2
