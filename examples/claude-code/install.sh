#!/bin/sh
# Install a coding-agent CLI from the npm registry into /opt/claude, where
# agent.conf binds it read-only into the sandbox. As root.
#   sh examples/claude-code/install.sh [DIR]
set -eu
dir=${1:-/opt/claude}
command -v npm >/dev/null || { echo "install.sh: fatal: npm not found (apt-get install npm)" >&2; exit 111; }
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund @anthropic-ai/claude-code
chmod -R a+rX "$dir"
"$dir/node_modules/.bin/claude" --version
