#!/bin/sh
# otonet in its own topology of network namespaces (tests/net/topo.sh): a fake
# host where otonet runs, a fake internet (203.0.113.0/24, 2001:db8:1::/64,
# declared with --public), a fake office LAN on private addresses that records
# every contact, and its DNS server as the host's resolver. Nothing leaves
# these namespaces. Needs root for ip netns; the relay itself runs as --as.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

BIG=${OTO_NET_BULK:-104857600} # 100 MiB each way

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen" && rm -f "$TOPO_DIR/watch" "$TOPO_DIR/hc"
}
# agent CMD ARGS: one nettool client inside a default sandbox; its line in $T/out.
agent() { run onet $PUB -- $NT "$@"; }

# ---- TCP through the relay --------------------------------------------------

test_tcp_bulk_upload_and_download_sha256() {
	agent up 203.0.113.10 "$BIG"
	assertEquals "upload $BIG bytes: $(cat "$T/err")" "ok" "$(cat "$T/out")"
	agent down 203.0.113.10 "$BIG"
	assertEquals "download $BIG bytes: $(cat "$T/err")" "ok" "$(cat "$T/out")"
	assertEquals 0 "$rc"
}

test_tcp_200_concurrent_connections() {
	agent many 203.0.113.10 200 200000
	assertEquals "$(cat "$T/err")" "ok 200" "$(cat "$T/out")"
}

test_tcp_half_close_both_ways() {
	agent halfclose 203.0.113.10
	assertEquals "ok" "$(cat "$T/out")"
	# The server, after its own FIN, still received what the agent sent.
	assertEquals "after" "$(cat "$TOPO_DIR/hc")"
}

test_tcp_remote_rst_reaches_the_agent() {
	agent rst 203.0.113.10
	assertEquals "ECONNRESET" "$(cat "$T/out")"
}

test_tcp_closed_port_is_refused_promptly() {
	agent connect 203.0.113.10 9999
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(cat "$T/out")
	assertEquals "ECONNREFUSED" "$1"
	assertTrue "refused in $2 ms" "[ $2 -lt 200 ]"
}

