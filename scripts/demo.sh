#!/bin/sh
# make run: the demo agent (examples/agent) through the whole chain as a member
# (person alice), running otoprobe, which reports what the agent can do.
#   make run              otoprobe's report
#   make run CMD=sh       a shell in the sandbox instead
# Run by root, the sandbox runs as the account oto-agent (created when
# missing) or OTO_AS. The tree and the binaries are staged in a fresh folder
# under /tmp that the account can read, and removed afterwards.
set -eu
: "${OTO_BIN:?}"
top=$(cd "$(dirname "$0")/.." && pwd)

as=
if [ "$(id -u)" -eq 0 ]; then
	as=${OTO_AS:-oto-agent}
	if ! id "$as" >/dev/null 2>&1; then
		echo "demo: info: creating the unprivileged account $as for the sandbox" >&2
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$as"
	fi
fi

stage=$(mktemp -d /tmp/oto-demo.XXXXXX)
trap 'rm -rf "$stage"' EXIT INT TERM
chmod 0755 "$stage"
cp -R "$OTO_BIN" "$stage/bin"
cp -R "$top/examples/agent" "$stage/agent"
[ -n "$as" ] && chown -R "$as:$(id -gn "$as")" "$stage/agent"

# otonet needs /dev/net/tun; where the sandbox's account may not open it
# (mode 0600 here, 0666 on stock distributions), run without the network stage.
net=
tun_ok() {
	if [ -n "$as" ]; then
		setpriv --reuid "$as" --regid "$(id -g "$as")" --clear-groups \
			sh -c 'exec 3<>/dev/net/tun' 2>/dev/null
	else
		sh -c 'exec 3<>/dev/net/tun' 2>/dev/null
	fi
}
if ! tun_ok; then
	net=--no-net
	echo "demo: warning: /dev/net/tun is not usable by ${as:-$(id -un)}" \
		"(mode $(stat -c %a /dev/net/tun 2>/dev/null || echo missing)): running without otonet;" \
		"chmod 0666 /dev/net/tun (the stock mode) to include it" >&2
fi

if [ -n "${CMD:-}" ]; then
	set -- $CMD
else
	# The launcher's own namespaces: the sandbox's must all differ.
	set -- /opt/oto/bin/otoprobe
	for n in user mnt pid ipc uts cgroup net; do
		set -- "$@" --host-ns "$n:$(stat -L -c %i /proc/self/ns/$n)"
	done
fi

"$stage/bin/otorun" ${as:+--as "$as"} $net --agent-root "$stage/agent" \
	--role member --person alice -- "$@"
