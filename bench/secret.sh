#!/bin/sh
# The time otosecret adds to a chain: otosecret decrypting 1, 10 and 100
# entries (all injected as variables) and exec'ing /bin/true, against /bin/true
# alone, in one hyperfine run (medians; the added time is the difference).
# A third reference, "null stage", is a static musl program that only execs
# the rest of its argv: any stage costs one exec, and on a loaded virtual
# machine an exec alone costs milliseconds; otosecret minus the null stage is
# the time of otosecret's own work.
# As root, everything runs as uid 65534, the way a sandbox runs. Goal: under
# 1 ms added for 10 entries. Also prints the CPU time (user + system), which
# a busy machine disturbs less than the wall time.
#   OTO_BIN=build/musl/bin sh bench/secret.sh [RUNS]
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
runs=${1:-500}
for t in hyperfine python3; do
	command -v $t >/dev/null || { echo "secret.sh: $t is needed" >&2; exit 111; }
done
w=$(mktemp -d /tmp/oto-bench-secret.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM
chmod 0755 "$w"
cp "$OTO_BIN/otosecret" "$w/"
# The null stage: same libc, same static link, no work.
printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv(v[1], v + 1); return 127; }\n' >"$w/null.c"
musl-gcc -static -Os -s -o "$w/nullstage" "$w/null.c"
"$w/otosecret" keygen --out "$w/key"
uses1='' uses10='' uses100=''
i=0
while [ $i -lt 100 ]; do
	# 40-byte values, the size of a typical API token.
	printf 'TOKEN_%d=%s\n' $i "$(head -c 30 /dev/urandom | base64 -w0)" >>"$w/input"
	[ $i -lt 1 ] && uses1="$uses1 --use TOKEN_$i"
	[ $i -lt 10 ] && uses10="$uses10 --use TOKEN_$i"
	uses100="$uses100 --use TOKEN_$i"
	i=$((i + 1))
done
for n in 1 10 100; do
	head -n $n "$w/input" | "$w/otosecret" seal --key-file "$w/key" --store "$w/store$n"
done
as=
if [ "$(id -u)" -eq 0 ]; then
	chown -R 65534:65534 "$w"
	as="setpriv --reuid 65534 --regid 65534 --clear-groups"
fi
s="$w/otosecret --key-file $w/key --store"
# shellcheck disable=SC2086
$as hyperfine -N --warmup 50 --runs "$runs" --export-json "$w/secret.json" \
	-n "true" "/bin/true" \
	-n "null stage" "$w/nullstage /bin/true" \
	-n "otosecret 1 entry" "$s $w/store1 $uses1 -- /bin/true" \
	-n "otosecret 10 entries" "$s $w/store10 $uses10 -- /bin/true" \
	-n "otosecret 100 entries" "$s $w/store100 $uses100 -- /bin/true" \
	>/dev/null
python3 - "$w/secret.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
med = {x["command"]: statistics.median(x["times"]) * 1000 for x in r}
# CPU time (hyperfine's mean user + system): less disturbed by other load than wall time.
cpu = {x["command"]: (x["user"] + x["system"]) * 1000 for x in r}
base, cbase = med["true"], cpu["true"]
nul = med["null stage"]
print("| command | median wall (ms) | added to true (ms) | added to the null stage (ms) | mean CPU (ms) | added CPU (ms) |")
print("|---|---|---|---|---|---|")
for name, m in med.items():
    own = f"{m - nul:.3f}" if name.startswith("otosecret") else ""
    print(f"| {name} | {m:.3f} | {m - base:.3f} | {own} | {cpu[name]:.3f} | {cpu[name] - cbase:.3f} |")
PY
