#!/bin/sh
# otonet --ask-fd (tests/net/topo.sh's topology, a scripted decider from
# tests/helpers/decider.py on the relay's fd 3): under --no-public a new
# destination is held and asked about, exactly once per question; the
# decider's allow-once, allow-session and deny, its silence (--ask-timeout),
# a decider that closes or writes garbage (fail closed, the relay serving
# allowed flows still), the bound on questions pending, private addresses
# never asked, DNS questions a name rule refuses asked about, the record's
# lines; otoask through a pty.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

DECIDER="$PY $OTO_TESTS/helpers/decider.py"
SIZE=1048576

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	: >"$T/req"
}

# ask POLICY [DECIDER OPTION]... -- OTONET OPTION... -- CMD: otonet under
# --no-public behind the scripted decider (its requests in $T/req), the
# record on fd 4 ($T/log).
ask() {
	_p=$1
	shift
	_o=
	while [ "$1" != -- ]; do _o="$_o $1"; shift; done
	shift
	# shellcheck disable=SC2086
	run in_host $DECIDER --log "$T/req" $_o "$_p" -- "$OTO_BIN/otonet" $AS $PUB --no-public \
		--ask-fd 3 --log-fd 4 "$@" 4>"$T/log"
}

# The requests' lines without their time and session.
reqs() { sed 's/^{"time":"[^"]*","source":"ask","session":"[^"]*",//' "$T/req"; }
# The record's lines about questions: source, verdict, rule, decision, ask.
asks() {
	grep '"ask":' "$T/log" | sed 's/^{"time":"[^"]*","source":"\([a-z]*\)","session":"[^"]*",/\1 /'
}

test_allow_once_completes_and_asks_again() {
	sum=$($PY "$NETTOOL" blobsha $SIZE)
	ask allow-once --delay 0.3 -- --ask-timeout 5 -- sh -c "
		$NT xfer new.inet.test 443 $SIZE; $NT xfer new.inet.test 443 $SIZE"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "ok $SIZE $sum
ok $SIZE $sum" "$(cut -d' ' -f1-3 "$T/out")"
	# The connect waited for the answer, 0.3 s.
	for ms in $(cut -d' ' -f4 "$T/out"); do
		assertTrue "waited $ms ms" "[ $ms -ge 300 ]"
	done
	assertEquals '"id":1,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test"}
"id":2,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test"}' "$(reqs)"
	assertEquals 'net "proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test","verdict":"ask","rule":"no-public","ask":1}
net "proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test","verdict":"allow","rule":"ask","decision":"allow-once","ask":1}
net "proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test","verdict":"ask","rule":"no-public","ask":2}
net "proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test","verdict":"allow","rule":"ask","decision":"allow-once","ask":2}' "$(asks)"
}

test_allow_session_asks_once() {
	sum=$($PY "$NETTOOL" blobsha $SIZE)
	ask allow-session -- -- sh -c "
		$NT tls new.inet.test 443 new.inet.test; $NT tls new.inet.test 443 new.inet.test
		$NT http new.inet.test 80 new.inet.test
		$NT xfer new.inet.test 9002 $SIZE; $NT xfer new.inet.test 9002 $SIZE
		$NT xfer new.inet.test 9003 10"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "ok
ok
ok
ok $SIZE $sum
ok $SIZE $sum
ECONNRESET" "$(cut -d' ' -f1-3 "$T/out" | sed 's/^\(ECONNRESET\) .*/\1/')"
	# Once for :443, for the session, as --allow-name new.inet.test (80
	# too); once for :9002, as new.inet.test:9002; 9003 (where nothing
	# listens) is another question.
	assertEquals '"id":1,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test"}
"id":2,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":9002,"name":"new.inet.test"}
"id":3,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":9003,"name":"new.inet.test"}' "$(reqs)"
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":443,"verdict":"allow","rule":"ask-session","name":"new.inet.test","ask":1}'
	assertContains "$(asks)" 'net "proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test","verdict":"allow","rule":"ask","decision":"allow-session","ask":1}'
}

