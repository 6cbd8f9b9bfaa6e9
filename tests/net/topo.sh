# shellcheck shell=sh
# The test topology, sourced by tests/test_otonet.sh and bench/net.sh.
#
#   oto-host-$$   the fake host: otonet runs here; resolv.conf names the LAN resolver
#   oto-inet-$$   the fake internet: 203.0.113.10/24, 2001:db8:1::10/64, servers
#   oto-lan-$$    the fake office LAN: 10.1.0.10/16 and one address of every
#                 special-purpose range, a listener that records every contact,
#                 and dnsmasq as the host's resolver (TTL 2 s), which names the
#                 fake internet (inet.test and the names under it, other.test:
#                 INET4), the LAN (lan.test: 10.77.0.5, exc.test: LAN4 and LAN6), names
#                 that rebind (reb.inet.test: 10.0.0.1, meta.inet.test:
#                 169.254.169.254), and the names of $TOPO_DIR/hosts.d/*, read
#                 again when a file there changes (move.test: topo_name)
#
# Nothing leaves these namespaces: they are linked only to each other by veth.
# topo_up builds everything, topo_down removes it (call it from a trap).
#
# The fake host's links look like a real server's: Ethernet, MTU 1500
# (TOPO_MTU: another MTU for the veth links, such as 9000 or 65520), and
# with TOPO_RATE (a tc rate such as 200mbit) its way to the internet is a
# token bucket slower than the TUN, both directions. A result that holds
# only at MTU 65520 on every link did not hold on a real server: the upload
# stall of otonet's first versions showed only at 1500. Every connection
# the fake host makes is a first one (tcp_no_metrics_save): no congestion
# window learned from an earlier test carries over into the next.

TOPO_ID=${TOPO_ID:-$$}
NH=oto-host-$TOPO_ID
NI=oto-inet-$TOPO_ID
NL=oto-lan-$TOPO_ID
NF=oto-far-$TOPO_ID
TOPO_DIR=${TOPO_DIR:-/tmp/oto-topo-$TOPO_ID}
NETTOOL=${NETTOOL:-$(cd "$(dirname "$0")" && pwd)/net/nettool.py}
PY=/usr/bin/python3
INET4=203.0.113.10
INET6=2001:db8:1::10
INET4B=203.0.113.11 # a second address of the fake internet's servers
HOST_INET4=203.0.113.1
HOST_INET6=2001:db8:1::1
HOST_LAN4=10.1.0.1
LAN4=10.1.0.10
LAN6=fd12:3456::10
HOST_LAN6=fd12:3456::1
# One address of each special-purpose range, routed by the host to the LAN,
# where the listener would see any packet that got through.
LAN_EXTRA4="10.0.0.1 172.16.0.1 192.168.1.1 169.254.169.254 100.64.0.1 198.18.0.1 192.0.0.192 198.51.100.7 192.0.2.7"
LAN_EXTRA6="fd00::1 fec0::1 100::1 2001:2::1 2002:a9fe:a9fe::1 64:ff9b::a9fe:a9fe 64:ff9b:1::a01:1"
TOPO_MTU=${TOPO_MTU:-1500}
TOPO_RATE=${TOPO_RATE:-}
TUN_MODE=

