#!/bin/sh
# otogate's asking (ask= grants, --ask-fd; otogate(1), Asking), in the
# topology of tests/net/topo.sh, against tests/helpers/fakehub.py (git
# http-backend, a REST API, an npm registry) and tests/helpers/decider.py
# (a scripted decider on fd 3, its questions in $T/asked): a request an
# ask= rule matches is held, nothing of it sent upstream, until the decider
# answers; a push's ref updates are in its question; a deny, a timeout or a
# decider gone answers the agent with the reason; otonet's own questions go
# over the same connection, renumbered.
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
	rm -f "$TOPO_DIR/hub/published"
	git -C "$TOPO_DIR/hub/repos/proj.git" update-ref refs/heads/main \
		"$(git -C "$TOPO_DIR/hub/seed" rev-parse HEAD)"
}

# gask POLICY [OTOGATE OPTIONS] -- CMD...: CMD as the agent behind otogate
# and otonet in the fake host, both asking decider.py (POLICY, its
# questions in $T/asked) over the one connection (otogate --ask-fd 3, and
# otonet --ask-fd 3 through the gateway). The session CA's certificate in
# $T/ca.pem; the gateway's log in $T/log, otonet's in $T/net. --no-public
# and --net-timeout S are otonet's (--ask-timeout S).
gask() {
	_pol=$1 _opts='' _net=''
	shift
	while [ "$1" != -- ]; do
		case $1 in
		--no-public) _net="$_net --no-public" ;;
		--net-timeout) _net="$_net --ask-timeout $2" && shift ;;
		*) _opts="$_opts $1" ;;
		esac
		shift
	done
	shift
	# shellcheck disable=SC2086 # options split on purpose
	run in_host $PY "$OTO_TESTS/helpers/decider.py" --log "$T/asked" "$_pol" -- \
		"$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --log-fd 4 --ask-fd 3 \
		--ca-file "$K/ca.pem" $_opts -- \
		"$OTO_BIN/otonet" $AS $PUB $_net --ask-fd 3 --log-fd 5 -- sh -c 'cd "$0" || exit 99
		[ -z "${OTO_GATE_CA:-}" ] || cat <&"$OTO_GATE_CA" >"$0/ca.pem"
		export SSL_CERT_FILE="$0/ca.pem" CURL_CA_BUNDLE="$0/ca.pem" GIT_SSL_CAINFO="$0/ca.pem" NODE_EXTRA_CA_CERTS="$0/ca.pem"
		exec "$@"' "$T" "$@" 4>"$T/log" 5>"$T/net"
	[ -n "${OTO_DBG:-}" ] && { echo "OUT:"; cat "$T/out"; echo "ERR:"; cat "$T/err"; echo ASKED; cat "$T/asked"; echo GITLOG; cat "$T/git.log" "$T/npm.log"; echo LOG; cat "$T/log"; } >&2
}

PUSH=POST:/git/proj.git/git-receive-pack
GIT="--grant GH_TOKEN=https://$HUB:$PORT,transparent,ask=$PUSH"
GITURL=https://$HUB:$PORT/git/proj.git
# A clone, a commit and a push, as the agent: git's own output in $T/git.log.
GITWORK='export HOME=$0/home; mkdir -p "$HOME"
	git config --global user.name agent; git config --global user.email agent@example.test
	git config --global credential.helper "!f() { echo username=agent; echo password=\$GH_TOKEN; }; f"
	git clone -q "$1" "$0/clone" 2>>"$0/git.log" || exit 3; cd "$0/clone"
	echo change >>README; git commit -qam "from the sandbox"; git rev-parse HEAD >"$0/new"
	git push origin main 2>>"$0/git.log"; echo "push=$?"'

hub_pushes() { grep -c "^== .* POST /git/proj.git/git-receive-pack" "$TOPO_DIR/hub/requests"; }

