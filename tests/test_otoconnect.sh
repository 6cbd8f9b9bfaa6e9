#!/bin/sh
# otoconnect alone, on the host: both sides of a Unix socket, 1 MB each way
# byte for byte (10 MiB echoed), the half-close, no descriptor across
# (the tool on pipes), one tool process per connection and --max,
# hostile clients (garbage, half-closed, reset, 1,000 connections at once)
# after which the next client is served, and the errors. Through the views
# of two chains: tests/test_tool.sh.
# run-as: root user
. "$(dirname "$0")/common.sh"

# serve [OPTIONS] -- PROG...: otoconnect --serve $T/s.sock in the background
# ($srv), its stderr in $T/srv.err; waits (bounded) for the socket.
serve() {
	otoconnect --serve "$T/s.sock" "$@" 2>"$T/srv.err" &
	srv=$!
	_n=0
	while [ ! -S "$T/s.sock" ] && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
}

suite_tearDown() {
	[ -n "${srv:-}" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	srv=
	return 0
}

# The tool reads all the client sent (1 MB), answers its sha256, then sends
# 1 MB of its own: the hash comes only after the client's half-close reached
# it, and both directions are compared whole.
test_one_megabyte_each_way_byte_exact() {
	head -c 1048576 /dev/urandom >"$T/up"
	head -c 1048576 /dev/urandom >"$T/down"
	chmod 0644 "$T/up" "$T/down"
	serve -- sh -c 'sha256sum | cut -c1-64; cat "$0"' "$T/down"
	run timeout 20 otoconnect "$T/s.sock" <"$T/up"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "up, as the tool read it" "$(sha256sum <"$T/up" | cut -c1-64)" "$(head -n1 "$T/out")"
	assertEquals "down, as the client wrote it" "$(sha256sum <"$T/down")" \
		"$(tail -c 1048576 "$T/out" | sha256sum)"
	assertEquals 1048641 "$(wc -c <"$T/out")"
	# Echoed while it is sent: both directions at once, no deadlock.
	kill "$srv"
	wait "$srv" 2>/dev/null
	rm -f "$T/s.sock"
	serve -- cat
	run timeout 20 otoconnect "$T/s.sock" <"$T/up"
	assertEquals "echo rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "echo" "$(sha256sum <"$T/up")" "$(sha256sum <"$T/out")"
	assertEquals "the server said nothing" "" "$(cat "$T/srv.err")"
}

# The tool answers only after its end of input: a client that never shut its
# write side down would wait for ever (here: timeout's 124).
test_half_close_reaches_the_tool() {
	serve -- sh -c 'n=$(wc -c); echo "got $n"'
	run timeout 5 otoconnect "$T/s.sock" <<-EOF
	hello
	EOF
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "got 6" "$(cat "$T/out")"
	# An empty stdin: the end at once, then the answer.
	run timeout 5 otoconnect "$T/s.sock" </dev/null
	assertEquals "got 0" "$(cat "$T/out")"
}

# A Python client that misbehaves in every way, then holds 1,000 connections
# at once (non-blocking: each connects or gets EAGAIN once the backlog is
# full) while the tool processes are counted, then closes them all.
HOSTILE_PY='
import errno, os, socket, struct, sys, time
path, srv = sys.argv[1], sys.argv[2]
def conn(block=True):
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(block)
    s.connect(path)
    return s
s = conn(); s.sendall(os.urandom(65536)); s.close()
s = conn(); s.shutdown(socket.SHUT_WR); s.close()
s = conn(); s.sendall(b"\0\xff" * 1000); s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); s.close()
s = conn(); s.shutdown(socket.SHUT_RDWR); s.close()
held, again, other = [], 0, 0
for i in range(1000):
    try:
        held.append(conn(False))
    except OSError as e:
        if e.errno == errno.EAGAIN: again += 1
        else: other += 1
time.sleep(0.5)
kids = len(open(f"/proc/{srv}/task/{srv}/children").read().split())
for h in held[:500]: h.send(b"junk\n")
for h in held: h.close()
print(len(held) + again, other, kids, "held" if len(held) >= 60 else "few")
'

test_hostile_clients_do_not_stop_the_next() {
	serve --max 4 -- sh -c 'read -r line; echo "got $line"'
	run timeout 60 python3 -c "$HOSTILE_PY" "$T/s.sock" "$srv"
	assertEquals "hostile client: $(cat "$T/err")" 0 "$rc"
	# 1,000 attempts, none failing otherwise than EAGAIN; 4 tool processes
	# at most while they were held; the backlog's worth held at least.
	assertEquals "1000 0 4 held" "$(cat "$T/out")"
	assertTrue "the server lives" "kill -0 $srv"
	run timeout 10 otoconnect "$T/s.sock" <<-EOF
	hello
	EOF
	assertEquals "the next client ($(cat "$T/err"))" "got hello" "$(cat "$T/out")"
	assertEquals 0 "$rc"
	assertEquals "the server said nothing" "" "$(cat "$T/srv.err")"
}

