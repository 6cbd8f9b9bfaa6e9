# shellcheck shell=sh
# Sourced by every integration suite (tests/test_*.sh), before shunit2.
#
# OTO_BIN: the directory of the binaries under test.
# OTO_RESULTS: a file that gets two lines per test: PASS|FAIL|SKIP NAME, and
# TIME NAME MILLISECONDS (its wall time, setUp to tearDown).
# As root, stages that need it get --as with OTO_TEST_USER (default nobody's id).

: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
: "${OTO_RESULTS:=/dev/null}"
OTO_TESTS=$(cd "$(dirname "$0")" && pwd)
OTO_TEST_USER=${OTO_TEST_USER:-65534}
export SHUNIT_COLOR=none
PATH=$OTO_BIN:$PATH

if [ "$(id -u)" = 0 ]; then
	AS="--as $OTO_TEST_USER"
	IS_ROOT=1
else
	AS=
	IS_ROOT=
fi

# A fresh scratch directory per test, readable by the test user.
setUp() {
	_oto_skipped=
	_oto_t0=$(date +%s%N)
	T=$(mktemp -d /tmp/oto-test.XXXXXX)
	chmod 1777 "$T"
	if command -v suite_setUp >/dev/null 2>&1; then suite_setUp; fi
}

tearDown() {
	if command -v suite_tearDown >/dev/null 2>&1; then suite_tearDown; fi
	if [ -n "${_oto_audit_was:-}" ]; then
		perl "$OTO_TESTS/helpers/audit.pl" set "$_oto_audit_was" ||
			echo "  the kernel's audit could not be set back to $_oto_audit_was" >&2
		_oto_audit_was=
	fi
	rm -rf "$T"
	# shunit2 calls tearDown once more at its exit, outside any test.
	if [ -z "${_shunit_test_:-}" ]; then
		return 0
	elif [ -n "$_oto_skipped" ]; then
		echo "SKIP $_shunit_test_ $_oto_skipped"
	elif [ "${__shunit_testSuccess}" = "${SHUNIT_TRUE}" ]; then
		echo "PASS $_shunit_test_"
	else
		echo "FAIL $_shunit_test_"
	fi >>"$OTO_RESULTS"
	# The test's wall time, setUp to tearDown, for run.sh's slowest list.
	echo "TIME $_shunit_test_ $((($(date +%s%N) - _oto_t0) / 1000000))" >>"$OTO_RESULTS"
}

# locked_down PID: waits, at most 10 s, until PID's seccomp filter is on,
# the last step of every stage's lockdown (a sanitizer build compiles its
# filter then, a loaded machine may take its time): its status is then
# whole. Nothing is asserted here: the caller reads the status.
locked_down() {
	_n=0
	while ! grep -q '^Seccomp:[[:space:]]*2$' "/proc/$1/status" 2>/dev/null && [ $_n -lt 200 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
}

# skip REASON: the rest of this test's asserts are skipped, and it counts as skipped.
skip() {
	_oto_skipped=${1:-skipped}
	echo "  skipped: $_oto_skipped"
	startSkipping
}

# helper_cc NAME [CFLAGS...]: tests/helpers/NAME.c built into $T/NAME
# (gcc -O1 CFLAGS), or the one prebuilt in $OTO_HELPERS_BIN when set (the
# VM of test_otons_vm.sh: its root has no compiler, and gcc under TCG
# took seconds a helper); false, the test failed, when neither is there.
helper_cc() {
	_n=$1
	shift
	if [ -n "${OTO_HELPERS_BIN:-}" ]; then
		cp "$OTO_HELPERS_BIN/$_n" "$T/$_n" || { fail "no prebuilt $_n in $OTO_HELPERS_BIN"; return 1; }
	else
		gcc -O1 "$@" -o "$T/$_n" "$OTO_TESTS/helpers/$_n.c" || { fail "cannot build $_n"; return 1; }
	fi
	chmod 0755 "$T/$_n"
}

# lldeny_build: $T/lldeny, the static helper of the Landlock lines
# (tests/helpers/lldeny.c); skips the test where Landlock cannot log (ABI < 7,
# Linux 6.15).
lldeny_build() {
	helper_cc lldeny -static || return 1
	[ "$("$T/lldeny" abi)" -ge 7 ] || { skip "Landlock ABI $("$T/lldeny" abi): no audit"; return 1; }
}

# audit_want 0|1: the kernel's audit off or on for this test (Landlock's
# lines in otons' refusal log come from it). Fails (the test skips) when it
# is not so and may not be made so. Switching it on has a lasting cost: the
# kernel then audits every process started afterwards, until reboot
# (audit_ever_enabled), at a few tens of ns per system call even once it is
# off again. So the tests switch it only when told (OTO_TEST_AUDIT=switch),
# as root in the initial pid namespace, and set it back at tearDown;
# OTO_TEST_AUDIT=1 says the harness switched it on for the whole run
# (scripts/fresh-check.sh, whose pid namespace cannot ask).
audit_want() {
	if ! _now=$(perl "$OTO_TESTS/helpers/audit.pl" get 2>/dev/null); then
		[ "${OTO_TEST_AUDIT:-}" = "$1" ]
		return
	fi
	[ "$_now" = "$1" ] && return 0
	[ "${OTO_TEST_AUDIT:-}" = switch ] && [ "$_now" != 2 ] || return 1
	_oto_audit_was=${_oto_audit_was:-$_now}
	perl "$OTO_TESTS/helpers/audit.pl" set "$1"
}

# run CMD...: run it, keeping stdout in $T/out, stderr in $T/err, the code in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	return 0
}

