#!/bin/sh
# The coding-agent CLIs of examples/, each run end to end as its recipe is
# written: otorun composes the whole chain (otogate, otonet, otons, otomount,
# otoexec) from the recipe's agent.conf, the CLI comes from the npm registry
# (a pinned version, installed once into build/agents), and its model API is
# tests/helpers/fakeapi.py in the fake internet of tests/net/topo.sh, whose
# scripted model has the CLI's shell tool run "env" and write the working
# directory's path in agent-was-here. Each test asserts that the file lands
# in the agent's workspace on the host, that the API got the real key and
# the tool's output only the phantom.
# run-as: root
. "$(dirname "$0")/common.sh"
. "$OTO_TESTS/net/topo.sh"
. "$OTO_TESTS/net/api.sh"

OPENCODE=opencode-ai@1.18.33

oneTimeSetUp() { api_suite_up; }
oneTimeTearDown() { api_suite_down; }

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (ip netns)"; return 0; }
	: >"$TOPO_DIR/api/requests"
	rm -f "$TOPO_DIR/api/toolresult" "$TOPO_DIR/api/call"
	A=$T/agent
	cp -R "$OTO_TOP/examples/agent" "$A"
	chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
}


# recipe NAME SED-SCRIPT...: examples/NAME/agent.conf in $T/agent.conf, with
# the test's places: the agent's tree, the account, the store and key, and
# those of the SED-SCRIPTs (the CLI's install, the API's address).
recipe() {
	_n=$1
	shift
	for _e; do set -- "$@" -e "$_e"; shift; done
	sed -e "s|^--agent-root .*|--agent-root $A|" -e "s|^--as .*|--as $OTO_TEST_USER|" \
		-e "s|^--store .*|--store $K/store|" -e "s|^--key-file .*|--key-file $K/key|" \
		"$@" "$OTO_TOP/examples/$_n/agent.conf" >"$T/agent.conf"
}

# run_recipe ARGS...: otorun with $T/agent.conf in the fake host, the fake
# internet public and the test CA trusted, then ARGS.
run_recipe() {
	# shellcheck disable=SC2086 # PUB: options
	run in_host "$OTO_BIN/otorun" --config "$T/agent.conf" $PUB --ca-file "$K/ca.pem" "$@"
}

codex_recipe() {
	recipe codex "s|https://api.openai.com|https://$API:8443|" \
		"s|^--ro /opt/codex:/opt/codex|--ro $C:/opt/codex|" \
		"s|^--home-skel .*|--home-skel $OTO_TOP/examples/codex/home|"
}

# The file the scripted model's tool call writes, in the workspace on the
# host, the agent's own; the tool's output with the phantom in NAME (its
# only value), never the key; the API with the key in HEADER.
assertTheToolRan() { # NAME HEADER
	assertEquals "the tool's file, in the workspace" "/work" "$(cat "$A/workspace/agent-was-here")"
	assertEquals "$OTO_TEST_USER" "$(stat -c %u "$A/workspace/agent-was-here")"
	assertEquals 1 "$(grep -c "^$1=oto-phantom-" "$TOPO_DIR/api/toolresult")"
	assertNoSecret "the tool's output" "$TOPO_DIR/api/toolresult"
	assertEquals "$2" "$(grep -i "^${2%%:*}:" "$TOPO_DIR/api/requests" | sort -u)"
}

claude_recipe() { # HOME-SKEL
	recipe claude-code "s|https://api.anthropic.com|https://$API:8443|" \
		"s|^--ro /opt/claude:/opt/claude|--ro $C:/opt/claude|" \
		"s|^--home-skel .*|--home-skel $1|"
}

# examples/claude-code: the key through --grant, the CLI pointed at the
# gateway by ANTHROPIC_BASE_URL.
test_the_claude_code_example_end_to_end() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	claude_recipe "$OTO_TOP/examples/claude-code/home"
	assertEquals "the recipe, only its places changed" 7 \
		"$(diff "$OTO_TOP/examples/claude-code/agent.conf" "$T/agent.conf" | grep -c '^>')"
	run_recipe -- \
		/opt/claude/node_modules/.bin/claude -p "Show me the environment." \
		--dangerously-skip-permissions
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done" "$(cat "$T/out")"
	assertTheToolRan ANTHROPIC_API_KEY "x-api-key: $REAL"
	assertEquals 1 "$(grep -c '^ANTHROPIC_BASE_URL=http://10.0.2.4:8001$' "$TOPO_DIR/api/toolresult")"
}

# The terminal's text as a person reads it: the escapes out, a cursor move
# along the line (how this CLI spaces its words) a space.
screen() { # RAW-FILE
	$PY -c 'import re, sys
s = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
s = re.sub(r"\x1b\[\d*[GC]", " ", s)
s = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[78=>]", "", s)
print(re.sub(r"[ \t]+", " ", s))' "$1"
}

