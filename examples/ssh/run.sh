#!/bin/sh
# ssh and git over SSH in the sandbox, the private key outside it: an
# ssh-agent of the session's own, outside the sandbox, holds the key; the
# agent's ssh reaches it through one Unix socket bound into the view
# (otomount --socket), named by SSH_AUTH_SOCK. See examples/ssh/README.md.
#
#   SSH_KEY=FILE examples/ssh/run.sh OTORUN-OPTIONS... -- CMD [ARG]...
#
# 1. A fresh directory (mode 0700) holds the agent's socket. Run by root
#    with --as USER among the options, the directory is USER's and
#    ssh-agent runs as USER: ssh-agent serves only its own uid and root,
#    and the sandboxed agent connects as USER.
# 2. ssh-agent -D -a SOCKET starts; ssh-add loads SSH_KEY into it, run as
#    the caller (who may read the key; a passphrase is asked here, on the
#    caller's terminal). SSH_ADD_OPTS go to ssh-add (-c: confirm each use,
#    with SSH_ASKPASS; -t SECONDS: a lifetime).
# 3. otorun runs with the socket alone on /run/ssh/agent.sock in the view
#    and SSH_AUTH_SOCK naming it, before the caller's options. Which hosts
#    ssh reaches is still the network rules' decision: give them among the
#    options (--no-public --allow-name github.com:22, or --allow
#    tcp:ADDR:22).
# 4. When otorun ends, ssh-agent is stopped (by its pid) and the directory
#    removed; the exit code is otorun's.
#
# Environment: SSH_KEY (required), SSH_AS (the account, when --as is in a
# --config file), SSH_ADD_OPTS, OTORUN (default: otorun on
# PATH), SSH_AGENT and SSH_ADD (default: on PATH).
set -eu
: "${SSH_KEY:?SSH_KEY names the private key file}"
: "${OTORUN:=otorun}" "${SSH_AGENT:=ssh-agent}" "${SSH_ADD:=ssh-add}"
[ -r "$SSH_KEY" ] || { echo "run.sh: fatal: unable to read the key $SSH_KEY" >&2; exit 111; }

# The --as account among the options (before --), or SSH_AS (an --as in a
# --config file is not seen here).
as=${SSH_AS:-}
prev=
for a in "$@"; do
	[ "$a" = -- ] && break
	[ "$prev" = --as ] && as=$a
	case $a in --as=*) as=${a#--as=} ;; esac
	prev=$a
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/oto-ssh.XXXXXX")
agent=
trap '[ -z "$agent" ] || { kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null; }; rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# 1, 2. The agent's ssh-agent, as the account the sandbox runs as.
if [ "$(id -u)" = 0 ] && [ -n "$as" ]; then
	user=${as%%:*} group=${as#*:}
	[ "$group" != "$as" ] || group=$(id -g "$user")
	chown "$user:$group" "$dir"
	setpriv --reuid "$user" --regid "$group" --clear-groups \
		"$SSH_AGENT" -D -a "$dir/agent.sock" >/dev/null </dev/null &
else
	"$SSH_AGENT" -D -a "$dir/agent.sock" >/dev/null </dev/null &
fi
agent=$!
n=0
until [ -S "$dir/agent.sock" ]; do
	kill -0 "$agent" 2>/dev/null && [ $n -lt 200 ] ||
		{ echo "run.sh: fatal: unable to start ssh-agent" >&2; exit 111; }
	sleep 0.05
	n=$((n + 1))
done
# shellcheck disable=SC2086 # options split on purpose
SSH_AUTH_SOCK=$dir/agent.sock "$SSH_ADD" -q ${SSH_ADD_OPTS:-} "$SSH_KEY" ||
	{ echo "run.sh: fatal: unable to add $SSH_KEY to the session's ssh-agent" >&2; exit 111; }

# 3. The session, with the socket and nothing else of the agent's directory.
set +e
"$OTORUN" --socket "$dir/agent.sock:/run/ssh/agent.sock" --env SSH_AUTH_SOCK=/run/ssh/agent.sock "$@"
exit $?
