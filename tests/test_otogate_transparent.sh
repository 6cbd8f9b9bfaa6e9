#!/bin/sh
# otogate's transparent grants (--grant NAME=https://HOST[:PORT],transparent),
# in the topology of tests/net/topo.sh: the agent reaches HOST by its name
# over TLS, with no base URL changed; otonet hands the gateway the flows to
# an address its DNS gave for HOST whose ClientHello names HOST, and no
# other; the gateway answers with its session CA's certificate, puts the
# real value where the client put the phantom (Basic, token, Bearer), and
# speaks verified TLS to HOST. The real hosts are tests/helpers/fakehub.py
# on the fake internet (git http-backend, a REST API, an npm registry),
# with a certificate of a test CA made here; plain.test, at another
# address, is a host no grant names.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

REAL=ghp_real0123456789abcdef0123456789abcdef
HUB=git.example.test
PORT=9443

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'hub_down; topo_down' EXIT
	trap 'hub_down; topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	hub_up || { echo "the fake hub failed" >&2; exit 1; }
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
# otonet in the fake host (the session CA's certificate in $CA for it: no
# view here, otomount's part is its own test), in $T: the agent's account
# may not enter the checkout (a clone under /root, as CI's), and git looks
# for a repository from where it starts; the gateway's log in $T/log,
# otonet's in $T/net, stdout in $T/out, stderr in $T/err.
# --no-public (the test's): otonet's, the internet closed.
gate() {
	_opts='' _net=''
	while [ "$1" != -- ]; do
		case $1 in
		--no-public) _net=--no-public ;;
		*) _opts="$_opts $1" ;;
		esac
		shift
	done
	shift
	# shellcheck disable=SC2086 # options split on purpose
	run in_host "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --log-fd 3 \
		--ca-file "$K/ca.pem" $_opts -- \
		"$OTO_BIN/otonet" $AS $PUB $_net --log-fd 4 -- sh -c 'cd "$0" || exit 99
		cat <&"$OTO_GATE_CA" >"$0/ca.pem"
		export SSL_CERT_FILE="$0/ca.pem" CURL_CA_BUNDLE="$0/ca.pem" GIT_SSL_CAINFO="$0/ca.pem" NODE_EXTRA_CA_CERTS="$0/ca.pem"
		exec "$@"' "$T" "$@" 3>"$T/log" 4>"$T/net"
}
GIT="--grant GH_TOKEN=https://$HUB:$PORT,transparent"


GITURL=https://$HUB:$PORT/git/proj.git
# A clone, a commit and a push, as the agent: git's own output in $T/git.log.
GITWORK='set -e; export HOME=$0/home GIT_TRACE_CURL=$0/trace GIT_TRACE_CURL_NO_DATA=0; mkdir -p "$HOME"
	git config --global user.name agent; git config --global user.email agent@example.test
	git config --global init.defaultBranch main
	git clone -q "$1" "$0/clone" 2>>"$0/git.log"; cd "$0/clone"
	echo change >>README; git commit -qam "from the sandbox"
	git push -q origin main 2>>"$0/git.log"; git log -1 --format=%s; git remote get-url origin'


test_git_clone_commit_and_push_with_the_phantom_in_the_url() {
	git -C "$TOPO_DIR/hub/repos/proj.git" update-ref refs/heads/main "$(git -C "$TOPO_DIR/hub/seed" rev-parse HEAD)"
	gate $GIT -- sh -c 'sh -c "$1" "$0" "https://x-access-token:$GH_TOKEN@'"$HUB:$PORT"'/git/proj.git"; echo "P=$GH_TOKEN"' "$T" "$GITWORK"
	assertEquals "rc: $(cat "$T/err") $(cat "$T/git.log")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "oto-phantom-" "$(echo "$phantom" | cut -c1-12)"
	assertEquals "from the sandbox
https://x-access-token:$phantom@$HUB:$PORT/git/proj.git" "$(sed -n 1,2p "$T/out")"
	assertEquals "from the sandbox" "$(hub_head)"
	# git sends Basic built from the URL's user-info: the hub got the real value there alone.
	assertEquals "Authorization: Basic $(printf 'x-access-token:%s' "$REAL" | base64 -w0)" "$(hub_auth)"
	assertEquals 0 "$(grep -v -i '^authorization:' "$TOPO_DIR/hub/requests" | grep -cF "$REAL")"
	# The clone's config, git's trace of every response as it came, the output: the phantom only.
	assertEquals 1 "$(grep -cF "$phantom" "$T/clone/.git/config")"
	assertNoSecret "the clone" "$T/clone/.git/config"
	assertNoSecret "git's trace" "$T/trace"
	assertNoSecret "the output" "$T/out"
	assertNoSecret "the gateway's log" "$T/log"
	# Every request of the gateway's, one line each; the relay handed it the flows by name.
	assertEquals 0 "$(grep -vc '"grant":"GH_TOKEN","method":"[A-Z]*","host":"git.example.test"' "$T/log")"
	assertContains "$(cat "$T/net")" '"rule":"transparent","name":"git.example.test"'
}

