#!/bin/sh
# What a flood of refused calls costs the host: four threads of the agent
# calling bpf() in a loop (tests/helpers/flood.c) for SECONDS under otons
# --log-fd and otoexec, each refusal a seccomp user notification answered by
# otons' supervisor, which runs outside the session's cgroup. For each build
# (OTO_BIN, and OTO_PREV_BIN when set: the build to compare with, in the same
# run), ROUNDS rounds alternately: the supervisor's CPU (utime + stime from
# /proc/PID/stat, read while the session still runs) per second of flood, and
# the refusals the flood got per second; medians, as a markdown table. As
# root, the sandbox runs as uid 65534.
#
#   OTO_BIN=build/musl/bin [OTO_PREV_BIN=DIR] sh bench/flood.sh [SECONDS] [ROUNDS]
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
SECS=${1:-5}
ROUNDS=${2:-3}
W=$(mktemp -d /tmp/oto-bench-flood.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
chmod 0755 "$W"
top=$(cd "$(dirname "$0")/.." && pwd)
gcc -O1 -pthread -o "$W/flood" "$top/tests/helpers/flood.c"
as=
[ "$(id -u)" -eq 0 ] && as="--as 65534"
hz=$(getconf CLK_TCK)

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one BIN NAME: a round; "CPU-SECONDS-PER-SECOND REFUSALS-PER-SECOND" appended to $W/NAME.
one() {
	rm -f "$W/go" "$W/out"
	# shellcheck disable=SC2086 # as: an option and its value
	"$1/otons" $as --log-fd 3 -- "$1/otoexec" -- "$W/flood" 4 "$SECS" "$W/go" \
		3>/dev/null >"$W/out" &
	sup=$!
	n=0
	while [ ! -s "$W/out" ] && [ $n -lt $((SECS * 20 + 200)) ]; do sleep 0.05; n=$((n + 1)); done
	ticks=$(sed 's/.*) //' "/proc/$sup/stat" | awk '{ print $12 + $13 }')
	: >"$W/go"
	wait "$sup" || true
	calls=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' "$W/out")
	awk -v t="$ticks" -v hz="$hz" -v s="$SECS" -v c="${calls:-0}" \
		'BEGIN { printf "%.3f %.0f\n", t / hz / s, c / s }' >>"$W/$2"
}

: >"$W/new"
[ -n "${OTO_PREV_BIN:-}" ] && : >"$W/prev"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	[ -n "${OTO_PREV_BIN:-}" ] && one "$OTO_PREV_BIN" prev
	one "$OTO_BIN" new
	r=$((r + 1))
done

echo "flood.sh: 4 threads calling bpf() for $SECS s, $ROUNDS rounds; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "| build | the supervisor's CPU (s per s) | refused calls per s |"
echo "|---|---|---|"
for b in prev new; do
	[ -f "$W/$b" ] || continue
	case $b in
	prev) name="previous ($OTO_PREV_BIN)" ;;
	*) name="this ($OTO_BIN)" ;;
	esac
	echo "| $name | $(cut -d' ' -f1 "$W/$b" | median) | $(cut -d' ' -f2 "$W/$b" | median) |"
done
