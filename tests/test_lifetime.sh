#!/bin/sh
# One session, one lifetime: SIGTERM or SIGHUP to the launcher's pid (otons,
# otonet's relay or otogate), the loss of the terminal, the death of any
# stage outside the sandbox ends the whole session within the grace, even
# for an agent that ignores SIGTERM; the record's close line says how. And
# the sandbox, not the host, is the OOM killer's first choice. The chains
# with otonet run as root (/dev/net/tun is 0600 here), in a network
# namespace of their own with nothing but loopback.
# run-as: root user
. "$(dirname "$0")/common.sh"

# The agent: ignores SIGTERM and SIGHUP, says it is up in $T/up.
# shellcheck disable=SC2016 # expanded by the agent's shell
STUBBORN='trap "" TERM HUP; echo up >"$0/up"; while :; do sleep 1; done'
GATE_KEY=sk-lifetime-0123456789abcdef

# need_root: the test skips unless root (otonet and otogate).
need_root() {
	[ -n "$IS_ROOT" ] && return 0
	skip "needs root (/dev/net/tun is root's here)"
	return 1
}

# start CMD...: CMD in the background, stdin /dev/null, stdout and stderr in
# $T/out and $T/err, fd 3 and fd 4 on $T/log; $LAUNCHER its pid. Waits (at
# most 10 s) for the agent's $T/up (or $UP), then keeps every pid of the
# chain (the launcher and its descendants) in $T/pids.
start() {
	: >"$T/log"
	chmod 0666 "$T/log"
	"$@" </dev/null >"$T/out" 2>"$T/err" 3>>"$T/log" 4>>"$T/log" &
	LAUNCHER=$!
	_up=${UP:-$T/up}
	_n=0
	while [ ! -s "$_up" ] && [ $_n -lt 200 ]; do sleep 0.05; _n=$((_n + 1)); done
	assertTrue "the agent started ($(cat "$T/err"))" "[ -s '$_up' ]"
	ps -e -o pid=,ppid=,comm= | awk -v root="$LAUNCHER" '
		{ parent[$1] = $2; name[$1] = $3 }
		END {
			keep[root] = 1; grew = 1
			while (grew) {
				grew = 0
				for (p in parent)
					if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 }
			}
			for (p in keep) print p, name[p]
		}' >"$T/pids"
}

# pid_of NAME: the chain's process of that name (comm), from $T/pids.
pid_of() { awk -v n="$1" '$2 == n { print $1; exit }' "$T/pids"; }

# assertChainGone SECONDS CODE: the launcher exits with CODE within SECONDS,
# and no process of the chain is left a second later.
assertChainGone() {
	if wait_child "$LAUNCHER" "$1"; then
		# shellcheck disable=SC2154 # rc: wait_child's (common.sh)
		assertEquals "the launcher's code ($(cat "$T/err"))" "$2" "$rc"
	else
		fail "the launcher still ran $1 s on (killed): $(cat "$T/err")"
	fi
	_n=0 _left=
	while [ $_n -lt 20 ]; do
		_left=
		while read -r _p _name; do
			case $(proc_state "$_p") in
			'' | Z) ;;
			*) _left="$_left $_p($_name)" ;;
			esac
		done <"$T/pids"
		[ -z "$_left" ] && break
		sleep 0.05
		_n=$((_n + 1))
	done
	assertEquals "every process of the chain gone ($(tr '\n' ' ' <"$T/pids"))" "" "$_left"
	# Whatever is left is the test's to end, so that the suite goes on.
	for _p in $_left; do kill -KILL "${_p%%(*}" 2>/dev/null; done
	return 0
}

# close_of: the record's close line, as "EXIT SIGNAL END GRACE_KILL".
close_of() {
	python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
c = [d for d in ls if d["source"] == "session" and d["verdict"] == "close"]
print(len(c), *(c[-1][k] for k in ("exit", "signal", "end", "grace_kill")) if c else "")
' "$T/log"
}

ns_alone() { start otons $AS --no-pty --grace 1 --log-fd 3 "$@"; }

# behind_net [OTONS OPTION]...: otonet then otons, in an empty network namespace of its own.
behind_net() {
	start unshare -n "$OTO_BIN/otonet" $AS --log-fd 3 -- \
		"$OTO_BIN/otons" $AS --share net --no-pty --log-fd 4 "$@"
}

# behind_gate [OTONS OPTION]...: otogate, otonet, otons; a grant of a key
# the agent never uses.
behind_gate() {
	mkdir -p "$T/k"
	otosecret keygen --out "$T/k/key" &&
		echo "API_KEY=$GATE_KEY" | otosecret seal --key-file "$T/k/key" --store "$T/k/store" ||
		fail "cannot make the store"
	start unshare -n "$OTO_BIN/otogate" --store "$T/k/store" --key-file "$T/k/key" $AS \
		--grant API_KEY=https://127.0.0.1:8443 -- "$OTO_BIN/otonet" $AS --log-fd 3 -- \
		"$OTO_BIN/otons" $AS --share net --no-pty --log-fd 4 "$@"
}