test_tcp_agent_rst_resets_the_remote_side() {
	agent agent-rst 203.0.113.10
	assertEquals ok "$(cat "$T/out")"
	n=0
	while [ ! -s "$TOPO_DIR/watch" ] && [ $n -lt 40 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "rst" "$(cat "$TOPO_DIR/watch")"
}

test_tcp_ipv6_bulk_and_refused() {
	agent up 2001:db8:1::10 20000000
	assertEquals "ok" "$(cat "$T/out")"
	agent down 2001:db8:1::10 20000000
	assertEquals "ok" "$(cat "$T/out")"
	agent connect 2001:db8:1::10 9999
	assertEquals "ECONNREFUSED" "$(cut -d' ' -f1 "$T/out")"
}

# ---- UDP, DNS, echo ---------------------------------------------------------

test_udp_echo_v4_v6() {
	agent udp 203.0.113.10 9005 hello4
	assertEquals "ok hello4" "$(cat "$T/out")"
	agent udp 2001:db8:1::10 9005 hello6
	assertEquals "ok hello6" "$(cat "$T/out")"
}

# A datagram to a closed port: the host's port unreachable comes back to the
# agent as the relay's own, quoting the start of the agent's datagram.
test_udp_closed_port_is_refused() {
	agent udp 203.0.113.10 9999
	assertEquals "ECONNREFUSED" "$(cat "$T/out")"
	agent udp 2001:db8:1::10 9999
	assertEquals "ECONNREFUSED" "$(cat "$T/out")"
}

# --busy-poll: after traffic the relay polls for a while instead of sleeping,
# so that a round trip whose next packet comes within the poll costs it no
# sleep. Counted by the relay's voluntary context switches (its
# /proc/PID/status, read by the agent: the relay is its parent) over 2,000 UDP
# round trips: with --busy-poll 0 the relay sleeps up to twice in each
# (waiting for the reply, then for the next request; 3,200 to 3,600 times
# here on a quiet machine, down to 1,700 when both cores are busy and the
# reply sometimes comes before the relay goes back to sleep); with a poll of
# 1 ms, many times a round trip here, in fewer than one in four (1 to 7 times
# here): at least 4 times fewer than without, and under 500.
test_busy_poll_spares_the_relay_its_sleeps() {
	for us in 0 1000; do
		run onet $PUB --busy-poll $us -- sh -c "
			v() { awk '/^voluntary_ctxt_switches/ {print \$2}' /proc/\$PPID/status; }
			a=\$(v); $NT urounds 203.0.113.10 9005 2000; echo \$((\$(v) - a))"
		assertEquals "--busy-poll $us: $(cat "$T/err")" "ok 2000" "$(head -1 "$T/out")"
		eval "sleeps_$us=$(tail -1 "$T/out")"
	done
	echo "relay sleeps in 2000 round trips: --busy-poll 0: $sleeps_0, 1000: $sleeps_1000" >&2
	assertTrue "--busy-poll 0: $sleeps_0 sleeps" "[ $sleeps_0 -ge 1000 ]"
	assertTrue "--busy-poll 1000: $sleeps_1000 sleeps, 4 times fewer than $sleeps_0" \
		"[ $sleeps_1000 -lt 500 ] && [ $((sleeps_1000 * 4)) -lt $sleeps_0 ]"
}

test_dns_over_udp_and_tcp_v4_v6() {
	run onet $PUB -- sh -c "cat /etc/resolv.conf; for p in udp tcp; do
		$NT dns example.test \$p 10.0.2.3 A; $NT dns example.test \$p fd00::3 AAAA; done"
	assertEquals 0 "$rc"
	assertEquals "$(printf '# otonet: the relay forwards this to the host'"'"'s resolver\nnameserver 10.0.2.3\nnameserver fd00::3\nok 203.0.113.10\nok 2001:db8:1::10\nok 203.0.113.10\nok 2001:db8:1::10')" \
		"$(cat "$T/out")"
	# The host's /etc/resolv.conf (the LAN resolver) is untouched outside.
	assertEquals "nameserver $LAN4" "$(in_host cat /etc/resolv.conf)"
}

test_resolv_conf_symlink_is_covered_not_followed() {
	# A host whose /etc/resolv.conf is a symlink (systemd-resolved's stub), then
	# a dangling one: the sandbox sees otonet's file either way, and the
	# target on the host is not written to.
	mkdir -p "$T/run"
	cp -a /etc/. "$T/etc" 2>/dev/null
	echo "nameserver $LAN4" >"$T/run/stub.conf"
	rm -f "$T/etc/resolv.conf"
	ln -s "$T/run/stub.conf" "$T/etc/resolv.conf"
	inside="cat /etc/resolv.conf | grep -c 10.0.2.3; $NT dns example.test udp"
	run in_host unshare -m sh -c "mount --bind $T/etc /etc && $OTO_BIN/otonet $AS $PUB -- sh -c '$inside'"
	assertEquals "$(cat "$T/err")" "1
ok 203.0.113.10" "$(cat "$T/out")"
	assertEquals "nameserver $LAN4" "$(cat "$T/run/stub.conf")"
	rm "$T/etc/resolv.conf"
	ln -s /nonexistent/stub.conf "$T/etc/resolv.conf"
	run in_host unshare -m sh -c "mount --bind $T/etc /etc && $OTO_BIN/otonet $AS $PUB --dns $LAN4 -- sh -c '$inside'"
	assertEquals "$(cat "$T/err")" "1
ok 203.0.113.10" "$(cat "$T/out")"
	assertFalse "the dangling target was not created" "[ -e /nonexistent/stub.conf ]"
}

# The host's resolv.conf is read to its end: a nameserver after 10 KiB of
# comments (more than one read of 4 KiB once took) is the one DNS goes to.
test_resolv_conf_read_to_its_end() {
	cp -a /etc/. "$T/etc" 2>/dev/null
	rm -f "$T/etc/resolv.conf"
	head -c 10240 /dev/zero | tr '\0' '#' >"$T/etc/resolv.conf"
	printf '\nnameserver %s\n' "$LAN4" >>"$T/etc/resolv.conf"
	run in_host unshare -m sh -c "mount --bind $T/etc /etc && $OTO_BIN/otonet $AS $PUB -- $NT dns example.test udp"
	assertNotContains "$(cat "$T/err")" "DNS is refused"
	assertEquals "$(cat "$T/err")" "ok 203.0.113.10" "$(cat "$T/out")"
}

test_dns_to_a_loopback_resolver_on_the_host() {
	# A resolver on the host's loopback (as systemd-resolved's 127.0.0.53).
	ip netns exec "$NH" dnsmasq --keep-in-foreground --no-resolv --no-hosts \
		--listen-address=127.0.0.53 --bind-interfaces --user=root --pid-file= \
		--address=/loop.test/203.0.113.77 >/dev/null 2>&1 &
	dns=$!
	sleep 0.3
	run onet $PUB --dns 127.0.0.53 -- sh -c "$NT dns loop.test udp; $NT dns loop.test tcp;
		$NT connect 127.0.0.53 53"
	kill $dns
	wait $dns 2>/dev/null
	# DNS reaches it; a direct connection to it stays inside the sandbox.
	assertEquals "ok 203.0.113.77
ok 203.0.113.77
ECONNREFUSED" "$(cut -d' ' -f1,2 "$T/out" | sed 's/^ECONNREFUSED .*/ECONNREFUSED/')"
}

test_dns_follows_dns_option() {
	run onet $PUB --dns $LAN4 -- $NT dns example.test tcp
	assertEquals "ok 203.0.113.10" "$(cat "$T/out")"
	# --dns names another resolver: here a host with nothing on port 53.
	run onet $PUB --dns 203.0.113.10 -- $NT dns example.test udp
	assertEquals "ECONNREFUSED" "$(cat "$T/out")"
	run onet $PUB --dns 203.0.113.10 -- $NT dns example.test tcp
	assertEquals "ECONNREFUSED" "$(cat "$T/out")"
}

test_icmp_echo_v4_v6() {
	agent ping 203.0.113.10
	assertEquals "ok" "$(cat "$T/out")"
	agent ping 2001:db8:1::10
	assertEquals "ok" "$(cat "$T/out")"
	# Echo to a private address: refused by the relay (ICMP prohibited).
	agent ping 10.1.0.10
	assertEquals "EHOSTUNREACH" "$(cat "$T/out")"
}

# ---- the filter ---------------------------------------------------------------

# ADDRESS  TCP(kernel layer)  UDP(kernel layer)  TCP(relay alone)  UDP(relay alone)
# Loopback and "this host" never leave the sandbox (its own lo refuses); the
# sandbox's own subnet (10.0.2.x, fd00::x, fe80::%tun0) reaches only the relay.
SPECIAL_TABLE='10.0.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
172.16.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
192.168.1.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
127.0.0.1 ECONNREFUSED ECONNREFUSED ECONNREFUSED ECONNREFUSED
169.254.169.254 EACCES EACCES ECONNREFUSED EHOSTUNREACH
100.64.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
0.0.0.0 ECONNREFUSED ECONNREFUSED ECONNREFUSED ECONNREFUSED
224.0.0.1 EACCES EACCES ENETUNREACH EHOSTUNREACH
255.255.255.255 EACCES EACCES ENETUNREACH EACCES
198.18.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
192.0.0.192 EACCES EACCES ECONNREFUSED EHOSTUNREACH
198.51.100.7 EACCES EACCES ECONNREFUSED EHOSTUNREACH
192.0.2.7 EACCES EACCES ECONNREFUSED EHOSTUNREACH
240.0.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
::1 ECONNREFUSED ECONNREFUSED ECONNREFUSED ECONNREFUSED
fd00::1 ECONNREFUSED EACCES ECONNREFUSED EACCES
fe80::1%tun0 ECONNREFUSED EACCES ECONNREFUSED EACCES
::ffff:10.0.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
::ffff:169.254.169.254 EACCES EACCES ECONNREFUSED EHOSTUNREACH
64:ff9b::a9fe:a9fe EACCES EACCES ECONNREFUSED EACCES
64:ff9b:1::a01:1 EACCES EACCES ECONNREFUSED EACCES
2002:a9fe:a9fe::1 EACCES EACCES ECONNREFUSED EACCES
2001::a9fe:a9fe EACCES EACCES ECONNREFUSED EACCES
fec0::1 EACCES EACCES ECONNREFUSED EACCES
100::1 EACCES EACCES ECONNREFUSED EACCES
2001:2::1 EACCES EACCES ECONNREFUSED EACCES
10.0.2.2 ECONNREFUSED EHOSTUNREACH ECONNREFUSED EHOSTUNREACH
fd00::2 ECONNREFUSED EACCES ECONNREFUSED EACCES
203.0.113.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
10.1.0.1 EACCES EACCES ECONNREFUSED EHOSTUNREACH
2001:db8:1::1 EACCES EACCES ECONNREFUSED EACCES
fd12:3456::1 EACCES EACCES ECONNREFUSED EACCES'

# probe_all COLUMN [OPTION]: every address of the table, TCP and UDP to port 80.
probe_all() {
	col=$1
	shift
	addrs=$(echo "$SPECIAL_TABLE" | awk '{print $1}' | tr '\n' ' ')
	run in_host "$OTO_BIN/otonet" $AS $PUB "$@" --log-fd 3 -- $NT probe 80 $addrs 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	# A here-document, not a pipe: the loop runs in this shell, where a
	# failed assertion counts (in a pipeline's subshell it was lost).
	while read -r a tk uk tr ur; do
		if [ "$col" = kernel ]; then et=$tk eu=$uk; else et=$tr eu=$ur; fi
		line=$(grep "^$a " "$T/out")
		set -- $line
		assertEquals "TCP to $a" "$et" "$2"
		assertTrue "TCP to $a failed in $3 ms" "[ ${3:-999} -lt 100 ]"
		assertEquals "UDP to $a" "$eu" "$4"
	done <<EOF
$SPECIAL_TABLE
EOF
	assertLanUntouched
}

test_special_ranges_refused_by_kernel_wall() {
	probe_all kernel --kernel-wall
	# Nothing reached the relay for the ranges the kernel walled.
	assertEquals "decisions: $(cat "$T/log")" 0 "$(grep -v '"source":"session"' "$T/log" | grep -vc '"dst":"\(10.0.2.[23]\|fd00::[12]\|fe80::1\)"')"
}

test_special_ranges_refused_by_the_relay_and_logged() {
	probe_all relay
	# Each refusal was the relay's, with the range named: every one on the
	# record. The 32 addresses, TCP and UDP, but for those that never leave
	# the sandbox (its own loopback: 127.0.0.1, 0.0.0.0, ::1) or that the
	# socket layer refuses (TCP to multicast, broadcast TCP and UDP): 55,
	# and the session's two lines.
	assertEquals "$(cat "$T/log")" 57 "$(wc -l <"$T/log")"
	# (A kind's second line, the same rule and destination again, has its count.)
	assertEquals 55 "$(grep -c '"source":"net",.*"port":80,"verdict":"deny","rule":"\(special:[0-9a-f:./]*\|host-address\)"\(,"count":[0-9]*\)\?}$' "$T/log")"
	assertTrue "$(cat "$T/log")" 'grep -q "\"dst\":\"169.254.169.254\",\"port\":80,\"verdict\":\"deny\",\"rule\":\"special:169.254.0.0/16\"" "$T/log"'
	assertTrue 'grep -q "\"dst\":\"203.0.113.1\",\"port\":80,\"verdict\":\"deny\",\"rule\":\"host-address\"" "$T/log"'
	assertTrue 'grep -q "\"dst\":\"64:ff9b::a9fe:a9fe\",\"port\":80,\"verdict\":\"deny\",\"rule\":\"special:64:ff9b::/96\"" "$T/log"'
	assertEquals "no allow at all" 0 "$(grep -c '"verdict":"allow"' "$T/log")"
}

test_exceptions_are_exact() {
	# The kernel layer routes the exception's host to the relay (a route has
	# no port), so there the relay's RST and ICMP answer the other ports.
	for nk in 0 1; do
		: >"$TOPO_DIR/lan.seen"
		wall=--kernel-wall
		[ $nk = 1 ] && wall=
		run in_host "$OTO_BIN/otonet" $AS $PUB $wall \
			--allow tcp:$LAN4:8086 -- sh -c "$NT connect $LAN4 8086; $NT connect $LAN4 8087;
			$NT udp $LAN4 8086; $NT connect 10.1.0.11 8086; $NT connect 192.168.1.1 8086"
		assertEquals "kernel layer off=$nk: the exception" "ok lan" "$(sed -n 1p "$T/out" | cut -d' ' -f1,2)"
		got=$(sed 1d "$T/out" | awk '{print $1}' | tr '\n' ' ')
		if [ $nk = 0 ]; then
			assertEquals "ECONNREFUSED EHOSTUNREACH EACCES EACCES " "$got"
		else
			assertEquals "ECONNREFUSED EHOSTUNREACH ECONNREFUSED ECONNREFUSED " "$got"
		fi
		assertEquals "only the exception reached the LAN" "tcp ::ffff:$LAN4 8086 from ::ffff:$HOST_LAN4" \
			"$(cat "$TOPO_DIR/lan.seen")"
	done
}

test_exception_ipv6() {
	run onet $PUB --allow "tcp:[$LAN6]:8086" -- sh -c "$NT connect $LAN6 8086; $NT connect $LAN6 8087;
		$NT connect fd12:3456::11 8086"
	assertEquals "ok lan
ECONNREFUSED
ECONNREFUSED" "$(cut -d' ' -f1,2 "$T/out" | sed 's/^\([A-Z]*\) [0-9]*$/\1/')"
	assertEquals "tcp $LAN6 8086 from $HOST_LAN6" "$(cat "$TOPO_DIR/lan.seen")"
}

test_exception_host_name_is_resolved_once_at_start() {
	hosts=/etc/netns/$NH/hosts
	cp "$hosts" "$T/hosts.orig"
	# lanbox is 10.1.0.10 when otonet starts; the agent then points it at
	# 192.168.1.1, which must stay refused: the exception was pinned.
	run onet $PUB --allow tcp:lanbox:80 -- sh -c "
		printf '127.0.0.1 localhost\n192.168.1.1 lanbox\n' > $T/hosts.new
		$NT connect $LAN4 80; $NT connect 192.168.1.1 80"
	in_host sh -c "cat '$T/hosts.new' > /etc/hosts" 2>/dev/null
	cat "$T/hosts.orig" >"$hosts"
	assertEquals "ok lan" "$(sed -n 1p "$T/out" | cut -d' ' -f1,2)"
	assertEquals "ECONNREFUSED" "$(sed -n 2p "$T/out" | cut -d' ' -f1)"
	# A name that does not resolve: the relay's one line, and the program
	# never ran (the child builds the sandbox while the relay builds the
	# filter, and goes on to the exec only once the filter stands).
	run onet --allow tcp:no-such-host.invalid:80 -- touch "$T/ran"
	assertEquals 101 "$rc"
	assertOneLine otonet
	# The resolver's own words differ between libcs; the fix ends the line.
	assertEquals "otonet: fatal: --allow tcp:no-such-host.invalid:80: unable to resolve no-such-host.invalid: RESOLVER (names are resolved at start: add no-such-host.invalid to /etc/hosts, or write its address in place of the name)" \
		"$(sed 's/\(resolve no-such-host\.invalid\): [^(]* (/\1: RESOLVER (/' "$T/err")"
	assertFalse "the program ran" "[ -e '$T/ran' ]"
}

# A resolver that answers the host itself, loopback, link-local or the
# metadata address for an --allow name does not open them: the relay refuses
# at start, in one line that names the fix, and the program never runs.
test_exception_name_never_pins_the_host_or_metadata() {
	hosts=/etc/netns/$NH/hosts
	cp "$hosts" "$T/hosts.orig"
	printf '127.0.0.1 localhost\n127.0.0.1 lo.test\n169.254.169.254 md.test\n%s self.test\nfe80::1 ll.test\n169.254.7.7 ll4.test\n' \
		"$HOST_LAN4" >"$hosts"
	for c in "lo.test 127.0.0.1 a loopback address" \
		"md.test 169.254.169.254 the cloud metadata address" \
		"self.test $HOST_LAN4 an address of the host itself" \
		"ll.test fe80::1 a link-local address" \
		"ll4.test 169.254.7.7 a link-local address"; do
		name=${c%% *}
		rest=${c#* }
		addr=${rest%% *}
		rm -f "$T/ran"
		run onet --allow "tcp:$name:443" -- touch "$T/ran"
		assertEquals "$name: exit" 101 "$rc"
		assertOneLine otonet
		assertEquals "otonet: fatal: --allow tcp:$name:443: $name resolves to $addr, ${rest#* }: write the address itself if it is meant" \
			"$(cat "$T/err")"
		assertFalse "$name: the program ran" "[ -e '$T/ran' ]"
	done
	# Written as an address, the operator means it: the relay starts.
	run onet --allow "tcp:$HOST_LAN4:443" -- true
	cat "$T/hosts.orig" >"$hosts"
	assertEquals "an address written out: $(cat "$T/err")" 0 "$rc"
}

test_no_public_only_exceptions_and_dns() {
	run onet $PUB --no-public --allow tcp:$LAN4:8086 -- sh -c "
		$NT connect $LAN4 8086; $NT connect 203.0.113.10 9002; $NT udp 203.0.113.10 9005;
		$NT dns example.test udp; $NT dns example.test tcp;
		$NT connect 10.0.2.3 80; $NT connect $LAN4 53; $NT connect $LAN4 22"
	assertEquals "$(cat "$T/err")" "ok lan
ECONNREFUSED
EHOSTUNREACH
ok 203.0.113.10
ok 203.0.113.10
ECONNREFUSED
ECONNREFUSED
ECONNREFUSED" "$(cut -d' ' -f1,2 "$T/out" | sed 's/ [0-9]*$//')"
	assertEquals "tcp ::ffff:$LAN4 8086 from ::ffff:$HOST_LAN4" "$(cat "$TOPO_DIR/lan.seen")"
}

test_log_fd_one_json_line_per_decision() {
	run onet $PUB --log-fd 3 --allow tcp:$LAN4:8086 -- sh -c "
		$NT connect 203.0.113.10 9002; $NT connect $LAN4 8086; $NT dns example.test udp;
		$NT udp 2001:db8:1::10 9005" 3>"$T/log"
	assertEquals 6 "$(wc -l <"$T/log")"
	"$PY" - "$T/log" >"$T/parsed" <<'PYEOF'
import datetime, json, re, sys, time
ids = set()
for line in open(sys.argv[1]):
    d = json.loads(line)
    ids.add(d["session"])
    t = datetime.datetime.strptime(d["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
    assert len(d["time"]) == 27 and abs(t - time.time()) < 300, d
    if d["source"] == "session":
        print("session", d["verdict"], d.get("stage", d.get("exit")))
        continue
    if d["source"] == "dns":
        assert set(d) == {"time", "source", "session", "verdict", "proto", "src", "name", "type",
                          "outcome", "rule", "records"}, d
        print("dns", d["proto"], d["src"], d["name"], d["type"], d["outcome"], d["verdict"], d["rule"])
        continue
    assert set(d) == {"time", "source", "session", "proto", "src", "dst", "port", "verdict", "rule"}, d
    assert d["source"] == "net" and isinstance(d["port"], int), d
    print(d["proto"], d["src"], d["dst"], d["port"], d["verdict"], d["rule"])
assert len(ids) == 1 and re.fullmatch("[0-9a-f]{32}", ids.pop()), ids
PYEOF
	assertEquals "session open otonet
tcp 10.0.2.100 203.0.113.10 9002 allow public
tcp 10.0.2.100 $LAN4 8086 allow exception
dns udp 10.0.2.100 example.test A answered allow dns
udp fd00::100 2001:db8:1::10 9005 allow public
session close 0" "$(cat "$T/parsed")"
}

test_max_flows_bounds_the_table() {
	run onet $PUB --max-flows 3 -- $NT hold 203.0.113.10 5
	assertEquals "ok ok ok ECONNREFUSED ECONNREFUSED" "$(cat "$T/out")"
	assertContains "$(cat "$T/err")" "--max-flows 3 reached"
}

# ---- fail closed, the chain, the inside ----------------------------------------

test_fail_closed_when_the_relay_dies() {
	# The agent leaves a grandchild behind, which tries the network after the
	# relay is gone; the agent itself must be killed with the relay.
	ip netns exec "$NH" "$OTO_BIN/otonet" $AS $PUB -- sh -c "
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

test_relay_is_unprivileged_and_locked_down() {
	ip netns exec "$NH" "$OTO_BIN/otonet" $AS $PUB -- sh -c "echo up >$T/up; sleep 2" 2>/dev/null &
	relay=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	locked_down "$relay"
	st=$(cat /proc/$relay/status)
	# The relay runs as the --as user, in the host's network namespace.
	assertEquals "Uid:	65534	65534	65534	65534" "$(echo "$st" | grep '^Uid:')"
	assertEquals "$(in_host readlink /proc/self/ns/net)" "$(readlink /proc/$relay/ns/net)"
	assertEquals "NoNewPrivs:	1" "$(echo "$st" | grep '^NoNewPrivs:')"
	assertEquals "Seccomp:	2" "$(echo "$st" | grep '^Seccomp:')"
	assertEquals "CapEff:	0000000000000000" "$(echo "$st" | grep '^CapEff:')"
	wait $relay
	assertEquals 0 $?
}

# pgrp_members PGID: the pids of the processes in that process group, the
# dying ones too (a zombie keeps its group until it is reaped). In a stat
# line, the name may hold spaces and parentheses: the last ") " ends it;
# state, ppid and pgrp follow.
pgrp_members() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		sed -n 's/^\([0-9]*\) (.*) [A-Za-z] [0-9]* \([0-9]*\) .*/\1 \2/p' |
		awk -v g="$1" '$2 == g { print $1 }'
}

# tun0's end (relay.c, xrelay_leave): once the agent is gone and nothing of it
# is left, tun0 is made persistent before the relay's last close, so that
# the end of the sandbox's network namespace removes it, not the exit
# otonet's caller waits for; and nothing of otonet's outlives otonet. The
# namespace is held here, from outside, to see the device after the relay.
test_a_clean_end_leaves_tun0_to_its_namespace_and_nothing_running() {
	ip netns exec "$NH" setsid "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		echo \$\$ >$T/agent; while [ ! -e $T/go ]; do sleep 0.05; done" 2>"$T/err" &
	relay=$!
	n=0
	while [ ! -s "$T/agent" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	exec 9<"/proc/$(cat "$T/agent")/ns/net"
	: >"$T/go"
	wait $relay
	assertEquals "$(cat "$T/err")" 0 $?
	assertEquals "otonet's process group after its exit" "" "$(pgrp_members $relay)"
	link=$(nsenter --net=/proc/self/fd/9 ip -d link show tun0 2>&1)
	exec 9<&-
	assertContains "$link" "tun0: <NO-CARRIER,POINTOPOINT,MULTICAST,NOARP,UP>"
	assertContains "$link" " persist on "
}

# What the agent leaves running comes to the relay (its subreaper), and keeps
# tun0 from being left: the relay's exit removes it, and what was left finds
# no network at once, as when the relay dies.
test_what_the_agent_leaves_running_finds_no_network() {
	ip netns exec "$NH" "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		( while [ ! -e $T/go ]; do sleep 0.05; done; $(failclosed_probe) ) &
		echo \$\$ >$T/agent" 2>"$T/err" &
	relay=$!
	wait $relay
	assertEquals "$(cat "$T/err")" 0 $?
	: >"$T/go"
	assertFailedClosed
}

# tun0 as the set-up leaves it (setup.c, nl.c): up, the relay's MTU, no
# qdisc (noqueue: the TUN drops what its ring cannot take, a qdisc would
# never hold a packet), and the long queue (the TUN's ring), set in a
# request before the one that brings the link up.
test_tun_link_is_up_with_its_mtu_and_queue() {
	run onet -- ip -o link show tun0
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "<POINTOPOINT,MULTICAST,NOARP,UP,LOWER_UP> mtu 65520 qdisc noqueue qlen 16384" \
		"$(sed 's/\\.*//' "$T/out" | awk '{ print $3, $4, $5, $6, $7, $(NF - 1), $NF }')"
}

# The routes through tun0 (setup.c): the defaults and otogate's address, each
# with the agent's first flight and window at 64 segments (its peer is the
# relay: a 100 KB request leaves at once), and nothing else changed.
test_tun_routes_carry_the_initial_windows() {
	run onet -- sh -c 'ip -4 route; ip -6 route'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "default via 10.0.2.2 dev tun0 proto static initcwnd 64 initrwnd 64
10.0.2.0/24 dev tun0 proto kernel scope link src 10.0.2.100
10.0.2.4 dev tun0 proto static scope link initcwnd 64 initrwnd 64
fd00::4 dev tun0 proto static metric 1024 initcwnd 64 initrwnd 64 pref medium
fd00::/64 dev tun0 proto kernel metric 256 pref medium
default via fd00::2 dev tun0 proto static metric 1024 initcwnd 64 initrwnd 64 pref medium" \
		"$(sed 's/ *$//' "$T/out")"
}

# ro_proc_sys CMD...: CMD in the fake host with /proc/sys as a container has
# it by default (Docker's and Podman's ReadonlyPaths, Kubernetes' procMount:
# Default): bound read-only over itself, in a mount namespace of its own. In
# otonet's user namespace the bind is locked: nothing under it can be written.
ro_proc_sys() {
	in_host unshare -m --propagation private sh -c \
		'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "$@"' \
		sh "$@"
}

# tun0 without a link-local address there too (nl_link_addrgen_none: the
# kernel's addr_gen_mode 1, none, set over rtnetlink); flows go through; only
# the agent's ping sockets stay off, and otonet says why in one line.
test_read_only_proc_sys_as_in_a_container() {
	run ro_proc_sys "$OTO_BIN/otonet" $AS $PUB -- sh -c "
		f=/proc/sys/net/ipv6/conf/tun0/addr_gen_mode; [ -w \$f ] && echo rw || echo ro
		ip -6 -o addr show dev tun0 | awk '{ print \$4 }'; cat \$f
		$NT down 203.0.113.10 100000; $NT ping 203.0.113.10"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(printf 'ro\nfd00::100/64\n1\nok\nEACCES')" "$(cat "$T/out")"
	assertEquals "otonet: warning: ping will fail in the sandbox: unable to write /proc/sys/net/ipv4/ping_group_range (/proc/sys is read-only here, as in a container by default: run it with --security-opt systempaths=unconfined, or procMount: Unmasked in Kubernetes; see README, Deploying): Read-only file system" \
		"$(grep -v '^otonet: warning: --public ' "$T/err")"
}

test_inside_the_network_cannot_be_reconfigured() {
	for cmd in "ip addr add 10.9.9.9/32 dev tun0" "ip route add 10.1.0.0/16 dev tun0" \
		"ip link set tun0 down" "ip route del 10.0.0.0/8"; do
		run onet $PUB -- "$OTO_BIN/otons" --share net -- $cmd
		assertEquals "$cmd" 2 "$rc"
		assertContains "$cmd: $(cat "$T/err")" "$(cat "$T/err")" "Operation not permitted"
	done
}

test_whole_chain_otonet_otons() {
	run onet $PUB -- "$OTO_BIN/otons" --share net -- sh -c "
		id -u; readlink /proc/self/ns/user >$T/userns; $NT down 203.0.113.10 10000000;
		$NT dns example.test tcp; $NT connect 10.0.0.1 80"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "65534
ok
ok 203.0.113.10
ECONNREFUSED" "$(cut -d' ' -f1,2 "$T/out" | sed 's/^\(ECONNREFUSED\) [0-9]*$/\1/')"
}

test_unprivileged_caller_needs_no_as() {
	run in_host setpriv --reuid 65534 --regid 65534 --clear-groups "$OTO_BIN/otonet" $PUB -- \
		sh -c "id -u; $NT connect 203.0.113.10 9002; $NT connect 10.0.0.1 80"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "65534 ok ECONNREFUSED" "$(awk '{print $1}' "$T/out" | tr '\n' ' ' | sed 's/ $//')"
}

# ---- the process: exit codes, signals, errors ---------------------------------------

test_exit_status_and_signals() {
	run onet -- sh -c 'exit 7'
	assertEquals 7 "$rc"
	run onet -- sh -c 'kill -KILL $$'
	assertEquals 137 "$rc"
	ip netns exec "$NH" "$OTO_BIN/otonet" $AS -- sh -c "trap 'exit 42' TERM; echo up >$T/up; while :; do sleep 0.05; done" &
	pid=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	kill -TERM "$pid"
	# Bounded: a relay that does not pass SIGTERM on would hang the suite.
	if wait_child "$pid" 5; then
		assertEquals "the program's trap ran" 42 "$rc"
	else
		fail "SIGTERM not passed on: otonet still running 5 s after it (killed)"
	fi
	run onet -- /nonexistent/prog
	assertEquals 127 "$rc"
}

test_usage_errors() {
	run in_host "$OTO_BIN/otonet" -- true
	assertEquals 100 "$rc"
	assertOneLine otonet
	run in_host "$OTO_BIN/otonet" --as root -- true
	assertEquals 100 "$rc"
	for bad in "--allow tcp:1.2.3.4" "--allow icmp:1.2.3.4:1" "--public 10.0.0.1/8" \
		"--dns nope" "--log-fd x" "--max-flows 0" "--busy-poll 1001" "--busy-poll -1" \
		"--busy-poll" "--bogus"; do
		run onet $bad -- true
		assertEquals "$bad" 100 "$rc"
		assertOneLine otonet
	done
	run onet --log-fd 77 -- true
	assertEquals 100 "$rc"
	run "$OTO_BIN/otonet" --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "--allow PROTO:HOST:PORT"
	assertContains "$(cat "$T/out")" "--busy-poll USEC"
	# --version: tests/test_build.sh, for every tool
}

# /dev/net/tun at 0600, and missing: tests/test_otonet_root.sh, for root
# (which now opens it whatever its mode) and for an unprivileged caller.

. shunit2
