#!/bin/sh
# otoprobe at the end of the whole chain, behind otonet, in the test topology
# of tests/net/topo.sh: a fake host (where otonet runs) whose routes lead every
# private destination otoprobe tries to a fake office LAN that records every
# contact. Nothing leaves these namespaces. Needs root for ip netns; otonet
# and everything after it run as the --as user.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return; }
	: >"$TOPO_DIR/lan.seen"
}


# The launcher's namespaces: the fake host's network, the test's others.
host_ns() {
	echo "--host-ns net:$(in_host stat -L -c %i /proc/self/ns/net)"
	for n in user mnt pid ipc uts cgroup; do
		echo "--host-ns $n:$(stat -L -c %i /proc/self/ns/$n)"
	done
}

# What each destination must meet behind otonet: the relay refuses a
# private range at once with a reset (ECONNREFUSED), and logs it; fd00::1 is
# the relay's own address on the sandbox's fd00::/64 link, closed; loopback
# is the sandbox's own, closed.
EXPECT="10.0.0.1:80 172.16.0.1:80 192.168.1.1:80 169.254.169.254:80 100.64.0.1:80
127.0.0.1:80 198.18.0.1:80 192.0.0.192:80 [fd00::1]:80 [::1]:80 [::ffff:10.0.0.1]:80
[64:ff9b::a9fe:a9fe]:80 [2002:a9fe:a9fe::1]:80"

assertNetRefused() {
	for e in $EXPECT; do
		assertEquals "net $e" "ok|refused at once: ECONNREFUSED" "$(row "net $e" | sed 's/ (.*//')"
	done
	assertEquals "the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
}

test_whole_chain_behind_otonet_is_contained() {
	for t in otoexec otomount; do
		[ -x "$OTO_BIN/$t" ] || { skip "$t is not built"; return; }
	done
	# shellcheck disable=SC2046 # one word per option
	run in_host "$OTO_BIN/otonet" $AS --public 203.0.113.0/24 -- "$OTO_BIN/otons" --share net -- \
		"$OTO_BIN/otomount" --ro "$OTO_BIN:/opt/oto" -- /opt/oto/otoexec -- \
		/opt/oto/otoprobe --json $(host_ns)
	assertEquals "gaps: $(grep -o '"check":"[^"]*","verdict":"GAP"' "$T/out")" 0 "$rc"
	assertEquals '"contained":true}' "$(tail -c 18 "$T/out")"
	assertEquals "ok|none in any set (inheritable, permitted, effective, bounding, ambient)" \
		"$(row capabilities)"
	assertContains "$(row 'ns net')" "ok|"
	assertNetRefused
}

test_otonet_alone_refuses_but_caps_are_held() {
	# otonet's own user namespace: the network is walled, the rest is not.
	# shellcheck disable=SC2046
	run in_host "$OTO_BIN/otonet" $AS --public 203.0.113.0/24 -- "$OTO_BIN/otoprobe" --json \
		--host-ns "net:$(in_host stat -L -c %i /proc/self/ns/net)"
	assertEquals 1 "$rc"
	assertContains "$(row capabilities)" "GAP|held: "
	assertEquals "GAP|0" "$(row no_new_privs)"
	assertContains "$(row 'ns net')" "ok|"
	assertNetRefused
}

# Safety: wherever a probe could reach a real network (here, the fake host,
# whose routes lead to the fake LAN), otoprobe sends nothing: it probes only
# behind a default route via tun0, or in a namespace with nothing but lo.
test_no_probe_outside_a_sandbox_network() {
	run in_host "$OTO_BIN/otoprobe" --json
	assertEquals 1 "$rc"
	assertEquals "GAP|interfaces besides lo, and no default route via tun0: no probe sent, it could reach a real network" \
		"$(row net)"
	ip -n "$NH" route add default via $LAN4
	run in_host "$OTO_BIN/otoprobe" --json
	ip -n "$NH" route del default via $LAN4
	assertEquals "GAP|default route via hl0, not the sandbox's tun0: no probe sent, it could reach a real network" \
		"$(row net)"
	assertEquals "the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
}

. shunit2
