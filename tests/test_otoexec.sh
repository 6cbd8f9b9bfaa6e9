#!/bin/sh
# otoexec alone and at the end of the chain (otons -- otoexec): capabilities,
# no_new_privs, the seccomp profile (refused calls, over-blocking, foreign
# ABIs), fds, environment, Landlock, rlimits, ids, profiles and errors.
# run-as: root user
. "$(dirname "$0")/common.sh"

TOP=${OTO_TOP:-$OTO_TESTS/..}
STD_PATH=/usr/local/bin:/usr/bin:/bin

oneTimeSetUp() {
	D=$(mktemp -d /tmp/oto-otoexec.XXXXXX)
	chmod 755 "$D"
	gcc -O1 -o "$D/probe" "$OTO_TESTS/helpers/otoexec_probe.c" -lpthread || return 1
	cat >"$D/threads.c" <<'C'
#include <pthread.h>
#include <stdio.h>
static long sum[4];
static void *work(void *a) { long i = (long)a; for (long k = 0; k <= 1000000; k++) sum[i] += k; return 0; }
int main(void) {
	pthread_t t[4];
	for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, work, (void *)i);
	for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
	printf("%ld\n", sum[0] + sum[1] + sum[2] + sum[3]);
	return 0;
}
C
	gcc -O1 -o "$D/threads" "$D/threads.c" -lpthread || return 1
	# The controls: a filter that refuses nothing.
	printf 'default allow\n' >"$D/allow"
	chmod -R a+rX "$D"
}
oneTimeTearDown() { rm -rf "$D"; }

# The two ways otoexec runs: alone, and in the chain behind otons.
alone() { otoexec "$@"; }
chain() { otons $AS -- otoexec "$@"; }
# The control: the same program without otoexec, where the caller's rights are.
control() { otons $AS -- "$@"; }

status_field() { # FIELD: its value in the agent's /proc/self/status, for MODE in $1
	awk -v f="$2:" '$1 == f { print $2 }' "$1"
}

check_status() { # MODE
	run $1 -- cat /proc/self/status
	assertEquals "$1: exit" 0 "$rc"
	for f in CapInh CapPrm CapEff CapAmb; do
		assertEquals "$1: $f" 0000000000000000 "$(status_field "$T/out" $f)"
	done
	# Without CAP_SETPCAP (a plain user, alone) the bounding set cannot change;
	# with no permitted capability and no_new_privs it grants nothing.
	if [ "$1" = chain ] || [ -n "$IS_ROOT" ]; then
		assertEquals "$1: CapBnd" 0000000000000000 "$(status_field "$T/out" CapBnd)"
	fi
	assertEquals "$1: NoNewPrivs" 1 "$(status_field "$T/out" NoNewPrivs)"
	assertEquals "$1: Seccomp" 2 "$(status_field "$T/out" Seccomp)"
}

test_status_alone() { check_status alone; }
test_status_chain() {
	# The chain's point: otons hands every capability on as ambient.
	run control cat /proc/self/status
	assertNotEquals "control CapAmb" 0000000000000000 "$(status_field "$T/out" CapAmb)"
	check_status chain
}

test_securebits_locked() {
	# NOROOT 0x1, NO_SETUID_FIXUP 0x4, NO_CAP_AMBIENT_RAISE 0x40, each with its
	# lock (x2), and KEEP_CAPS (0x10) off but locked (0x20): 0xef. Python reads
	# PR_GET_SECUREBITS (27). Setting them needs CAP_SETPCAP: root, or the chain.
	get='import ctypes; print(hex(ctypes.CDLL(None).prctl(27, 0, 0, 0, 0)))'
	assertEquals chain 0xef "$(chain -- python3 -c "$get")"
	if [ -n "$IS_ROOT" ]; then
		assertEquals alone 0xef "$(alone -- python3 -c "$get")"
	else
		assertEquals "alone, a plain user" 0x0 "$(alone -- python3 -c "$get")"
	fi
}

test_capset_raise_fails() {
	for m in alone chain; do
		run $m -- "$D/probe" capset
		assertEquals "$m" EPERM "$(cat "$T/out")"
	done
}

test_setuid_root_binary_does_not_raise_euid() {
	[ -n "$IS_ROOT" ] || { skip "root only: makes a setuid-root file"; return 0; }
	cp /usr/bin/id "$T/suid-id"
	chown 0:0 "$T/suid-id"
	chmod 4755 "$T/suid-id"
	# The control: without otoexec the setuid bit works here.
	assertEquals "control euid" 0 "$(setpriv --reuid 65534 --regid 65534 --clear-groups "$T/suid-id" -u)"
	run alone --uid 65534 --gid 65534 -- "$T/suid-id" -u
	assertEquals 0 "$rc"
	assertEquals 65534 "$(cat "$T/out")"
}

# Calls the kernel lets a caller without capabilities take as far as the
# filter: the probe's arguments make them fail with another errno than EPERM.
REFUSED="unshare:newns unshare:newuser unshare:newpid unshare:newnet unshare:newipc
unshare:newuts unshare:newcgroup unshare:newtime clone:newns clone:newuser clone:newpid
clone:newnet clone:newipc clone:newuts clone:newcgroup mount umount2 chroot
setns fsconfig open_tree mount_setattr keyctl add_key
request_key bpf perf_event_open userfaultfd io_uring_setup ptrace process_vm_readv
process_vm_writev kcmp pidfd_getfd open_by_handle_at kexec_load init_module finit_module
delete_module settimeofday clock_settime iopl ioperm quotactl
personality:rie socket:17 socket:38 socket:40 socket:15 socket:16/9"

# Calls whose kernel check wants a capability before it looks at anything
# else: the agent, which holds none, would get EPERM from the kernel with no
# filter at all. Each runs with that capability kept (CALL=CAP, --keep-cap),
# so that only the filter can answer EPERM.
CAP_FIRST="pivot_root=sys_admin fsopen=sys_admin fsmount=sys_admin fspick=sys_admin
move_mount=sys_admin reboot=sys_boot"
# The same, with the capability wanted in the initial user namespace: only
# host root running otoexec alone can hold it. In the chain (a user namespace
# of its own) the kernel refuses these itself, so the chain cannot show that
# the filter does: the profile is the one checked alone.
HOST_CAP="swapon=sys_admin acct=sys_pacct syslog=syslog fanotify_init=sys_admin"

# check_refused MODE CALL[=CAP]...: each call gets EPERM. The control is the
# same command under a profile that allows everything (same mode, same ids,
# same capabilities): the kernel's own answer, which must not be EPERM.
check_refused() {
	_m=$1
	shift
	for cc; do
		c=${cc%=*}
		keep=
		[ "$c" = "$cc" ] || keep="--keep-cap ${cc#*=}"
		ctl=$($_m --profile "$D/allow" $keep -- "$D/probe" $c)
		got=$($_m $keep -- "$D/probe" $c)
		assertEquals "$_m: $c $keep (control: $ctl)" EPERM "$got"
		assertNotEquals "$_m: control of $c $keep" EPERM "$ctl"
		assertNotEquals "$_m: control of $c $keep ran" "" "$ctl"
	done
}

