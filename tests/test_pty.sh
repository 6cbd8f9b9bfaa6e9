#!/bin/sh
# The agent's terminal: a pty of the sandbox's own devpts, made by otoexec,
# relayed by otons' supervisor to the operator's terminal. Driven through a
# real pseudo-terminal (tests/helpers/ptydrive.py: the operator's terminal
# emulator and job-control shell), through the whole chain (otorun --no-net:
# otons, otomount, otoexec) unless a test says otherwise.
# run-as: root user
. "$(dirname "$0")/common.sh"

suite_setUp() {
	A=$T/agent
	mkdir -p "$A/workspace" "$A/knowledge" "$A/people/alice"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
	# The chain, as words for ptydrive to exec (no path here holds a space).
	AGENT="$OTO_BIN/otorun $AS --no-net --agent-root $A --role member --person alice"
	VIEW="otomount --agent-root $A --role member --person alice --ro $OTO_BIN:/opt/oto/bin"
	return 0
}

# drive [--rows N --cols N] SCRIPT -- CMD...: CMD on a new terminal, driven by
# SCRIPT (see ptydrive.py); the report in $T/out, what the terminal showed in
# $T/tty (\r removed: $T/rawtty keeps them), ptydrive's errors in $T/err.
drive() {
	run python3 "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" "$@"
	tr -d '\r' <"$T/rawtty" >"$T/tty"
}
# shown: what the terminal showed, for messages.
shown() { printf 'report:\n%s\nterminal:\n%s' "$(cat "$T/out")" "$(cat "$T/tty")"; }

# Every step done, the exit code, and the operator's terminal exactly as before.
assertSession() { # CODE
	assertNotContains "$(shown)" "$(cat "$T/out")" "fail "
	assertEquals "exit code; $(shown)" "$1" "$(report rc)"
	assertContains "report: $(cat "$T/out")" "$(report before)" " fg=job"
	assertEquals "the operator's terminal as before" "$(report before)" "$(report after)"
}

test_tty_is_a_pty_of_the_view() {
	drive 'expect END' -- $AGENT -- sh -c 'tty; test -t 0 && test -t 1 && test -t 2 && echo t012
		python3 -c "import os; print(*(os.ttyname(fd) for fd in (0, 1, 2)))"
		ls -1 /dev/pts; echo END'
	assertSession 0
	assertEquals "$(printf '/dev/pts/0\nt012\n/dev/pts/0 /dev/pts/0 /dev/pts/0\n0\nptmx\nEND')" \
		"$(cat "$T/tty")"
}

# Every terminal fd the agent holds, and /dev/tty, are its own pty: a node of
# the view's devpts, in a session of its own; nothing of the operator's.
MINE='import fcntl, os, stat, termios
pts = os.stat("/dev/pts").st_dev
for fd in sorted(int(f) for f in os.listdir("/proc/self/fd")):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    if os.isatty(fd) and st.st_dev != pts:
        print("fd", fd, "is a terminal of another devpts")
t = os.open("/dev/tty", os.O_RDWR)
sid = int.from_bytes(fcntl.ioctl(t, 0x5429, bytes(4)), "little")  # TIOCGSID
print("session", "mine" if sid == os.getsid(0) == os.getpid() else sid,
      "foreground", "mine" if os.tcgetpgrp(t) == os.getpgrp() else os.tcgetpgrp(t))'

test_agent_holds_nothing_of_the_operators_terminal() {
	drive 'expect foreground' -- $AGENT -- python3 -c "$MINE"
	assertSession 0
	assertEquals "session mine foreground mine" "$(cat "$T/tty")"
}

test_typing_reaches_a_shell_and_its_output_comes_back() {
	drive 'expect $ 
send echo hi$((40+2))\n
expect \r\nhi42\r\n
expect $ 
send exit\n' -- $AGENT -- sh -i
	assertSession 0
	# The line as typed (echoed by the pty), then the shell's output.
	assertEquals "$(printf '$ echo hi$((40+2))\nhi42\n$ exit')" "$(cat "$T/tty")"
}

test_window_size_at_start_and_when_it_changes() {
	drive --rows 33 --cols 101 'expect waiting
winsize 40 120
expect END' -- $AGENT -- sh -c 'stty size; trap "stty size; echo END; exit 3" WINCH
		echo waiting; while :; do sleep 0.05; done'
	assertSession 3
	assertEquals "$(printf '33 101\nwaiting\n40 120\nEND')" "$(cat "$T/tty")"
}