# Many names share an address (a CDN's), and the name a question names is
# whichever the agent resolved last. An allow-session answer for a name on
# 443 is --allow-name NAME for the rest of the session: every flow there
# judged by its SNI or Host, the asked one too, never let through by its
# address and port. The agent resolves a trusted name last, then sends
# another name's hello to the shared address: refused.
test_allow_session_for_a_name_checks_every_flow() {
	ask allow-session -- -- sh -c "
		$NT resolve other.test; $NT resolve a.inet.test
		$NT tls $INET4 443 other.test; $NT tls $INET4 443 a.inet.test
		$NT tls $INET4 443 other.test; $NT http $INET4 80 a.inet.test
		$NT http $INET4 80 other.test; $NT raw $INET4 443"
	assertEquals "$(cat "$T/err")" "NOERROR $INET4
NOERROR $INET4
ECONNRESET
ok
ECONNRESET
ok
403:otonet: other.test is not allowed by --allow-name
ECONNRESET" "$(cat "$T/out")"
	assertEquals '"id":1,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"a.inet.test"}' "$(reqs)"
	assertEquals 2 "$(grep -c '"port":443,"verdict":"deny","rule":"sni-mismatch","name":"other.test"' "$T/log")"
	assertContains "$(cat "$T/log")" '"port":80,"verdict":"allow","rule":"ask-session","name":"a.inet.test","ask":1}'
}

# A name that is no host name (a label with ':' the agent had answered)
# is allowed once: no rule could say it, --save writes none.
test_allow_session_for_a_name_that_is_none_allows_once() {
	printf '%s %s\n' "$INET4" 'a:22.inet.test' >"$TOPO_DIR/hosts.d/colon"
	sleep 0.3
	ask allow-session,deny -- -- sh -c "
		$NT resolve a:22.inet.test; $NT tls $INET4 443 x.test; $NT tls $INET4 443 x.test"
	rm -f "$TOPO_DIR/hosts.d/colon"
	assertEquals "$(cat "$T/err")" "NOERROR $INET4
ok
ECONNREFUSED" "$(sed 's/^\(ECONNREFUSED\) .*/\1/' "$T/out")"
	assertContains "$(cat "$T/err")" "otonet: warning: relay: ask 1: a:22.inet.test is not a host name: allowed once"
}

test_deny_resets_at_once() {
	ask deny -- -- sh -c "$NT xfer new.inet.test 443 10; $NT connect $INET4 9002"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED
ECONNREFUSED" "$(cut -d' ' -f1 "$T/out")"
	for ms in $(cut -d' ' -f2 "$T/out"); do
		assertTrue "reset in $ms ms" "[ $ms -lt 500 ]"
	done
	# An address no name led to is asked about as itself.
	assertEquals '"id":1,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"name":"new.inet.test"}
"id":2,"proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":9002,"name":"new.inet.test"}' "$(reqs)"
	assertContains "$(asks)" '"port":443,"name":"new.inet.test","verdict":"deny","rule":"ask","decision":"deny","ask":1}'
}

test_silence_is_a_deny_after_the_timeout() {
	ask silent -- --ask-timeout 1 -- sh -c "$NT xfer new.inet.test 443 10"
	assertEquals "$(cat "$T/err")" ECONNREFUSED "$(cut -d' ' -f1 "$T/out")"
	ms=$(cut -d' ' -f2 "$T/out")
	assertTrue "reset after $ms ms" "[ $ms -ge 1000 ] && [ $ms -lt 2500 ]"
	assertEquals 1 "$(wc -l <"$T/req")"
	assertContains "$(asks)" '"verdict":"deny","rule":"ask","decision":"timeout","ask":1}'
}

test_private_never_asked() {
	ask allow-session -- -- sh -c "$NT connect 10.0.0.1 80; $NT connect 192.168.1.1 443;
		$NT connect 169.254.169.254 80; $NT connect $LAN4 22; $NT xfer lan.test 80 10"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED
ECONNREFUSED
ECONNREFUSED
ECONNREFUSED
-2" "$(cut -d' ' -f1 "$T/out")"
	assertEquals "" "$(cat "$T/req")"
	assertEquals "" "$(asks)"
	assertEquals "the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
}