# Hostile first: the decider dies while a push is held. The push is
# refused with the reason git shows; the hub never saw it; a later
# question is denied without asking.
test_a_decider_that_dies_mid_question_denies() {
	gask close $GIT -- sh -c "$GITWORK"'
		l="$(printf "%040d %040d" 0 1) refs/heads/x"
		printf "%04x%s0000" $((${#l} + 4)) "$l" | curl -sS -o /dev/null -w "%{http_code}\n" -X POST --data-binary @- -H "Authorization: token $GH_TOKEN" https://'$HUB:$PORT'/git/proj.git/git-receive-pack' "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "push=1
403" "$(cat "$T/out")"
	assertContains "$(cat "$T/git.log")" "! [remote rejected] main -> main (otogate: no decider to ask: denied (ask=$PUSH))"
	assertEquals seed "$(hub_head)"
	assertEquals 0 "$(hub_pushes)"
	assertEquals 1 "$(wc -l <"$T/asked")"
	assertContains "$(cat "$T/err")" "the decider (--ask-fd) closed its end"
	assertEquals 2 "$(grep -c '"verdict":"deny","rule":"ask","decision":"decider-gone"' "$T/log")"
}

# The push paused, then allowed: the question names the refs it moves; the ref moves.
test_a_push_asked_and_allowed() {
	gask allow-once $GIT -- sh -c "$GITWORK" "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err") $(cat "$T/git.log")" 0 "$rc"
	assertEquals "push=0" "$(cat "$T/out")"
	assertEquals "from the sandbox" "$(hub_head)"
	old=$(git -C "$TOPO_DIR/hub/seed" rev-parse HEAD | cut -c1-12)
	new=$(cut -c1-12 "$T/new")
	assertEquals 1 "$(wc -l <"$T/asked")"
	q=$(cat "$T/asked")
	assertContains "$q" '"source":"gate","session":"'
	assertContains "$q" ',"id":1,"grant":"GH_TOKEN","method":"POST","host":"git.example.test","path":"/git/proj.git/git-receive-pack","length":'
	assertContains "$q" ',"rule":"ask='$PUSH'","refs":["refs/heads/main '$old..$new'"],"nrefs":1}'
	assertEquals 1 "$(grep -c '"verdict":"ask","rule":"ask='$PUSH'","ask":1}' "$T/log")"
	assertEquals 1 "$(grep -c '"verdict":"allow","rule":"ask","decision":"allow-once","ask":1}' "$T/log")"
	assertNoSecret "the question" "$T/asked"
}

# Denied: the server's ref unchanged, nothing of the push sent, git prints the reason.
test_a_push_asked_and_denied() {
	gask deny $GIT -- sh -c "$GITWORK" "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "push=1" "$(cat "$T/out")"
	assertContains "$(cat "$T/git.log")" "! [remote rejected] main -> main (otogate: the person denied this request (ask=$PUSH))"
	assertEquals seed "$(hub_head)"
	assertEquals 0 "$(hub_pushes)"
	assertEquals 1 "$(grep -c '"decision":"deny","ask":1}' "$T/log")"
}

# A push larger than http.postBuffer: git first posts a probe, a bare
# flush-pkt that moves no ref, then the push itself, chunked. The probe
# is not asked (it changes nothing); the push is, once, with its refs.
test_a_large_push_is_asked_once_not_its_probe() {
	gask allow-once $GIT -- sh -c "$(echo "$GITWORK" | sed 's/echo change >>README/head -c 200000 \/dev\/urandom >blob; git add blob/; s/git push origin/git -c http.postBuffer=65536 push origin/')" "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err") $(cat "$T/git.log")" 0 "$rc"
	assertEquals "push=0" "$(cat "$T/out")"
	assertEquals "from the sandbox" "$(hub_head)"
	assertEquals 1 "$(wc -l <"$T/asked")"
	assertContains "$(cat "$T/asked")" ',"refs":["refs/heads/main '
	assertEquals 2 "$(hub_pushes)"
}

# No answer within --ask-timeout: a deny, with its reason.
test_no_answer_in_time_denies() {
	gask silent --ask-timeout 1 $GIT -- sh -c "$GITWORK" "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/git.log")" "(otogate: no answer from the decider in 1 s (ask=$PUSH))"
	assertEquals seed "$(hub_head)"
	assertEquals 1 "$(grep -c '"decision":"timeout","ask":1}' "$T/log")"
}

# An answer for an id never given is a decider gone (fail closed), not an answer.
test_an_answer_for_a_wrong_id_is_a_decider_gone() {
	gask 'raw=7 allow-once\n' $GIT -- sh -c "$GITWORK" "$T" "$GITURL"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "push=1" "$(cat "$T/out")"
	assertContains "$(cat "$T/err")" "wrote a line that is not an answer"
	assertEquals seed "$(hub_head)"
}

