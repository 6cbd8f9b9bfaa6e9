#!/bin/sh
# Launch latency: otons running /bin/true against unshare(1) and bubblewrap
# making the same namespaces, measured in one hyperfine run (medians, ratios).
# As root, everything runs as uid 65534, the way a sandbox is meant to run.
#   OTO_BIN=build/musl/bin sh bench/launch.sh [RUNS]
set -eu
: "${OTO_BIN:?}"
runs=${1:-300}
out=$(mktemp -d /tmp/oto-bench.XXXXXX)
chmod 0777 "$out"
trap 'rm -rf "$out"' EXIT
cp "$OTO_BIN/otons" "$out/"
chmod 0755 "$out/otons"

as=
[ "$(id -u)" -eq 0 ] && as="setpriv --reuid 65534 --regid 65534 --clear-groups"
cd "$out"
# shellcheck disable=SC2086
$as hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/launch.json" \
	-n otons "$out/otons -- /bin/true" \
	-n "unshare -Urmpiuf --mount-proc" "unshare -Urmpiuf --mount-proc /bin/true" \
	-n "bwrap --unshare-all" "bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev /bin/true" \
	>/dev/null
python3 - "$out/launch.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
med = {x["command"]: statistics.median(x["times"]) * 1000 for x in r}
base = med["otons"]
print("| command | median (ms) | ratio to otons |")
print("|---|---|---|")
for name, m in med.items():
    print(f"| {name} | {m:.3f} | {m / base:.2f} |")
PY
