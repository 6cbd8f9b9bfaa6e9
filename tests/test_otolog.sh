#!/bin/sh
# otolog, the real binary: a record kept from real runs of the chain
# (tests/otolog/recorded.log: two sessions interleaved) summarized exactly,
# as text, JSON and policy; malformed, overlong and cut lines counted and
# said, and a line split across reads read whole; --follow writing a line
# as soon as its refusal is read; and, as root in the test network
# topology (tests/net/topo.sh), a live session refused a.inet.test (a name
# under --no-public) and ptrace whose --policy lines, given to a second
# session as its config file, leave it refused nothing.
# run-as: root user
. "$(dirname "$0")/common.sh"
# The topology needs root; without it, the live tests skip and the rest run.
if [ -n "$IS_ROOT" ]; then
	. "$OTO_TESTS/net/topo.sh"
fi
R=$OTO_TESTS/otolog

test_recorded_summary() {
	run otolog "$R/recorded.log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(cat "$R/recorded.txt")" "$(cat "$T/out")"
	run otolog --json "$R/recorded.log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(cat "$R/recorded.json")" "$(cat "$T/out")"
	# One object per session, each JSON.
	assertEquals 2 "$(/usr/bin/python3 -c 'import json, sys
print(len([json.loads(l) for l in open(sys.argv[1])]))' "$T/out")"
	run otolog --policy "$R/recorded.log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(cat "$R/recorded.policy")" "$(cat "$T/out")"
	# stdin, and the same record as two files (a session going on in the next).
	otolog <"$R/recorded.log" >"$T/stdin"
	assertEquals "$(cat "$R/recorded.txt")" "$(cat "$T/stdin")"
	head -n 5 "$R/recorded.log" >"$T/a"
	tail -n +6 "$R/recorded.log" >"$T/b"
	run otolog "$T/a" "$T/b"
	assertEquals "$(cat "$R/recorded.txt")" "$(cat "$T/out")"
}

# otogate's lines, as it writes them: a request it refused is a gateway
# request of the summary; a login's phantom it let pass where no grant
# swaps it (otogate(1), Subscription logins) is read, in the record, and
# no refusal: nothing is counted malformed.
test_gateway_lines_read() {
	{
		echo '{"time":1765100000.123,"grant":"API_KEY","method":"GET","host":"api.example.test","path":"/admin","status":403,"bytes_up":0,"bytes_down":120,"error":"no allow= of the grant serves this method and path"}'
		echo '{"time":1765100001.456,"grant":"CLAUDE_LOGIN","host":"api.anthropic.com","verdict":"pass","phantom":"refresh","where":"query"}'
		echo '{"time":1765100002.789,"grant":"CLAUDE_LOGIN","host":"api.anthropic.com","verdict":"pass","phantom":"access","where":"header X-Debug"}'
	} >"$T/gate.log"
	run otolog "$T/gate.log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertContains "$(cat "$T/out")" "no allow= of the grant serves this method and path"
	assertNotContains "$(cat "$T/out")" "CLAUDE_LOGIN"
	echo '{"time":1765100003.0,"grant":"CLAUDE_LOGIN","host":"h","verdict":"pass","phantom":"refresh"}' >>"$T/gate.log"
	run otolog "$T/gate.log"
	assertEquals 101 "$rc"
	assertContains "$(cat "$T/err")" '1 of 4 lines not read: 1 malformed (the first, line 4: "where" missing'
}

# A person's answers, as otonet writes them: a deny is never written as
# an allow line, and a name the agent chose that is no host name (a DNS
# label may hold '*' or ':') is never a rule; what was allowed for the
# session is the line otoask --save keeps.
test_policy_of_answers() {
	H='{"time":"T","source":"net","session":"s","proto":"tcp","src":"10.0.2.100","dst":"203.0.113.10","port":443'
	D='{"time":"T","source":"dns","session":"s","proto":"udp","src":"10.0.2.100","type":"A"'
	cat >"$T/log" <<-EOF
	$H,"name":"denied.inet.test","verdict":"ask","rule":"no-public","ask":1}
	$H,"name":"denied.inet.test","verdict":"deny","rule":"ask","decision":"deny","ask":1}
	$D,"name":"*.amazonaws.com","verdict":"ask","rule":"no-name","ask":2}
	$D,"name":"*.amazonaws.com","verdict":"allow","rule":"ask","decision":"allow-session","ask":2}
	$H,"name":"new.inet.test","verdict":"ask","rule":"no-public","ask":3}
	$H,"name":"new.inet.test","verdict":"allow","rule":"ask","decision":"allow-session","ask":3}
	EOF
	run otolog --policy "$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "--allow-name new.inet.test" "$(grep -v '^#' "$T/out")"
	assertContains "$(cat "$T/out")" "# wanted 1 time: tcp denied.inet.test port 443 asked, answered deny: denied by a person, so no line allows it"
	assertContains "$(cat "$T/out")" '# wanted 1 time: the name *.amazonaws.com asked, answered allow-session: "*.amazonaws.com" is not a host name: no rule is written for it'
}

