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

# Under a container runtime's seccomp profile that allows a user namespace
# but not sethostname, or not the other namespaces (Docker's default allows
# both only with CAP_SYS_ADMIN), the EPERM is the filter's: otons holds every
# capability there. otoexec's profile language stands in for the runtime's.
test_seccomp_refusal_named() {
	printf 'default allow\nerrno EPERM sethostname\n' >"$T/nohost"
	printf 'default allow\nerrno EPERM unshare if arg0 & 0x20000 == 0x20000\n' >"$T/nons"
	chmod 0644 "$T/nohost" "$T/nons"
	as_user=
	[ -n "$IS_ROOT" ] && as_user="setpriv --reuid $OTO_TEST_USER --regid $OTO_TEST_USER --clear-groups"
	hint='(refused by the seccomp filter otons was started under, such as a container'"'"'s default profile: run the container with deploy/seccomp-oto.json, README "Deploying"): Operation not permitted'
	run $as_user "$OTO_BIN/otoexec" --profile "$T/nohost" -- "$OTO_BIN/otons" -- /bin/true
	assertEquals "sethostname" 111 "$rc"
	assertEquals "otons: fatal: unable to set the host name $hint" "$(cat "$T/err")"
	run $as_user "$OTO_BIN/otoexec" --profile "$T/nons" -- "$OTO_BIN/otons" -- /bin/true
	assertEquals "unshare" 111 "$rc"
	assertEquals "otons: fatal: unable to create the namespaces mnt pid ipc uts cgroup net $hint" \
		"$(cat "$T/err")"
	# The control: the same chain under a filter that refuses nothing.
	printf 'default allow\n' >"$T/all" && chmod 0644 "$T/all"
	run $as_user "$OTO_BIN/otoexec" --profile "$T/all" -- "$OTO_BIN/otons" -- /bin/true
	assertEquals "control ($(cat "$T/err"))" 0 "$rc"
	# A filter that refuses the user namespace: the errno is unshare's own.
	printf 'default allow\nerrno EPERM unshare\n' >"$T/nouser" && chmod 0644 "$T/nouser"
	run $as_user "$OTO_BIN/otoexec" --profile "$T/nouser" -- "$OTO_BIN/otons" -- /bin/true
	assertEquals "user namespace" 111 "$rc"
	assertContains "$(cat "$T/err")" "otons: fatal: unable to create a user namespace: Operation not permitted: "
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

# /proc/sys as a container has it by default (bound read-only over itself):
# otons cannot limit nested user namespaces, and stops, naming the fix.
test_read_only_proc_sys_is_explained() {
	[ -n "$IS_ROOT" ] || { skip "needs root (a read-only bind of /proc/sys)"; return 0; }
	run unshare -m --propagation private sh -c \
		'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && exec "$@"' \
		sh "$OTO_BIN/otons" $AS -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertEquals "otons: fatal: unable to write /proc/sys/user/max_user_namespaces (/proc/sys is read-only here, as in a container by default: run it with --security-opt systempaths=unconfined, or procMount: Unmasked in Kubernetes; see README, Deploying): Read-only file system" "$(cat "$T/err")"
}

# A /proc partly covered as a container's is by default (Docker's masked
# paths: /dev/null over a file): no new proc for the pid namespace.
test_masked_proc_is_explained() {
	[ -n "$IS_ROOT" ] || { skip "needs root (a bind over /proc/interrupts)"; return 0; }
	run unshare -m --propagation private sh -c \
		'mount --bind /dev/null /proc/interrupts && exec "$@"' sh "$OTO_BIN/otons" $AS -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertEquals "otons: fatal: unable to mount a new /proc for the pid namespace (the kernel refuses it while /proc is partly covered, as in a container by default: run it with --security-opt systempaths=unconfined, or procMount: Unmasked in Kubernetes; see README, Deploying): Operation not permitted" "$(cat "$T/err")"
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

# --cgroup. The directory the sessions' leaves go in: as root, one made for
# this run and given to the test user (the directory alone: otons as root
# makes the leaf, and the account only removes it); as the test user, the subtree tests/run.sh
# delegated (OTO_TEST_CGROUP), in which this suite runs.
CG_MNT=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
CG_DIR=
if [ -n "$CG_MNT" ] && [ -n "$IS_ROOT" ]; then
	CG_DIR=$CG_MNT/oto-test-otons-$$
	mkdir "$CG_DIR" && chown "$OTO_TEST_USER" "$CG_DIR" || CG_DIR=
elif [ -n "$CG_MNT" ]; then
	CG_DIR=${OTO_TEST_CGROUP:-}
fi

oneTimeTearDown() {
	[ -n "$IS_ROOT" ] && [ -n "$CG_DIR" ] && [ -d "$CG_DIR" ] || return 0
	for c in "$CG_DIR"/*/; do [ -d "$c" ] && rmdir "$c"; done
	rmdir "$CG_DIR"
}

# need_cgroup [CONTROLLER]: skip unless there is a directory for the leaves
# and, when named, the controller is available there. On a hybrid host
# (cgroup v1 holding the controllers) they skip; test_otons_vm.sh runs every
# test_cgroup_* in a VM with a unified cgroup v2, where none does.
need_cgroup() {
	if [ -z "$CG_MNT" ]; then
		skip "cgroup v2 is not mounted"
		return 1
	elif [ -z "$CG_DIR" ]; then
		skip "no cgroup v2 directory delegated to uid $(id -u) (tests/run.sh makes one, run as root)"
		return 1
	elif [ -n "${1:-}" ] && ! grep -qw "$1" "$CG_DIR/cgroup.controllers"; then
		skip "no $1 controller in cgroup v2 here ($CG_DIR/cgroup.controllers: $(cat "$CG_DIR/cgroup.controllers"); a hybrid host keeps it in cgroup v1)"
		return 1
	fi
}

# The leaves otons made in DIR (default CG_DIR), one a line.
leaves() {
	for l in "${1:-$CG_DIR}"/otons-*; do [ -e "$l" ] && echo "$l"; done
}

test_cgroup_holds_pid1_and_the_program() {
	need_cgroup || return 0
	# Inside: the pids of the leaf (those of the sandbox's pid namespace),
	# and its own cgroup, which the cgroup namespace shows as its root.
	run ns --cgroup="$CG_DIR" -- sh -c 'tail -n1 /proc/self/cgroup; exec cat "$1"/otons-*/cgroup.procs' \
		sh "$CG_DIR"
	assertEquals 0 "$rc"
	assertEquals "$(printf '0::/\n1\n2')" "$(cat "$T/out")"
	assertEquals "no message" "" "$(cat "$T/err")"
	# After the session: its cgroup is gone, and so then is every process of it.
	assertEquals "leaves left" "" "$(leaves)"
}

test_cgroup_kills_what_the_program_left() {
	need_cgroup || return 0
	# Without a pid namespace nothing else would kill a daemon left behind.
	run ns --share pid --cgroup="$CG_DIR" -- sh -c 'setsid sleep 60 >/dev/null 2>&1 & echo $!'
	assertEquals 0 "$rc"
	daemon=$(cat "$T/out")
	# Killed (a zombie until its new parent reaps it) or gone.
	state=$(sed 's/.*) //' "/proc/$daemon/stat" 2>/dev/null | cut -c1)
	assertTrue "daemon $daemon state '$state'" "[ -z '$state' ] || [ '$state' = Z ]"
	[ -n "$state" ] && [ "$state" != Z ] && kill -KILL "$daemon"
	assertEquals "leaves left" "" "$(leaves)"
}

test_cgroup_default_directory_as_root() {
	[ -n "$IS_ROOT" ] || { skip "root only: the default directory is root's to make"; return 0; }
	need_cgroup || return 0
	d=$CG_MNT/oto/$OTO_TEST_USER
	# The sh below execs otons: its $$ is otons' pid, in the leaf's name.
	run sh -c 'exec otons --as "$1" --cgroup -- sh -c "exec cat $2/otons-$$-*/cgroup.procs"; ' \
		sh "$OTO_TEST_USER" "$d"
	assertEquals 0 "$rc"
	assertEquals "$(printf '1\n2')" "$(sort -n "$T/out")"
	# Delegated to the account (the directory, moves, controllers), its limits root's.
	assertEquals "$OTO_TEST_USER $OTO_TEST_USER $OTO_TEST_USER $OTO_TEST_USER 0" \
		"$(stat -c %u "$d" "$d/cgroup.procs" "$d/cgroup.subtree_control" "$d/cgroup.threads" \
			"$d/cgroup.max.depth" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "leaves left" "" "$(leaves "$d")"
}

test_cgroup_errors() {
	need_cgroup || return 0
	run ns --cgroup="$T" -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertEquals "otons: fatal: $T is not a cgroup v2 directory (statfs): name one under the cgroup2 mount (grep cgroup2 /proc/self/mountinfo)" "$(cat "$T/err")"
	run ns --cgroup=relative -- true
	assertEquals 100 "$rc"
	assertOneLine otons
	for bad in "--memory-max 0" "--memory-max 1MB" "--pids-max 0" "--cpu-max 0.001" "--cpu-max x"; do
		# shellcheck disable=SC2086 # the option and its value
		run ns $bad -- true
		assertEquals "$bad" 100 "$rc"
		assertOneLine otons
	done
	# Not delegated: the cgroup v2 root is root's.
	run ns --cgroup="$CG_MNT" -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	if [ -n "$IS_ROOT" ]; then
		assertEquals "otons: fatal: $CG_MNT belongs to uid 0, not to $OTO_TEST_USER (uid $OTO_TEST_USER): otons, which runs as that account by the end, could not remove the session's cgroup from it" "$(cat "$T/err")"
	else
		assertTrue "$(cat "$T/err")" "grep -qx 'otons: fatal: unable to make the cgroup $CG_MNT/otons-[0-9]*-[0-9a-f]* (not delegated to this account): Permission denied' '$T/err'"
		run otons --cgroup -- true
		assertEquals 100 "$rc"
		assertEquals "otons: fatal: --cgroup without a directory needs root: name a directory delegated to you (--cgroup=DIR)" "$(cat "$T/err")"
	fi
	# A limit whose controller the directory does not have: x's parent
	# enables none for it.
	mkdir "$CG_DIR/np" "$CG_DIR/np/x"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$CG_DIR/np/x"
	run ns --cgroup="$CG_DIR/np/x" --pids-max 5 -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertEquals "otons: fatal: the pids controller is not available in $CG_DIR/np/x/cgroup.controllers (it has: none): enable it in the parent's cgroup.subtree_control, or on a host whose cgroup v1 holds it, free it there" "$(cat "$T/err")"
	assertEquals "leaves left in np/x" "" "$(leaves "$CG_DIR/np/x")"
	rmdir "$CG_DIR/np/x" "$CG_DIR/np"
}

# A step after the leaf is made fails (here the user namespace, inside a
# sandbox): the leaf, still empty, goes with it.
test_cgroup_removed_when_the_launch_fails() {
	need_cgroup || return 0
	run ns -- otons --cgroup="$CG_DIR" -- true
	assertEquals 111 "$rc"
	assertOneLine otons
	assertContains "$(cat "$T/err")" "otons: fatal: unable to create a user namespace: No space left on device"
	assertEquals "leaves left" "" "$(leaves)"
}

test_cgroup_fork_bomb_meets_pids_max() {
	need_cgroup pids || return 0
	helper_cc forkn || return 0
	# 16 tasks: pid 1 and forkn, and 14 children; the 15th fork fails.
	ns --cgroup="$CG_DIR" --pids-max 16 -- "$T/forkn" 200 "$T/go" >"$T/bomb" 2>"$T/bomb.err" &
	bomb=$!
	n=0
	while [ ! -s "$T/bomb" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	assertEquals "14 EAGAIN" "$(cat "$T/bomb")"
	# Meanwhile, a second sandbox of the same account starts and runs.
	run ns --cgroup="$CG_DIR" --pids-max 16 -- echo ok
	assertEquals 0 "$rc"
	assertEquals ok "$(cat "$T/out")"
	: >"$T/go"
	wait_child "$bomb" 10
	assertEquals 0 "$rc"
	assertEquals "otons: warning: the session's cgroup refused 1 fork at pids.max (pids.events max)" \
		"$(cat "$T/bomb.err")"
	assertEquals "leaves left" "" "$(leaves)"
}

test_cgroup_memory_hog_is_killed_inside() {
	need_cgroup memory || return 0
	sleep 30 &
	outside=$!
	run ns --cgroup="$CG_DIR" --memory-max 32M -- python3 -c 'x = b"1" * (256 << 20); print("survived")'
	# SIGKILL from the OOM killer, to the whole session (memory.oom.group).
	assertEquals 137 "$rc"
	assertEquals "" "$(cat "$T/out")"
	assertTrue "$(cat "$T/err")" "grep -q '^otons: warning: the session.s cgroup ran out of memory: the OOM killer killed [0-9]* process\(es\)\? (memory.events oom_kill)$' '$T/err'"
	# The host's processes are untouched.
	assertTrue "a process outside still runs" "kill -0 $outside"
	kill "$outside"
	assertEquals "leaves left" "" "$(leaves)"
}

# --log-fd: the calls otoexec's filter refuses, logged by the supervisor,
# answered with the errno they get without a log.
refuse_build() {
	helper_cc refuse
}

# log_field FIELD: that field of every refusal's JSON line of $T/log, one a
# line (the session's open and close lines left out).
log_field() {
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["source"] != "session":
        print(d[sys.argv[2]])' "$T/log" "$1"
}

test_refusal_log_names_the_calls_same_errno() {
	refuse_build
	run ns -- otoexec -- "$T/refuse"
	assertEquals 0 "$rc"
	assertEquals "$(printf 'unshare EPERM\nmount EPERM\nbpf EPERM\nptrace EPERM')" "$(cat "$T/out")"
	cp "$T/out" "$T/without"
	run ns --log-fd 3 -- otoexec -- "$T/refuse" 3>"$T/log"
	assertEquals 0 "$rc"
	assertEquals "the same errno with the log" "$(cat "$T/without")" "$(cat "$T/out")"
	assertEquals "no message" "" "$(cat "$T/err")"
	assertEquals "unshare mount bpf ptrace" "$(log_field syscall | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "EPERM EPERM EPERM EPERM" "$(log_field errno | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "1 1 1 1" "$(log_field count | tr '\n' ' ' | sed 's/ $//')"
	# The arguments as the raw integers passed: unshare's flags, CLONE_NEWUSER.
	assertEquals 268435456 "$(log_field args | head -n1 | sed 's/^\[\([0-9]*\),.*/\1/')"
	# The program that made them, as the kernel names it and its executable.
	assertEquals "refuse refuse refuse refuse" "$(log_field comm | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "$T/refuse" "$(log_field exe | sort -u)"
	# One session: its open and close lines around them, one id on all.
	assertEquals "$(printf 'open otons\nclose 0 0')" "$(session_of "$T/log")"
}

test_refusal_log_is_bounded() {
	refuse_build
	run ns --log-fd 3 -- otoexec -- "$T/refuse" 100000 3>"$T/log"
	assertEquals 0 "$rc"
	assertEquals "bpf 100000 EPERM" "$(cat "$T/out")"
	# The first ten, then each power of ten.
	assertEquals "1 2 3 4 5 6 7 8 9 10 100 1000 10000 100000" \
		"$(log_field count | tr '\n' ' ' | sed 's/ $//')"
}

# A record budget of 4 KiB: 20,000 refused calls of one kind are thinned to
# 13 lines, more than 4 KiB from a program of a long name (each line holds
# its path), in a flood a fifth as long as the one above (the supervisor's
# 5% of a CPU makes that one ~20 s); with the budget at its least, the lines
# stop within it, one line says it is spent, and the last counts what was
# and was not written (otons' lines only: every refusal's line it had to
# write).
test_refusal_log_budget_spent_says_so() {
	refuse_build
	long=$T/refuse-a-name-long-enough-for-thirteen-lines-to-pass-four-kib
	cp "$T/refuse" "$long"
	run ns --log-fd 3 --log-budget 4K -- otoexec -- "$long" 20000 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "bpf 20000 EPERM" "$(cat "$T/out")"
	bytes=$(grep '"source":"seccomp"' "$T/log" | grep -v '"verdict":"budget"' | wc -c)
	assertTrue "seccomp lines within the budget: $bytes" "[ $bytes -le 4096 ] && [ $bytes -gt 2000 ]"
	written=$(grep -c '"source":"seccomp",.*"syscall"' "$T/log")
	assertEquals 1 "$(grep -c '"source":"seccomp",.*"verdict":"budget","rule":"budget-spent","budget":4096,' "$T/log")"
	assertEquals "the last seccomp line" \
		"\"verdict\":\"budget\",\"rule\":\"budget-end\",\"budget\":4096,\"written\":$written,\"unwritten\":$((13 - written))}" \
		"$(grep '"source":"seccomp"' "$T/log" | tail -n1 | sed 's/.*,"verdict"/"verdict"/')"
	run ns --log-budget 1000 -- true
	assertEquals 100 "$rc"
	assertEquals "otons: fatal: --log-budget 1000: expected 4K to 1T bytes" "$(head -n1 "$T/err")"
}

# A flood of refused calls costs the session, not the host: the supervisor,
# outside the session's cgroup, spends at most 5% of one CPU on the
# notifications, then the callers wait, asleep in the kernel (refusals.c).
# Four threads calling bpf() for 2 s: the supervisor's CPU time, from
# /proc (utime + stime), is asserted below 20% of those 2 s, a generous
# bound for a loaded machine (it is a bound on the host's share, not a
# benchmark: bench/flood.sh); without the budget it was 76% here. Every
# call still fails with EPERM, the log stays bounded (the first ten, then
# each power of ten), and the session ends with the program's code.
test_refusal_flood_costs_the_session() {
	helper_cc flood -pthread || return 0
	# shellcheck disable=SC2086 # AS is an option and its value
	otons $AS --log-fd 3 -- otoexec -- "$T/flood" 4 2 "$T/go" 3 3>"$T/log" >"$T/out" 2>"$T/err" &
	sup=$!
	n=0
	while [ ! -s "$T/out" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	# utime and stime, in clock ticks, while the session still runs.
	ticks=$(sed 's/.*) //' "/proc/$sup/stat" | awk '{ print $12 + $13 }')
	: >"$T/go"
	wait_child "$sup" 10
	assertEquals "the program's own code" 3 "$rc"
	assertEquals "no message" "" "$(cat "$T/err")"
	calls=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' "$T/out")
	assertEquals "every call EPERM" "calls $calls EPERM $calls other 0" "$(cat "$T/out")"
	# A flood: tens of thousands here; a few hundred in qemu's TCG
	# (tests/test_otons_vm.sh), where each notification costs 100 times more.
	assertTrue "calls made: $calls" "[ ${calls:-0} -ge 100 ]"
	hz=$(getconf CLK_TCK)
	share=$((${ticks:-999999} * 100 / (2 * hz)))
	echo "  the supervisor: ${ticks:-?} ticks of $hz/s in 2 s ($share% of a CPU), $calls refusals"
	assertTrue "the supervisor's CPU: $share% of the flood's 2 s" "[ $share -lt 20 ]"
	assertEquals "refusal lines" "$((8 + ${#calls}))" "$(refusals_of "$T/log" | wc -l)"
	assertEquals "$(printf 'open otons\nclose 3 0')" "$(session_of "$T/log")"
}

test_refusal_log_out_of_the_sandbox_reach() {
	# The log fd is the supervisor's: the program never holds it.
	run ns --log-fd 3 -- sh -c 'echo forged >&3' 3>"$T/log"
	assertEquals 2 "$rc"
	assertEquals "$(printf 'open otons\nclose 2 0')" "$(session_of "$T/log")"
	# Nor the supervisor's /proc, the one it names the callers from.
	run ns --log-fd 3 -- sh -c 'ls -l /proc/self/fd/ | grep -c " -> /proc$"' 3>"$T/log"
	assertEquals 0 "$(cat "$T/out")"
	run ns --log-fd 2 -- true
	assertEquals 100 "$rc"
	assertEquals "otons: fatal: --log-fd 2: not a file descriptor from 3 up (to log on stderr: 3>&2 and --log-fd 3)" \
		"$(cat "$T/err")"
	run ns --log-fd x -- true
	assertEquals 100 "$rc"
	assertEquals "otons: fatal: --log-fd x: not a file descriptor from 3 up" "$(cat "$T/err")"
	run ns --log-fd 9 -- true
	assertEquals 111 "$rc"
	assertEquals "otons: fatal: --log-fd 9: not an open fd: Bad file descriptor" "$(cat "$T/err")"
}

# Landlock's refusals in the same log, read from the kernel's audit: the
# sandbox's own, in the common shape, bounded per kind (the first 10, then
# each power of ten); a refusal by a process outside the sandbox, meanwhile,
# is not there.
test_landlock_refusals_in_the_log() {
	[ -n "$IS_ROOT" ] || { skip "needs root (the audit's read-log group)"; return 0; }
	lldeny_build || return 0
	audit_want 1 || { skip "the kernel's audit is off (OTO_TEST_AUDIT=switch lets the tests set it)"; return 0; }
	# The host's refusal is of another kind (fs.read_dir): its count is its own.
	(sleep 0.3; "$T/lldeny" exec "$T/lldeny" open 20 /etc >"$T/host"; touch "$T/hostdone") &
	host=$!
	run ns --log-fd 3 -- otoexec --landlock-ro /usr --landlock-ro "$T" -- \
		"$T/lldeny" open 100 /etc/hostname "$T/hostdone" 3>"$T/log"
	wait_child "$host" 10
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "100 EACCES" "$(cat "$T/out")"
	assertEquals "the host's process was refused too" "20 EACCES" "$(cat "$T/host")"
	python3 - "$T/log" >"$T/parsed" <<'PYEOF'
import datetime, json, sys, time
pids = set()
for line in open(sys.argv[1]):
    d = json.loads(line)
    t = datetime.datetime.strptime(d["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
    assert len(d["time"]) == 27 and abs(t - time.time()) < 300, d
    if d["source"] == "session":
        continue
    assert isinstance(d["pid"], int) and d["pid"] > 1 and isinstance(d["count"], int), d
    pids.add(d["pid"])
    print(d["source"], d["verdict"], d["blockers"], d["path"], d["count"], d["comm"], d["exe"])
print(len(pids), "pid")
PYEOF
	assertEquals "$(for c in 1 2 3 4 5 6 7 8 9 10 100; do
		echo "landlock deny fs.read_file /etc/hostname $c lldeny $T/lldeny"
	done)
1 pid" "$(cat "$T/parsed")"
	assertEquals "$(printf 'open otons\nclose 0 0')" "$(session_of "$T/log")"
}

# Behind otonet, otons runs unprivileged: otonet joins the read-log group
# while it is root and hands the socket on (OTO_AUDIT). otonet runs in this
# machine's network namespace here, the one the audit's records go to, with
# nothing to carry: no public internet (--no-public), no exception, and a
# program that opens no socket.
test_landlock_refusals_behind_otonet() {
	[ -n "$IS_ROOT" ] || { skip "needs root (otonet)"; return 0; }
	lldeny_build || return 0
	audit_want 1 || { skip "the kernel's audit is off (OTO_TEST_AUDIT=switch lets the tests set it)"; return 0; }
	run otonet $AS --no-public --log-fd 3 -- otons --share net --log-fd 4 -- \
		otoexec --landlock-ro /usr --landlock-ro "$T" -- "$T/lldeny" open 3 /etc/hostname \
		3>"$T/log" 4>&3
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "3 EACCES" "$(cat "$T/out")"
	assertEquals "landlock fs.read_file /etc/hostname 1
landlock fs.read_file /etc/hostname 2
landlock fs.read_file /etc/hostname 3" "$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["source"] != "session":
        print(d["source"], d["blockers"], d["path"], d["count"])' "$T/log")"
	# otonet, the outermost stage that logs, opens and closes the session.
	assertEquals "$(printf 'open otonet\nclose 0 0')" "$(session_of "$T/log")"
	# Nothing of the audit is left to the program: no socket of it among its fds.
	run otonet $AS --no-public --log-fd 3 -- otons --share net --log-fd 4 -- \
		otoexec -- sh -c 'env | grep -c OTO_AUDIT; ls -l /proc/self/fd | grep -c socket' \
		3>"$T/log" 4>&3
	assertEquals "$(printf '0\n0')" "$(cat "$T/out")"
}

# OTO_AUDIT is otonet's to set: anything but an audit socket's fd (or "!WHY")
# is refused; what is accepted never reaches the program.
test_oto_audit_checked_and_unset() {
	OTO_AUDIT=0 run ns -- true
	assertEquals 100 "$rc"
	assertEquals "otons: fatal: OTO_AUDIT=0: not a kernel audit socket's fd (otonet --log-fd sets it)" \
		"$(cat "$T/err")"
	OTO_AUDIT=5 run ns -- true 5<"$T"
	assertEquals 100 "$rc"
	assertOneLine otons
	OTO_AUDIT='!the reason' run ns -- sh -c 'env | grep -c "^OTO_AUDIT="'
	assertEquals 0 "$(cat "$T/out")"
}

# Without the audit, no Landlock line can come: one warning says why, and
# nothing else changes.
test_landlock_refusals_without_the_audit_say_why() {
	lldeny_build || return 0
	if [ -n "$IS_ROOT" ]; then
		audit_want 0 || { skip "the kernel's audit is on (OTO_TEST_AUDIT=switch lets the tests set it)"; return 0; }
		why="the kernel's audit is off (auditctl -e 1, or audit=1 at boot)"
	else
		why="reading the kernel's audit needs root: otons started as root (with --as), or otonet --log-fd before it"
	fi
	run ns --log-fd 3 -- otoexec --landlock-ro /usr --landlock-ro "$T" -- \
		"$T/lldeny" open 3 /etc/hostname 3>"$T/log"
	assertEquals 0 "$rc"
	assertEquals "3 EACCES" "$(cat "$T/out")"
	assertEquals "otons: warning: Landlock's refusals are not in the log: $why" "$(cat "$T/err")"
	assertEquals "" "$(refusals_of "$T/log")"
	assertEquals "$(printf 'open otons\nclose 0 0')" "$(session_of "$T/log")"
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
	# Outside any view: the caller's own files, searched on its PATH.
	PATH=/usr/bin:/bin run "$OTO_BIN/otons" $AS -- no-such-program-anywhere
	assertEquals 127 "$rc"
	assertEquals "otons: fatal: unable to exec no-such-program-anywhere: not found in PATH=/usr/bin:/bin: No such file or directory" \
		"$(cat "$T/err")"
	printf '#!/bin/sh\n' >"$T/noexec"
	chmod 0644 "$T/noexec"
	run ns -- "$T/noexec"
	assertEquals 126 "$rc"
	assertOneLine otons
}

# pid 1 starts the program by vfork (supervise.c) with the signals as the
# caller gave them to otons: none blocked, none caught, the caller's ignored
# ones alone, whatever otons and pid 1 block and catch.
test_program_signals() {
	grep '^Sig[BIC]' /proc/self/status >"$T/outside"
	ns -- grep '^Sig[BIC]' /proc/self/status >"$T/inside"
	assertEquals 0 $?
	assertEquals 3 "$(wc -l <"$T/inside")"
	assertEquals "$(cat "$T/outside")" "$(cat "$T/inside")"
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
