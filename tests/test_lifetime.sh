#!/bin/sh
# The sandbox's lifetime and its cost to the host: the sandbox, not the
# host, is the OOM killer's first choice.
# run-as: root user
. "$(dirname "$0")/common.sh"

# The agent: ignores SIGTERM and SIGHUP, says it is up in $T/up.
# shellcheck disable=SC2016 # expanded by the agent's shell
STUBBORN='trap "" TERM HUP; echo up >"$0/up"; while :; do sleep 1; done'

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

ns_alone() { start otons $AS --no-pty "$@"; }

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

. shunit2
