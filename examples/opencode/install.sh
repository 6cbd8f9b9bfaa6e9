#!/bin/sh
# Install opencode from the npm registry into /opt/opencode, where agent.conf
# binds it read-only into the sandbox, and its settings (home/) into
# /etc/oto/opencode-home, which agent.conf's --home-skel copies into the
# agent's home. As root.
#   sh examples/opencode/install.sh [DIR [HOME-SKEL]]
set -eu
dir=${1:-/opt/opencode}
skel=${2:-/etc/oto/opencode-home}
command -v npm >/dev/null || { echo "install.sh: fatal: npm not found (apt-get install npm)" >&2; exit 111; }
mkdir -p "$dir" "$skel"
npm install --prefix "$dir" --no-audit --no-fund opencode-ai
chmod -R a+rX "$dir"
cp -R "$(dirname "$0")/home/." "$skel/"
chmod -R a+rX "$skel"
"$dir/node_modules/.bin/opencode" --version