test_git_with_a_credential_helper() {
	gate $GIT -- sh -c 'HOME=$0/home; mkdir -p "$HOME"
		git config --global credential.helper "!f() { echo username=agent; echo password=\$GH_TOKEN; }; f"
		sh -c "$1" "$0" "'"$GITURL"'"' "$T" "$GITWORK"
	assertEquals "rc: $(cat "$T/err") $(cat "$T/git.log")" 0 "$rc"
	assertEquals "from the sandbox
$GITURL" "$(cat "$T/out")"
	# The first request has none (the 401 asks), the others the real value, in Basic.
	assertEquals "Authorization: Basic $(printf 'agent:%s' "$REAL" | base64 -w0)" "$(hub_auth)"
	assertNoSecret "git's trace" "$T/trace"
}

# Nothing in the sandbox holds the value: not the environment of any
# process, their command lines and memory maps, nor the files the agent
# can read, nor what the hub answered.
test_the_real_value_never_enters_the_sandbox() {
	gate $GIT -- sh -c 'cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline /proc/[0-9]*/maps 2>/dev/null >"$0/proc.dump"
		env >"$0/env.dump"; curl -sS -H "Authorization: token $GH_TOKEN" "https://'"$HUB:$PORT"'/api/echo" >"$0/echo.dump"; echo "P=$GH_TOKEN"' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	phantom=$(sed -n 's/^P=//p' "$T/out")
	assertEquals "{\"authorization\": \"token $phantom\"}" "$(cat "$T/echo.dump")"
	assertEquals 1 "$(grep -c "^GH_TOKEN=$phantom" "$T/env.dump")"
	for f in proc env echo; do assertNoSecret "$f" "$T/$f.dump"; done
	assertEquals "Authorization: token $REAL" "$(hub_auth)"
}

test_a_rest_api_with_authorization_token() {
	gate --grant "GH_TOKEN=https://rest.example.test:$PORT,transparent" -- sh -c '
		for a in "token $GH_TOKEN" "Bearer $GH_TOKEN" "token oto-phantom-nottherightone012345678" ""; do
			curl -sS -o /dev/null -w "%{http_code} " ${a:+-H "Authorization: $a"} https://rest.example.test:'$PORT'/api/user
		done
		curl -sS -w " %{http_code}" -H "Authorization: token $GH_TOKEN" https://rest.example.test:'$PORT'/api/nothing'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals '200 200 401 401 {"message": "Not Found"} 404' "$(cat "$T/out")"
	assertEquals 5 "$(grep -c '"grant":"GH_TOKEN","method":"GET","host":"rest.example.test","path":"/api/[a-z]*","status":[0-9]*,' "$T/log")"
}

# npm sends the _authToken of .npmrc as "Authorization: Bearer". npm (11)
# reads no NODE_EXTRA_CA_CERTS: its cafile names the bundle (otogate(1));
# node itself (https.get) trusts the session CA from NODE_EXTRA_CA_CERTS.
test_npm_installs_a_private_package() {
	command -v npm >/dev/null || { skip "npm not found"; return 0; }
	gate --grant "NPM_TOKEN=https://npm.example.test:$PORT,transparent" -- sh -c 'set -e
		export HOME=$0/home npm_config_cache=$0/home/.npm npm_config_cafile=$NODE_EXTRA_CA_CERTS; mkdir -p "$HOME" "$0/proj"
		printf "@oto:registry=https://npm.example.test:'$PORT'/npm/\n//npm.example.test:'$PORT'/npm/:_authToken=\${NPM_TOKEN}\n" >"$HOME/.npmrc"
		cd "$0/proj"; node -e "require(\"https\").get(\"https://npm.example.test:'$PORT'/npm/@oto%2fprivate\", {headers: {authorization: \"Bearer \" + process.env.NPM_TOKEN}}, r => {console.log(r.statusCode); process.exit(0)}).on(\"error\", e => {console.log(e.message); process.exit(0)})" >"$0/node.log" 2>&1
		npm install --no-audit --no-fund --no-update-notifier @oto/private >"$0/npm.log" 2>&1
		node -e "console.log(require(\"@oto/private\"))"' "$T"
	assertEquals "rc: $(cat "$T/err") $(tail -5 "$T/npm.log" 2>/dev/null) $(grep -h -i "http fetch" "$T"/home/.npm/_logs/*.log | head -5)" 0 "$rc"
	assertEquals "private ok" "$(cat "$T/out")"
	assertEquals "200" "$(cat "$T/node.log")"
	assertEquals "Authorization: Bearer $REAL" "$(hub_auth)"
	assertNoSecret "npm's files" "$T/home/.npmrc"
	assertFalse "npm's cache holds the value" "grep -rqF '$REAL' '$T/home' '$T/proj'"
}