# One window change, one SIGWINCH: the kernel's, from the pty, after its size
# changed. pid 1 is in the operator's process group and gets the operator's
# SIGWINCH too: were it to pass that on, the agent would get two, the
# first possibly before the pty has the new size. perl counts deliveries
# (its handler runs for each), a shell's trap would merge them.
test_one_sigwinch_per_window_change() {
	drive --rows 33 --cols 101 'expect waiting
winsize 40 120
sleep 1
winsize 41 121
expect END' -- $AGENT -- perl -e '$| = 1; my ($n, @s) = (0);
		$SIG{WINCH} = sub { $n++; push @s, `stty size` };
		print "waiting\n"; select(undef, undef, undef, 0.05) while $n < 2;
		select(undef, undef, undef, 1); print "$n @s", "END\n"; exit 3'
	assertSession 3
	assertEquals "$(printf 'waiting\n2 40 120\n 41 121\nEND')" "$(cat "$T/tty")"
}

test_ctrl_c_interrupts_the_job_and_the_shell_goes_on() {
	drive 'expect $ 
send sleep 30\n
sleep 0.5
send \x03
send echo rc=$?\n
expect rc=130
send exit 0\n' -- $AGENT -- sh -i
	assertSession 0
}

test_ctrl_z_and_fg() {
	drive 'expect $ 
send sleep 30\n
sleep 0.5
send \x1a
expect Stopped
send jobs\n
expect sleep 30
send fg\n
sleep 0.5
send \x03
send echo rc=$?\n
expect rc=130
send exit 0\n' -- $AGENT -- sh -i
	assertSession 0
	# rc=130: fg resumed the job, and ^C ended it (the shell itself ignores ^C).
	assertContains "$(shown)" "$(cat "$T/tty")" "[1] + Stopped"
}

test_exit_status_comes_back() {
	drive 'expect $ 
send exit 7\n' -- $AGENT -- sh -i
	assertSession 7
	assertEquals "no message" "$(printf '$ exit 7')" "$(cat "$T/tty")"
	drive '' -- $AGENT -- sh -c 'kill -TERM $$'
	assertSession 143
	drive '' -- $AGENT -- sh -c 'kill -KILL $$'
	assertSession 137
}

test_the_agents_modes_stay_in_its_pty() {
	# Raw, without echo or signals: the pty's, not the operator's terminal.
	drive '' -- $AGENT -- sh -c 'stty raw -echo -isig; stty -a | grep -q -- "-isig -icanon" &&
		echo set; kill -KILL $$'
	assertSession 137
	assertEquals "set" "$(cat "$T/tty")"
}

test_tiocsti_reaches_only_the_agents_own_pty() {
	# A profile that lets TIOCSTI through (the default refuses it).
	otoexec --print-profile default | grep -v ' == 0x5412$' >"$T/sti.profile"
	chmod a+r "$T/sti.profile"
	drive 'expect pushed' -- $OTO_BIN/otorun $AS --no-net --agent-root $A --role member \
		--person alice --profile $T/sti.profile -- python3 -c 'import fcntl, termios
for c in b"echo PWNED\n":
    fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
print("pushed")'
	assertSession 0
	assertEquals "nothing waits for the operator's shell" "b''" "$(report typeahead)"
}

test_output_written_at_exit_is_all_shown() {
	drive '' -- $AGENT -- sh -c 'head -c 300000 /dev/zero | tr "\0" y; echo; exit 5'
	assertSession 5
	assertEquals 300000 "$(tr -cd y <"$T/tty" | wc -c)"
	# A failing stage after the pty was made: its message comes through too.
	drive '' -- $AGENT -- /nonexistent/agent
	assertSession 127
	holds="/bin /dev /etc /home /knowledge"
	for d in /lib /lib32 /lib64 /libx32; do [ -e "$d" ] && holds="$holds $d"; done
	holds="$holds /opt /private /proc /sbin /tmp /usr /work"
	assertEquals "otoexec: fatal: unable to exec /nonexistent/agent: not found in the sandbox's view (the view holds $holds; a host path outside it is not there: bind it with --ro SRC:DST): No such file or directory" \
		"$(cat "$T/tty")"
}

test_fds_that_are_not_the_terminal_pass_through() {
	drive 'expect END' -- sh -c "$AGENT -- sh -c 'echo out; test -t 1 || echo no tty; tty >&2' \
		>$T/file; echo END"
	assertSession 0
	assertEquals "stdout, untouched" "$(printf 'out\nno tty')" "$(cat "$T/file")"
	assertEquals "stdin and stderr, the pty" "$(printf '/dev/pts/0\nEND')" "$(cat "$T/tty")"
}

