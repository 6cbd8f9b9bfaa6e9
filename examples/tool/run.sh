#!/bin/sh
# A tool with its own network exception, an agent without it: two chains and
# one Unix socket between them (oto(7), "A TOOL WITH ITS OWN EXCEPTION").
#
#   TOOL_CMD='metrics-mcp --stdio' examples/tool/run.sh TOOL_CONF AGENT_CONF -- CMD [ARG]...
#
# 1. The tool's chain (TOOL_CONF: its tree, its --as account, its --allow)
#    runs otoconnect --serve, which starts TOOL_CMD (sh -c, in the tool's
#    view) for each connection, on pipes to and from the connection (bytes
#    only: no descriptor crosses).
# 2. The agent's chain (AGENT_CONF) gets the socket alone, at
#    /tools/metrics.sock; its MCP configuration names the client:
#      "command": "/opt/oto/bin/otoconnect", "args": ["/tools/metrics.sock"]
# The socket lives in a fresh directory of the tool's account, writable in
# the tool's view only, removed at the end. The tool's chain ends with the
# agent's; the agent's death ends its connection, never the tool's chain.
#
# Run by root with two accounts (tool.conf and agent.conf name different
# --as), the directory is the tool's, group the agent's, mode 0710, and the
# socket 0666: only the tool's account and the agent's group can reach it.
#
# Environment: TOOL_CMD (the tool, required); TOOL_MAX (otoconnect --max,
# default 4); OTORUN (default: otorun on PATH).
set -eu
[ $# -ge 4 ] && [ "$3" = -- ] || {
	echo "usage: TOOL_CMD=... run.sh TOOL_CONF AGENT_CONF -- CMD [ARG]..." >&2
	exit 100
}
tool_conf=$1 agent_conf=$2
shift 3
: "${TOOL_CMD:?TOOL_CMD names the tool}"
: "${OTORUN:=otorun}"

# The accounts (--as) of each chain: the tool's owns the socket's directory.
as_of() { sed -n 's/^--as[[:space:]]*//p' "$1" | tail -n1; }
tool_as=$(as_of "$tool_conf") agent_as=$(as_of "$agent_conf")
dir=$(mktemp -d "${TMPDIR:-/tmp}/oto-tool.XXXXXX")
tool=
trap '[ -z "$tool" ] || { kill "$tool" 2>/dev/null; wait "$tool" 2>/dev/null; }; rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
mode=600
if [ "$(id -u)" = 0 ] && [ -n "$tool_as" ]; then
	chown "${tool_as%%:*}" "$dir"
	if [ -n "$agent_as" ] && [ "${agent_as%%:*}" != "${tool_as%%:*}" ]; then
		group=${agent_as#*:}
		[ "$group" != "$agent_as" ] || group=$(id -gn "$agent_as")
		chgrp "$group" "$dir" && chmod 0710 "$dir"
		mode=666
	fi
fi

# 1. The tool, in a chain of its own.
"$OTORUN" --config "$tool_conf" --no-pty --rw "$dir:/run/tool" -- \
	otoconnect --serve /run/tool/metrics.sock --max "${TOOL_MAX:-4}" --mode "$mode" -- \
	sh -c "$TOOL_CMD" </dev/null &
tool=$!
n=0
until [ -S "$dir/metrics.sock" ]; do
	kill -0 "$tool" 2>/dev/null && [ $n -lt 200 ] || { echo "run.sh: fatal: the tool's chain did not start" >&2; exit 111; }
	sleep 0.05
	n=$((n + 1))
done

# 2. The agent, with the socket and nothing else of the tool.
set +e
"$OTORUN" --config "$agent_conf" --socket "$dir/metrics.sock:/tools/metrics.sock" -- "$@"
exit $?
