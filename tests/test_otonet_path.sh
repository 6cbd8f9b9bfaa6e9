#!/bin/sh
# otonet on a real server's path to the internet: the fake host's links at
# MTU 1500 (tests/net/topo.sh's default), at 9000 and 65520, limited by a
# token bucket slower than the TUN, a hop of MTU 1400 further out, a peer
# that resets mid-upload, a peer that reads nothing for seconds. What is
# asserted is exact: bytes and their sha256, errnos, segment sizes, and the
# agent's own kernel's counters of the timers a TCP sender waits on. How
# fast is bench/net.sh's business, never a test's.
#
# The stall these tests were written for: the relay offered the agent a
# segment size of 65480 (the TUN's) while the host's socket, at MTU 1500,
# had room for less than one such segment; the agent's kernel then waited
# for its persist timer, 200 ms or more, on every upload of any size.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
}

# Each test leaves the topology as it found it: MTU 1500, no rate limit.
suite_tearDown() {
	[ -n "$IS_ROOT" ] || return 0
	topo_mtu "$TOPO_MTU"
	topo_rate ""
	[ -z "${ssp:-}" ] || { kill "$ssp" 2>/dev/null; wait "$ssp" 2>/dev/null; ssp=; }
}

# in_sandbox SHELL-TEXT: run it behind otonet; $T/out, $T/err, $rc.
in_sandbox() { run onet $PUB -- sh -c "$1"; }

# The agent's kernel waited on no timer: no retransmission timeout, no
# zero-window probe, no segment sent twice. $1: a tcpstat line.

# The relay's host sockets to PORT, sampled every 20 ms until $T/done: the
# largest Send-Q and Recv-Q seen, in $T/q ("SENDQ RECVQ").
sample_queues() { # PORT
	(
		port=$1 s=0 r=0
		while [ ! -e "$T/done" ]; do
			# shellcheck disable=SC2046 # split into fields on purpose
			set -- $(ip netns exec "$NH" ss -tnH state established "( dport = :$port )" |
				awk -v s=$s -v r=$r '{ if ($2 > s) s = $2; if ($1 > r) r = $1 } END { print s, r }')
			s=$1 r=$2
			echo "$s $r" >"$T/q"
			sleep 0.02
		done
	) &
	ssp=$!
}

# ---- the segment size the agent sends with ----------------------------------

# The SYN-ACK offers the agent the host connection's own segment size, as
# the host's kernel counts it for that path: the MTU less the IP and TCP
# headers and the timestamp option the host negotiated (12 bytes). Over the
# TUN alone the agent would use up to 65480 (IPv4) / 65460 (IPv6) whatever
# the path. (At MTU 65520 the agent's kernel caps its segment at half the
# first window it saw, 32767, below either.)
test_agent_sends_with_the_host_paths_segment_size() {
	for mtu in 1500 9000; do
		topo_mtu $mtu
		in_sandbox "$NT mss 203.0.113.10 9002; $NT mss 2001:db8:1::10 9002"
		assertEquals "MTU $mtu: $(cat "$T/err")" "ok $((mtu - 52))
ok $((mtu - 72))" "$(cat "$T/out")"
	done
}

# ---- uploads of a model API's size ------------------------------------------

# What a coding agent does every turn: one POST of 100 KB to a few MB. curl
# as the agent's tools would send it (the server answers with the sha256 and
# length it received), then ten fresh connections per size whose sender
# reports how long the relay's window held it back: a wait for a timer is
# 200 ms or more (the kernel's minimum persist and retransmission timeout).
test_post_100k_and_1m_never_wait_for_a_timer() {
	head -c 100000 /dev/urandom >"$T/100k"
	head -c 1000000 /dev/urandom >"$T/1m"
	chmod 0644 "$T/100k" "$T/1m"
	for f in 100k 1m; do
		want="$(sha256sum <"$T/$f" | cut -d' ' -f1) $(wc -c <"$T/$f")"
		for url in http://203.0.113.10:8080/v1/messages "http://[2001:db8:1::10]:8080/v1/messages"; do
			in_sandbox "curl -sS --data-binary @$T/$f $url"
			assertEquals "curl POST $f to $url: $(cat "$T/err")" "$want" "$(cat "$T/out")"
		done
	done
	in_sandbox "$NT post 203.0.113.10 8080 100000 10; $NT post 203.0.113.10 8080 1000000 10
		$NT post 2001:db8:1::10 8080 1000000 10; $NT tcpstat"
	assertEquals "$(cat "$T/err")" 4 "$(wc -l <"$T/out")"
	for what in "100 KB" "1 MB" "1 MB over IPv6"; do
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(head -1 "$T/out")
		assertEquals "POST $what: $(cat "$T/err")" "ok" "$1"
		assertTrue "POST $what: held back by the window for ${2:-?} ms" "[ ${2:-999} -lt 200 ]"
		sed -i 1d "$T/out"
	done
}

test_single_stream_100mib_upload_and_download_never_wait_for_a_timer() {
	in_sandbox "$NT up 203.0.113.10 104857600; $NT down 203.0.113.10 104857600; $NT tcpstat"
	assertEquals "upload: $(cat "$T/err")" "ok" "$(sed -n 1p "$T/out")"
	assertEquals "download: $(cat "$T/err")" "ok" "$(sed -n 2p "$T/out")"
	assertNoTimer "100 MiB each way" "$(sed -n 3p "$T/out")"
}