test_refused_calls_alone() {
	check_refused alone $REFUSED
	assertEquals "alone: clone3" ENOSYS "$(alone -- "$D/probe" clone3)"
	assertEquals "control clone3" EINVAL "$(alone --profile "$D/allow" -- "$D/probe" clone3)"
}
test_refused_calls_chain() {
	check_refused chain $REFUSED
	assertEquals "chain: clone3" ENOSYS "$(chain -- "$D/probe" clone3)"
	assertEquals "control clone3" EINVAL "$(chain --profile "$D/allow" -- "$D/probe" clone3)"
}
test_refused_capability_calls_alone() {
	[ -n "$IS_ROOT" ] || {
		skip "a plain user alone has no capability to keep: the kernel says EPERM before the filter"
		return 0
	}
	check_refused alone $CAP_FIRST $HOST_CAP
}
test_refused_capability_calls_chain() { check_refused chain $CAP_FIRST; }

# Over-blocking controls: allowed calls still reach the kernel's checks.
test_allowed_calls_reach_the_kernel() {
	for m in alone chain; do
		for pair in clone:none=EINVAL socket:1=EINVAL socket:2=EINVAL socket:10=EINVAL \
			socket:16=EINVAL read=EBADF write=EFAULT openat=EFAULT getppid=OK \
			personality:query=OK tiocgwinsz=OK nr:452=EFAULT; do
			assertEquals "$m: ${pair%=*}" "${pair#*=}" "$($m -- "$D/probe" ${pair%=*})"
		done
	done
}

test_unknown_numbers_get_enosys() {
	# 457 (statmount), 462 (mseal): newer than this build's syscall table.
	for n in 457 462; do
		assertNotEquals "control $n" ENOSYS "$(control "$D/probe" nr:$n)"
		assertEquals "nr $n" ENOSYS "$(chain -- "$D/probe" nr:$n)"
	done
	# A known number the profile does not allow is EPERM (tuxcall 184 has no
	# implementation, so the control says ENOSYS).
	assertEquals "nr 184" EPERM "$(chain -- "$D/probe" nr:184)"
	# The unknown numbers are ranges checked before the allowlist (335-423,
	# 457-1023 on x86-64): the known numbers at their edges are not in them
	# (rseq 334, pidfd_send_signal 424, futex_requeue 456), and a number past
	# 1023 gets the default, not the unknown action.
	for n in 334 424 456; do
		assertNotEquals "nr $n: known" ENOSYS "$(chain -- "$D/probe" nr:$n)"
	done
	assertEquals "nr 1024" EPERM "$(chain -- "$D/probe" nr:1024)"
}

test_tiocsti_refused_benign_ioctl_works() {
	for m in alone chain; do
		assertEquals "$m TIOCSTI" EPERM "$($m -- "$D/probe" tiocsti)"
		# Only the low 32 bits count in the kernel: so in the filter.
		assertEquals "$m TIOCSTI|1<<32" EPERM "$($m -- "$D/probe" tiocsti-high)"
		assertEquals "$m TIOCGWINSZ" OK "$($m -- "$D/probe" tiocgwinsz)"
	done
	# Without CAP_SYS_ADMIN the kernel itself may refuse TIOCSTI with EPERM
	# (dev.tty.legacy_tiocsti=0): the same rules with errno 77 show the filter's own answer.
	otoexec --print-profile default | sed 's/^errno EPERM ioctl if/errno 77 ioctl if/' >"$T/p"
	for m in alone chain; do
		for c in tiocsti tiocsti-high tioclinux tioclinux-high; do
			assertEquals "$m $c" EBADFD "$($m --profile "$T/p" -- "$D/probe" $c)"
		done
		assertEquals "$m TIOCGWINSZ" OK "$($m --profile "$T/p" -- "$D/probe" tiocgwinsz)"
	done
	assertEquals "control TIOCLINUX" ENOTTY "$(control "$D/probe" tioclinux)"
	if [ -n "$IS_ROOT" ]; then
		# The control: root outside may push a byte into a tty.
		assertEquals "control TIOCSTI as root" OK "$("$D/probe" tiocsti)"
	fi
}

test_filter_covers_threads_and_children() {
	for m in alone chain; do
		assertEquals "$m thread" EPERM "$($m -- "$D/probe" thread unshare:newuser)"
		assertEquals "$m thread read" EBADF "$($m -- "$D/probe" thread read)"
		assertEquals "$m child" EPERM "$($m -- "$D/probe" fork mount)"
		assertEquals "$m child keyctl" EPERM "$($m -- "$D/probe" fork keyctl)"
		assertEquals "$m child read" EBADF "$($m -- "$D/probe" fork read)"
	done
}

test_foreign_abis_refused() {
	# x32: the control gets an answer from the kernel; the filter kills (SIGSYS).
	run control "$D/probe" x32
	assertEquals "control x32" 0 "$((rc == 159))"
	for m in alone chain; do
		run $m -- "$D/probe" x32
		assertEquals "$m x32" 159 "$rc"
		run $m -- "$D/probe" int80
		assertNotEquals "$m int 0x80 must not succeed" 0 "$rc"
		assertNotEquals "$m int 0x80 must not answer" OK "$(cat "$T/out")"
	done
	run "$D/probe" int80
	if [ "$rc" = 0 ]; then
		# This kernel runs i386 calls: the filter must kill them.
		run chain -- "$D/probe" int80
		assertEquals "int 0x80 killed" 159 "$rc"
	else
		echo "  note: this kernel refuses int 0x80 itself (rc $rc, ia32 emulation off)"
	fi
}

# ---- real programs under the default profile ----

