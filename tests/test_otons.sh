#!/bin/sh
# otons alone: namespaces, id maps, exit codes, signals, reaping, errors.
# run-as: root user
. "$(dirname "$0")/common.sh"

ns() { otons $AS "$@"; }

test_every_namespace_is_new() {
	for n in user mnt pid ipc uts cgroup net; do
		outside=$(readlink /proc/self/ns/$n)
		inside=$(ns -- readlink /proc/self/ns/$n)
		assertNotEquals "$n namespace" "$outside" "$inside"
		assertContains "$n namespace inside" "$inside" "$n:["
	done
}

test_share_keeps_a_namespace() {
	for n in net ipc uts cgroup; do
		assertEquals "--share $n" "$(readlink /proc/self/ns/$n)" \
			"$(ns --share $n -- readlink /proc/self/ns/$n)"
		assertNotEquals "--share $n leaves user" "$(readlink /proc/self/ns/user)" \
			"$(ns --share $n -- readlink /proc/self/ns/user)"
	done
	assertEquals "--share mnt" "$(readlink /proc/self/ns/mnt)" \
		"$(ns --share mnt --no-proc -- readlink /proc/self/ns/mnt)"
}

test_id_maps_and_setgroups_deny() {
	me=$(id -u)
	[ -n "$IS_ROOT" ] && me=$OTO_TEST_USER
	run ns -- sh -c 'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups'
	assertEquals 0 "$rc"
	assertEquals "$(printf '%s\n%s\n%s 1\n%s 1\ndeny' "$me" "$me" "$me $me" "$me $me")" \
		"$(awk 'NF == 3 { print $1, $2, $3; next } { print }' "$T/out")"
}

test_uid_gid_options() {
	run ns --uid 1234 --gid 2345 -- sh -c 'id -u; id -g; awk "{print \$1}" /proc/self/uid_map'
	assertEquals "$(printf '1234\n2345\n1234')" "$(cat "$T/out")"
	run ns --uid 0 --gid 0 -- id -u
	assertEquals 0 "$(cat "$T/out")"
}

test_hostname() {
	assertEquals agent "$(ns -- hostname)"
	assertEquals box7 "$(ns --hostname box7 -- hostname)"
}

test_caps_are_ambient_inside() {
	run ns -- sh -c 'grep CapAmb /proc/self/status'
	assertNotEquals "CapAmb:	0000000000000000" "$(cat "$T/out")"
}

test_nested_userns_refused() {
	run ns -- unshare -U true
	assertEquals 1 "$rc"
	assertContains "$(cat "$T/err")" "No space left on device"
	# Even root inside with every capability cannot raise the limit.
	run ns --uid 0 -- sh -c 'echo 100 > /proc/sys/user/max_user_namespaces; unshare -Ur true'
	assertEquals 1 "$rc"
}

test_userns_unavailable_is_explained() {
	# Inside a sandbox the user-namespace limit is used up: otons must say so.
	run ns -- otons -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertEquals "otons: fatal: unable to create a user namespace: No space left on device: the limit of user namespaces is reached (sysctl user.max_user_namespaces, here or in an enclosing namespace such as another oto sandbox)" "$(cat "$T/err")"
}

# A fork that fails says which one: here the first, with no process left
# under RLIMIT_NPROC for the sandbox's uid (root's own limit does not bind it).
test_fork_failure_names_the_fork() {
	run prlimit --nproc=1 "$OTO_BIN/otons" $AS -- true
	assertEquals 111 "$rc"
	assertEquals "otons: fatal: unable to fork the sandbox's first process: Resource temporarily unavailable" \
		"$(cat "$T/err")"
}

test_exit_code_passthrough() {
	run ns -- sh -c 'exit 7'
	assertEquals 7 "$rc"
	run ns -- sh -c 'kill -KILL $$'
	assertEquals 137 "$rc"
	run ns -- true
	assertEquals 0 "$rc"
}

