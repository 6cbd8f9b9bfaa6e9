#!/bin/sh
# otonet and names (tests/net/topo.sh's topology: the LAN's dnsmasq names the
# fake internet, the LAN and names that rebind, TTL 2 s): no map of the
# private network through DNS (an answer's private addresses hidden, with
# and without name rules, over UDP and TCP); --allow-name (bindings from the
# agent's own answers, their TTL, rebinding refused, the table's bound); the
# names a flow's bytes give (TLS SNI, every HTTP request's Host) judged
# against them, however the bytes are cut, before the host sees one; a rule
# without a port meaning 80 and 443, one with a port any protocol there.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	topo_name move.test $INET4
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

# The host's resolver gets plain questions only (nettool.py's fake resolver,
# --dns INET4B, writes each message it receives to dns.seen): an UPDATE that
# would plant wpad, a NOTIFY, two questions or none, an answer section,
# bytes after the question, a response, a zone transfer, class CHAOS, bytes
# that are not DNS, and the reverse name of a private address (or its zone)
# asked as any type are refused by the relay, each logged with its reason,
# and never reach the resolver; a question, with an EDNS OPT or without,
# still does.
test_resolver_gets_questions_only() {
	: >"$TOPO_DIR/dns.seen"
	good=12340100000100000000000002616e07312d322d332d3403646e7304746573740000010001
	opt=43210100000100000000000102616e07312d322d332d3403646e73047465737400000100010000291000000000000000
	update=12342800000100000001000004636f72700000060001047770616404636f727000000100010000003c00040a000001
	rev=12340100000100000000000001310131033136380331393207696e2d6164647204617270610000
	run in_host "$OTO_BIN/otonet" $AS --dns $INET4B --log-fd 3 -- sh -c "
		$NT dnsraw $good; $NT dnsraw $opt; $NT dnsraw $update
		$NT dnsraw 12342000000100000000000004636f72700000060001
		$NT dnsraw 123401000002000000000000016104696e657404746573740000010001016204696e657404746573740000010001
		$NT dnsraw 123401000000000000000000
		$NT dnsraw 123401000001000100000000016104696e657404746573740000010001016104696e6574047465737400000100010000003c000401020304
		$NT dnsraw 123401000001000000000000016104696e6574047465737400000100017878
		$NT dnsraw 123481800001000000000000016104696e657404746573740000010001
		$NT dnsraw 12340000000100000000000004636f72700000fc0001
		$NT dnsraw 1234010000010000000000000776657273696f6e0462696e640000100003
		$NT dnsraw 123401000001000000000000ffffffff
		$NT dnsraw deadbeef
		$NT dnsraw ${rev}ff0001; $NT dnsraw ${rev}100001
		$NT dnsraw 12340100000100000000000001350130013002313007696e2d6164647204617270610000010001
		$NT dnsraw 12340100000100000000000002313007696e2d6164647204617270610000020001
		$NT dnsraw $update tcp; $NT dnsraw ${rev}ff0001 tcp" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "NOERROR 1 1 0 0
NOERROR 1 1 0 0
NOTIMP 0 0 0 0
NOTIMP 0 0 0 0
FORMERR 0 0 0 0
FORMERR 0 0 0 0
FORMERR 0 0 0 0
FORMERR 0 0 0 0
TimeoutError
REFUSED 0 0 0 0
REFUSED 0 0 0 0
TimeoutError
TimeoutError
NXDOMAIN 1 0 0 0
NXDOMAIN 1 0 0 0
NXDOMAIN 1 0 0 0
NXDOMAIN 1 0 0 0
ECONNRESET
ECONNRESET" "$(cat "$T/out")"
	assertEquals "the resolver saw the two questions only" "$good
$opt" "$(cat "$TOPO_DIR/dns.seen")"
	# Each refusal's line and reason: the count of each rule.
	got=$(grep -o '"outcome":"[a-z]*","rule":"[a-z-]*"' "$T/log" | sort | uniq -c | sed 's/^ *//')
	assertEquals "$got" '2 "outcome":"answered","rule":"dns"
2 "outcome":"dropped","rule":"dns-malformed"
1 "outcome":"dropped","rule":"dns-response"
4 "outcome":"formerr","rule":"dns-shape"
2 "outcome":"notimp","rule":"dns-opcode"
4 "outcome":"nxdomain","rule":"private-ptr"
1 "outcome":"refused","rule":"dns-class"
1 "outcome":"refused","rule":"dns-type"
1 "outcome":"reset","rule":"dns-opcode"
1 "outcome":"reset","rule":"private-ptr"' "$got"
	assertContains "$(cat "$T/log")" '"name":"1.1.168.192.in-addr.arpa","type":"ANY","outcome":"nxdomain","rule":"private-ptr"'
}