check_programs() { # MODE
	m=$1
	mkdir -p "$T/$m" "$T/$m-control" && chmod 777 "$T/$m" && cd "$T/$m" || return
	assertEquals "$m sh" "6" "$($m -- sh -c 'a=1; for i in 2 3; do a=$((a*i)); done; echo $a')"
	assertEquals "$m bash" "a-b-c" "$($m -- bash -c 'x=(a b c); IFS=-; echo "${x[*]}"')"
	assertEquals "$m python3" "[1, 4, 9] 3f786850e387550fdab836ed7e6dc881de23001b" \
		"$($m -- python3 -c 'import hashlib,subprocess,threading; print([i*i for i in (1,2,3)], hashlib.sha1(b"a\n").hexdigest())')"
	assertEquals "$m python3 subprocess" "hi" \
		"$($m -- python3 -c 'import subprocess; print(subprocess.run(["echo","hi"],capture_output=True,text=True).stdout.strip())')"
	assertEquals "$m node" "6 hi" \
		"$($m -- node -e 'const c=require("child_process"); console.log([1,2,3].reduce((a,b)=>a+b), c.execFileSync("echo",["hi"]).toString().trim())')"
	# git: init, add, commit, log; the commit id is fixed by content, author and dates.
	git='git init -q -b main r && cd r && echo hello > f && git add f &&
		 git -c user.name=A -c user.email=a@x commit -qm first && git log --format=%H%n%s'
	# The control: the same commit made outside (its id is fixed by content and dates).
	want=$(cd "$T/$m-control" && env -i PATH=$STD_PATH HOME="$T/$m-control" \
		GIT_AUTHOR_DATE=@1700000000+0000 GIT_COMMITTER_DATE=@1700000000+0000 sh -c "$git")
	run $m --env HOME="$T/$m" --env GIT_AUTHOR_DATE=@1700000000+0000 \
		--env GIT_COMMITTER_DATE=@1700000000+0000 -- sh -c "$git"
	assertEquals "$m git rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$m git" "$want" "$(cat "$T/out")"
	assertEquals "$m git: two lines" 2 "$(wc -l <"$T/out")"
	# gcc compiles and runs a C program; make drives it.
	printf '#include <stdio.h>\nint main(void){printf("%%d\\n", 6*7);return 0;}\n' >"$T/$m/p.c"
	printf 'p: p.c\n\tgcc -O1 -o p p.c\n' >"$T/$m/Makefile"
	run $m -- sh -c 'make -s && ./p'
	assertEquals "$m make+gcc rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$m make+gcc" 42 "$(cat "$T/out")"
	# tar and gzip: a round trip with exact bytes.
	seq 1 20000 >"$T/$m/data"
	want=$(sha256sum <"$T/$m/data")
	run $m -- sh -c 'tar czf a.tgz data && mkdir x && tar xzf a.tgz -C x && sha256sum < x/data && gzip -t a.tgz'
	assertEquals "$m tar/gzip" "$want" "$(cat "$T/out")"
	# coreutils.
	assertEquals "$m coreutils" "$(printf '3\nb\nc\nd\n5050')" "$($m -- sh -c \
		'mkdir d && printf "c\nb\nd\n" > d/f && cp d/f d/g && mv d/g d/h && sort d/h > d/s &&
		 ls d | wc -l && cat d/s && rm -r d && seq 100 | paste -sd+ | sed "s/+/ + /g" | xargs expr')"
	assertEquals "$m threads" 2000002000000 "$($m -- "$D/threads")"
	cd / || return
}

test_real_programs_alone() { check_programs alone; }
test_real_programs_chain() { check_programs chain; }

# ---- fds ----

test_only_std_and_kept_fds_pass() {
	mkdir "$T/dir"
	: >"$T/file"
	list='for n in 3 4 5 6 7 8 9; do [ -e /proc/self/fd/$n ] && printf "%s " $n; done; echo'
	for m in alone chain; do
		assertEquals "$m launcher" "5 7 9 " \
			"$(sh -c "$list" 5<"$T/file" 7<"$T/dir" 9</dev/null)"
		out=$(: | $m -- sh -c "$list" 5<"$T/file" 7<"$T/dir" 9<&0)
		assertEquals "$m none kept" "" "$out"
		out=$(: | $m --keep-fd 7 --keep-fd 9 -- sh -c "$list" 5<"$T/file" 7<"$T/dir" 9<&0)
		assertEquals "$m kept 7 9" "7 9 " "$out"
	done
	run alone --keep-fd 42 -- true
	assertEquals "keep-fd of a closed fd" 100 "$rc"
	assertOneLine otoexec
}

test_status_fd_eof_at_exec_and_line_on_failure() {
	mkfifo "$T/st"
	# The agent does not see the status fd, and the launcher reads EOF.
	( OTO_STATUS_FD=8 otoexec -- sh -c '[ -e /proc/self/fd/8 ] && echo leaked; echo ran' >"$T/agent" 8>"$T/st" ) &
	cat "$T/st" >"$T/line"
	wait
	assertEquals ran "$(cat "$T/agent")"
	assertEquals "no status line" 0 "$(wc -c <"$T/line")"
	# A failure after the fds are closed still reaches the launcher.
	( OTO_STATUS_FD=8 otoexec -- /nonexistent/prog 8>"$T/st" 2>/dev/null ) &
	cat "$T/st" >"$T/line"
	wait
	assertContains "$(cat "$T/line")" "otoexec 127 2 "
}

# ---- environment ----

test_clean_environment() {
	for m in alone chain; do
		[ $m = chain ] && pre="$OTO_BIN/otons $AS --" || pre=
		out=$(env -i LD_PRELOAD=/x.so LD_LIBRARY_PATH=/l BASH_ENV=/b SSH_AUTH_SOCK=/s \
			AWS_SECRET_ACCESS_KEY=k HOME=/h LANG=C.UTF-8 LC_ALL=C TZ=UTC USER=u \
			LOGNAME=u TERM=dumb FOO=1 BAR=2 OTO_STATUS_FD= \
			$pre "$OTO_BIN/otoexec" --env-keep FOO --env X=1 --env TZ=Europe/Paris -- /usr/bin/env)
		assertEquals "$m env" "$(printf '%s\n' "PATH=$STD_PATH" HOME=/h LANG=C.UTF-8 LC_ALL=C \
			TZ=Europe/Paris USER=u LOGNAME=u TERM=dumb FOO=1 X=1)" "$out"
	done
	assertEquals "--env PATH" "PATH=/bin" "$(env -i "$OTO_BIN/otoexec" --env PATH=/bin -- /usr/bin/env)"
	# The program is looked up in the agent's PATH, not otoexec's.
	run env -i PATH=/nonexistent "$OTO_BIN/otoexec" -- true
	assertEquals "lookup in the agent's PATH" 0 "$rc"
	for bad in "--env-keep LD_PRELOAD" "--env-keep BASH_ENV" "--env LD_PRELOAD=/x" \
		"--env LD_AUDIT=/x" "--env-keep GCONV_PATH" "--env 1X=2" "--env-keep A=B"; do
		run otoexec $bad -- true
		assertEquals "$bad" 100 "$rc"
		assertOneLine otoexec
	done
}

# ---- Landlock ----

test_landlock() {
	mkdir "$T/ro" "$T/rw" "$T/outside"
	echo r >"$T/ro/f"
	echo o >"$T/outside/f"
	chmod -R a+rwX "$T"
	py='import os, sys
def t(f):
    try:
        f(); return "OK"
    except OSError as e:
        return __import__("errno").errorcode[e.errno]
d = sys.argv[1]
print(t(lambda: open(d + "/ro/f").read()), t(lambda: open(d + "/outside/f").read()),
      t(lambda: open(d + "/ro/new", "w")), t(lambda: open(d + "/ro/f", "a")),
      t(lambda: open(d + "/rw/new", "w").write("x")), t(lambda: os.listdir(d + "/outside")),
      t(lambda: os.mkdir(d + "/rw/sub")), t(lambda: os.unlink(d + "/rw/new")))'
	for m in alone chain; do
		run $m --landlock-ro /usr --landlock-ro /etc --landlock-ro "$T/ro" --landlock-rw "$T/rw" \
			--landlock-strict -- python3 -c "$py" "$T"
		assertEquals "$m rc ($(cat "$T/err"))" 0 "$rc"
		assertEquals "$m" "OK EACCES EACCES EACCES OK EACCES OK OK" "$(cat "$T/out")"
		rmdir "$T/rw/sub" 2>/dev/null
	done
	# A rule on a single file: only the rights that apply to files.
	echo a >"$T/rwfile"
	chmod 666 "$T/rwfile"
	run chain --landlock-ro /usr --landlock-rw "$T/rwfile" -- sh -c \
		"echo b >> $T/rwfile && cat $T/rwfile && cat $T/ro/f"
	assertEquals "file rule" "$(printf 'a\nb')" "$(cat "$T/out")"
	assertNotEquals "file rule: nothing else" 0 "$rc"
	# The control: without Landlock everything here is reachable.
	run alone -- python3 -c "$py" "$T"
	assertEquals "control" "OK OK OK OK OK OK OK OK" "$(cat "$T/out")"
}

