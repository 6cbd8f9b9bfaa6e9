#!/bin/sh
# The whole chain, composed by otorun, in the test network topology
# (tests/net/topo.sh): otonet in a fake host, a fake internet declared with
# --public, a fake office LAN that records every contact. Root only (ip netns);
# the sandbox itself always runs as the unprivileged test user (--as).
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

# A fresh agent tree per test, owned by the sandbox's user; nettool.py in its
# workspace so the agent can run it as /work/nettool.py.
suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp "$NETTOOL" "$A/workspace/nettool.py"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
}

# chain [OTORUN OPTIONS] -- CMD...: the full chain in the fake host.
chain() {
	ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" \
		--public 203.0.113.0/24 --agent-root "$A" --person alice "$@"
}

VIEW='for p in /work /knowledge /config /private; do
	if [ ! -e $p ]; then echo "$p absent"
	elif touch $p/.w 2>/dev/null; then rm -f $p/.w; echo "$p rw"
	else echo "$p ro"; fi
done'

test_each_role_sees_its_view() {
	for r in manager:rw:rw:rw member:rw:ro:absent viewer:ro:ro:absent; do
		role=${r%%:*}
		IFS=: read -r _ w k c <<-EOF
		$r
		EOF
		run chain --role "$role" -- sh -c "$VIEW"
		assertEquals "$role: $(cat "$T/err")" 0 "$rc"
		assertEquals "$role view" "$(printf '/work %s\n/knowledge %s\n/config %s\n/private rw' \
			"$w" "$k" "$c")" "$(cat "$T/out")"
	done
}

test_agent_writes_land_in_the_workspace() {
	run chain --role member -- sh -c 'pwd; echo from-agent > /work/made.txt; id -u'
	assertEquals 0 "$rc"
	assertEquals "$(printf '/work\n%s' "$OTO_TEST_USER")" "$(cat "$T/out")"
	assertEquals from-agent "$(cat "$A/workspace/made.txt")"
	assertEquals "$OTO_TEST_USER" "$(stat -c %u "$A/workspace/made.txt")"
	# Only alice's space, as /private; bob's is nowhere.
	run chain --role member -- sh -c 'ls /private; head -c 13 /private/notes.md; echo;
		ls -d /people /agent "$0" 2>&1 | wc -l; ls -d /people /agent "$0" 2>/dev/null' "$A"
	assertEquals "$(printf "notes.md\nAlice's priva\n3")" "$(cat "$T/out")"
}

test_internet_reached_lan_not() {
	run chain --role member -- sh -c 'python3 /work/nettool.py up 203.0.113.10 1048576;
		python3 /work/nettool.py connect 10.1.0.10 80;
		python3 /work/nettool.py connect 192.168.1.1 443'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals ok "$(sed -n 1p "$T/out")"
	# The relay refuses a private range (a RST), and logs it.
	assertEquals ECONNREFUSED "$(sed -n 2p "$T/out" | cut -d' ' -f1)"
	assertEquals ECONNREFUSED "$(sed -n 3p "$T/out" | cut -d' ' -f1)"
	assertLanUntouched
	# --kernel-wall puts the prohibit routes in front of it: EACCES at once.
	run chain --role member --kernel-wall -- sh -c '
		python3 /work/nettool.py connect 10.1.0.10 80;
		python3 /work/nettool.py connect 192.168.1.1 443'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "EACCES EACCES" "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	assertLanUntouched
}

test_exception_reaches_one_endpoint() {
	run chain --role member --allow tcp:10.1.0.10:8086 -- sh -c '
		python3 /work/nettool.py connect 10.1.0.10 8086
		python3 /work/nettool.py connect 10.1.0.10 8087
		python3 /work/nettool.py connect 192.168.1.1 8086'
	assertEquals 0 "$rc"
	assertEquals "ok lan" "$(sed -n 1p "$T/out" | cut -d' ' -f1-2)"
	# The granted host has a route through tun0: the relay refuses its other ports (RST).
	assertEquals ECONNREFUSED "$(sed -n 2p "$T/out" | cut -d' ' -f1)"
	# Its neighbour is refused by the relay too (RST), as a private range.
	assertEquals ECONNREFUSED "$(sed -n 3p "$T/out" | cut -d' ' -f1)"
	assertEquals "only the granted endpoint was contacted" 1 "$(wc -l <"$TOPO_DIR/lan.seen")"
	assertContains "$(cat "$TOPO_DIR/lan.seen")" "10.1.0.10 8086 from"
}

