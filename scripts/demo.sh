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

# otonet needs /dev/net/tun. Run by root, otonet opens it whatever its mode
# (0600 here, 0666 on stock distributions): only a device that is missing or
# that root cannot open leaves the demo without the network stage. Anyone
# else needs it open to them (0666). The node is checked first: "<>" would
# create a plain file where there is none.
net=
if ! [ -c /dev/net/tun ] || ! sh -c 'exec 3<>/dev/net/tun' 2>/dev/null; then
	net=--no-net
	mode=$(stat -c %a /dev/net/tun 2>/dev/null || echo missing)
	if [ -n "$as" ]; then
		echo "demo: warning: /dev/net/tun cannot be opened even by root (mode $mode):" \
			"running without otonet; modprobe tun, or mknod /dev/net/tun c 10 200," \
			"to include it" >&2
	else
		echo "demo: warning: /dev/net/tun is not usable by $(id -un) (mode $mode):" \
			"running without otonet; chmod 0666 /dev/net/tun (the stock mode) to include it" >&2
	fi
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