# examples/claude-code at a terminal, as a person starts it, with the home
# skeleton home.sh makes for the test's store: it asks nothing at start (in
# 2.1.332, without the skeleton, onboarding's welcome and its connection
# check; without the approval, "Do you want to use this API key?"), and
# the prompt typed reaches the API with the real key.
test_claude_code_at_a_terminal_asks_nothing_at_start() {
	C=$AGENTS/claude
	npm_cli "$C" "$CLAUDE" || return 0
	cp -R "$OTO_TOP/examples/claude-code/home" "$T/home"
	assertEquals "home.sh" "" "$(sh "$OTO_TOP/examples/claude-code/home.sh" "$T/home" "$K/store" 2>&1)"
	claude_recipe "$T/home"
	# shellcheck disable=SC2086 # PUB: options
	# One word: the renderer may move the cursor for a space, so a phrase is
	# not always in the raw bytes (it is on the screen, below).
	run in_host $PY "$OTO_TESTS/helpers/ptydrive.py" --out "$T/rawtty" --timeout 30 \
		'expect bypass
sleep 0.2
send Show me the environment.
sleep 0.2
send \r
expect agent-was-here
kill 15' -- "$OTO_BIN/otorun" --config "$T/agent.conf" $PUB --ca-file "$K/ca.pem" -- \
		/opt/claude/node_modules/.bin/claude --dangerously-skip-permissions
	screen "$T/rawtty" >"$T/screen"
	assertNotContains "every step; $(cat "$T/out") $(tail -c 2000 "$T/screen")" "$(cat "$T/out")" "fail "
	assertContains "the prompt, ready" "$(cat "$T/screen")" "bypass permissions on"
	for q in "Welcome to Claude Code" "Detected a custom API key in your environment" \
		"Do you want to use this API key?" "Quick safety check" "Bypass Permissions mode"; do
		assertFalse "asked: $q" "grep -qF '$q' '$T/screen'"
	done
	assertEquals "x-api-key: $REAL" "$(grep -i '^x-api-key:' "$TOPO_DIR/api/requests" | sort -u)"
}

# examples/codex: the key through --grant, the gateway as a model provider
# of codex's own and its sandbox off, both in examples/codex/home (the
# recipe's --home-skel), copied into the fresh home.
test_the_codex_example_end_to_end() {
	C=$AGENTS/codex
	npm_cli "$C" "$CODEX" || return 0
	codex_recipe
	assertEquals "the recipe, only its places changed" 7 \
		"$(diff "$OTO_TOP/examples/codex/agent.conf" "$T/agent.conf" | grep -c '^>')"
	run_recipe -- \
		/opt/codex/node_modules/.bin/codex exec --skip-git-repo-check "Show me the environment." \
		</dev/null
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done" "$(cat "$T/out")"
	assertTheToolRan OPENAI_API_KEY "authorization: Bearer $REAL"
	assertEquals 2 "$(grep -c '^== POST /v1/responses$' "$TOPO_DIR/api/requests")"
}

# Why the recipe turns codex's own sandbox off: on, every command it runs is
# refused by its bundled bwrap, which needs a user namespace, no file is
# written, and codex still exits 0. otoprobe, in the same view, says so.
test_codex_own_sandbox_cannot_nest() {
	C=$AGENTS/codex
	npm_cli "$C" "$CODEX" || return 0
	codex_recipe
	run_recipe \
		--ro "$OTO_BIN:/opt/probe" -- sh -c '"$0" exec -s workspace-write --skip-git-repo-check \
			"Show me the environment." </dev/null && /opt/probe/otoprobe --no-net |
			grep "^nested sandbox"' /opt/codex/node_modules/.bin/codex
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done
nested sandbox                             info    none can start here (no user namespace): turn a tool's own sandbox off, this one is the boundary (codex: sandbox_mode = \"danger-full-access\"; Chromium: --no-sandbox)" \
		"$(cat "$T/out")"
	assertEquals "Process exited with code 1" "$(grep '^Process exited' "$TOPO_DIR/api/toolresult")"
	# bwrap's words differ between its versions (codex's bundled one, the
	# system's where there is one): "create new" and "create a new".
	assertEquals "bwrap's refusal" 1 \
		"$(grep -cE '^bwrap: No permissions to create (a )?new namespace' "$TOPO_DIR/api/toolresult")"
	assertFalse "no file was written" "[ -e '$A/workspace/agent-was-here' ]"
}

