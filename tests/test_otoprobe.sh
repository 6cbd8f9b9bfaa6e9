#!/bin/sh
# otoprobe outside any sandbox (where it must report the gaps), under otons
# alone, under otons + otoexec, and in the chain otons + otomount + otoexec
# (where everything must be contained).
#
# SAFETY: outside a network namespace made here, the network probes would send
# SYNs to this machine's real private networks: every run outside a sandbox
# passes --no-net; the network probes run only under otons (a new, empty
# network namespace).
# run-as: root user
. "$(dirname "$0")/common.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
NETNS=$(stat -L -c %i /proc/self/ns/net)
USERNS=$(stat -L -c %i /proc/self/ns/user)
HOSTNS=
for n in user mnt pid ipc uts cgroup net; do
	HOSTNS="$HOSTNS --host-ns $n:$(stat -L -c %i /proc/self/ns/$n)"
done
NETS="10.0.0.1:80 172.16.0.1:80 192.168.1.1:80 169.254.169.254:80 100.64.0.1:80 127.0.0.1:80
198.18.0.1:80 192.0.0.192:80 [fd00::1]:80 [::1]:80 [::ffff:10.0.0.1]:80
[64:ff9b::a9fe:a9fe]:80 [2002:a9fe:a9fe::1]:80"
SYSCALLS="unshare(CLONE_NEWUSER)|unshare(CLONE_NEWNS)|mount|ptrace|bpf|keyctl|add_key|perf_event_open|userfaultfd|io_uring_setup|kexec_load|init_module|open_by_handle_at|setns|clone3|socket(AF_PACKET)|socket(AF_NETLINK, NETLINK_AUDIT)|ioctl(TIOCSTI)"


# verdicts PATTERN: a line "CHECK=VERDICT" for every row whose name matches the regex.
verdicts() {
	"$PY" -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
for c in d["checks"]:
    if re.search(sys.argv[2], c["check"]):
        print(c["check"] + "=" + c["verdict"])' "$T/out" "$1"
}

# summary: "contained GAPS ROWS" from the JSON in $T/out.
summary() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["gaps"] == sum(c["verdict"] == "GAP" for c in d["checks"])
assert all(c["verdict"] in ("ok", "GAP", "info") for c in d["checks"])
print(d["contained"], d["gaps"], len(d["checks"]))' "$T/out"
}

test_help_version_usage() {
	run otoprobe --help
	assertEquals 0 "$rc"
	assertEquals "usage: otoprobe [OPTION]..." "$(head -n 1 "$T/out")"
	# --version: tests/test_build.sh, for every tool
	for bad in "--bogus|unknown option --bogus (see --help)" \
		"--host-ns|option --host-ns needs an argument (see --help)" \
		"--host-ns net|--host-ns net: expected NS:ID, NS one of user mnt pid ipc uts cgroup net" \
		"--host-ns time:5|--host-ns time:5: expected NS:ID, NS one of user mnt pid ipc uts cgroup net" \
		"--host-ns net:0|--host-ns net:0: expected NS:ID, NS one of user mnt pid ipc uts cgroup net" \
		"--net-timeout 0|--net-timeout 0: expected 1 to 60000 milliseconds" \
		"--net-timeout 60001|--net-timeout 60001: expected 1 to 60000 milliseconds" \
		"-x|unknown option -x (see --help)" \
		"extra|unexpected argument extra (see --help)"; do
		# shellcheck disable=SC2086 # the options are split on purpose
		run otoprobe ${bad%%|*}
		assertEquals "${bad%%|*}" 100 "$rc"
		assertOneLine otoprobe
		assertEquals "otoprobe: fatal: ${bad#*|}" "$(cat "$T/err")"
		assertEquals "nothing on stdout" "" "$(cat "$T/out")"
	done
}

