#!/bin/sh
# The agent's file of its own session's refusals (OTO_WHY, oto(7)): in the
# view at /run/oto/why, read-only, written from outside by otonet's relay
# and otons' supervisor, one short line per refusal or decision of the
# record, printable ASCII only, bounded. The whole chain in the test
# topology (tests/net/topo.sh), composed by otorun.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/lan.seen"
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp "$NETTOOL" "$A/workspace/nettool.py"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
}

chain() {
	ip netns exec "$NH" "$OTO_BIN/otorun" --as "$OTO_TEST_USER" \
		--public 203.0.113.0/24 --agent-root "$A" --person alice --role member "$@"
}

test_refused_connect_explained() {
	run chain --no-public --allow-name other.test -- sh -c 'echo "$OTO_WHY"
		python3 /work/nettool.py connect 203.0.113.10 9002
		python3 /work/nettool.py connect 10.1.0.10 8087
		python3 /work/nettool.py resolve a.inet.test udp
		cat "$OTO_WHY"'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "/run/oto/why" "$(sed -n 1p "$T/out")"
	assertEquals NXDOMAIN "$(sed -n 4p "$T/out")"
	assertEquals \
"net: refused tcp 203.0.113.10:9002: not allowed under --no-public; allow with --allow tcp:203.0.113.10:9002
net: refused tcp 10.1.0.10:8087: a private or special address (10.0.0.0/8); allow with --allow tcp:10.1.0.10:8087
dns: refused a.inet.test (A): no --allow-name rule names it; allow with --allow-name a.inet.test" \
		"$(sed -n '5,$p' "$T/out")"
	assertLanUntouched
}

# The agent reads the file, and can neither write, remove, chmod nor
# remount it: a read-only mount of a tmpfs of its own, no writer inside.
test_file_read_only_to_the_agent() {
	run chain -- sh -c 'python3 -c "import errno, os
f = os.environ[\"OTO_WHY\"]
for what, call in ((\"append\", lambda: os.open(f, os.O_WRONLY | os.O_APPEND)),
                   (\"truncate\", lambda: os.truncate(f, 0)),
                   (\"unlink\", lambda: os.unlink(f)),
                   (\"chmod\", lambda: os.chmod(f, 0o666)),
                   (\"create\", lambda: os.open(\"/run/oto/other\", os.O_WRONLY | os.O_CREAT))):
    try: call(); print(what, \"done\")
    except OSError as e: print(what, errno.errorcode[e.errno])"
		mount -o remount,rw /run/oto 2>/dev/null || echo "remount $?"
		stat -c "%a %s" "$OTO_WHY"
		grep " /run/oto " /proc/self/mountinfo | cut -d" " -f6'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "append EACCES
truncate EACCES
unlink EROFS
chmod EROFS
create EROFS
remount 32
444 0
ro,nosuid,nodev,noexec,relatime" "$(cat "$T/out")"
}

# What the agent chose (here its program's name, which a seccomp refusal
# names, with bytes a terminal acts on: OSC 0 sets a title, BEL ends it)
# reaches the file as printable text: nothing but printable ASCII and
# newlines in it. (A DNS name with such bytes is refused as malformed
# before any name is recorded.)
test_agent_names_escaped() {
	run chain --log-fd 3 -- sh -c 'python3 -c "import ctypes
l = ctypes.CDLL(None)
l.prctl(15, b\"\\x1b]0;owned\\x07\\x1b[8m\", 0, 0, 0)
l.unshare(0x10000000)"; cat "$OTO_WHY"; LC_ALL=C tr -d "\n -~" <"$OTO_WHY" | wc -c' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals 'seccomp: refused unshare (EPERM) to \x1b]0;owned\x07\x1b[8m: not in the profile; no otorun option allows it
0' "$(cat "$T/out")"
}

# otons' seccomp refusals, with the record on (--log-fd): the same line there.
test_seccomp_refusal_explained() {
	run chain --log-fd 3 -- sh -c 'python3 -c "import ctypes
ctypes.CDLL(None).unshare(0x10000000)"; cat "$OTO_WHY"' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "seccomp: refused unshare (EPERM) to python3: not in the profile; no otorun option allows it" \
		"$(cat "$T/out")"
	assertContains "$(cat "$T/log")" '"source":"seccomp"'
}

# Each writer keeps to its budget (16 KiB), then says once that the rest is
# in the operator's record; the first lines stay as they were.
test_bound() {
	run chain --no-public --log-fd 3 -- sh -c 'python3 -c "import socket
for p in range(10000, 10400):
    s = socket.socket()
    try: s.connect((\"203.0.113.10\", p))
    except OSError: pass
    s.close()"; wc -c <"$OTO_WHY"; head -n 1 "$OTO_WHY"; tail -n 1 "$OTO_WHY"; wc -l <"$OTO_WHY"' 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	last="otonet: more than this file holds of its lines (16384 bytes); the rest are in the operator's record only"
	assertEquals "net: refused tcp 203.0.113.10:10000: not allowed under --no-public; allow with --allow tcp:203.0.113.10:10000
$last
149" "$(sed -n '2,4p' "$T/out")"
	# Its lines within the budget, and the last line beyond it.
	size=$(sed -n 1p "$T/out")
	assertTrue "$size bytes" "[ $size -le $((16384 + ${#last} + 1)) ] && [ $size -gt 16000 ]"
	assertEquals 400 "$(grep -c '"rule":"no-public"' "$T/log")"
}

. shunit2