# examples/gemini-cli: the key through --grant, in x-goog-api-key (a header
# the grant names), the CLI pointed at the gateway by GOOGLE_GEMINI_BASE_URL;
# its settings and the workspace's trust in examples/gemini-cli/home. One
# request per turn: the model the settings name, no router's before it.
test_the_gemini_cli_example_end_to_end() {
	gemini_cli || return 0
	gemini_recipe "$OTO_TOP/examples/gemini-cli/home"
	assertEquals "the recipe, only its places changed" 7 \
		"$(diff "$OTO_TOP/examples/gemini-cli/agent.conf" "$T/agent.conf" | grep -c '^>')"
	run_recipe -- \
		/opt/gemini/bin/gemini -p "Show me the environment." --yolo </dev/null
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done" "$(cat "$T/out")"
	assertTheToolRan GEMINI_API_KEY "x-goog-api-key: $REAL"
	assertEquals 1 "$(grep -c '^GOOGLE_GEMINI_BASE_URL=http://10.0.2.4:8001$' "$TOPO_DIR/api/toolresult")"
	assertEquals 2 "$(grep -c '^== POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse$' \
		"$TOPO_DIR/api/requests")"
}

# Why the recipe's home trusts /work: without trustedFolders.json, gemini-cli
# in headless mode exits 55 before a request, saying so.
test_gemini_cli_untrusted_workspace_exits_55() {
	gemini_cli || return 0
	mkdir -p "$T/home/.gemini"
	cp "$OTO_TOP/examples/gemini-cli/home/.gemini/settings.json" "$T/home/.gemini/"
	chmod -R a+rX "$T/home"
	gemini_recipe "$T/home"
	run_recipe -- \
		/opt/gemini/bin/gemini -p "Show me the environment." --yolo </dev/null
	assertEquals 55 "$rc"
	assertEquals 1 "$(grep -c 'Gemini CLI is not running in a trusted directory' "$T/err")"
	assertEquals "no request" 0 "$(grep -c '^== ' "$TOPO_DIR/api/requests")"
}

gemini_recipe() { # HOME-SKEL
	recipe gemini-cli "s|https://generativelanguage.googleapis.com|https://$API:8443|" \
		"s|^--ro /opt/gemini:/opt/gemini|--ro $C:/opt/gemini|" \
		"s|^--home-skel .*|--home-skel $1|"
}

# examples/opencode, as its README says: examples/setup.sh makes the tree,
# the key and the store (the key from the environment) and the home
# skeleton (its settings: the gateway as its Anthropic provider's base URL,
# its permissions granted), then its otorun line runs. The scripted call
# touches /tmp, outside /work: without external_directory in the
# permissions, opencode refuses that call and still exits 0.
test_the_opencode_example_end_to_end() {
	C=$AGENTS/opencode
	npm_cli "$C" "$OPENCODE" || return 0
	A=$T/code
	recipe opencode "s|https://api.anthropic.com|https://$API:8443|" \
		"s|^--ro /opt/opencode:/opt/opencode|--ro $C:/opt/opencode|" \
		"s|^--home-skel .*|--home-skel $T/opencode-home|" \
		"s|^--store .*|--store $T/store|" "s|^--key-file .*|--key-file $T/key|"
	assertEquals "the recipe, only its places changed" 7 \
		"$(diff "$OTO_TOP/examples/opencode/agent.conf" "$T/agent.conf" | grep -c '^>')"
	# The fake internet public, the test CA trusted.
	printf -- '--public %s\n--ca-file %s\n' 203.0.113.0/24 "$K/ca.pem" >>"$T/agent.conf"
	run env ANTHROPIC_API_KEY="$REAL" "$OTO_TOP/examples/setup.sh" --config "$T/agent.conf" opencode -- \
		/opt/opencode/node_modules/.bin/opencode run "Show me the environment."
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "setup: account $OTO_TEST_USER: unchanged
setup: tree $A: made (a copy of examples/agent, $OTO_TEST_USER's)
setup: key $T/key: made
setup: store $T/store, ANTHROPIC_API_KEY: made
setup: install $C: unchanged
setup: home $T/opencode-home: made" "$(cat "$T/err")"
	assertEquals "otorun --config $T/agent.conf -- /opt/opencode/node_modules/.bin/opencode run 'Show me the environment.'" \
		"$(cat "$T/out")"
	echo 'env && touch /tmp/oto-tmp && ls /tmp && pwd >agent-was-here' >"$TOPO_DIR/api/call"
	run in_host sh -c "$(cat "$T/out") </dev/null"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "done" "$(cat "$T/out")"
	assertTheToolRan ANTHROPIC_API_KEY "x-api-key: $REAL"
	assertEquals "/tmp, touched" 1 "$(grep -cx oto-tmp "$TOPO_DIR/api/toolresult")"
}

. shunit2