test_private_answers_hidden_with_name_rules_and_logged() {
	run onet $PUB --no-public --allow-name '*.inet.test' --allow-name lan.test --log-fd 3 -- sh -c "
		getent hosts lan.test; echo getent \$?; $NT resolve lan.test tcp;
		$NT resolve reb.inet.test" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "getent 2
NXDOMAIN
NXDOMAIN" "$(cat "$T/out")"
	# One dns line per question: its name, type and what became of it.
	assertContains "$(cat "$T/log")" '"source":"dns","session":"'
	assertContains "$(cat "$T/log")" '"verdict":"deny","proto":"udp","src":"10.0.2.100","name":"lan.test","type":"A","outcome":"private-stripped","rule":"private-answer","records":1}'
	# The same rule and name again: the kind's count follows (the record is thinned).
	assertTrue "$(cat "$T/log")" "grep -q '\"verdict\":\"deny\",\"proto\":\"tcp\",\"src\":\"10.0.2.100\",\"name\":\"lan.test\",\"type\":\"A\",\"outcome\":\"private-stripped\",\"rule\":\"private-answer\",\"records\":1\(,\"count\":[0-9]*\)\?}' '$T/log'"
	assertContains "$(cat "$T/log")" '"name":"reb.inet.test","type":"A","outcome":"private-stripped","rule":"private-answer","records":1}'
}

# special_ranges: $ranges, every range of the filter's special-purpose table, read
# from the code (lib/cidr.c's SPECIAL), so that a range added there is
# tested here; and 4000::/2, outside 2000::/3 (refused by the rule after
# the table). Fails the test when the table's form is no longer read whole.
special_ranges() {
	_tab=$(sed -n '/^static const struct cidr_special_range SPECIAL\[\]/,/^};/p' "${OTO_TOP:-$OTO_TESTS/..}/lib/cidr.c")
	_r=$(echo "$_tab" | sed -n -e 's/^\s*V4(\([0-9]*\), *\([0-9]*\), *\([0-9]*\), *\([0-9]*\), *\([0-9]*\)),.*/\1.\2.\3.\4\/\5/p' \
		-e 's/^\s*V6("\([^"]*\)".*/\1/p')
	assertEquals "the table's entries all read" "$(echo "$_tab" | grep -c '^\s*V[46](')" "$(echo "$_r" | wc -l)"
	assertTrue "the table has 10/8 and fc00::/7" "echo '$_r' | grep -qx 10.0.0.0/8 && echo '$_r' | grep -qx fc00::/7"
	ranges=$(echo $_r 4000::/2)
}