# A host no grant names, on the same fake internet: its TLS reaches it
# untouched: the client sees the host's own certificate (which the session
# CA alone does not verify; the test CA does), and the relay logs no
# hand-over.
test_another_host_is_not_intercepted() {
	gate $GIT -- sh -c 'curl -sS -o /dev/null https://plain.test:'$PORT'/open 2>&1 | head -n 1 | cut -d" " -f1-2
		curl -sS --cacert "$1" https://plain.test:'$PORT'/open
		echo | openssl s_client -connect plain.test:'$PORT' -servername plain.test 2>/dev/null | sed -n "s/^issuer=//p"' "$T" "$K/ca.pem"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "curl: (60)
open
CN = oto test ca" "$(cat "$T/out")"
	assertNotContains "$(cat "$T/net")" '"rule":"transparent"'
	assertEquals "" "$(cat "$T/log")"
	assertEquals 1 "$(grep -c '^== plain.test:'$PORT' GET /open' "$TOPO_DIR/hub/requests")"
}

# A flow to the host's address that names another host (other.example.test
# has the same address): not handed over. The internet open, it reaches the
# host untouched; under --no-public, no rule allows it: reset, and logged so.
test_another_name_on_the_hosts_address_is_not_handed_over() {
	probe='curl -sS --connect-to other.example.test:'$PORT':'$HUB:$PORT' -o /dev/null -w "%{http_code}\n" --cacert "$1" https://other.example.test:'$PORT'/open 2>&1 | head -n 1 | cut -d" " -f1-2
		curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: token $GH_TOKEN" https://'$HUB:$PORT'/api/user'
	gate $GIT -- sh -c "$probe" "$T" "$K/ca.pem"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "200
200" "$(cat "$T/out")"
	assertEquals 1 "$(grep -c '"rule":"transparent"' "$T/net")"
	assertEquals 1 "$(grep -c '^== other.example.test:'$PORT' GET /open' "$TOPO_DIR/hub/requests")"
	gate $GIT --no-public -- sh -c "$probe" "$T" "$K/ca.pem"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "curl: (35)
200" "$(cat "$T/out")"
	assertContains "$(cat "$T/net")" '"port":'$PORT',"verdict":"deny","rule":"no-public"'
	assertEquals 1 "$(grep -c '"rule":"transparent"' "$T/net")"
}

# The host's name to an address the relay's DNS did not give for it: not handed over.
test_the_hosts_name_on_another_address_is_not_handed_over() {
	gate $GIT -- sh -c 'curl -sS -o /dev/null -w "%{http_code}\n" --resolve '$HUB:$PORT:$INET4B' --cacert "$1" https://'$HUB:$PORT'/open' "$T" "$K/ca.pem"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "200" "$(cat "$T/out")"
	assertNotContains "$(cat "$T/net")" '"rule":"transparent"'
	assertEquals "" "$(cat "$T/log")"
}

# The session CA: one certificate (no key) handed down; it may sign for the
# granted host alone (name constraints), and the leaf the gateway shows
# names that host alone, for a day at most.
test_the_session_ca_can_vouch_for_the_granted_hosts_only() {
	gate $GIT --grant "NPM_TOKEN=https://npm.example.test:$PORT,transparent" -- sh -c '
		echo | openssl s_client -connect '$HUB:$PORT' -servername '$HUB' -showcerts 2>/dev/null |
			sed -n "/BEGIN CERT/,/END CERT/p" | sed "/END CERT/q" >"$0/leaf.pem"' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals 1 "$(grep -c 'BEGIN CERTIFICATE' "$T/ca.pem")"
	assertEquals 0 "$(grep -c 'PRIVATE KEY' "$T/ca.pem")"
	assertEquals "X509v3 Basic Constraints: critical
CA:TRUE, pathlen:0
X509v3 Name Constraints:
Permitted:
DNS:git.example.test
DNS:npm.example.test" "$(openssl x509 -in "$T/ca.pem" -noout -ext basicConstraints,nameConstraints | sed 's/^ *//; s/ *$//')"
	assertEquals "X509v3 Basic Constraints: critical
CA:FALSE
X509v3 Subject Alternative Name:
DNS:git.example.test, DNS:npm.example.test" \
		"$(openssl x509 -in "$T/leaf.pem" -noout -ext subjectAltName,basicConstraints | sed 's/^ *//; s/ *$//')"
	assertEquals "OK" "$(openssl verify -CAfile "$T/ca.pem" "$T/leaf.pem" | sed 's/.*: //')"
	from=$(date -d "$(openssl x509 -in "$T/leaf.pem" -noout -startdate | cut -d= -f2)" +%s)
	to=$(date -d "$(openssl x509 -in "$T/leaf.pem" -noout -enddate | cut -d= -f2)" +%s)
	assertEquals "valid for a day and a minute" 86460 $((to - from))
	# A certificate for another name under it does not verify: the constraints forbid it.
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=x \
		-keyout "$T/x.key" -out "$T/x.pem" 2>/dev/null
	assertNotEquals "OK" "$(openssl verify -CAfile "$T/ca.pem" "$T/x.pem" 2>&1 | sed -n 's/.*: //p')"
}

