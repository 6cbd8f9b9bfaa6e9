#!/bin/sh
# otonet's bounds and lockdown, in the topology of tests/net/topo.sh:
# the buffered path for kernels without SO_PEEK_OFF, the relay's own
# namespaces, capabilities and seccomp allowlist, and the resource bounds
# under a flood of connections and datagrams. Needs root for ip netns.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

FLOOD="$PY $(dirname "$NETTOOL")/flood.py"
# The relay's peak resident memory (VmHWM) under every flood below, measured
# at about 1.2 MiB here. What it can hold: its packet buffers (of the 4 MiB
# batch, only the agent's TCP data goes past the first 64 KiB, and these
# floods carry none), the flow table (4096 slots of about 250 bytes: 1 MiB
# when all are touched) and its hash heads, the static binary and libc's
# heap: under 3 MiB. 8 MiB leaves room for the allocator, yet catches any
# growth per packet or per refused flow (100,000 refusals at 70 bytes each
# would pass it).
HWM_CEIL_KB=8192

suite_setUp() {
	[ -n "$IS_ROOT" ] || skip "needs root (ip netns)"
	return 0
}

# ---- without SO_PEEK_OFF: the bounded per-flow buffer -----------------------------

test_no_peek_off_bulk_sha256() {
	run in_host env OTO_TEST_NO_PEEK_OFF=1 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		$NT down 203.0.113.10 52428800; $NT up 203.0.113.10 20971520;
		$NT down 2001:db8:1::10 20971520"
	assertEquals "$(cat "$T/err")" "ok
ok
ok" "$(cat "$T/out")"
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/err")" "OTO_TEST_NO_PEEK_OFF=1: the relay's buffered path, as without SO_PEEK_OFF (for tests only)"
}

# 400 downloads left unread: without a bound on all buffers together they
# would hold 400 x 256 KiB = 100 MiB in the relay; with it, 64 MiB at most
# (256 buffers), the flows past it waiting for a buffer, and every byte still
# arrives. Ceiling: the 64 MiB plus the 8 MiB of HWM_CEIL_KB.
test_no_peek_off_buffers_are_bounded_in_total() {
	FLOOD_ENV=OTO_TEST_NO_PEEK_OFF=1 flood_run -- "$FLOOD downs 203.0.113.10 400 1048576 10 >$T/flood" ""
	assertEquals "$(cat "$T/rerr")" 0 "$rc"
	assertEquals "ok 400" "$(cat "$T/flood")"
	assertMemBelow "relay VmHWM" "$hwm" $((65536 + HWM_CEIL_KB))
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
	[ -n "$IS_ROOT" ] || return 0
	ip netns exec "$NH" "$@" 2>"$T/rerr" &
	relay=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	locked_down "$relay"
}

test_relay_has_no_capabilities_and_an_empty_root() {
	relay_start "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		$NT ping 203.0.113.10 >$T/ping; $NT down 203.0.113.10 3000000 >$T/down;
		echo up >$T/up; n=0
		while [ ! -e $T/go ] && [ \$n -lt 600 ]; do sleep 0.05; n=\$((n + 1)); done"
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
	: >"$T/go"
	wait $relay
	assertEquals "$(cat "$T/rerr")" 0 $?
}

test_a_call_outside_the_allowlist_kills_the_relay_and_the_network() {
	relay_start env OTO_TEST_RELAY_BADCALL=1 "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		( trap '' USR2; while [ ! -e $T/go ]; do sleep 0.05; done; sleep 0.5
		  $(failclosed_probe) ) &
		echo \$\$ >$T/agent; $NT connect 203.0.113.10 9002 >$T/before; echo up >$T/up; sleep 30"
	assertEquals "ok" "$(cut -d' ' -f1 "$T/before")"
	kill -USR2 "$relay"
	wait "$relay"
	rc=$?
	: >"$T/go"
	# SIGSYS: seccomp killed it (128 + 31).
	assertEquals "$(cat "$T/rerr")" 159 "$rc"
	assertContains "$(cat "$T/rerr")" "OTO_TEST_RELAY_BADCALL=1: SIGUSR2 makes the relay call outside its seccomp filter (for tests only)"
	assertFailedClosed
}