# The fake internet's resolver (--dns INET4B, nettool.py's fake_dns) answers
# each range's first and last address in the answer, the authority and the
# additional section: in the answer, the name is NXDOMAIN; elsewhere, the
# record is hidden and the answer's public address stays. Without --public,
# the fake internet's own 203.0.113.0/24 is special too. (Before: only
# 10/8 and 169.254/16 names were asked, and 100.64.0.0/10 could show.)
test_every_special_range_hidden_in_every_section() {
	special_ranges
	# shellcheck disable=SC2086 # one argument per range
	run in_host "$OTO_BIN/otonet" $AS --dns $INET4B -- $NT ranges udp $ranges
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	# shellcheck disable=SC2086
	assertEquals "6 lines a range" $((6 * $(echo $ranges | wc -w))) "$(wc -l <"$T/out")"
	assertEquals "shown or not NXDOMAIN" "" "$(grep -v -e ' an NXDOMAIN$' \
		-e ' n[s] NOERROR 1.2.3.4$' -e ' a[r] NOERROR 1.2.3.4$' \
		-e ' n[s] NOERROR 2606:4700::1$' -e ' a[r] NOERROR 2606:4700::1$' "$T/out")"
	# The public addresses go through (the fake resolver answers as meant), over TCP too.
	run in_host "$OTO_BIN/otonet" $AS --dns $INET4B -- sh -c "$NT ranges tcp 100.64.0.0/10 fc00::/7;
		$NT resolve an.1-2-3-4.dns.test; $NT resolve an.2606-4700--2.dns.test udp AAAA"
	assertEquals "$(cat "$T/err")" "100.64.0.0/10 100.64.0.0 an NXDOMAIN
100.64.0.0/10 100.64.0.0 ns NOERROR 1.2.3.4
100.64.0.0/10 100.64.0.0 ar NOERROR 1.2.3.4
100.64.0.0/10 100.127.255.255 an NXDOMAIN
100.64.0.0/10 100.127.255.255 ns NOERROR 1.2.3.4
100.64.0.0/10 100.127.255.255 ar NOERROR 1.2.3.4
fc00::/7 fc00:: an NXDOMAIN
fc00::/7 fc00:: ns NOERROR 2606:4700::1
fc00::/7 fc00:: ar NOERROR 2606:4700::1
fc00::/7 fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff an NXDOMAIN
fc00::/7 fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ns NOERROR 2606:4700::1
fc00::/7 fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ar NOERROR 2606:4700::1
NOERROR 1.2.3.4
NOERROR 2606:4700::2" "$(cat "$T/out")"
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
# allows lead to it, on 80 and 443 for a rule without a port (9002 was open
# too before a rule without a port meant those two), and a flow must not name
# another once there.
test_allow_name_wildcard_under_no_public() {
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT connect $INET4 9002; $NT resolve inet.test; $NT resolve other.test tcp;
		$NT connect $INET4 9002; $NT resolve a.inet.test tcp; $NT connect $INET4 9002;
		$NT tls $INET4 443 a.inet.test; $NT tls $INET4 443 other.test;
		$NT tls $INET4 443 inet.test; $NT http $INET4 80 a.inet.test;
		$NT http $INET4 80 other.test; $NT raw $INET4 9002; $NT raw $INET4 80;
		$NT udp $INET4 9005; $NT connect 10.0.0.1 80" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED
NXDOMAIN
ECONNRESET
ECONNREFUSED
NOERROR $INET4
ECONNREFUSED
ok
ECONNRESET
ECONNRESET
ok
403:otonet: other.test is not allowed by --allow-name
ECONNREFUSED
ECONNRESET
EHOSTUNREACH
ECONNREFUSED" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
	# The log names the rule and the name, for a flow and for a reset.
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":443,"verdict":"allow","rule":"name","name":"a.inet.test","pattern":"*.inet.test"}'
	assertContains "$(cat "$T/log")" '"dst":"203.0.113.10","port":443,"verdict":"deny","rule":"sni-mismatch","name":"other.test"}'
	assertContains "$(cat "$T/log")" '"verdict":"deny","proto":"udp","src":"10.0.2.100","name":"inet.test","type":"A","outcome":"nxdomain","rule":"no-name","records":0}'
	assertContains "$(cat "$T/log")" '"verdict":"deny","proto":"tcp","src":"10.0.2.100","name":"other.test","type":"A","outcome":"reset","rule":"no-name","records":0}'
	assertContains "$(cat "$T/log")" '"verdict":"allow","proto":"tcp","src":"10.0.2.100","name":"a.inet.test","type":"A","outcome":"answered","rule":"dns","records":1}'
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

# move.test moves from INET4 to INET4B while the agent runs: the new
# address works at once; the old one while its binding lives (the record's
# TTL of 2 s raised to the bindings' shortest life, 60 s) and no longer once
# the relay's clock passed it, moved on by OTO_TEST_CLOCK_FD (a byte, a
# second), not waited out; a name asked again is bound again (on port 80:
# the rule has no port).
test_allow_name_follows_an_address_change() {
	mkfifo -m 0666 "$T/clock"
	OTO_TEST_CLOCK_FD=4 in_host "$OTO_BIN/otonet" $AS $PUB --no-public --allow-name move.test \
		-- sh -c "$NT resolve move.test; $NT http $INET4 80 move.test; touch $T/moved;
		n=0; while [ ! -e $T/go ] && [ \$n -lt 200 ]; do sleep 0.05; n=\$((n + 1)); done
		$NT resolve move.test; $NT http $INET4B 80 move.test; $NT http $INET4 80 move.test
		printf %50s '' >$T/clock; sleep 0.2; $NT http $INET4 80 move.test
		printf %20s '' >$T/clock; sleep 0.2; $NT http $INET4 80 move.test
		$NT http $INET4B 80 move.test; $NT resolve move.test; $NT http $INET4B 80 move.test" \
		>"$T/out" 2>"$T/err" 4<>"$T/clock" &
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
ok
ok
ECONNREFUSED
ECONNREFUSED
NOERROR $INET4B
ok" "$(sed 's/^\(ok\|ECONNREFUSED\) [0-9]*$/\1/' "$T/out")"
	assertContains "$(cat "$T/err")" "OTO_TEST_CLOCK_FD=4: each byte read on it moves the relay's clock a second on (for tests only)"
}

# The relay refuses the rebound addresses (no prohibit routes by default).
test_allow_name_rebinding_refused() {
	run in_host "$OTO_BIN/otonet" $AS $PUB --no-public --allow-name '*.inet.test' -- sh -c "
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

# ---- what a flow a name allowed sends, judged on the bytes ---------------------

# The log's lines without their time, which every line has first.
# thin_n N: the lines the record keeps of N decisions of one kind (the
# first ten, then each power of ten).
thin_n() {
	if [ "$1" -le 10 ]; then
		echo "$1"
		return
	fi
	_k=10 _p=100
	while [ $_p -le "$1" ]; do _k=$((_k + 1)) _p=$((_p * 10)); done
	echo $_k
}

logged() { sed 's/^{"time":"[0-9T:.Z-]*",\("source":"[a-z]*"\),"session":"[0-9a-f]*",/{\1,/' "$T/log"; }

# seen.PORT: every byte the fake internet's port took; how often NAME is in it.
seen() { $PY -c 'import sys; print(open(sys.argv[1], "rb").read().count(sys.argv[2].encode()) if __import__("os").path.exists(sys.argv[1]) else 0)' "$TOPO_DIR/seen.$1" "$2"; }

# N=COUNT len=LEN: every one of the LEN-1 cuts had outcome N.
assertEveryCut() { # WHAT OUTCOME LINE
	len=${3##*len=}
	assertEquals "$1" "$2=$((len - 1)) len=$len" "$3"
}

# A ClientHello for a name not allowed, cut at every offset (each piece
# acknowledged before the next: a segment of its own), and some cut in four
# with 150 ms between the pieces: reset, and the server in the fake
# internet never sees a byte of it; one for an allowed name passes, whole,
# every time. (Before: a first segment under 3 bytes counted as "not TLS"
# and the name passed unchecked, while an allowed hello cut after 3 bytes
# was reset.)
test_hello_cut_anywhere_is_judged_whole() {
	rm -f "$TOPO_DIR/seen.443"
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT split $INET4 443 tls other.test;
		$NT split $INET4 443 tls a.inet.test; $NT split $INET4 443 tls other.test 1,2,100 150;
		$NT split $INET4 443 tls a.inet.test 1,50,300 150" 3>"$T/log"
	assertEveryCut "other.test, every cut" ECONNRESET "$(sed -n 1p "$T/out")"
	assertEveryCut "a.inet.test, every cut" ok "$(sed -n 2p "$T/out")"
	assertEquals "$(cat "$T/err")" "ECONNRESET=1 len=$len" "$(sed -n 3p "$T/out")"
	assertEquals "ok=1 len=$len" "$(sed -n 4p "$T/out")"
	assertEquals "the host saw other.test" 0 "$(seen 443 other.test)"
	assertEquals "the host saw each a.inet.test hello once" "$len" "$(seen 443 a.inet.test)"
	# One refusal a cut, thinned on the record: the first ten, then each power of ten.
	assertEquals "$(thin_n "$len")" "$(logged | grep -c '^{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"verdict":"deny","rule":"sni-mismatch","name":"other.test"\(,"count":[0-9]*\)\?}$')"
}

# The same for a request head on port 80: a first request naming another
# host is answered 403 by the relay, whatever the cut, the host's server
# never seeing it; WebDAV's PROPFIND is judged as any method. (Before: a
# first segment "G" passed as neither TLS nor HTTP, and PROPFIND was no
# method the relay knew.)
test_request_head_cut_anywhere_is_judged_whole() {
	rm -f "$TOPO_DIR/seen.80"
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT split $INET4 80 http other.test;
		$NT split $INET4 80 http a.inet.test; $NT split $INET4 80 propfind other.test;
		$NT split $INET4 80 propfind a.inet.test 1,9,20 200" 3>"$T/log"
	assertEveryCut "GET other.test" "403:otonet: other.test is not allowed by --allow-name" "$(sed -n 1p "$T/out")"
	assertEveryCut "GET a.inet.test" ok "$(sed -n 2p "$T/out")"
	assertEveryCut "PROPFIND other.test" "403:otonet: other.test is not allowed by --allow-name" "$(sed -n 3p "$T/out")"
	assertEquals "ok=1 len=52" "$(sed -n 4p "$T/out")"
	assertEquals "the host saw other.test" 0 "$(seen 80 other.test)"
	assertContains "$(logged)" '{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":80,"verdict":"deny","rule":"host-mismatch","name":"other.test"}'
}

# Every request of a kept-alive flow is judged: a second one naming another
# host (its head cut in two) is reset, its bytes never at the host; a body
# that looks like a request is passed over, not judged; a request whose
# framing two parsers could read two ways is reset. (Before: only the first
# segment of a flow was looked at.)
test_every_request_judged_and_framing_followed() {
	rm -f "$TOPO_DIR/seen.80"
	body='GET / HTTP/1.1\r\nHost: other.test\r\n\r\n'
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT resolve b.inet.test >/dev/null;
		$NT keepalive $INET4 80 a.inet.test other.test 10;
		$NT keepalive $INET4 80 a.inet.test b.inet.test 10;
		$NT split $INET4 80 raw 'POST / HTTP/1.1\r\nHost: a.inet.test\r\nContent-Length: 36\r\n\r\n$body' 20;
		$NT split $INET4 80 raw 'POST / HTTP/1.1\r\nHost: a.inet.test\r\nTransfer-Encoding: chunked\r\n\r\n24\r\n$body\r\n0\r\n\r\n' 30;
		$NT split $INET4 80 raw 'POST / HTTP/1.1\r\nHost: a.inet.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' 30;
		$NT split $INET4 80 raw 'POST / HTTP/1.1\r\nHost: a.inet.test\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde' 30;
		$NT split $INET4 80 raw 'POST / HTTP/1.1\r\nHost: a.inet.test\r\nTransfer-Encoding: gzip\r\n\r\n' 30;
		$NT split $INET4 80 raw 'GET / HTTP/1.1\nHost: a.inet.test\r\n\r\n' 3;
		$NT split $INET4 80 raw 'GET / HTTP/1.1\r\nHost: a.inet.test\r\nX: y\r\n z\r\n\r\n' 30;
		$NT split $INET4 80 raw 'GET / HTTP/1.1\r\nHost: a.inet.test\r\nUpgrade: websocket\r\n\r\n' 30;
		$NT split $INET4 80 raw 'CONNECT a.inet.test:443 HTTP/1.1\r\nHost: a.inet.test\r\n\r\n' 4;
		$NT split $INET4 80 raw 'GET / HTTP/1.0\r\n\r\n' 5" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ok ECONNRESET
ok ok
ok=1 len=94
ok=1 len=113
ECONNRESET=1 len=90
ECONNRESET=1 len=81
ECONNRESET=1 len=63
ECONNRESET=1 len=36
ECONNRESET=1 len=47
ECONNRESET=1 len=57
ECONNRESET=1 len=55
403:otonet: a request without a Host name is not allowed by --allow-name=1 len=18" "$(cat "$T/out")"
	# other.test only inside the bodies the host was given: twice.
	assertEquals "other.test at the host" 2 "$(seen 80 other.test)"
	assertEquals "$(logged)" \
		'"rule":"host-mismatch" "rule":"http-malformed" "rule":"http-malformed" "rule":"http-malformed" "rule":"http-malformed" "rule":"http-malformed" "rule":"upgrade" "rule":"method" "rule":"name-missing" ' \
		"$(logged | grep '"verdict":"deny"' | grep -o '"rule":"[a-z-]*"' | tr '\n' ' ')"
}

# A ClientHello without SNI names nothing: under name rules it is reset,
# with its line, on an address a name bound (judged by the address alone
# it would pass); so is a request head with two Host headers, even both
# allowed, and the host never sees either. An allowed hello passes.
test_hello_without_sni_and_two_hosts_reset() {
	rm -f "$TOPO_DIR/seen.80" "$TOPO_DIR/seen.443"
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT tls $INET4 443 -;
		$NT split $INET4 80 raw 'GET / HTTP/1.1\r\nHost: a.inet.test\r\nHost: a.inet.test\r\n\r\n' 30;
		$NT split $INET4 80 raw 'GET / HTTP/1.1\r\nHost: a.inet.test\r\nHost: other.test\r\n\r\n' 30;
		$NT tls $INET4 443 a.inet.test" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ECONNRESET
ECONNRESET=1 len=56
ECONNRESET=1 len=55
ok" "$(cat "$T/out")"
	assertEquals "the host saw a Host header" 0 "$(seen 80 Host)"
	assertEquals "the host saw the hellos" 1 "$(seen 443 a.inet.test)"
	assertEquals "$(logged)" \
		'{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"verdict":"deny","rule":"name-missing"}
{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":80,"verdict":"deny","rule":"http-malformed"}
{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":80,"verdict":"deny","rule":"http-malformed","count":2}' \
		"$(logged | grep '"verdict":"deny"')"
}

# A rule without a port is 80 and 443: another port of a bound address is
# refused, a server there that speaks first (SSH's banner) is never read,
# and bytes on 443 that are neither TLS nor HTTP are reset. A rule naming
# the port opens it to any protocol. (Before: a rule without a port opened
# every port of the address, and the banner was read.)
test_a_rule_without_port_is_80_and_443() {
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT banner $INET4 22; $NT raw $INET4 22;
		$NT raw $INET4 443" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ECONNREFUSED
ECONNREFUSED
ECONNRESET" "$(cat "$T/out")"
	assertContains "$(logged)" '{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":22,"verdict":"deny","rule":"no-public"}'
	assertContains "$(logged)" '{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443,"verdict":"deny","rule":"not-tls-or-http"}'
	run onet $PUB --no-public --allow-name '*.inet.test' --allow-name 'a.inet.test:22' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT banner $INET4 22; $NT raw $INET4 443;
		$NT tls $INET4 443 other.test" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "ok SSH-2.0-fake
ECONNRESET
ECONNRESET" "$(cat "$T/out")"
	assertContains "$(logged)" '"port":22,"verdict":"allow","rule":"name","name":"a.inet.test","pattern":"a.inet.test"}'
}

# A flow that never decides (a head that never ends) is reset after the
# bound, 10 s from its handshake, with its line; so is one the agent ends
# (FIN) in the middle of a head. (Before: "Host: a" alone went through.)
test_undecided_flow_reset_after_the_bound() {
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT undecided $INET4 80 'GET / HTTP/1.1\r\nHost: a'" 3>"$T/log"
	ms=$(sed -n 's/^ECONNRESET \([0-9]*\)$/\1/p' "$T/out")
	assertTrue "$(cat "$T/out") $(cat "$T/err")" "[ -n '$ms' ] && [ '$ms' -ge 9900 ] && [ '$ms' -le 11500 ]"
	assertContains "$(logged)" '{"source":"net","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":80,"verdict":"deny","rule":"undecided"}'
}

# 2,000 flows each holding 6,000 bytes of a head that never ends: the
# relay holds at most 8 MiB for them all (NAMES_HELD_MAX), resets the rest
# (held-full, warned once), its memory bounded, and nothing crashes.
test_thousands_of_undecided_flows_bounded() {
	run onet $PUB --no-public --allow-name '*.inet.test' --log-fd 3 -- sh -c "
		$NT resolve a.inet.test >/dev/null; $NT hold-undecided $INET4 80 2000 6000 \$PPID;
		$NT http $INET4 80 a.inet.test" 3>"$T/log"
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(sed -n 1p "$T/out")
	echo "2000 undecided flows: $*" >&2
	assertEquals "$(cat "$T/err")" "open 2000 failed 0" "$1 $2 $5 $6"
	assertTrue "some were reset: $4" "[ '$4' -gt 0 ] && [ '$4' -lt 2000 ]"
	assertEquals "ok" "$(sed -n 2p "$T/out")"
	[ -n "${OTO_SAN:-}" ] ||
		assertTrue "relay VmRSS $8 -> $9 kB: grew by more than 12 MiB" "[ $(($9 - $8)) -le 12288 ]"
	assertContains "$(cat "$T/err")" "bytes held for --allow-name checks, the bound: resetting a flow"
	assertEquals "$(thin_n "$4")" "$(logged | grep -c '"rule":"held-full"\(,"count":[0-9]*\)\?}$')"
}

. shunit2