test_outside_reports_the_gaps() {
	# shellcheck disable=SC2086
	run otoprobe --json --no-net $HOSTNS 7</dev/null
	assertEquals 1 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertEquals "False" "$(summary | cut -d' ' -f1)"
	assertEquals "GAP|open: /dev/null" "$(row 'fd 7')"
	assertEquals "GAP|0" "$(row no_new_privs)"
	assertEquals "GAP|0 (no filter)" "$(row seccomp)"
	# Even nobody holds a full bounding set outside a sandbox.
	assertContains "$(row capabilities)" "GAP|held: "
	assertContains "$(row capabilities)" "CapBnd=000001ff"
	for n in user mnt pid ipc uts cgroup net; do
		assertEquals "ns $n" \
			"GAP|$(stat -L -c %i /proc/self/ns/$n): the launcher's own namespace" "$(row "ns $n")"
	done
	assertEquals "GAP|uid $(id -u); inside->outside(count): 0->0(4294967295) (the initial namespace, or outer root mapped)" \
		"$(row uid_map)"
	assertContains "$(row 'path /sys')" "GAP|not empty: "
	assertEquals "--no-net: no network rows" "" "$(verdicts '^net ')"
	if [ -n "$IS_ROOT" ]; then
		assertEquals "GAP|readable: password hashes" "$(row 'path /etc/shadow')"
		assertEquals "GAP|allowed: the call succeeded" "$(row 'syscall unshare(CLONE_NEWNS)')"
	else
		assertEquals "ok|not readable (Permission denied)" "$(row 'path /etc/shadow')"
		assertEquals "ok|refused: EPERM (Operation not permitted)" "$(row 'syscall unshare(CLONE_NEWNS)')"
	fi
	# Unprivileged user namespaces are enabled here, for root and nobody alike.
	assertEquals "GAP|allowed: the call succeeded" "$(row 'syscall unshare(CLONE_NEWUSER)')"
	assertEquals "info|a tool's own sandbox could start here (a user namespace was made)" \
		"$(row 'nested sandbox')"
	assertEquals "GAP|reached the kernel: EINVAL (Invalid argument)" "$(row 'syscall clone3')"
	# strerror's words are the libc's: musl's, or glibc's in the sanitized pass.
	e="Not supported"
	[ -n "${OTO_SAN:-}" ] && e="Operation not supported"
	assertEquals "GAP|reached the kernel: EOPNOTSUPP ($e)" "$(row 'syscall keyctl')"
}

test_initial_namespaces_are_gaps_without_host_ns() {
	# No --host-ns: the kernel's fixed inodes of the initial namespaces tell.
	# The kernel's fixed inodes (include/linux/proc_ns.h): a test run in a
	# container (or by scripts/fresh-check.sh) is not in every initial one.
	run otoprobe --json --no-net
	assertEquals 1 "$rc"
	for n in user:4026531837 mnt:4026531832 pid:4026531836 ipc:4026531839 \
		uts:4026531838 cgroup:4026531835 net:4026531833; do
		i=$(stat -L -c %i /proc/self/ns/${n%:*})
		if [ "$i" = "${n#*:}" ]; then
			want="GAP|$i: the host's initial namespace"
		else
			want="info|$i (not the initial one; no --host-ns to compare with)"
		fi
		assertEquals "ns ${n%:*}" "$want" "$(row "ns ${n%:*}")"
	done
	run otons $AS -- otoprobe --json --no-net
	for n in user mnt pid ipc uts cgroup net; do
		assertTrue "ns $n: $(row "ns $n")" \
			"row 'ns $n' | grep -Eq '^info\|[0-9]+ \(not the initial one; no --host-ns to compare with\)$'"
	done
}

test_no_probe_sent_from_the_launchers_network() {
	# In otons' empty network namespace (nothing could leave it anyway), told
	# that it is the launcher's: otoprobe must send nothing and say why.
	run otons $AS -- sh -c 'exec otoprobe --json --host-ns net:$(stat -L -c %i /proc/self/ns/net)'
	assertEquals 1 "$rc"
	assertEquals "GAP|the launcher's own network namespace: no probe sent, it would reach the host's networks" \
		"$(row net)"
	assertEquals "no destination tried" "" "$(verdicts '^net .')"
}

test_fds_are_named() {
	run otoprobe --json --no-net 7</dev/null 9>"$T/held"
	assertEquals "GAP|open: $T/held" "$(row 'fd 9')"
	assertEquals "missing 0" "$(row fds)"
}