test_open_internet_asks_nothing() {
	run in_host $DECIDER --log "$T/req" deny -- "$OTO_BIN/otonet" $AS $PUB --ask-fd 3 -- \
		sh -c "$NT xfer new.inet.test 443 10"
	assertEquals "$(cat "$T/err")" "ok 10" "$(cut -d' ' -f1-2 "$T/out")"
	assertEquals "" "$(cat "$T/req")"
}

test_pending_bound() {
	# 300 questions at once, none answered: 256 asked, 44 denied at once; the
	# relay still serves the flows a rule allows.
	ask silent -- --ask-timeout 2 --allow tcp:$INET4:9002 -- sh -c "
		$NT asks $INET4 20000 300; $NT connect $INET4 9002"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED=300 pending=0 early=44
ok" "$(sed 's/^\(ok\) [0-9]*$/\1/' "$T/out")"
	assertEquals 256 "$(wc -l <"$T/req")"
	assertEquals 256 "$(grep -c '"decision":"timeout"' "$T/log")"
	assertEquals 44 "$(grep -c '"decision":"limit"' "$T/log")"
	assertEquals 300 "$(grep -c '"verdict":"ask"' "$T/log")"
	assertContains "$(cat "$T/err")" "otonet: warning: relay: 256 questions pending: denying a new one"
}

test_decider_closing_denies_all() {
	ask silent,silent,close -- --ask-timeout 20 --allow tcp:$INET4:9002 -- sh -c "
		$NT asks $INET4 20000 3; $NT connect $INET4 9003; $NT connect $INET4 9002"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED=3 pending=0 early=3
ECONNREFUSED
ok" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
	assertEquals 3 "$(wc -l <"$T/req")"
	assertEquals 4 "$(grep -c '"decision":"decider-gone"' "$T/log")"
	assertContains "$(cat "$T/err")" "otonet: warning: relay: the decider (--ask-fd 3) closed its end: every question is denied from now on"
}

test_decider_garbage_denies_all() {
	for g in garbage 'raw=1 allow-once\r\n' 'raw=01 allow-once\n' 'raw=99 allow-once\n' \
		'raw=1  allow-once\n' 'raw=1 allow\n' "raw=1 allow-once $(printf '%01100d' 0)\n"; do
		: >"$T/req"
		ask "silent,$g" -- --ask-timeout 20 --allow tcp:$INET4:9002 -- sh -c "
			$NT asks $INET4 20000 2; $NT connect $INET4 9003; $NT connect $INET4 9002"
		assertEquals "$g: $(cat "$T/err")" "ECONNREFUSED=2 pending=0 early=2
ECONNREFUSED
ok" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
		assertEquals "$g" 3 "$(grep -c '"decision":"decider-gone"' "$T/log")"
	done
	assertContains "$(cat "$T/err")" "the decider (--ask-fd 3) wrote a line"
}

test_dns_name_asked_under_name_rules() {
	ask allow-once,deny,allow-session -- --allow-name a.inet.test -- sh -c "
		$NT resolve new.inet.test; $NT resolve other.inet.test; $NT resolve ses.inet.test
		$NT resolve ses.inet.test; $NT resolve a.inet.test"
	assertEquals "$(cat "$T/err")" "NOERROR $INET4
REFUSED
NOERROR $INET4
NOERROR $INET4
NOERROR $INET4" "$(cat "$T/out")"
	assertEquals '"id":1,"proto":"udp","src":"10.0.2.100","name":"new.inet.test","type":"A"}
"id":2,"proto":"udp","src":"10.0.2.100","name":"other.inet.test","type":"A"}
"id":3,"proto":"udp","src":"10.0.2.100","name":"ses.inet.test","type":"A"}' "$(reqs)"
	assertContains "$(asks)" 'dns "proto":"udp","src":"10.0.2.100","name":"new.inet.test","type":"A","verdict":"ask","rule":"no-name","ask":1}'
	assertContains "$(asks)" 'dns "proto":"udp","src":"10.0.2.100","name":"other.inet.test","type":"A","verdict":"deny","rule":"ask","decision":"deny","ask":2}'
}

