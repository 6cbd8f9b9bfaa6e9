#!/bin/sh
# otonet run by root where /dev/net/tun is root's alone (mode 0600, as on
# hardened hosts) and where it is everyone's (0666, stock Debian), in the
# topology of tests/net/topo.sh. At 0600 the TUN opener (cmd/otonet/opener.c)
# opens the device in the sandbox's network namespace; every guarantee of
# the unprivileged way must still hold. Unprivileged callers keep theirs.
#
# Each test sees the device at the mode it needs through a node of its own
# (c 10 200, on a tmpfs) bind-mounted over /dev/net/tun in a private mount
# namespace (tun_at): the machine's device is never chmod'ed here, so suites
# and benchmarks that overlap with this one, and topo.sh's saved mode in
# /run/oto-tun-mode, are not disturbed.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
}

# tun_at MODE CMD...: CMD in the fake host, where /dev/net/tun is a node of
# mode MODE owned by root (MODE:GID: its group GID); MODE "none": there is
# no /dev/net/tun at all.
# tun_exec: the same in place of the calling shell, for a job whose $! must
# be CMD's own pid (unshare and ip netns exec both exec).
tun_exec() {
	_mode=$1
	shift
	mkdir -p "$T/dev"
	exec unshare -m --propagation private sh -c '
		dir=$1 mode=$2 ns=$3
		shift 3
		mount -t tmpfs -o size=4k,mode=0755 oto-tun "$dir" || exit 1
		if [ "$mode" = none ]; then
			mount -t tmpfs -o size=4k,mode=0755 oto-no-tun /dev/net || exit 1
		else
			group=0
			case $mode in *:*) group=${mode#*:} mode=${mode%%:*} ;; esac
			mknod -m "$mode" "$dir/tun" c 10 200 && chown "0:$group" "$dir/tun" &&
				mount --bind "$dir/tun" /dev/net/tun || exit 1
		fi
		exec ip netns exec "$ns" "$@"' sh "$T/dev" "$_mode" "$NH" "$@"
}
tun_at() { (tun_exec "$@"); }

# The agent's stderr without otonet's own warnings (--public).
agent_err() { grep -v '^otonet: warning: ' "$T/err"; }

NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"

test_root_gets_the_network_at_0600_and_0666() {
	for mode in 0600 0666; do
		run tun_at $mode "$OTO_BIN/otonet" $AS $PUB -- sh -c "
			stat -c '%a %u' /dev/net/tun; id -u
			$NT up 203.0.113.10 1000000; $NT down 203.0.113.10 1000000"
		assertEquals "mode $mode: $(cat "$T/err")" 0 "$rc"
		# The device as the agent sees it (root's, unmapped: the overflow
		# uid); the agent is --as; a megabyte each way, its sha256 checked.
		assertEquals "mode $mode" "${mode#0} 65534
65534
ok
ok" "$(cat "$T/out")"
		assertEquals "mode $mode: stderr" "" "$(agent_err)"
	done
}

# The opener is forked only where the device is open to all: at 0666 the
# child opens it itself, as an unprivileged otonet's does, and no root
# process is forked at all. Elsewhere the opener is there for the child:
# at 0606 the account (not in the device's group) may open it and does;
# at 0606 with the account's own group as the device's, and at 0660, 0604
# and 0600, the child is refused and the opener opens it. Either way the
# program runs.
test_root_forks_the_opener_only_where_the_device_is_open_to_all() {
	g=$(id -g "$OTO_TEST_USER" 2>/dev/null || echo "$OTO_TEST_USER")
	for m in "0666| is open to all (mode 0666): no TUN opener" \
		"0606|" \
		"0606:$g|: Permission denied; the opener (root) opens it here" \
		"0660|: Permission denied; the opener (root) opens it here" \
		"0604|: Permission denied; the opener (root) opens it here" \
		"0600|: Permission denied; the opener (root) opens it here"; do
		mode=${m%%|*}
		run tun_at "$mode" "$OTO_BIN/otonet" -v $AS $PUB -- echo ran
		assertEquals "mode $mode: $(cat "$T/err")" 0 "$rc"
		assertEquals "mode $mode" ran "$(cat "$T/out")"
		want="otonet: debug: /dev/net/tun${m#*|}"
		[ -n "${m#*|}" ] || want=
		assertEquals "mode $mode" "$want" "$(grep -E '^otonet: debug: /dev/net/tun[ :]' "$T/err")"
	done
}

