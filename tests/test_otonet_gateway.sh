#!/bin/sh
# otonet's gateway route (OTO_GATEWAY, for otogate): a TCP flow from the
# agent to 10.0.2.4 or fd00::4 on a port the gateway serves is handed to the
# gateway as one end of a socket pair, with the port; every other port there
# stays private, and without a gateway so does every port. The gateway here
# is tests/helpers/fakegate.py, which answers each flow with its port, byte
# count and hash. In the topology of tests/net/topo.sh, at MTU 1500.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

GATE="$PY $OTO_TESTS/helpers/fakegate.py"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
}

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
}

# gate PORTS MODE [OTONET OPTIONS] -- CMD...: CMD in otonet behind the fake
# gateway, in the fake host; stdout in $T/out, stderr (fakegate's lines
# and otonet's) in $T/err.
gate() {
	_ports=$1 _mode=$2
	shift 2
	run in_host $GATE "$_ports" "$_mode" -- "$OTO_BIN/otonet" $AS $PUB "$@"
}

# The first 16 hex digits of the SHA-256 of nettool's blob of N bytes.
blobsha() {
	$PY -c 'import hashlib, sys
sys.path.insert(0, sys.argv[1])
import nettool
h = hashlib.sha256()
for c in nettool.blob(int(sys.argv[2])):
    h.update(c)
print(h.hexdigest()[:16])' "$OTO_TESTS/net" "$1"
}

test_a_gateway_port_reaches_the_gateway() {
	gate 8001,8002 serve --log-fd 3 -- sh -c "$NT gw 10.0.2.4 8002 100000; $NT gw fd00::4 8001 3000000" 3>"$T/log"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ok port=8002 bytes=100000 sha=$(blobsha 100000)
ok port=8001 bytes=3000000 sha=$(blobsha 3000000)" "$(cat "$T/out")"
	assertEquals 2 "$(grep -c '"verdict":"allow","rule":"gateway"' "$T/log")"
	assertLanUntouched
}

# The way back in bulk: what the gateway writes reaches the agent whole. The
# relay discarded a gateway flow's acknowledged bytes with MSG_TRUNC, which a
# unix socket does not honour: its queue never emptied, and the agent got
# about 200 KB, then nothing.
test_the_gateway_answers_in_bulk() {
	gate 8001 echo -- sh -c "$NT gwecho 10.0.2.4 8001 3000000; $NT gwecho fd00::4 8001 100000"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ok back=3000000 same=True
ok back=100000 same=True" "$(cat "$T/out")"
	assertLanUntouched
}

# A gateway that reads a flow only after half a second (otogate opening its
# TLS connection to the upstream while the agent's body arrives): the socket
# pair fills, the relay's window closes, and reopens when the gateway reads,
# with a window update; the agent never waits for its persist timer.
test_a_full_socket_pair_reopens_without_a_probe() {
	gate 8001 late -- sh -c "$NT gw 10.0.2.4 8001 3000000; $NT tcpstat"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ok port=8001 bytes=3000000 sha=$(blobsha 3000000)
TCPTimeouts=0 TCPWinProbe=0 RetransSegs=0" "$(cat "$T/out")"
}

test_other_ports_and_protocols_there_stay_private() {
	gate 8001 serve --log-fd 3 -- sh -c "$NT gw 10.0.2.4 8002 10; $NT udp 10.0.2.4 8001; $NT gw fd00::4 80 10" 3>"$T/log"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ECONNREFUSED
EHOSTUNREACH
ECONNREFUSED" "$(cut -d' ' -f1 "$T/out")"
	assertEquals 0 "$(grep -c '"rule":"gateway"' "$T/log")"
	assertNotContains "$(cat "$T/err")" "fakegate: port="
	assertLanUntouched
}

test_without_a_gateway_its_ports_are_private() {
	run in_host "$OTO_BIN/otonet" $AS $PUB --log-fd 3 -- $NT gw 10.0.2.4 8001 10 3>"$T/log"
	assertEquals "ECONNREFUSED" "$(cat "$T/out")"
	assertContains "$(cat "$T/log")" '"dst":"10.0.2.4","port":8001,"verdict":"deny","rule":"special:10.0.0.0/8"'
}

# The gateway's socket and OTO_GATEWAY are the relay's alone: the sandbox
# holds the same fds as without a gateway.
test_the_sandbox_holds_nothing_of_the_gateway() {
	probe='for f in /proc/$$/fd/*; do echo "${f##*/} $(readlink "$f" | sed "s/:\[.*//")"; done
		echo "why=$OTO_WHY_FD"; env | grep -c OTO_GATEWAY; true'
	run in_host "$OTO_BIN/otonet" $AS $PUB -- sh -c "$probe"
	without=$(why_less "$T/out")
	gate 8001 serve -- sh -c "$probe"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "$without" "$(why_less "$T/out")"
	assertEquals "0" "$(tail -n 1 "$T/out")"
}

