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
	otoask_session 'expect #1 new.inet.test:443 (tcp to 203.0.113.10): allow?
sleep 0.4
send y
expect -> allow-once
expect #2 new.inet.test:443
sleep 0.4
send n
expect -> deny
expect #3 new.inet.test:443
sleep 0.4
send a
expect -> allow-session
expect #4 new.inet.test:9002
expect n in 1s
expect -> deny (no answer in time)' --once --timeout 2 --save "$T/saved" -- "
		$NT tls new.inet.test 443 new.inet.test; $NT tls new.inet.test 443 new.inet.test
		$NT tls new.inet.test 443 new.inet.test; $NT tls new.inet.test 443 new.inet.test
		$NT xfer new.inet.test 9002 10"
	assertEquals "$(cat "$T/out")" "rc 0" "$(grep '^rc ' "$T/out")"
	assertEquals "$(cat "$T/agent.err")" "ok
ECONNREFUSED
ok
ok
ECONNREFUSED" "$(cut -d' ' -f1 "$T/agent")"
	# No session line (otonet alone): labelled by the session's id.
	assertContains "$(cat "$T/tty")" "otoask: [session $(sed -n '1s/.*"session":"\([0-9a-f]\{8\}\).*/\1/p' "$T/log")] #1 new.inet.test:443 (tcp to 203.0.113.10): allow? [y/n/a] n in 2s"
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
sleep 0.4
send a
expect -> allow-session
expect #2 exfil.example:22 (dns A)
sleep 0.4
send a
expect -> allow-session
expect #3 new.inet.test (dns A)
sleep 0.4
send a
expect -> allow-session' --once --save "$T/saved" -- "
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

# ---- otoask, many sessions (tests/helpers/asksession.py: a relay's lines) -----

SESSION="$PY $OTO_TESTS/helpers/asksession.py"

# otoask_many SCRIPT -- OTOASK-OPTION...: otoask --listen $T/sock in a pty
# driven by SCRIPT (ptydrive's report in $T/out, the terminal in $T/tty);
# the sessions are started before, in the background, by the caller.
otoask_many() {
	_s=$1
	shift 2
	run $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 15 "$_s" -- \
		"$OTO_BIN/otoask" --listen "$T/sock" "$@"
	tr -d '\r' <"$T/rawtty" >"$T/tty"
}

# Two sessions ask at once, with the same ids: each shown with who asks,
# in turns, and each answer goes back to its own session.
test_otoask_two_sessions_each_answered() {
	rm -f "$T/sock"
	$SESSION "$T/sock" "$T/a" hello alice 'claude as oto' sleep 0.5 ask 1 a1.test ask 2 a2.test \
		wait 2 &
	_a=$!
	$SESSION "$T/sock" "$T/b" hello bob 'codex as oto2' sleep 0.5 ask 1 b1.test wait 1 &
	_b=$!
	otoask_many 'expect allow? [y/n/a]
sleep 0.4
send y
expect -> allow-once
expect allow? [y/n/a]
sleep 0.4
send n
expect -> deny
expect allow? [y/n/a]
sleep 0.4
send a
expect -> allow-session
expect ended
kill 15' -- --timeout 10
	wait $_a $_b
	assertContains "$(cat "$T/out")" "ok 13"
	assertContains "$(cat "$T/tty")" "otoask: [alice: claude as oto] session s"
	assertContains "$(cat "$T/tty")" "otoask: [bob: codex as oto2] session s"
	# In turns: a1, then b1 (bob's turn), then a2, whoever connected first.
	grep -o '\[[a-z]*: [a-z0-9 ]*\] #[0-9] [ab][12].test' "$T/tty" | uniq >"$T/order"
	assertEquals "$(cat "$T/tty")" 3 "$(wc -l <"$T/order")"
	first=$(sed -n 1p "$T/order" | cut -c2)
	if [ "$first" = a ]; then
		assertEquals "$(cat "$T/order")" "[alice: claude as oto] #1 a1.test
[bob: codex as oto2] #1 b1.test
[alice: claude as oto] #2 a2.test" "$(cat "$T/order")"
		assertEquals "1 allow-once
2 allow-session" "$(cat "$T/a")"
		assertEquals "1 deny" "$(cat "$T/b")"
	else
		assertEquals "$(cat "$T/order")" "[bob: codex as oto2] #1 b1.test
[alice: claude as oto] #1 a1.test
[alice: claude as oto] #2 a2.test" "$(cat "$T/order")"
		assertEquals "1 deny
2 allow-session" "$(cat "$T/a")"
		assertEquals "1 allow-once" "$(cat "$T/b")"
	fi
	# The socket stays while otoask runs, and goes with it.
	assertEquals 143 "$(sed -n 's/^rc //p' "$T/out")"
	assertFalse "the socket is removed" "[ -e $T/sock ]"
}