test_inside_otons_network_refused_caps_held() {
	run otons $AS -- otoprobe --json --host-ns "net:$NETNS" --host-ns "user:$USERNS"
	assertEquals 1 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertContains "$(row 'ns net')" "ok|"
	assertContains "$(row 'ns net')" "(launcher's $NETNS)"
	assertContains "$(row 'ns user')" "ok|"
	assertContains "$(row 'ns mnt')" "info|"
	# otons keeps its capabilities ambient for the later stages: a gap here.
	assertEquals "GAP|held: CapInh=000001ffffffffff CapPrm=000001ffffffffff CapEff=000001ffffffffff CapBnd=000001ffffffffff CapAmb=000001ffffffffff" \
		"$(row capabilities)"
	assertEquals "GAP|0" "$(row no_new_privs)"
	assertEquals "GAP|0 (no filter)" "$(row seccomp)"
	assertEquals "ok|uid 65534; inside->outside(count): 65534->65534(1)" \
		"$(row uid_map | sed "s/uid $(id -u);/uid 65534;/; s/$(id -u)->$(id -u)/65534->65534/")"
	# otons' nested user namespace limit refuses another one.
	assertEquals "ok|refused: ENOSPC (No space left on device)" "$(row 'syscall unshare(CLONE_NEWUSER)')"
	assertEquals "GAP|allowed: the call succeeded" "$(row 'syscall unshare(CLONE_NEWNS)')"
	# An empty network namespace with lo up: every destination refused at
	# once, loopback by its closed port, the rest for want of a route.
	for d in $NETS; do
		case $d in
		127.0.0.1:* | \[::1\]:*) e=ECONNREFUSED ;;
		*) e=ENETUNREACH ;;
		esac
		assertEquals "net $d" "ok|refused at once: $e" "$(row "net $d" | sed 's/ (.*//')"
	done
	assertEquals "13 network rows" 13 "$(verdicts '^net ' | wc -l)"
}

test_packets_that_leave_are_gaps() {
	# Inside otons' own network namespace (nothing leaves the machine): a route
	# to 10/8 over lo that nobody answers (a timeout), 172.16.0.1 local with no
	# listener (refused), 192.168.1.1 and 127.0.0.1 local with a listener.
	cat >"$T/listen.py" <<'PYEOF'
import socket, sys, os
ls = []
for a in ("192.168.1.1", "127.0.0.1"):
    s = socket.socket()
    s.bind((a, 80))
    s.listen(16)
    s.set_inheritable(True)
    ls.append(s)
os.execvp(sys.argv[1], sys.argv[1:])
PYEOF
	start=$(date +%s)
	run otons $AS -- sh -c '
		ip link set lo up && ip route add 10.0.0.0/8 dev lo &&
		ip addr add 172.16.0.1/32 dev lo && ip addr add 192.168.1.1/32 dev lo &&
		exec '"$PY"' '"$T"'/listen.py otoprobe --json --net-timeout 400 --host-ns net:'"$NETNS"
	end=$(date +%s)
	assertEquals 1 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertTrue "one timeout for all: $((end - start)) s" "[ $((end - start)) -lt 5 ]"
	assertTrue "timed out: $(row 'net 10.0.0.1:80')" \
		"row 'net 10.0.0.1:80' | grep -Eq '^GAP\|no answer in (4[0-9][0-9]|5[0-9][0-9]) ms: the SYN left and nothing refused it \(RFC 1918 private network\)$'"
	assertEquals "ok|refused at once: ECONNREFUSED (RFC 1918 private network)" "$(row 'net 172.16.0.1:80')"
	assertEquals "GAP|connected (RFC 1918 private network (home router))" "$(row 'net 192.168.1.1:80')"
	# Our own loopback is not the host's: reported, not a gap.
	assertEquals "info|connected (loopback of the sandbox's own network namespace)" "$(row 'net 127.0.0.1:80')"
	# The same through IPv4-mapped IPv6.
	assertContains "$(row 'net [::ffff:10.0.0.1]:80')" "GAP|no answer in "
}