# --max 1 (the default): one connection at a time, each by a new process;
# --max 2: two at once. The tool logs its start and end.
test_one_at_a_time_each_a_new_process() {
	for max in 1 2; do
		: >"$T/log"
		chmod 0666 "$T/log"
		serve --max $max -- sh -c 'echo "start $$" >>"$0"; sleep 0.5; echo "end $$" >>"$0"' "$T/log"
		otoconnect "$T/s.sock" </dev/null &
		a=$!
		otoconnect "$T/s.sock" </dev/null &
		b=$!
		wait_child $a 10
		wait_child $b 10
		kill "$srv"
		wait "$srv" 2>/dev/null
		rm -f "$T/s.sock"
		if [ $max = 1 ]; then want="start end start end"; else want="start start end end"; fi
		assertEquals "--max $max" "$want" "$(cut -d' ' -f1 "$T/log" | tr '\n' ' ' | sed 's/ $//')"
		assertEquals "--max $max: two processes" 2 "$(cut -d' ' -f2 "$T/log" | sort -u | wc -l)"
	done
}

# Descriptors never cross the socket: the tool's stdin and stdout are
# pipes, filled and drained by otoconnect. An agent that sends a
# descriptor of its own (SCM_RIGHTS; here /, a directory a tool could walk
# from) with its bytes: the tool, reading its stdin with recvmsg where it
# can, gets the bytes alone. A tool that sends one on its stdout: the agent
# gets the bytes alone. The agent's side is its own code, not otoconnect's
# client: the socket is in its view.
FDPASS="/usr/bin/python3 $OTO_TESTS/helpers/fdpass.py"
test_no_descriptor_crosses_the_socket() {
	# shellcheck disable=SC2086 # split on purpose
	serve -- $FDPASS tool-recv
	# shellcheck disable=SC2086
	run timeout 10 $FDPASS agent-send "$T/s.sock" /
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "tool: 0 fds (not a socket), hello" "$(cat "$T/out")"
	assertEquals "the server said nothing" "" "$(cat "$T/srv.err")"
	kill "$srv"
	wait "$srv" 2>/dev/null
	rm -f "$T/s.sock"
	# shellcheck disable=SC2086
	serve -- $FDPASS tool-send /
	# shellcheck disable=SC2086
	run timeout 10 $FDPASS agent-recv "$T/s.sock"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "agent: 0 fds, hi" "$(cat "$T/out")"
	assertEquals "tool-send: stdout is not a socket" "$(cat "$T/srv.err")"
}

# 10 MiB each way at once through the pipes, echoed while it is sent: byte
# for byte, within 20 s (about a second here).
test_ten_mebibytes_round_trip() {
	head -c 10485760 /dev/urandom >"$T/up"
	chmod 0644 "$T/up"
	serve -- cat
	start=$(date +%s)
	run timeout 20 otoconnect "$T/s.sock" <"$T/up"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$(sha256sum <"$T/up")" "$(sha256sum <"$T/out")"
	assertTrue "within 20 s" "[ $(($(date +%s) - start)) -lt 20 ]"
}

# EADDRINUSE in musl's words; the sanitized pass runs glibc builds (tests/run.sh).
EADDRINUSE_TEXT="Address in use"
[ -n "${OTO_SAN:-}" ] && EADDRINUSE_TEXT="Address already in use"

test_errors() {
	run otoconnect "$T/none.sock" </dev/null
	assertEquals 111 "$rc"
	assertEquals "otoconnect: fatal: unable to connect to $T/none.sock: No such file or directory" \
		"$(cat "$T/err")"
	# A socket nobody listens on: refused at once.
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/stale.sock"
	run otoconnect "$T/stale.sock" </dev/null
	assertEquals 111 "$rc"
	assertEquals "otoconnect: fatal: unable to connect to $T/stale.sock: Connection refused" \
		"$(cat "$T/err")"
	# An existing path is never replaced.
	run otoconnect --serve "$T/stale.sock" -- cat
	assertEquals 111 "$rc"
	assertEquals "otoconnect: fatal: unable to bind the socket $T/stale.sock (it exists: remove it, or choose another): $EADDRINUSE_TEXT" \
		"$(cat "$T/err")"
	# A tool that cannot run: its connection ends, the server goes on.
	serve -- /nonexistent/tool
	run timeout 5 otoconnect "$T/s.sock" </dev/null
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "" "$(cat "$T/out")"
	assertTrue "the server lives" "kill -0 $srv"
	assertContains "$(cat "$T/srv.err")" "otoconnect: fatal: unable to exec /nonexistent/tool"
}

test_mode() {
	serve --mode 0 -- cat
	assertEquals "0 root-owned" "$(stat -c '%a %U' "$T/s.sock" | sed "s/ $(id -un)\$/ root-owned/")"
	kill "$srv"
	wait "$srv" 2>/dev/null
	rm -f "$T/s.sock"
	serve -- cat
	assertEquals 600 "$(stat -c %a "$T/s.sock")"
	kill "$srv"
	wait "$srv" 2>/dev/null
	rm -f "$T/s.sock"
	serve --mode 660 -- cat
	assertEquals 660 "$(stat -c %a "$T/s.sock")"
}

test_usage() {
	for args in "" "--max 2 $T/x" "--mode 600 $T/x" "$T/x extra" "--serve $T/x" \
		"--serve $T/x --max 0 -- cat" "--serve $T/x --max 1025 -- cat" \
		"--serve $T/x --mode 800 -- cat" "--serve /$(printf '%0107d' 0) -- cat" "--bogus"; do
		# shellcheck disable=SC2086 # split on purpose
		run otoconnect $args
		assertEquals "otoconnect $args" 100 "$rc"
		assertOneLine otoconnect
	done
	run otoconnect --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "--serve SOCKET"
}

. shunit2