test_through_otosecret() {
	otosecret keygen --out "$T/key"
	echo 'TOKEN=s3cret' | otosecret seal --key-file "$T/key" --store "$T/store"
	drive 'expect END' -- $OTO_BIN/otorun $AS --no-net --agent-root $A --role member \
		--person alice --secret TOKEN --store $T/store --key-file $T/key -- \
		sh -c 'tty; echo ${#TOKEN}; echo END'
	assertSession 0
	assertEquals "$(printf '/dev/pts/0\n6\nEND')" "$(cat "$T/tty")"
}

test_without_otomount_the_pty_is_the_hosts() {
	drive 'expect END' -- otons $AS -- otoexec -- sh -c 'tty; python3 -c "import os; print(os.ttyname(2))"; echo END'
	assertSession 0
	a=$(sed -n 1p "$T/tty") b=$(sed -n 2p "$T/tty")
	assertContains "a pty: $(shown)" "$a" /dev/pts/
	assertEquals "ttyname" "$a" "$b"
	assertNotEquals "not the operator's own" "$(report terminal)" "$a"
}

test_no_pty_shares_the_operators_terminal() {
	drive 'expect END' -- otons $AS --no-pty -- otoexec -- sh -c 'tty; echo END'
	assertSession 0
	assertEquals "$(printf '%s\nEND' "$(report terminal)")" "$(cat "$T/tty")"
}

test_pty_without_a_terminal() {
	# stdin and stdout relayed; the end of stdin is VEOF for the shell.
	printf 'tty\necho x$((1+1))\n' | timeout -k 5 20 otons $AS --pty -- $VIEW -- \
		/opt/oto/bin/otoexec -- sh >"$T/raw" 2>"$T/err"
	rc=$?
	assertEquals "exit code; $(cat "$T/err")" 0 "$rc"
	tr -d '\r' <"$T/raw" >"$T/o"
	assertEquals "$(cat "$T/o")" 1 "$(grep -c '/dev/pts/0$' "$T/o")"
	assertEquals "$(cat "$T/o")" 1 "$(grep -c 'x2$' "$T/o")"
	# Without --pty, no terminal: none.
	printf 'tty\n' | otons $AS -- $VIEW -- /opt/oto/bin/otoexec -- sh >"$T/o" 2>"$T/err"
	assertEquals "not a tty" "$(cat "$T/o")"
}

test_hostile_sender_on_the_socket() {
	# Without otoexec, the program itself holds the socket otons offers.
	send='import array, os, socket, sys
fd = int(os.environ["OTO_PTY"].split(":")[0])
s = socket.socket(fileno=fd)
r, w = os.pipe()
what = sys.argv[1]
fds = [] if what == "none" else [r, w] if what == "two" else [r]
s.sendmsg([bytes(4)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else [])
try:
    for i in range(3):
        s.sendmsg([bytes(4)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))])
        __import__("time").sleep(0.2)
    print("more accepted")
except (BrokenPipeError, ConnectionResetError):
    print("cut off")
sys.exit(5)'
	for what in pipe:"the fd sent is not a pty master" two:"Protocol error" none:"Protocol error"; do
		run otons $AS --pty -- python3 -c "$send" "${what%%:*}"
		assertEquals "$what: $(cat "$T/err")" 5 "$rc"
		assertEquals "$what" "cut off" "$(cat "$T/out")"
		assertEquals "$what" "otons: warning: no pty for the sandbox: ${what#*:}" "$(cat "$T/err")"
	done
}

test_a_closed_pty_does_not_make_otons_spin() {
	# Nothing holds the slave for 2 s: the master reports a hangup, for ever.
	drive '' -- $AGENT -- sh -c 'exec </dev/null >/dev/null 2>&1; sleep 2; exit 4'
	assertSession 4
	assertTrue "CPU time used: $(report cpu) s" "[ $(report cpu | tr -d .) -lt 50 ]"
}

test_an_agent_that_reads_nothing_cannot_hold_otons() {
	# The pty (raw: a full one takes nothing more) and the relay fill up; a
	# signal to otons still gets through.
	drive 'expect raw
flood 1000000
kill 15' -- $AGENT -- sh -c 'stty raw -echo; echo raw; exec sleep 30'
	assertSession 143
	assertTrue "the terminal filled up: $(report ok)" "[ $(report ok | sed -n 's/.* wrote //p') -lt 1000000 ]"
}

