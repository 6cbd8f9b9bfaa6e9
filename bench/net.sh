#!/bin/sh
# otonet against slirp4netns, pasta and the fake host itself (no sandbox), in
# one run on one machine, in the otonet test topology (tests/net/topo.sh),
# every user-mode stack as uid 65534, each sandbox's side at MTU 65520. What
# varies is the fake host's own path to the internet, as a real server's:
#  - PATHS: MTU[:RATE] of the fake host's links: 1500 (Ethernet, the default
#    topology), 65520 (what the first benchmarks used on every link, and what
#    hid an upload stall), and 1500 limited by tbf to RATE each way (a link
#    slower than the TUN);
#  - iperf3 TCP throughput, upload and download (-R), 1 and 4 streams (-P),
#    on every path; the relay's CPU seconds (utime + stime from
#    /proc/PID/stat) per GB moved, single stream, unlimited paths;
#  - the time of an HTTP POST of 100 KB and of 1 MB (bench/lat.c: a new
#    connection each, written as curl writes it; p50 and p90 of POST_COUNT),
#    what a coding agent sends a model API every turn, on every path; and
#    the machine's CPU per POST (/proc/stat: every process and the kernel,
#    both ends included), whose spread over the machine's cores is a floor
#    no p50 can go under;
#  - connections per second of short TCP exchanges (connect, 1 byte each way,
#    close), and round-trip latency of 32-byte TCP and UDP messages (p50, p99;
#    bench/lat.c, built here with cc), on the default path;
#  - the relay's peak RSS (VmHWM) holding 1,000 idle TCP connections, and
#    with 1,000 flows each downloading as fast as it goes (goal: 2 MiB).
# Medians of RUNS runs; in the POST, short-exchange and round-trip tests the
# tools take turns within each run. Needs root (ip netns). Results: stdout,
# and bench/results-otonet.md when OTO_BENCH_WRITE=1. PATHS= STREAMS= (empty)
# skip the throughput tests, POST_SIZES= the POSTs; TOOLS= names the stacks
# to run, among them otonet-nopoll (otonet --busy-poll 0) and otonet-b (the
# otonet of OTO_BIN_B: an A/B of two builds in one run), not run by default.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
PATHS=${PATHS-1500 65520 1500:1gbit 1500:200mbit}
STREAMS=${STREAMS-1 4}
TOOLS=${TOOLS:-otonet slirp4netns pasta host}
POST_SIZES=${POST_SIZES-100000 1000000}
POST_COUNT=${POST_COUNT:-30}
MTU=65520
LAT_COUNT=${LAT_COUNT:-2000}
IDLE_CONNS=${IDLE_CONNS:-1000}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "net.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
case " $TOOLS " in
*" otonet-b "*) [ -x "${OTO_BIN_B:-}/otonet" ] || { echo "net.sh: fatal: otonet-b needs OTO_BIN_B, a directory with an otonet" >&2; exit 100; } ;;
esac
for c in iperf3 $TOOLS; do
	case $c in otonet* | host) continue ;; esac
	command -v $c >/dev/null || { echo "net.sh: fatal: $c not found (scripts/install-deps.sh bench)" >&2; exit 111; }
done
D=
srvpid=
latpid=
httppid=
cleanup() {
	for p in $srvpid $latpid $httppid; do kill "$p" 2>/dev/null; done
	topo_down
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM HUP
# topo_up's servers must not hold our stdout (a pipe into tee would never end).
topo_up </dev/null >/dev/null 2>&1 || exit 111
# pasta insists on a default route on the host; the fake internet is the way out.
ip -n "$NH" route add default via $INET4
ip -n "$NH" -6 route add default via $INET6
# Thousands of short connections a second leave the host's side of each in
# TIME_WAIT: without reuse, the later runs of the connection test would
# measure the wait for a free port, not the relay.
ip netns exec "$NH" sysctl -qw net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range="1024 65000"
D=$TOPO_DIR/bench
mkdir -p "$D" && chmod 1777 "$D"
USER_RUN="setpriv --reuid 65534 --regid 65534 --clear-groups"
BT=$D/benchtool.py
cat >"$BT" <<'PY'
import os, resource, selectors, socket, sys, time

# Servers (in the fake internet): TCP echo on 9102, TCP hold on 9104, TCP
# source on 9105 (sends to each connection as fast as it takes it).
CHUNK = b"x" * 16384
def serve(ready):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    sel = selectors.DefaultSelector()
    for port in (9102, 9104, 9105):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen(4096)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, ("listen", port))
    open(ready, "w").close()
    while True:
        for key, _ in sel.select():
            kind, port = key.data
            s = key.fileobj
            if kind == "listen":
                try:
                    c, _ = s.accept()
                except OSError:
                    continue
                c.setblocking(False)
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if port == 9105:
                    sel.register(c, selectors.EVENT_WRITE, ("source", 0))
                    continue
                sel.register(c, selectors.EVENT_READ, ("echo" if port == 9102 else "hold", 0))
            elif kind == "source":
                try:
                    s.send(CHUNK)
                except OSError:
                    sel.unregister(s)
                    s.close()
            else:
                try:
                    x = s.recv(65536)
                except OSError:
                    x = b""
                if not x:
                    sel.unregister(s)
                    s.close()
                elif kind == "echo":
                    s.send(x)

