#!/bin/sh
# Launch latency: otons running /bin/true against unshare(1) and bubblewrap
# making the same namespaces, measured in one hyperfine run (medians, ratios).
# As root, everything runs as uid 65534, the way a sandbox is meant to run.
# The cost of the session's cgroup (otons --cgroup: make the leaf, move pid 1,
# kill and remove it at the end), alone and with the limits whose controllers
# cgroup v2 has here, in the same run: as root in a subtree delegated to uid
# 65534 for the run (the benchmark's processes inside it, as systemd's
# delegation has them); otherwise in OTO_BENCH_CGROUP, a directory delegated
# to the caller, when it is set; else those rows are left out (said on stderr).
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

# The cgroup rows: a directory for the leaves, and the limits it allows.
cg=${OTO_BENCH_CGROUP:-} enter=: mnt=
if [ "$(id -u)" -eq 0 ]; then
	mnt=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$mnt" ]; then
		cg=$mnt/oto-bench-$$
		mkdir "$cg" "$cg/bench"
		chown 65534:65534 "$cg" "$cg/cgroup.procs" "$cg/cgroup.subtree_control" \
			"$cg/cgroup.threads" "$cg/bench" "$cg/bench/cgroup.procs"
		enter="echo 0 >$cg/bench/cgroup.procs"
		trap 'rm -rf "$out"; rmdir "$cg"/*/ "$cg"' EXIT
	fi
fi
set --
if [ -n "$cg" ]; then
	limits=
	grep -qw pids "$cg/cgroup.controllers" && limits="$limits --pids-max 512"
	grep -qw memory "$cg/cgroup.controllers" && limits="$limits --memory-max 1G"
	grep -qw cpu "$cg/cgroup.controllers" && limits="$limits --cpu-max 1"
	set -- -n "otons --cgroup" "$out/otons --cgroup=$cg -- /bin/true"
	[ -n "$limits" ] &&
		set -- "$@" -n "otons --cgroup$limits" "$out/otons --cgroup=$cg$limits -- /bin/true"
else
	echo "launch.sh: no cgroup v2 directory (as root: cgroup v2 is not mounted; else set OTO_BENCH_CGROUP): no cgroup rows" >&2
fi
cd "$out"
# The shell moves into the delegated subtree (as root), then becomes uid 65534.
# shellcheck disable=SC2086
sh -c "$enter"' && exec "$@"' sh $as hyperfine -N --warmup 20 --runs "$runs" \
	--export-json "$out/launch.json" \
	-n otons "$out/otons -- /bin/true" \
	"$@" \
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