topo_up() {
	mkdir -p "$TOPO_DIR" && chmod 0755 "$TOPO_DIR"
	ip netns add "$NH" && ip netns add "$NI" && ip netns add "$NL" || return 1
	ip link add hi0 netns "$NH" type veth peer name ih0 netns "$NI" || return 1
	ip link add hl0 netns "$NH" type veth peer name lh0 netns "$NL" || return 1
	for ns in "$NH" "$NI" "$NL"; do ip -n "$ns" link set lo up; done
	ip -n "$NH" addr add $HOST_INET4/24 dev hi0
	ip -n "$NH" addr add $HOST_INET6/64 dev hi0 nodad
	ip -n "$NH" addr add $HOST_LAN4/16 dev hl0
	ip -n "$NH" addr add $HOST_LAN6/64 dev hl0 nodad
	ip -n "$NI" addr add $INET4/24 dev ih0
	ip -n "$NI" addr add $INET4B/24 dev ih0
	ip -n "$NI" addr add $INET6/64 dev ih0 nodad
	ip -n "$NL" addr add $LAN4/16 dev lh0
	ip -n "$NL" addr add $LAN6/64 dev lh0 nodad
	for ns in "$NH" "$NI" "$NL"; do
		for l in hi0 hl0 ih0 lh0; do ip -n "$ns" link set "$l" up mtu "$TOPO_MTU" 2>/dev/null; done
	done
	[ -z "$TOPO_RATE" ] || topo_rate "$TOPO_RATE" || return 1
	ip -n "$NI" route add default via $HOST_INET4
	ip -n "$NI" -6 route add default via $HOST_INET6
	ip -n "$NL" route add default via $HOST_LAN4
	ip -n "$NL" -6 route add default via $HOST_LAN6
	for a in $LAN_EXTRA4; do
		ip -n "$NL" addr add "$a/32" dev lo
		ip -n "$NH" route add "$a/32" via $LAN4
	done
	for a in $LAN_EXTRA6; do
		ip -n "$NL" addr add "$a/128" dev lo nodad
		ip -n "$NH" -6 route add "$a/128" via $LAN6
	done
	ip netns exec "$NH" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.tcp_no_metrics_save=1
	# Ping sockets for the relay's user (uid 65534 included).
	ip netns exec "$NH" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
	# ip netns exec bind-mounts /etc/netns/NAME/* over /etc/*.
	mkdir -p "/etc/netns/$NH"
	echo "nameserver $LAN4" >"/etc/netns/$NH/resolv.conf"
	printf '127.0.0.1 localhost\n%s lanbox\n' "$LAN4" >"/etc/netns/$NH/hosts"
	# /dev/net/tun: stock Debian mode for the test, restored by topo_down.
	# Saved once per machine state: an overlapping run must not save 0666,
	# nor may a run after one killed before its topo_down (the saved mode
	# is still there, the device still 0666): while the file exists, it
	# holds the machine's mode (/run is emptied at boot). Under
	# tests/run.sh the device is a private node already (OTO_TUN_PRIVATE):
	# the machine's is not touched at all.
	if [ -n "${OTO_TUN_PRIVATE:-}" ]; then
		:
	elif [ -f /run/oto-tun-mode ]; then
		TUN_MODE=$(cat /run/oto-tun-mode)
	else
		TUN_MODE=$(stat -c %a /dev/net/tun)
		echo "$TUN_MODE" >/run/oto-tun-mode
	fi
	[ -n "${OTO_TUN_PRIVATE:-}" ] || chmod 0666 /dev/net/tun
	ip netns exec "$NI" $PY "$NETTOOL" serve-inet "$TOPO_DIR" >"$TOPO_DIR/inet.log" 2>&1 &
	echo $! >"$TOPO_DIR/inet.pid"
	ip netns exec "$NL" $PY "$NETTOOL" serve-lan "$TOPO_DIR/lan.seen" >"$TOPO_DIR/lan.log" 2>&1 &
	echo $! >"$TOPO_DIR/lan.pid"
	mkdir -p "$TOPO_DIR/hosts.d"
	topo_name move.test $INET4
	ip netns exec "$NL" dnsmasq --keep-in-foreground --no-resolv --no-hosts \
		--listen-address=$LAN4 --bind-interfaces --user=root --pid-file= \
		--address=/example.test/$INET4 --address=/example.test/$INET6 \
		--address=/inet.test/$INET4 --address=/other.test/$INET4 \
		--address=/reb.inet.test/10.0.0.1 --address=/meta.inet.test/169.254.169.254 \
		--address=/lan.test/10.77.0.5 --address=/exc.test/$LAN4 --address=/exc.test/$LAN6 \
		--local-ttl=2 --hostsdir="$TOPO_DIR/hosts.d" \
		>"$TOPO_DIR/dns.log" 2>&1 &
	echo $! >"$TOPO_DIR/dns.pid"
	# Wait for the servers (bounded).
	n=0
	while [ $n -lt 100 ]; do
		[ -e "$TOPO_DIR/inet.ready" ] && [ -e "$TOPO_DIR/lan.seen.ready" ] && break
		sleep 0.05
		n=$((n + 1))
	done
	: >"$TOPO_DIR/lan.seen"
	topo_mcast_wait "$NH hi0" "$NH hl0" "$NI ih0" "$NL lh0"
	return 0
}

