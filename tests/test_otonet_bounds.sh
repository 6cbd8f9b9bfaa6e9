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

. shunit2