# npm publish through a transparent grant with ask=writes: denied, npm
# shows the reason and the registry got nothing; allowed, it is published.
NPMWORK='set -e; export HOME=$0/home npm_config_cache=$0/home/.npm npm_config_cafile=$NODE_EXTRA_CA_CERTS; mkdir -p "$HOME" "$0/pkg"
	printf "@oto:registry=https://npm.example.test:'$PORT'/npm/\n//npm.example.test:'$PORT'/npm/:_authToken=\${NPM_TOKEN}\n" >"$HOME/.npmrc"
	cd "$0/pkg"; printf "{\"name\": \"@oto/pub\", \"version\": \"1.0.0\"}\n" >package.json
	npm publish --access restricted --no-update-notifier >"$0/npm.log" 2>&1 && echo published || echo refused'
NPM="--grant NPM_TOKEN=https://npm.example.test:$PORT,transparent,ask=writes"

test_npm_publish_asked_and_denied() {
	command -v npm >/dev/null || { skip "npm not found"; return 0; }
	gask deny $NPM -- sh -c "$NPMWORK" "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals refused "$(cat "$T/out")"
	assertContains "$(cat "$T/npm.log")" "otogate: the person denied this request (ask=writes)"
	assertFalse "the registry got the package" "[ -e '$TOPO_DIR/hub/published' ]"
	assertContains "$(cat "$T/asked")" '"grant":"NPM_TOKEN","method":"PUT","host":"npm.example.test","path":"/npm/@oto%2fpub"'
}

test_npm_publish_asked_and_allowed() {
	command -v npm >/dev/null || { skip "npm not found"; return 0; }
	gask allow-once $NPM -- sh -c "$NPMWORK" "$T"
	assertEquals "rc: $(cat "$T/err") $(tail -5 "$T/npm.log")" 0 "$rc"
	assertEquals published "$(cat "$T/out")"
	assertContains "$(cat "$TOPO_DIR/hub/published")" '"name":"@oto/pub"'
	assertEquals 1 "$(wc -l <"$T/asked")"
}

API="--grant API_TOKEN=https://rest.example.test:$PORT,ask=POST:/api,ask=DELETE:/api/user"
# curl with the phantom, METHOD PATH: the status, then the body.
CURL='for r in "$@"; do curl -sS -X "${r% *}" -w " %{http_code}\n" -H "Authorization: token $API_TOKEN" "$API_TOKEN_URL${r#* }"; done'

# allow-session remembers the grant, the method and the rule's prefix: no
# question more for them; another method or rule is asked again.
test_allow_session_remembers_the_method_and_prefix() {
	gask allow-session,deny $API -- sh -c "$CURL" sh 'POST /api/user' 'POST /api/other' 'GET /api/user' 'DELETE /api/user'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals '{"login": "oto"} 200
{"message": "Not Found"} 404
{"login": "oto"} 200
{"error":"otogate: the person denied this request (ask=DELETE:/api/user)"}
 403' "$(cat "$T/out")"
	assertEquals 2 "$(wc -l <"$T/asked")"
	assertContains "$(sed -n 2p "$T/asked")" '"id":2,"grant":"API_TOKEN","method":"DELETE","host":"rest.example.test","path":"/api/user","length":0,"rule":"ask=DELETE:/api/user"}'
}

# An encoding the upstream decodes never leaves a request unasked: the
# rule matches the decoded path, a method in any case, and a path the
# gateway cannot judge (an encoded slash) is asked whatever it is.
test_an_encoded_path_or_method_is_asked_all_the_same() {
	gask deny $API -- sh -c "$CURL" sh 'POST /%61pi/user' 'post /api/user' 'POST /api%2Fuser' 'GET /api/user'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals 3 "$(grep -c '^ 403$' "$T/out")"
	assertEquals 3 "$(wc -l <"$T/asked")"
	assertContains "$(cat "$T/out")" '{"login": "oto"} 200'
}

