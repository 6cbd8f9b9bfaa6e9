#!/bin/sh
# A subscription kept outside (otogate --login) against the token used
# directly, in one run on one machine, in the otonet test topology
# (tests/net/topo.sh) with the fake providers (tests/net/provider.sh:
# tests/helpers/fakeprovider.py by the real names, a test CA made here).
# bench/loginbench.py makes, on one kept-alive connection, COUNT requests
# of each kind as Claude Code makes them: "refresh", its refresh at the
# token endpoint (the provider rotates the refresh token on every use: each
# request carries the last answer's), and "call", a streamed model call
# with the access token as a Bearer. The paths, taking turns within each
# run: "direct", from the fake host with the real tokens; "otonet alone",
# the same behind otonet (the TUN's and the relay's cost); "login", behind
# otogate --login CLAUDE_LOGIN=claude -- otonet with the phantom file
# (OTO_LOGIN), the gateway swapping the phantoms in, the answer's new
# tokens out, and sealing the rotated ones into the store before it
# answers; and, for calls, "API key", behind otogate with the real access
# token sealed as a transparent API-key grant (--grant
# API_KEY=https://api.anthropic.com,transparent). Before each run of a path
# the tokens the fake holds now are the ones it starts from (a file for the
# direct paths; otosecret import, or seal for the API key). Refreshes come
# 5 ms apart, as a CLI's come hours apart: each one's own time, not the
# disk's work the last one left (the gateway syncs the store's directory
# once the agent has its answer). Reported: p50 and p90 per request (ms),
# and for calls requests per second, the medians of RUNS runs. Goals: a
# refresh through the gateway adds under 1 ms at p50 to one made directly,
# and a model call on the login grant adds under 1 ms to one on the
# API-key grant. The fake is Python: its own time is in every path alike. OTO_PREV_BIN (or OTO_BIN_B) names the binaries of an earlier
# build: its login path runs too, in turn with the others, and a third
# table compares the two. The store is in the topology's directory, on
# the disk /tmp is on (LOGIN_STORE_DIR: elsewhere; a tmpfs shows what the
# store's fsync costs). Needs root (ip netns). Results: stdout, and
# bench/results-login.md when OTO_BENCH_WRITE=1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:=$top/build/musl/bin}"
RUNS=${RUNS:-3}
COUNT=${COUNT:-200}
AS_USER=${AS_USER:-65534}
OTO_PREV_BIN=${OTO_PREV_BIN:-${OTO_BIN_B:-}}
NETTOOL=$top/tests/net/nettool.py
OTO_TESTS=$top/tests
TOPO_ID=bench-login-$$
. "$top/tests/net/topo.sh"
. "$top/tests/net/provider.sh"

if [ "$(id -u)" != 0 ]; then
	echo "login.sh: fatal: needs root (ip netns)" >&2
	exit 111
fi
for c in openssl "$OTO_BIN/otogate" "$OTO_BIN/otonet" "$OTO_BIN/otosecret"; do
	command -v "$c" >/dev/null || { echo "login.sh: fatal: $c not found" >&2; exit 111; }
