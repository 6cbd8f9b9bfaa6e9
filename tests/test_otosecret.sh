#!/bin/sh
# otosecret: keygen, seal, list, and the chain mode alone and under otons:
# round trips for every HOW, hygiene of the next program, all-or-nothing failures.
# run-as: root user
. "$(dirname "$0")/common.sh"

# The probe (tests/helpers/otosecret_probe.c), built once per suite.
oneTimeSetUp() {
	HELP=$(mktemp -d /tmp/oto-secret-help.XXXXXX)
	chmod 0755 "$HELP"
	gcc -O1 -o "$HELP/probe" "$OTO_TESTS/helpers/otosecret_probe.c" || exit 1
	PROBE=$HELP/probe
	# file= targets on the host: /dev/shm when it is a tmpfs.
	SHM=
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && SHM=/dev/shm
}

oneTimeTearDown() {
	rm -rf "$HELP"
}

suite_setUp() {
	otosecret keygen --out "$T/key"
	# A value with NUL bytes, newlines and every byte value.
	{ printf 'a\0b\n\nc\r\n'; head -c 300 /dev/urandom; printf '\0'; } >"$T/bin"
	printf 'plain value with spaces = and : signs' >"$T/txt"
	printf 'CANARY-%s' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$T/canary"
	{
		printf 'TXT=%s\n' "$(cat "$T/txt")"
		printf 'BIN:base64=%s\n' "$(base64 -w0 <"$T/bin")"
		printf 'OTHER=%s\n' "$(cat "$T/canary")"
		printf '# a comment\n\nLAST=x\n'
	} | otosecret seal --key-file "$T/key" --store "$T/store"
	SHMF=
	[ -n "$SHM" ] && SHMF=$SHM/oto-secret-test-$$
	rm -f "$SHMF"-*
}

suite_tearDown() {
	[ -n "$SHMF" ] && rm -f "$SHMF"-*
	return 0
}

hash() { sha256sum | cut -d' ' -f1; }

# chain MODE ARGS...: otosecret with the store on fd 3 and the key on fd 4, run
# alone (MODE plain) or under otons (MODE otons).
chain() {
	_m=$1
	shift
	if [ "$_m" = otons ]; then
		otons $AS -- otosecret --store-fd 3 --key-fd 4 "$@" 3<"$T/store" 4<"$T/key"
	else
		otosecret --store-fd 3 --key-fd 4 "$@" 3<"$T/store" 4<"$T/key"
	fi
}

test_help_and_version() {
	run otosecret --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "usage: otosecret --store-fd N"
	assertContains "$(cat "$T/out")" "fd=N"
	# --version: tests/test_build.sh, for every tool
}

test_usage_errors() {
	for args in "--use A -- true" "--store-fd 3 --use A -- true" \
		"--store-fd 3 --key-fd 4 -- true" "--store-fd 3 --key-fd 4 --use A" \
		"--store-fd 3 --key-fd 4 --use A:fd=2 -- true" "--store-fd 3 --key-fd 4 --use A:file=rel -- true" \
		"--store-fd 3 --key-fd 4 --use A:tty -- true" "--store-fd 3 --key-fd 4 --use 9A -- true" \
		"--store-fd 3 --key-fd 4 --use A:fd=5 --use B:fd=5 -- true" \
		"--store-fd 3 --key-fd 3 --use A -- true" "--bogus" "list" "seal" "keygen --store x" \
		"list --store x --key-fd 4" "phantom --store x" "phantom TXT" \
		"phantom --store x --key-fd 4 TXT" "phantom --store x TXT LAST"; do
		run otosecret $args
		assertEquals "$args" 100 "$rc"
		assertOneLine otosecret
	done
}

test_keygen() {
	assertEquals 600 "$(stat -c %a "$T/key")"
	assertTrue "key text: $(cat "$T/key")" "grep -qE '^oto-key-1:[A-Za-z0-9_-]{43}$' '$T/key'"
	assertEquals 54 "$(wc -c <"$T/key")"
	# --out never overwrites.
	run otosecret keygen --out "$T/key"
	assertEquals 111 "$rc"
	assertOneLine otosecret
	# "keygen > FILE": the file the shell made with the umask's mode becomes 0600.
	(umask 022 && otosecret keygen >"$T/k2")
	assertEquals 600 "$(stat -c %a "$T/k2")"
	assertNotEquals "$(cat "$T/key")" "$(cat "$T/k2")"
	# A key made by keygen > FILE is accepted (and this one does not open the store).
	run otosecret --store "$T/store" --key-file "$T/k2" --use TXT -- true
	assertEquals 101 "$rc"
	assertContains "$(cat "$T/err")" "the key does not open this store"
}

test_list_names_only() {
	run otosecret list --store "$T/store"
	assertEquals 0 "$rc"
	assertEquals "$(printf 'TXT\nBIN\nOTHER\nLAST')" "$(cat "$T/out")"
	assertFalse "no value listed" "grep -q CANARY '$T/out'"
	run otosecret list --store-fd 3 3<"$T/store"
	assertEquals 4 "$(wc -l <"$T/out")"
}