# A stub resolver sends its question again when the answer is late, and
# one may cross the answer. The same question (its source port, id, name
# and type) is answered again as it was, for ASK_AGAIN_MS: never asked
# again, no question's line more; another socket's is another question.
test_dns_question_again_answered_as_before() {
	ask deny,allow-once,deny -- --allow-name a.inet.test -- sh -c "
		$NT resend other.inet.test 3; $NT resend new.inet.test 3; $NT resolve other.inet.test"
	assertEquals "$(cat "$T/err")" "REFUSED REFUSED REFUSED
NOERROR NOERROR NOERROR
REFUSED" "$(cat "$T/out")"
	assertEquals '"id":1,"proto":"udp","src":"10.0.2.100","name":"other.inet.test","type":"A"}
"id":2,"proto":"udp","src":"10.0.2.100","name":"new.inet.test","type":"A"}
"id":3,"proto":"udp","src":"10.0.2.100","name":"other.inet.test","type":"A"}' "$(reqs)"
	assertEquals 6 "$(asks | wc -l)"
}

test_ask_fd_is_the_relays_alone() {
	ask deny -- -- sh -c 'test -e /proc/self/fd/3 && echo fd3 open || echo fd3 closed'
	assertEquals "$(cat "$T/err")" "fd3 closed" "$(cat "$T/out")"
	run in_host "$OTO_BIN/otonet" $AS --ask-fd 3 -- true 3</dev/null
	assertEquals 100 "$rc"
	assertEquals "otonet: fatal: --ask-fd 3: not a unix stream socket" "$(cat "$T/err")"
	run "$OTO_BIN/otonet" --ask-fd 2x -- true
	assertEquals 100 "$rc"
	run "$OTO_BIN/otonet" --ask-timeout 0 -- true
	assertEquals "otonet: fatal: --ask-timeout 0: expected 1 to 3600 seconds" "$(cat "$T/err")"
}

# ---- otoask, at a terminal (tests/helpers/ptydrive.py) ------------------------

# otoask_session SCRIPT OTOASK-OPTION... -- AGENT: otoask --listen in a pty
# driven by SCRIPT, and otonet (--no-public, and $OTONET_MORE) connected to it running AGENT;
# ptydrive's report in $T/out, the terminal in $T/tty, the agent's output
# in $T/agent.
otoask_session() {
	_s=$1
	shift
	_o=
	while [ "$1" != -- ]; do _o="$_o $1"; shift; done
	shift
	rm -f "$T/sock"
	# shellcheck disable=SC2086
	in_host $DECIDER --connect "$T/sock" -- "$OTO_BIN/otonet" $AS $PUB --no-public --ask-fd 3 \
		--ask-timeout 10 --log-fd 4 ${OTONET_MORE:-} -- sh -c "$1" >"$T/agent" 2>"$T/agent.err" 4>"$T/log" &
	_a=$!
	# shellcheck disable=SC2086
	run $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 15 "$_s" -- \
		"$OTO_BIN/otoask" --listen "$T/sock" $_o
	wait $_a
	tr -d '\r' <"$T/rawtty" >"$T/tty"
}