# The relay that cannot set itself up says which step failed, and exits 111:
# here its flow table of --max-flows 65536 slots (about 16 MiB) does not fit
# under an address-space limit of 12 MiB, which the rest of otonet, the
# sandbox's setup and the agent live with. Not under ASan, whose shadow
# memory needs far more address space than that.
test_relay_unable_to_allocate_its_table_says_so() {
	if [ -n "${OTO_SAN:-}" ]; then
		skip "ASan needs more address space than ulimit -v leaves"
		return 0
	fi
	run in_host sh -c "ulimit -v 12288; exec \"\$0\" \"\$@\"" "$OTO_BIN/otonet" $AS $PUB \
		--max-flows 65536 -- true
	assertEquals "$(cat "$T/err")" 111 "$rc"
	line=$(grep '^otonet: fatal: ' "$T/err")
	# The message up to strerror's text (musl and glibc word ENOMEM differently).
	assertEquals "otonet: fatal: relay: unable to allocate the flow table" "${line%: *}"
	assertEquals "the one fatal line" 1 "$(grep -c 'fatal' "$T/err")"
}

# ---- the bounds ------------------------------------------------------------------

# flood_run OTONET-OPTIONS -- AGENT-SHELL-TEXT: the relay in the background; the
# agent writes $T/up when its flood is done and waits for $T/go, so that the
# test reads the relay's peak memory then. $hwm: VmHWM in kB.
flood_run() {
	[ -n "$IS_ROOT" ] || return 0
	rm -f "$T/up" "$T/go"
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	ip netns exec "$NH" env $FLOOD_ENV "$OTO_BIN/otonet" $AS $PUB $opts -- sh -c "$1; echo up >$T/up
		n=0; while [ ! -e $T/go ] && [ \$n -lt 600 ]; do sleep 0.05; n=\$((n + 1)); done
		$2" 2>"$T/rerr" 3>"$T/log" &
	relay=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 3000 ]; do sleep 0.05; n=$((n + 1)); done
	hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$relay/status)
	echo "relay VmHWM: $hwm kB" >&2
	: >"$T/go"
	wait $relay
	rc=$?
	FLOOD_ENV=
}

# Sequential connections kept open: exactly --max-flows of them get through
# (one of them the paused download), every later one is refused.
test_100000_connections_held_refused_past_max_flows() {
	flood_run --max-flows 1000 -- \
		"$FLOOD hold 203.0.113.10 9002 100000 120 4000000 >$T/flood" \
		"sleep 1; $NT down 203.0.113.10 3000000 >$T/after"
	assertEquals "$(cat "$T/rerr")" 0 "$rc"
	assertEquals "tried 100000 ok 999 refused 99001 other 0 download ok" "$(cat "$T/flood")"
	assertEquals "ok" "$(cat "$T/after")"
	assertContains "$(cat "$T/rerr")" "otonet: warning: relay: --max-flows 1000 reached: refusing a new flow"
	assertMemBelow "relay VmHWM" "$hwm" $HWM_CEIL_KB
}

