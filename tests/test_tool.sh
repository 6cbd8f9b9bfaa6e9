#!/bin/sh
# A tool with its own exception (oto(7), "A TOOL WITH ITS OWN EXCEPTION"),
# in the test network topology (tests/net/topo.sh): the tool's chain reaches
# its one granted endpoint on the fake LAN; the agent's chain, the same
# command, is refused at once and reaches the tool only through the socket
# bound into its view (otomount --socket, otoconnect). Both chains are
# composed by otorun, as examples/tool/run.sh does; both run as the test
# user (--as), each in its own namespaces. Root only (ip netns).
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	A=$T/agent R=$T/tool S=$T/sock
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp -R "$OTO_TOP/examples/agent" "$R"
	mkdir -p "$R/people/tool" "$S"
	cp "$NETTOOL" "$A/workspace/nettool.py"
	cp "$NETTOOL" "$R/workspace/nettool.py"
	echo "tool-file-$$" >"$R/workspace/tool-secret.txt"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A" "$R" "$S"
	# The two chains' options: examples/tool/{tool,agent}.conf as shipped,
	# only their places changed (the trees, the account, the tool's
	# endpoint on the fake LAN), and the tool's token.
	sed -e "s|^--agent-root .*|--agent-root $R|" -e "s|^--as .*|--as $OTO_TEST_USER|" \
		-e "s|^--allow tcp:10.1.2.3:9090$|--allow tcp:$LAN4:8086|" \
		"$OTO_TOP/examples/tool/tool.conf" >"$T/tool.conf"
	echo "--env TOOL_TOKEN=canary-$$" >>"$T/tool.conf"
	sed -e "s|^--agent-root .*|--agent-root $A|" -e "s|^--as .*|--as $OTO_TEST_USER|" \
		"$OTO_TOP/examples/tool/agent.conf" >"$T/agent.conf"
	tool=
	return 0
}

suite_tearDown() {
	[ -z "${tool:-}" ] || { kill "$tool" 2>/dev/null; wait "$tool" 2>/dev/null; }
	tool=
	return 0
}

# tool_up CMD: the tool's chain (tool.conf) serving CMD on $S/m.sock, in the
# background ($tool: otonet's relay, the chain's head); waits for the socket.
tool_up() {
	ip netns exec "$NH" "$OTO_BIN/otorun" --config "$T/tool.conf" --no-pty --rw "$S:/run/tool" -- \
		otoconnect --serve /run/tool/m.sock --max 4 -- sh -c "$1" </dev/null 2>"$T/tool.err" &
	tool=$!
	_n=0
	while [ ! -S "$S/m.sock" ] && [ $_n -lt 200 ]; do sleep 0.05; _n=$((_n + 1)); done
}

# agent CMD: the agent's chain (agent.conf), with the tool's socket at
# /tools/m.sock, killed after 120 s (124). agent_exec: the same, exec'd (in a
# subshell: its pid is the chain's head, otonet's relay).
agent() {
	(agent_exec "$1") &
	_p=$!
	wait_child $_p 120 || return 124
	return "$rc"
}
agent_exec() {
	exec ip netns exec "$NH" "$OTO_BIN/otorun" --config "$T/agent.conf" --no-pty \
		--socket "$S/m.sock:/tools/m.sock" -- sh -c "$1"
}

# The example itself (examples/tool/run.sh): the tool reaches 10.1.0.10:8086
# through its exception; the agent's same command is refused at once (the
# relay's reset, and its line in the log); the LAN saw the tool's one
# connection and nothing else.
test_tool_reaches_its_endpoint_the_agent_is_refused() {
	run ip netns exec "$NH" env OTORUN="$OTO_BIN/otorun" \
		TOOL_CMD="python3 /work/nettool.py connect $LAN4 8086" \
		"$OTO_TOP/examples/tool/run.sh" "$T/tool.conf" "$T/agent.conf" -- sh -c "
		/opt/oto/bin/otoconnect /tools/metrics.sock </dev/null
		python3 /work/nettool.py connect $LAN4 8086
		python3 /work/nettool.py connect $LAN4 9000"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "through the tool" "ok lan" "$(sed -n 1p "$T/out" | cut -d' ' -f1,2)"
	assertEquals "the agent itself" ECONNREFUSED "$(sed -n 2p "$T/out" | cut -d' ' -f1)"
	assertTrue "refused at once ($(sed -n 2p "$T/out"))" "[ $(sed -n 2p "$T/out" | cut -d' ' -f2) -lt 200 ]"
	assertEquals "another LAN port" ECONNREFUSED "$(sed -n 3p "$T/out" | cut -d' ' -f1)"
	assertEquals "the LAN saw the tool's one connection" "tcp ::ffff:$LAN4 8086 from ::ffff:$HOST_LAN4" \
		"$(cat "$TOPO_DIR/lan.seen")"
}

# 1 MB from the agent to the tool and 1 MB back, through both views.
test_one_megabyte_each_way_through_the_socket() {
	head -c 1048576 /dev/urandom >"$A/workspace/up"
	head -c 1048576 /dev/urandom >"$R/workspace/down"
	chmod 0644 "$A/workspace/up" "$R/workspace/down"
	tool_up 'sha256sum | cut -c1-64; cat /work/down'
	run agent '/opt/oto/bin/otoconnect /tools/m.sock </work/up >/work/got'
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "up, as the tool read it" "$(sha256sum <"$A/workspace/up" | cut -c1-64)" \
		"$(head -n1 "$A/workspace/got")"
	assertEquals "down, as the agent got it" "$(sha256sum <"$R/workspace/down")" \
		"$(tail -c 1048576 "$A/workspace/got" | sha256sum)"
	assertEquals 1048641 "$(wc -c <"$A/workspace/got")"
}

