#!/bin/sh
# ssh without the key inside (examples/ssh): git push over SSH from the
# sandbox to an sshd in the fake internet, the key held by an ssh-agent
# outside the sandbox, reached through otomount --socket; the network rules
# still decide which hosts ssh reaches. In the topology of tests/net/topo.sh:
# two sshd (openssh-server's, started here as root with a configuration,
# host keys and an account of their own: a passwd and group bound over the
# host's in a private mount namespace, so the host's are never changed),
# each serving a bare repository through git-shell to a key authorised for
# the account git. The servers are in a namespace of their own behind the
# fake internet (oto-git-ID, routed as topo_far's: the fake internet's own
# port 22 is nettool's), on 203.0.113.20, named git.ssh.test, and
# 203.0.113.21, named by nothing.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"

# openssh-server's sshd, unpacked by scripts/install-deps.sh (never
# installed: that would start the host's own), or the host's.
SSHD=$OTO_TOP/build/deps/openssh/usr/sbin/sshd
[ -x "$SSHD" ] || SSHD=/usr/sbin/sshd
NG=oto-git-$TOPO_ID
GIT4=203.0.113.20
GIT4B=203.0.113.21
GIT_UID=61234 # no account of the host's has it
RUN_SSH=$OTO_TOP/examples/ssh/run.sh

# sshd_up NAME ADDR...: sshd NAME listening on port 22 of each ADDR, in the
# fake internet; its log in $S/NAME.log.
sshd_up() {
	_n=$1
	shift
	ssh-keygen -q -t ed25519 -N '' -C "$_n" -f "$S/$_n.key" || return 1
	{
		for a in "$@"; do echo "ListenAddress $a"; done
		cat <<EOF
Port 22
HostKey $S/$_n.key
AuthorizedKeysFile $S/authorized_keys
AllowUsers git
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin no
PidFile none
LogLevel VERBOSE
EOF
	} >"$S/$_n.conf"
	# A private mount namespace: the account git in a passwd of its own, and
	# the privilege separation directory in a /run of its own.
	ip netns exec "$NG" unshare -m --propagation private sh -c '
		mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/group" /etc/group &&
		mount -t tmpfs -o mode=0755 oto-sshd /run && mkdir -m 0755 /run/sshd &&
		exec "$2" -D -e -f "$1/$3.conf"' sh "$S" "$SSHD" "$_n" 2>"$S/$_n.log" &
	echo $! >"$S/$_n.pid"
	n=0
	while [ "$(grep -c '^Server listening on' "$S/$_n.log")" -lt $# ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	[ "$(grep -c '^Server listening on' "$S/$_n.log")" = $# ] ||
		{ echo "sshd $_n failed: $(cat "$S/$_n.log")" >&2; return 1; }
}

# The servers' namespace, linked to the fake internet, routed as topo_far's.
git_net_up() {
	ip netns add "$NG" || return 1
	ip link add ig0 netns "$NI" type veth peer name gi0 netns "$NG" || return 1
	ip -n "$NG" link set lo up
	ip -n "$NI" link set ig0 up
	ip -n "$NG" link set gi0 up
	for a in $GIT4 $GIT4B; do
		ip -n "$NG" addr add "$a/32" dev gi0
		ip -n "$NI" route add "$a/32" dev ig0
		ip -n "$NH" route add "$a/32" via "$INET4"
	done
	ip -n "$NG" route add default via "$INET4" dev gi0 onlink
	ip netns exec "$NI" sysctl -qw net.ipv4.ip_forward=1
	topo_name git.ssh.test $GIT4
}

ssh_up() {
	S=$TOPO_DIR/ssh
	git_net_up || return 1
	mkdir -p "$S/home" && chmod 0755 "$S"
	cp /etc/passwd "$S/passwd" && cp /etc/group "$S/group"
	echo "git:x:$GIT_UID:$GIT_UID:git:$S/home:/usr/bin/git-shell" >>"$S/passwd"
	echo "git:x:$GIT_UID:" >>"$S/group"
	# sshd's privilege separation account (its package's, which is unpacked,
	# not installed, by scripts/install-deps.sh), where the host has none.
	if ! grep -q '^sshd:' "$S/passwd"; then
		echo "sshd:x:$((GIT_UID + 1)):65534::/run/sshd:/usr/sbin/nologin" >>"$S/passwd"
	fi
	git init -q --bare -b main "$S/home/repo.git" && chown -R "$GIT_UID:$GIT_UID" "$S/home" || return 1
	# The key, root's alone: only ssh-add, outside, ever reads it.
	ssh-keygen -q -t ed25519 -N '' -C oto-test -f "$S/id" && chmod 0600 "$S/id" || return 1
	cp "$S/id.pub" "$S/authorized_keys" && chmod 0644 "$S/authorized_keys"
	sshd_up a "$GIT4" && sshd_up b "$GIT4B" || return 1
	# What the agent's ssh knows of the servers: their host keys.
	printf 'git.ssh.test %s\n%s %s\n' "$(cut -d' ' -f1-2 "$S/a.key.pub")" \
		"$GIT4B" "$(cut -d' ' -f1-2 "$S/b.key.pub")" >"$S/known_hosts"
	chmod 0644 "$S/known_hosts"
}

ssh_down() {
	for p in a b; do [ -f "$S/$p.pid" ] && kill "$(cat "$S/$p.pid")" 2>/dev/null; done
	ip netns del "$NG" 2>/dev/null
	return 0
}

oneTimeSetUp() {
	[ -n "$IS_ROOT" ] || return 0
	[ -x "$SSHD" ] || return 0
	trap 'ssh_down; topo_down' EXIT
	trap 'ssh_down; topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	ssh_up || { echo "sshd failed" >&2; exit 1; }
}

oneTimeTearDown() {
	[ -n "$IS_ROOT" ] || return 0
	[ -x "$SSHD" ] || return 0
	ssh_down
	topo_down
}

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	[ -x "$SSHD" ] || { skip "no sshd (scripts/install-deps.sh test unpacks it into build/deps/openssh)"; return 0; }
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	cp "$S/known_hosts" "$A/workspace/"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
}