# The sandbox holds memory no RSS counts (a memfd it never maps, its tmpfs,
# socket buffers): only its oom_score_adj makes it the OOM killer's choice.
# 1000 for the agent and all it forks, the supervisor and the relay left as
# the caller's; the agent's oom_score then tops any host process's.
test_oom_sandbox_is_first_choice() {
	ns_alone -- sh -c 'cat /proc/self/oom_score_adj >"$0/adj"
		sh -c "cat /proc/self/oom_score_adj" >"$0/adj2"; '"$STUBBORN" "$T"
	mine=$(cat /proc/self/oom_score_adj)
	agent=$(pid_of sh)
	assertEquals "the agent's" 1000 "$(cat "$T/adj")"
	assertEquals "what the agent forks" 1000 "$(cat "$T/adj2")"
	assertEquals "pid 1's" 1000 "$(cat "/proc/$(pid_of oto-init)/oom_score_adj")"
	assertEquals "the supervisor's, as its caller's" "$mine" "$(cat "/proc/$LAUNCHER/oom_score_adj")"
	assertTrue "the agent's oom_score ($(cat "/proc/$agent/oom_score")) tops this shell's ($(cat /proc/self/oom_score))" \
		"[ $(cat "/proc/$agent/oom_score") -ge 1000 ] && [ $(cat "/proc/$agent/oom_score") -gt $(cat /proc/self/oom_score) ]"
	kill -KILL "$LAUNCHER"
	assertChainGone 5 137
}

test_oom_relay_and_gateway_left_as_they_were() {
	need_root || return 0
	behind_gate --grace 1 -- sh -c 'cat /proc/self/oom_score_adj >"$0/adj"; '"$STUBBORN" "$T"
	mine=$(cat /proc/self/oom_score_adj)
	assertEquals "the agent's" 1000 "$(cat "$T/adj")"
	assertEquals "otogate's" "$mine" "$(cat "/proc/$(pid_of otogate)/oom_score_adj")"
	assertEquals "the relay's" "$mine" "$(cat "/proc/$(pid_of otonet)/oom_score_adj")"
	assertEquals "the supervisor's" "$mine" "$(cat "/proc/$(pid_of otons)/oom_score_adj")"
	kill -TERM "$LAUNCHER"
	assertChainGone 5 137
}

# SIGTERM to otons: the agent ignores it; the grace (1 s) runs out and the
# pid namespace is killed: otons exits 137, and says so once.
test_sigterm_ends_an_agent_that_ignores_it() {
	ns_alone -- sh -c "$STUBBORN" "$T"
	kill -TERM "$LAUNCHER"
	assertChainGone 4 137
	assertEquals "1 137 9 signal True" "$(close_of)"
	assertEquals "otons: warning: the program outlived its 1 s of grace: its pid namespace is killed" \
		"$(cat "$T/err")"
}

test_sighup_ends_an_agent_that_ignores_it() {
	ns_alone -- sh -c "$STUBBORN" "$T"
	kill -HUP "$LAUNCHER"
	assertChainGone 4 137
	assertEquals "1 137 9 signal True" "$(close_of)"
}

# The control: an agent that ends on SIGTERM ends in its own time, with its own code.
test_sigterm_to_an_agent_that_obeys() {
	ns_alone --grace 30 -- sh -c 'trap "exit 42" TERM; echo up >"$0/up"; while :; do sleep 0.05; done' "$T"
	kill -TERM "$LAUNCHER"
	assertChainGone 4 42
	assertEquals "1 42 0 signal False" "$(close_of)"
}

test_grace_option_checked() {
	run otons --grace 3601 -- true
	assertEquals 100 "$rc"
	assertEquals "otons: fatal: --grace 3601: not a number of seconds from 0 to 3600" "$(cat "$T/err")"
}

# SIGKILL of otons' parent (--die-with-parent): the session ends as on
# SIGTERM, and otons closes the record its parent opened.
test_parent_killed_ends_the_session() {
	start sh -c 'otons '"$AS"' --no-pty --grace 1 --die-with-parent --log-fd 3 -- sh -c "$1" "$2"' \
		sh "$STUBBORN" "$T"
	victim=$(pid_of otons)
	kill -KILL "$LAUNCHER"
	wait "$LAUNCHER" 2>/dev/null
	assertTrue "otons gone within the grace" "wait_gone $victim 4"
	sleep 0.2
	for p in $(cut -d' ' -f1 "$T/pids"); do
		assertTrue "$p gone" "[ -z '$(proc_state "$p")' ]"
	done
	# What is left is the test's to end (pid 1 and the agent die with otons).
	kill -KILL "$victim" 2>/dev/null
	assertEquals "1 137 9 parent-gone True" "$(close_of)"
}