# A kernel without Landlock, and one with Landlock off, simulated: an outer
# otoexec whose profile answers landlock_create_ruleset with the kernel's own
# errno for each (ENOSYS, EOPNOTSUPP). Each gets its own hint.
test_landlock_unavailable_warns_or_fails() {
	otoexec --print-profile default | sed 's/ landlock_create_ruleset / /' >"$T/base"
	for e in ENOSYS ENOTSUP; do
		cp "$T/base" "$T/p"
		echo "errno $e landlock_create_ruleset" >>"$T/p"
		case $e in
		ENOSYS)
			why="Function not implemented"
			hint="this kernel has no Landlock: older than 5.13 or built without CONFIG_SECURITY_LANDLOCK, or a container's seccomp filter hides it"
			;;
		*)
			why="Not supported" # musl's words; glibc's in the sanitized pass
			[ -n "${OTO_SAN:-}" ] && why="Operation not supported"
			hint="Landlock is built in but off: add landlock to the lsm= boot parameter or to CONFIG_LSM"
			;;
		esac
		run otoexec --profile "$T/p" -- "$OTO_BIN/otoexec" --landlock-ro /usr -- echo ran
		assertEquals "$e: rc" 0 "$rc"
		assertEquals "$e" ran "$(cat "$T/out")"
		assertEquals "otoexec: warning: Landlock is unavailable ($why): continuing without it (--landlock-strict refuses); hint: $hint" \
			"$(cat "$T/err")"
		run otoexec --profile "$T/p" -- "$OTO_BIN/otoexec" --landlock-strict --landlock-ro /usr -- echo ran
		assertEquals "$e: strict rc" 111 "$rc"
		assertEquals "otoexec: fatal: Landlock is unavailable (hint: $hint): $why" "$(cat "$T/err")"
		assertEquals "" "$(cat "$T/out")"
	done
}

# ---- rlimits, caps kept, ids, session ----

limit() { # FILE NAME: "soft hard" from a /proc/self/limits dump
	grep "^$2 " "$1" | awk '{ print $(NF-2), $(NF-1) }'
}

test_rlimits() {
	for m in alone chain; do
		run $m -- cat /proc/self/limits
		assertEquals "$m core default" "0 0" "$(limit "$T/out" 'Max core file size')"
		run $m --rlimit nofile=64:128 --rlimit core=4096 --rlimit fsize=unlimited --rlimit nproc=100:200 -- cat /proc/self/limits
		assertEquals "$m nofile" "64 128" "$(limit "$T/out" 'Max open files')"
		assertEquals "$m core" "4096 4096" "$(limit "$T/out" 'Max core file size')"
		assertEquals "$m fsize" "unlimited unlimited" "$(limit "$T/out" 'Max file size')"
		assertEquals "$m nproc" "100 200" "$(limit "$T/out" 'Max processes')"
	done
	for bad in nofiles=1 nofile=abc nofile=10:5 nofile= =5 nofile=1:2:3 core=-1; do
		run otoexec --rlimit "$bad" -- true
		assertEquals "--rlimit $bad" 100 "$rc"
		assertOneLine otoexec
	done
	# A limit the kernel refuses (above fs.nr_open, even for root): named.
	run otoexec --rlimit nofile=1024:2000000000 -- true
	assertEquals "nofile above nr_open" 111 "$rc"
	assertEquals "otoexec: fatal: unable to set the nofile limit (--rlimit): Operation not permitted" \
		"$(cat "$T/err")"
}

# Without --rlimit nproc the agent gets at most 4096 processes and threads
# (the caller's limit is often above the host's pid_max); a lower one of the
# caller's stays. With a small limit, a fork bomb stops at it with EAGAIN.
test_default_process_limit() {
	for m in alone chain; do
		run $m -- cat /proc/self/limits
		assertEquals "$m nproc default" "4096 4096" "$(limit "$T/out" 'Max processes')"
	done
	run sh -c "prlimit --nproc=50:60 --pid \$\$ >/dev/null && exec otoexec -- cat /proc/self/limits"
	assertEquals "a lower limit of the caller's stays" "50 60" "$(limit "$T/out" 'Max processes')"
	run chain --rlimit nproc=40 -- python3 -c '
import os, time
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            time.sleep(5); os._exit(0)
        n += 1
except OSError as e:
    print(n < 40, os.strerror(e.errno))'
	assertEquals "fork bomb at --rlimit nproc=40" "True Resource temporarily unavailable" "$(cat "$T/out")"
}

test_keep_cap() {
	run chain --keep-cap net_bind_service --keep-cap CAP_KILL -- cat /proc/self/status
	assertEquals 0 "$rc"
	# CAP_KILL 5, CAP_NET_BIND_SERVICE 10: 0x420, in every set, ambient so it survives exec.
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		assertEquals "$f" 0000000000000420 "$(status_field "$T/out" $f)"
	done
	if [ -z "$IS_ROOT" ]; then
		run alone --keep-cap net_bind_service -- true
		assertEquals "a capability not held" 111 "$rc"
		assertOneLine otoexec
	fi
	for bad in cap_bogus all 12 "" net-admin; do
		run otoexec --keep-cap "$bad" -- true
		assertEquals "--keep-cap '$bad'" 100 "$rc"
		assertOneLine otoexec
	done
}

test_uid_gid_switch() {
	if [ -n "$IS_ROOT" ]; then
		run alone --uid 65534 --gid 65534 -- sh -c 'id -u; id -g; id -G; grep CapEff /proc/self/status'
		assertEquals "$(printf '65534\n65534\n65534\nCapEff:\t0000000000000000')" "$(cat "$T/out")"
	else
		run alone --uid 0 -- true
		assertEquals "plain user to uid 0" 111 "$rc"
		assertOneLine otoexec
	fi
	# In the chain only the otons ids are mapped: 1234 is not.
	run otons $AS --uid 0 --gid 0 -- otoexec --uid 1234 -- true
	assertEquals "unmapped uid" 111 "$rc"
	assertContains "$(cat "$T/err")" "mapped"
	run otons $AS --uid 0 --gid 0 -- otoexec --uid 0 --gid 0 -- sh -c 'id -u; grep CapEff /proc/self/status'
	assertEquals "$(printf '0\nCapEff:\t0000000000000000')" "$(cat "$T/out")"
	run otoexec --uid x -- true
	assertEquals 100 "$rc"
}

