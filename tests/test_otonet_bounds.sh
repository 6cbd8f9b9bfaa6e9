#!/bin/sh
# otonet's bounds and lockdown (issue 7), in the topology of tests/net/topo.sh:
# the buffered path for kernels without SO_PEEK_OFF, the relay's own
# namespaces, capabilities and seccomp allowlist, and the resource bounds
# under a flood of connections and datagrams. Needs root for ip netns.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

NT="$PY $NETTOOL"
PUB="--public 203.0.113.0/24 --public 2001:db8:1::/64"

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'topo_down' EXIT
	trap 'topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
}

oneTimeTearDown() {
	[ -n "$IS_ROOT" ] && topo_down
	return 0
}

suite_setUp() {
	[ -n "$IS_ROOT" ] || skip "needs root (ip netns)"
	return 0
}

onet() { in_host "$OTO_BIN/otonet" $AS "$@"; }

# ---- without SO_PEEK_OFF: the bounded per-flow buffer -----------------------------

test_no_peek_off_bulk_sha256() {
	run in_host env OTO_TEST_NO_PEEK_OFF=1 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		$NT down 203.0.113.10 52428800; $NT up 203.0.113.10 20971520;
		$NT down 2001:db8:1::10 20971520"
	assertEquals "$(cat "$T/err")" "ok
ok
ok" "$(cat "$T/out")"
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/err")" "OTO_TEST_NO_PEEK_OFF=1 (for tests only)"
}

test_no_peek_off_200_concurrent_connections() {
	run in_host env OTO_TEST_NO_PEEK_OFF=1 "$OTO_BIN/otonet" $AS $PUB -- \
		$NT many 203.0.113.10 200 200000
	assertEquals "$(cat "$T/err")" "ok 200" "$(cat "$T/out")"
}

# ---- the relay's lockdown ------------------------------------------------------

# relay_start OTONET-ARGS...: otonet in the background, its agent waiting on
# $T/go; $relay is its pid once the agent wrote $T/up.
relay_start() {
	ip netns exec "$NH" "$@" 2>"$T/rerr" &
	relay=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	sleep 0.2
}

test_relay_has_no_capabilities_and_an_empty_root() {
	relay_start "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		$NT ping 203.0.113.10 >$T/ping; $NT down 203.0.113.10 3000000 >$T/down;
		echo up >$T/up; sleep 2"
	st=$(cat /proc/$relay/status)
	assertEquals "Seccomp:	2" "$(echo "$st" | grep '^Seccomp:')"
	assertEquals "NoNewPrivs:	1" "$(echo "$st" | grep '^NoNewPrivs:')"
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		assertEquals "$set:	0000000000000000" "$(echo "$st" | grep "^$set:")"
	done
	# Its own user and mount namespaces; the host's network namespace.
	assertNotEquals "$(readlink /proc/self/ns/user)" "$(readlink /proc/$relay/ns/user)"
	assertNotEquals "$(readlink /proc/self/ns/mnt)" "$(readlink /proc/$relay/ns/mnt)"
	assertEquals "$(in_host readlink /proc/self/ns/net)" "$(readlink /proc/$relay/ns/net)"
	assertEquals "65534 65534 1" "$(awk '{print $1, $2, $3}' /proc/$relay/uid_map)"
	assertEquals "65534 65534 1" "$(awk '{print $1, $2, $3}' /proc/$relay/gid_map)"
	root=$(ls -A /proc/$relay/root/ 2>&1)
	assertEquals "ls -A: $root" "0 " "$? $root"
	assertEquals "tmpfs ro" "$(awk '$2 == "/" {split($4, o, ","); print $3, o[1]}' /proc/$relay/mounts)"
	assertEquals "1" "$(wc -l </proc/$relay/mounts)"
	# Ping sockets and host sockets still work after the change of namespace.
	assertEquals "ok" "$(cut -d' ' -f1 "$T/ping")"
	assertEquals "ok" "$(cat "$T/down")"
	wait $relay
	assertEquals "$(cat "$T/rerr")" 0 $?
}

test_a_call_outside_the_allowlist_kills_the_relay_and_the_network() {
	relay_start env OTO_TEST_RELAY_BADCALL=1 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		( trap '' USR2; while [ ! -e $T/go ]; do sleep 0.05; done; sleep 0.5
		  ip link show tun0 >/dev/null 2>&1 && echo tun-present >$T/gc || echo tun-gone >$T/gc
		  $NT connect 203.0.113.10 9002 >>$T/gc; $NT udp 203.0.113.10 9005 >>$T/gc ) &
		echo \$\$ >$T/agent; $NT connect 203.0.113.10 9002 >$T/before; echo up >$T/up; sleep 30"
	assertEquals "ok" "$(cut -d' ' -f1 "$T/before")"
	kill -USR2 "$relay"
	wait "$relay"
	rc=$?
	: >"$T/go"
	# SIGSYS: seccomp killed it (128 + 31).
	assertEquals "$(cat "$T/rerr")" 159 "$rc"
	assertContains "$(cat "$T/rerr")" "OTO_TEST_RELAY_BADCALL=1 (for tests only)"
	assertTrue "the agent died with the relay" "wait_gone $(cat "$T/agent") 2"
	n=0
	while [ "$(wc -l <"$T/gc" 2>/dev/null)" != 3 ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "tun-gone
ENETUNREACH
ENETUNREACH" "$(cut -d' ' -f1 "$T/gc")"
}

. shunit2