def conn(host, port):
    s = socket.create_connection((host, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

# Connections per second of short exchanges: connect, 1 byte each way, close.
def cps(host, secs):
    n, end = 0, time.monotonic() + float(secs)
    while time.monotonic() < end:
        s = conn(host, 9102)
        s.send(b"x")
        if s.recv(1) != b"x":
            sys.exit("cps: bad echo")
        s.close()
        n += 1
    print("%.0f" % (n / float(secs)))

# Hold k idle connections, then write the marker file and wait.
def idle(host, k, marker, secs):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    held = [conn(host, 9104) for _ in range(int(k))]
    open(marker, "w").close()
    time.sleep(float(secs))
    print(len(held))

# Read from k connections to the source at once for secs seconds (every
# flow in bulk transfer), writing the marker once all are open: the bytes read.
def bulk(host, k, marker, secs):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    sel = selectors.DefaultSelector()
    for _ in range(int(k)):
        c = conn(host, 9105)
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ)
    open(marker, "w").close()
    got, end = 0, time.monotonic() + float(secs)
    while time.monotonic() < end:
        for key, _ in sel.select(0.1):
            try:
                got += len(key.fileobj.recv(65536))
            except OSError:
                pass
    print(got)

if __name__ == "__main__":
    {"serve": serve, "cps": cps, "idle": idle, "bulk": bulk}[sys.argv[1]](*sys.argv[2:])
PY
chmod 0644 "$BT"
ip netns exec "$NI" $PY "$BT" serve "$D/srv.ready" </dev/null >"$D/srv.log" 2>&1 &
srvpid=$!
# Round trips: a client and an echo server in C (bench/lat.c), so that the
# figure holds as little as possible besides the relay and the kernel.
cc -std=c11 -D_GNU_SOURCE -O2 -o "$D/lat" "$top/bench/lat.c" || { echo "net.sh: fatal: bench/lat.c does not build" >&2; exit 111; }
chmod 0755 "$D/lat"
ip netns exec "$NI" "$D/lat" serve 9110 </dev/null >"$D/lat.log" 2>&1 &
latpid=$!
ip netns exec "$NI" "$D/lat" http 8090 </dev/null >"$D/http.log" 2>&1 &
httppid=$!
n=0
while [ ! -e "$D/srv.ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done

# watch PID: until PID exits, its CPU ticks and VmHWM (KiB), last sample in $D/stat.
watch_pid() {
	p=$1
	while [ -d /proc/$p ]; do
		# Read by the shell itself: a sample forks only its sleep. Two awk
		# per sample added their CPU to every stack's POST figure.
		read -r s 2>/dev/null </proc/$p/stat || break
		# utime and stime, fields 14 and 15: 12 and 13 after the comm's ")".
		set -- ${s##*) }
		t=$((${12} + ${13})) h=
		while read -r k v _; do
			[ "$k" = VmHWM: ] && h=$v && break
		done 2>/dev/null </proc/$p/status
		[ -n "$h" ] && echo "$t $h" >"$D/stat"
		sleep 0.1
	done
}

# run TOOL MTU CMD: CMD (sh -c text) in a sandbox behind TOOL, as uid 65534;
# its stdout in $D/out; the relay's last CPU/RSS sample in $D/stat. The
# sandbox lingers 0.5 s after CMD so that the last sample follows the traffic.
run() {
	tool=$1 mtu=$2 cmd="$3; sleep 0.5"
	rm -f "$D/stat" "$D/pid"
	: >"$D/out"
	case $tool in
	otonet | otonet-nopoll | otonet-b)
		poll='' bin=$OTO_BIN
		[ $tool = otonet-nopoll ] && poll="--busy-poll 0"
		[ $tool = otonet-b ] && bin=$OTO_BIN_B
		ip netns exec "$NH" env OTO_TEST_TUN_MTU=$mtu "$bin/otonet" --as 65534 $poll \
			--public 203.0.113.0/24 -- sh -c "$cmd" >"$D/out" 2>"$D/err" &
		r=$!
		watch_pid $r &
		w=$!
		wait $r ;;
	pasta)
		ip netns exec "$NH" $USER_RUN pasta --config-net --no-map-gw -q -f --mtu "$mtu" \
			-- sh -c "$cmd" >"$D/out" 2>"$D/err" &
		r=$!
		watch_pid $r &
		w=$!
		wait $r ;;
	host)
		# The fake host itself, no sandbox: what its path gives any program.
		ip netns exec "$NH" $USER_RUN sh -c "$cmd" >"$D/out" 2>"$D/err" &
		r=$!
		watch_pid $r &
		w=$!
		wait $r ;;
	slirp4netns)
		ip netns exec "$NH" $USER_RUN unshare -Urn sh -c "echo \$\$ >$D/pid;
			while ! ip -o addr show tap0 2>/dev/null | grep -q 10.0.2.100; do sleep 0.05; done
			sleep 0.5; $cmd" >"$D/out" 2>"$D/err" &
		c=$!
		n=0
		while [ ! -s "$D/pid" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
		ip netns exec "$NH" $USER_RUN slirp4netns -c --mtu "$mtu" --disable-host-loopback \
			"$(cat "$D/pid")" tap0 >/dev/null 2>&1 &
		r=$!
		watch_pid $r &
		w=$!
		wait $c
		sleep 0.2
		kill $r 2>/dev/null
		wait $r 2>/dev/null ;;
	esac
	wait $w 2>/dev/null
}

