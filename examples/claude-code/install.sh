#!/bin/sh
# Install a coding-agent CLI from the npm registry into /opt/claude, where
# agent.conf binds it read-only into the sandbox, and its settings (home/)
# into /etc/oto/claude-home, which agent.conf's --home-skel copies into the
# agent's home. As root. Then home.sh approves the store's phantom there:
#   sh examples/claude-code/install.sh [DIR [HOME-SKEL]]
#   sh examples/claude-code/home.sh /etc/oto/claude-home /etc/oto/code.store
set -eu
dir=${1:-/opt/claude}
skel=${2:-/etc/oto/claude-home}
command -v npm >/dev/null || { echo "install.sh: fatal: npm not found (apt-get install npm)" >&2; exit 111; }
mkdir -p "$dir" "$skel"
npm install --prefix "$dir" --no-audit --no-fund @anthropic-ai/claude-code
chmod -R a+rX "$dir"
cp -R "$(dirname "$0")/home/." "$skel/"
chmod -R a+rX "$skel"
"$dir/node_modules/.bin/claude" --version
