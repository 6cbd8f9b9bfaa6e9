#!/bin/sh
# What asking the decider costs (otonet --ask-fd), in the otonet test
# topology (tests/net/topo.sh), the relay as uid 65534, one machine, one run:
#  - allowed: --no-public --allow tcp:INET4:9002, no decider: the reference;
#  - ask:     --no-public --ask-fd 3, a decider (tests/helpers/decider.py)
#             that answers allow-once at once, every connect asked.
# In each round the two modes take turns, each in a new sandbox: N connects
# to the fake internet's echo (9002), each timed from connect() to its first
# byte back (bench/askbench.py lat: P50 and P90 in us); medians of RUNS
# rounds, and the difference ask - allowed (goal: at most 1 ms). Then the
# relay's VmRSS (kB) with no question pending and with PENDING (200) held,
# unanswered. Needs root (ip netns). Results: stdout.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-11}
N=${N:-200}
PENDING=${PENDING:-200}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "ask.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
trap 'topo_down' EXIT
trap 'topo_down; exit 1' INT TERM HUP
topo_up </dev/null >/dev/null 2>&1 || exit 111
D=$TOPO_DIR/bench
mkdir -p "$D" && chmod 1777 "$D"
cp "$top/bench/askbench.py" "$top/tests/helpers/decider.py" "$D/" && chmod 0644 "$D"/*.py
AB="$PY $D/askbench.py"
NET="--public 203.0.113.0/24 --no-public"

# mode: one sandbox, N connects; "P50 P90".
one() {
	case $1 in
	allowed)
		ip netns exec "$NH" "$OTO_BIN/otonet" --as 65534 $NET --allow tcp:$INET4:9002 -- \
			$AB lat $INET4 9002 "$N" ;;
	ask)
		ip netns exec "$NH" $PY "$D/decider.py" allow-once -- "$OTO_BIN/otonet" --as 65534 \
			$NET --ask-fd 3 -- $AB lat $INET4 9002 "$N" ;;
	esac 2>"$D/err" || { cat "$D/err" >&2; exit 111; }
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

start=$(date +%s)
: >"$D/allowed" && : >"$D/ask"
i=0
while [ $i -lt "$RUNS" ]; do
	for m in allowed ask; do one $m >>"$D/$m"; done
	i=$((i + 1))
done
a50=$(cut -d' ' -f1 "$D/allowed" | median)
a90=$(cut -d' ' -f2 "$D/allowed" | median)
k50=$(cut -d' ' -f1 "$D/ask" | median)
k90=$(cut -d' ' -f2 "$D/ask" | median)
rss=$(ip netns exec "$NH" $PY "$D/decider.py" silent -- "$OTO_BIN/otonet" --as 65534 $NET \
	--ask-fd 3 --ask-timeout 60 -- sh -c "$AB pending $INET4 20000 $PENDING \$PPID" 2>"$D/err")
echo "otonet --ask-fd ($OTO_BIN), $RUNS rounds of $N connects, modes in turn, medians ($(($(date +%s) - start)) s)."
echo "connect to first byte, us:  P50   P90"
printf 'allowed (an exception)      %5s %5s\n' "$a50" "$a90"
printf 'ask (allow-once at once)    %5s %5s\n' "$k50" "$k90"
printf 'added by asking             %5s %5s\n' $((k50 - a50)) $((k90 - a90))
echo "relay VmRSS, kB: none pending, $PENDING pending, held: $rss"
