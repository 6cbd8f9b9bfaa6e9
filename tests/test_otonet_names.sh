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

. shunit2