# As fast as they go, each closed at once, 64 at a time: the half-open bound
# refuses some; every attempt ends as established or refused.
test_100000_connections_churned_within_bounds() {
	# The agent resets each connection, so its own ports never wait; the
	# relay's side then closes first: its ports in TIME_WAIT must not run out.
	ip netns exec "$NH" sysctl -qw net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range="1024 65000"
	flood_run --max-half-open 16 -- \
		"$FLOOD churn 203.0.113.10 9002 100000 120 64 >$T/flood" \
		"$NT down 203.0.113.10 3000000 >$T/after"
	assertEquals "$(cat "$T/rerr")" 0 "$rc"
	echo "churn: $(cat "$T/flood")" >&2
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(cat "$T/flood")
	assertEquals "$(cat "$T/flood")" "done 100000 other 0" "$1 $2 $7 $8"
	assertTrue "some established: $*" "[ $4 -gt 0 ]"
	assertTrue "some refused: $*" "[ $6 -gt 0 ]"
	assertContains "$(cat "$T/rerr")" "otonet: warning: relay: --max-half-open 16 reached: refusing a new flow"
	assertEquals "ok" "$(cat "$T/after")"
	assertMemBelow "relay VmHWM" "$hwm" $HWM_CEIL_KB
}

# SYNs to an address that never answers: exactly --max-half-open stay pending,
# and while they do a new connection is refused.
test_half_open_bound_is_exact() {
	ip -n "$NH" neigh replace 203.0.113.99 lladdr 02:00:00:00:00:99 dev hi0 nud permanent
	flood_run --max-half-open 50 -- \
		"$FLOOD halfopen 203.0.113.99 80 80 1 >$T/flood; $NT connect 203.0.113.10 9002 >$T/full" ""
	assertEquals "$(cat "$T/rerr")" 0 "$rc"
	assertEquals "pending 50 refused 30 other 0" "$(cat "$T/flood")"
	assertEquals "ECONNREFUSED" "$(cut -d' ' -f1 "$T/full")"
}

# ---- the record is bounded -----------------------------------------------------

# A flood of one kind from inside, 2000 refused connects to one LAN address
# and 2000 questions for one name: the record keeps the first ten of each
# kind and then the 100th and the 1000th, each past the first with its count
# (12 lines each, where there were 2000).
test_record_thins_a_flood_of_one_kind() {
	run onet $PUB --log-fd 3 -- sh -c "$NT flood connect 2000 10.1.0.10 9; $NT flood dns 2000 example.test" 3>"$T/log"
	assertEquals "$(cat "$T/err")" "flood 2000
flood 2000" "$(cat "$T/out")"
	net=$(grep '"source":"net",.*"dst":"10.1.0.10","port":9,"verdict":"deny","rule":"special:10.0.0.0/8"' "$T/log")
	assertEquals "net lines: $net" 12 "$(echo "$net" | wc -l)"
	assertEquals "net counts" "- 2 3 4 5 6 7 8 9 10 100 1000" \
		"$(echo "$net" | sed -n 's/.*"count":\([0-9]*\)}$/\1/p;t;s/.*/-/p' | tr '\n' ' ' | sed 's/ $//')"
	dns=$(grep '"source":"dns",.*"name":"example.test","type":"A","outcome":"answered","rule":"dns"' "$T/log")
	assertEquals "dns lines" 12 "$(echo "$dns" | wc -l)"
	assertEquals "dns counts" "- 2 3 4 5 6 7 8 9 10 100 1000" \
		"$(echo "$dns" | sed -n 's/.*"count":\([0-9]*\)}$/\1/p;t;s/.*/-/p' | tr '\n' ' ' | sed 's/ $//')"
	assertLanUntouched
}

