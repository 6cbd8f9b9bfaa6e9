#!/bin/sh
# What a flood from inside writes on the record, and how fast the relay
# refuses it: one thread of the agent refusing connects to 10.0.0.1:80 for
# SECONDS, then asking one name of the resolver for SECONDS, under otonet
# --log-fd (a file). For each build (OTO_BIN, and OTO_PREV_BIN when set: the
# build to compare with, in the same run), ROUNDS rounds alternately: the
# record's bytes per second of flood, the refused connects and the answered
# questions per second; medians, as a markdown table, and this build's
# ratio to the other.
#
#   OTO_BIN=build/musl/bin [OTO_PREV_BIN=DIR] sh bench/record.sh [SECONDS] [ROUNDS]   (root)
#
# Everything runs in a network namespace made for it (loopback only): the
# connects never reach a host socket (the relay answers them), and the
# resolver is a small one on 127.0.0.1 in that namespace (--dns 127.0.0.1).
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
SECS=${1:-5}
ROUNDS=${2:-3}
[ "$(id -u)" = 0 ] || { echo "record.sh: needs root (ip netns, otonet --as)" >&2; exit 111; }
ns=oto-bench-record-$$
W=$(mktemp -d /tmp/oto-bench-record.XXXXXX)
cleanup() {
	[ -f "$W/dns.pid" ] && kill "$(cat "$W/dns.pid")" 2>/dev/null
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
chmod 0755 "$W"
ip netns add "$ns"
ip -n "$ns" link set lo up

# The resolver: every question answered NXDOMAIN at once.
cat >"$W/dns.py" <<'PY'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
while True:
    q, a = s.recvfrom(4096)
    if len(q) >= 12:
        s.sendto(q[:2] + bytes([0x80 | (q[2] & 1), 0x83]) + q[4:], a)
PY
# The agent: refused connects for S seconds, then questions for S seconds.
cat >"$W/flood.py" <<'PY'
import socket, struct, sys, time
secs = float(sys.argv[1])
n, end = 0, time.monotonic() + secs
while time.monotonic() < end:
    s = socket.socket()
    try:
        s.connect(("10.0.0.1", 80))
    except OSError:
        n += 1
    s.close()
q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + b"\x05flood\x04test\x00\x00\x01\x00\x01"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(1)
u.connect(("10.0.2.3", 53))
m, end = 0, time.monotonic() + secs
while time.monotonic() < end:
    u.send(q)
    try:
        u.recv(512)
        m += 1
    except OSError:
        pass
print(n / secs, m / secs)
PY
chmod 0644 "$W/dns.py" "$W/flood.py"
ip netns exec "$ns" python3 "$W/dns.py" &
echo $! >"$W/dns.pid"
sleep 0.3

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one BIN NAME: a round; "BYTES-PER-S REFUSED-PER-S ANSWERED-PER-S" appended to $W/NAME.
one() {
	ip netns exec "$ns" "$1/otonet" --as 65534 --dns 127.0.0.1 --log-fd 3 -- \
		python3 "$W/flood.py" "$SECS" 3>"$W/log" >"$W/out"
	# shellcheck disable=SC2046 # the program's two numbers, two fields
	set -- "$2" "$(wc -c <"$W/log")" $(cat "$W/out")
	echo "$(($2 / (2 * SECS))) $3 $4" >>"$W/$1"
}

names=this
[ -n "${OTO_PREV_BIN:-}" ] && names="prev this"
for r in $(seq "$ROUNDS"); do
	for n in $names; do
		[ "$n" = prev ] && one "$OTO_PREV_BIN" prev || one "$OTO_BIN" this
	done
	: "$r"
done
echo "record.sh: one thread, ${SECS} s of refused connects then ${SECS} s of questions, $ROUNDS rounds; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "| build | record bytes per s | refused connects per s | answered questions per s |"
echo "|---|---|---|---|"
for n in $names; do
	b=$(cut -d' ' -f1 "$W/$n" | median)
	c=$(cut -d' ' -f2 "$W/$n" | median)
	d=$(cut -d' ' -f3 "$W/$n" | median)
	echo "| $n ($([ "$n" = prev ] && echo "$OTO_PREV_BIN" || echo "$OTO_BIN")) | $b | $c | $d |"
	eval "b_$n=$b c_$n=$c d_$n=$d"
done
if [ -n "${OTO_PREV_BIN:-}" ]; then
	# shellcheck disable=SC2154 # set by the eval above
	awk -v b1="$b_this" -v b0="$b_prev" -v c1="$c_this" -v c0="$c_prev" -v d1="$d_this" -v d0="$d_prev" 'BEGIN {
		printf "this / prev: record bytes %.4f, refused connects %.2f, answered questions %.2f\n", b1 / b0, c1 / c0, d1 / d0 }'
fi