# topo_mcast_wait "NS LINK"...: until each link has its IPv6 multicast
# route (ff00::/8, local table; bounded, 2 s). Neighbour discovery needs
# it, and the kernel adds it a moment after the link is up: until then
# the fake internet took the fake host's neighbour solicitations for
# packets to forward and dropped them (Ip6InAddrErrors), and the first
# IPv6 SYN of a test run that early went again after 1 s, a timer the
# tests count as the relay's.
topo_mcast_wait() {
	_n=0
	while [ $_n -lt 100 ]; do
		_missing=
		for _l in "$@"; do
			# shellcheck disable=SC2086 # namespace and link: two fields
			ip -6 -n ${_l% *} route show table local dev ${_l#* } |
				grep -q '^multicast ff00::/8' || _missing=1
		done
		[ -z "$_missing" ] && return 0
		sleep 0.02
		_n=$((_n + 1))
	done
	return 0
}

# topo_name NAME ADDR: the LAN resolver answers ADDR for NAME from now on.
topo_name() {
	echo "$2 $1" >"$TOPO_DIR/hosts.d/.$1.tmp" && mv "$TOPO_DIR/hosts.d/.$1.tmp" "$TOPO_DIR/hosts.d/$1"
}

# topo_rate RATE: the fake host's internet link limited to RATE each way
# (tbf: the host's egress to the internet for uploads, the internet's egress
# to the host for downloads); "" removes the limit. The bucket holds 20 ms
# of queue, as a real link's buffer would, and bursts of 64 KiB.
topo_rate() {
	for l in "$NH hi0" "$NI ih0"; do
		set -- "$1" $l
		if [ -n "$1" ]; then
			ip netns exec "$2" tc qdisc replace dev "$3" root tbf rate "$1" burst 64kb latency 20ms ||
				return 1
		else
			ip netns exec "$2" tc qdisc del dev "$3" root 2>/dev/null
		fi
	done
	return 0
}

# topo_mtu MTU: every veth link of the topology at MTU.
topo_mtu() {
	for ns in "$NH" "$NI" "$NL"; do
		for l in hi0 hl0 ih0 lh0; do ip -n "$ns" link set "$l" mtu "$1" 2>/dev/null; done
	done
	return 0
}

# topo_server NS LINK ADDR4 ADDR6 [MTU]: a server's namespace NS behind
# the fake internet, on a veth pair named LINK in both (MTU 1500 unless
# given), with ADDR4 and ADDR6 (in the fake internet's ranges) routed to it
# from the fake internet and the fake host. Its own ports, 443 among them:
# the fake internet's are nettool's. topo_down removes it.
topo_server() {
	ip netns add "$1" || return 1
	echo "$1" >>"$TOPO_DIR/servers"
	ip link add "$2" netns "$NI" type veth peer name "$2" netns "$1" || return 1
	ip -n "$1" link set lo up
	ip -n "$NI" link set "$2" up mtu "${5:-1500}"
	ip -n "$1" link set "$2" up mtu "${5:-1500}"
	ip -n "$NI" -6 addr add fe80::1/64 dev "$2" nodad
	ip -n "$1" -6 addr add fe80::2/64 dev "$2" nodad
	ip -n "$1" addr add "$3/32" dev "$2"
	ip -n "$1" addr add "$4/128" dev "$2" nodad
	ip -n "$NI" route add "$3/32" dev "$2"
	ip -n "$NI" -6 route add "$4/128" via fe80::2 dev "$2"
	ip -n "$1" route add default via $INET4 dev "$2" onlink
	ip -n "$1" -6 route add default via fe80::1 dev "$2"
	ip -n "$NH" route add "$3/32" via $INET4
	ip -n "$NH" -6 route add "$4/128" via $INET6
	ip netns exec "$NI" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

# topo_far: a server further away, behind a hop of MTU 1400 in the fake
# internet (oto-far-ID: FAR4, FAR6, the fake internet's servers), so that a
# packet of 1500 bytes from the host draws an ICMP "fragmentation needed" /
# "packet too big" from the fake internet, as on a real path with a tunnel.
FAR4=203.0.113.200
FAR6=2001:db8:1::200
topo_far() {
	topo_server "$NF" far0 $FAR4 $FAR6 1400 || return 1
	mkdir -p "$TOPO_DIR/far"
	ip netns exec "$NF" $PY "$NETTOOL" serve-inet "$TOPO_DIR/far" >"$TOPO_DIR/far.log" 2>&1 &
	echo $! >"$TOPO_DIR/far.pid"
	n=0
	while [ ! -e "$TOPO_DIR/far/inet.ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	topo_mcast_wait "$NI far0" "$NF far0"
	[ -e "$TOPO_DIR/far/inet.ready" ]
}

# Whether another topology is up: an oto-inet-* namespace with a process in it.
topo_others_alive() {
	for _ns in $(ip netns list | sed -n 's/^\(oto-inet-[^ ]*\).*/\1/p'); do
		[ -n "$(ip netns pids "$_ns" 2>/dev/null)" ] && return 0
	done
	return 1
}

topo_down() {
	for p in inet lan dns far; do
		[ -f "$TOPO_DIR/$p.pid" ] && kill "$(cat "$TOPO_DIR/$p.pid")" 2>/dev/null
	done
	for ns in "$NH" "$NI" "$NL" $(cat "$TOPO_DIR/servers" 2>/dev/null); do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "/etc/netns/$NH" "$TOPO_DIR"
	# The device is the machine's: restore its mode only when no other
	# topology (another suite, a benchmark) still needs it, and the mode
	# saved is not one an overlapping run had already changed. A topology
	# still needs it while its fake internet's servers run: the namespaces
	# of a run killed before its topo_down hold no process, and must not
	# keep the device at 0666 for every run after it.
	if [ -n "$TUN_MODE" ] && ! topo_others_alive; then
		chmod "$TUN_MODE" /dev/net/tun
		rm -f /run/oto-tun-mode
	fi
	TUN_MODE=
	return 0
}

# shunit2's suite hooks for a suite that sources this file: one topology for
# the whole suite, removed at the end even after a failure or a signal. A
# suite that needs more defines its own after sourcing this file.
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

# Without root (by hand: tests/run.sh runs these suites as root) no topology
# can be built. Then one skipped test says so, and no test body runs: half
# of one, without its namespaces and files, would only fail in new ways.
if [ -z "${IS_ROOT:-}" ]; then
	suite() { suite_addTest needs_root; }
	needs_root() { [ -n "$_oto_skipped" ] || skip "needs root (ip netns)"; }
fi

# in_host CMD...: run CMD in the fake host (as root: otonet needs --as).
in_host() { ip netns exec "$NH" "$@"; }

# For the otonet suites: the test tool, and the fake internet as --public.
NT="$PY $NETTOOL"
PUB="--public 203.0.113.0/24 --public 2001:db8:1::/64"

# onet [OTONET OPTIONS] -- CMD...: otonet in the fake host, as the test user.
onet() { in_host "$OTO_BIN/otonet" $AS "$@"; }

# assertLanUntouched: the LAN's listener saw nothing (since the suite or
# the test emptied $TOPO_DIR/lan.seen): no packet of the sandbox got there.
# why_less FILE: FILE's lines but its "why=LIST" one (a probe's echo of
# OTO_WHY_FD: the ends for the agent's file, whose fd numbers move with
# the fds open before them), each word that is an fd of LIST taken out,
# and a line that began with one ("N socket") left out whole.
why_less() {
	awk 'NR == FNR { if (sub(/^why=/, "")) { n = split($0, w, ","); for (i = 1; i <= n; i++) why[w[i]] = 1 }; next }
		/^why=/ { next }
		$1 in why && NF <= 2 { next }
		{ s = ""; for (i = 1; i <= NF; i++) if (!($i in why)) s = s (s == "" ? "" : " ") $i; print s }' "$1" "$1"
}

assertLanUntouched() {
	assertEquals "the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
}

# assertNoTimer WHAT TCPSTAT-LINE: the agent's TCP counters show no
# retransmission timeout, window probe or retransmitted segment.
assertNoTimer() {
	assertEquals "$1: the agent's TCP timers" "TCPTimeouts=0 TCPWinProbe=0 RetransSegs=0" "$2"
}

# Failing closed, as a grandchild the agent leaves behind sees it once the
# relay is gone. failclosed_probe: shell text for the agent to run in the
# background (after a wait of its own), writing $T/gc. assertFailedClosed:
# the agent ($T/agent) died with the relay, and the grandchild found no tun0
# and no network at all.
failclosed_probe() {
	echo "ip link show tun0 >/dev/null 2>&1 && echo tun-present >$T/gc || echo tun-gone >$T/gc
		$NT connect 203.0.113.10 9002 >>$T/gc; $NT udp 203.0.113.10 9005 >>$T/gc"
}

assertFailedClosed() {
	assertTrue "the agent died with the relay" "wait_gone $(cat "$T/agent") 2"
	n=0
	while [ "$(wc -l 2>/dev/null <"$T/gc")" != 3 ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "tun-gone
ENETUNREACH
ENETUNREACH" "$(cut -d' ' -f1 "$T/gc")"
}

# The suites of otogate's transparent grants and asking: their fake hub
# (tests/helpers/fakehub.py, started by each suite's hub_up) stopped, and
# the last commit on main of its repository.
hub_down() {
	[ -f "$TOPO_DIR/hub.pid" ] && kill "$(cat "$TOPO_DIR/hub.pid")" 2>/dev/null
	return 0
}
hub_head() { git -C "$TOPO_DIR/hub/repos/proj.git" log -1 --format=%s main; }
# What reached the fake hub: each request's Authorization, sorted, unique.
hub_auth() {
	grep -i '^authorization:' "$TOPO_DIR/hub/requests" | tr -d '\r' |
		sed 's/^[^:]*:/Authorization:/' | LC_ALL=C sort -u
}
# The test CA, a certificate of it for every name the hub answers as, the
# hub on $PORT (in the namespace $HUB_NS if set, the fake internet's if
# not), a bare repository, a package, and the store (GH_TOKEN, NPM_TOKEN,
# API_TOKEN), each holding $REAL; $K the keys, $D the hub's tree.
hub_up() {
	K=$TOPO_DIR/pki
	D=$TOPO_DIR/hub
	mkdir -p "$K" "$D/repos"
	chmod 0755 "$K" "$D"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=oto test ca" -keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null || return 1
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=fakehub" \
		-keyout "$K/srv.key" -out "$K/srv.csr" 2>/dev/null &&
		printf 'subjectAltName=DNS:git.example.test,DNS:rest.example.test,DNS:npm.example.test,DNS:other.example.test,DNS:plain.test\n' >"$K/ext" &&
		openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
			-days 2 -extfile "$K/ext" -out "$K/srv.pem" 2>/dev/null || return 1
	printf '%s' "$REAL" >"$K/real"
	chmod 0600 "$K/real"
	topo_name plain.test $INET4B
	# The repository: one commit on main.
	git init -q --bare -b main "$D/repos/proj.git" &&
		git -C "$D/repos/proj.git" config http.receivepack true &&
		rm -rf "$D/seed" && git init -q -b main "$D/seed" &&
		echo hello >"$D/seed/README" && git -C "$D/seed" add README &&
		git -C "$D/seed" -c user.name=seed -c user.email=seed@example.test commit -qm seed &&
		git -C "$D/seed" push -q "$D/repos/proj.git" main || return 1
	# The private package.
	mkdir -p "$D/pkg/package" &&
		printf '{"name": "@oto/private", "version": "1.0.0", "main": "index.js"}\n' \
			>"$D/pkg/package/package.json" &&
		echo 'module.exports = "private ok";' >"$D/pkg/package/index.js" &&
		tar -C "$D/pkg" -czf "$D/private-1.0.0.tgz" package || return 1
	ip netns exec "${HUB_NS:-$NI}" $PY "$OTO_TESTS/helpers/fakehub.py" "$K/srv.pem" "$K/srv.key" $PORT \
		"$D" "$K/real" >"$TOPO_DIR/hub.log" 2>&1 &
	echo $! >"$TOPO_DIR/hub.pid"
	n=0
	while [ ! -e "$D/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e "$D/ready" ] || { echo "fakehub failed: $(cat "$TOPO_DIR/hub.log")" >&2; return 1; }
	otosecret keygen --out "$K/key" &&
		printf 'GH_TOKEN=%s\nNPM_TOKEN=%s\nAPI_TOKEN=%s\n' "$REAL" "$REAL" "$REAL" |
		otosecret seal --key-file "$K/key" --store "$K/store"
}