# A grant that asks is sidestepped no more than one that limits: a method
# or URL override, a _method parameter and a non-ASCII path are refused
# (400) before anything is asked or sent, on a GET that nothing asks about
# as on a POST.
test_overrides_under_ask_are_refused_unasked() {
	gask allow-once $API -- sh -c 'for r in "$@"; do curl -sS -X "${r%% *}" -w " %{http_code}\n" -H "Authorization: token $API_TOKEN" -H "${r#*|}" "$API_TOKEN_URL$(echo "${r#* }" | cut -d"|" -f1)"; done' sh \
		'GET /api/user|X-HTTP-Method-Override: DELETE' 'POST /api/user|X-Original-URL: /admin' \
		'GET /api/user?_method=DELETE|X-A: b' 'GET /api/caf%c3%a9|X-A: b' 'GET /api/user|X-A: b'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	o='otogate: a method or URL override the upstream could act on:'
	assertEquals "$o X-HTTP-Method-Override
 400
$o X-Original-URL
 400
$o a _method parameter
 400
otogate: a path the upstream could read as another: a non-ASCII byte, raw or percent-encoded
 400" "$(head -n8 "$T/out")"
	assertEquals '{"login": "oto"} 200' "$(sed -n 9p "$T/out")"
	assertEquals "asked: $(cat "$T/asked" 2>/dev/null)" "" "$(cat "$T/asked" 2>/dev/null)"
	assertEquals "the upstream got" 1 "$(grep -c '^== ' "$TOPO_DIR/hub/requests")"
}