# The phantom otogate gives for a name (tests/test_otogate.sh: exactly what
# the agent holds): no key needed, one line; the same after the store is
# sealed again (new nonces); another name, another store, another length:
# another; never the value. A name not there, a bad store, a value otogate
# would not grant: 101, one line.
test_phantom() {
	printf 'A=%s\nB=%s\nS=short\n' "$(cat "$T/canary")" "$(cat "$T/canary")" |
		otosecret seal --key-file "$T/key" --store "$T/s"
	run otosecret phantom --store "$T/s" A
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	a=$(cat "$T/out")
	assertEquals 1 "$(wc -l <"$T/out")"
	assertTrue "the form: $a" "echo '$a' | grep -qE '^oto-phantom-[a-z0-9]{19}$'"
	assertEquals "as long as the value" "$(wc -c <"$T/canary")" ${#a}
	assertNotEquals "$(cat "$T/canary")" "$a"
	assertNotEquals "B's" "$a" "$(otosecret phantom --store "$T/s" B)"
	assertEquals "from an fd" "$a" "$(otosecret phantom --store-fd 3 A 3<"$T/s")"
	echo C=more | otosecret seal --key-file "$T/key" --store "$T/s"
	assertEquals "sealed again" "$a" "$(otosecret phantom --store "$T/s" A)"
	printf 'A=%s\n' "$(cat "$T/canary")" | otosecret seal --key-file "$T/key" --store "$T/s2"
	assertNotEquals "another store" "$a" "$(otosecret phantom --store "$T/s2" A)"
	printf 'A=%sx\n' "$(cat "$T/canary")" | otosecret seal --key-file "$T/key" --store "$T/s"
	assertNotEquals "a longer value" "$a" "$(otosecret phantom --store "$T/s" A | cut -c1-${#a})"
	run otosecret phantom --store "$T/s" NOPE
	assertEquals 101 "$rc"
	assertEquals "otosecret: fatal: store $T/s: no entry NOPE (otosecret list names them)" "$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
	run otosecret phantom --store "$T/key" A
	assertEquals 101 "$rc"
	assertEquals "otosecret: fatal: store $T/key: not an otosecret store (bad magic)" "$(cat "$T/err")"
	run otosecret phantom --store "$T/s" S
	assertEquals 101 "$rc"
	assertEquals "otosecret: fatal: S: the value is 5 bytes: otogate takes 16 to 4096" "$(cat "$T/err")"
}

test_env_round_trip() {
	for m in plain otons; do
		run chain $m --use TXT -- sh -c 'printf %s "$TXT" | sha256sum'
		assertEquals "$m rc" 0 "$rc"
		assertEquals "$m env" "$(hash <"$T/txt")" "$(cut -d' ' -f1 "$T/out")"
		run chain $m --use TXT:env=GH_TOKEN -- sh -c 'printf %s "$GH_TOKEN" | sha256sum; echo "${TXT-unset}"'
		assertEquals "$m env=" "$(printf '%s  -\nunset' "$(hash <"$T/txt")")" "$(cat "$T/out")"
	done
}

test_env_replaces_inherited() {
	run env TXT=old otosecret --store-fd 3 --key-fd 4 --use TXT -- env 3<"$T/store" 4<"$T/key"
	assertEquals 0 "$rc"
	assertEquals 1 "$(grep -c '^TXT=' "$T/out")"
	assertEquals "TXT=$(cat "$T/txt")" "$(grep '^TXT=' "$T/out")"
}

test_key_and_store_from_pipes() {
	# Pipes have no size and no mode: read to EOF, within the limits.
	mkfifo "$T/sp" "$T/kp"
	cat "$T/store" >"$T/sp" &
	(sleep 0.2 && cat "$T/key") >"$T/kp" &
	run otosecret --store-fd 5 --key-fd 6 --use TXT -- sh -c 'printf %s "$TXT" | sha256sum' 5<"$T/sp" 6<"$T/kp"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "$(hash <"$T/txt")" "$(cut -d' ' -f1 "$T/out")"
	wait
}

test_fd_round_trip_binary() {
	for m in plain otons; do
		run chain $m --use BIN:fd=5 --use TXT:fd=7 -- sh -c 'sha256sum <&5; sha256sum <&7; '"$PROBE"' memfd 5'
		assertEquals "$m rc: $(cat "$T/err")" 0 "$rc"
		# Sealed: F_SEAL_SEAL|SHRINK|GROW|WRITE, and a write fails with EPERM.
		assertEquals "$m fd" "$(printf '%s  -\n%s  -\nseals=0xf write=EPERM' "$(hash <"$T/bin")" "$(hash <"$T/txt")")" \
			"$(cat "$T/out")"
	done
}

test_file_round_trip_binary() {
	if [ -n "$SHM" ]; then
		run chain plain --use BIN:file="$SHMF-bin" --use TXT:file="$SHMF-txt" -- \
			sh -c 'sha256sum <"$0"; sha256sum <"$1"; stat -c "%a %u" "$0"' "$SHMF-bin" "$SHMF-txt"
		assertEquals "plain rc: $(cat "$T/err")" 0 "$rc"
		assertEquals "$(printf '%s  -\n%s  -\n400 %s' "$(hash <"$T/bin")" "$(hash <"$T/txt")" "$(id -u)")" \
			"$(cat "$T/out")"
	fi
	# Under otons: a tmpfs of the sandbox's own.
	mkdir "$T/mnt"
	run otons $AS -- sh -c 'mount -t tmpfs none "$0" && exec otosecret --store-fd 3 --key-fd 4 \
		--use BIN:file="$0/bin" -- sh -c "sha256sum <\"\$0/bin\"; stat -c \"%a %u\" \"\$0/bin\"; id -u" "$0"' \
		"$T/mnt" 3<"$T/store" 4<"$T/key"
	assertEquals "otons rc: $(cat "$T/err")" 0 "$rc"
	me=$(id -u)
	[ -n "$IS_ROOT" ] && me=$OTO_TEST_USER
	assertEquals "$(printf '%s  -\n400 %s\n%s' "$(hash <"$T/bin")" "$me" "$me")" "$(cat "$T/out")"
	# The tmpfs went with the sandbox: nothing was written on the host's disk.
	assertEquals "" "$(ls -A "$T/mnt")"
}

test_only_named_entries_arrive() {
	[ -n "$SHM" ] || { skip "/dev/shm is not a tmpfs"; return; }
	for m in plain otons; do
		run chain $m --use TXT --use BIN:fd=5 -- sh -c \
			'env; for f in /proc/self/fd/*; do case $(readlink "$f") in /memfd:*|/dev/shm/*|'"$T"'/*) cat "$f";; esac; done
			cat '"$SHM"'/* 2>/dev/null; echo fds: $(ls /proc/self/fd)'
		assertEquals "$m rc" 0 "$rc"
		assertFalse "$m: OTHER's value arrived" "grep -qF '$(cat "$T/canary")' '$T/out'"
		assertFalse "$m: LAST arrived" "grep -q '^LAST=' '$T/out'"
		assertTrue "$m: TXT arrived" "grep -q '^TXT=' '$T/out'"
		assertTrue "$m: fd 5 passed on" "grep -qE '^fds: .* 5( |$)' '$T/out'"
	done
}

test_fds_closed_and_oto_vars_removed() {
	base=$("$PROBE" fds 3<"$T/store" 4<"$T/key")
	want=$(echo "$base" | tr ' ' '\n' | grep -vxE '3|4' | tr '\n' ' ' | sed 's/ $//')
	run env OTO_FOO=1 OTO_TEST_X=2 otosecret --store-fd 3 --key-fd 4 --use TXT -- "$PROBE" fds \
		3<"$T/store" 4<"$T/key"
	assertEquals 0 "$rc"
	assertEquals "fds (before: $base)" "$want" "$(cat "$T/out")"
	run env OTO_FOO=1 OTO_TEST_X=2 otosecret --store-fd 3 --key-fd 4 --use TXT -- env \
		3<"$T/store" 4<"$T/key"
	assertEquals "" "$(grep '^OTO_' "$T/out")"
	# Under otons, the same: only otons' own fds, none of ours.
	run otons $AS -- otosecret --store-fd 3 --key-fd 4 --use TXT --use BIN:fd=9 -- "$PROBE" fds \
		3<"$T/store" 4<"$T/key"
	assertFalse "otons: fd 3 or 4 open: $(cat "$T/out")" "tr ' ' '\n' <'$T/out' | grep -qxE '3|4'"
	assertTrue "otons: fd 9 placed: $(cat "$T/out")" "tr ' ' '\n' <'$T/out' | grep -qx 9"
	# OTO_STATUS_FD is passed on to the later stages.
	run env OTO_STATUS_FD=8 OTO_X=1 otosecret --store-fd 3 --key-fd 4 --use TXT -- env 3<"$T/store" 4<"$T/key"
	assertEquals "OTO_STATUS_FD=8" "$(grep '^OTO_' "$T/out")"
	# So are otoexec's: the refusal log's socket, the view's mark, the pty.
	run env OTO_REFUSALS=7 OTO_VIEW=1 OTO_PTY=1 OTO_X=1 otosecret --store-fd 3 --key-fd 4 \
		--use TXT -- env 3<"$T/store" 4<"$T/key"
	assertEquals "$(printf 'OTO_PTY=1\nOTO_REFUSALS=7\nOTO_VIEW=1')" "$(grep '^OTO_' "$T/out" | sort)"
}

test_canary_in_no_proc_cmdline_or_environ() {
	# fd: the canary is in no process's cmdline or environ, the program's own included.
	run chain plain --use OTHER:fd=5 -- "$PROBE" scan "$T/canary"
	assertEquals 0 "$rc"
	assertEquals "fd: $(cat "$T/out")" 1 "$(wc -l <"$T/out")"
	# env: only in the program's own environ.
	run chain plain --use OTHER -- "$PROBE" scan "$T/canary"
	self=$(sed -n 's/^self=//p' "$T/out")
	assertEquals "env: $(cat "$T/out")" "$(printf 'environ %s\nself=%s' "$self" "$self")" "$(cat "$T/out")"
	run chain otons --use OTHER -- "$PROBE" scan "$T/canary"
	self=$(sed -n 's/^self=//p' "$T/out")
	assertEquals "otons env: $(cat "$T/out")" "$(printf 'environ %s\nself=%s' "$self" "$self")" "$(cat "$T/out")"
}

# Stopped while it holds the plaintext (OTO_TEST_PAUSE): not dumpable, memory locked,
# no core, and the canary in no /proc cmdline or environ.
test_while_holding_plaintext() {
	# As uid 65534 in both runs, so that the /proc owner tells dumpability:
	# the kernel shows a non-dumpable task's /proc/PID files as owned by root.
	if [ -n "$IS_ROOT" ]; then
		as="setpriv --reuid $OTO_TEST_USER --regid $OTO_TEST_USER --clear-groups"
		owner=$OTO_TEST_USER
	else
		as=
		owner=$(id -u)
	fi
	$as sleep 3 &
	ctl=$!
	sleep 0.1
	assertEquals "a dumpable process shows its owner" "$owner" "$(stat -c %u /proc/$ctl/status)"
	kill $ctl
	OTO_TEST_PAUSE=1 $as otosecret --store-fd 3 --key-fd 4 --use OTHER:fd=5 -- touch "$T/ran" \
		3<"$T/store" 4<"$T/key" &
	pid=$!
	n=0
	while [ "$(awk '/^State:/ {print $2}' /proc/$pid/status 2>/dev/null)" != T ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	assertEquals "stopped" T "$(awk '/^State:/ {print $2}' /proc/$pid/status)"
	assertEquals "not dumpable: /proc owner" 0 "$(stat -c %u /proc/$pid/status)"
	lck=$(awk '/^VmLck:/ {print $2}' /proc/$pid/status)
	# Locked: a page for the key, a page for the value (sodium_malloc rounds up to pages).
	# AddressSanitizer makes mlock a no-op: the sanitized pass cannot see it.
	if [ -z "${OTO_SAN:-}" ]; then
		assertTrue "VmLck $lck kB >= 8" "[ ${lck:-0} -ge 8 ]"
	else
		echo "  not checked under ASan (mlock is a no-op there): VmLck" >&2
	fi
	assertEquals "core limit" "0 0" "$(awk '/^Max core file size/ {print $5, $6}' /proc/$pid/limits)"
	"$PROBE" scan "$T/canary" >"$T/scan"
	assertEquals "scan: $(cat "$T/scan")" 1 "$(wc -l <"$T/scan")"
	assertFalse "not run yet" "[ -e '$T/ran' ]"
	kill -CONT $pid
	wait $pid
	assertEquals 0 $?
	assertTrue "ran after" "[ -e '$T/ran' ]"
}

# reject CODE ARGS...: otosecret ARGS fails with CODE and one line, the program never runs.
reject() {
	_code=$1
	shift
	run otosecret "$@" -- touch "$T/ran"
	assertEquals "$* ($(cat "$T/err"))" "$_code" "$rc"
	assertOneLine otosecret
	assertFalse "$*: the program ran" "[ -e '$T/ran' ]"
	assertEquals "$*: stdout" "" "$(cat "$T/out")"
}

# refused CODE REASON: the last run failed with CODE and exactly the one line
# "otosecret: fatal: REASON" (which names no value), and the program never ran.
refused() {
	assertEquals "rc ($(cat "$T/err"))" "$1" "$rc"
	assertOneLine otosecret
	assertEquals "otosecret: fatal: $2" "$(cat "$T/err")"
	assertFalse "the program ran" "[ -e '$T/ran' ]"
	assertEquals "stdout" "" "$(cat "$T/out")"
}

# A bad store or key, owner-only, so that each fails for its own reason.
owner_only() { chmod 600 "$@"; }

# ---- all or nothing: each rejection, its exit code and its reason ----

test_reject_wrong_key() {
	otosecret keygen --out "$T/wrong"
	run otosecret --store "$T/store" --key-file "$T/wrong" --use TXT -- touch "$T/ran"
	refused 101 "entry 0 (TXT): the key does not open this store (another key, or the store was altered)"
}

# No store or key yet: the reason, and the commands that make them.
test_a_missing_store_or_key_says_how_to_make_them() {
	run otosecret --store "$T/nostore" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 111 "unable to open store $T/nostore: No such file or directory (make one: otosecret keygen --out KEY, then NAME=VALUE lines on stdin to otosecret seal --key-file KEY --store $T/nostore)"
	run otosecret --store "$T/store" --key-file "$T/nokey" --use TXT -- touch "$T/ran"
	refused 111 "unable to open key $T/nokey: No such file or directory (make one: otosecret keygen --out $T/nokey, and seal the store with it: otosecret seal --key-file $T/nokey --store STORE)"
	# The status line keeps the errno (ENOENT, 2) that oto(7) promises, and the hint.
	run env OTO_STATUS_FD=5 otosecret --store "$T/store" --key-file "$T/nokey" --use TXT -- \
		touch "$T/ran" 5>"$T/status"
	assertEquals "otosecret 111 2 unable to open key $T/nokey: No such file or directory (make one: otosecret keygen --out $T/nokey, and seal the store with it: otosecret seal --key-file $T/nokey --store STORE)" \
		"$(cat "$T/status")"
}

# A key root made (0600) read by the account: whose it is, and the fix.
test_a_key_of_another_account_says_whose() {
	[ -n "$IS_ROOT" ] || { skip "needs a key of another account"; return 0; }
	chmod a+rx "$T"
	run setpriv --reuid "$OTO_TEST_USER" --regid "$OTO_TEST_USER" --clear-groups \
		"$(command -v otosecret)" --store "$T/store" --key-file "$T/key" --use TXT -- true
	refused 111 "unable to open key $T/key: Permission denied (it belongs to root, uid 0, not to uid $OTO_TEST_USER who reads it: chown it to the reader, or run as its owner)"
}

test_reject_tampered_entry_not_used() {
	# One byte of LAST's tag (the last entry), which is not asked for.
	cp "$T/store" "$T/bad" && owner_only "$T/bad"
	printf 'Z' | dd of="$T/bad" bs=1 seek=$(($(wc -c <"$T/store") - 3)) conv=notrunc 2>/dev/null
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "entry 3 (LAST): the key does not open this store (another key, or the store was altered)"
}

# Entry 0 tampered while only the last entry is used. Judged by what happens,
# not by the message: the program never runs, so nothing reaches it (no
# variable, no fd). The store still parses: only verifying every entry, the
# unused ones too, before anything is placed can refuse it.
test_tampered_first_entry_stops_the_last_one() {
	cp "$T/store" "$T/bad" && owner_only "$T/bad"
	# Entry 0 (TXT) starts at 32: 29 fixed bytes, the name, then its sealed value.
	xor_byte "$T/bad" $((32 + 29 + 3))
	assertEquals "still parses" "$(printf 'TXT\nBIN\nOTHER\nLAST')" "$(otosecret list --store "$T/bad")"
	prog='env >"$0/env"; cat <&5 >"$0/fd5"; touch "$0/ran"'
	# The control: from the intact store, LAST reaches the program both ways.
	run otosecret --store "$T/store" --key-file "$T/key" --use LAST --use LAST:fd=5 -- sh -c "$prog" "$T"
	assertEquals "control rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "control: env" "LAST=x" "$(grep '^LAST=' "$T/env")"
	assertEquals "control: fd 5" x "$(cat "$T/fd5")"
	rm -f "$T/env" "$T/fd5" "$T/ran"
	run otosecret --store "$T/bad" --key-file "$T/key" --use LAST --use LAST:fd=5 -- sh -c "$prog" "$T"
	assertEquals "rc ($(cat "$T/err"))" 101 "$rc"
	assertFalse "the program ran" "[ -e '$T/ran' ]"
	assertFalse "the program got its environment ($(grep '^LAST=' "$T/env" 2>/dev/null))" "[ -e '$T/env' ]"
	assertFalse "the program got fd 5: $(cat "$T/fd5" 2>/dev/null)" "[ -e '$T/fd5' ]"
	assertEquals "stdout" "" "$(cat "$T/out")"
}

test_reject_truncated_whole_entry() {
	# The last entry cut off whole: 29 fixed bytes, LAST (4), x (1), the tag (16).
	head -c $(($(wc -c <"$T/store") - 29 - 4 - 1 - 16)) "$T/store" >"$T/bad" && owner_only "$T/bad"
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/bad: store truncated"
}

test_reject_truncated_mid_entry() {
	head -c 100 "$T/store" >"$T/bad" && owner_only "$T/bad"
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/bad: store truncated"
}

test_reject_oversized_file() {
	{ head -c 32 "$T/store"; head -c 1100000 /dev/zero; } >"$T/bad" && owner_only "$T/bad"
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/bad: store larger than 1 MiB"
}

test_reject_oversized_pipe() {
	{ head -c 32 "$T/store"; head -c 1100000 /dev/zero; } >"$T/bad" && owner_only "$T/bad"
	run sh -c 'cat "$0" | otosecret --store-fd 0 --key-file "$1" --use TXT -- touch "$2"' "$T/bad" "$T/key" "$T/ran"
	refused 101 "store --store-fd: store larger than 1 MiB"
}

test_reject_malformed() {
	printf 'not a store at all, really' >"$T/bad" && owner_only "$T/bad"
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/bad: not an otosecret store (bad magic)"
}

test_reject_empty() {
	: >"$T/bad" && owner_only "$T/bad"
	run otosecret --store "$T/bad" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/bad: store truncated"
}

test_reject_name_not_in_store() {
	run otosecret --store "$T/store" --key-file "$T/key" --use TXT --use NOPE -- touch "$T/ran"
	refused 101 "--use NOPE: no such name in the store"
}

test_reject_nul_in_environment() {
	run otosecret --store "$T/store" --key-file "$T/key" --use BIN -- touch "$T/ran"
	refused 101 "--use BIN: the value holds a NUL byte: use file= or fd="
}

# DESIGN.md: stores are owner-only, like keys.
test_reject_store_readable_by_others() {
	cp "$T/store" "$T/s644" && chmod 644 "$T/s644"
	run otosecret --store "$T/s644" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/s644 is accessible by group or others (mode 0644): chmod 600"
	# The group's read alone is enough to refuse.
	cp "$T/store" "$T/s640" && chmod 640 "$T/s640"
	run otosecret --store "$T/s640" --key-file "$T/key" --use TXT -- touch "$T/ran"
	refused 101 "store $T/s640 is accessible by group or others (mode 0640): chmod 600"
}

test_reject_store_fd_readable_by_others() {
	# The same rule through an fd on a regular file.
	cp "$T/store" "$T/s644" && chmod 644 "$T/s644"
	run sh -c 'otosecret --store-fd 3 --key-file "$1" --use TXT -- touch "$2" 3<"$0"' \
		"$T/s644" "$T/key" "$T/ran"
	refused 101 "store --store-fd is accessible by group or others (mode 0644): chmod 600"
}

test_reject_key_readable_by_others() {
	cp "$T/key" "$T/k644" && chmod 644 "$T/k644"
	run otosecret --store "$T/store" --key-file "$T/k644" --use TXT -- touch "$T/ran"
	refused 101 "key $T/k644 is accessible by group or others (mode 0644): chmod 600"
}

test_reject_not_a_key() {
	printf 'oto-key-1:short\n' >"$T/kbad" && owner_only "$T/kbad"
	run otosecret --store "$T/store" --key-file "$T/kbad" --use TXT -- touch "$T/ran"
	refused 101 "key $T/kbad is not an otosecret key (oto-key-1:...)"
}

test_key_fd_not_open() {
	run otosecret --store "$T/store" --key-fd 9 --use TXT -- touch "$T/ran"
	refused 111 "unable to stat key --key-fd (fd 9): Bad file descriptor"
}

test_reject_key_too_long() {
	head -c 4000 /dev/zero >"$T/kbad" && owner_only "$T/kbad"
	run otosecret --store "$T/store" --key-file "$T/kbad" --use TXT -- touch "$T/ran"
	refused 101 "unable to read key $T/kbad: too long for a key"
}

test_reject_file_on_persistent_fs() {
	[ "$(stat -f -c %T "$T")" != tmpfs ] || { skip "$T is on a tmpfs"; return 0; }
	# Refused before anything is created.
	run otosecret --store "$T/store" --key-file "$T/key" --use TXT:file="$T/txt-out" -- touch "$T/ran"
	refused 101 "--use TXT: not on a tmpfs (refusing a persistent file system)"
	assertFalse "file made" "[ -e '$T/txt-out' ]"
}

test_file_target_failures() {
	[ -n "$SHM" ] || { skip "/dev/shm is not a tmpfs"; return; }
	# An existing file is never replaced.
	printf keep >"$SHMF-exists"
	reject 101 --store "$T/store" --key-file "$T/key" --use TXT:file="$SHMF-exists"
	assertEquals keep "$(cat "$SHMF-exists")"
	# Nor a symlink followed.
	ln -s "$T/victim" "$SHMF-link"
	reject 101 --store "$T/store" --key-file "$T/key" --use TXT:file="$SHMF-link"
	assertFalse "[ -e '$T/victim' ]"
	# Half-way: the first file is made, the second exists: the first is removed again,
	# and the fd and env uses before it are not passed on either.
	reject 101 --store "$T/store" --key-file "$T/key" --use LAST --use TXT:fd=6 \
		--use BIN:file="$SHMF-first" --use TXT:file="$SHMF-exists"
	assertFalse "first file removed" "[ -e '$SHMF-first' ]"
	assertEquals keep "$(cat "$SHMF-exists")"
	# A missing directory: a system failure, 111.
	reject 111 --store "$T/store" --key-file "$T/key" --use TXT:file="$SHM/oto-no-such-dir-$$/x"
}

test_status_fd_line() {
	otosecret keygen --out "$T/wrong"
	run env OTO_STATUS_FD=5 otosecret --store "$T/store" --key-file "$T/wrong" --use TXT -- touch "$T/ran" 5>"$T/status"
	assertEquals 101 "$rc"
	assertEquals "otosecret 101 0 entry 0 (TXT): the key does not open this store (another key, or the store was altered)" \
		"$(cat "$T/status")"
	assertFalse "[ -e '$T/ran' ]"
}

test_failures_under_otons() {
	otosecret keygen --out "$T/wrong"
	run otons $AS -- otosecret --store-fd 3 --key-fd 4 --use TXT -- touch "$T/ran" 3<"$T/store" 4<"$T/wrong"
	assertEquals 101 "$rc"
	assertOneLine otosecret
	assertFalse "[ -e '$T/ran' ]"
	run otons $AS -- otosecret --store-fd 3 --key-fd 4 --use NOPE -- touch "$T/ran" 3<"$T/store" 4<"$T/key"
	assertEquals 101 "$rc"
	assertFalse "[ -e '$T/ran' ]"
}

# xor_byte FILE OFFSET: flip every bit of one byte in place.
xor_byte() {
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

test_flip_every_byte() {
	printf 'K=ab\n' | otosecret seal --key-file "$T/key" >"$T/small"
	chmod 600 "$T/small"
	size=$(wc -c <"$T/small")
	assertEquals "32 + 29 + 1 + 2 + 16" 80 "$size"
	run otosecret --store "$T/small" --key-file "$T/key" --use K -- sh -c 'printf %s "$K"'
	assertEquals "the intact store works" "0 ab" "$rc $(cat "$T/out")"
	i=0
	bad=
	while [ $i -lt "$size" ]; do
		cp "$T/small" "$T/flip"
		xor_byte "$T/flip" $i
		cmp -s "$T/small" "$T/flip" || true
		otosecret --store "$T/flip" --key-file "$T/key" --use K -- touch "$T/ran" 2>/dev/null
		code=$?
		[ "$code" = 101 ] && [ ! -e "$T/ran" ] || bad="$bad $i:$code"
		rm -f "$T/ran"
		i=$((i + 1))
	done
	assertEquals "bytes not rejected (offset:code)" "" "$bad"
}

test_seal_adds_and_replaces() {
	printf 'A=1\nB=2\n' | otosecret seal --key-file "$T/key" --store "$T/s"
	id1=$(od -An -tx1 -j12 -N16 "$T/s")
	printf 'B=3\nC=4\n' | otosecret seal --key-fd 4 --store "$T/s" 4<"$T/key"
	assertEquals 0 $?
	assertEquals 600 "$(stat -c %a "$T/s")"
	assertEquals "$(printf 'A\nB\nC')" "$(otosecret list --store "$T/s")"
	assertEquals "the store keeps its id" "$id1" "$(od -An -tx1 -j12 -N16 "$T/s")"
	run otosecret --store "$T/s" --key-file "$T/key" --use A --use B --use C -- sh -c 'echo $A$B$C'
	assertEquals 134 "$(cat "$T/out")"
	# The last of two lines with one name wins.
	printf 'D=1\nD=2\n' | otosecret seal --key-file "$T/key" --store "$T/s"
	assertEquals 2 "$(otosecret --store "$T/s" --key-file "$T/key" --use D -- sh -c 'echo $D')"
	# Re-sealing with another key is refused, and the store is unchanged.
	cp "$T/s" "$T/s.orig"
	otosecret keygen --out "$T/wrong"
	run sh -c 'echo E=5 | otosecret seal --key-file "$0" --store "$1"' "$T/wrong" "$T/s"
	assertEquals 101 "$rc"
	assertOneLine otosecret
	assertTrue "store unchanged" "cmp -s '$T/s' '$T/s.orig'"
	# FILE.new, left by an older otosecret's killed seal, is no obstacle:
	# sealing works and leaves it alone.
	echo partial >"$T/s.new"
	run sh -c 'echo E=5 | otosecret seal --key-file "$0" --store "$1"' "$T/key" "$T/s"
	assertEquals 0 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertEquals partial "$(cat "$T/s.new")"
	assertEquals 5 "$(otosecret --store "$T/s" --key-file "$T/key" --use E -- sh -c 'echo $E')"
	rm "$T/s.new"
	# A store that is a symbolic link is not followed: one line, 111, the link kept.
	ln -s s "$T/link"
	run sh -c 'echo F=6 | otosecret seal --key-file "$0" --store "$1"' "$T/key" "$T/link"
	assertEquals 111 "$rc"
	assertEquals "otosecret: fatal: store $T/link: unable to read it: $ELOOP_TEXT" "$(cat "$T/err")"
	assertTrue "still a link" "[ -L '$T/link' ]"
	rm "$T/link"
	cp "$T/s" "$T/s.orig"
	# Bad input lines: one line naming the line number, nothing written.
	for input in 'bad-name=1' 'A:hex=00' 'A:base64=@@@' 'TOKEN'; do
		run sh -c 'printf "%s\n" "$0" | otosecret seal --key-file "$1" --store "$2"' "$input" "$T/key" "$T/s"
		assertEquals "$input" 101 "$rc"
		assertOneLine otosecret
		assertContains "$(cat "$T/err")" "stdin line 1"
		assertTrue "store unchanged" "cmp -s '$T/s' '$T/s.orig'"
	done
	# "NAME" then the value on the next line.
	printf 'P\nvalue: of P\n' | otosecret seal --key-file "$T/key" --store "$T/s"
	assertEquals "value: of P" "$(otosecret --store "$T/s" --key-file "$T/key" --use P -- sh -c 'echo "$P"')"
	# Over the limits: a value of 65537 bytes, 257 entries.
	run sh -c 'printf "BIG:base64=%s\n" "$(head -c 65537 /dev/zero | base64 -w0)" | otosecret seal --key-file "$0"' "$T/key"
	assertEquals 101 "$rc"
	assertOneLine otosecret
	run sh -c 'i=0; while [ $i -lt 257 ]; do echo "N$i=v"; i=$((i+1)); done | otosecret seal --key-file "$0"' "$T/key"
	assertEquals 101 "$rc"
	assertOneLine otosecret
}

# The seal tests below work in $T/d, whose only other file is the store's
# temporary (NAME.oto-tmp) while a seal runs.
store_files() { (cd "$T/d" && ls -A | tr '\n' ' '); }

# verifies FILE: every entry of the store authenticates under the suite's key.
verifies() { otosecret --store "$1" --key-file "$T/key" --use A -- true; }

test_seal_two_writers_at_once() {
	mkdir "$T/d"
	echo A=0 | otosecret seal --key-file "$T/key" --store "$T/d/s"
	# Two writers, 30 seals each of distinct names, at once: each one waits
	# for the other's lock and keeps what the other sealed.
	for w in x y; do
		(
			i=0
			while [ $i -lt 30 ]; do
				echo "N_${w}_$i=value-$w-$i" | otosecret seal --key-file "$T/key" --store "$T/d/s" ||
					echo "$w $i: exit $?" >>"$T/failed"
				i=$((i + 1))
			done
		) &
	done
	wait
	assertEquals "seals that failed" "" "$(cat "$T/failed" 2>/dev/null)"
	assertEquals "names in the store" 61 "$(otosecret list --store "$T/d/s" | wc -l)"
	missing=
	for w in x y; do
		i=0
		while [ $i -lt 30 ]; do
			otosecret list --store "$T/d/s" | grep -qx "N_${w}_$i" || missing="$missing N_${w}_$i"
			i=$((i + 1))
		done
	done
	assertEquals "names lost" "" "$missing"
	assertTrue "the store verifies" "verifies '$T/d/s'"
	assertEquals value-y-29 "$(otosecret --store "$T/d/s" --key-file "$T/key" --use N_y_29 -- sh -c 'echo $N_y_29')"
	assertEquals 600 "$(stat -c %a "$T/d/s")"
	assertEquals "files left" "s " "$(store_files)"
}

# stopped PID: waits, at most 10 s, until PID is stopped (state T).
stopped() {
	_n=0
	while [ "$(proc_state "$1")" != T ] && [ $_n -lt 200 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
	[ "$(proc_state "$1")" = T ]
}

test_seal_killed_at_each_point() {
	mkdir "$T/d"
	echo A=0 | otosecret seal --key-file "$T/key" --store "$T/d/s"
	# Killed (SIGKILL) at each point of a seal, with and without O_TMPFILE:
	# 1 store read under the lock, 2 new store written and synced, 3 named
	# NAME.oto-tmp, 4 renamed over the store. The store is the old one until
	# the rename, then the new one, and verifies; an unnamed O_TMPFILE
	# leaves nothing; the next seal works and removes what was left.
	for tmpfile in 0 1; do
		for k in 1 2 3 4; do
			cp "$T/d/s" "$T/old"
			echo "K${k}_$tmpfile=v" >"$T/in"
			OTO_TEST_SEAL_STOP=$k OTO_TEST_SEAL_NO_TMPFILE=$((1 - tmpfile)) \
				otosecret seal --key-file "$T/key" --store "$T/d/s" <"$T/in" 2>/dev/null &
			pid=$!
			stopped $pid || fail "point $k: not stopped"
			kill -KILL $pid
			wait_child $pid 10
			assertEquals "point $k tmpfile $tmpfile: killed" 137 "$rc"
			assertTrue "point $k: verifies" "verifies '$T/d/s'"
			if [ $k -lt 4 ]; then
				assertTrue "point $k tmpfile $tmpfile: the old store" "cmp -s '$T/d/s' '$T/old'"
			else
				assertTrue "point 4: the new store" \
					"otosecret list --store '$T/d/s' | grep -qx K4_$tmpfile"
			fi
			left="s "
			[ $k = 3 ] || { [ $k = 2 ] && [ $tmpfile = 0 ]; } && left="s s.oto-tmp "
			assertEquals "point $k tmpfile $tmpfile: files" "$left" "$(store_files)"
			run sh -c 'echo "NEXT_$0_$1=v" | otosecret seal --key-file "$2" --store "$3"' \
				"$k" "$tmpfile" "$T/key" "$T/d/s"
			assertEquals "point $k tmpfile $tmpfile: the next seal" 0 "$rc"
			assertEquals "point $k tmpfile $tmpfile: files after it" "s " "$(store_files)"
			assertTrue "the next seal's name" \
				"otosecret list --store '$T/d/s' | grep -qx NEXT_${k}_$tmpfile"
		done
	done
	assertEquals 600 "$(stat -c %a "$T/d/s")"
	assertTrue "the store verifies" "verifies '$T/d/s'"
}

test_seal_killed_at_random() {
	mkdir "$T/d"
	echo A=0 | otosecret seal --key-file "$T/key" --store "$T/d/s"
	# 20 seals killed after 0 to 25 ms: each leaves the store old or new,
	# whole (it verifies), and the next works.
	i=0
	while [ $i -lt 20 ]; do
		cp "$T/d/s" "$T/old"
		echo "R$i=v" >"$T/in"
		otosecret seal --key-file "$T/key" --store "$T/d/s" <"$T/in" 2>/dev/null &
		pid=$!
		sleep "$(printf '0.%03d' $(($(od -An -N1 -tu1 /dev/urandom) % 26)))"
		kill -KILL $pid 2>/dev/null
		wait_child $pid 10
		assertTrue "kill $i: verifies" "verifies '$T/d/s'"
		if ! cmp -s "$T/d/s" "$T/old"; then
			assertTrue "kill $i: the new store" "otosecret list --store '$T/d/s' | grep -qx R$i"
		fi
		i=$((i + 1))
	done
	echo LAST=v | otosecret seal --key-file "$T/key" --store "$T/d/s"
	assertEquals 0 $?
	assertEquals "files left" "s " "$(store_files)"
	assertTrue "the store verifies" "verifies '$T/d/s'"
}

test_seal_into_a_directory_not_writable() {
	# As uid OTO_TEST_USER, into a directory it may read but not write:
	# one line, 111, nothing made, an existing store unchanged.
	mkdir "$T/ro"
	cp "$T/key" "$T/ukey"
	echo A=0 | otosecret seal --key-file "$T/key" --store "$T/ro/old"
	as_user=
	if [ -n "$IS_ROOT" ]; then
		chown "$OTO_TEST_USER" "$T/ukey" "$T/ro/old"
		as_user="setpriv --reuid $OTO_TEST_USER --regid $OTO_TEST_USER --clear-groups"
	fi
	chmod 0555 "$T/ro"
	cp "$T/ro/old" "$T/old"
	for s in new old; do
		run sh -c "echo B=1 | $as_user otosecret seal --key-file '$T/ukey' --store '$T/ro/$s'"
		assertEquals "$s" 111 "$rc"
		assertOneLine otosecret
		assertEquals "$s" "otosecret: fatal: store $T/ro/$s: unable to write a new store beside it: Permission denied" \
			"$(cat "$T/err")"
		assertEquals "$s: files" "old " "$(cd "$T/ro" && ls -A | tr '\n' ' ')"
		assertTrue "$s: unchanged" "cmp -s '$T/ro/old' '$T/old'"
	done
	chmod 0755 "$T/ro"
}

test_seal_waits_for_the_lock() {
	mkdir "$T/d"
	echo A=0 | otosecret seal --key-file "$T/key" --store "$T/d/s"
	cp "$T/d/s" "$T/old"
	# Another writer's lock: the exclusive flock on the store's directory.
	# Held for 0.5 s, a seal waits for it and then seals.
	sh -c 'exec 9<"$0" && flock -x 9 && exec sleep 0.5' "$T/d" &
	holder=$!
	sleep 0.2
	t0=$(date +%s%N)
	run sh -c 'echo B=1 | otosecret seal --key-file "$0" --store "$1"' "$T/key" "$T/d/s"
	waited=$((($(date +%s%N) - t0) / 1000000))
	assertEquals 0 "$rc"
	assertTrue "waited $waited ms for the lock" "[ $waited -ge 150 ]"
	assertTrue "sealed" "otosecret list --store '$T/d/s' | grep -qx B"
	wait_child $holder 10
	# Held past the wait: the cause said, 111, nothing written.
	cp "$T/d/s" "$T/old"
	sh -c 'exec 9<"$0" && flock -x 9 && exec sleep 10' "$T/d" &
	holder=$!
	sleep 0.2
	run sh -c 'echo C=1 | OTO_TEST_SEAL_WAIT_MS=300 otosecret seal --key-file "$0" --store "$1"' \
		"$T/key" "$T/d/s"
	assertEquals 111 "$rc"
	kill -TERM $holder
	wait_child $holder 10
	assertEquals "otosecret: warning: OTO_TEST_SEAL_WAIT_MS=300: the wait for the store's lock (for tests only)
otosecret: fatal: store $T/d/s: another writer (a seal, a session saving a login) kept its directory locked too long (300 ms); nothing was written" \
		"$(cat "$T/err")"
	assertTrue "unchanged" "cmp -s '$T/d/s' '$T/old'"
	assertEquals "files" "s " "$(store_files)"
}

test_seal_prompt_without_echo() {
	command -v script >/dev/null || { skip "script(1) not installed"; return; }
	# On a terminal, the value after a "NAME" line is read with echo off.
	(printf 'TOKEN\n'; sleep 0.5; printf 'hidden-%s\n' tty-value; sleep 0.5) |
		script -qec "otosecret seal --key-file '$T/key' --store '$T/s'" /dev/null >"$T/tty" 2>&1
	assertEquals "script: $(cat "$T/tty")" 0 $?
	assertTrue "prompt shown: $(cat "$T/tty")" "grep -q 'TOKEN: ' '$T/tty'"
	assertFalse "value echoed: $(cat "$T/tty")" "grep -q hidden- '$T/tty'"
	assertEquals hidden-tty-value "$(otosecret --store "$T/s" --key-file "$T/key" --use TOKEN -- sh -c 'echo "$TOKEN"')"
}

test_exec_errors() {
	run otosecret --store "$T/store" --key-file "$T/key" --use TXT -- /nonexistent/prog
	assertEquals 127 "$rc"
	assertOneLine otosecret
	run otosecret --store "$T/store" --key-file "$T/key" --use TXT -- "$T"
	assertEquals 126 "$rc"
	assertOneLine otosecret
}

# ---- import: a CLI's login file, sealed whole ----

# b64url: stdin as base64url without padding, as a JWT writes its parts.
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }

# jwt CLAIMS: a JWT of that claims object, a fake RS256 signature (342 characters).
jwt() {
	printf '%s.%s.%s' "$(printf '{"alg":"RS256","typ":"JWT","kid":"k1"}' | b64url)" \
		"$(printf '%s' "$1" | b64url)" \
		"$(head -c 256 /dev/zero | tr '\0' 'S' | b64url | cut -c1-342)"
}

# Login files as each CLI writes them (their field layout, fake tokens):
# claude.json, codex.json, gemini.json in $T.
login_files() {
	cat >"$T/claude.json" <<'EOF'
{
  "claudeAiOauth": {
    "accessToken": "sk-ant-oat01-Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLlZzXxCcVvBbNnMm-qwertyuQ1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh",
    "refreshToken": "sk-ant-ort01-Pp0Oo9Ii8Uu7Yy6Tt5Rr4Ee3Ww2Qq1AaSsDdFfGgHhJjKkLlZzXxCc_vbnmasdPp0Oo9Ii8Uu7Yy6Tt5Rr4Ee3Ww",
    "expiresAt": 4102444800000,
    "scopes": [
      "user:inference",
      "user:profile",
      "user:sessions:claude_code"
    ],
    "subscriptionType": "max",
    "rateLimitTier": "default_claude_max_20x"
  }
}
EOF
	_id=$(jwt '{"email":"ada@example.com","https://api.openai.com/auth":{"chatgpt_plan_type":"plus","chatgpt_account_id":"5e0bd2b6-8c2e-4b8e-9f0e-0a1b2c3d4e5f"},"exp":4102444800}')
	_at=$(jwt '{"aud":["https://api.openai.com/v1"],"exp":4102444800,"scp":["openid","offline_access"]}')
	cat >"$T/codex.json" <<EOF
{
  "OPENAI_API_KEY": null,
  "tokens": {
    "id_token": "$_id",
    "access_token": "$_at",
    "refresh_token": "rt_Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLl.ZzXxCcVvBbNnMmQ1w2E3r4T5y6U7i8",
    "account_id": "5e0bd2b6-8c2e-4b8e-9f0e-0a1b2c3d4e5f"
  },
  "last_refresh": "2026-12-07T09:12:33.421907Z"
}
EOF
	_gid=$(jwt '{"iss":"https://accounts.google.com","email":"ada@example.com","exp":4102444800}')
	cat >"$T/gemini.json" <<EOF
{
  "access_token": "ya29.a0AfB_byCQ1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLlZzXxCcVvBbNnMm-Q1w2E3r4T5y6U7i8O9p0AaSsDdFf0171",
  "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile openid",
  "token_type": "Bearer",
  "id_token": "$_gid",
  "expiry_date": 4102444800123,
  "refresh_token": "1//0gQ1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLl-ZzXxCcVvBbNnMmQ1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh"
}
EOF
}

# import_ok FILE ARGS...: import into $T/login.store; rc 0, nothing on stderr.
import_ok() {
	_f=$1
	shift
	run otosecret import --key-file "$T/key" --store "$T/login.store" "$@" "$_f"
	assertEquals "import $*: $(cat "$T/err")" 0 "$rc"
	assertEquals "stderr" "" "$(cat "$T/err")"
}

# entry_is NAME FILE: the entry decrypts to FILE's exact bytes.
entry_is() {
	otosecret --store "$T/login.store" --key-file "$T/key" --use "$1:env=V" -- \
		sh -c 'printf %s "$V"' >"$T/got"
	assertTrue "$1 holds $2's bytes" "cmp '$T/got' '$2'"
}

test_import_each_profile() {
	login_files
	import_ok "$T/claude.json" --profile claude
	assertEquals "profile claude
entry CLAUDE_LOGIN
file .claude/.credentials.json
field claudeAiOauth.accessToken access opaque 105
field claudeAiOauth.refreshToken refresh opaque 101
expires 2100-01-01T00:00:00Z" "$(cat "$T/out")"
	entry_is CLAUDE_LOGIN "$T/claude.json"
	import_ok "$T/codex.json" --profile codex
	assertEquals "profile codex
entry CODEX_LOGIN
file .codex/auth.json
field tokens.access_token access jwt $(printf %s "$_at" | wc -c)
field tokens.refresh_token refresh opaque 72
field tokens.id_token id jwt $(printf %s "$_id" | wc -c)
expires 2100-01-01T00:00:00Z" "$(cat "$T/out")"
	entry_is CODEX_LOGIN "$T/codex.json"
	import_ok "$T/gemini.json" --profile gemini
	assertEquals "profile gemini
entry GEMINI_LOGIN
file .gemini/oauth_creds.json
field access_token access opaque 99
field refresh_token refresh opaque 90
field id_token id jwt $(printf %s "$_gid" | wc -c)
expires 2100-01-01T00:00:00Z" "$(cat "$T/out")"
	entry_is GEMINI_LOGIN "$T/gemini.json"
	# The three entries side by side; each import kept the others.
	assertEquals "$(printf 'CLAUDE_LOGIN\nCODEX_LOGIN\nGEMINI_LOGIN')" \
		"$(otosecret list --store "$T/login.store")"
	assertEquals 600 "$(stat -c %a "$T/login.store")"
}

test_import_recognises_the_profile() {
	login_files
	for p in claude codex gemini; do
		import_ok "$T/$p.json"
		assertEquals "profile $p" "$(head -1 "$T/out")"
	done
	# A new login replaces the entry whole; the key on fd 0 works too.
	sed 's/"max"/"pro"/' "$T/claude.json" >"$T/claude2.json"
	run otosecret import --key-fd 0 --store "$T/login.store" --name CLAUDE_LOGIN \
		"$T/claude2.json" <"$T/key"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	entry_is CLAUDE_LOGIN "$T/claude2.json"
	assertEquals 3 "$(otosecret list --store "$T/login.store" | wc -l)"
	# An expiry in the past says so; one that reads as no time is unknown.
	sed 's/4102444800000/1700000000000/' "$T/claude.json" >"$T/old.json"
	import_ok "$T/old.json"
	assertEquals "expires 2023-11-14T22:13:20Z (past)" "$(tail -1 "$T/out")"
	sed 's/4102444800000/1e400/' "$T/claude.json" >"$T/odd.json"
	import_ok "$T/odd.json"
	assertEquals "expires unknown" "$(tail -1 "$T/out")"
	# gemini's id_token is optional; a JWT with a bad header is opaque.
	grep -v id_token "$T/gemini.json" >"$T/g2.json"
	import_ok "$T/g2.json"
	assertContains "$(cat "$T/out")" "field id_token id absent"
	sed "s/\"id_token\": \"[^.]*\./\"id_token\": \"$(printf 'not-json' | b64url)./" \
		"$T/codex.json" >"$T/c2.json"
	import_ok "$T/c2.json"
	assertContains "$(cat "$T/out")" "field tokens.id_token id opaque"
}

# import_refused FILE MESSAGE ARGS...: import refuses FILE (101, one line: MESSAGE)
# and writes no store.
import_refused() {
	_f=$1
	_m=$2
	shift 2
	run otosecret import --key-file "$T/key" --store "$T/refused.store" "$@" "$_f"
	assertEquals "$_m" 101 "$rc"
	assertEquals "otosecret: fatal: $_m" "$(cat "$T/err")"
	assertEquals "stdout" "" "$(cat "$T/out")"
	assertFalse "no store written" "[ -e '$T/refused.store' ]"
}

test_import_refuses_hostile_files() {
	login_files
	c=$T/claude.json
	ln -s claude.json "$T/link"
	import_refused "$T/link" "login file $T/link: a symbolic link: name the file it points to"
	mkdir "$T/dir"
	import_refused "$T/dir" "login file $T/dir: not a regular file"
	mkfifo "$T/fifo"
	import_refused "$T/fifo" "login file $T/fifo: not a regular file"
	# 64 KiB is read; a byte more is refused.
	{ cat "$c"; head -c $((65536 - $(wc -c <"$c"))) /dev/zero | tr '\0' ' '; } >"$T/big.json"
	import_ok "$T/big.json"
	printf ' ' >>"$T/big.json"
	import_refused "$T/big.json" "login file $T/big.json: larger than 65536 bytes"
	# Not strict JSON: a key twice, also spelt with an escape; NUL; bad UTF-8; depth.
	sed 's/"scopes"/"subscriptionType": "pro",\n    "scopes"/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 446: a key twice in one object"
	sed 's/"refreshToken"/"access\\u0054oken": "sk-ant-oat01-x",\n    "refreshToken"/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 155: a key twice in one object"
	sed 's/"max"/"m\\u0000x"/' "$c" >"$T/f"
	import_ok "$T/f" # an escaped NUL is JSON
	printf '{"claudeAiOauth": {"accessToken": "a\0b"}}' >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 36: not JSON"
	printf '{"claudeAiOauth": {"subscriptionType": "m\377x"}}' >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 41: invalid UTF-8 in a string"
	printf '{"a": "\\ud83d"}' >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 7: half a surrogate pair in a \\u escape"
	printf '{"a":%s1%s}' "$(printf '[%.0s' $(seq 16))" "$(printf ']%.0s' $(seq 16))" >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte 20: nested deeper than 16 levels"
	{ cat "$c"; printf 'trailing'; } >"$T/f"
	import_refused "$T/f" "login file $T/f: not strict JSON at byte $(wc -c <"$c"): not JSON"
	# The profile's secrets: missing, twice, not a string, escaped, too short.
	grep -v refreshToken "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: profile claude: claudeAiOauth.refreshToken is missing"
	sed 's/"claudeAiOauth": {/"claudeAiOauth.refreshToken": "sk-ant-ort01-0123456789abcdef0123",\n  "claudeAiOauth": {/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: profile claude: claudeAiOauth.refreshToken is there twice"
	sed 's/"accessToken": "[^"]*"/"accessToken": 12345678901234567890/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: profile claude: claudeAiOauth.accessToken is not a string"
	sed 's/"accessToken": "sk-ant-oat01-Q/"accessToken": "sk-ant-oat01-\\u0051/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: profile claude: claudeAiOauth.accessToken holds a backslash escape"
	sed 's/"accessToken": "[^"]*"/"accessToken": "sk-ant-oat01-0123456789abcde"/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: profile claude: claudeAiOauth.accessToken is too short for a phantom (16 random characters at least)"
	# A profile named that the file is not; none recognised; two.
	import_refused "$c" "login file $c: profile codex: tokens.access_token is missing" --profile codex
	printf '{"token": "x"}' >"$T/f"
	import_refused "$T/f" "login file $T/f: no profile recognised (tried claude, codex, gemini): name one with --profile or --profile-file"
	sed 's/"claudeAiOauth": {/"access_token": "ya29.0123456789abcdef0123456789",\n  "claudeAiOauth": {/' "$c" >"$T/f"
	import_refused "$T/f" "login file $T/f: fits more than one profile (claude, gemini): name one with --profile"
}

test_import_profile_file_and_usage() {
	cat >"$T/profile" <<'EOF'
# A fourth CLI, in a few lines.
file .acme/login.json
secret auth.token access
secret auth.renew refresh
expiry auth.until rfc3339
host api.acme.example
token https://login.acme.example/oauth/token form refresh_token
EOF
	printf '{"auth": {"token": "acme_0123456789abcdefABCDEF", "renew": "0123456789abcdef0123456789abcdef", "until": "2099-05-01T10:00:00+02:00"}}\n' >"$T/acme.json"
	import_ok "$T/acme.json" --profile-file "$T/profile"
	assertEquals "profile $T/profile
entry LOGIN
file .acme/login.json
field auth.token access opaque 27
field auth.renew refresh opaque 32
expires 2099-05-01T08:00:00Z" "$(cat "$T/out")"
	entry_is LOGIN "$T/acme.json"
	printf 'file ../x\n' >"$T/bad"
	import_refused "$T/acme.json" "profile $T/bad, line 1: file: expected a path under the home, without . or .. components" --profile-file "$T/bad"
	printf 'file x\nsecret t access\n' >"$T/bad"
	import_refused "$T/acme.json" "profile $T/bad: no host line: the access token would go nowhere" --profile-file "$T/bad"
	for args in "import --key-file k --store s" "import --store s f" "import --key-file k f" \
		"import --profile other --key-file k --store s f" \
		"import --profile claude --profile-file p --key-file k --store s f" \
		"import --name 9x --key-file k --store s f" "import --key-file k --store s f g" \
		"seal --key-file k --name X" "list --store s --profile claude"; do
		run otosecret $args
		assertEquals "$args" 100 "$rc"
		assertOneLine otosecret
	done
}

. shunit2