test_sigterm_reaches_the_program() {
	otons $AS -- sh -c 'trap "exit 42" TERM; echo up > '"$T"'/up; while :; do sleep 0.05; done' &
	pid=$!
	n=0
	while [ ! -s "$T/up" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	kill -TERM "$pid"
	# Bounded: a supervisor that does not pass SIGTERM on would hang the suite.
	if wait_child "$pid" 5; then
		assertEquals "the program's trap ran" 42 "$rc"
	else
		fail "SIGTERM not passed on: otons still running 5 s after it (killed)"
	fi
}

test_orphan_is_reaped() {
	# The orphan (sleep 0.1) is reparented to pid 1, which must reap it.
	run ns -- sh -c 'sh -c "sleep 0.1 &"; sleep 0.6; ps -eo stat=,comm='
	assertEquals 0 "$rc"
	assertFalse "no zombie: $(cat "$T/out")" "grep -q '^Z' '$T/out'"
	assertTrue "ps ran inside: $(cat "$T/out")" "grep -q ps '$T/out'"
}

test_proc_shows_only_the_sandbox() {
	run ns -- sh -c 'ls /proc | grep -c "^[0-9]"'
	# grep -c exits 1 when it counts none: a /proc without a single pid (none
	# mounted, an empty directory) would pass the count alone.
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	# pid 1, sh, ls, grep at most; pid 1, sh and ls at least.
	assertTrue "few pids: $(cat "$T/out")" "[ $(cat "$T/out") -ge 3 ] && [ $(cat "$T/out") -le 4 ]"
}

# pid 1 shows a fixed name and nothing of otons' command line (which holds
# every later stage's options) or environment, and its mount table is one
# empty read-only tmpfs, not the host's. Canaries in otons' options, in the
# program's arguments (part of otons' argv too) and in the environment.
test_pid1_shows_nothing_of_the_chain_or_the_host() {
	export OTO_CANARY_ENV=cnry-env-7
	run ns --hostname cnry-host-7 -- sh -c '
		tr "\0" "\n" </proc/1/cmdline | grep -v "^\$"; echo "comm $(cat /proc/1/comm)"
		echo "mounts $(grep -c "" /proc/1/mountinfo)"; cut -d" " -f4,5,8,9 /proc/1/mountinfo
		grep "^Name:" /proc/1/status
		cat /proc/1/cmdline /proc/1/status /proc/1/stat /proc/1/mountinfo /proc/1/environ \
			/proc/1/sched 2>/dev/null | grep -c "cnry-" || :
		' sh cnry-arg-7
	unset OTO_CANARY_ENV
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "oto-init
comm oto-init
mounts 1
/ / tmpfs oto-init
Name:	oto-init
0" "$(cat "$T/out")"
}

test_daemon_dies_with_the_sandbox() {
	start=$(date +%s)
	out=$(ns -- sh -c 'setsid sh -c "sleep 8" & echo started')
	end=$(date +%s)
	assertEquals started "$out"
	# The daemon holds our pipe: had it survived, this would have taken 8 s.
	assertTrue "sandbox gone at once ($((end - start)) s)" "[ $((end - start)) -lt 5 ]"
}

test_die_with_parent() {
	for mode in --die-with-parent ""; do
		sh -c 'otons '"$AS"' '"$mode"' -- sleep 30 & echo $! > '"$T"'/pid; wait' &
		wrapper=$!
		n=0
		while [ ! -s "$T/pid" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
		sleep 0.2
		victim=$(cat "$T/pid")
		kill -KILL "$wrapper"
		if [ -n "$mode" ]; then
			assertTrue "otons gone with its parent" "wait_gone $victim 3"
		else
			# The control: without the option, otons outlives its parent.
			sleep 0.5
			assertTrue "otons alive without --die-with-parent" "kill -0 $victim"
			kill -TERM "$victim"
			wait_gone "$victim" 3
		fi
		rm -f "$T/pid"
	done
}

# pty_job [OPTION]... -- CMD...: CMD as a job of a pretend shell on a new
# pseudo-terminal (tests/helpers/ptyjob.py); the report in $T/out, CMD's stderr in $T/err.
pty_job() { run python3 "$OTO_TESTS/helpers/ptyjob.py" --err "$T/err" "$@"; }
# report WORD: the report's line that starts with WORD, without it.
report() { sed -n "s/^$1 //p" "$T/out"; }

# The terminal after the job, field by field as before it: modes, speeds, control
# characters, foreground process group.
assertTerminalAsBefore() { # CODE [fg=job|fg=shell]
	assertContains "report: $(cat "$T/out")" "$(report before)" " ${2:-fg=job} "
	assertEquals "terminal as before" "$(report before)" "$(report after)"
	assertEquals "the program's exit code" "$1" "$(report rc)"
	assertEquals "no warning" "" "$(cat "$T/err")"
}

test_terminal_modes_restored() {
	pty_job -- otons $AS -- sh -c 'stty raw -echo -isig; stty -a >'"$T"'/during; exit 3'
	assertContains "the program made it raw" "$(cat "$T/during")" "-isig -icanon"
	assertContains "the program turned echo off" "$(cat "$T/during")" " -echo "
	assertTerminalAsBefore 3
	assertEquals "the shell can write" ok "$(report write)"
}

test_terminal_foreground_restored() {
	steal='import os, signal
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.setpgid(0, 0)
os.tcsetpgrp(0, os.getpgrp())
open("'"$T"'/during", "w").write("fg" if os.tcgetpgrp(0) == os.getpgrp() else "bg")
raise SystemExit(5)'
	# A job-control shell's job, then the job of a shell without job control.
	pty_job -- otons $AS -- python3 -c "$steal"
	assertEquals "the program took the foreground" fg "$(cat "$T/during")"
	assertTerminalAsBefore 5
	rm -f "$T/during"
	pty_job --plain -- otons $AS -- python3 -c "$steal"
	assertEquals "the program took the foreground (no job control)" fg "$(cat "$T/during")"
	assertTerminalAsBefore 5 fg=shell
}

test_terminal_restored_when_program_killed() {
	pty_job --kill-when "$T/ready" -- otons $AS -- \
		sh -c 'stty raw -echo -isig; stty -a >'"$T"'/during; touch '"$T"'/ready; exec sleep 30'
	assertContains "the program made it raw" "$(cat "$T/during")" "-isig -icanon"
	assertTerminalAsBefore 137
}

test_terminal_opened_by_name_restored() {
	# stdin, stdout and stderr are not the terminal; the program opens /dev/tty.
	pty_job --away -- otons $AS -- sh -c 'stty raw -echo -isig </dev/tty; exit 4'
	assertTerminalAsBefore 4
}

test_terminal_output_resumed() {
	pty_job -- otons $AS -- python3 -c 'import termios; termios.tcflow(0, termios.TCOOFF)'
	assertTerminalAsBefore 0
	assertEquals "output not left suspended" ok "$(report write)"
}

test_terminal_left_to_the_shell_after_bg() {
	# The shell took the terminal back while the sandbox ran on (^Z, bg) and
	# set its own modes: otons, ending in the background, must not take them.
	pty_job --bg-when "$T/ready" -- otons $AS -- \
		sh -c 'touch '"$T"'/ready; while [ ! -e '"$T"'/ready.taken ]; do sleep 0.05; done; exit 6'
	assertContains "report: $(cat "$T/out")" "$(report shell)" " fg=shell "
	assertEquals "terminal as the shell left it" "$(report shell)" "$(report after)"
	assertEquals 6 "$(report rc)"
	assertEquals "no warning" "" "$(cat "$T/err")"
}

test_usage_errors() {
	run otons $AS --bogus -- true
	assertEquals 100 "$rc"
	assertOneLine otons
	run otons $AS
	assertEquals 100 "$rc"
	assertOneLine otons
	run otons $AS --share nope -- true
	assertEquals 100 "$rc"
	assertOneLine otons
	run otons $AS --uid x -- true
	assertEquals 100 "$rc"
	run otons $AS --hostname
	assertEquals 100 "$rc"
	assertOneLine otons
}

test_exec_errors() {
	run ns -- /nonexistent/prog
	assertEquals 127 "$rc"
	assertOneLine otons
	printf '#!/bin/sh\n' >"$T/noexec"
	chmod 0644 "$T/noexec"
	run ns -- "$T/noexec"
	assertEquals 126 "$rc"
	assertOneLine otons
}

test_help_and_version() {
	run otons --help
	assertEquals 0 "$rc"
	assertTrue "usage on stdout" "grep -q '^usage: otons' '$T/out'"
	# --version: tests/test_build.sh, for every tool
}

test_status_fd() {
	OTO_STATUS_FD=3 ns -- /nonexistent 3>"$T/status" 2>/dev/null
	assertEquals 127 $?
	assertEquals "otons 127 2 unable to exec /nonexistent: No such file or directory" \
		"$(cat "$T/status")"
	OTO_STATUS_FD=3 ns -- true 3>"$T/status2"
	assertEquals 0 $?
	assertEquals 0 "$(wc -c <"$T/status2")"
}

test_root_needs_as() {
	[ -n "$IS_ROOT" ] || { skip "root only"; return 0; }
	run otons -- true
	assertEquals 100 "$rc"
	assertOneLine otons
	run otons --as root -- true
	assertEquals 100 "$rc"
	run otons --as no-such-user-here -- true
	assertEquals 100 "$rc"
}

# A new network namespace has lo up (127.0.0.1 and ::1) and nothing else:
# local servers and their clients work, nothing leaves.
test_loopback_is_up_in_a_new_network_namespace() {
	run otons $AS -- python3 -c '
import socket
for fam, a in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam); s.bind((a, 0)); s.listen()
    c = socket.create_connection((a, s.getsockname()[1]), 3)
    d, _ = s.accept(); c.sendall(b"ping"); print(a, d.recv(4).decode())
try:
    socket.create_connection(("10.0.0.1", 80), 3)
except OSError as e:
    print("10.0.0.1", e.strerror)'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "127.0.0.1 ping
::1 ping
10.0.0.1 Network is unreachable" "$(cat "$T/out")"
	run otons $AS -- cat /sys/class/net/lo/operstate /proc/net/dev
	assertEquals "interfaces: lo only" 1 "$(grep -c ':' "$T/out")"
}

. shunit2