# strerror(ELOOP) as the binaries under test say it: musl's, or glibc's in
# the sanitized pass (OTO_SAN, tests/run.sh).
ELOOP_TEXT="Symbolic link loop"
[ -n "${OTO_SAN:-}" ] && ELOOP_TEXT="Too many levels of symbolic links"

# session_of LOG: the session's record in a --log-fd stream, checked and
# summed up: every line is JSON with the same "session" id, the first is the
# open line and the last the close line, and neither comes anywhere else.
# Prints "open STAGE" and "close EXIT SIGNAL"; a line that breaks the rule
# makes it print why instead.
session_of() {
	python3 - "$1" <<'PYEOF'
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
ids = {d.get("session") for d in ls}
opens = [i for i, d in enumerate(ls) if d["source"] == "session" and d["verdict"] == "open"]
closes = [i for i, d in enumerate(ls) if d["source"] == "session" and d["verdict"] == "close"]
if len(ids) != 1 or opens != [0] or closes != [len(ls) - 1]:
    print("not one session:", ids, opens, closes, len(ls))
else:
    print("open", ls[0]["stage"])
    print("close", ls[-1]["exit"], ls[-1]["signal"])
PYEOF
}

# refusals_of LOG: the lines of a --log-fd stream that are not the session's.
refusals_of() {
	grep -v '^{"time":"[^"]*","source":"session",' "$1"
}

# The one-line error rule: stderr is exactly one line, starting with PROG: fatal:.
assertOneLine() { # PROG
	assertEquals "stderr lines: $(cat "$T/err")" 1 "$(wc -l <"$T/err")"
	assertTrue "stderr starts with $1: fatal: ($(cat "$T/err"))" "grep -q '^$1: fatal: ' '$T/err'"
}

# proc_state PID: its state letter (R, S, Z, ...) from /proc/PID/stat, empty
# once it is gone. The name may hold spaces and parentheses: the last ") "
# ends it.
proc_state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1; }

# wait_child PID SECONDS: wait at most SECONDS for PID, a child of this shell,
# and keep its exit code in $rc. Past the limit it is killed (SIGKILL) and
# reaped, and the call returns 1: a test fails instead of hanging the suite.
# Until we wait for it, the child is a zombie or already reaped by the shell
# (which keeps its status): its pid cannot have been reused meanwhile.
wait_child() {
	_n=$(($2 * 20))
	while [ "$_n" -gt 0 ]; do
		case $(proc_state "$1") in
		'' | Z) break ;;
		esac
		sleep 0.05
		_n=$((_n - 1))
	done
	if [ "$_n" -eq 0 ]; then
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		rc=
		return 1
	fi
	wait "$1"
	rc=$?
	return 0
}

# wait_gone PID SECONDS: true once PID no longer exists (polls every 50 ms).
wait_gone() {
	_n=$(($2 * 20))
	while [ "$_n" -gt 0 ]; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
		_n=$((_n - 1))
	done
	return 1
}

# assertMemBelow WHAT KB LIMIT: a process's memory figure KB (kB) is below
# LIMIT, except in the sanitized pass (OTO_SAN, tests/run.sh), where the
# sanitizers' shadow memory is most of any process's: there it is shown only.
assertMemBelow() {
	if [ -n "${OTO_SAN:-}" ]; then
		echo "  $1: ${2:-?} kB, not compared under ASan" >&2
		return 0
	fi
	assertTrue "$1: ${2:-?} kB" "[ ${2:-999999} -lt $3 ]"
}

# assertNoSecret WHERE FILE: FILE does not hold $REAL, the suite's real
# credential (the gateway's suites and test_agents).
assertNoSecret() {
	assertFalse "$1 holds the real value" "grep -qF '$REAL' '$2'"
}

# row CHECK: "VERDICT|DETAIL" of that row of otoprobe's JSON in $T/out, or
# "missing N" (N rows of that name). $PY: the suite's Python.
row() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [c for c in d["checks"] if c["check"] == sys.argv[2]]
print(r[0]["verdict"] + "|" + r[0]["detail"] if len(r) == 1 else "missing %d" % len(r))' "$T/out" "$1"
}

# report WORD: the line of the report in $T/out (tests/helpers/ptyjob.py,
# ptydrive.py) that starts with WORD, without it.
report() { sed -n "s/^$1 //p" "$T/out"; }

# A server and its client on 127.0.0.1 and ::1 (python3 -c): "ADDR ping" each.
LOOPBACK_PY='
import socket
for fam, a in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam); s.bind((a, 0)); s.listen()
    c = socket.create_connection((a, s.getsockname()[1]), 3)
    d, _ = s.accept(); c.sendall(b"ping"); print(a, d.recv(4).decode())'