test_new_session() {
	s='import os; print(os.getsid(0) == os.getpid())'
	assertEquals "without" False "$(alone -- python3 -c "$s")"
	assertEquals "alone" True "$(alone --new-session -- python3 -c "$s")"
	assertEquals "chain" True "$(chain --new-session -- python3 -c "$s")"
}

# ---- profiles ----

test_print_profile_is_the_source() {
	[ -f "$TOP/cmd/otoexec/default.profile" ] || { skip "no source tree"; return 0; }
	otoexec --print-profile default >"$T/p"
	assertEquals "$(sha256sum <"$TOP/cmd/otoexec/default.profile")" "$(sha256sum <"$T/p")"
	run otoexec --print-profile other
	assertEquals 100 "$rc"
}

test_explain() {
	run otoexec --explain
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "# filter 1 of 2: the allowlist"
	# TIOCSTI and TIOCLINUX on the low 32 bits, in the second filter.
	assertContains "$(cat "$T/out")" 'if ($a1.hi32 & 0x00000000 == 0)'
	assertContains "$(cat "$T/out")" 'if ($a1.lo32 & 0xffffffff == 21522)'
	assertContains "$(cat "$T/out")" 'if ($a1.lo32 & 0xffffffff == 21532)'
	assertContains "$(cat "$T/out")" "action KILL_PROCESS"
	printf 'default allow\nerrno EACCES mkdir\n' >"$T/p"
	run otoexec --explain --profile "$T/p"
	assertEquals "$(printf '%s\n' '# filter 1 of 2: the allowlist' '#' '# pseudo filter code start' '#' \
		'# filter for arch x86_64 (3221225534)' 'if ($arch == 3221225534)' \
		'  # filter for syscall "mkdir" (83) [priority: 65535]' '  if ($syscall == 83)' \
		'    action ERRNO(13);' '  # default action' '  action ALLOW;' \
		'# invalid architecture action' 'action KILL_PROCESS;' '#' '# pseudo filter code end' '#')" \
		"$(cat "$T/out")"
	# The prefix's ranges named by what they are, whatever their action: the
	# unknown numbers allowed too here.
	printf 'default errno EPERM\nunknown allow\nallow exit_group\n' >"$T/p"
	run otoexec --explain --profile "$T/p"
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "numbers 457 to 1023 -> 0x7fff0000 (unknown here)"
	assertContains "$(cat "$T/out")" "numbers 231 to 231 -> 0x7fff0000 (allow)"
	run otoexec --explain -- true
	assertEquals 100 "$rc"
}

# ---- compiled filter sets: --print-bpf, --bpf-fd, the built-in ones ----

# The built-in profiles' filters are compiled by the build; the text stays the
# source: a run-time compile of each text (a profile fd, so libseccomp runs
# here) gives the same bytes as the set otoexec embeds.
test_builtin_bpf_is_the_text_compiled() {
	for p in default dev; do
		otoexec --print-profile $p >"$T/$p.profile"
		run otoexec --profile $p --print-bpf
		assertEquals "$p: rc" 0 "$rc"
		mv "$T/out" "$T/$p.builtin"
		run otoexec --profile-fd 3 --print-bpf 3<"$T/$p.profile"
		assertEquals "$p: rc, compiled" 0 "$rc"
		assertEquals "$p: built in and compiled from the text" \
			"$(od -An -tx1 -v "$T/out")" "$(od -An -tx1 -v "$T/$p.builtin")"
		# The refusal log's set (otons --log-fd, OTO_REFUSALS), built in too.
		OTO_REFUSALS=99 run otoexec --profile $p --print-bpf
		assertEquals "$p: rc, notifying" 0 "$rc"
		mv "$T/out" "$T/$p.notify"
		OTO_REFUSALS=99 run otoexec --profile-fd 3 --print-bpf 3<"$T/$p.profile"
		assertEquals "$p: notifying, built in and compiled from the text" \
			"$(od -An -tx1 -v "$T/out")" "$(od -An -tx1 -v "$T/$p.notify")"
		assertNotEquals "$p: the notifying set differs" \
			"$(sha256sum <"$T/$p.builtin")" "$(sha256sum <"$T/$p.notify")"
	done
	# The set's head: the magic, x86-64's audit arch, 2 programs (the
	# argument denials first, the allowlist last).
	[ "$(uname -m)" = x86_64 ] &&
		assertEquals "default: head" "6f746f627066310a3e0000c002000000" \
			"$(head -c 16 "$T/default.builtin" | od -An -tx1 | tr -d ' \n')"
	assertNotEquals "dev differs from default" \
		"$(sha256sum <"$T/default.builtin")" "$(sha256sum <"$T/dev.builtin")"
	# No program: --print-bpf only prints.
	run otoexec --print-bpf -- true
	assertEquals "with a program" 100 "$rc"
	run otoexec --print-bpf --explain
	assertEquals "with --explain" 100 "$rc"
}

# On another architecture than the build's, the built-in sets are not loaded:
# otoexec says so and compiles the text, and loads the same filters as ever
# (OTO_TEST_BPF_FOREIGN makes the embedded sets look foreign).
test_builtin_bpf_of_another_arch_is_compiled_instead() {
	for p in default dev; do
		otoexec --profile $p --print-bpf >"$T/$p.builtin"
		run env OTO_TEST_BPF_FOREIGN=1 otoexec --profile $p --print-bpf
		assertEquals "$p: rc" 0 "$rc"
		assertEquals "$p: the same set, compiled" \
			"$(sha256sum <"$T/$p.builtin")" "$(sha256sum <"$T/out")"
		assertContains "$p: $(cat "$T/err")" "$(cat "$T/err")" \
			"otoexec: warning: the built-in filters of $p were compiled for architecture"
		assertContains "$p: $(cat "$T/err")" "$(cat "$T/err")" ": compiling the profile"
	done
	run env OTO_TEST_BPF_FOREIGN=1 otoexec -- "$D/probe" mount
	assertEquals "refused as ever" EPERM "$(cat "$T/out")"
	assertEquals "the switch is not passed on" "" \
		"$(OTO_TEST_BPF_FOREIGN=1 otoexec -- sh -c 'echo $OTO_TEST_BPF_FOREIGN' 2>/dev/null)"
}

# What the kernel holds for the agent is the set --print-bpf shows, program for
# program in load order (PTRACE_SECCOMP_GET_FILTER: root only).
test_loaded_filters_are_print_bpf() {
	[ -n "$IS_ROOT" ] || { skip "PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN"; return 0; }
	for p in default dev; do
		otoexec --profile $p --print-bpf >"$T/$p.bpf"
		otoexec --profile $p -- sleep 30 &
		pid=$!
		locked_down "$pid"
		python3 "$OTO_TESTS/helpers/seccomp_filters.py" --pid "$pid" >"$T/loaded"
		kill "$pid"
		wait "$pid" 2>/dev/null
		assertEquals "$p: 2 filters" 2 "$(wc -l <"$T/loaded")"
		assertEquals "$p: the filters the agent runs" \
			"$(python3 "$OTO_TESTS/helpers/seccomp_filters.py" --set "$T/$p.bpf")" \
			"$(cat "$T/loaded")"
	done
}

