#!/bin/sh
# otonet against hostile packets: tests/helpers/otonet_inject.c
# writes crafted packets straight onto the sandbox's tun0 (AF_PACKET, so no
# kernel fixes them up on the way), one batch per test; then the relay must be
# alive, a checked 10 MiB download through it must succeed, no packet from a
# source other than the agent's may have left, and the LAN must be untouched.
#
# Why nsenter: the agent runs as the test user mapped to itself in otonet's
# user namespace (not as its root), so it execs with no capabilities at all
# (CapEff 0, asserted in test_otonet.sh) and cannot open a raw or packet
# socket. The injector is run by the suite as real root, entering only the
# sandbox's network namespace (nsenter -t AGENT -n): it holds CAP_NET_RAW and
# CAP_NET_ADMIN (TCP_REPAIR, to learn a live flow's sequence numbers) over it,
# and the relay reads exactly what an agent with those capabilities would write.
#
# The fake internet runs a marker listener on 203.0.113.10:9100 (TCP and UDP)
# that records every contact; a batch addresses it with packets the relay must
# drop, and ends with one well-formed datagram "mark BATCH" from the agent.
#
# The last test runs every batch again against otonet built with gcc and
# ASan/UBSan (OTONET_HOSTILE_ASAN=0 skips it), its seccomp filter on.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

TEN=10485760
# The sources: the checkout (tests/run.sh runs suites from a copy of tests/).
REPO=${OTO_TOP:-$(cd "$OTO_TESTS/.." && pwd)}
HB=/tmp/oto-hostile-$TOPO_ID
INJ=$HB/otonet_inject
BATCHES="trunc4 trunc6 lying-lengths ipopts frags ext6 tcpflags synflood unknown-acks seq windows urgent udp-lying icmp-errors spoofed-src vnet"

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'topo_down; rm -rf "$HB"' EXIT
	trap 'topo_down; rm -rf "$HB"; exit 1' INT TERM HUP
	mkdir -p "$HB" && chmod 0755 "$HB"
	if command -v musl-gcc >/dev/null 2>&1; then
		musl-gcc -static -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$INJ" "$OTO_TESTS/helpers/otonet_inject.c"
	else
		gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$INJ" "$OTO_TESTS/helpers/otonet_inject.c"
	fi || { echo "otonet_inject does not build" >&2; exit 1; }
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	# The marker listener: one line per contact, "tcp SRC" or "udp SRC PAYLOAD".
	cat >"$HB/mark.py" <<'EOF'
import socket, sys, threading
out = sys.argv[1]
lock = threading.Lock()
def rec(line):
    with lock, open(out, "a") as f:
        f.write(line + "\n")
def src(a):
    return a[0][7:] if a[0].startswith("::ffff:") else a[0]
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("::", 9100)); t.listen(1024)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.bind(("::", 9100))
def tl():
    while True:
        c, a = t.accept(); rec("tcp " + src(a)); c.close()
threading.Thread(target=tl, daemon=True).start()
open(out + ".ready", "w").close()
while True:
    x, a = u.recvfrom(65535)
    rec("udp " + src(a) + " " + x.decode(errors="replace"))
EOF
	: >"$TOPO_DIR/mark.seen"
	ip netns exec "$NI" $PY "$HB/mark.py" "$TOPO_DIR/mark.seen" >"$TOPO_DIR/mark.log" 2>&1 &
	echo $! >"$TOPO_DIR/mark.pid"
	n=0
	while [ ! -e "$TOPO_DIR/mark.seen.ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
}

oneTimeTearDown() {
	if [ -n "$IS_ROOT" ]; then
		[ -f "$TOPO_DIR/mark.pid" ] && kill "$(cat "$TOPO_DIR/mark.pid")" 2>/dev/null
		topo_down
		rm -rf "$HB"
	fi
	return 0
}

suite_setUp() {
	[ -n "$IS_ROOT" ] || skip "needs root (ip netns, nsenter)"
	if [ -d "$TOPO_DIR" ]; then : >"$TOPO_DIR/lan.seen" && : >"$TOPO_DIR/mark.seen"; fi
	return 0
}