test_under_otoexec_privileges_and_calls_refused() {
	[ -x "$OTO_BIN/otoexec" ] || { skip "otoexec is not built"; return; }
	run otons $AS -- otoexec -- "$OTO_BIN/otoprobe" --json --host-ns "net:$NETNS" 7</dev/null
	assertEquals "" "$(cat "$T/err")"
	assertEquals "ok|only 0, 1 and 2 are open" "$(row fds)"
	assertEquals "ok|none in any set (inheritable, permitted, effective, bounding, ambient)" "$(row capabilities)"
	assertEquals "ok|1" "$(row no_new_privs)"
	assertEquals "ok|2 (filter mode, 2 filters)" "$(row seccomp)"
	echo "$SYSCALLS" | tr '|' '\n' >"$T/calls"
	assertEquals 18 "$(wc -l <"$T/calls")"
	while read -r c; do
		if [ "$c" = clone3 ]; then e="ENOSYS (Function not implemented)"; else e="EPERM (Operation not permitted)"; fi
		assertEquals "syscall $c" "ok|refused: $e" "$(row "syscall $c")"
	done <"$T/calls"
	assertEquals "18 syscall rows" 18 "$(verdicts '^syscall ' | wc -l)"
	# The view is still the host's (no otomount): those are the only gaps.
	assertEquals "" "$(verdicts . | grep '=GAP$' | grep -v '^path ')"
	assertEquals 1 "$rc"
}

test_full_chain_is_contained() {
	for t in otoexec otomount; do
		[ -x "$OTO_BIN/$t" ] || { skip "$t is not built"; return; }
	done
	# shellcheck disable=SC2086
	run otons $AS -- otomount --ro "$OTO_BIN:/opt/oto" -- /opt/oto/otoexec -- \
		/opt/oto/otoprobe --json $HOSTNS 7</dev/null
	assertEquals "" "$(cat "$T/err")"
	assertEquals "no gaps: $(verdicts . | grep '=GAP$')" 0 "$rc"
	assertEquals "True 0 67" "$(summary)"
	# What codex's bwrap or Chromium's sandbox meets here, and what to do.
	assertEquals "info|none can start here (no user namespace): turn a tool's own sandbox off, this one is the boundary (codex: sandbox_mode = \"danger-full-access\"; Chromium: --no-sandbox)" \
		"$(row 'nested sandbox')"
	assertEquals "ok|only the agent's own home" "$(row 'path /home')"
	assertEquals "ok|absent" "$(row 'path /sys')"
	assertEquals "ok|absent" "$(row 'path /home/agent/.ssh')"
	assertEquals "info|0 credential-like names" "$(row env)"
	assertEquals "info|none visible: no cgroup v2 at /sys/fs/cgroup" "$(row 'cgroup limits')"
	# Every namespace differs from the launcher's.
	assertEquals "ns user=ok ns mnt=ok ns pid=ok ns ipc=ok ns uts=ok ns cgroup=ok ns net=ok" \
		"$(verdicts '^ns ' | tr '\n' ' ' | sed 's/ $//')"
	# The same run as a table: the one summary line, and the code.
	# shellcheck disable=SC2086
	run otons $AS -- otomount --ro "$OTO_BIN:/opt/oto" -- /opt/oto/otoexec -- \
		/opt/oto/otoprobe $HOSTNS
	assertEquals 0 "$rc"
	assertEquals "otoprobe: 63 checks, 63 contained, 0 gaps; 4 for information" "$(tail -n 1 "$T/out")"
	assertEquals "CHECK                                      VERDICT DETAIL" "$(head -n 1 "$T/out")"
	assertEquals 69 "$(wc -l <"$T/out")"
}