# The decision is made on the whole ClientHello however it is cut: at every
# offset, two segments, the flow is handed over and served.
test_a_client_hello_split_at_every_offset() {
	gate --grant "GH_TOKEN=https://rest.example.test:$PORT,transparent" -- sh -c \
		'TOKEN=$GH_TOKEN exec python3 "$1" rest.example.test '$PORT' /api/user' "$T" "$OTO_TESTS/helpers/splithello.py"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	n=$(sed -n 's/^\([0-9]*\) offsets, .*/\1/p' "$T/out")
	assertTrue "a hello of $n bytes" "[ ${n:-0} -gt 100 ]"
	assertEquals "$n offsets, $n ok" "$(cat "$T/out")"
	assertEquals "$n" "$(grep -c '"rule":"transparent"' "$T/net")"
}

# Under --no-public, with no other rule: the granted host's flows still go
# to the gateway; the grant's port is not served on 10.0.2.4 (a transparent
# grant is reached by name only).
test_a_transparent_grant_under_no_public() {
	gate $GIT --no-public -- sh -c 'curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: token $GH_TOKEN" https://'$HUB:$PORT'/api/user
		curl -sS -o /dev/null --cacert "$1" https://plain.test:'$PORT'/open 2>&1 | head -n 1 | cut -d" " -f1-2
		curl -sS -o /dev/null http://10.0.2.4:8001/ 2>&1 | head -n 1 | cut -d" " -f1-2' "$T" "$K/ca.pem"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "200
curl: (7)
curl: (7)" "$(cat "$T/out")"
	assertContains "$(cat "$T/net")" '"rule":"transparent","name":"git.example.test"'
	assertContains "$(cat "$T/net")" '"dst":"10.0.2.4","port":8001,"verdict":"deny"'
}

# otorun: the grant passed on, the session CA (and it alone) added to the view's trust.
test_otorun_transparent_grant_trusts_the_session_ca_in_the_view() {
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	host=$(grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt)
	run ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" \
		--public 203.0.113.0/24 --agent-root "$A" --person alice --role member \
		--store "$K/store" --key-file "$K/key" --grant "GH_TOKEN=https://$HUB:$PORT,transparent" \
		--ca-file "$K/ca.pem" -- \
		sh -c 'echo "U=$GH_TOKEN_URL"; grep -c "BEGIN CERTIFICATE" "$SSL_CERT_FILE"; env | grep -c OTO_GATE_CA
			grep -rl "PRIVATE KEY" /etc /tmp /work "$HOME" 2>/dev/null | wc -l
			curl -sS -o /dev/null -w "%{http_code}\n" -H "Authorization: token $GH_TOKEN" https://'$HUB:$PORT'/api/user'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	# The host's bundle, the test CA (--ca-file), the session CA.
	assertEquals "U=https://$HUB:$PORT
$((host + 2))
0
0
200" "$(cat "$T/out")"
	assertEquals "Authorization: token $REAL" "$(hub_auth)"
}

test_usage_and_rejections() {
	for a in "K=https://203.0.113.10,transparent|transparent needs a host name: an address is never looked up" \
		"K=https://a.test,transparent,transparent|transparent twice" \
		"K=https://a.test,opaque|unknown grant option (header=NAME, allow=METHOD:PATH-PREFIX, ask=METHOD:PATH-PREFIX, ask=writes or transparent)"; do
		run "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" --grant "${a%%|*}" -- true
		assertEquals "<$a>" 100 "$rc"
		assertEquals "otogate: fatal: --grant ${a%%|*}: ${a#*|}" "$(cat "$T/err")"
	done
	run "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" --grant "K=https://a.test,transparent" \
		--grant "L=https://A.test:443,transparent" -- true
	assertEquals 100 "$rc"
	assertEquals "otogate: fatal: --grant L=https://A.test:443,transparent: K is transparent for a.test already" "$(cat "$T/err")"
}

# OTO_TEST_ONLY="NAME...": those tests alone (while one is being worked on).
if [ -n "${OTO_TEST_ONLY:-}" ]; then
	suite() { for _t in $OTO_TEST_ONLY; do suite_addTest "$_t"; done; }
fi

. shunit2