# hostile BATCH [OTONET]: otonet in the fake host, its agent waiting; the
# batch injected into the sandbox; the relay checked alive; then the agent's
# 10 MiB download. Sets rc (otonet's, which is the agent's), irc (the
# injector's), alive (1 when the relay was still there after the batch);
# $T/out the download's line, $T/err otonet's stderr, $T/log its decisions.
hostile() {
	_bin=${2:-$OTO_BIN/otonet}
	rm -f "$T/agent.pid" "$T/go"
	in_host "$_bin" $AS $PUB --log-fd 3 -- sh -c "echo \$\$ >$T/agent.pid
		n=0; while [ ! -e $T/go ] && [ \$n -lt 1200 ]; do sleep 0.05; n=\$((n + 1)); done
		exec $NT down 203.0.113.10 $TEN" >"$T/out" 2>"$T/err" 3>"$T/log" &
	_opid=$!
	n=0
	while [ ! -s "$T/agent.pid" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	nsenter -t "$(cat "$T/agent.pid")" -n "$INJ" "$1" >"$T/inj.out" 2>"$T/inj.err"
	irc=$?
	# The mark is the batch's last packet: wait for it (bounded) before looking.
	n=0
	while ! grep -q "mark $1\$" "$TOPO_DIR/mark.seen" && [ $n -lt 60 ]; do sleep 0.05; n=$((n + 1)); done
	alive=0
	if kill -0 "$_opid" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$_opid/status"; then
		alive=1
	fi
	touch "$T/go"
	wait "$_opid"
	rc=$?
}

# assertSurvived BATCH [EXPECTED MARKER LINES]: everything a batch must leave.
# Messages name the batch and $LABEL.
assertSurvived() {
	set -- "$1" "${2:-}" "$1${LABEL:-}"
	assertEquals "$3: injector: $(cat "$T/inj.err")" 0 "$irc"
	assertTrue "$3: injector sent: $(cat "$T/inj.out")" "grep -q '^$1 [1-9][0-9]*\$' '$T/inj.out'"
	assertEquals "$3: relay alive after the batch ($(cat "$T/err"))" 1 "$alive"
	assertEquals "$3: 10 MiB download after the batch: $(cat "$T/err")" "ok" "$(cat "$T/out")"
	assertEquals "$3: otonet's exit code is the agent's" 0 "$rc"
	assertEquals "$3: sanitizer or fatal: $(cat "$T/err")" 0 \
		"$(grep -cE 'fatal|Sanitizer|runtime error' "$T/err")"
	# Only the agent's own address ever reached the filter (the session's
	# open and close lines have no source address).
	assertEquals "$3: decisions for forged sources: $(refusals_of "$T/log" | grep -v '"src":"\(10.0.2.100\|fd00::100\)"' | head -3)" \
		0 "$(refusals_of "$T/log" | grep -vc '"src":"\(10.0.2.100\|fd00::100\)"')"
	assertEquals "$3: one session" "$(printf 'open otonet\nclose 0 0')" "$(session_of "$T/log")"
	assertEquals "$3: the LAN saw: $(cat "$TOPO_DIR/lan.seen")" 0 "$(wc -c <"$TOPO_DIR/lan.seen")"
	_want=$(printf '%s\nudp 203.0.113.1 mark %s' "${2:-}" "$1" | sed '/^$/d' | sort)
	assertEquals "$3: what reached the marker port" "$_want" "$(sort "$TOPO_DIR/mark.seen")"
}

test_trunc4() { hostile trunc4; assertSurvived trunc4; }
test_trunc6() { hostile trunc6; assertSurvived trunc6; }
test_lying_lengths() { hostile lying-lengths; assertSurvived lying-lengths; }
test_ipopts() { hostile ipopts; assertSurvived ipopts; }
test_frags() { hostile frags; assertSurvived frags; }
test_ext6() { hostile ext6; assertSurvived ext6; }
test_tcpflags() { hostile tcpflags; assertSurvived tcpflags; }
test_synflood() { hostile synflood; assertSurvived synflood; }
test_unknown_acks() { hostile unknown-acks; assertSurvived unknown-acks; }
test_seq() { hostile seq; assertSurvived seq; }
test_windows() { hostile windows; assertSurvived windows; }
test_urgent() { hostile urgent; assertSurvived urgent; }
test_icmp_errors() { hostile icmp-errors; assertSurvived icmp-errors; }
test_spoofed_src() { hostile spoofed-src; assertSurvived spoofed-src; }
test_vnet() { hostile vnet; assertSurvived vnet; }

# The only batch where some packets are well formed enough to be sent on: a
# UDP length under the payload cuts it, a zero checksum is "none" over IPv4.
UDP_LYING_SEEN="udp 203.0.113.1 short
udp 203.0.113.1 zerosum4
udp 2001:db8:1::1 short"
test_udp_lying() { hostile udp-lying; assertSurvived udp-lying "$UDP_LYING_SEEN"; }

# The injector itself needs what the agent does not have: proof that the
# batches above really come from a namespace-capable writer, not the agent.
test_agent_has_no_raw_socket() {
	run in_host "$OTO_BIN/otonet" $AS $PUB -- "$INJ" trunc4
	assertEquals "$(cat "$T/err")" 2 "$rc"
	assertContains "$(cat "$T/err")" "socket(AF_PACKET)"
}

# Every batch again against otonet built with gcc and ASan/UBSan, from the
# same sources (the unit tests' flags), linked with Debian's libraries. In
# make check's sanitized pass (OTO_SAN) the tests above already ran every
# batch against an ASan/UBSan otonet, OTO_SAN_BIN's: building one more
# (about 35 s) would check nothing new.
test_all_batches_under_asan() {
	[ "${OTONET_HOSTILE_ASAN:-1}" = 1 ] || skip "OTONET_HOSTILE_ASAN=0"
	[ -z "${OTO_SAN:-}" ] || skip "the sanitized pass: every batch above ran against OTO_SAN_BIN's otonet"
	for h in seccomp.h sodium.h sys/capability.h; do
		[ -f "/usr/include/$h" ] || skip "needs libseccomp-dev libsodium-dev libcap-dev"
	done
	[ -z "$_oto_skipped" ] || return 0
	# lib/version.c includes the header the Makefile generates.
	"$REPO/scripts/version-h.sh" 0 >"$HB/version.h"
	gcc -std=c11 -D_GNU_SOURCE -DOTO_SAN -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all -I"$REPO/lib" -I"$HB" -o "$HB/otonet-asan" \
		"$REPO"/lib/*.c "$REPO"/cmd/otonet/*.c "$OTO_TESTS/helpers/otonet_asan_seccomp.c" \
		-Wl,--wrap=seccomp_load -lseccomp -lsodium -lcap 2>"$T/build"
	assertEquals "ASan build: $(cat "$T/build")" 0 $?
	LABEL=" (asan)"
	# The relay's seccomp filter stays on, but kills the sanitizers' own calls:
	# sigaltstack at exit (SIGSYS, exit 159) is allowed in this build only
	# (helpers/otonet_asan_seccomp.c), LeakSanitizer's ptrace is switched off,
	# and a report stays within write: its first lines (the error's kind and
	# pc) reach stderr before the filter stops the stack trace.
	export ASAN_OPTIONS=detect_leaks=0:color=never:symbolize=0 UBSAN_OPTIONS=print_stacktrace=1 LABEL
	for b in $BATCHES; do
		: >"$TOPO_DIR/lan.seen"
		: >"$TOPO_DIR/mark.seen"
		hostile "$b" "$HB/otonet-asan"
		if [ "$b" = udp-lying ]; then
			assertSurvived "$b" "$UDP_LYING_SEEN"
		else
			assertSurvived "$b"
		fi
	done
	unset ASAN_OPTIONS UBSAN_OPTIONS LABEL
}

. shunit2