# The same over IPv6, 32 MiB each way: its segments are 20 bytes shorter.
test_ipv6_upload_and_download_never_wait_for_a_timer() {
	in_sandbox "$NT up 2001:db8:1::10 33554432; $NT down 2001:db8:1::10 33554432; $NT tcpstat"
	assertEquals "$(cat "$T/err")" "ok
ok" "$(head -2 "$T/out")"
	assertNoTimer "32 MiB each way over IPv6" "$(sed -n 3p "$T/out")"
}

# The same at MTU 9000 and 65520: the segment size follows the path, the
# flow control holds at every size.
test_bulk_at_mtu_9000_and_65520() {
	for mtu in 9000 65520; do
		topo_mtu $mtu
		in_sandbox "$NT up 203.0.113.10 52428800; $NT down 2001:db8:1::10 52428800; $NT tcpstat"
		assertEquals "MTU $mtu: $(cat "$T/err")" "ok
ok" "$(head -2 "$T/out")"
		assertNoTimer "MTU $mtu" "$(sed -n 3p "$T/out")"
	done
}

# ---- a link slower than the TUN ---------------------------------------------

# The host's internet link limited by tbf: the relay's window follows the
# host socket as it drains (a window update when it does, never a wait for
# the agent's probe). Uploads wait in the host socket's send queue, which
# never holds more than the relay offered (4 MiB, its largest window);
# downloads wait in the host socket's receive queue, which the host's kernel
# bounds (tcp_rmem); the relay itself holds only a few MiB (VmHWM, its 4 MiB
# batch buffer included), also on the path that copies what the agent has
# not acknowledged (kernels without SO_PEEK_OFF for TCP, OTO_TEST_NO_PEEK_OFF).
test_slow_link_upload_and_download_follow_the_drain() {
	hwm='awk "/^VmHWM/ {print \$2}" /proc/$PPID/status'
	for rate in 200mbit:26214400 1gbit:104857600; do
		topo_rate "${rate%:*}"
		n=${rate#*:} r=${rate%:*}
		rm -f "$T/done"
		sample_queues 9000
		in_sandbox "$NT up 203.0.113.10 $n; $NT tcpstat; $hwm"
		touch "$T/done" && wait "$ssp" && ssp=
		assertEquals "$r upload: $(cat "$T/err")" "ok" "$(sed -n 1p "$T/out")"
		assertNoTimer "$r upload" "$(sed -n 2p "$T/out")"
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(cat "$T/q") "$(sed -n 3p "$T/out")"
		assertTrue "$r upload: the host socket held $1 bytes" "[ $1 -gt 0 ] && [ $1 -le 4194304 ]"
		assertMemBelow "$r upload: the relay's VmHWM" "$3" 8192
		for peek in "" OTO_TEST_NO_PEEK_OFF=1; do
			run in_host env $peek "$OTO_BIN/otonet" $AS $PUB -- sh -c "
				$NT down 203.0.113.10 $n; $NT tcpstat; $hwm"
			assertEquals "$r download $peek: $(cat "$T/err")" "ok" "$(sed -n 1p "$T/out")"
			assertNoTimer "$r download $peek" "$(sed -n 2p "$T/out")"
			set -- "$(sed -n 3p "$T/out")"
			assertMemBelow "$r download $peek: the relay's VmHWM" "$1" 8192
		done
	done
}

# ---- what only a real path does ---------------------------------------------

# A hop of MTU 1400 in the fake internet answers the host's 1500-byte
# packets with "fragmentation needed" / "packet too big". The host learns the
# path's MTU and its TCP follows (bytes exact both ways, both families);
# large datagrams get through once the host fragments them (the first may
# be lost on the way, as on any host).
test_path_mtu_from_an_icmp_of_the_internet() {
	topo_far || fail "the far server did not start"
	in_sandbox "$NT up $FAR4 10485760; $NT down $FAR4 10485760
		$NT up $FAR6 10485760; $NT down $FAR6 10485760
		$NT udpbig $FAR4 9005 1472 5; $NT udpbig $FAR6 9005 1452 5"
	assertEquals "$(cat "$T/err")" "ok
ok
ok
ok" "$(head -4 "$T/out")"
	assertContains "$(ip -n "$NH" route get $FAR4)" " mtu 1400 "
	assertContains "$(ip -n "$NH" -6 route get $FAR6)" " mtu 1400 "
	for fam in 4 6; do
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(sed -n "$((fam == 4 ? 5 : 6))p" "$T/out")
		assertEquals "udp over IPv$fam through the hop" "ok" "$1"
	done
}

# The server reads 64 KiB and closes with more unread: its RST reaches the
# agent as ECONNRESET in the middle of its upload, and the flow's slot is
# free again (--max-flows 1: the next connection gets it).
test_peer_resets_while_the_agent_sends() {
	run onet $PUB --max-flows 1 -- sh -c "$NT upclose 203.0.113.10 20000000
		$NT upclose 2001:db8:1::10 20000000; $NT connect 203.0.113.10 9002"
	assertEquals "$(cat "$T/err")" "ECONNRESET
ECONNRESET
ok" "$(cut -d' ' -f1 "$T/out")"
}

# The server reads nothing for 3 seconds: the host socket fills, the relay
# closes the window, the agent probes it (TCPWinProbe: the window really was
# closed) and never times out; when the server reads, all arrives.
test_host_socket_full_for_seconds() {
	in_sandbox "$NT upslow 203.0.113.10 3 16000000; $NT tcpstat"
	assertEquals "$(cat "$T/err")" "ok" "$(sed -n 1p "$T/out")"
	# shellcheck disable=SC2046 # split into fields on purpose
	set -- $(sed -n 2p "$T/out")
	assertEquals "TCPTimeouts=0" "$1"
	assertNotEquals "the window was never closed" "TCPWinProbe=0" "$2"
	assertEquals "RetransSegs=0" "$3"
}

. shunit2