# A line in pieces (a pipe's reads cut it): read whole, the same summary.
test_split_lines_read_whole() {
	n=$(wc -c <"$R/recorded.log")
	for cut in 1 37 200 $((n / 2)) $((n - 1)); do
		{ head -c "$cut" "$R/recorded.log"; sleep 0.1; tail -c +$((cut + 1)) "$R/recorded.log"; } |
			otolog >"$T/out" 2>"$T/err"
		assertEquals "cut at $cut: $(cat "$T/err")" "$(cat "$R/recorded.txt")" "$(cat "$T/out")"
	done
}

# Malformed, too long and cut lines: counted, said once at the end, exit
# 101; the summary is of the lines that were read.
test_bad_lines_counted_and_said() {
	{
		head -n 3 "$R/recorded.log"
		echo 'not json'
		echo '{"time":"x","source":"net","session":"a b","verdict":"deny"}'
		# 65536 bytes with its newline: the longest a line may be; it is read.
		/usr/bin/python3 -c 'import sys
pad = 65535 - len("{\"time\":\"T\",\"source\":\"net\",\"session\":\"long\",\"verdict\":\"allow\",\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":1,\"pad\":\"\"}")
sys.stdout.write("{\"time\":\"T\",\"source\":\"net\",\"session\":\"long\",\"verdict\":\"allow\",\"proto\":\"tcp\",\"dst\":\"1.2.3.4\",\"port\":1,\"pad\":\"" + "x" * pad + "\"}\n")
sys.stdout.write("{\"pad\":\"" + "y" * 70000 + "\"}\n")'
		echo '{"time":"x","source":"future","session":"s","verdict":"deny"}'
		tail -n +4 "$R/recorded.log"
		printf '{"time":"T","source":"net"'
	} >"$T/log"
	assertEquals 65536 "$(sed -n 6p "$T/log" | wc -c)"
	run otolog "$T/log"
	assertEquals 101 "$rc"
	lines=$(($(wc -l <"$T/log") + 1))
	assertEquals "otolog: warning: 5 of $lines lines not read: 2 malformed (the first, line 4: not a JSON object), 1 longer than 65536 bytes, 1 without its newline (cut), 1 of a source otolog does not know" "$(cat "$T/err")"
	# The recorded sessions as they were; the long line's own session after them.
	assertEquals "$(cat "$R/recorded.txt")

session long
  no open line (the record's start is not in this stream)
  from T to T
  no close line (still running, or the record was cut)
  allowed 1 flow, 0 DNS answers
  nothing refused" "$(cat "$T/out")"
	# A NUL, a nested object, a key twice: each a malformed line, the first named.
	printf '{"a":"\\u0000"}\n{"a":{"b":1}}\n{"a":1,"a":2}\n' >"$T/bad"
	run otolog "$T/bad"
	assertEquals 101 "$rc"
	assertEquals "otolog: warning: 3 of 3 lines not read: 3 malformed (the first, line 1: \\u0000 in a string)" "$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
}

test_usage() {
	run otolog --json --policy "$R/recorded.log"
	assertEquals 100 "$rc"
	assertEquals "otolog: fatal: --json and --policy: one of them at most" "$(cat "$T/err")"
	run otolog --follow --json
	assertEquals 100 "$rc"
	assertEquals "otolog: fatal: --follow writes for a person: not with --json or --policy" "$(cat "$T/err")"
	run otolog --bogus
	assertEquals 100 "$rc"
	run otolog "$T/none"
	assertEquals 111 "$rc"
	assertEquals "otolog: fatal: unable to open $T/none: No such file or directory" "$(cat "$T/err")"
	run otolog --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "usage: otolog [--follow] [--json | --policy] [FILE]..."
	: >"$T/empty"
	run otolog "$T/empty"
	assertEquals 0 "$rc"
	assertEquals "" "$(cat "$T/out")$(cat "$T/err")"
}

# --follow: a refusal's line is written once it is read, before the stream
# ends; the summary after the end.
test_follow_writes_as_lines_come() {
	mkfifo "$T/fifo"
	otolog --follow <"$T/fifo" >"$T/out" 2>"$T/err" &
	pid=$!
	exec 7>"$T/fifo"
	head -n 2 "$R/recorded.log" >&7
	n=0
	while [ "$(wc -l <"$T/out")" -lt 2 ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	assertEquals "$(head -n 2 "$R/recorded.follow")" "$(cat "$T/out")"
	tail -n +3 "$R/recorded.log" >&7
	exec 7>&-
	wait "$pid"
	assertEquals 0 "$?"
	assertEquals "$(cat "$R/recorded.follow")" "$(cat "$T/out")"
}

# ---- a live session, and the policy that allows what it was refused --------

suite_setUp() {
	[ -n "$IS_ROOT" ] || return 0
	: >"$TOPO_DIR/lan.seen"
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp "$NETTOOL" "$A/workspace/nettool.py"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
}

# chain [OTORUN OPTIONS] -- CMD...: the full chain in the fake host, under
# --no-public with one name allowed (so that DNS refuses the others).
chain() {
	ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" --public 203.0.113.0/24 \
		--agent-root "$A" --role member --person alice --no-public --allow-name other.test "$@"
}

AGENT='python3 /work/nettool.py resolve a.inet.test
python3 /work/nettool.py connect 10.0.0.1 80
python3 -c "import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
print(l.ptrace(0, 0, 0, 0), os.strerror(ctypes.get_errno()))"'

# A summary with what changes from run to run (the id, the times) named.
normalized() {
	sed -e 's/^session [0-9a-f]\{32\}$/session ID/' \
		-e 's/^  from [0-9T:.Z-]* to [0-9T:.Z-]*$/  from TIME to TIME/' \
		-e 's/^  closed after [0-9.]* ms,/  closed after N ms,/' "$1"
}

test_policy_allows_what_was_refused() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	run chain --log-fd 3 -- sh -c "$AGENT" 3>"$T/log1"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "NXDOMAIN ECONNREFUSED -1" "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	[ -n "${OTO_OTOLOG_KEEP:-}" ] && cp "$T/log1" "$OTO_OTOLOG_KEEP/log1"
	run otolog "$T/log1"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	normalized "$T/out" >"$T/sum1"
	assertEquals "session ID
  opened by otonet as $(id -nu "$OTO_TEST_USER") (uid $OTO_TEST_USER), role member, person alice
  chain otonet otons otomount otoexec sh
  from TIME to TIME
  closed after N ms, exit 0
  refused, network:
         1  tcp 10.0.0.1 port 80: special:10.0.0.0/8
  refused, DNS:
         1  a.inet.test A: no-name (nxdomain)
  refused, system calls:
         1  ptrace by python3" "$(cat "$T/sum1")"
	run otolog --policy "$T/log1"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	cp "$T/out" "$T/policy.conf"
	# What a person reads: the lines, the private one commented out.
	assertEquals "--allow-name a.inet.test
--profile dev" "$(grep -v '^#' "$T/policy.conf")"
	assertContains "$(cat "$T/policy.conf")" "# wanted 1 time: tcp 10.0.0.1 port 80 refused (special:10.0.0.0/8). WARNING: a private destination (special:10.0.0.0/8): grant it only deliberately
# an address decision: allows tcp to 10.0.0.1 port 80 only, whatever name it serves
#--allow tcp:10.0.0.1:80"
	# The second session, with those lines as its config file (the private
	# one left commented out), also reaches a.inet.test by name: refused
	# nothing but the private destination.
	chmod 0644 "$T/policy.conf"
	run chain --config "$T/policy.conf" --log-fd 3 -- sh -c "$AGENT
python3 /work/nettool.py http 203.0.113.10 80 a.inet.test" 3>"$T/log2"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "NOERROR ECONNREFUSED 0 ok" "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	[ -n "${OTO_OTOLOG_KEEP:-}" ] && cp "$T/log2" "$OTO_OTOLOG_KEEP/log2"
	run otolog "$T/log2"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	normalized "$T/out" >"$T/sum2"
	assertEquals "session ID
  opened by otonet as $(id -nu "$OTO_TEST_USER") (uid $OTO_TEST_USER), role member, person alice
  chain otonet otons otomount otoexec sh
  from TIME to TIME
  closed after N ms, exit 0
  allowed 1 flow, 1 DNS answer
  refused, network:
         1  tcp 10.0.0.1 port 80: special:10.0.0.0/8" "$(cat "$T/sum2")"
	# Without the private destination, nothing at all.
	run chain --config "$T/policy.conf" --log-fd 3 -- sh -c "$(echo "$AGENT" | grep -v 10.0.0.1)" 3>"$T/log3"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	run otolog "$T/log3"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "  allowed 0 flows, 1 DNS answer
  nothing refused" "$(tail -n 2 "$T/out")"
	run otolog --policy "$T/log3"
	assertEquals "" "$(grep -v '^#' "$T/out")"
	assertContains "$(cat "$T/out")" ": nothing refused"
	assertLanUntouched
}

. shunit2