# Behind otonet alone the agent is in the user namespace that owns its
# network namespace, with every capability set empty; behind otons, in a
# nested one that owns nothing of it. Either way tun0 is out of its reach.
test_root_at_0600_the_agent_holds_no_capability_over_its_network() {
	# NS_GET_USERNS: the user namespace owning the network namespace, or
	# EPERM when that one is an ancestor of the caller's.
	owner='import fcntl, os
ns = os.open("/proc/self/ns/net", os.O_RDONLY)
try:
    owner = fcntl.ioctl(ns, 0xb701)
    print("netns owner is mine:", os.fstat(owner).st_ino == os.stat("/proc/self/ns/user").st_ino)
except PermissionError:
    print("netns owner is an ancestor of mine")'
	run tun_at 0600 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status; $PY -c '$owner'
		exec ip link set tun0 down"
	assertEquals 2 "$rc"
	assertEquals "CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapAmb:	0000000000000000
netns owner is mine: True" "$(cat "$T/out")"
	assertEquals "RTNETLINK answers: Operation not permitted" "$(agent_err)"
	run tun_at 0600 "$OTO_BIN/otonet" $AS $PUB -- "$OTO_BIN/otons" --share net -- sh -c "
		$PY -c '$owner'; exec ip link set tun0 down"
	assertEquals 2 "$rc"
	assertEquals "netns owner is an ancestor of mine" "$(cat "$T/out")"
	assertEquals "RTNETLINK answers: Operation not permitted" "$(agent_err)"
}

test_root_at_0600_the_relay_is_unprivileged_and_alone() {
	tun_exec 0600 "$OTO_BIN/otonet" $AS $PUB -- sh -c "echo up >$T/up; sleep 2" 2>/dev/null &
	relay=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	locked_down "$relay"
	st=$(cat /proc/$relay/status)
	assertEquals "Uid:	65534	65534	65534	65534" "$(echo "$st" | grep '^Uid:')"
	assertEquals "Gid:	65534	65534	65534	65534" "$(echo "$st" | grep '^Gid:')"
	assertEquals "CapEff:	0000000000000000" "$(echo "$st" | grep '^CapEff:')"
	assertEquals "Seccomp:	2" "$(echo "$st" | grep '^Seccomp:')"
	# Its own user namespace, not the host's; the fake host's network.
	assertNotEquals "$(readlink /proc/self/ns/user)" "$(readlink /proc/$relay/ns/user)"
	assertEquals "$(in_host readlink /proc/self/ns/net)" "$(readlink /proc/$relay/ns/net)"
	# The opener, root, is gone: the relay's one child is the agent, --as; no
	# other process.
	kids=$(cat /proc/$relay/task/$relay/children)
	kids=$(echo $kids)
	assertEquals "the relay's children: $kids" 1 "$(echo $kids | wc -w)"
	assertEquals "the agent" "sh" "$(cat /proc/$kids/comm)"
	assertEquals "Uid:	65534	65534	65534	65534" "$(grep '^Uid:' /proc/$kids/status)"
	wait $relay
	assertEquals 0 $?
}

