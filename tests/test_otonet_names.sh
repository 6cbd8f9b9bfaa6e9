#!/bin/sh
# otonet and names (tests/net/topo.sh's topology: the LAN's dnsmasq names the
# fake internet, the LAN and names that rebind, TTL 2 s): no map of the
# private network through DNS (an answer's private addresses hidden, with
# and without name rules, over UDP and TCP); --allow-name (bindings from the
# agent's own answers, their TTL, rebinding refused, the table's bound); the
# name in a flow's first bytes (TLS SNI, HTTP Host) checked against them.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	topo_name move.test $INET4
}

onet() { in_host "$OTO_BIN/otonet" $AS "$@"; }

assertLanUntouched() {
	assertEquals "the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
}

# ---- no map of the private network through DNS -------------------------------

test_private_answers_hidden_without_name_rules() {
	run onet $PUB -- sh -c "getent hosts lan.test; echo getent \$?;
		$NT resolve lan.test udp; $NT resolve lan.test tcp;
		$NT resolve a.inet.test udp; $NT resolve example.test tcp AAAA;
		$NT resolve reb.inet.test; $NT resolve meta.inet.test tcp;
		$NT resolve 5.0.77.10.in-addr.arpa udp PTR"
	assertEquals "$(cat "$T/err")" "getent 2
NXDOMAIN
NXDOMAIN
NOERROR 203.0.113.10
NOERROR 2001:db8:1::10
NXDOMAIN
NXDOMAIN
NXDOMAIN" "$(cat "$T/out")"
	assertLanUntouched
}

test_private_answers_hidden_with_name_rules_and_logged() {
	run onet $PUB --no-public --allow-name '*.inet.test' --allow-name lan.test --log-fd 3 -- sh -c "
		getent hosts lan.test; echo getent \$?; $NT resolve lan.test tcp;
		$NT resolve reb.inet.test" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "getent 2
NXDOMAIN
NXDOMAIN" "$(cat "$T/out")"
	assertContains "$(cat "$T/log")" '"proto":"dns","src":"10.0.2.100","name":"lan.test","verdict":"deny","rule":"private-answer","records":1}'
	assertContains "$(cat "$T/log")" '"name":"reb.inet.test","verdict":"deny","rule":"private-answer","records":1}'
}

test_exception_name_still_resolves() {
	run onet $PUB --allow tcp:exc.test:8086 -- sh -c "getent ahostsv4 exc.test | head -n1;
		$NT resolve exc.test tcp; $NT resolve exc.test udp AAAA; $NT connect $LAN4 8086;
		getent hosts lan.test; echo getent \$?"
	assertEquals "$(cat "$T/err")" "$LAN4       STREAM exc.test
NOERROR $LAN4
NOERROR $LAN6
ok lan
getent 2" "$(cut -d' ' -f1-9 "$T/out" | sed 's/^\(ok lan\) [0-9]*$/\1/')"
	run onet $PUB --no-public --allow tcp:exc.test:8086 --allow-name '*.inet.test' -- sh -c "
		$NT resolve exc.test; $NT resolve lan.test; $NT resolve other.test"
	assertEquals "$(cat "$T/err")" "NOERROR $LAN4
NXDOMAIN
NXDOMAIN" "$(cat "$T/out")"
}

# ---- --allow-name ---------------------------------------------------------------

test_allow_name_usage() {
	for bad in '*.test' 'a..test' 'a.test:0' 'a.test:65536' 'a b.test' '*'; do
		run "$OTO_BIN/otonet" --allow-name "$bad" -- true
		assertEquals "--allow-name '$bad'" 100 "$rc"
		assertOneLine otonet
		assertContains "$(cat "$T/err")" "--allow-name $bad: expected NAME or *.SUFFIX (two labels at least), then :PORT (1 to 65535) or nothing"
	done
}