# --mode ask-new: otorun adds --no-public, so each public destination the
# rules refuse is held and asked about through --ask's decider (a scripted
# one, tests/helpers/decider.py): allowed once, then denied (the relay's RST).
# The same flows without --mode are never asked (test_internet_reached_lan_not).
test_mode_ask_new_asks_each_new_destination() {
	run in_host $PY "$OTO_TESTS/helpers/decider.py" --listen "$T/dec" allow-once,deny -- \
		"$OTO_BIN/otorun" --as "$OTO_TEST_USER" --public 203.0.113.0/24 --agent-root "$A" \
		--person alice --role member --mode ask-new --ask "$T/dec" --ask-timeout 10 \
		--log-fd 3 -- sh -c '
		python3 /work/nettool.py connect 203.0.113.10 9002
		python3 /work/nettool.py connect 203.0.113.10 9002' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "ok ECONNREFUSED" "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "ask no-public
allow ask allow-once
ask no-public
deny ask deny" "$($PY -c 'import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "ask" in d:
        print(d["verdict"], d["rule"], *d.get("decision", "").split())' "$T/log")"
}

# One --log-fd explains the session: otonet's flows and the system calls the
# filter refused, one JSON line each, in one shape (time, source, verdict).
test_one_log_explains_the_session() {
	run chain --role member --allow tcp:10.1.0.10:8086 --log-fd 3 -- sh -c '
		python3 /work/nettool.py connect 203.0.113.10 9002
		python3 /work/nettool.py connect 10.1.0.10 8087
		python3 -c "import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
print(l.unshare(0x10000000), os.strerror(ctypes.get_errno()))"' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "ok ECONNREFUSED -1" "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "Operation not permitted" "$(sed -n 3p "$T/out" | cut -d' ' -f2-)"
	python3 - "$T/log" >"$T/parsed" <<'PYEOF'
import datetime, json, sys, time
for line in open(sys.argv[1]):
    d = json.loads(line)
    t = datetime.datetime.strptime(d["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
    assert len(d["time"]) == 27 and abs(t - time.time()) < 300, d
    if d["source"] == "session":
        print("session", d["verdict"])
    elif d["source"] == "seccomp":
        assert isinstance(d["pid"], int) and d["pid"] > 1, d
        print("seccomp", d["verdict"], d["syscall"], d["args"][0], d["errno"], d["comm"], d["exe"])
    else:
        print(d["source"], d["verdict"], d["proto"], d["dst"], d["port"], d["rule"])
PYEOF
	py=$(readlink -f "$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)")
	assertEquals "session open
net allow tcp 203.0.113.10 9002 public
net deny tcp 10.1.0.10 8087 special:10.0.0.0/8
seccomp deny unshare 268435456 EPERM python3 $py
session close" "$(cat "$T/parsed")"
	assertEquals "$(printf 'open otonet\nclose 0 0')" "$(session_of "$T/log")"
}

# The whole record of one session, exactly: connects to three
# private destinations (each refused by the relay, with the range's name),
# three names resolved (one private: its answer stripped), two system calls
# refused, exit 3. Every line carries the session's id, between its open and
# close lines; otorun's one --log-fd is both otonet's and otons'.
test_one_session_on_the_record() {
	run chain --role member --log-fd 3 -- sh -c '
		python3 /work/nettool.py connect 10.0.0.1 80
		python3 /work/nettool.py connect 169.254.169.254 80
		python3 /work/nettool.py connect fd00::1 80
		python3 /work/nettool.py resolve inet.test
		python3 /work/nettool.py resolve other.test
		python3 /work/nettool.py resolve lan.test
		python3 -c "import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
print(l.ptrace(0, 0, 0, 0), os.strerror(ctypes.get_errno()))
print(l.mount(b\"none\", b\"/tmp\", b\"tmpfs\", 0, None), os.strerror(ctypes.get_errno()))"
		exit 3' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 3 "$rc"
	assertEquals "ECONNREFUSED ECONNREFUSED ECONNREFUSED NOERROR NOERROR NXDOMAIN -1 -1" \
		"$(cut -d' ' -f1 "$T/out" | tr '\n' ' ' | sed 's/ $//')"
	py=$(readlink -f "$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)")
	python3 - "$T/log" >"$T/parsed" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    s, v = d["source"], d["verdict"]
    if s == "session" and v == "open":
        print(s, v, d["stage"], d["account"], d["role"], d["person"], d["chain"][-1])
    elif s == "session":
        print(s, v, d["exit"], d["signal"], d["duration_ms"] > 0)
    elif s == "seccomp":
        print(s, v, d["syscall"], d["errno"], d["comm"], d["exe"])
    elif s == "dns":
        print(s, v, d["name"], d["type"], d["outcome"], d["rule"], d["records"])
    else:
        print(s, v, d["proto"], d["dst"], d["port"], d["rule"])
PYEOF
	assertEquals "session open otonet $(id -nu "$OTO_TEST_USER") member alice sh
net deny tcp 10.0.0.1 80 special:10.0.0.0/8
net deny tcp 169.254.169.254 80 special:169.254.0.0/16
net deny tcp fd00::1 80 special:fc00::/7
dns allow inet.test A answered dns 1
dns allow other.test A answered dns 1
dns deny lan.test A private-stripped private-answer 1
seccomp deny ptrace EPERM python3 $py
seccomp deny mount EPERM python3 $py
session close 3 0 True" "$(cat "$T/parsed")"
	assertEquals "$(printf 'open otonet\nclose 3 0')" "$(session_of "$T/log")"
	assertLanUntouched
}

# Behind otonet, otons runs unprivileged: otonet, while root, joins the
# audit's read-log group and hands the socket on (OTO_AUDIT), or why it has
# none. Here otonet runs in the fake host's network namespace, where the
# audit's records never come (they go to the initial one's readers only):
# otons says so, or that the audit is off, instead of logging nothing. The
# socket itself is handed on in test_otons.sh (otonet in the initial one).
test_landlock_refusals_behind_otonet_say_why() {
	lldeny_build || return 0
	unset_states=
	for state in 1 0; do
		audit_want $state || { unset_states="$unset_states $state"; continue; }
		run chain --role member --log-fd 3 --ro "$T/lldeny:/opt/lldeny" --landlock-ro /usr \
			--landlock-ro /opt -- /opt/lldeny open 3 /etc/hostname 3>"$T/log"
		assertEquals "$(cat "$T/err")" 0 "$rc"
		assertEquals "3 EACCES" "$(cat "$T/out")"
		if [ $state = 1 ]; then
			why="the kernel's audit hands its records to the initial network namespace only, and this is another"
		else
			why="the kernel's audit is off (auditctl -e 1, or audit=1 at boot)"
		fi
		assertEquals "otons: warning: Landlock's refusals are not in the log: $why" \
			"$(grep -v '^otonet: warning: --public ' "$T/err")"
		assertEquals "" "$(refusals_of "$T/log")"
		assertEquals "$(printf 'open otonet\nclose 0 0')" "$(session_of "$T/log")"
	done
	[ -z "$unset_states" ] ||
		skip "the kernel's audit could not be set to$unset_states (OTO_TEST_AUDIT=switch lets the tests set it)"
}

# A store with two credentials; the session runs on one of them.
make_store() {
	"$OTO_BIN/otosecret" keygen --out "$T/key"
	printf 'API_KEY=canary-one-%s\nOTHER_TOKEN=canary-two-%s\n' $$ $$ |
		"$OTO_BIN/otosecret" seal --key-file "$T/key" --store "$T/store"
}

test_only_the_named_secret_arrives() {
	make_store
	run chain --role member --secret API_KEY --store "$T/store" --key-file "$T/key" -- \
		sh -c 'echo "$API_KEY"; env | grep -c canary-two; ls /proc/self/fd | tr "\n" " "'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "canary-one-$$" "$(sed -n 1p "$T/out")"
	assertEquals 0 "$(sed -n 2p "$T/out")"
	# 0 1 2, and the directory ls reads: no store or key fd.
	assertEquals "0 1 2 3 " "$(sed -n 3p "$T/out")"
}

# otosecret keeps what otoexec reads, not only what it consumes: with a
# secret in the chain, the calls the filter refuses are still on the record
# (OTO_REFUSALS reaches otoexec; test_otosecret checks OTO_VIEW too).
test_refusals_on_the_record_with_a_secret() {
	make_store
	helper_cc refuse
	run chain --role member --secret API_KEY --store "$T/store" --key-file "$T/key" \
		--ro "$T/refuse:/opt/refuse" --log-fd 3 -- /opt/refuse 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(printf 'unshare EPERM\nmount EPERM\nbpf EPERM\nptrace EPERM')" "$(cat "$T/out")"
	assertEquals "unshare mount bpf ptrace" "$(refusals_of "$T/log" | python3 -c 'import json, sys
print(" ".join(d["syscall"] for d in map(json.loads, sys.stdin) if "syscall" in d))')"
}

test_exit_code_and_signal_pass_through() {
	run chain --role member -- sh -c 'exit 7'
	assertEquals 7 "$rc"
	ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" --agent-root "$A" \
		--person alice --role member -- \
		sh -c 'trap "exit 42" TERM; touch /work/up; while :; do sleep 0.05; done' &
	pid=$!
	n=0
	while [ ! -e "$A/workspace/up" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	kill -TERM "$pid"
	# Bounded: a stage that does not pass SIGTERM on would hang the suite.
	if wait_child "$pid" 5; then
		assertEquals "SIGTERM reached the agent through every stage" 42 "$rc"
	else
		fail "SIGTERM not passed on: the chain still running 5 s after it (killed)"
	fi
}

test_failing_stage_stops_the_chain() {
	make_store
	# otorun opens the profile on the host and hands it to otoexec as fd 7.
	printf 'this is not a profile\n' >"$T/bad.profile"
	run chain --role member --profile "$T/bad.profile" -- touch /work/ran
	assertEquals 101 "$rc"
	assertEquals 1 "$(grep -c '^otoexec: fatal: fd 7:1: ' "$T/err")"

	"$OTO_BIN/otosecret" keygen --out "$T/wrong"
	run chain --role member --secret API_KEY --store "$T/store" --key-file "$T/wrong" -- \
		touch /work/ran
	assertEquals 101 "$rc"
	assertEquals 1 "$(grep -c '^otosecret: fatal: ' "$T/err")"

	run ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" --agent-root "$T/nope" \
		--role member --person alice -- touch /work/ran
	assertEquals 111 "$rc"
	assertEquals 1 "$(grep -c '^otomount: fatal: ' "$T/err")"
	assertFalse "the agent never started" "[ -e '$A/workspace/ran' ]"
}

test_otoprobe_finds_everything_contained() {
	# The launcher's namespaces that outlive it: this shell's, and the fake
	# host's network namespace. (ip netns exec makes a mount namespace that
	# dies with the command it runs: its inode number may be reused later.)
	set -- --host-ns "net:$(ip netns exec "$NH" stat -L -c %i /proc/self/ns/net)"
	for n in user mnt pid ipc uts cgroup; do
		set -- "$@" --host-ns "$n:$(stat -L -c %i /proc/self/ns/$n)"
	done
	run chain --role member -- /opt/oto/bin/otoprobe "$@"
	assertEquals "$(grep -v ' ok ' "$T/out")" 0 "$rc"
	assertContains "$(tail -n 1 "$T/out")" " 0 gaps"
	assertLanUntouched
}

# Behind otonet too, a local server and its client reach each other.
test_loopback_behind_otonet() {
	run chain --role member -- python3 -c "$LOOPBACK_PY"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "127.0.0.1 ping
::1 ping" "$(cat "$T/out")"
}

test_print_shows_the_pipeline() {
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /srv/a --role member --person alice \
		--allow tcp:10.0.0.5:8086 --secret API_KEY --secret GH:env=GITHUB_TOKEN \
		--store /s --key-file /k -- sh -c 'echo "hi"' </dev/null
	assertEquals 0 "$rc"
	assertEquals "exec 8</s 9</k
$OTO_BIN/otonet --as nobody --allow tcp:10.0.0.5:8086 -- \\
  $OTO_BIN/otons --share net -- \\
  $OTO_BIN/otomount --agent-root /srv/a --role member --person alice --ro $OTO_BIN:/opt/oto/bin -- \\
  /opt/oto/bin/otosecret --store-fd 8 --key-fd 9 --use API_KEY --use GH:env=GITHUB_TOKEN -- \\
  /opt/oto/bin/otoexec --env-keep API_KEY --env-keep GITHUB_TOKEN --new-session --env PATH=/usr/local/bin:/usr/bin:/bin:/opt/oto/bin -- sh -c 'echo \"hi\"'" \
		"$(cat "$T/out")"
}

test_otorun_usage_errors() {
	run "$OTO_BIN/otorun" --agent-root /x --person a -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --role is required (manager, member or viewer)" "$(cat "$T/err")"
	run "$OTO_BIN/otorun" --bogus
	assertEquals 100 "$rc"
	assertOneLine otorun
	run "$OTO_BIN/otorun" --agent-root /x --role member --person a --secret K -- true
	assertEquals 100 "$rc"
	assertOneLine otorun
	run "$OTO_BIN/otorun" --agent-root /x --role member --person a -- true
	assertEquals "root without --as" 100 "$rc"
	assertOneLine otorun
}

. shunit2
