#!/bin/sh
# What agents really run, each in the whole chain without network (otorun
# --no-net: otons, otomount, otoexec's default profile), with exact outcomes:
# git with a worktree and hooks; C with threads built by make -j2; Python in
# a venv with a local package installed by pip, pytest and a Pool of 2;
# Node with npm test and worker threads; an HTTP server on 127.0.0.1 and its
# client; headless Chromium rendering a page to PNG. The projects are in
# tests/workloads/, copied into the agent's workspace (/work).
# run-as: root user
. "$(dirname "$0")/common.sh"

W=$OTO_TESTS/workloads

suite_setUp() {
	A=$T/agent
	mkdir -p "$A/workspace" "$A/knowledge" "$A/people/alice"
	return 0
}

# project NAME...: tests/workloads/NAME in the workspace, the sandbox's own.
project() {
	for p in "$@"; do cp -R "$W/$p" "$A/workspace/"; done
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
}

# agent CMD...: CMD in the chain as a member, stdout in $T/out, stderr in
# $T/err, the code in $rc; killed (SIGTERM, forwarded inside) after 120 s.
agent() {
	run timeout -k 5 120 "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member \
		--person alice -- "$@"
}

# No fix backs this one: git runs in the chain as it is.
test_git_commit_worktree_and_hooks() {
	project git
	agent sh /work/git/run.sh
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "commits: 1
side: second first
worktrees: /work/repo /work/wt
marker: pre-commit ran in /work/repo
refused: exit 1: pre-commit: refused: no commits on Fridays
main: third first
staged: d.txt" "$(cat "$T/out")"
	# What the agent did is in its workspace on the host.
	assertEquals "pre-commit ran in /work/repo" "$(cat "$A/workspace/hook.marker")"
	assertEquals "gitdir: /work/repo/.git/worktrees/wt" "$(cat "$A/workspace/wt/.git")"
}

# No fix backs this one. Four threads (clone without namespace flags, which
# the profile allows; clone3 gets ENOSYS and glibc falls back to clone).
test_c_threads_built_by_make_j2() {
	project c
	agent sh -c 'cd c && make -s -j2 && ls *.o && ./sum'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "main.o
work.o
thread 0: 31249875000
thread 1: 93749875000
thread 2: 156249875000
thread 3: 218749875000
total: 499999500000
tasks: 4" "$(cat "$T/out")"
}

# No fix backs this one. PyPI is out of reach: pytest is Debian's
# (python3-pytest, seen through --system-site-packages), and pip installs
# the local package with neither an index nor an isolated build.
test_python_venv_pip_pytest_and_a_pool() {
	project py
	agent sh /work/py/run.sh
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "pip: wlcalc==1.0
pytest from: /usr/lib/python3/dist-packages/pytest/__init__.py
pytest: 4 passed
squares: [0, 1, 4, 9, 16, 25]
workers: 2" "$(cat "$T/out")"
}

# No fix backs this one. npm test runs node's own test runner (no
# dependency, nothing from the registry); the sums run in worker threads.
test_node_npm_test_and_worker_threads() {
	project node
	agent sh -c 'cd node && npm test && npm start --silent'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	# The TAP summary (its durations vary), then main.js's own line.
	assertEquals "# tests 2
# pass 2
# fail 0
sum 1..1000 = 500500 in worker thread 1" \
		"$(grep -E '^# (tests|pass|fail) |^sum ' "$T/out")"
	assertContains "$(cat "$T/out")" "> wl-node@1.0.0 test"
}

# Backed by otons bringing lo up (515845f): with lo down, the server binds
# but nothing reaches it (curl: "Couldn't connect to server", exit 7).
# --bind 127.0.0.1, a name /etc/hosts has: at its default address (::)
# http.server asks DNS for its own name (getfqdn), which fails at once here
# but waits out every timeout where a resolver is configured and silent.
test_local_http_server_and_client() {
	project site
	agent sh -c '
		set -e
		cd site
		python3 -u -m http.server --bind 127.0.0.1 8765 >/tmp/server.log 2>&1 &
		i=0
		until grep -q "^Serving HTTP" /tmp/server.log || [ $i -ge 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		curl -sS http://127.0.0.1:8765/index.txt
		curl -sS -o /dev/null -w "%{http_code}\n" http://127.0.0.1:8765/nothing-here
		python3 -c "import urllib.request as u; print(u.urlopen(\"http://localhost:8765/index.txt\", timeout=5).read().decode(), end=\"\")"
		kill $!
		sed -n "s/.*\] \"\(.*\)\" \([0-9]*\) .*/\1 \2/p" /tmp/server.log'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "hello from 127.0.0.1 in the sandbox
404
hello from 127.0.0.1 in the sandbox
GET /index.txt HTTP/1.1 200
GET /nothing-here HTTP/1.1 404
GET /index.txt HTTP/1.1 200" "$(cat "$T/out")"
}

# Backed by otomount's /etc allowlist (d4a70db): without /etc/chromium.d,
# Debian's /usr/bin/chromium stops at once ("/usr/bin/chromium: 77: .:
# cannot open /etc/chromium.d/*: No such file", exit 2); without /etc/fonts,
# fontconfig complains on stderr ("Fontconfig error: Cannot load default
# config file").
# --no-sandbox: Chromium's own sandbox needs a user namespace
# (clone(CLONE_NEWUSER)), which otoexec's profile refuses (EPERM) and otons'
# nesting would refuse anyway (ENOSPC); Debian's setuid chrome-sandbox
# cannot help under no_new_privs on a nosuid view. The agent's sandbox
# contains the whole browser instead.
# --disable-background-networking and friends: no connections of its own to
# Google's services, which a closed network refuses one by one.
test_chromium_renders_a_page_to_png() {
	[ -x /usr/bin/chromium ] || { skip "chromium is not installed (make check installs it)"; return 0; }
	project site
	agent chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir=/tmp/chromium --window-size=320,240 --screenshot=/work/shot.png \
		file:///work/site/page.html
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/err")" "bytes written to file /work/shot.png"
	assertNotContains "$(cat "$T/err")" "Fontconfig error"
	# IHDR: 320 x 240, 8-bit RGB; the blue box's corners and the red page.
	assertEquals "320 240 8 2
0,0 0 0 255
99,49 0 0 255
100,49 255 0 0
99,50 255 0 0
300,20 255 0 0
10,230 255 0 0" "$(python3 "$W/png.py" "$A/workspace/shot.png" 0,0 99,49 100,49 99,50 300,20 10,230)"
}

. shunit2