# The fake internet's one address (INET4) has many names: only those a rule
# allows lead to it, and a flow must not name another once there.
test_allow_name_wildcard_under_no_public() {
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT connect $INET4 9002; $NT resolve inet.test; $NT resolve other.test tcp;
		$NT connect $INET4 9002; $NT resolve a.inet.test tcp; $NT connect $INET4 9002;
		$NT tls $INET4 443 a.inet.test; $NT tls $INET4 443 other.test;
		$NT tls $INET4 443 inet.test; $NT http $INET4 80 a.inet.test;
		$NT http $INET4 80 other.test; $NT raw $INET4 9002; $NT udp $INET4 9005;
		$NT connect 10.0.0.1 80" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED
NXDOMAIN
ECONNRESET
ECONNREFUSED
NOERROR $INET4
ok
ok
ECONNRESET
ECONNRESET
ok
ECONNRESET
ok
EHOSTUNREACH
EACCES" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/; s/^EACCES [0-9]*$/EACCES/' "$T/out")"
	# The log names the rule and the name, for a flow and for a reset.
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":9002,"verdict":"allow","rule":"name","name":"a.inet.test","pattern":"*.inet.test"}'
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":443,"verdict":"deny","rule":"name-mismatch","name":"other.test"}'
	assertContains "$(cat "$T/log")" '"name":"inet.test","verdict":"deny","rule":"no-name","records":0}'
	assertContains "$(cat "$T/log")" '"name":"other.test","verdict":"deny","rule":"no-name","records":0}'
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":9002,"verdict":"deny","rule":"no-public"}'
	assertLanUntouched
}

test_allow_name_port_and_exact() {
	run onet $PUB --no-public --allow-name a.inet.test:9002 -- sh -c "
		$NT resolve b.inet.test; $NT resolve a.inet.test; $NT connect $INET4 9002;
		$NT connect $INET4 9000"
	assertEquals "$(cat "$T/err")" "NXDOMAIN
NOERROR $INET4
ok
ECONNREFUSED" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
}

# move.test moves from INET4 to INET4B while the agent runs (TTL 2 s, the
# bindings' shortest life made 2 s): the new address works, the old one is
# refused once its record expired.
test_allow_name_follows_an_address_change() {
	OTO_TEST_NAME_TTL_MIN=2 in_host "$OTO_BIN/otonet" $AS $PUB --no-public --allow-name move.test \
		-- sh -c "$NT resolve move.test; $NT connect $INET4 9002; touch $T/moved;
		n=0; while [ ! -e $T/go ] && [ \$n -lt 200 ]; do sleep 0.05; n=\$((n + 1)); done
		$NT resolve move.test; $NT connect $INET4B 9002; sleep 2.5; $NT connect $INET4 9002" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	n=0
	while [ ! -e "$T/moved" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	topo_name move.test $INET4B
	sleep 0.3
	touch "$T/go"
	wait_child $pid 30
	assertEquals "$(cat "$T/err")" "NOERROR $INET4
ok
NOERROR $INET4B
ok
ECONNREFUSED" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
	assertContains "$(cat "$T/err")" "OTO_TEST_NAME_TTL_MIN"
}

# Without the kernel's prohibit routes: the relay alone refuses.
test_allow_name_rebinding_refused() {
	run in_host env OTO_TEST_NO_KERNEL_LAYER=1 "$OTO_BIN/otonet" $AS $PUB --no-public --allow-name '*.inet.test' -- sh -c "
		$NT resolve reb.inet.test; $NT connect 10.0.0.1 80;
		$NT resolve meta.inet.test tcp; $NT connect 169.254.169.254 80"
	assertEquals "$(cat "$T/err")" "NXDOMAIN
ECONNREFUSED
NXDOMAIN
ECONNREFUSED" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
	assertLanUntouched
}

# 10,000 names: the table holds 4096 bindings (1.2 MiB, allocated and
# touched at start); the rest are refused (SERVFAIL), the relay's memory
# does not grow with them, the first bindings stay, nothing crashes.
test_allow_name_ten_thousand_names() {
	run onet $PUB --no-public --allow-name '*.inet.test' -- sh -c "$NT names 1 n .inet.test >/dev/null;
		grep VmRSS /proc/\$PPID/status; $NT names 10000 n .inet.test;
		grep VmRSS /proc/\$PPID/status; $NT tls $INET4 443 n0.inet.test;
		$NT tls $INET4 443 n4095.inet.test; $NT tls $INET4 443 n4096.inet.test"
	assertEquals "$(cat "$T/err")" "NOERROR 4096 SERVFAIL 5904
ok
ok
ECONNRESET" "$(sed -n '2p;4,$p' "$T/out")"
	before=$(sed -n '1s/[^0-9]//gp' "$T/out")
	after=$(sed -n '3s/[^0-9]//gp' "$T/out")
	echo "relay VmRSS: $before kB, after 10,000 names $after kB" >&2
	[ -n "${OTO_SAN:-}" ] ||
		assertTrue "relay VmRSS $before -> $after kB: grew by more than 256 kB" \
			"[ $((after - before)) -le 256 ]"
	assertContains "$(cat "$T/err")" "4096 name bindings alive, the table is full: refusing n4096.inet.test"
}

. shunit2
