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
# unanswered. With OTO_BIN_B, a directory holding another build's otonet,
# both modes run with it too, in the same turns (allowed-b, ask-b): an A/B
# of two builds in one run. Needs root (ip netns). Results: stdout.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-11}
N=${N:-200}
PENDING=${PENDING:-200}
OTO_BIN_B=${OTO_BIN_B:-}
MODES="allowed ask"
if [ -n "$OTO_BIN_B" ]; then
	[ -x "$OTO_BIN_B/otonet" ] || { echo "ask.sh: fatal: OTO_BIN_B=$OTO_BIN_B: no otonet there" >&2; exit 100; }
	MODES="allowed ask allowed-b ask-b"
fi
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
	bin=$OTO_BIN
	case $1 in *-b) bin=$OTO_BIN_B ;; esac
	case $1 in
	allowed*)
		ip netns exec "$NH" "$bin/otonet" --as 65534 $NET --allow tcp:$INET4:9002 -- \
			$AB lat $INET4 9002 "$N" ;;
	ask*)
		ip netns exec "$NH" $PY "$D/decider.py" allow-once -- "$bin/otonet" --as 65534 \
			$NET --ask-fd 3 -- $AB lat $INET4 9002 "$N" ;;
	esac 2>"$D/err" || { cat "$D/err" >&2; exit 111; }
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# bin: the relay's VmRSS with none pending, then PENDING pending, held.
rss_of() {
	ip netns exec "$NH" $PY "$D/decider.py" silent -- "$1/otonet" --as 65534 $NET \
		--ask-fd 3 --ask-timeout 60 -- sh -c "$AB pending $INET4 20000 $PENDING \$PPID" 2>"$D/err"
}

# suffix ("" or -b), label: the build's three lines.
report() {
	a50=$(cut -d' ' -f1 "$D/allowed$1" | median)
	a90=$(cut -d' ' -f2 "$D/allowed$1" | median)
	k50=$(cut -d' ' -f1 "$D/ask$1" | median)
	k90=$(cut -d' ' -f2 "$D/ask$1" | median)
	printf 'allowed (an exception)%-6s %5s %5s\n' "$2" "$a50" "$a90"
	printf 'ask (allow-once at once)%-4s %5s %5s\n' "$2" "$k50" "$k90"
	printf 'added by asking%-13s %5s %5s\n' "$2" $((k50 - a50)) $((k90 - a90))
}

start=$(date +%s)
for m in $MODES; do : >"$D/$m"; done
i=0
while [ $i -lt "$RUNS" ]; do
	for m in $MODES; do one $m >>"$D/$m"; done
	i=$((i + 1))
done
rss=$(rss_of "$OTO_BIN")
[ -z "$OTO_BIN_B" ] || rss_b=$(rss_of "$OTO_BIN_B")
echo "otonet --ask-fd ($OTO_BIN${OTO_BIN_B:+ against $OTO_BIN_B}), $RUNS rounds of $N connects, modes in turn, medians ($(($(date +%s) - start)) s)."
echo "connect to first byte, us:  P50   P90"
report "" ""
[ -z "$OTO_BIN_B" ] || report -b " (B)"
echo "relay VmRSS, kB: none pending, $PENDING pending, held: $rss"
[ -z "$OTO_BIN_B" ] || echo "relay VmRSS (B), kB: none pending, $PENDING pending, held: $rss_b"