# The tool's processes, files and environment are nowhere in the agent's
# view, and the agent's kill -KILL -1 (every process it may signal) reaches
# none of them; the tool itself
# has its token (the canary is live) and serves on.
test_agent_cannot_see_or_signal_the_tool() {
	tool_up 'echo "tool sees ${TOOL_TOKEN:-nothing} $(cat /work/tool-secret.txt)"'
	run agent "
		/opt/oto/bin/otoconnect /tools/m.sock </dev/null
		cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c -e '--ser[v]e /run/tool' -e 'tool[.]conf'
		cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c canary
		find / -path /proc -prune -o -name tool-secret.txt -print 2>/dev/null | wc -l
		grep -rl -e canary-$$ -e tool-file-$$ / --exclude-dir=proc --exclude-dir=sys 2>/dev/null | wc -l
		ls -A /tools
		kill -KILL -1; sleep 0.5; echo survived"
	assertEquals "$(cat "$T/err")" "tool sees canary-$$ tool-file-$$
0
0
0
0
m.sock
survived" "$(cat "$T/out")"
	assertEquals 0 "$rc"
	assertTrue "the tool's chain lives" "kill -0 $tool"
	run agent '/opt/oto/bin/otoconnect /tools/m.sock </dev/null'
	assertEquals "served after it" "tool sees canary-$$ tool-file-$$" "$(cat "$T/out")"
}

# Killing the agent's chain (SIGKILL to its head, the relay) ends its
# connection: the tool's process for it reads its end of input and exits;
# the tool's chain serves the next agent.
test_killing_the_agent_ends_the_connection_not_the_tool() {
	tool_up 'echo connected; cat >/dev/null; echo "ended $$" >>/run/tool/log'
	(agent_exec 'sleep 600 | /opt/oto/bin/otoconnect /tools/m.sock') >"$T/a.out" 2>"$T/a.err" &
	a=$!
	n=0
	while [ "$(cat "$T/a.out")" != connected ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "the agent is connected" connected "$(cat "$T/a.out")"
	assertFalse "the connection is open" "[ -e '$S/log' ]"
	kill -KILL "$a"
	wait "$a" 2>/dev/null
	n=0
	while [ ! -s "$S/log" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "the tool's process for it ended" 1 "$(grep -c '^ended ' "$S/log" 2>/dev/null)"
	assertTrue "the tool's chain lives" "kill -0 $tool"
	run agent 'echo | /opt/oto/bin/otoconnect /tools/m.sock'
	assertEquals "the next agent is served" connected "$(cat "$T/out")"
	assertEquals 0 "$rc"
}

# Two accounts (examples/tool/run.sh run by root): the agent as daemon, the
# tool as the test user. The socket's directory is the tool's, group the
# agent's, 0710, the socket 0666: the agent connects; the tool's processes
# are another uid's besides another pid namespace's.
test_two_accounts() {
	chown -R daemon:daemon "$A"
	sed -i "s/^--as .*/--as daemon/" "$T/agent.conf"
	run ip netns exec "$NH" env OTORUN="$OTO_BIN/otorun" TMPDIR="$T" \
		TOOL_CMD='id -u; ls -ld /run/tool/metrics.sock | cut -c1-10' \
		"$OTO_TOP/examples/tool/run.sh" "$T/tool.conf" "$T/agent.conf" -- sh -c '
		id -u; /opt/oto/bin/otoconnect /tools/metrics.sock </dev/null
		stat -c "%a %U" "$0"/oto-tool.* 2>&1 | sed "s/.*: //"' "$T"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "1
$OTO_TEST_USER
srw-rw-rw-
No such file or directory" "$(cat "$T/out")"
	assertEquals "the directory is gone" "" "$(ls -d "$T"/oto-tool.* 2>/dev/null)"
}

# A hostile agent on the socket, from its own view: garbage, a half-closed
# and a reset connection, then 1,000 connections at once (non-blocking: each
# connects or gets EAGAIN once the backlog is full), held, then closed. The
# tool's chain serves the next agent.
HOSTILE_PY='
import errno, os, socket, struct, sys, time
path = sys.argv[1]
def conn(block=True):
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(block)
    s.connect(path)
    return s
s = conn(); s.sendall(os.urandom(65536)); s.close()
s = conn(); s.shutdown(socket.SHUT_WR); s.close()
s = conn(); s.sendall(b"\0\xff" * 1000); s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); s.close()
held, again, other = [], 0, 0
for i in range(1000):
    try:
        held.append(conn(False))
    except OSError as e:
        if e.errno == errno.EAGAIN: again += 1
        else: other += 1; print(e, file=sys.stderr)
time.sleep(0.5)
for h in held: h.close()
print(len(held) + again, other)
'

test_hostile_agent_does_not_stop_the_tool() {
	printf '%s' "$HOSTILE_PY" >"$A/workspace/hostile.py"
	tool_up 'read -r line; echo "got $line"'
	run agent 'python3 /work/hostile.py /tools/m.sock'
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "1000 attempts, none failing but EAGAIN" "1000 0" "$(cat "$T/out")"
	assertTrue "the tool's chain lives" "kill -0 $tool"
	run agent 'echo hello | /opt/oto/bin/otoconnect /tools/m.sock'
	assertEquals "the next agent is served ($(cat "$T/err"))" "got hello" "$(cat "$T/out")"
}

. shunit2
