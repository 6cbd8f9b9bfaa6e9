#!/bin/sh
# otonet's name rules (--allow-name) and what judging every request costs,
# against the build from before (OTO_BIN_B), in one run on one machine, in
# the otonet test topology (tests/net/topo.sh), the relay as uid 65534:
#  - none:    this build, otonet --public (the fake internet open), no rule;
#  - names:   this build, --no-public --allow-name '*.inet.test' after the
#             agent resolved NAMES distinct names (n0.inet.test ...: NAMES
#             bindings in the relay's table, every one on INET4, the longest
#             hash chain there is), then a.inet.test: every request's Host
#             judged, a head not whole in its segment held;
#  - names-b: the same with OTO_BIN_B's otonet (the build before: only a
#             flow's first segment looked at).
# The server in the fake internet is an HTTP/1.1 server on port 80 (a rule
# without a port is 80 and 443 now): a small answer to every GET, 100 MB to
# GET /big. What is measured, in each round the modes taking turns, each in
# a new sandbox: 100 GETs on one kept-alive connection, 100 GETs each on a
# new connection (ms for the 100), and one 100 MB download (MB/s), each REPS
# times in the sandbox (the median of those kept), and the relay's CPU time
# (utime and stime, from /proc) for one of each. Medians of RUNS rounds, and
# each mode's ratio to names-b: the goal is names within 5 % of names-b.
# Needs root (ip netns). OTO_BIN_B: a directory holding the other build's
# otonet (made from a `git archive` of the commit before, as bench/RESULTS.md
# says). Results: stdout.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
: "${OTO_BIN_B:=$top/build/base/build/musl/bin}"
RUNS=${RUNS:-11}
REPS=${REPS:-5}
NAMES=${NAMES:-1000}
MODES=${MODES:-none names names-b}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "names.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
case " $MODES " in
*" names-b "*) [ -x "$OTO_BIN_B/otonet" ] || { echo "names.sh: fatal: names-b needs OTO_BIN_B, a directory with an otonet" >&2; exit 100; } ;;
esac
srvpid=
cleanup() {
	[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null
	topo_down
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM HUP
topo_up </dev/null >/dev/null 2>&1 || exit 111
ip netns exec "$NH" sysctl -qw net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range="1024 65000"
# The topology's own test servers hold port 80: this benchmark's HTTP server takes it.
kill "$(cat "$TOPO_DIR/inet.pid")" 2>/dev/null
rm -f "$TOPO_DIR/inet.pid"
D=$TOPO_DIR/bench
mkdir -p "$D" && chmod 1777 "$D"
# The agent is uid 65534: its tools in $D, whoever may read the checkout.
cp "$NETTOOL" "$D/nettool.py" && chmod 0644 "$D/nettool.py"
NT=$D/nettool.py
BT=$D/namestool.py
cat >"$BT" <<'PY'
import os, socket, socketserver, sys, time

BIG = 100 << 20
SMALL = b"x" * 512
CHUNK = b"\0" * (1 << 20)

# The server (in the fake internet): HTTP/1.1 on port 80, kept alive.
class H(socketserver.StreamRequestHandler):
    def handle(self):
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while True:
            line = self.rfile.readline()
            if not line:
                return
            while self.rfile.readline() not in (b"\r\n", b""):
                pass
            big = line.split()[1:2] == [b"/big"]
            n = BIG if big else len(SMALL)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n)
            if big:
                for _ in range(BIG // len(CHUNK)):
                    self.wfile.write(CHUNK)
            else:
                self.wfile.write(SMALL)
            self.wfile.flush()

class S(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 512

def serve(ready):
    s = S(("0.0.0.0", 80), H)
    open(ready, "w").close()
    s.serve_forever()

def get(f, s, path, host):
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host))
    if not f.readline().startswith(b"HTTP/1.1 200"):
        sys.exit("get: not 200")
    n = 0
    while True:
        h = f.readline()
        if h in (b"\r\n", b""):
            break
        if h.lower().startswith(b"content-length:"):
            n = int(h.split(b":")[1])
    left = n
    while left:
        x = f.read1(min(left, 1 << 20))
        if not x:
            sys.exit("get: short body")
        left -= len(x)
    return n

def conn(addr):
    s = socket.create_connection((addr, 80), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s, s.makefile("rb")

# "KEEPALIVE_MS NEWCONN_MS MBPS": 100 GETs kept alive, 100 on new connections, 100 MB,
# each done reps times in turn, and the median of each.
def relay_cpu():
    """The relay's CPU time so far (ms): the first otonet above this process."""
    pid = os.getppid()
    while open(f"/proc/{pid}/comm").read().strip() != "otonet":
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK")

def run(addr, host, reps):
    host = host.encode()
    ka, nc, mb, cpu0 = [], [], [], relay_cpu()
    for _ in range(int(reps)):
        t = time.monotonic()
        s, f = conn(addr)
        for _ in range(100):
            get(f, s, b"/", host)
        s.close()
        ka.append((time.monotonic() - t) * 1000)
        t = time.monotonic()
        for _ in range(100):
            s, f = conn(addr)
            get(f, s, b"/", host)
            s.close()
        nc.append((time.monotonic() - t) * 1000)
        s, f = conn(addr)
        t = time.monotonic()
        n = get(f, s, b"/big", host)
        mb.append(n / (1 << 20) / (time.monotonic() - t))
        s.close()
    med = lambda v: sorted(v)[len(v) // 2]
    print("%.1f %.1f %.0f %.0f" % (med(ka), med(nc), med(mb), (relay_cpu() - cpu0) / int(reps)))

if __name__ == "__main__":
    {"serve": serve, "run": run}[sys.argv[1]](*sys.argv[2:])
PY
ip netns exec "$NI" python3 "$BT" serve "$D/ready" </dev/null >/dev/null 2>&1 &
srvpid=$!
n=0
while [ ! -e "$D/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
[ -e "$D/ready" ] || { echo "names.sh: fatal: the HTTP server did not start" >&2; exit 111; }

# one MODE: one round of the client in a new sandbox of that mode; "KA NC MBPS" in $D/out.
one() {
	bin=$OTO_BIN
	case $1 in
	none) set -- --public 203.0.113.0/24 -- python3 "$BT" run $INET4 a.inet.test "$REPS" ;;
	names | names-b)
		[ "$1" = names-b ] && bin=$OTO_BIN_B
		set -- --public 203.0.113.0/24 --no-public --allow-name '*.inet.test' -- sh -c \
			"python3 $NT names $NAMES n .inet.test >&2 && python3 $NT resolve a.inet.test >&2 &&
			python3 $BT run $INET4 a.inet.test $REPS" ;;
	esac
	ip netns exec "$NH" "$bin/otonet" --as 65534 "$@" >"$D/out" 2>"$D/err"
}

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -n | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "fail"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-" }'; }

start=$(date +%s)
for _ in $(seq "$RUNS"); do
	for m in $MODES; do
		mv=$(echo "$m" | tr - _)
		one "$m"
		# shellcheck disable=SC2046 # split into fields on purpose
		set -- $(tail -n1 "$D/out") fail fail fail fail
		[ "$1" = fail ] && sed "s/^/    $m: /" "$D/err" >&2
		eval "ka_$mv=\"\${ka_$mv:-} $1\" nc_$mv=\"\${nc_$mv:-} $2\" mb_$mv=\"\${mb_$mv:-} $3\" cpu_$mv=\"\${cpu_$mv:-} $4\""
	done
done
elapsed=$(($(date +%s) - start))

out=$D/summary
: >"$out"
for m in $MODES; do
	mv=$(echo "$m" | tr - _)
	eval "ka=\$ka_$mv nc=\$nc_$mv mb=\$mb_$mv cpu=\$cpu_$mv"
	# shellcheck disable=SC2154 # ka, nc, mb, cpu: assigned by the eval above
	echo "$m $(echo "$ka" | median) $(echo "$nc" | median) $(echo "$mb" | median) $(echo "$cpu" | median)" >>"$out"
	# shellcheck disable=SC2154
	echo "    $m: kept alive$ka; new connections$nc; MB/s$mb; relay CPU ms$cpu" >&2
done
v() { awk -v k="$1" -v f="$2" '$1 == k {print $f}' "$out"; }
echo "otonet, $NAMES name bindings, this build ($OTO_BIN) against $OTO_BIN_B: $RUNS rounds of $REPS, modes in turn, medians ($elapsed s)."
echo "100 GETs (ms, less is better) on one kept-alive connection and on new connections; a 100 MB download (MB/s, more is better);"
echo "the relay's CPU time for one of each (ms, less is better)."
echo "Ratios against names-b (the build before): time over its time, its MB/s over the mode's (the goal: 1.05 at most)."
echo
echo "| mode | 100 GETs kept alive, ms | 100 GETs, new connections, ms | 100 MB, MB/s | relay CPU, ms | kept-alive ratio | new-connection ratio | download ratio | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in $MODES; do
	echo "| $m | $(v "$m" 2) | $(v "$m" 3) | $(v "$m" 4) | $(v "$m" 5) | $(ratio "$(v "$m" 2)" "$(v names-b 2)") | $(ratio "$(v "$m" 3)" "$(v names-b 3)") | $(ratio "$(v names-b 4)" "$(v "$m" 4)") | $(ratio "$(v "$m" 5)" "$(v names-b 5)") |"
done
exit 0