# An operator's profile, compiled once (--print-bpf), loaded from an fd.
test_bpf_fd() {
	printf '# mine\ndefault allow\nerrno EACCES mkdir\nkill getppid\n' >"$T/p"
	otoexec --profile "$T/p" --print-bpf >"$T/p.bpf"
	py='import os
try: os.mkdir("/tmp")
except OSError as e: print(e.errno)'
	for m in alone chain; do
		run $m --bpf-fd 3 -- python3 -c "$py" 3<"$T/p.bpf"
		assertEquals "$m: mkdir" 13 "$(cat "$T/out")"
		run $m --bpf-fd 3 -- "$D/probe" getppid 3<"$T/p.bpf"
		assertEquals "$m: kill" 159 "$rc"
		# The fd is consumed: closed once read, so --keep-fd cannot pass it on.
		run $m --bpf-fd 3 --keep-fd 3 -- true 3<"$T/p.bpf"
		assertEquals "$m: --keep-fd 3: rc" 100 "$rc"
		assertContains "$m: fd 3" "$(cat "$T/err")" "otoexec: fatal: --keep-fd 3: not an open fd"
	done
	# One filter in that set (no argument denials), and it is what runs.
	assertEquals "filters" "$(printf 'Seccomp:\t2\nSeccomp_filters:\t1')" \
		"$(otoexec --bpf-fd 3 -- grep Seccomp /proc/self/status 3<"$T/p.bpf")"
	# The default profile's set, from an fd, is the default profile.
	otoexec --print-bpf >"$T/d.bpf"
	assertEquals "default from an fd" EPERM "$(otoexec --bpf-fd 3 -- "$D/probe" mount 3<"$T/d.bpf")"
	# --print-bpf of a set read from an fd is that set.
	assertEquals "reprinted" "$(sha256sum <"$T/p.bpf")" \
		"$(otoexec --bpf-fd 3 --print-bpf 3<"$T/p.bpf" | sha256sum)"
}

test_bad_bpf_fd() {
	otoexec --print-bpf >"$T/d.bpf"
	check_bad_set() { # FILE REASON
		run otoexec --bpf-fd 3 -- true 3<"$1"
		assertEquals "$2: rc" 101 "$rc"
		assertOneLine otoexec
		assertEquals "otoexec: fatal: --bpf-fd 3: $2" "$(cat "$T/err")"
	}
	patch() { # OFFSET HEX-BYTES: a copy of the default set with those bytes
		cp "$T/d.bpf" "$T/x"
		printf "$2" | dd of="$T/x" bs=1 seek="$1" conv=notrunc status=none
	}
	otoexec --print-profile default >"$T/text"
	check_bad_set "$T/text" 'not a filter set (no "otobpf1" head; otoexec --print-bpf writes one)'
	: >"$T/empty"
	check_bad_set "$T/empty" 'not a filter set (no "otobpf1" head; otoexec --print-bpf writes one)'
	head -c 1000 "$T/d.bpf" >"$T/x"
	check_bad_set "$T/x" 'truncated: shorter than its programs'"'"' lengths say'
	head -c 20 "$T/d.bpf" >"$T/x"
	check_bad_set "$T/x" 'truncated: shorter than its programs'"'"' lengths say'
	cp "$T/d.bpf" "$T/x" && printf '\0\0\0\0\0\0\0\0' >>"$T/x"
	check_bad_set "$T/x" 'bytes after the last program'
	patch 12 '\0\0\0\0'
	check_bad_set "$T/x" 'the number of programs is not 1 to 4'
	patch 12 '\5\0\0\0'
	check_bad_set "$T/x" 'the number of programs is not 1 to 4'
	patch 16 '\0\0\0\0'
	check_bad_set "$T/x" "a program's length is not 1 to 4096 instructions"
	patch 16 '\1\20\0\0'
	check_bad_set "$T/x" "a program's length is not 1 to 4096 instructions"
	patch 20 '\1\0\0\0'
	check_bad_set "$T/x" "a program's flags (reserved) are not 0"
	# i386's audit arch (0x40000003) in place of this machine's.
	patch 8 '\3\0\0\100'
	run otoexec --bpf-fd 3 -- true 3<"$T/x"
	assertEquals "foreign arch: rc" 101 "$rc"
	assertEquals "foreign arch" \
		"otoexec: fatal: --bpf-fd 3: compiled for architecture 0x40000003, this otoexec's is $(head -c 12 "$T/d.bpf" | tail -c 4 | od -An -tx4 | tr -d ' ' | sed 's/^0*/0x/')" \
		"$(cat "$T/err")"
	# Framed right, but not a program the kernel accepts (the first
	# instruction's opcode 0xffff): the load fails, 111.
	patch 24 '\377\377'
	run otoexec --bpf-fd 3 -- true 3<"$T/x"
	assertEquals "bad program: rc" 111 "$rc"
	assertEquals "bad program" "otoexec: fatal: unable to load the seccomp filter: Invalid argument" \
		"$(cat "$T/err")"
	# The limit: 4 programs of 4096 instructions and their heads.
	head -c 131121 /dev/zero >"$T/big"
	run otoexec --bpf-fd 3 -- true 3<"$T/big"
	assertEquals "too big" "otoexec: fatal: --bpf-fd 3: larger than 131120 bytes" "$(cat "$T/err")"
	for args in "--bpf-fd 3 --profile dev" "--bpf-fd 3 --profile-fd 4" "--bpf-fd 3 --explain" \
		"--bpf-fd 2 -- true" "--bpf-fd x -- true"; do
		run otoexec $args -- true 3<"$T/d.bpf" 4<"$T/text"
		assertEquals "'$args'" 100 "$rc"
		assertOneLine otoexec
	done
}

test_custom_profiles() {
	printf '# mine\ndefault allow\nerrno EACCES mkdir # no dirs\nerrno 95 rmdir\nkill getppid\n' >"$T/p"
	py='import os
for f in (lambda: os.mkdir("/tmp"), lambda: os.rmdir("/nonexistent")):
    try: f()
    except OSError as e: print(e.errno)'
	for m in alone chain; do
		run $m --profile "$T/p" -- python3 -c "$py"
		assertEquals "$m" "$(printf '13\n95')" "$(cat "$T/out")"
		run $m --profile "$T/p" -- "$D/probe" getppid
		assertEquals "$m kill" 159 "$rc"
	done
	# Conditions: stricter conditional rules beside an unconditional one.
	printf 'default allow\nerrno EPERM socket if arg0 == 2\nerrno EACCES write if arg0 >= 3 and arg2 == 1\n' >"$T/p"
	assertEquals "socket 2" EPERM "$(otoexec --profile "$T/p" -- "$D/probe" socket:2)"
	assertEquals "socket 10" EINVAL "$(otoexec --profile "$T/p" -- "$D/probe" socket:10)"
}

