#!/bin/sh
# otogate against a direct TLS connection from the fake host, in one run on
# one machine, in the otonet test topology (tests/net/topo.sh): the fake
# internet serves HTTPS (tests/helpers/fakeapi.py, a test CA made here), and
# bench/gatebench.py sends, on one kept-alive connection, COUNT requests of
# each kind: a small GET with the credential in x-api-key, a POST of 1 MB,
# a GET whose response is 1 MiB of one letter streamed in chunks, and the
# same of a model's streamed text (downtext: the scrubber's work is the
# text's, not one letter's). Through otogate the client runs behind
# otogate -- otonet (as the agent would, plain HTTP to the gateway);
# directly, it runs in the fake host and speaks TLS itself;
# "otonet alone", it runs behind otonet and speaks TLS itself (the TUN's and
# the relay's cost, without the gateway's). Reported: p50 and p90 per
# request (ms) and requests per second, the medians of RUNS runs (the paths
# take turns within each run); the added latency is the p50 difference
# from the direct path, the gateway's own the one from otonet alone. Goals: at most 1 ms added
# at p50, at least 80 % of the direct throughput. The upstream is Python:
# its own time is in both paths alike. TOPO_RATE=200mbit (a tc rate) puts
# a tbf limit on the fake host's internet link, a path slower than the TUN
# (tests/net/topo.sh), for all three paths alike. OTO_PREV_BIN names the
# binaries of an earlier build: its gated path runs too, in turn with the
# others, and the table gains its p50 and the change from it. A fourth
# path, "transparent", is the gated one through a transparent grant: the
# client speaks TLS to https://api.example.test itself, by name, trusting
# the session CA alone, and the relay hands its flows to the gateway (its
# own table: added p50 from the direct path, and throughput against otonet
# alone; goals 0.5 ms and 80 %). A fifth, "asked", is the gated one with
# ask=*:/ and tests/helpers/decider.py answering allow-once as soon as it
# reads a question (otogate --ask-fd): every request held and asked (its
# own table: the time a question adds to the gated p50). A sixth,
# "limited", is the gated one under allow=*:/: every request served, none
# asked, but each judged (the override headers, the path, and a POST's body
# read for a form's _method: up1m's POST has no Content-Type, so its
# megabyte is scanned as a urlencoded form); with OTO_PREV_BIN its earlier
# build's runs too (its own table: what a rule costs a request nothing
# asks, and the change from the earlier build). OTO_BIN_B is
# OTO_PREV_BIN's other name (as bench/names.sh calls the build before).
# Needs root
# (ip netns). Results: stdout, and bench/results-gate.md when
# OTO_BENCH_WRITE=1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-3}
OTO_PREV_BIN=${OTO_PREV_BIN:-${OTO_BIN_B:-}}
COUNT=${COUNT:-200}
KINDS=${KINDS:-small up1m down1m downtext}
AS_USER=${AS_USER:-65534}
NETTOOL=$top/tests/net/nettool.py
TOPO_ID=bench-gate-$$
. "$top/tests/net/topo.sh"

if [ "$(id -u)" != 0 ]; then
	echo "gate.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
for c in openssl "$OTO_BIN/otogate" "$OTO_BIN/otonet" "$OTO_BIN/otosecret"; do
	command -v "$c" >/dev/null || { echo "gate.sh: fatal: $c not found" >&2; exit 111; }
