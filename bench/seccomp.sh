#!/bin/sh
# Per-syscall cost of otoexec's default seccomp profile against no filter, in
# the same run on the same machine: a tight loop of a cheap allowed call
# (getppid through syscall()) and of a common one (read of 0 bytes), each
# timed REPS times alternately with and without the filter; medians and the
# ratio are printed as a markdown table. Then a refused call (bpf, EPERM)
# under otons + otoexec, without and with the refusal log (otons --log-fd:
# each refusal a seccomp user notification answered by otons' supervisor),
# in a second table. As root, that part runs as uid 65534.
#
#   OTO_BIN=build/musl/bin sh bench/seccomp.sh [ITERATIONS] [REPS]
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
ITER=${1:-200000}
REPS=${2:-21}
W=$(mktemp -d /tmp/oto-bench-seccomp.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

cat >"$W/loop.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = atol(argv[2]), i;
	int fd[2];
	char b[1];
	struct timespec t0, t1;

	if (pipe(fd) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "getppid"))
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	else if (!strcmp(argv[1], "bpf"))
		for (i = 0; i < n; i++)
			syscall(SYS_bpf, 0, 0, 0);
	else
		for (i = 0; i < n; i++)
			syscall(SYS_read, fd[0], b, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.2f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
	return 0;
}
C
gcc -O2 -o "$W/loop" "$W/loop.c"

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| call | no filter (ns/call) | default profile (ns/call) | ratio |"
echo "|---|---|---|---|"
for call in getppid read0; do
	: >"$W/none"
	: >"$W/filt"
	r=0
	while [ "$r" -lt "$REPS" ]; do
		"$W/loop" $call "$ITER" >>"$W/none"
		"$OTO_BIN/otoexec" -- "$W/loop" $call "$ITER" >>"$W/filt"
		r=$((r + 1))
	done
	a=$(median <"$W/none")
	b=$(median <"$W/filt")
	echo "| $call | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3fx", b / a }') |"
done
echo
echo "$ITER iterations, median of $REPS runs each, alternating; kernel $(uname -r), $(nproc) cores."

# A refused call, without and with the refusal log: the same chain, otons
# then otoexec, and the log to /dev/null (its lines are bounded anyway).
as=
[ "$(id -u)" -eq 0 ] && as="--as 65534"
chmod 0755 "$W" "$W/loop"
echo
echo "| refused call | EPERM from the filter (ns/call) | notified, answered by otons (ns/call) | ratio |"
echo "|---|---|---|---|"
: >"$W/plain"
: >"$W/notif"
r=0
while [ "$r" -lt "$REPS" ]; do
	# shellcheck disable=SC2086
	"$OTO_BIN/otons" $as -- "$OTO_BIN/otoexec" -- "$W/loop" bpf "$ITER" >>"$W/plain"
	# shellcheck disable=SC2086
	"$OTO_BIN/otons" $as --log-fd 3 -- "$OTO_BIN/otoexec" -- "$W/loop" bpf "$ITER" >>"$W/notif" 3>/dev/null
	r=$((r + 1))
done
a=$(median <"$W/plain")
b=$(median <"$W/notif")
echo "| bpf | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1fx", b / a }') |"