# ---- set-user-ID and set-group-ID modes ----

# The agent's tree is also the host's: a set-user-ID file left there would
# make whoever runs it on the host the agent's account. No mode with S_ISUID
# (04000) or S_ISGID (02000) in a call that sets a mode or creates a file.
SETID_CHMOD="chmod fchmod fchmodat fchmodat2"
SETID_CREATE="open openat creat mknod mknodat"

check_setid_chmod() { # MODE
	for c in $SETID_CHMOD; do
		f=$T/$1-$c
		assertEquals "$1 $c: the file" OK "$($1 -- "$D/probe" open:0644:"$f")"
		for mode in 04755 02755 06755; do
			assertEquals "$1 $c $mode" EPERM "$($1 -- "$D/probe" $c:$mode:"$f")"
			assertEquals "$1 $c $mode: mode unchanged" 644 "$(stat -c %a "$f")"
		done
		for mode in 0755 01777 0600; do
			assertEquals "$1 $c $mode" OK "$($1 -- "$D/probe" $c:$mode:"$f")"
			assertEquals "$1 $c $mode: mode set" "${mode#0}" "$(stat -c %a "$f")"
		done
	done
}

test_setid_chmod_refused_alone() { check_setid_chmod alone; }
test_setid_chmod_refused_chain() {
	# The control: without otoexec each call sets both bits.
	for c in $SETID_CHMOD; do
		f=$T/control-$c
		assertEquals "control $c: the file" OK "$(control "$D/probe" open:0644:"$f")"
		for mode in 04755 02755; do
			assertEquals "control $c $mode" OK "$(control "$D/probe" $c:$mode:"$f")"
			assertEquals "control $c $mode: mode set" "${mode#0}" "$(stat -c %a "$f")"
		done
	done
	check_setid_chmod chain
}

check_setid_create() { # MODE
	for c in $SETID_CREATE; do
		for mode in 04755 02755; do
			f=$T/$1-$c-$mode
			assertEquals "$1 $c $mode" EPERM "$($1 -- "$D/probe" $c:$mode:"$f")"
			assertFalse "$1 $c $mode: nothing made" "[ -e '$f' ]"
		done
		for mode in 0755 01777; do
			f=$T/$1-$c-$mode
			assertEquals "$1 $c $mode" OK "$($1 -- "$D/probe" $c:$mode:"$f")"
			assertEquals "$1 $c $mode: mode made" "${mode#0}" "$(stat -c %a "$f")"
		done
	done
	# O_TMPFILE makes an unnamed file that linkat may name later.
	assertEquals "$1 O_TMPFILE 04755" EPERM "$($1 -- "$D/probe" tmpfile:04755:"$T")"
	assertEquals "$1 O_TMPFILE 0755" OK "$($1 -- "$D/probe" tmpfile:0755:"$T")"
	# Without O_CREAT or O_TMPFILE the kernel ignores the mode: not refused.
	assertEquals "$1 open without O_CREAT" OK \
		"$($1 -- "$D/probe" open-existing:04755:"$T/$1-open-0755")"
	assertEquals "$1 open without O_CREAT: mode" 755 "$(stat -c %a "$T/$1-open-0755")"
	# openat2's mode is in memory seccomp cannot read: ENOSYS (a kernel
	# before 5.6), for every mode, so that callers fall back to openat.
	for mode in 04755 0644; do
		f=$T/$1-openat2-$mode
		assertEquals "$1 openat2 $mode" ENOSYS "$($1 -- "$D/probe" openat2:$mode:"$f")"
		assertFalse "$1 openat2 $mode: nothing made" "[ -e '$f' ]"
	done
}

test_setid_create_refused_alone() { check_setid_create alone; }
test_setid_create_refused_chain() {
	for c in $SETID_CREATE openat2; do
		f=$T/control-$c
		assertEquals "control $c" OK "$(control "$D/probe" $c:04755:"$f")"
		assertEquals "control $c: mode made" 4755 "$(stat -c %a "$f")"
	done
	check_setid_create chain
}

# Ordinary modes through real tools; the bits refused whichever tool asks.
# S_ISGID on a directory is refused too (seccomp cannot see the file type):
# mkdir -m 2775 makes the directory, then fails to set the bit.
check_setid_tools() { # MODE
	mkdir "$T/$1" && chmod 777 "$T/$1"
	run $1 -- sh -c 'cd "$1" && umask 022 && printf "#!/bin/sh\necho hi\n" >s &&
		chmod 755 s && mkdir d && chmod 1777 d && mkdir e && chmod +t e &&
		install -m 0755 s bin && cp -p bin cp && mkdir -m 0750 m && mkdir -m 1777 t &&
		tar cf a.tar bin d && mkdir x && tar xpf a.tar -C x &&
		stat -c "%n %a" s bin cp d e m t x/bin x/d && ./cp' sh "$T/$1"
	assertEquals "$1 tools rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$1 tools" "$(printf '%s\n' 's 755' 'bin 755' 'cp 755' 'd 1777' 'e 1755' \
		'm 750' 't 1777' 'x/bin 755' 'x/d 1777' hi)" "$(cat "$T/out")"
	run $1 -- sh -c 'cd "$1" && umask 022; for c in "chmod u+s s" "chmod 4755 s" "chmod g+s s" \
		"install -m 4755 s i" "chmod g+s d" "mkdir -m 2775 g"; do
		$c 2>/dev/null; echo $?; done; stat -c "%n %a" s d g
		python3 -c "import os; os.chmod(\"s\", 0o2755)" 2>&1 | tail -1' sh "$T/$1"
	assertEquals "$1 refused" "$(printf '%s\n' 1 1 1 1 1 1 's 755' 'd 1777' 'g 755' \
		"PermissionError: [Errno 1] Operation not permitted: 's'")" "$(cat "$T/out")"
}

test_setid_tools_alone() { check_setid_tools alone; }
test_setid_tools_chain() { check_setid_tools chain; }

# After otomount, a path names the agent's view, where the working directory
# is its workspace: --profile FILE is refused there (an agent's own file
# would choose its filter); --profile-fd N, opened before the view, is read.
test_profile_path_in_the_view_is_refused() {
	A=$T/agent
	mkdir -p "$A/workspace" "$A/knowledge" "$A/people/alice"
	printf 'default allow\n' >"$A/workspace/strict.profile"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
	view() { otons $AS -- otomount --agent-root "$A" --role member --person alice \
		--ro "$OTO_BIN:/opt/oto/bin" -- /opt/oto/bin/otoexec "$@"; }
	for p in strict.profile /work/strict.profile; do
		run view --profile "$p" -- true
		assertEquals "--profile $p in the view" 100 "$rc"
		assertOneLine otoexec
		assertContains "$(cat "$T/err")" "--profile $p: a path in the agent's view names a file"
	done
	printf 'default allow\nerrno ENODEV mkdir\n' >"$T/host.profile"
	chmod 0644 "$T/host.profile"
	run view --profile-fd 7 -- sh -c 'mkdir /tmp/x 2>&1; test -e /proc/self/fd/7 || echo closed' 7<"$T/host.profile"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" "No such device"
	assertContains "$(cat "$T/out")" "closed"
	run otoexec --profile "$T/host.profile" --profile-fd 7 -- true 7<"$T/host.profile"
	assertEquals 100 "$rc"
	assertOneLine otoexec
}

