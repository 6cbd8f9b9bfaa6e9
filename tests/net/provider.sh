# shellcheck shell=sh
# The subscription providers of the agent CLIs, sourced after topo.sh (and
# api.sh, whose test CA it shares when up):
#
#   prov_up    oto-prov-ID, a server's namespace behind the fake internet
#              (PROV4 and PROV6, in the fake internet's ranges), tests/helpers/fakeprovider.py on
#              its port 443, a certificate of the test CA ($K/ca.pem) for
#              every host of PROV_HOSTS, and the LAN resolver answering
#              those real names with PROV4 and PROV6 (inside the namespaces
#              only; both, as musl's resolver fails a name whose AAAA is
#              refused: codex is a static musl binary)
#   prov_down  the fake stopped (topo_down removes the namespace)
#
# The real names are hard-coded in the CLIs (Claude Code's token endpoint,
# codex's ChatGPT backend, gemini-cli's Google endpoints): a CLI reaches
# the fake by name, as it would the provider. Nothing leaves the machine:
# the fake host has no default route, and the resolver no upstream.
# $TOPO_DIR/prov holds the fake's files (fakeprovider.py says which).

PROV4=203.0.113.30
PROV6=2001:db8:1::30
NP=oto-prov-$TOPO_ID
PROV_HOSTS="api.anthropic.com platform.claude.com chatgpt.com auth.openai.com
oauth2.googleapis.com www.googleapis.com cloudcode-pa.googleapis.com"

prov_up() {
	K=$TOPO_DIR/pki
	P=$TOPO_DIR/prov
	mkdir -p "$K" "$P"
	chmod 0755 "$K"
	chmod 1777 "$P"
	if [ ! -e "$K/ca.pem" ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=oto test ca" -keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null || return 1
	fi
	# shellcheck disable=SC2086 # the names: words
	printf 'subjectAltName=%s\n' "$(printf 'DNS:%s\n' $PROV_HOSTS | paste -sd,)" >"$K/prov.ext"
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=fakeprovider" \
		-keyout "$K/prov.key" -out "$K/prov.csr" 2>/dev/null &&
		openssl x509 -req -in "$K/prov.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
			-days 2 -extfile "$K/prov.ext" -out "$K/prov.pem" 2>/dev/null || return 1
	topo_server "$NP" prov0 $PROV4 $PROV6 || return 1
	for h in $PROV_HOSTS; do
		printf '%s %s\n%s %s\n' $PROV4 "$h" $PROV6 "$h" >"$TOPO_DIR/hosts.d/.$h.tmp" &&
			mv "$TOPO_DIR/hosts.d/.$h.tmp" "$TOPO_DIR/hosts.d/$h"
	done
	ip netns exec "$NP" $PY "$OTO_TESTS/helpers/fakeprovider.py" "$K/prov.pem" "$K/prov.key" 443 \
		"$P" >"$TOPO_DIR/prov.log" 2>&1 &
	echo $! >"$TOPO_DIR/prov.pid"
	n=0
	while [ ! -e "$P/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e "$P/ready" ] || { echo "fakeprovider failed: $(cat "$TOPO_DIR/prov.log")" >&2; return 1; }
}

prov_down() {
	[ -f "$TOPO_DIR/prov.pid" ] && kill "$(cat "$TOPO_DIR/prov.pid")" 2>/dev/null
	return 0
}