# A pkt-line the upstream would refuse, a list longer than the bound, a
# signed push, a body that ends inside the list: refused (400), never asked.
test_a_malformed_push_is_refused_unasked() {
	gask allow-once $API --grant "GH_TOKEN=https://$HUB:$PORT,ask=$PUSH" -- sh -c '
		o=$(printf "%040d" 0) n=$(printf "%040d" 1)
		pkt() { printf "%04x%s" $((${#1} + 4)) "$1"; }
		many() { for i in $(seq 65); do pkt "$o $n refs/heads/b$i"; done; }
		for body in zzzz 0004 "$(pkt "short line")" "$(pkt "$o $n")" "$(pkt push-cert)" \
			"$(pkt "$o $n refs/heads/a b")" "$(pkt "shallow $o")$(pkt "$o $n refs/heads/a")$(pkt "shallow $o")" \
			"$(many)0000" "00ff$o"; do
			printf "%s" "$body" | curl -sS -w " %{http_code}\n" -X POST --data-binary @- -H "Authorization: token $GH_TOKEN" "$GH_TOKEN_URL/git/proj.git/git-receive-pack"
		done' "$T"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "otogate: a push the gateway will not ask about: a pkt-line length that is not four hex digits
 400
otogate: a push the gateway will not ask about: an empty, delimiter or reserved pkt-line among the ref updates
 400
otogate: a push the gateway will not ask about: not a ref update (OLD NEW REF)
 400
otogate: a push the gateway will not ask about: not a ref update (OLD NEW REF)
 400
otogate: a push the gateway will not ask about: a signed push (push-cert): its ref updates are not read
 400
otogate: a push the gateway will not ask about: a ref name with a blank or control byte
 400
otogate: a push the gateway will not ask about: a shallow line after a ref update
 400
otogate: a push the gateway will not ask about: more than 64 ref updates in one push
 400
otogate: a push whose body ends inside its ref updates
 400" "$(cat "$T/out")"
	assertFalse "asked: $(cat "$T/asked" 2>/dev/null)" "[ -s '$T/asked' ]"
	assertEquals 0 "$(hub_pushes)"
}

# A push's ref updates cut at every byte, in chunks: read whole, asked once each.
test_a_push_split_at_every_byte_is_read_whole() {
	gask deny --grant "GH_TOKEN=https://$HUB:$PORT,ask=$PUSH" -- $PY -c '
import os, socket, sys, time
host, port = os.environ["GH_TOKEN_URL"][7:].split(":")
o, n = "0" * 40, "1" * 40
body = ("%04x" % (4 + 40 + 1 + 40 + 1 + 15 + 1 + 13)).encode() + (o + " " + n + " refs/heads/main\0report-status").encode() + b"0000PACK"
for cut in range(1, len(body)):
    s = socket.create_connection((host, int(port)))
    s.sendall(b"POST /git/proj.git/git-receive-pack HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nAuthorization: token " + os.environ["GH_TOKEN"].encode() + b"\r\n\r\n")
    for part in (body[:cut], body[cut:]):
        s.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
        time.sleep(0.002)
    s.sendall(b"0\r\n\r\n")
    r = b""
    while True:
        x = s.recv(65536)
        if not x:
            break
        r += x
    print(r.split(b"\r\n")[0].decode(), r.count(b"ng refs/heads/main otogate: the person denied"))
'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	cuts=$(wc -l <"$T/out")
	assertEquals "$cuts" "$(grep -c '^HTTP/1.1 200 OK 1$' "$T/out")"
	assertEquals "$cuts" "$(grep -c '"refs":\["refs/heads/main 000000000000..111111111111"\],"nrefs":1}' "$T/asked")"
}

# While held, the gateway reads the ref updates alone (bounded); a body
# whose updates never come is refused at --ask-timeout, never asked.
test_a_slow_push_is_refused_at_the_timeout() {
	gask allow-once --ask-timeout 1 --grant "GH_TOKEN=https://$HUB:$PORT,ask=$PUSH" -- $PY -c '
import os, socket, time
host, port = os.environ["GH_TOKEN_URL"][7:].split(":")
s = socket.create_connection((host, int(port)))
s.sendall(b"POST /git/proj.git/git-receive-pack HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n00")
t = time.time()
r = s.recv(65536)
print(r.split(b"\r\n")[0].decode(), r.split(b"\r\n\r\n")[1].decode().strip(), round(time.time() - t))
'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "HTTP/1.1 400 Bad Request otogate: a push whose ref updates did not come in time 1" "$(cat "$T/out")"
	assertFalse "[ -s '$T/asked' ]"
}

# otoask, at a terminal, answers both askers of one session: the gateway's
# question shows the grant and the request (otonet's the destination), and
# each key goes back to the one that asked.
test_otoask_shows_and_answers_the_gateways_questions() {
	rm -f "$T/sock"
	in_host $PY "$OTO_TESTS/helpers/decider.py" --connect "$T/sock" -- \
		"$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" $AS --log-fd 4 --ask-fd 3 \
		--ca-file "$K/ca.pem" $API -- \
		"$OTO_BIN/otonet" $AS $PUB --no-public --ask-fd 3 -- sh -c 'curl -sSk --max-time 20 https://plain.test:'$PORT'/open 2>&1
		'"$CURL" sh 'POST /api/user' 'DELETE /api/user' >"$T/agent" 2>"$T/agent.err" 4>"$T/log" &
	a=$!
	run $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 30 'expect #1 plain.test:'$PORT' (tcp to '$INET4B'): allow?
sleep 0.4
send y
expect -> allow-once
expect #2 API_TOKEN: POST rest.example.test/api/user (0 bytes): allow?
sleep 0.4
send y
expect -> allow-once
expect #3 API_TOKEN: DELETE rest.example.test/api/user (0 bytes): allow?
sleep 0.4
send n
expect -> deny' -- "$OTO_BIN/otoask" --listen "$T/sock" --once --timeout 20
	wait $a
	assertEquals "$(cat "$T/rawtty")" 0 "$rc"
	assertEquals "open
{\"login\": \"oto\"} 200
{\"error\":\"otogate: the person denied this request (ask=DELETE:/api/user)\"}
 403" "$(cat "$T/agent")"
	assertEquals 1 "$(grep -c '"verdict":"allow","rule":"ask","decision":"allow-once","ask":2}' "$T/log")"
}

# otonet's questions and the gateway's over the one connection: distinct
# ids, each answer back to its asker.
test_otonets_questions_are_relayed_with_the_gateways() {
	gask allow-once,deny --no-public $API -- sh -c 'curl -sSk --max-time 20 https://plain.test:'$PORT'/open 2>&1
		'"$CURL" sh 'POST /api/user'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals open "$(sed -n 1p "$T/out")"
	assertEquals 2 "$(wc -l <"$T/asked")"
	assertContains "$(sed -n 1p "$T/asked")" '"source":"ask",'
	assertContains "$(sed -n 1p "$T/asked")" '"id":1,'
	assertContains "$(sed -n 2p "$T/asked")" '"source":"gate",'
	assertContains "$(sed -n 2p "$T/asked")" '"id":2,'
	assertContains "$(cat "$T/out")" '{"error":"otogate: the person denied this request (ask=POST:/api)"}'
	assertContains "$(cat "$T/net")" '"decision":"allow-once","ask":1}'
}

# otorun: a grant's ask= needs a decider; with one, otogate gets the
# decider's fd and otonet the same number, which the gateway then holds.
test_otorun_wires_the_decider_to_the_gateway() {
	mkdir -p "$T/root"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root "$T/root" --role member --person p \
		--store "$K/store" --key-file "$K/key" --grant "GH=https://$HUB,transparent,ask=writes" \
		--ask-fd 12 --ask-timeout 5 -- true
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(sed -n 2p "$T/out")" "/otogate --store-fd 5 --key-fd 6 --as nobody --grant GH=https://$HUB,transparent,ask=writes --ask-fd 12 --ask-timeout 5 -- "
	assertContains "$(sed -n 3p "$T/out")" "/otonet --as nobody --ask-timeout 5 --ask-fd 12 -- "
	run "$OTO_BIN/otorun" --print --as nobody --agent-root "$T/root" --role member --person p \
		--store "$K/store" --key-file "$K/key" --grant "GH=https://$HUB,ask=writes" -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: a --grant's ask= needs a decider: --ask SOCKET or --ask-fd N" "$(cat "$T/err")"
}

# One session as a person starts it: otorun --mode ask-writes with a
# decider at --ask SOCKET (decider.py --listen, as otoask --listen is).
# The agent's push through the grant, which the mode made ask=writes, is
# held and put to the decider with its session's line first; denied, the
# hub's ref stays, and git in the view prints the reason.
test_otorun_mode_ask_writes_denies_a_push() {
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	run in_host $PY "$OTO_TESTS/helpers/decider.py" --log "$T/asked" --listen "$T/sock" deny -- \
		"$OTO_BIN/otorun" --as "$OTO_TEST_USER" $PUB --agent-root "$A" --person alice \
		--role member --store "$K/store" --key-file "$K/key" --ca-file "$K/ca.pem" \
		--grant "GH_TOKEN=https://$HUB:$PORT,transparent" --mode ask-writes --ask "$T/sock" -- \
		sh -c 'cd /work && git config --global user.name agent &&
		git config --global user.email agent@example.test &&
		git config --global credential.helper "!f() { echo username=agent; echo password=\$GH_TOKEN; }; f" &&
		git clone -q "$0" clone 2>>git.log && cd clone && echo change >>README &&
		git commit -qam "from the sandbox" && git push origin main 2>>../git.log; echo "push=$?"' "$GITURL"
	assertEquals "rc: $(cat "$T/err") $(cat "$A/workspace/git.log")" 0 "$rc"
	assertEquals "push=1" "$(cat "$T/out")"
	assertContains "$(cat "$A/workspace/git.log")" \
		"! [remote rejected] main -> main (otogate: the person denied this request (ask=writes))"
	assertEquals seed "$(hub_head)"
	assertEquals 0 "$(hub_pushes)"
	# One question, the push's, after the session's line.
	assertEquals 1 "$(wc -l <"$T/asked")"
	assertContains "$(cat "$T/asked")" '"source":"gate",'
	assertContains "$(cat "$T/asked")" '"method":"POST","host":"git.example.test","path":"/git/proj.git/git-receive-pack",'
	assertContains "$(cat "$T/asked.session")" '"source":"session",'
	assertContains "$(cat "$T/asked.session")" '"person":"alice"'
}

test_usage() {
	run "$OTO_BIN/otogate" --store /dev/null --key-file /dev/null --grant "A=https://a.test,ask=POST:/x" -- true
	assertEquals 100 "$rc"
	assertEquals "otogate: fatal: a grant's ask= needs a decider to ask: --ask-fd N (see --help)" "$(cat "$T/err")"
	run "$OTO_BIN/otogate" --store /dev/null --key-file /dev/null --ask-fd 3 --ask-timeout 0 --grant "A=https://a.test" -- true
	assertEquals 100 "$rc"
	assertEquals "otogate: fatal: --ask-timeout 0: not a number of seconds (1 to 3600)" "$(cat "$T/err")"
	run "$OTO_BIN/otogate" --store /dev/null --key-file /dev/null --ask-fd 3 --grant "A=https://a.test,ask=POST" -- true
	assertEquals 100 "$rc"
	assertContains "$(cat "$T/err")" "ask=: not METHOD:PATH-PREFIX (as allow=) or writes"
}

. shunit2