# iperf TOOL MTU STREAMS FLAG: prints "Gbit/s CPU-s/GB".
iperf() {
	# Bounded: a client that fails must not leave the one-shot server waiting.
	ip netns exec "$NI" timeout $((SECONDS_PER_RUN + 25)) iperf3 -s -1 -B $INET4 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	run "$1" "$2" "timeout $((SECONDS_PER_RUN + 15)) iperf3 -c $INET4 -t $SECONDS_PER_RUN -P $3 -J $4"
	wait $srv 2>/dev/null
	$PY -c 'import json,sys
try:
    r = json.load(open(sys.argv[1]))["end"]["sum_received"]
    cpu = open(sys.argv[2]).read().split()[0]
    print("%.2f %.2f" % (r["bits_per_second"] / 1e9, int(cpu) / 100 / (r["bytes"] / 1e9)))
except Exception:
    print("fail fail")' "$D/out" "$D/stat"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "fail")}'; }

# path SPEC: the fake host's links as SPEC (MTU[:RATE]) says.
path() {
	topo_mtu "${1%%:*}"
	case $1 in *:*) topo_rate "${1#*:}" ;; *) topo_rate "" ;; esac
}

out=$(mktemp)
start=$(date +%s)
for pth in $PATHS; do
	path "$pth"
	for p in $STREAMS; do
		for dir in up down; do
			flag=
			[ $dir = down ] && flag=-R
			for tool in $TOOLS; do
				all='' cpu=''
				for _ in $(seq "$RUNS"); do
					# shellcheck disable=SC2046 # split into fields on purpose
					set -- $(iperf $tool $MTU $p "$flag")
					all="$all $1" cpu="$cpu $2"
				done
				echo "tput $pth $p $dir $tool $(echo "$all" | median) ($all )" | tee -a "$out"
				case "$pth $p $tool" in
				*:*) ;;
				"$pth 1 host") ;;
				*" 1 "*) echo "cpu $pth $dir $tool $(echo "$cpu" | median) ($cpu )" | tee -a "$out" ;;
				esac
			done
		done
	done