# session [LAUNCHER] -- SCRIPT: SCRIPT (sh -c) as the agent in its view, the
# public internet closed but git.ssh.test on port 22, ssh told to use
# the servers' host keys and never to ask; through LAUNCHER (examples/ssh/run.sh,
# SSH_KEY the key) or otorun alone. The agent's places are in a --config
# file, as examples/ssh/README.md's line has them. The network log in $T/log.
session() {
	_l=
	[ "$1" = -- ] || { _l=$1; shift; }
	shift
	printf '%s\n' "--agent-root $A" "--person alice" "--role member" >"$T/agent.conf"
	# shellcheck disable=SC2086 # the launcher's words split on purpose
	run ip netns exec "$NH" env SSH_KEY="$S/id" OTORUN="$OTO_BIN/otorun" ${_l:-$OTO_BIN/otorun} \
		--config "$T/agent.conf" --as "$OTO_TEST_USER" $PUB --no-public \
		--allow-name git.ssh.test:22 --log-fd 3 \
		--env "GIT_SSH_COMMAND=ssh -F /dev/null -o UserKnownHostsFile=/work/known_hosts -o BatchMode=yes" \
		-- sh -c "$1" 3>"$T/log"
}

COMMIT='cd /work && git init -q -b main proj && cd proj &&
	git -c user.name=a -c user.email=a@example.test commit -q --allow-empty -m one &&
	git rev-parse HEAD'

test_git_push_over_ssh_through_the_outside_agent() {
	session "sh $RUN_SSH" -- "ls $S/id 2>&1; ls /run/ssh; echo \"S=\$SSH_AUTH_SOCK\"; ssh-add -l
		$COMMIT && git push -q git@git.ssh.test:repo.git main && echo pushed"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "ls: cannot access '$S/id': No such file or directory
agent.sock
S=/run/ssh/agent.sock
$(ssh-keygen -lf "$S/id.pub")" "$(sed -n 1,4p "$T/out")"
	head=$(sed -n 5p "$T/out")
	assertEquals "pushed" "$(sed -n 6p "$T/out")"
	assertEquals "the server's main is the agent's commit" "$head" \
		"$(git --git-dir="$S/home/repo.git" rev-parse refs/heads/main)"
	assertEquals 40 "${#head}"
	# sshd a let the key in, for git-shell's receive-pack.
	assertContains "$(cat "$S/a.log")" "Accepted publickey for git from"
	assertContains "$(cat "$T/log")" '"port":22,"verdict":"allow","rule":"name","name":"git.ssh.test"'
}

test_without_the_agent_the_key_is_nowhere() {
	session -- "echo \"S=\${SSH_AUTH_SOCK:-}\"; $COMMIT >/dev/null && git push -q git@git.ssh.test:repo.git main:none; echo \"git=\$?\""
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "S=
git=128" "$(cat "$T/out")"
	assertContains "$(cat "$T/err")" "git@git.ssh.test: Permission denied (publickey)."
	assertFalse "the push landed" "git --git-dir='$S/home/repo.git' rev-parse -q --verify refs/heads/none"
}

# The second server is up (its host key answers from the fake host, outside
# the sandbox), but no rule names it: the agent's ssh is refused at the
# relay, and the log says so.
test_a_host_the_rules_do_not_allow_is_refused() {
	assertContains "$(ip netns exec "$NH" ssh-keyscan -T 5 -t ed25519 "$GIT4B" 2>/dev/null)" \
		"$(cut -d' ' -f1-2 "$S/b.key.pub")"
	session "sh $RUN_SSH" -- "$COMMIT >/dev/null && git push -q git@$GIT4B:repo.git main:other; echo \"git=\$?\""
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "git=128" "$(cat "$T/out")"
	assertContains "$(cat "$T/err")" "ssh: connect to host $GIT4B port 22: Connection refused"
	assertContains "$(cat "$T/log")" "\"dst\":\"$GIT4B\",\"port\":22,\"verdict\":\"deny\",\"rule\":\"no-public\"}"
	assertFalse "the push landed" "git --git-dir='$S/home/repo.git' rev-parse -q --verify refs/heads/other"
}

. shunit2