# A record budget of 4 KiB and 200 refused connects, each a kind of its own
# (one port each): the relay's lines stop within the budget, one line says
# it is spent, and the relay's last line counts what it wrote and did not
# (together, every decision); the session's close line still ends the record.
test_record_budget_spent_says_so_and_counts() {
	run onet $PUB --log-fd 3 --log-budget 4K -- $NT spread 200 10.1.0.10 20000 3>"$T/log"
	assertEquals "$(cat "$T/err")" "spread 200" "$(cat "$T/out")"
	assertEquals 0 "$rc"
	bytes=$(grep '"source":"net"' "$T/log" | grep -v '"verdict":"budget"' | wc -c)
	assertTrue "net lines within the budget: $bytes" "[ $bytes -le 4096 ] && [ $bytes -gt 3000 ]"
	written=$(grep -c '"source":"net",.*"verdict":"deny"' "$T/log")
	assertEquals 1 "$(grep -c '"verdict":"budget","rule":"budget-spent","budget":4096,' "$T/log")"
	assertEquals "the last net line" \
		"\"verdict\":\"budget\",\"rule\":\"budget-end\",\"budget\":4096,\"written\":$written,\"unwritten\":$((200 - written))}" \
		"$(grep '"source":"net"' "$T/log" | tail -n1 | sed 's/.*,"verdict"/"verdict"/')"
	assertContains "$(tail -n1 "$T/log")" '"source":"session",'
	assertContains "$(tail -n1 "$T/log")" '"verdict":"close"'
	run onet --log-budget 1K -- true
	assertEquals 100 "$rc"
	assertEquals "otonet: fatal: --log-budget 1K: expected 4K to 1T bytes" "$(head -n1 "$T/err")"
}

# One datagram to each of 50,000 ports: exactly --max-udp-flows flows (one of
# them the echo flow kept alive), the rest refused and logged; the echo flow
# keeps working; after --udp-idle the table is free again.
test_udp_flood_50000_ports() {
	flood_run --max-udp-flows 1000 --udp-idle 15 --log-fd 3 -- \
		"$FLOOD udp 203.0.113.10 50000 10000 >$T/flood; $NT udp 203.0.113.10 9005 >$T/full" \
		"sleep 16; $NT udp 203.0.113.10 9005 >$T/after"
	assertEquals "$(cat "$T/rerr")" 0 "$rc"
	assertEquals "sent 50000 prohibited 49001 keeper ok ok" "$(cat "$T/flood")"
	# 1000 during the flood, 1 after the idle timeout.
	assertEquals "1001" "$(grep -c '"proto":"udp".*"verdict":"allow"' "$T/log")"
	assertEquals "49002" "$(grep -c '"verdict":"deny","rule":"max-udp-flows"' "$T/log")"
	assertEquals "EHOSTUNREACH" "$(cut -d' ' -f1 "$T/full")"
	assertEquals "ok" "$(cut -d' ' -f1 "$T/after")"
	assertContains "$(cat "$T/rerr")" "otonet: warning: relay: --max-udp-flows 1000 reached: refusing a new flow"
	assertMemBelow "relay VmHWM" "$hwm" $HWM_CEIL_KB
}

# An established flow idle past --tcp-idle is reset both ways; within it, not.
test_tcp_idle_timeout() {
	run onet $PUB --tcp-idle 2 -- $FLOOD idle 203.0.113.10 9002 3.5
	assertEquals "$(cat "$T/err")" "ECONNRESET" "$(cat "$T/out")"
	[ -d "$TOPO_DIR" ] && : >"$TOPO_DIR/watch"
	run onet $PUB --tcp-idle 2 -- $FLOOD idle 203.0.113.10 9004 3.5
	assertEquals "rst" "$(cat "$TOPO_DIR/watch")"
	run onet $PUB --tcp-idle 10 -- $FLOOD idle 203.0.113.10 9002 3.5
	assertEquals "ok" "$(cat "$T/out")"
}

test_bound_options_usage() {
	for bad in "--max-half-open 0" "--max-half-open 65537" "--max-udp-flows x" \
		"--max-udp-flows 0" "--tcp-idle 0" "--tcp-idle 604801" "--udp-idle -1" "--udp-idle"; do
		run onet $bad -- true
		assertEquals "$bad" 100 "$rc"
		assertOneLine otonet
	done
	run "$OTO_BIN/otonet" --help
	for o in "--max-half-open N" "--max-udp-flows N" "--tcp-idle SECONDS" "--udp-idle SECONDS"; do
		assertContains "$(cat "$T/out")" "$o"
	done
}

. shunit2
