#!/bin/sh
# Install codex from the npm registry into /opt/codex, where agent.conf binds
# it read-only into the sandbox, and its settings (home/) into
# /etc/oto/codex-home, which agent.conf's --home-skel copies into the
# agent's home. As root.
#   sh examples/codex/install.sh [DIR [HOME-SKEL]]
set -eu
dir=${1:-/opt/codex}
skel=${2:-/etc/oto/codex-home}
command -v npm >/dev/null || { echo "install.sh: fatal: npm not found (apt-get install npm)" >&2; exit 111; }
mkdir -p "$dir" "$skel"
npm install --prefix "$dir" --no-audit --no-fund @openai/codex
chmod -R a+rX "$dir"
cp -R "$(dirname "$0")/home/." "$skel/"
chmod -R a+rX "$skel"
"$dir/node_modules/.bin/codex" --version