# The chains through otonet: SIGTERM and SIGHUP to the relay, the launcher.
test_sigterm_to_otonet_ends_the_chain() {
	need_root || return 0
	behind_net --grace 1 -- sh -c "$STUBBORN" "$T"
	kill -TERM "$LAUNCHER"
	assertChainGone 5 137
	assertEquals "1 137 9 signal True" "$(close_of)"
}

test_sighup_to_otogate_ends_the_chain() {
	need_root || return 0
	behind_gate --grace 1 -- sh -c "$STUBBORN" "$T"
	kill -HUP "$LAUNCHER"
	assertChainGone 5 137
	assertEquals "1 137 9 signal True" "$(close_of)"
}

# Never a sandbox without its gateway: SIGKILL of otogate ends the relay
# and the sandbox, the record's close says why.
test_otogate_killed_ends_the_sandbox() {
	need_root || return 0
	behind_gate --grace 1 -- sh -c "$STUBBORN" "$T"
	kill -KILL "$(pid_of otogate)"
	assertChainGone 5 137
	assertEquals "1 137 9 gateway-gone True" "$(close_of)"
	assertContains "$(cat "$T/err")" "otonet: warning: the gateway (otogate) is gone: the session ends"
}

# Never a gateway holding a key without its sandbox: SIGKILL of the relay
# ends otogate at once and the sandbox within the grace (otons, whose
# parent the relay was, closes the record).
test_relay_killed_ends_gateway_and_sandbox() {
	need_root || return 0
	behind_gate --grace 1 -- sh -c "$STUBBORN" "$T"
	kill -KILL "$(pid_of otonet)"
	assertChainGone 5 137
	assertEquals "1 137 9 parent-gone True" "$(close_of)"
}

# SIGKILL of the supervisor: pid 1 dies with it (and its namespace), the
# relay and the gateway then end.
test_supervisor_killed_ends_everything() {
	need_root || return 0
	behind_gate --grace 1 -- sh -c "$STUBBORN" "$T"
	kill -KILL "$(pid_of otons)"
	assertChainGone 5 137
	assertEquals "1 137 9 exit False" "$(close_of)"
}

# The chain otorun composes, the agent in its view: otorun's pid is
# otonet's; SIGTERM there ends all of it within otorun --grace, and the
# agent was the OOM killer's first choice.
test_otorun_chain_ends_within_its_grace() {
	need_root || return 0
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	UP=$A/workspace/up start unshare -n "$OTO_BIN/otorun" --as "$OTO_TEST_USER" \
		--agent-root "$A" --person alice --role member --grace 1 --log-fd 3 -- \
		sh -c 'trap "" TERM HUP; cat /proc/self/oom_score_adj >/work/up
			while :; do sleep 1; done'
	assertEquals "the agent's oom_score_adj" 1000 "$(cat "$A/workspace/up")"
	assertEquals "otorun's pid is the relay's" otonet "$(cat "/proc/$LAUNCHER/comm")"
	kill -TERM "$LAUNCHER"
	assertChainGone 5 137
	assertEquals "1 137 9 signal True" "$(close_of)"
}

test_otorun_passes_grace_on() {
	run otorun --print --as nobody --agent-root /a --role member --person p --grace 3 -- true
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "/otons --share net --grace 3 -- "
}

# The terminal goes away: otons (in a session of its own, so that no SIGHUP
# reaches it; the session leader ignores it) sees its terminal hang up and
# ends the session.
test_terminal_gone_ends_the_session() {
	# otoexec makes the agent's pty, which otons relays to the terminal.
	python3 - "$T" "$OTO_BIN/otons" $AS --grace 1 --log-fd 3 -- \
		"$OTO_BIN/otoexec" --env PATH=/usr/bin:/bin -- sh -c "$STUBBORN" "$T" \
		3>"$T/log" <<'EOF' >"$T/out" 2>"$T/err"
import os, pty, signal, sys, time
t, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    # The terminal's session leader outlives the hangup, and waits for otons.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.execvp("setsid", ["setsid", "-w"] + argv)
for _ in range(200):
    if os.path.exists(t + "/up"):
        break
    time.sleep(0.05)
print("up" if os.path.exists(t + "/up") else "not up")
os.close(fd)
start = time.monotonic()
while time.monotonic() - start < 5:
    p, status = os.waitpid(pid, os.WNOHANG)
    if p == pid:
        print("code", os.waitstatus_to_exitcode(status))
        break
    time.sleep(0.05)
else:
    # otons, setsid's child, first: pid 1 and the agent die with it.
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open("/proc/%s/stat" % d).read().rsplit(") ", 1)[1].split()[1] == str(pid):
                os.kill(int(d), 9)
        except (OSError, IndexError):
            pass
    os.kill(pid, 9)
    print("still running")
EOF
	assertEquals "up
code 137" "$(cat "$T/out")"
	assertEquals "1 137 9 terminal-gone True" "$(close_of)"
}

. shunit2