# A session that floods: past 64 pending, its questions are denied at once;
# another session's question is shown next, not after the flood.
test_otoask_flood_waits_its_turn() {
	rm -f "$T/sock"
	_f=
	for i in $(seq 1 100); do _f="$_f ask $i f$i.test"; done
	# shellcheck disable=SC2086
	$SESSION "$T/sock" "$T/a" hello mallory flooder $_f wait 37 sleep 3 &
	_a=$!
	$SESSION "$T/sock" "$T/b" sleep 1 hello bob agent ask 7 b.test wait 1 &
	_b=$!
	otoask_many 'expect 64 questions pending: denying more
expect [bob: agent] session s
expect [mallory: flooder] #1 f1.test
sleep 0.4
send n
expect [bob: agent] #7 b.test
sleep 0.4
send y
expect -> allow-once
kill 15' -- --timeout 10
	wait $_a $_b
	assertContains "$(cat "$T/out")" "ok 8"
	assertEquals "7 allow-once" "$(cat "$T/b")"
	assertEquals "37 at once, then #1" "$(seq 65 100 | sed 's/$/ deny/')
1 deny" "$(cat "$T/a")"
	assertEquals 1 "$(grep -c 'questions pending' "$T/tty")"
	# Bob's question is the one shown after mallory's first, in its turn.
	assertEquals "[mallory: flooder] #1 f1.test
[bob: agent] #7 b.test" "$(grep -o '\[[a-z: ]*\] #[0-9]* [a-z0-9]*\.test:443 (tcp to 203.0.113.10): allow?' "$T/tty" |
		sed 's/:443 .*//' | uniq | head -n 2)"
}

# A session that goes mid-question: its question leaves the terminal, the
# next session's is shown, and the key answers that one.
test_otoask_session_gone_mid_question() {
	rm -f "$T/sock"
	$SESSION "$T/sock" "$T/a" hello alice one ask 1 a.test sleep 1.5 close &
	_a=$!
	$SESSION "$T/sock" "$T/b" sleep 0.5 hello bob two ask 1 b.test wait 1 &
	_b=$!
	otoask_many 'expect [alice: one] #1 a.test
expect -> the session ended
expect [alice: one] ended
expect [bob: two] #1 b.test
sleep 0.4
send a
expect -> allow-session
kill 15' -- --timeout 10
	wait $_a $_b
	assertContains "$(cat "$T/out")" "ok 7"
	assertEquals "" "$(cat "$T/a" 2>/dev/null)"
	assertEquals "1 allow-session" "$(cat "$T/b")"
}

# Session lines that are not otorun's: an escape sequence in the person
# (the terminal never sees it), a question's id in it, a second one that
# would rename the session: labelled by their id, answered still.
test_otoask_bogus_session_lines() {
	rm -f "$T/sock"
	$SESSION "$T/sock" "$T/a" line '{"source":"session","session":"evil","person":"\x1b[8m","agent":"x"}' \
		ask 1 a.test wait 1 &
	_a=$!
	$SESSION "$T/sock" "$T/b" sleep 0.5 line '{"source":"session","session":"s2","id":3,"person":"p","agent":"x"}' \
		hello admin 'trusted agent' ask 2 b.test wait 1 &
	_b=$!
	otoask_many 'expect a session line that does not read
expect [session s
expect #1 a.test
sleep 0.4
send y
expect a session line that does not read
expect a session line after its first line: ignored
expect [session s
expect #2 b.test
sleep 0.4
send y
expect ended
kill 15' -- --timeout 10
	wait $_a $_b
	assertContains "$(cat "$T/out")" "ok 12"
	assertEquals "1 allow-once" "$(cat "$T/a")"
	assertEquals "2 allow-once" "$(cat "$T/b")"
	assertNotContains "$(cat "$T/rawtty")" "$(printf '\033[8m')"
	assertNotContains "$(cat "$T/tty")" "admin"
}

# The issue's attack: a launcher script runs otoask in the background, on
# the session's own terminal; the agent prints a prompt of its own and the
# person's "a" answers it. otoask refuses the session and ends (it would
# eat the agent's keys): no key is ever an answer (the relay denies every
# question, its decider gone), and the agent reads its own.
test_otoask_refuses_a_session_on_its_terminal() {
	rm -f "$T/sock"
	run in_host $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 15 'expect refused the session of pid
expect apply the fix to 3 files? [y/n/a]
send a\n
expect ECONNREFUSED
expect otoask=101' -- sh -c "
		$OTO_BIN/otoask --listen $T/sock & o=\$!
		$DECIDER --connect $T/sock -- $OTO_BIN/otonet $AS $PUB --no-public --ask-fd 3 \
			--ask-timeout 10 --log-fd 4 -- sh -c '
			printf \"apply the fix to 3 files? [y/n/a] \"; read k; echo \"read \$k\"
			$NT xfer new.inet.test 443 10 2>&1' 4>$T/log
		wait \$o; echo otoask=\$?"
	tr -d '\r' <"$T/rawtty" >"$T/tty"
	assertContains "$(cat "$T/out")" "ok 5"
	assertContains "$(cat "$T/tty")" "otoask: fatal: refused the session of pid "
	assertContains "$(cat "$T/tty")" "read a"
	assertFalse "the socket is removed" "[ -e $T/sock ]"
	assertContains "$(cat "$T/tty")" ": its terminal is mine, where its agent could type the answers; run otoask in a terminal of its own (another window, a tmux pane)"
	assertNotContains "$(cat "$T/tty")" "allow? [y/n/a]"
	assertContains "$(asks)" '"verdict":"deny","rule":"ask","decision":"decider-gone","ask":1}'
	assertNotContains "$(cat "$T/log")" "allow-session"
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
