#!/bin/sh
# otonet against slirp4netns and pasta: bulk TCP throughput (iperf3) upload and
# download at MTU 65520, in the otonet test topology (tests/net/topo.sh), in
# one run on one machine. Medians of RUNS runs of SECONDS each. Needs root (ip
# netns); every user-mode stack runs as uid 65534. Results: stdout, and
# bench/results-otonet.md when OTO_BENCH_WRITE=1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-4}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "net.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
for c in iperf3 slirp4netns pasta; do
	command -v $c >/dev/null || { echo "net.sh: fatal: $c not found (scripts/install-deps.sh bench)" >&2; exit 111; }
done
trap 'topo_down' EXIT
trap 'topo_down; exit 1' INT TERM HUP
topo_up || exit 111
# pasta insists on a default route on the host; the fake internet is the way out.
ip -n "$NH" route add default via $INET4
ip -n "$NH" -6 route add default via $INET6
D=$TOPO_DIR/bench
mkdir -p "$D" && chmod 1777 "$D"
USER_RUN="setpriv --reuid 65534 --regid 65534 --clear-groups"

# client TOOL DIR(''|-R): one iperf3 run through TOOL; prints Gbit/s received.
client() {
	# Bounded: a client that fails must not leave the one-shot server waiting.
	ip netns exec "$NI" timeout $((SECONDS_PER_RUN + 20)) iperf3 -s -1 -B $INET4 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	ip="timeout $((SECONDS_PER_RUN + 15)) iperf3"
	args="-c $INET4 -t $SECONDS_PER_RUN -J $2"
	case $1 in
	otonet)
		ip netns exec "$NH" "$OTO_BIN/otonet" --as 65534 --public 203.0.113.0/24 -- \
			$ip $args >"$D/out" 2>"$D/err" ;;
	pasta)
		ip netns exec "$NH" $USER_RUN pasta --config-net --no-map-gw -q -f -- $ip $args >"$D/out" 2>"$D/err" ;;
	slirp4netns)
		rm -f "$D/pid"
		ip netns exec "$NH" $USER_RUN unshare -Urn sh -c "echo \$\$ >$D/pid;
			while ! ip -o addr show tap0 2>/dev/null | grep -q 10.0.2.100; do sleep 0.05; done
			sleep 0.5; $ip $args" >"$D/out" 2>"$D/err" &
		c=$!
		n=0
		while [ ! -s "$D/pid" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
		ip netns exec "$NH" $USER_RUN slirp4netns -c --mtu 65520 --disable-host-loopback \
			"$(cat "$D/pid")" tap0 >/dev/null 2>&1 &
		s=$!
		wait $c
		kill $s 2>/dev/null
		wait $s 2>/dev/null ;;
	esac
	wait $srv 2>/dev/null
	$PY -c 'import json,sys
try:
    print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))
except Exception:
    print("fail")' "$D/out"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "fail")}'; }

out=$(mktemp)
for dir in up down; do
	flag=
	[ $dir = down ] && flag=-R
	for tool in otonet slirp4netns pasta; do
		all=
		for _ in $(seq "$RUNS"); do all="$all $(client $tool "$flag")"; done
		echo "$dir $tool $(echo "$all" | median) ($all )" | tee -a "$out"
	done
done

{
	echo "# otonet throughput, $(date -u +%Y-%m-%d) ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	echo "Command: \`sudo sh bench/net.sh\` (RUNS=$RUNS, SECONDS_PER_RUN=$SECONDS_PER_RUN): iperf3 TCP, one stream,"
	echo "from the sandbox to a server in the fake internet (upload) and back (\`-R\`, download),"
	echo "through each user-mode stack, MTU 65520, all running as uid 65534, in the otonet test topology."
	echo "slirp4netns: \`slirp4netns -c --mtu 65520 --disable-host-loopback PID tap0\`;"
	echo "pasta: \`pasta --config-net --no-map-gw -f -- iperf3 ...\` (the fake host's gateway is the server); otonet: \`otonet --as 65534 --public 203.0.113.0/24 -- iperf3 ...\`."
	echo
	echo "| direction | otonet Gbit/s | slirp4netns Gbit/s | pasta Gbit/s | otonet / slirp4netns | otonet / pasta |"
	echo "|---|---|---|---|---|---|"
	for dir in up down; do
		o=$(awk -v d=$dir '$1 == d && $2 == "otonet" {print $3}' "$out")
		s=$(awk -v d=$dir '$1 == d && $2 == "slirp4netns" {print $3}' "$out")
		p=$(awk -v d=$dir '$1 == d && $2 == "pasta" {print $3}' "$out")
		rs=$(awk -v a="$o" -v b="$s" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
		rp=$(awk -v a="$o" -v b="$p" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
		echo "| $dir | $o | $s | $p | $rs | $rp |"
	done
	echo
	echo "Medians of $RUNS runs; every run:"
	echo
	sed 's/^/    /' "$out"
} >"$out.md"
cat "$out.md"
[ "${OTO_BENCH_WRITE:-0}" = 1 ] && cp "$out.md" "$top/bench/results-otonet.md"
rm -f "$out" "$out.md"
exit 0