# --profile dev: what a development sandbox needs to debug and measure its
# own programs (strace, gdb, LeakSanitizer, perf), and nothing more: pid 1
# and any process outside stay untraceable, every other refusal of the
# default profile stays. The default profile refuses the same tools.
test_dev_profile() {
	cat >"$T/leak.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) { void *p = malloc(100); printf("%p\n", p); p = 0; return 0; }
C
	gcc -fsanitize=address -g -o "$T/leak" "$T/leak.c" || fail "no ASan compiler"
	chmod 0755 "$T/leak"
	tools='strace -f -e trace=execve /bin/true 2>&1 | grep -c "^execve(\"/bin/true\""
		gdb -q -batch -ex run /bin/true 2>&1 | grep -c "exited normally"
		'"$T"'/leak >/dev/null 2>"$1/lsan"; grep -c "LeakSanitizer: detected memory leaks" "$1/lsan"
		perf stat -e task-clock /bin/true 2>&1 | grep -c "task-clock.*CPUs utilized"'
	run chain --profile dev -- sh -c "$tools" sh "$T"
	assertEquals "dev: strace, gdb, LeakSanitizer, perf: $(cat "$T/err")" "1
1
1
1" "$(cat "$T/out")"
	run chain -- sh -c "$tools" sh "$T"
	assertEquals "default: none of them" "0
0
0
0" "$(cat "$T/out")"
	# Nothing more: pid 1 (all of the namespace's capabilities, not dumpable),
	# a process outside (not in the pid namespace), and the rest of the
	# default profile's refusals.
	run chain --profile dev -- sh -c "strace -p 1 -e trace=none 2>&1 | tail -1; cat /proc/1/environ 2>&1
		strace -p $$ 2>&1 | tail -1; unshare -U true 2>&1"
	assertEquals "strace: attach: ptrace(PTRACE_SEIZE, 1): Operation not permitted
cat: /proc/1/environ: Permission denied
strace: attach: ptrace(PTRACE_SEIZE, $$): No such process
unshare: unshare failed: Operation not permitted" "$(cat "$T/out")"
	for c in $REFUSED; do
		case $c in ptrace | process_vm_readv | process_vm_writev | perf_event_open) continue ;; esac
		assertEquals "dev: $c" EPERM "$(chain --profile dev -- "$D/probe" $c)"
	done
	assertEquals "dev profile's text: the default's, then dev.profile" \
		"$(cat "$TOP/cmd/otoexec/default.profile" "$TOP/cmd/otoexec/dev.profile")" \
		"$(otoexec --print-profile dev)"
}

test_bad_profiles() {
	check_bad() { # TEXT LINE-AND-REASON
		printf "$1" >"$T/bad"
		run otoexec --profile "$T/bad" -- true
		assertEquals "$2: rc" 101 "$rc"
		assertOneLine otoexec
		assertEquals "otoexec: fatal: $T/bad:$2" "$(cat "$T/err")"
	}
	check_bad 'default allow\nallow frobnicate\n' "2: unknown system call 'frobnicate'"
	check_bad 'allow read\n' "1: no 'default' action"
	check_bad 'default allow\n\nerrno EWHAT read\n' "3: unknown errno 'EWHAT'"
	check_bad 'default deny\n' "1: unknown action 'deny' (allow, kill, errno E)"
	check_bad 'default allow\nallow read if arg7 == 1\n' "2: bad argument 'arg7' (arg0 to arg5)"
	check_bad 'default allow\nallow read if arg0 =~ 1\n' "2: unknown operator '=~' (== != < <= > >= &)"
	check_bad 'default allow\nallow read if arg0 == x\n' "2: bad value 'x'"
	check_bad 'default errno EPERM\nallow read\nallow read\n' "3: a second unconditional rule for read (line 2)"
	check_bad 'default errno EPERM\nerrno EPERM ioctl\nallow ioctl if arg1 == 1\n' \
		"3: a conditional rule must be stricter than the unconditional one for ioctl (line 2)"
	check_bad 'default allow\nallow read if arg0 == 1 or arg1 == 2\n' "2: expected 'and CONDITION' at 'or'"
	run otoexec --profile "$T/missing" -- true
	assertEquals "missing file" 101 "$rc"
	assertEquals "otoexec: fatal: unable to open the profile $T/missing: No such file or directory" \
		"$(cat "$T/err")"
	# 1 MiB is the most read, from a file or an fd (a pipe delivers it in pieces).
	head -c 1048577 /dev/zero >"$T/big"
	run otoexec --profile "$T/big" -- true
	assertEquals "a profile over 1 MiB" 101 "$rc"
	assertEquals "otoexec: fatal: profile $T/big: larger than 1 MiB" "$(cat "$T/err")"
	run sh -c "cat '$T/big' | otoexec --profile-fd 3 3<&0 -- true"
	assertEquals "a profile over 1 MiB on a pipe" 101 "$rc"
	assertEquals "otoexec: fatal: profile fd 3: larger than 1 MiB" "$(cat "$T/err")"
}

test_usage_errors() {
	for args in "--bogus -- true" "-x -- true" "--profile" "" "--keep-fd 2 -- true" "--keep-fd x -- true"; do
		run otoexec $args
		assertEquals "'$args'" 100 "$rc"
		assertOneLine otoexec
	done
	run otoexec -- /nonexistent/prog
	assertEquals "missing program" 127 "$rc"
	assertOneLine otoexec
	run otoexec -- no-such-program-anywhere
	assertEquals "missing program in PATH" 127 "$rc"
	assertEquals "otoexec: fatal: unable to exec no-such-program-anywhere: not found in PATH=/usr/local/bin:/usr/bin:/bin: No such file or directory" \
		"$(cat "$T/err")"
	# A script whose #! interpreter is missing: the exec says ENOENT, the file is there.
	printf '#!/nonexistent/node\n' >"$T/s.js" && chmod 0755 "$T/s.js"
	run otoexec -- "$T/s.js"
	assertEquals "missing interpreter" 127 "$rc"
	assertEquals "otoexec: fatal: unable to exec $T/s.js: $T/s.js is there, but its interpreter /nonexistent/node is not: No such file or directory" \
		"$(cat "$T/err")"
	run otoexec -- /etc/passwd
	assertEquals "not executable" 126 "$rc"
	run otoexec --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "usage: otoexec"
	# --version: tests/test_build.sh, for every tool
}

. shunit2