test_root_at_0600_fails_closed_when_the_relay_dies() {
	tun_exec 0600 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		( sleep 1; $(failclosed_probe) ) &
		echo \$\$ >$T/agent; $NT connect 203.0.113.10 9002 >$T/before; sleep 30" 2>/dev/null &
	relay=$!
	n=0
	while [ ! -s "$T/before" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "ok" "$(cut -d' ' -f1 "$T/before")"
	kill -KILL "$relay"
	wait "$relay" 2>/dev/null
	assertFailedClosed
}

test_unprivileged_keeps_its_way_at_0600_and_0666() {
	run tun_at 0600 $NOBODY "$OTO_BIN/otonet" -- true
	assertEquals 111 "$rc"
	# The device's real owner (root), stat'ed before the user namespace hid it.
	assertEquals "otonet: fatal: unable to open /dev/net/tun (mode 0600, owner 0); the fix: chmod 0666 /dev/net/tun (the Debian default), or map it into the container: Permission denied" \
		"$(cat "$T/err")"
	run tun_at 0666 $NOBODY "$OTO_BIN/otonet" $PUB -- $NT connect 203.0.113.10 9002
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "ok" "$(cut -d' ' -f1 "$T/out")"
}

# The relay's filter and the child's sandbox are built at once; when both
# fail, the relay's line is the one said (the child waits for the filter's
# word before it speaks), and the program never runs.
test_a_filter_and_a_sandbox_that_both_fail_say_one_line() {
	run tun_at none "$OTO_BIN/otonet" $AS --allow tcp:no-such-host.invalid:80 -- touch "$T/ran"
	assertEquals 101 "$rc"
	assertOneLine otonet
	assertEquals "otonet: fatal: --allow tcp:no-such-host.invalid:80: unable to resolve no-such-host.invalid: RESOLVER (names are resolved at start: add no-such-host.invalid to /etc/hosts, or write its address in place of the name)" \
		"$(sed 's/\(resolve no-such-host\.invalid\): [^(]* (/\1: RESOLVER (/' "$T/err")"
	assertFalse "the program ran" "[ -e '$T/ran' ]"
}

test_root_without_the_device_is_one_clear_line() {
	run tun_at none "$OTO_BIN/otonet" $AS -- true
	assertEquals 111 "$rc"
	assertEquals "otonet: fatal: unable to open /dev/net/tun; the fix: mknod /dev/net/tun c 10 200 and chmod 0666 it, or map it into the container: No such file or directory" \
		"$(cat "$T/err")"
}

# tests/net/topo.sh gives the machine's /dev/net/tun the stock mode 0666
# while a topology is up, and its topo_down restores the saved mode once no
# other topology needs the device. The namespaces a killed run left behind
# (no process in them) are no such topology: beside them a topology's
# down restores 0600; beside a live one (a process in its fake internet)
# the device stays 0666 for it. Played with a device node, a /run and so
# namespace names and a saved mode of the test's own, never the machine's.
test_a_killed_runs_namespaces_do_not_keep_the_device_open() {
	mkdir -p "$T/tundev"
	run env -u OTO_TUN_PRIVATE unshare -m --propagation private sh -c '
		d=$1 topo=$2 id=$3
		mount -t tmpfs -o size=4k,mode=0755 oto-tun "$d" &&
			mknod -m 0600 "$d/tun" c 10 200 && mount --bind "$d/tun" /dev/net/tun &&
			mount -t tmpfs -o size=64k,mode=0755 oto-run /run || exit 2
		ip netns add "oto-host-stale-$id" && ip netns add "oto-inet-stale-$id" || exit 2
		TOPO_ID=nested-$id TOPO_DIR=/tmp/oto-topo-nested-$id
		. "$topo"
		topo_up >/dev/null 2>&1 || { topo_down; exit 3; }
		up=$(stat -c %a /dev/net/tun)
		topo_down
		down=$(stat -c %a /dev/net/tun)
		ip netns add "oto-inet-live-$id" || exit 2
		ip netns exec "oto-inet-live-$id" sleep 60 &
		live=$!
		while [ -z "$(ip netns pids "oto-inet-live-$id")" ]; do sleep 0.05; done
		topo_up >/dev/null 2>&1 || { topo_down; kill $live; exit 3; }
		topo_down
		beside=$(stat -c %a /dev/net/tun)
		kill $live
		wait $live
		for n in host-stale inet-stale inet-live; do ip netns del "oto-$n-$id"; done
		echo "$up $down $beside"' sh "$T/tundev" "$OTO_TESTS/net/topo.sh" "$$"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "666 600 666" "$(cat "$T/out")"
}

. shunit2