done
# POSTs: the tools take turns within each run, on each path.
for pth in ${POST_SIZES:+$PATHS}; do
	path "$pth"
	for _ in $(seq "$RUNS"); do
		for size in $POST_SIZES; do
			for tool in $TOOLS; do
				tv=$(echo "$tool" | tr - _)
				pv=$(echo "$pth" | tr -c '0-9a-z\n' _)
				run $tool $MTU "$D/lat post $INET4 8090 $size $POST_COUNT"
				[ -s "$D/out" ] || sed "s/^/    err: /" "$D/err" >&2
				# shellcheck disable=SC2046 # split into fields on purpose
				set -- $(cat "$D/out") fail fail fail
				eval "post50_${pv}_${size}_$tv=\"\${post50_${pv}_${size}_$tv:-} $1\""
				eval "post90_${pv}_${size}_$tv=\"\${post90_${pv}_${size}_$tv:-} $2\""
				eval "postcpu_${pv}_${size}_$tv=\"\${postcpu_${pv}_${size}_$tv:-} $3\""
			done
		done
	done
	for size in $POST_SIZES; do
		for tool in $TOOLS; do
			tv=$(echo "$tool" | tr - _)
			pv=$(echo "$pth" | tr -c '0-9a-z\n' _)
			eval "a=\$post50_${pv}_${size}_$tv b=\$post90_${pv}_${size}_$tv c=\$postcpu_${pv}_${size}_$tv"
			# shellcheck disable=SC2154 # a, b and c: assigned by the eval above
			echo "post $pth $size $tool $(echo "$a" | median) $(echo "$b" | median) $(echo "$c" | median) (p50:$a, p90:$b, cpu:$c )" | tee -a "$out"
		done
	done
done
path 1500
# Short exchanges and round trips: the tools take turns within each run, so
# that a drift of the machine's load over the minutes does not favour one.
# $tv: the tool's name as part of a variable's (otonet-nopoll: otonet_nopoll).
for _ in $(seq "$RUNS"); do
	for tool in $TOOLS; do
		tv=$(echo "$tool" | tr - _)
		run $tool $MTU "python3 $BT cps $INET4 $SECONDS_PER_RUN"
		eval "cps_$tv=\"\${cps_$tv:-} $(cat "$D/out")\""
		for proto in tcp udp; do
			run $tool $MTU "$D/lat $proto $INET4 9110 $LAT_COUNT"
			[ -s "$D/out" ] || sed "s/^/    err: /" "$D/err" >&2
			# The relay's CPU per round trip, µs (its stat ticks are 10 ms).
			c=$(awk -v n="$LAT_COUNT" '{printf "%.1f", $1 * 10000 / n}' "$D/stat" 2>/dev/null)
			# shellcheck disable=SC2046 # split into fields on purpose
			set -- $(cat "$D/out") fail fail
			eval "p50_${proto}_$tv=\"\${p50_${proto}_$tv:-} $1\" p99_${proto}_$tv=\"\${p99_${proto}_$tv:-} $2\""
			eval "lcpu_${proto}_$tv=\"\${lcpu_${proto}_$tv:-} ${c:-fail}\""
		done
	done
done
for tool in $TOOLS; do
	tv=$(echo "$tool" | tr - _)
	eval "all=\$cps_$tv"
	echo "cps $tool $(echo "$all" | median) ($all )" | tee -a "$out"
	for proto in tcp udp; do
		eval "p50=\$p50_${proto}_$tv p99=\$p99_${proto}_$tv lcpu=\$lcpu_${proto}_$tv"
		# shellcheck disable=SC2154 # p50, p99, lcpu: assigned by the eval above
		echo "lat $proto $tool $(echo "$p50" | median) $(echo "$p99" | median) $(echo "$lcpu" | median) (p50:$p50, p99:$p99, cpu:$lcpu )" | tee -a "$out"
	done
done
for tool in $TOOLS; do
	[ $tool = host ] && continue
	run $tool $MTU "python3 $BT idle $INET4 $IDLE_CONNS $D/idle.$tool 2"
	ok=$(cat "$D/out")
	h=fail
	[ "$ok" = "$IDLE_CONNS" ] && [ -s "$D/stat" ] && h=$(awk '{print $2}' "$D/stat")
	echo "rss $tool $h (connections held: ${ok:-none})" | tee -a "$out"
	# The same number of flows, each downloading as fast as it goes, for 3 s.
	run $tool $MTU "python3 $BT bulk $INET4 $IDLE_CONNS $D/bulk.$tool 3"
	got=$(cat "$D/out")
	h=fail
	[ "${got:-0}" -gt 0 ] 2>/dev/null && [ -s "$D/stat" ] && h=$(awk '{print $2}' "$D/stat")
	echo "rssbulk $tool $h (bytes read: ${got:-none})" | tee -a "$out"