done
apipid=
cleanup() {
	[ -n "$apipid" ] && kill "$apipid" 2>/dev/null
	topo_down
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP
topo_up || { echo "gate.sh: fatal: topology failed" >&2; exit 111; }

API=api.example.test
K=$TOPO_DIR/pki
mkdir -p "$K" "$TOPO_DIR/api"
chmod 0755 "$K" "$TOPO_DIR/api"
REAL=sk-bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$REAL" >"$K/real"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj "/CN=oto bench ca" -keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$API" \
		-keyout "$K/srv.key" -out "$K/srv.csr" 2>/dev/null &&
	printf 'subjectAltName=DNS:%s\n' "$API" >"$K/ext" &&
	openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
		-days 2 -extfile "$K/ext" -out "$K/srv.pem" 2>/dev/null ||
	{ echo "gate.sh: fatal: unable to make the test certificates" >&2; exit 111; }
ip netns exec "$NI" "$PY" "$top/tests/helpers/fakeapi.py" "$K/srv.pem" "$K/srv.key" 8443 \
	"$TOPO_DIR/api" "$K/real" >"$TOPO_DIR/api.log" 2>&1 &
apipid=$!
n=0
while [ ! -e "$TOPO_DIR/api/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
[ -e "$TOPO_DIR/api/ready" ] || { echo "gate.sh: fatal: fakeapi did not start" >&2; exit 111; }
# The upstream logs every request: into /dev/null here.
ln -sf /dev/null "$TOPO_DIR/api/requests"
"$OTO_BIN/otosecret" keygen --out "$K/key" &&
	printf 'API_KEY=%s\n' "$REAL" | "$OTO_BIN/otosecret" seal --key-file "$K/key" --store "$K/store" ||
	{ echo "gate.sh: fatal: unable to seal the store" >&2; exit 111; }

CLIENT="$PY $top/bench/gatebench.py"
direct() { # KIND
	ip netns exec "$NH" env API_KEY="$REAL" $CLIENT "https://$API:8443" "$1" "$COUNT" "$K/ca.pem"
}
gated() { # KIND [BIN [GRANT'S RULES]]
	_b=${2:-$OTO_BIN}
	ip netns exec "$NH" "$_b/otogate" --store "$K/store" --key-file "$K/key" \
		--as "$AS_USER" --grant "API_KEY=https://$API:8443${3:-}" --ca-file "$K/ca.pem" -- \
		"$_b/otonet" --as "$AS_USER" --public 203.0.113.0/24 -- \
		sh -c "exec $CLIENT \"\$API_KEY_URL\" $1 $COUNT" 2>/dev/null
}

# Every request held and asked: ask=*:/, a decider answering allow-once at once.
asked() { # KIND
	ip netns exec "$NH" "$PY" "$top/tests/helpers/decider.py" allow-once -- \
		"$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" --ask-fd 3 \
		--as "$AS_USER" --grant "API_KEY=https://$API:8443,ask=*:/" --ca-file "$K/ca.pem" -- \
		"$OTO_BIN/otonet" --as "$AS_USER" --public 203.0.113.0/24 --ask-fd 3 -- \
		sh -c "exec $CLIENT \"\$API_KEY_URL\" $1 $COUNT" 2>/dev/null
}

# Through a transparent grant: the client's own TLS to the host by name,
# the session CA (OTO_GATE_CA) its only trust.
transparent() { # KIND
	ip netns exec "$NH" "$OTO_BIN/otogate" --store "$K/store" --key-file "$K/key" \
		--as "$AS_USER" --grant "API_KEY=https://$API:8443,transparent" --ca-file "$K/ca.pem" -- \
		"$OTO_BIN/otonet" --as "$AS_USER" --public 203.0.113.0/24 -- \
		sh -c "cat <&\"\$OTO_GATE_CA\" >$shared/ca-\$\$.pem &&
			exec $CLIENT \"\$API_KEY_URL\" $1 $COUNT $shared/ca-\$\$.pem" 2>/dev/null
}

# The reference beside the gated path: the same client behind otonet alone,
# speaking TLS itself to the upstream (the key in its environment). The
# difference between it and the gated path is the gateway's own cost; the
# one between it and the direct path is the TUN's and the relay's.
netonly() { # KIND
	ip netns exec "$NH" "$OTO_BIN/otonet" --as "$AS_USER" --public 203.0.113.0/24 -- \
		env API_KEY="$REAL" $CLIENT "https://$API:8443" "$1" "$COUNT" "$K/ca.pem" 2>/dev/null
}

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# col N PATH KIND: the median over the runs of PATH's figure N for KIND (2: p50, 3: p90, 4: req/s).
col() { cut -d' ' -f"$1" "$out/$2-$3" | med; }

out=$(mktemp -d /tmp/oto-bench-gate.XXXXXX)
shared=$(mktemp -d /tmp/oto-bench-gate-ca.XXXXXX)
chmod 1777 "$shared"
for r in $(seq "$RUNS"); do
	for k in $KINDS; do
		direct "$k" >>"$out/direct-$k" || echo "gate.sh: warning: run $r: direct $k failed" >&2
		gated "$k" >>"$out/gated-$k" || echo "gate.sh: warning: run $r: gated $k failed" >&2
		netonly "$k" >>"$out/netonly-$k" || echo "gate.sh: warning: run $r: otonet alone $k failed" >&2
		transparent "$k" >>"$out/transparent-$k" ||
			echo "gate.sh: warning: run $r: transparent $k failed" >&2
		asked "$k" >>"$out/asked-$k" || echo "gate.sh: warning: run $r: asked $k failed" >&2
		gated "$k" "$OTO_BIN" ",allow=*:/" >>"$out/limited-$k" ||
			echo "gate.sh: warning: run $r: limited $k failed" >&2
		if [ -n "${OTO_PREV_BIN:-}" ]; then
			gated "$k" "$OTO_PREV_BIN" >>"$out/prev-$k" ||
				echo "gate.sh: warning: run $r: the earlier build's gated $k failed" >&2
			gated "$k" "$OTO_PREV_BIN" ",allow=*:/" >>"$out/prevlimited-$k" ||
				echo "gate.sh: warning: run $r: the earlier build's limited $k failed" >&2
		fi
	done
done

report() {
	echo "| kind | direct p50 ms | otonet alone p50 | gated p50 | added p50 | gateway's own p50 | direct p90 | gated p90 | direct req/s | otonet alone req/s | gated req/s | gated / direct | gated / otonet alone |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for k in $KINDS; do
		d50=$(col 2 direct "$k") g50=$(col 2 gated "$k")
		n50=$(col 2 netonly "$k")
		d90=$(col 3 direct "$k") g90=$(col 3 gated "$k")
		drps=$(col 4 direct "$k") grps=$(col 4 gated "$k")
		nrps=$(col 4 netonly "$k")
		awk -v k="$k" -v d50="$d50" -v n50="$n50" -v g50="$g50" -v d90="$d90" -v g90="$g90" \
			-v d="$drps" -v n="$nrps" -v g="$grps" 'BEGIN {
			printf "| %s | %.3f | %.3f | %.3f | %+.3f | %+.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %.0f %% | %.0f %% |\n",
				k, d50, n50, g50, g50 - d50, g50 - n50, d90, g90, d, n, g,
				d ? 100 * g / d : 0, n ? 100 * g / n : 0 }'
	done
	echo
	echo "Through a transparent grant (the client's TLS by name, to the gateway), in the same runs:"
	echo
	echo "| kind | direct p50 ms | otonet alone p50 | transparent p50 | added p50 | transparent p90 | otonet alone req/s | transparent req/s | transparent / otonet alone |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for k in $KINDS; do
		d50=$(col 2 direct "$k") t50=$(col 2 transparent "$k")
		n50=$(col 2 netonly "$k") t90=$(col 3 transparent "$k")
		nrps=$(col 4 netonly "$k") trps=$(col 4 transparent "$k")
		awk -v k="$k" -v d50="$d50" -v n50="$n50" -v t50="$t50" -v t90="$t90" -v n="$nrps" -v t="$trps" 'BEGIN {
			printf "| %s | %.3f | %.3f | %.3f | %+.3f | %.3f | %.1f | %.1f | %.0f %% |\n",
				k, d50, n50, t50, t50 - d50, t90, n, t, n ? 100 * t / n : 0 }'
	done
	echo
	echo "Every request asked (ask=*:/, a decider answering allow-once at once), in the same runs:"
	echo
	echo "| kind | gated p50 ms | asked p50 | added by the question | asked p90 | gated req/s | asked req/s |"
	echo "|---|---|---|---|---|---|---|"
	for k in $KINDS; do
		g50=$(col 2 gated "$k") a50=$(col 2 asked "$k")
		a90=$(col 3 asked "$k")
		grps=$(col 4 gated "$k") arps=$(col 4 asked "$k")
		awk -v k="$k" -v g50="$g50" -v a50="$a50" -v a90="$a90" -v g="$grps" -v a="$arps" 'BEGIN {
			printf "| %s | %.3f | %.3f | %+.3f | %.3f | %.1f | %.1f |\n",
				k, g50, a50, a50 - g50, a90, g, a }'
	done
	echo
	echo "A grant that limits (allow=*:/): every request judged, none asked, in the same runs:"
	echo
	if [ -n "${OTO_PREV_BIN:-}" ]; then
		echo "| kind | gated p50 ms | limited p50 | added by the rule | earlier limited p50 | change | limited req/s | earlier limited req/s |"
		echo "|---|---|---|---|---|---|---|---|"
	else
		echo "| kind | gated p50 ms | limited p50 | added by the rule | limited req/s |"
		echo "|---|---|---|---|---|"
	fi
	for k in $KINDS; do
		g50=$(col 2 gated "$k") l50=$(col 2 limited "$k")
		lrps=$(col 4 limited "$k")
		if [ -z "${OTO_PREV_BIN:-}" ]; then
			awk -v k="$k" -v g50="$g50" -v l50="$l50" -v l="$lrps" 'BEGIN {
				printf "| %s | %.3f | %.3f | %+.3f | %.1f |\n", k, g50, l50, l50 - g50, l }'
			continue
		fi
		p50=$(col 2 prevlimited "$k")
		prps=$(col 4 prevlimited "$k")
		awk -v k="$k" -v g50="$g50" -v l50="$l50" -v p50="$p50" -v l="$lrps" -v p="$prps" 'BEGIN {
			printf "| %s | %.3f | %.3f | %+.3f | %.3f | %+.3f | %.1f | %.1f |\n",
				k, g50, l50, l50 - g50, p50, l50 - p50, l, p }'
	done
	[ -n "${OTO_PREV_BIN:-}" ] || return 0
	echo
	echo "The earlier build ($OTO_PREV_BIN), gated, in the same runs:"
	echo
	echo "| kind | earlier gated p50 ms | gated p50 | change | earlier added p50 | added p50 | earlier req/s | req/s |"
	echo "|---|---|---|---|---|---|---|---|"
	for k in $KINDS; do
		d50=$(col 2 direct "$k") g50=$(col 2 gated "$k")
		p50=$(col 2 prev "$k")
		grps=$(col 4 gated "$k") prps=$(col 4 prev "$k")
		awk -v k="$k" -v d50="$d50" -v g50="$g50" -v p50="$p50" -v g="$grps" -v p="$prps" 'BEGIN {
			printf "| %s | %.3f | %.3f | %+.3f | %+.3f | %+.3f | %.1f | %.1f |\n",
				k, p50, g50, g50 - p50, p50 - d50, g50 - d50, p, g }'
	done
}
{
	echo "otogate vs direct TLS, $COUNT requests per kind, medians of $RUNS runs, link ${TOPO_RATE:-unlimited} at MTU $TOPO_MTU ($(date -u +%Y-%m-%d))"
	echo
	report
} | tee "$out/report"
[ "${OTO_BENCH_WRITE:-}" = 1 ] && cp "$out/report" "$top/bench/results-gate.md"
rm -rf "$out" "$shared"
exit 0