# What otons writes at the end when the agent's output reached the terminal
# with control sequences (ttyfilter.c, ttyf_reset): DECSTR, modes off, SGR 0.
MODES='\033[!p\033[?9;1000;1001;1002;1003;1004;1005;1006;1015;1016;2004;2026l\033[?1;66l\033[?25;7h\033>\033(B\017\033[0 q'
RESET="$MODES\033[0m"

# The agent's last words to the terminal: a title, a clipboard write, the
# conceal attribute, and a title report (the terminal answers with the
# title, typed into its input, which is the operator's shell's once the
# session is over); the OSC and the report cut across writes.
HOSTILE='printf "\033]0;l;touch /tmp/pwned;\007\033]5"; sleep 0.2; printf "2;c;cHduZWQ="
	sleep 0.2; printf "\007\033[8mEND\n\033[2"; sleep 0.2; printf "1t"'

test_clipboard_and_title_report_never_reach_the_terminal() {
	drive --answer 0.05 'expect END' -- $AGENT -- sh -c "$HOSTILE"
	assertSession 0
	# The title and the attribute pass (drawing); the clipboard and the
	# report do not. Then the reset, and otons' own question (CSI 5 n).
	printf "\033]0;l;touch /tmp/pwned;\007\033[8mEND\r\n$RESET\033[5n" >"$T/want"
	assertTrue "the terminal got: $(od -An -c "$T/rawtty")" "cmp -s $T/want $T/rawtty"
	assertEquals "nothing waits for the operator's shell" "b''" "$(report typeahead)"
}

# The terminal's answer to the agent's last question comes after the agent
# has gone (0.1 s later): otons reads it, up to its own question's answer.
test_answers_owed_to_the_agent_never_reach_the_shell() {
	drive --answer 0.1 '' -- $AGENT -- sh -c 'printf "\033[6n"; exit 3'
	assertSession 3
	assertEquals "nothing waits for the operator's shell" "b''" "$(report typeahead)"
	printf "\033[6n$RESET\033[5n" >"$T/want"
	assertTrue "the terminal got: $(od -An -c "$T/rawtty")" "cmp -s $T/want $T/rawtty"
}

# A terminal that never answers holds the end DRAIN_MS (0.3 s), no more
# (here: 0.32 s from the last byte written to otons' exit, against 0.03 s
# for an answering terminal or an agent that wrote text only, which gets
# no reset).
test_a_terminal_that_never_answers_holds_the_end_briefly() {
	drive '' -- $AGENT -- sh -c 'echo text'
	assertSession 0
	assertEquals "text only: no reset" "text" "$(cat "$T/rawtty" | tr -d '\r')"
	drive '' -- $AGENT -- sh -c 'printf "\033[6n"'
	assertSession 0
	assertEquals "nothing waits for the operator's shell" "b''" "$(report typeahead)"
	assertTrue "the end took $(report end) s" "[ $(report end | tr -d .) -lt 1000 ]"
}

# A link the agent opened and left open: the operator's prompt would be its
# text, a click away from the agent's address. The reset closes it.
test_a_link_left_open_is_closed() {
	drive --answer 0 '' -- $AGENT -- sh -c 'printf "\033]8;;https://example.org/\033\\\\here"'
	assertSession 0
	printf "\033]8;;https://example.org/\033\\\\here$MODES\033]8;;\033\\\\\033[0m\033[5n" >"$T/want"
	assertTrue "the terminal got: $(od -An -c "$T/rawtty")" "cmp -s $T/want $T/rawtty"
}

# An agent that floods the terminal with random bytes (sequences of every
# kind, cut anywhere) to its end: the session ends, and the terminal's
# answers to whatever passed never reach the shell.
test_a_flood_of_random_bytes_ends_and_leaves_nothing() {
	drive --answer 0.01 '' -- $AGENT -- sh -c 'head -c 2000000 /dev/urandom; exit 4'
	assertSession 4
	assertEquals "nothing waits for the operator's shell" "b''" "$(report typeahead)"
	# The reset's end (what comes before it depends on what the agent set).
	tail -c 8 "$T/rawtty" >"$T/end"
	printf '\033[0m\033[5n' >"$T/want"
	assertTrue "the end: $(od -An -c "$T/end")" "cmp -s $T/want $T/end"
}

. shunit2
