#!/bin/sh
# otonet's OTO_TEST_TUN_MTU (benchmarks at a common MTU, bench/net.sh): the
# TUN gets that MTU, bad values are refused, and bulk TCP through the relay
# stays exact at MTU 1500 (the agent's segments follow its own MTU, whatever
# MSS the relay offers). Needs root for ip netns; the relay runs as --as.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

NT="$PY $NETTOOL"
PUB="--public 203.0.113.0/24 --public 2001:db8:1::/64"
BIG=${OTO_NET_BULK:-104857600} # 100 MiB each way

suite_setUp() {
	[ -n "$IS_ROOT" ] || skip "needs root (ip netns)"
}

onet() { in_host "$OTO_BIN/otonet" $AS "$@"; }

test_default_mtu_is_65520() {
	run onet $PUB -- ip -o link show tun0
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" " mtu 65520 "
}

test_mtu_1500_is_set_and_not_passed_on() {
	run in_host env OTO_TEST_TUN_MTU=1500 "$OTO_BIN/otonet" $AS $PUB -- \
		sh -c 'ip -o link show tun0; echo "env:${OTO_TEST_TUN_MTU-unset}"'
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" " mtu 1500 "
	assertContains "$(cat "$T/out")" "env:unset"
	assertEquals "otonet: warning: OTO_TEST_TUN_MTU=1500: the TUN's MTU (for tests only)" \
		"$(grep MTU "$T/err")"
}

test_bad_mtu_is_a_usage_error() {
	for v in 1279 65521 abc ""; do
		run in_host env OTO_TEST_TUN_MTU="$v" "$OTO_BIN/otonet" $AS -- true
		assertEquals "OTO_TEST_TUN_MTU=$v" 100 "$rc"
		assertEquals "otonet: fatal: OTO_TEST_TUN_MTU=$v: expected 1280 to 65520" "$(cat "$T/err")"
	done
}

test_bulk_tcp_at_mtu_1500_sha256() {
	run in_host env OTO_TEST_TUN_MTU=1500 "$OTO_BIN/otonet" $AS $PUB -- $NT up 203.0.113.10 "$BIG"
	assertEquals "upload $BIG bytes: $(cat "$T/err")" "ok" "$(cat "$T/out")"
	run in_host env OTO_TEST_TUN_MTU=1500 "$OTO_BIN/otonet" $AS $PUB -- $NT down 203.0.113.10 "$BIG"
	assertEquals "download $BIG bytes: $(cat "$T/err")" "ok" "$(cat "$T/out")"
	assertEquals 0 "$rc"
}

. shunit2