# A gateway that is gone: the relay tells the sandbox to end (SIGTERM),
# and until it does (a program that ignores it: blocked from before
# otonet's start, so that it cannot come before the trap), the flow is
# refused, nothing goes another way, and the relay says why once.
test_a_dead_gateway_refuses_the_flow() {
	run in_host $GATE 8001 dead -- $PY -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.execv(sys.argv[1], sys.argv[1:])' "$OTO_BIN/otonet" $AS $PUB -- \
		sh -c "trap '' TERM; $NT gw 10.0.2.4 8001 10; $NT gw 10.0.2.4 8001 10"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ECONNREFUSED
ECONNREFUSED" "$(cat "$T/out")"
	assertEquals "otonet: warning: the gateway (otogate) is gone: the session ends
otonet: warning: relay: unable to hand a flow to the gateway (port 8001): Broken pipe" \
		"$(grep 'gateway' "$T/err")"
	assertLanUntouched
}

# OTO_GATE_GO (otogate's go): otonet's child builds the network, then waits
# on the pipe; the chain runs on a "g" alone. Anything else, or the pipe's
# end (the gateway failed and said why), ends the child without a word and
# nothing of the chain runs; the relay exits with the child's 101. The
# pipe is the child's alone: the chain never holds it.
test_the_chain_waits_for_the_gateways_go() {
	probe="touch $T/ran; ls /proc/self/fd | tr '\n' ' '; env | grep -c OTO_GATE_GO; echo why=\$OTO_WHY_FD; exit 0"
	run in_host "$OTO_BIN/otonet" $AS $PUB -- sh -c "$probe"
	without=$(why_less "$T/out")
	rm -f "$T/ran"
	for go in g x ''; do
		run in_host sh -c 'printf "$1" | { shift; exec 5<&0 </dev/null; OTO_GATE_GO=5 exec "$@"; }' \
			sh "$go" "$OTO_BIN/otonet" $AS $PUB -- sh -c "$probe"
		if [ "$go" = g ]; then
			assertEquals "go: $(cat "$T/err")" 0 "$rc"
			assertTrue "go: the chain ran" "[ -e '$T/ran' ]"
			assertEquals "go: the fds of a chain without it, no variable" "$without" "$(why_less "$T/out")"
			assertEquals "go: no variable" 0 "$(why_less "$T/out" | awk '{ print $NF }')"
			rm -f "$T/ran"
		else
			assertEquals "<$go>" 101 "$rc"
			assertFalse "<$go>: the chain ran" "[ -e '$T/ran' ]"
			assertEquals "<$go>: nothing said" "" \
				"$(grep -v '^otonet: warning: --public ' "$T/err")"
		fi
	done
	for v in x 70000; do
		run env OTO_GATE_GO="$v" "$OTO_BIN/otonet" $AS -- true
		assertEquals "<$v>" "100 otonet: fatal: OTO_GATE_GO=$v: not the fd of a pipe (3 or more)" "$rc $(cat "$T/err")"
	done
	run env OTO_GATE_GO=5 "$OTO_BIN/otonet" $AS -- true 5</dev/null
	assertEquals "not a pipe" "100 otonet: fatal: OTO_GATE_GO=5: not the fd of a pipe (3 or more)" "$rc $(cat "$T/err")"
	# Standard input, output or error, even a pipe: never the go (as OTO_GATEWAY's fd).
	for v in 0 1 2; do
		run sh -c 'printf g | OTO_GATE_GO=$1 "$2" $3 -- true 2>&1 | cat' sh "$v" "$OTO_BIN/otonet" "$AS"
		assertEquals "<$v>" "otonet: fatal: OTO_GATE_GO=$v: not the fd of a pipe (3 or more)" "$(cat "$T/out")"
	done
}

test_bad_gateway_values_are_refused() {
	for v in x 5 5:0 5:8001,8001 2:8001 5:8001=a.test 5:8001=*.a.test:443 5:8001=a.test:443,8002=a.test:443; do
		run env OTO_GATEWAY="$v" "$OTO_BIN/otonet" $AS -- true
		assertEquals "<$v>" 100 "$rc"
		assertEquals "otonet: fatal: OTO_GATEWAY=$v: not FD:PORT[=HOST:PORT][,PORT[=HOST:PORT]]... (at most 16 ports)" "$(cat "$T/err")"
	done
	run env OTO_GATEWAY=5:8001 "$OTO_BIN/otonet" $AS -- true 5</dev/null
	assertEquals 100 "$rc"
	assertEquals "otonet: fatal: OTO_GATEWAY: fd 5 is not a unix stream or seqpacket socket" "$(cat "$T/err")"
}

. shunit2