done
elapsed=$(($(date +%s) - start))

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
# v KEY FIELD: that field of the line of $out that starts with KEY.
v() { awk -v k="$1" -v f="$2" 'index($0, k " ") == 1 {print $f}' "$out"; }

{
	echo "# otonet against slirp4netns, pasta and the host itself, $(date -u '+%Y-%m-%d %H:%M UTC') ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
	echo
	echo "Command (as root): \`RUNS=$RUNS SECONDS_PER_RUN=$SECONDS_PER_RUN PATHS=\"$PATHS\" STREAMS=\"$STREAMS\" TOOLS=\"$TOOLS\" POST_SIZES=\"$POST_SIZES\" POST_COUNT=$POST_COUNT LAT_COUNT=$LAT_COUNT sh bench/net.sh\` (took ${elapsed} s; otonet $(git -C "$top" describe --always --dirty 2>/dev/null))."
	echo "All in the otonet test topology, every stack as uid 65534 with MTU $MTU on its sandbox side, servers in the fake internet."
	echo "A path is the fake host's links: MTU, and a tbf rate limit each way on its internet link where one is named."
	echo "otonet: \`otonet --as 65534 --public 203.0.113.0/24 -- CMD\`;"
	echo "slirp4netns: \`slirp4netns -c --mtu $MTU --disable-host-loopback PID tap0\`;"
	echo "pasta: \`pasta --config-net --no-map-gw -q -f --mtu $MTU -- CMD\`;"
	echo "host: CMD in the fake host itself, no sandbox (what the path gives any program)."
	echo "Throughput: \`iperf3 -c 203.0.113.10 -t $SECONDS_PER_RUN -P STREAMS [-R]\` (up: sandbox to server; down: -R)."
	echo "Medians of $RUNS runs. Only the ratios within this one run mean anything (shared, loaded machine)."
	echo
	if [ -n "$PATHS" ] && [ -n "$STREAMS" ]; then
		echo "| path | streams | direction | otonet Gbit/s | slirp4netns | pasta | host | otonet / slirp4netns | otonet / pasta | otonet / host |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
		for pth in $PATHS; do for p in $STREAMS; do for dir in up down; do
			o=$(v "tput $pth $p $dir otonet" 6) s=$(v "tput $pth $p $dir slirp4netns" 6)
			q=$(v "tput $pth $p $dir pasta" 6) h=$(v "tput $pth $p $dir host" 6)
			echo "| $pth | $p | $dir | $o | $s | $q | $h | $(ratio "$o" "$s") | $(ratio "$o" "$q") | $(ratio "$o" "$h") |"
		done; done; done
		echo
		echo "Relay CPU seconds per GB (utime + stime of the relay process, single stream; lower is better):"
		echo
		echo "| path | direction | otonet | slirp4netns | pasta |"
		echo "|---|---|---|---|---|"
		for pth in $PATHS; do
			case $pth in *:*) continue ;; esac
			for dir in up down; do
				echo "| $pth | $dir | $(v "cpu $pth $dir otonet" 5) | $(v "cpu $pth $dir slirp4netns" 5) | $(v "cpu $pth $dir pasta" 5) |"
			done
		done
		echo
	fi
	if [ -n "$POST_SIZES" ]; then
		echo "HTTP POSTs (\`bench/lat.c post\`: a new connection each, no Nagle, the header then 64 KiB writes, as curl"
		echo "writes them; from connect to the answer; p50 / p90 of $POST_COUNT, medians of $RUNS runs; ms):"
		echo
		echo "| path | size | otonet | slirp4netns | pasta | host | otonet / pasta (p50) | otonet / host (p50) |"
		echo "|---|---|---|---|---|---|---|---|"
		for pth in $PATHS; do for size in $POST_SIZES; do
			ms() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0) printf "%.2f / %.2f", a / 1000, b / 1000; else print "-" }'; }
			o=$(v "post $pth $size otonet" 5) s=$(v "post $pth $size slirp4netns" 5)
			q=$(v "post $pth $size pasta" 5) h=$(v "post $pth $size host" 5)
			echo "| $pth | $size | $(ms "$o" "$(v "post $pth $size otonet" 6)") | $(ms "$s" "$(v "post $pth $size slirp4netns" 6)") | $(ms "$q" "$(v "post $pth $size pasta" 6)") | $(ms "$h" "$(v "post $pth $size host" 6)") | $(ratio "$o" "$q") | $(ratio "$o" "$h") |"
		done; done
		echo
		echo "The machine's CPU per POST in the same runs (ms: the busy time of its $(nproc) cores in /proc/stat, user, system,"
		echo "irq and softirq, over the $POST_COUNT timed POSTs, divided by $POST_COUNT; the client, the stack and the server alike,"
		echo "in ticks of 10 ms: medians of $RUNS runs). No p50 can be under that time spread over the $(nproc) cores: the floor,"
		echo "here over the host's own p50:"
		echo
		echo "| path | size | otonet | slirp4netns | pasta | host | otonet's floor / host's p50 |"
		echo "|---|---|---|---|---|---|---|"
		for pth in $PATHS; do for size in $POST_SIZES; do
			ms1() { awk -v a="$1" 'BEGIN { if (a + 0 > 0) printf "%.2f", a / 1000; else print "-" }'; }
			o=$(v "post $pth $size otonet" 7) h=$(v "post $pth $size host" 5)
			echo "| $pth | $size | $(ms1 "$o") | $(ms1 "$(v "post $pth $size slirp4netns" 7)") | $(ms1 "$(v "post $pth $size pasta" 7)") | $(ms1 "$(v "post $pth $size host" 7)") | $(ratio "$(awk -v a="$o" -v n="$(nproc)" 'BEGIN { print a / n }')" "$h") |"
		done; done
		echo
	fi
	echo "On the 1500 path: short TCP exchanges (\`benchtool.py cps\`: connect, 1 byte each way, close, for $SECONDS_PER_RUN s,"
	echo "one client), round trips of 32-byte messages (\`bench/lat.c\`, a C client and echo server: $LAT_COUNT per run,"
	echo "over one TCP connection / one UDP socket; µs), the relay's CPU time per round trip (µs, utime + stime, which"
	echo "includes the kernel's work on the packets the relay reads and writes), and the relay's VmHWM holding"
	echo "$IDLE_CONNS idle TCP connections (KiB). The connection test's server is one Python process: its time is in that figure."
	echo
	echo "| measure | otonet | slirp4netns | pasta | host | otonet / slirp4netns | otonet / pasta |"
	echo "|---|---|---|---|---|---|---|"
	o=$(v "cps otonet" 3) s=$(v "cps slirp4netns" 3) q=$(v "cps pasta" 3) h=$(v "cps host" 3)
	echo "| connections/s | $o | $s | $q | $h | $(ratio "$o" "$s") | $(ratio "$o" "$q") |"
	for proto in tcp udp; do
		for f in "4:round trip p50 µs" "5:round trip p99 µs" "6:relay CPU µs per round trip"; do
			o=$(v "lat $proto otonet" ${f%%:*}) s=$(v "lat $proto slirp4netns" ${f%%:*})
			q=$(v "lat $proto pasta" ${f%%:*}) h=$(v "lat $proto host" ${f%%:*})
			[ "${f%%:*}" = 6 ] && h=-
			echo "| $proto ${f#*:} | $o | $s | $q | $h | $(ratio "$o" "$s") | $(ratio "$o" "$q") |"
		done
	done
	o=$(v "rss otonet" 3) s=$(v "rss slirp4netns" 3) q=$(v "rss pasta" 3)
	echo "| VmHWM, $IDLE_CONNS idle connections, KiB | $o | $s | $q | - | $(ratio "$o" "$s") | $(ratio "$o" "$q") |"
	o=$(v "rssbulk otonet" 3) s=$(v "rssbulk slirp4netns" 3) q=$(v "rssbulk pasta" 3)
	echo "| VmHWM, $IDLE_CONNS flows in bulk transfer, KiB | $o | $s | $q | - | $(ratio "$o" "$s") | $(ratio "$o" "$q") |"
	echo
	echo "Every run:"
	echo
	sed 's/^/    /' "$out"
} >"$out.md"
cat "$out.md"
[ "${OTO_BENCH_WRITE:-0}" = 1 ] && cp "$out.md" "$top/bench/results-otonet.md"
rm -f "$out" "$out.md"
exit 0