done
out=$(mktemp -d /tmp/oto-bench-login.XXXXXX)
shared=$(mktemp -d /tmp/oto-bench-login-ca.XXXXXX)
cleanup() {
	prov_down
	topo_down
	rm -rf "$out" "$shared"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP
topo_up || { echo "login.sh: fatal: topology failed" >&2; exit 111; }
prov_up || { echo "login.sh: fatal: the fake providers failed" >&2; exit 111; }
chmod 1777 "$shared"
# The fake logs every request: into /dev/null here.
ln -sf /dev/null "$P/requests"
ln -sf /dev/null "$P/issued"

# The subscription, and the stores of the gateway's account (their
# directory its own: a refresh's tokens are sealed back).
$PY "$top/tests/helpers/fakeprovider.py" seed "$P" claude "$TOPO_DIR/seed" valid >/dev/null ||
	{ echo "login.sh: fatal: the subscription" >&2; exit 111; }
S=${LOGIN_STORE_DIR:-$TOPO_DIR/st}
mkdir -p "$S" "$TOPO_DIR/cur"
chmod 0755 "$TOPO_DIR/cur"
"$OTO_BIN/otosecret" keygen --out "$S/key" ||
	{ echo "login.sh: fatal: unable to make the key" >&2; exit 111; }

# now: the fake's current tokens as Claude Code's login file, in $cur.
cur=$TOPO_DIR/cur/login.json
now() {
	$PY -c 'import json, sys
st = json.load(open(sys.argv[1]))
json.dump({"claudeAiOauth": {"accessToken": st["access_token"], "refreshToken": st["refresh_token"],
           "expiresAt": 4102444800000, "scopes": ["user:inference", "user:profile"],
           "subscriptionType": "pro"}}, open(sys.argv[2], "w"))' "$P/claude.json" "$cur" &&
		chmod 0644 "$cur"
}
# stores: the login entry (CLAUDE_LOGIN) and the API key (API_KEY), of the
# fake's current tokens, the gateway's account's.
stores() {
	now && "$OTO_BIN/otosecret" import --profile claude --name CLAUDE_LOGIN --key-file "$S/key" \
		--store "$S/store" "$cur" >/dev/null 2>&1 &&
		rm -f "$S/api" &&
		$PY -c 'import json, sys; print("API_KEY=" + json.load(open(sys.argv[1]))["access_token"])' \
			"$P/claude.json" | "$OTO_BIN/otosecret" seal --key-file "$S/key" --store "$S/api" &&
		chown -R "$AS_USER" "$S" && chmod 0700 "$S"
}

CLIENT="$PY $top/bench/loginbench.py"
direct() { # KIND
	now && ip netns exec "$NH" $CLIENT "$1" "$COUNT" "$K/ca.pem" "$cur"
}
netonly() { # KIND
	now && ip netns exec "$NH" "$OTO_BIN/otonet" --as "$AS_USER" $PUB -- \
		$CLIENT "$1" "$COUNT" "$K/ca.pem" "$cur" 2>/dev/null
}
# The phantom file from OTO_LOGIN, the session CA its only trust.
login() { # KIND [BIN]
	_b=${2:-$OTO_BIN}
	stores && ip netns exec "$NH" "$_b/otogate" --store "$S/store" --key-file "$S/key" \
		--as "$AS_USER" --login CLAUDE_LOGIN=claude --ca-file "$K/ca.pem" -- \
		"$OTO_BIN/otonet" --as "$AS_USER" $PUB -- \
		sh -c "cat <&\"\$OTO_GATE_CA\" >$shared/ca-\$\$.pem &&
			cat <&\"\${OTO_LOGIN%%:*}\" >$shared/login-\$\$.json &&
			exec $CLIENT $1 $COUNT $shared/ca-\$\$.pem $shared/login-\$\$.json" 2>/dev/null
}
# The API key's phantom as the Bearer (ACCESS); the session CA its only trust.
apikey() { # KIND
	stores && ip netns exec "$NH" "$OTO_BIN/otogate" --store "$S/api" --key-file "$S/key" \
		--as "$AS_USER" --grant "API_KEY=https://api.anthropic.com,transparent" --ca-file "$K/ca.pem" -- \
		"$OTO_BIN/otonet" --as "$AS_USER" $PUB -- \
		sh -c "cat <&\"\$OTO_GATE_CA\" >$shared/ca-\$\$.pem &&
			ACCESS=\$API_KEY exec $CLIENT $1 $COUNT $shared/ca-\$\$.pem $cur" 2>/dev/null
}

for r in $(seq "$RUNS"); do
	for k in refresh call; do
		direct "$k" >>"$out/direct-$k" || echo "login.sh: warning: run $r: direct $k failed" >&2
		netonly "$k" >>"$out/netonly-$k" || echo "login.sh: warning: run $r: otonet alone $k failed" >&2
		login "$k" >>"$out/login-$k" || echo "login.sh: warning: run $r: login $k failed" >&2
		if [ -n "$OTO_PREV_BIN" ]; then
			login "$k" "$OTO_PREV_BIN" >>"$out/prev-$k" ||
				echo "login.sh: warning: run $r: the earlier build's login $k failed" >&2
		fi
		[ "$k" = call ] || continue
		apikey "$k" >>"$out/apikey-$k" || echo "login.sh: warning: run $r: API key $k failed" >&2
	done
done

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { cut -d' ' -f"$2" "$out/$1" | med; } # FILE FIELD: the runs' median
report() {
	echo "A refresh (Claude Code's, the refresh token rotated on every use; 5 ms between refreshes):"
	echo
	echo "| direct p50 ms | otonet alone p50 | login p50 | added p50 | gateway's own p50 | direct p90 | login p90 |"
	echo "|---|---|---|---|---|---|---|"
	awk -v d50="$(col direct-refresh 2)" -v n50="$(col netonly-refresh 2)" -v l50="$(col login-refresh 2)" \
		-v d90="$(col direct-refresh 3)" -v l90="$(col login-refresh 3)" 'BEGIN {
		printf "| %.3f | %.3f | %.3f | %+.3f | %+.3f | %.3f | %.3f |\n",
			d50, n50, l50, l50 - d50, l50 - n50, d90, l90 }'
	echo
	echo "A streamed model call, on the login grant and on an API-key grant (transparent, the same token):"
	echo
	echo "| direct p50 ms | otonet alone p50 | API key p50 | login p50 | login - API key p50 | login - direct p50 | API key p90 | login p90 | API key req/s | login req/s |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -v d50="$(col direct-call 2)" -v n50="$(col netonly-call 2)" -v a50="$(col apikey-call 2)" \
		-v l50="$(col login-call 2)" -v a90="$(col apikey-call 3)" -v l90="$(col login-call 3)" \
		-v a="$(col apikey-call 4)" -v l="$(col login-call 4)" 'BEGIN {
		printf "| %.3f | %.3f | %.3f | %.3f | %+.3f | %+.3f | %.3f | %.3f | %.1f | %.1f |\n",
			d50, n50, a50, l50, l50 - a50, l50 - d50, a90, l90, a, l }'
	[ -n "$OTO_PREV_BIN" ] || return 0
	echo
	echo "The earlier build ($OTO_PREV_BIN), its login path, in the same runs:"
	echo
	echo "| kind | earlier login p50 ms | login p50 | change | earlier added p50 | added p50 | earlier p90 | p90 |"
	echo "|---|---|---|---|---|---|---|---|"
	for k in refresh call; do
		awk -v k="$k" -v d50="$(col "direct-$k" 2)" -v p50="$(col "prev-$k" 2)" -v l50="$(col "login-$k" 2)" \
			-v p90="$(col "prev-$k" 3)" -v l90="$(col "login-$k" 3)" 'BEGIN {
			printf "| %s | %.3f | %.3f | %+.3f | %+.3f | %+.3f | %.3f | %.3f |\n",
				k, p50, l50, l50 - p50, p50 - d50, l50 - d50, p90, l90 }'
	done
}
{
	echo "otogate --login vs the token used directly, $COUNT requests per kind, medians of $RUNS runs, MTU $TOPO_MTU ($(date -u +%Y-%m-%d))"
	echo
	report
} | tee "$out/report"
[ "${OTO_BENCH_WRITE:-}" = 1 ] && cp "$out/report" "$top/bench/results-login.md"
exit 0