# The limits of the session's cgroup (otons --cgroup), as a cgroup v2
# mounted inside its cgroup namespace shows them at /sys/fs/cgroup.
test_cgroup_limits_seen_inside() {
	m=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	if [ -z "$m" ]; then
		skip "cgroup v2 is not mounted"
		return 0
	elif [ -n "$IS_ROOT" ]; then
		d=$m/oto-test-otoprobe-$$
		mkdir "$d" && chown "$OTO_TEST_USER" "$d"
	elif [ -n "${OTO_TEST_CGROUP:-}" ]; then
		d=$OTO_TEST_CGROUP
	else
		skip "no cgroup v2 directory delegated to uid $(id -u) (tests/run.sh makes one, run as root)"
		return 0
	fi
	limits=
	want="memory.max=none memory.swap.max=none pids.max=none cpu.max=none"
	if grep -qw pids "$d/cgroup.controllers"; then
		limits="--pids-max 40"
		want="memory.max=none memory.swap.max=none pids.max=40 cpu.max=none"
		grep -qw memory "$d/cgroup.controllers" &&
			want="memory.max=max memory.swap.max=0 pids.max=40 cpu.max=none"
	fi
	# shellcheck disable=SC2086 # the limit and its value
	run otons $AS --cgroup="$d" $limits -- sh -c 'mount -t tmpfs none /sys/fs && mkdir /sys/fs/cgroup &&
		mount -t cgroup2 none /sys/fs/cgroup && exec otoprobe --json --no-net'
	assertEquals "$(cat "$T/err")" 1 "$rc"
	assertEquals "info|$want" "$(row 'cgroup limits')"
	if [ -n "$IS_ROOT" ]; then rmdir "$d"; fi
}

test_env_names_never_values() {
	run env -i PATH="$PATH" MY_API_KEY=s3cr3t-value-1 GITHUB_TOKEN=s3cr3t-value-2 \
		LANG=C db_password=s3cr3t-value-3 otoprobe --json --no-net
	assertEquals "info|3 credential-like names: MY_API_KEY GITHUB_TOKEN db_password" "$(row env)"
	assertFalse "no value printed" "grep -q s3cr3t '$T/out' '$T/err'"
	run env -i PATH="$PATH" otoprobe --json --no-net
	assertEquals "info|0 credential-like names" "$(row env)"
}

test_hostile_names_are_escaped() {
	# A file name the agent could choose: a quote, a newline, a terminal escape.
	name=$(printf '%s/a"b\nc\033[2J\\d' "$T")
	: >"$name"
	run otoprobe --json --no-net 9<"$name"
	assertEquals 1 "$rc"
	assertEquals "json keeps the name exactly" "ok" "$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [c["detail"] for c in d["checks"] if c["check"] == "fd 9"]
print("ok" if r == ["open: " + sys.argv[2]] else r)' "$T/out" "$name")"
	run otoprobe --no-net 9<"$name"
	assertEquals 1 "$rc"
	assertTrue "table escapes it: $(grep '^fd 9 ' "$T/out")" \
		"grep -qF 'open: $T/a\"b\\x0ac\\x1b[2J\\x5cd' '$T/out'"
	assertFalse "no raw escape byte" "grep -q \"$(printf '\033')\" '$T/out'"
	# Table rows and JSON rows are the same count (+ header and summary).
	n=$(otoprobe --json --no-net 9<"$name" | "$PY" -c 'import json, sys; print(len(json.load(sys.stdin)["checks"]))')
	assertEquals $((n + 2)) "$(wc -l <"$T/out")"
}

test_no_proc_cannot_run() {
	# Without /proc nothing can be judged: 111, one line.
	[ -z "${OTO_SAN:-}" ] || { skip "the sanitizers' runtime writes its own line without /proc"; return; }
	run otons $AS -- sh -c 'mount -t tmpfs none /proc &&
		OTO_STATUS_FD=3 exec otoprobe --no-net 3>'"$T"'/status'
	assertEquals 111 "$rc"
	assertOneLine otoprobe
	assertEquals "otoprobe: fatal: unable to list /proc/self/fd: No such file or directory" "$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
	assertEquals "otoprobe 111 2 unable to list /proc/self/fd: No such file or directory" "$(cat "$T/status")"
}

test_report_unwritable() {
	# A report that does not reach stdout is no report: 111, not a verdict.
	otoprobe --no-net >/dev/full 2>"$T/err"
	assertEquals 111 "$?"
	assertEquals "otoprobe: fatal: unable to write the report: No space left on device" "$(cat "$T/err")"
}

. shunit2