test_otoask_y_n_a_and_the_countdown() {
	otoask_session 'expect #1 new.inet.test:443 (tcp to 203.0.113.10), session
send y
expect -> allow-once
expect #2 new.inet.test:443
send n
expect -> deny
expect #3 new.inet.test:443
send a
expect -> allow-session
expect #4 new.inet.test:9002
expect n in 1s
expect -> deny (no answer in time)' --timeout 2 --save "$T/saved" -- "
		$NT tls new.inet.test 443 new.inet.test; $NT tls new.inet.test 443 new.inet.test
		$NT tls new.inet.test 443 new.inet.test; $NT tls new.inet.test 443 new.inet.test
		$NT xfer new.inet.test 9002 10"
	assertEquals "$(cat "$T/out")" "rc 0" "$(grep '^rc ' "$T/out")"
	assertEquals "$(cat "$T/agent.err")" "ok
ECONNREFUSED
ok
ok
ECONNREFUSED" "$(cut -d' ' -f1 "$T/agent")"
	assertContains "$(cat "$T/tty")" "otoask: #1 new.inet.test:443 (tcp to 203.0.113.10), session "
	assertContains "$(cat "$T/tty")" ": allow? [y/n/a] n in 2s"
	# Saved as otolog --policy writes it: the name on 80 and 443, checked.
	assertEquals "# allow-once (ask 1): allows new.inet.test on ports 80 and 443 (its TLS SNI or HTTP Host checked)
--allow-name new.inet.test
# allow-session (ask 3): allows new.inet.test on ports 80 and 443 (its TLS SNI or HTTP Host checked)
--allow-name new.inet.test" "$(cat "$T/saved")"
	assertEquals 600 "$(stat -c %a "$T/saved")"
	assertContains "$(asks)" '"verdict":"deny","rule":"ask","decision":"deny","ask":4}'
	# What it saved is otorun's config: the names reach otonet.
	printf '%s\n' "--agent-root /a" "--role member" "--person p" "--as nobody" >"$T/cfg"
	cat "$T/saved" >>"$T/cfg"
	run "$OTO_BIN/otorun" --config "$T/cfg" --print -- true
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" " --allow-name new.inet.test --allow-name new.inet.test "
}

# The agent chooses the names it looks up, and a DNS label may hold '*'
# or ':'. Lookups of the literal *.amazonaws.com and exfil.example:22,
# allowed for the session, are saved as comments alone: a next session's
# otorun --config finds no rule in them (--allow-name *.amazonaws.com
# would open a whole cloud, exfil.example:22 a port nobody was asked about).
test_otoask_save_writes_no_rule_for_a_name_that_is_none() {
	OTONET_MORE="--allow-name a.inet.test" otoask_session 'expect #1 *.amazonaws.com (dns A)
send a
expect -> allow-session
expect #2 exfil.example:22 (dns A)
send a
expect -> allow-session
expect #3 new.inet.test (dns A)
send a
expect -> allow-session' --save "$T/saved" -- "
		$NT resolve '*.amazonaws.com'; $NT resolve exfil.example:22; $NT resolve new.inet.test"
	assertEquals "$(cat "$T/out")" "rc 0" "$(grep '^rc ' "$T/out")"
	assertEquals '# allow-session (ask 1): "*.amazonaws.com" is not a host name: no rule is written for it
# allow-session (ask 2): "exfil.example:22" is not a host name: no rule is written for it
# allow-session (ask 3): allows new.inet.test on ports 80 and 443 (its TLS SNI or HTTP Host checked)
--allow-name new.inet.test' "$(cat "$T/saved")"
	printf '%s\n' "--agent-root /a" "--role member" "--person p" "--as nobody" >"$T/cfg"
	cat "$T/saved" >>"$T/cfg"
	run "$OTO_BIN/otorun" --config "$T/cfg" --print -- true
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals " --allow-name new.inet.test " "$(grep -o ' --allow-name [^ ]* ' "$T/out")"
}

test_otoask_usage() {
	run "$OTO_BIN/otoask"
	assertEquals 100 "$rc"
	assertEquals "otoask: fatal: one of --listen SOCKET and --fd N (see --help)" "$(cat "$T/err")"
	run "$OTO_BIN/otoask" --fd 3 --listen "$T/s"
	assertEquals 100 "$rc"
	run "$OTO_BIN/otoask" --fd 3 3</dev/null
	assertEquals 100 "$rc"
	assertEquals "otoask: fatal: --fd 3: not a stream socket" "$(cat "$T/err")"
	run "$OTO_BIN/otoask" --listen "$T/s" --timeout 0
	assertEquals "otoask: fatal: --timeout 0: expected 1 to 3600 seconds" "$(cat "$T/err")"
}

. shunit2
