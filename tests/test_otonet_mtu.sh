#!/bin/sh
# otonet's OTO_TEST_TUN_MTU (benchmarks at a common MTU, bench/net.sh): the
# TUN gets that MTU, bad values are refused (as they are for every OTO_TEST_*
# switch, each read the same way: lib/xtest_switch.c), and bulk TCP through the relay
# stays exact at MTU 1500 (the agent's segments follow its own MTU, whatever
# MSS the relay offers). Needs root for ip netns; the relay runs as --as.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

BIG=${OTO_NET_BULK:-104857600} # 100 MiB each way

suite_setUp() {
	[ -n "$IS_ROOT" ] || skip "needs root (ip netns)"
}

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

# The on/off switches take 0 or 1: anything else is refused, before any
# namespace exists; 0 is off and says nothing; 1 is said once, by name.
test_bad_switch_values_are_usage_errors() {
	for sw in OTO_TEST_NO_PEEK_OFF OTO_TEST_RELAY_BADCALL; do
		for v in yes 2 -1 ""; do
			run in_host env "$sw=$v" "$OTO_BIN/otonet" $AS -- true
			assertEquals "$sw=$v" 100 "$rc"
			assertEquals "otonet: fatal: $sw=$v: expected 0 to 1" "$(cat "$T/err")"
		done
		run in_host env "$sw=0" "$OTO_BIN/otonet" $AS -- sh -c "echo \${$sw-unset}"
		assertEquals "$sw=0" 0 "$rc"
		assertEquals "$sw=0: not passed on" unset "$(cat "$T/out")"
		assertEquals "$sw=0: nothing said" "" "$(cat "$T/err")"
	done
	run in_host env OTO_TEST_NO_PEEK_OFF=1 "$OTO_BIN/otonet" $AS -- true
	assertEquals 0 "$rc"
	assertEquals "otonet: warning: OTO_TEST_NO_PEEK_OFF=1: the relay's buffered path, as without SO_PEEK_OFF (for tests only)" \
		"$(cat "$T/err")"
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

# The TUN's offloads (IFF_VNET_HDR, TUNSETOFFLOAD): at MTU 1500 the agent's
# kernel hands the relay TCP segments of up to 64 KiB, and the relay hands it
# segments as large, which it takes as trains of MSS-sized ones. 10 MiB one
# way then needs a few hundred packets on tun0, not the 7,200 or more that
# 1,448-byte segments would (the counters include the ACKs going the other way).
test_offloads_at_mtu_1500_few_large_packets() {
	for dst in 203.0.113.10 2001:db8:1::10; do
		run in_host env OTO_TEST_TUN_MTU=1500 "$OTO_BIN/otonet" $AS $PUB -- sh -c '
			# /proc/net/dev is this network namespace'"'"'s: rx packets, tx packets.
			c() { awk '"'"'$1 == "tun0:" { print $3, $11 }'"'"' /proc/net/dev; }
			set -- $(c)
			'"$NT"' up '"$dst"' 10485760 || exit 1
			set -- "$@" $(c)
			'"$NT"' down '"$dst"' 10485760 || exit 1
			set -- "$@" $(c)
			echo "$(($4 - $2)) $(($5 - $3))"'
		assertEquals "$dst: $(cat "$T/err")" 0 "$rc"
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(tail -1 "$T/out")
		assertTrue "$dst: upload took $1 packets from the agent (offloads off?)" "[ ${1:-99999} -lt 1200 ]"
		assertTrue "$dst: download took $2 packets to the agent (offloads off?)" "[ ${2:-99999} -lt 1200 ]"
	done
}

. shunit2
