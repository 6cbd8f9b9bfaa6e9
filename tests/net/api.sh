# shellcheck shell=sh
# The fake model API of the gateway's suites, sourced after topo.sh by
# tests/test_otogate.sh and tests/test_agents.sh:
#
#   api_up    a test CA (and another), a certificate of it for $API, the
#             fake API (tests/helpers/fakeapi.py) on $API:8443 in the fake
#             internet, and a store sealed under $K/key holding API_KEY,
#             OTHER_KEY, SHORT, ANTHROPIC_API_KEY, OPENAI_API_KEY and
#             GEMINI_API_KEY
#   api_down  the fake API stopped (topo_down removes the rest)
#   api_suite_up, api_suite_down  a suite's oneTimeSetUp and oneTimeTearDown:
#             the topology and the fake API, as root; nothing otherwise
#   npm_cli DIR PACKAGE@VERSION  a CLI from the npm registry, installed
#             into DIR once (again when the version there differs); false, the test skipped, when it cannot be
#   gemini_cli  $GEMINI in C=$AGENTS/gemini, as examples/gemini-cli installs it
#
# $TOPO_DIR/api/requests holds every request the API received, and
# $TOPO_DIR/api/toolresult the output of the scripted model's tool call;
# a test may write another command for that call in $TOPO_DIR/api/call.

REAL=sk-real-0123456789abcdef0123456789abcdef
OTHER=sk-other-9876543210fedcba9876543210
API=api.example.test

api_up() {
	K=$TOPO_DIR/pki
	mkdir -p "$K" "$TOPO_DIR/api"
	chmod 0755 "$K"
	chmod 1777 "$TOPO_DIR/api"
	# The test CA, another CA, and the server's certificate for $API.
	for ca in ca ca2; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=oto test $ca" -keyout "$K/$ca.key" -out "$K/$ca.pem" 2>/dev/null || return 1
	done
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$API" \
		-keyout "$K/srv.key" -out "$K/srv.csr" 2>/dev/null &&
		printf 'subjectAltName=DNS:%s\n' "$API" >"$K/ext" &&
		openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
			-days 2 -extfile "$K/ext" -out "$K/srv.pem" 2>/dev/null || return 1
	# The value in a file: on fakeapi's command line, the agent could read it in /proc.
	printf '%s' "$REAL" >"$K/real"
	chmod 0600 "$K/real"
	ip netns exec "$NI" $PY "$OTO_TESTS/helpers/fakeapi.py" "$K/srv.pem" "$K/srv.key" 8443 \
		"$TOPO_DIR/api" "$K/real" >"$TOPO_DIR/api.log" 2>&1 &
	echo $! >"$TOPO_DIR/api.pid"
	n=0
	while [ ! -e "$TOPO_DIR/api/ready" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	[ -e "$TOPO_DIR/api/ready" ] || { echo "fakeapi failed: $(cat "$TOPO_DIR/api.log")" >&2; return 1; }
	otosecret keygen --out "$K/key" &&
		printf 'API_KEY=%s\nOTHER_KEY=%s\nSHORT=tooshort\nANTHROPIC_API_KEY=%s\nOPENAI_API_KEY=%s\nGEMINI_API_KEY=%s\n' \
			"$REAL" "$OTHER" "$REAL" "$REAL" "$REAL" | otosecret seal --key-file "$K/key" --store "$K/store"
}

api_down() {
	[ -f "$TOPO_DIR/api.pid" ] && kill "$(cat "$TOPO_DIR/api.pid")" 2>/dev/null
	return 0
}

api_suite_up() {
	[ -n "$IS_ROOT" ] || return 0
	trap 'api_down; topo_down' EXIT
	trap 'api_down; topo_down; exit 1' INT TERM HUP
	topo_up || { echo "topology failed" >&2; topo_down; exit 1; }
	api_up || { echo "the fake API failed" >&2; exit 1; }
}

api_suite_down() {
	[ -n "$IS_ROOT" ] || return 0
	api_down
	topo_down
	return 0
}

# The CLIs are kept under build/agents (OTO_AGENTS_DIR), between runs, each
# at the version pinned here (the suites' outcomes are these versions').
AGENTS=${OTO_AGENTS_DIR:-$OTO_TOP/build/agents}
CLAUDE=@anthropic-ai/claude-code@2.1.332
CODEX=@openai/codex@0.171.0
GEMINI=@google/gemini-cli@0.61.0

npm_cli() { # DIR PACKAGE@VERSION
	_pkg=${2%@*}
	_want=${2##*@}
	_have=$(node -p 'require(process.argv[1]).version' \
		"$1/node_modules/$_pkg/package.json" 2>/dev/null) || _have=
	[ "$_have" = "$_want" ] && return 0
	command -v npm >/dev/null || { skip "npm not found"; return 1; }
	mkdir -p "$1" && npm install --prefix "$1" --no-audit --no-fund "$2" >"$T/npm.log" 2>&1 ||
		{ skip "$2 did not install: $(tail -n 1 "$T/npm.log")"; return 1; }
	chmod -R a+rX "$1"
}

# gemini_cli: $GEMINI in C=$AGENTS/gemini as examples/gemini-cli/install.sh
# installs it, with bin/gemini and, where node is older than 20 (Debian
# bookworm's), a Node of the registry's (pinned here); again when the
# version or install.sh differs from the last install's (C/.oto-install).
# False, the test skipped, when it cannot be.
gemini_cli() {
	C=$AGENTS/gemini
	_stamp="$GEMINI $(sha256sum <"$OTO_TOP/examples/gemini-cli/install.sh")"
	[ "$(cat "$C/.oto-install" 2>/dev/null)" = "$_stamp" ] && return 0
	command -v npm >/dev/null || { skip "npm not found"; return 1; }
	GEMINI_CLI_PACKAGE=$GEMINI NODE_VERSION=22.23.5 \
		sh "$OTO_TOP/examples/gemini-cli/install.sh" "$C" "$T/gemini-home" >"$T/npm.log" 2>&1 ||
		{ skip "$GEMINI did not install: $(tail -n 1 "$T/npm.log")"; return 1; }
	echo "$_stamp" >"$C/.oto-install"
}
