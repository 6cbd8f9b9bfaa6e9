#!/bin/sh
# otonet's name rules (--allow-name) against none, in one run on one machine,
# in the otonet test topology (tests/net/topo.sh), the relay as uid 65534:
#  - none:  otonet --public (the fake internet open), no name rule;
#  - names: otonet --no-public --allow-name '*.inet.test', after the agent
#           resolved NAMES distinct names (n0.inet.test ... : NAMES bindings
#           in the relay's table, every one on INET4, the address the test
#           connects to: each new flow is allowed by a binding, the longest
#           hash chain there is);
#  - names-tls: as names, and each connection's first bytes are a TLS
#           ClientHello naming the last name bound, so the relay checks the
#           SNI against the bindings (the whole chain walked) before it
#           forwards a byte.
# What is measured, in each run the modes taking turns: new TCP connections
# per second (connect, the first bytes, their echo, close, for
# SECONDS_PER_RUN s), and the first-byte latency (from connect() to the
# first byte echoed back; p50 and p99 of those connections, µs). Medians of
# RUNS runs, and each mode's ratio to none: the issue's bound is 1.1 (names
# at most 10 % slower). Needs root (ip netns). Results: stdout, and
# bench/results-names.md when OTO_BENCH_WRITE=1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
NAMES=${NAMES:-1000}
MODES=${MODES:-none names names-tls}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "names.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
srvpid=
cleanup() {
	[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null
	topo_down
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM HUP
topo_up </dev/null >/dev/null 2>&1 || exit 111
ip netns exec "$NH" sysctl -qw net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range="1024 65000"
D=$TOPO_DIR/bench
mkdir -p "$D" && chmod 1777 "$D"
# The agent is uid 65534: its tools in $D, whoever may read the checkout.
cp "$NETTOOL" "$D/nettool.py" && chmod 0644 "$D/nettool.py"
NT=$D/nettool.py
BT=$D/namestool.py
cat >"$BT" <<'PY'
import selectors, socket, sys, time

# nettool.py lies beside this file: its ClientHello, the one the tests send.
from nettool import client_hello

# The server (in the fake internet): TCP echo on 9112, one process, selectors.
def serve(ready):
    sel = selectors.DefaultSelector()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 9112))
    s.listen(4096)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, None)
    open(ready, "w").close()
    while True:
        for key, _ in sel.select():
            if key.data is None:
                try:
                    c, _ = s.accept()
                except OSError:
                    continue
                c.setblocking(False)
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(c, selectors.EVENT_READ, 1)
                continue
            c = key.fileobj
            try:
                x = c.recv(65536)
            except OSError:
                x = b""
            if not x:
                sel.unregister(c)
                c.close()
            else:
                c.send(x)

# Connections for secs: connect, data, its echo, close. "CPS P50 P99" (µs).
def run(host, secs, sni):
    data = client_hello(sni) if sni != "-" else b"x"
    lat, end = [], time.monotonic() + float(secs)
    while time.monotonic() < end:
        t = time.monotonic()
        s = socket.create_connection((host, 9112), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(data)
        got = s.recv(65536)
        if not got:
            sys.exit("run: no echo (reset?)")
        lat.append(time.monotonic() - t)
        s.close()
    lat.sort()
    print("%.0f %.0f %.0f" % (len(lat) / float(secs), lat[len(lat) // 2] * 1e6,
                              lat[min(len(lat) - 1, len(lat) * 99 // 100)] * 1e6))

if __name__ == "__main__":
    {"serve": serve, "run": run}[sys.argv[1]](*sys.argv[2:])
PY
ip netns exec "$NI" python3 "$BT" serve "$D/ready" </dev/null >/dev/null 2>&1 &
srvpid=$!
n=0
while [ ! -e "$D/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
[ -e "$D/ready" ] || { echo "names.sh: fatal: the echo server did not start" >&2; exit 111; }

# one MODE: one run of the client in a new sandbox of that mode; "CPS P50 P99" in $D/out.
one() {
	last=n$((NAMES - 1)).inet.test
	case $1 in
	none) set -- --public 203.0.113.0/24 -- python3 "$BT" run $INET4 "$SECONDS_PER_RUN" - ;;
	names | names-tls)
		sni=-
		[ "$1" = names-tls ] && sni=$last
		set -- --public 203.0.113.0/24 --no-public --allow-name '*.inet.test' -- sh -c \
			"python3 $NT names $NAMES n .inet.test >&2 &&
			python3 $BT run $INET4 $SECONDS_PER_RUN $sni" ;;
	esac
	ip netns exec "$NH" "$OTO_BIN/otonet" --as 65534 "$@" >"$D/out" 2>"$D/err"
}

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -n | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "fail"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }

start=$(date +%s)
for _ in $(seq "$RUNS"); do
	for m in $MODES; do
		mv=$(echo "$m" | tr - _)
		one "$m"
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(tail -n1 "$D/out") fail fail fail
		[ "$1" = fail ] && sed "s/^/    $m: /" "$D/err" >&2
		eval "cps_$mv=\"\${cps_$mv:-} $1\" p50_$mv=\"\${p50_$mv:-} $2\" p99_$mv=\"\${p99_$mv:-} $3\""
	done
done
elapsed=$(($(date +%s) - start))

out=$D/summary
: >"$out"
for m in $MODES; do
	mv=$(echo "$m" | tr - _)
	eval "c=\$cps_$mv p50=\$p50_$mv p99=\$p99_$mv"
	# shellcheck disable=SC2154 # c, p50, p99: assigned by the eval above
	echo "$m $(echo "$c" | median) $(echo "$p50" | median) $(echo "$p99" | median)" >>"$out"
done
v() { awk -v k="$1" -v f="$2" '$1 == k {print $f}' "$out"; }
{
	echo "otonet, $NAMES name bindings against no name rule: $RUNS runs of $SECONDS_PER_RUN s, modes in turn, medians ($elapsed s)."
	echo "Connections/s: more is better; first-byte latency (connect to the first byte echoed, µs): less is better."
	echo "Ratios: none's connections/s over the mode's, the mode's latency over none's (the bound: 1.1)."
	echo
	echo "| mode | connections/s | first byte p50 µs | p99 µs | cps ratio | p50 ratio | p99 ratio |"
	echo "|---|---|---|---|---|---|---|"
	for m in $MODES; do
		echo "| $m | $(v "$m" 2) | $(v "$m" 3) | $(v "$m" 4) | $(ratio "$(v none 2)" "$(v "$m" 2)") | $(ratio "$(v "$m" 3)" "$(v none 3)") | $(ratio "$(v "$m" 4)" "$(v none 4)") |"
	done
} | tee "$D/table"
[ "${OTO_BENCH_WRITE:-}" = 1 ] && cp "$D/table" "$top/bench/results-names.md"
exit 0
