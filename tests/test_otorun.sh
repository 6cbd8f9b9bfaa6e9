#!/bin/sh
# otorun, the launcher: every value a caller gives reaches its stage intact
# and is never executed, whatever it holds ($(...), backticks, quotes,
# newlines, globs, leading dashes, spaces); what --print shows runs the same
# chain when pasted into sh; files are opened on the host, before the view.
# Without the network stage (--no-net): otonet has its own suites. The C
# otorun against a corpus recorded with the shell script it replaced.
# run-as: root user
. "$(dirname "$0")/common.sh"

# Values a hostile caller (or a careless one) might pass. Each names a file
# it would create if any shell ever ran it.
hostile() {
	printf '%s\n' "\$(touch $T/pwned1)" "\`touch $T/pwned2\`" "a'b\"c" \
		"x;touch $T/pwned3" '*' '-v' 'sp ace' "tab	x" '$HOME' "back\\slash"
}

suite_setUp() {
	A=$T/agent
	mkdir -p "$A/workspace" "$A/knowledge" "$A/people/alice"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
	return 0
}

assertNothingRan() {
	for n in 1 2 3; do
		assertFalse "a value was executed (pwned$n)" "[ -e $T/pwned$n ]"
	done
}

# The words of a printed chain, as sh reads them, NUL-separated in $T/words.
words() {
	sed '/^exec [0-9]/d' "$T/out" >"$T/chain"
	sh -c 'eval "set -- $(cat "$1")"; printf "%s\0" "$@"' _ "$T/chain" >"$T/words"
}

# The word after the first (or the Nth) occurrence of WORD in $T/words, and
# a "|" (a command substitution would strip the word's own trailing newlines).
after() { # WORD [N]
	python3 -c 'import sys
w = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
at = [i for i, x in enumerate(w) if x == sys.argv[2].encode()][int(sys.argv[3]) - 1]
sys.stdout.buffer.write(w[at + 1] + b"|")' "$T/words" "$1" "${2:-1}"
}

test_print_keeps_every_value_intact() {
	# From a file, not a pipe: the loop runs in this shell, where a failed
	# assertion counts (in a pipeline's subshell it was lost).
	hostile >"$T/hostile"
	while IFS= read -r v; do
		run "$OTO_BIN/otorun" --print --as "$v" --agent-root "$v" --role "$v" --person "$v" \
			--allow "$v" --public "$v" --dns "$v" --rlimit "$v" --hostname "$v" --ro "$v" \
			--rw "$v" --socket "$v" --tmpfs "$v" --tmp-size "$v" --tmp-inodes "$v" --hide "$v" \
			--ro-within "$v" --env "X=$v" --env-keep "$v" --landlock-ro "$v" \
			--landlock-rw "$v" --store s --key-file k --grant "API_KEY=https://$v" \
			--ca-file "$v" -- "$v" "$v"
		assertEquals "rc for <$v>: $(cat "$T/err")" 0 "$rc"
		words
		assertEquals "--grant <$v>" "API_KEY=https://$v|" "$(after --grant)"
		assertEquals "--ca-file <$v>" "$v|" "$(after --ca-file)"
		for opt in --as --agent-root --role --person --allow --public --dns --rlimit --hostname \
			--rw --socket --tmpfs --tmp-size --tmp-inodes --hide --ro-within --env-keep \
			--landlock-ro --landlock-rw; do
			assertEquals "$opt <$v>" "$v|" "$(after "$opt")"
		done
		# The first --ro is otorun's own (the tools, read-only at /opt/oto/bin).
		assertEquals "--ro (the tools)" "$OTO_BIN:/opt/oto/bin|" "$(after --ro)"
		assertEquals "--ro <$v>" "$v|" "$(after --ro 2)"
		assertEquals "--env <$v>" "X=$v|" "$(after --env)"
		# The program and its argument, after otoexec's "--".
		assertEquals "the program <$v>" "$v
$v" "$(python3 -c 'import sys
w = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
print("\n".join(x.decode() for x in w[len(w) - 2:]))' "$T/words")"
	done <"$T/hostile"
	assertNothingRan
}

# --cgroup and the limits reach otons; --cgroup=DIR whatever DIR holds (one
# word, never executed); a limit that is not a plain number stops at otorun.
test_cgroup_options_reach_otons() {
	hostile >"$T/hostile"
	while IFS= read -r v; do
		run "$OTO_BIN/otorun" $AS --print --agent-root "$A" --role member --person alice \
			--cgroup="/$v" --memory-max 1G --pids-max 50 --cpu-max 1.5 -- true
		assertEquals "rc for <$v>: $(cat "$T/err")" 0 "$rc"
		words
		# One word of the chain, as it was given.
		python3 -c 'import sys
sys.exit(sys.argv[2].encode() not in open(sys.argv[1], "rb").read().split(b"\0"))' \
			"$T/words" "--cgroup=/$v"
		assertEquals "--cgroup=/<$v> one word" 0 $?
		assertEquals "--memory-max" "1G|" "$(after --memory-max)"
		assertEquals "--pids-max" "50|" "$(after --pids-max)"
		assertEquals "--cpu-max" "1.5|" "$(after --cpu-max)"
	done <"$T/hostile"
	assertNothingRan
	run "$OTO_BIN/otorun" $AS --print --agent-root "$A" --role member --person alice \
		--pids-max "5;touch $T/pwned1" -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --pids-max 5;touch $T/pwned1: expected a number (see otons(1))" \
		"$(cat "$T/err")"
	run "$OTO_BIN/otorun" $AS --print --agent-root "$A" --role member --person alice \
		--cgroup=rel -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --cgroup=rel: the directory must be an absolute path" "$(cat "$T/err")"
	assertNothingRan
}

# The agent runs in the session's cgroup, the root of its cgroup namespace;
# the leaf is gone afterwards. As the test user, in the subtree tests/run.sh
# delegated; as root (otons is root without the network), otons' default.
test_cgroup_runs_the_agent_in_its_own_cgroup() {
	m=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	if [ -z "$m" ]; then
		skip "cgroup v2 is not mounted"
		return 0
	elif [ -n "$IS_ROOT" ]; then
		opt=--cgroup d=$m/oto/$OTO_TEST_USER
	elif [ -n "${OTO_TEST_CGROUP:-}" ]; then
		opt=--cgroup=$OTO_TEST_CGROUP d=$OTO_TEST_CGROUP
	else
		skip "no cgroup v2 directory delegated to uid $(id -u) (tests/run.sh makes one, run as root)"
		return 0
	fi
	mkfifo "$T/fifo"
	"$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice "$opt" -- \
		sh -c 'tail -n1 /proc/self/cgroup; exec cat >/dev/null' >"$T/out" 2>"$T/err" <"$T/fifo" &
	pid=$!
	exec 3>"$T/fifo"
	# While it runs: its leaf, with pid 1 and the agent (cat, once tail is done) in it.
	n=0 procs=
	while [ "$procs" != 2 ] && [ $n -lt 200 ]; do
		for l in "$d"/otons-*; do [ -e "$l" ] && procs=$(wc -l <"$l/cgroup.procs"); done
		sleep 0.05
		n=$((n + 1))
	done
	exec 3>&-
	wait_child "$pid" 10
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "processes in the leaf" 2 "$procs"
	assertEquals "0::/" "$(cat "$T/out")"
	for l in "$d"/otons-*; do
		assertFalse "leaf left: $l" "[ -e '$l' ]"
	done
}

# --log-fd reaches otons: the calls the filter refuses, named on fd 3 from
# outside the sandbox, and still refused with EPERM inside the view.
test_refusal_log_through_the_chain() {
	helper_cc refuse
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$T/refuse:/opt/refuse" --log-fd 3 -- /opt/refuse 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(printf 'unshare EPERM\nmount EPERM\nbpf EPERM\nptrace EPERM')" "$(cat "$T/out")"
	assertEquals "unshare mount bpf ptrace" "$(python3 -c 'import json, sys
print(" ".join(d["syscall"] for d in map(json.loads, open(sys.argv[1])) if "syscall" in d))' "$T/log")"
	# The session's open line says whose and which view; otons opens it here.
	assertEquals "$(printf 'open otons\nclose 0 0')" "$(session_of "$T/log")"
	assertEquals "65534 nobody member alice /opt/refuse" "$(python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
print(d["uid"], d["account"], d["role"], d["person"], d["chain"][-1])' "$T/log")"
	# Each refusal names its program, as the sandbox sees it.
	assertEquals "refuse /opt/refuse" "$(refusals_of "$T/log" | python3 -c 'import json, sys
print(*sorted({(d["comm"], d["exe"]) for d in map(json.loads, sys.stdin)}).pop())')"
}

# Every option of every stage otorun composes is otorun's: passed on to its
# stage, taken by otorun itself, or refused with its reason, never "unknown"
# (--allow-name was, when the lists were copied by hand). Each stage's
# --help is read (and checked against its getopt table: the help tells the
# truth), then each option given to otorun --print: rc 0, and a passed
# option in its stage's line; or rc 100 and "OPT: an option of STAGE that
# otorun does not pass: WHY", and OPT named in otorun --help's list of those.
# Every option otorun --help lists is in otorun(1).
test_every_stage_option_is_otoruns() {
	[ -d "$OTO_TOP/cmd/otonet" ] || { skip "the sources are not here ($OTO_TOP)"; return 0; }
	"$OTO_BIN/otorun" --help >"$T/help"
	for stage in otonet otons otomount otosecret otoexec otogate; do
		"$OTO_BIN/$stage" --help >"$T/$stage.help"
		python3 - "$T/$stage.help" "$OTO_TOP/cmd/$stage/opts.c" >"$T/$stage.opts" <<'PYEOF'
import re, sys
help = open(sys.argv[1]).read()
got = set()
for line in help.splitlines():
    if re.match(r"^ {1,6}-", line):
        got |= set(re.findall(r"(?:^ +|, )--([a-z][a-z0-9-]*)", line))
src = dict(re.findall(r'\{ *"([a-z0-9-]+)", *([a-z]+)_argument', open(sys.argv[2]).read()))
got.add("version")  # listed as "--version" after -h, --help
if got != set(src):
    print("HELP", sorted(got ^ set(src)))
for name in sorted(src):
    print(name, src[name])
PYEOF
		assertEquals "$stage: --help and the getopt table" "" "$(grep '^HELP' "$T/$stage.opts")"
		while read -r name arg; do
			case $name in HELP | help | version) continue ;; esac
			v=
			[ "$arg" = required ] && v=1
			# shellcheck disable=SC2086 # v: a value, or none
			run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member \
				--person alice "--$name" $v -- true
			if [ "$rc" = 0 ]; then
				continue
			fi
			case $(cat "$T/err") in
			"otorun: fatal: --$name: an option of $stage that otorun does not pass: "*)
				assertEquals "$stage --$name: one line" 1 "$(wc -l <"$T/err")"
				assertContains "$stage --$name in otorun --help's list" \
					"$(sed -n '/^Not passed/,$p' "$T/help" | tr '\n' ' ')" "--$name"
				;;
			*"unknown option"*)
				fail "$stage --$name: unknown to otorun: $(cat "$T/err")"
				;;
			esac
		done <"$T/$stage.opts"
	done
	# Passed on to their stage, as given.
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person alice \
		--allow-name 'a.example.test' --uid 1000 --die-with-parent --home /home/me \
		--user-name me --keep-cap net_bind_service --keep-fd 12 --verbose -- true
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(grep '/otonet ' "$T/out")" " --verbose --as nobody --allow-name a.example.test -- "
	assertContains "$(grep '/otons ' "$T/out")" " --verbose --share net --uid 1000 --die-with-parent -- "
	assertContains "$(grep '/otomount ' "$T/out")" " --home /home/me --user-name me -- "
	assertContains "$(grep '/otoexec ' "$T/out")" " --verbose --keep-cap net_bind_service --keep-fd 12 "
	# An fd of otorun's own is not the agent's to keep; one from 10 reaches it.
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person alice \
		--keep-fd 8 -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --keep-fd 8: expected a file descriptor number from 10 (0 to 2 are the agent's, 3 to 9 otorun's own)" "$(cat "$T/err")"
	# sh opens no fd past 9: python puts the file on fd 12.
	# shellcheck disable=SC2086 # AS is an option and its value
	run python3 -c 'import os, sys
os.dup2(os.open(sys.argv[1], os.O_RDONLY), 12)
os.execv(sys.argv[2], sys.argv[2:])' "$T/help" "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" \
		--role member --person alice --keep-fd 12 -- sh -c 'ls -l /proc/self/fd/12 | sed "s/.*-> //"'
	assertEquals "$(cat "$T/err")" "$T/help" "$(cat "$T/out")"
	# otorun(1) documents every option --help lists.
	assertEquals "options in --help that otorun(1) does not name" "" "$(python3 - "$T/help" \
		"$OTO_TOP/man/otorun.1" <<'PYEOF'
import re, sys
opts = set()
for line in open(sys.argv[1]).read().splitlines():
    if re.match(r"^ {1,6}-", line):
        opts |= set(re.findall(r"(?:^ +|, )(--[a-z][a-z0-9-]*)", line))
man = open(sys.argv[2]).read().replace("\\-", "-")
print(" ".join(o for o in sorted(opts) if not re.search(re.escape(o) + r"(?![a-z0-9-])", man)))
PYEOF
)"
}

# Run by root with --as, otorun opens every --ro, --rw and --socket source
# itself, on the host, before any stage drops to the account: a toolchain
# under a home of mode 0700 (/root/.cargo) binds, and the agent still reaches
# nothing of that home beyond the tree. Each source is a detached tree on an
# fd (otomount's fd=N:DST), read-only unless --rw; none is left to the agent.
# On the build before, otomount opened them as the account: "Permission
# denied", exit 111.
test_sources_opened_by_the_root_launcher() {
	[ -n "$IS_ROOT" ] || { skip "needs root (the launcher's own opens)"; return 0; }
	H=$T/home700
	mkdir -p "$H/.cargo/bin" "$H/.ssh" "$H/rw/cache" "$H/run"
	printf 'cargo 1.0\n' >"$H/.cargo/bin/version"
	printf 'private\n' >"$H/.ssh/id_ed25519"
	chown "$OTO_TEST_USER" "$H/rw/cache"
	mkdir -p "$H/skel"
	printf '[user]\n\tname = agent\n' >"$H/skel/.gitconfig"
	chmod 0755 "$H/skel"
	chmod 0700 "$H"
	# The tool: one connection, served within 20 s, then gone.
	python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(1); s.settimeout(20)
if os.fork():
    os._exit(0)
c, _ = s.accept(); c.sendall(b"pong\n"); c.close()' "$H/run/tool.sock" </dev/null >/dev/null 2>&1
	# shellcheck disable=SC2086 # AS is an option and its value
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$H/.cargo:/opt/cargo" --rw "$H/rw/cache:/cache" \
		--socket "$H/run/tool.sock:/tools/tool.sock" --home-skel "$H/skel" -- sh -c '
		cat /opt/cargo/bin/version
		git config user.name
		touch /opt/cargo/x 2>&1 | sed "s/.*: //"
		echo made >/cache/file && echo wrote
		ls /opt/cargo; ls -a /opt | tr "\n" " "; echo
		python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"/tools/tool.sock\"); print(s.recv(5).decode(), end=\"\")"
		ls /proc/self/fd | awk "\$1 >= 100" | wc -l'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "cargo 1.0
agent
Read-only file system
wrote
bin
. .. cargo oto 
pong
0" "$(cat "$T/out")"
	assertEquals "made" "$(cat "$H/rw/cache/file")"
	assertEquals "$OTO_TEST_USER" "$(stat -c %u "$H/rw/cache/file")"
	# No symlink anywhere in a source's path; one line, exit 111.
	ln -s "$H/.cargo" "$T/cargo-link"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$T/cargo-link:/opt/cargo" -- true
	assertEquals 111 "$rc"
	assertEquals "otorun: fatal: unable to open --ro $T/cargo-link (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$H/.ssh/id_ed25519:/opt/key" --socket "$H/.cargo:/tools/x.sock" -- true
	assertEquals 111 "$rc"
	assertEquals "otorun: fatal: unable to bind --socket $H/.cargo: not a socket" "$(cat "$T/err")"
	# An fd is otorun's to give: a caller's fd=N is refused.
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "fd=5:/x" -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --ro fd=5:/x: otorun opens the sources itself: give SRC:DST" \
		"$(cat "$T/err")"
}

# A mount on, above or inside /opt/oto/bin, where the chain's own tools are,
# would hide them (the next stage "not found in the sandbox's view"): refused
# at once, with the option named; a neighbour of it is not.
test_a_mount_over_the_chains_tools_is_refused() {
	for a in "--ro /usr:/opt/oto" "--ro /usr:/opt" "--rw /usr://opt//oto/" "--ro /usr:/opt/oto/bin/x" \
		"--tmpfs /opt:64m" "--socket /s:/" "--tmpfs /opt/oto/bin"; do
		# shellcheck disable=SC2086 # split on purpose
		run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p $a -- x
		assertEquals "<$a>" 100 "$rc"
		assertEquals "otorun: fatal: $a: DST would cover, or land inside, the chain's own tools at /opt/oto/bin (choose another)" \
			"$(cat "$T/err")"
	done
	for a in "--ro /usr:/opt/otox" "--ro /usr:/opt/o" "--tmpfs /opt/probe" "--ro /usr:/usr/opt/oto"; do
		# shellcheck disable=SC2086 # split on purpose
		run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p $a -- x
		assertEquals "<$a>: $(cat "$T/err")" 0 "$rc"
	done
}

# --ca-file: a private CA reaches every tool in the view. A TLS
# server on the sandbox's own loopback, under a test CA: curl, python,
# node and git verify it with --ca-file, and curl refuses it without; the
# host's bundle is untouched, and the view's still holds the public CAs.
test_ca_file_reaches_every_tool() {
	for t in openssl curl node git; do
		command -v $t >/dev/null || { skip "$t is not installed"; return 0; }
	done
	K=$T/ca
	mkdir -p "$K"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=oto test private CA" -keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
		-keyout "$K/srv.key" -out "$K/srv.csr" 2>/dev/null
	printf 'subjectAltName=DNS:localhost\n' >"$K/ext"
	openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
		-days 2 -extfile "$K/ext" -out "$K/srv.pem" 2>/dev/null
	chmod -R a+rX "$K"
	cat >"$K/srv.py" <<'PYEOF'
import http.server, socket, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "7"); self.end_headers()
        self.wfile.write(b"tls-ok\n")
    def log_message(self, *a):
        pass
# Both loopbacks: a client may resolve localhost to ::1 first (node does
# where /etc/hosts says so, as a fresh bookworm's does).
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()
s = S(("::", 8443), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = c.wrap_socket(s.socket, server_side=True)
s.timeout = 10
for _ in range(6):
    s.handle_request()
PYEOF
	# Four clients ask once each: the server, made to wait for six (the run
	# without --ca-file below), is ended once they are done.
	clients='python3 /opt/ca/srv.py /opt/ca/srv.pem /opt/ca/srv.key & sleep 0.5
		curl -sS https://localhost:8443/ 2>&1
		python3 -c "import urllib.request; print(urllib.request.urlopen(\"https://localhost:8443/\").read().decode(), end=\"\")" 2>&1 | tail -n1
		node -e "require(\"https\").get(\"https://localhost:8443/\", r => r.pipe(process.stdout)).on(\"error\", e => console.log(e.code))"
		git ls-remote https://localhost:8443/r 2>&1 | sed "s/info\/refs.*/info\/refs/"
		grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt | awk "{ print (\$1 > 2) }"
		echo $SSL_CERT_FILE; kill $!; wait; exit 0'
	hostsum=$(sha256sum </etc/ssl/certs/ca-certificates.crt)
	# shellcheck disable=SC2086 # AS is an option and its value
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$K:/opt/ca" --ca-file "$K/ca.pem" -- sh -c "$clients"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "tls-ok
tls-ok
tls-ok
fatal: https://localhost:8443/r/info/refs
1
/etc/ssl/certs/ca-certificates.crt" "$(cat "$T/out")"
	assertEquals "the host's bundle" "$hostsum" "$(sha256sum </etc/ssl/certs/ca-certificates.crt)"
	# Without it, the CA is no one's: curl says why.
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$K:/opt/ca" -- sh -c 'python3 /opt/ca/srv.py /opt/ca/srv.pem /opt/ca/srv.key &
		sleep 0.5; curl -sS https://localhost:8443/ 2>&1 | head -n1 | sed "s/.*SSL certificate problem: //"
		for i in 1 2 3 4 5; do curl -s https://localhost:8443/ >/dev/null 2>&1; done; wait'
	assertEquals "unable to get local issuer certificate" "$(cat "$T/out")"
	# Not a certificate: 101, before anything runs.
	printf 'not a cert\n' >"$K/bad.pem"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ca-file "$K/bad.pem" -- touch "$T/ran"
	assertEquals 101 "$rc"
	# Run by root, otorun reads it first, and says so with its path.
	who=otomount
	[ -n "$IS_ROOT" ] && who=otorun
	assertEquals "$who: fatal: --ca-file $K/bad.pem: no PEM certificate in it (-----BEGIN CERTIFICATE-----)" \
		"$(cat "$T/err")"
	assertFalse "nothing ran" "[ -e $T/ran ]"
}

# --ca-file brings its certificates alone. A CA's key and certificate in
# one file (mitmproxy's mitmproxy-ca.pem: the key first), or a key after
# the certificate with CRLF line ends, is refused: 101, one line naming
# the fix, nothing run. Run by root, otorun reads the file (root's alone,
# mode 0600) and refuses it before the chain starts; otherwise otomount
# does, before the view. A file of certificates among comments, openssl's
# subject= lines, a CRL and CRLF line ends gives the view's bundle the
# host's and the certificate, byte for byte, and nothing else.
test_ca_file_brings_certificates_only() {
	command -v openssl >/dev/null || { skip "openssl is not installed"; return 0; }
	K=$T/ca
	mkdir -p "$K"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=oto test private CA" -keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null
	cat "$K/ca.key" "$K/ca.pem" >"$K/mitm.pem"
	{ cat "$K/ca.pem"; openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null; } |
		sed 's/$/\r/' >"$K/after.pem"
	chmod 0600 "$K/mitm.pem" "$K/after.pem"
	who=otomount
	[ -n "$IS_ROOT" ] && who=otorun
	n=$(($(wc -l <"$K/ca.pem") + 1))
	for f in "mitm.pem:1:-----BEGIN PRIVATE KEY-----" "after.pem:$n:-----BEGIN EC PRIVATE KEY-----"; do
		# shellcheck disable=SC2086 # AS is an option and its value
		run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
			--ca-file "$K/${f%%:*}" -- grep -c PRIVATE /etc/ssl/certs/ca-certificates.crt
		assertEquals "${f%%:*}: $(cat "$T/err")" 101 "$rc"
		g=${f#*:}
		assertEquals "$who: fatal: --ca-file $K/${f%%:*}: a private key at line ${g%%:*} (${g#*:}): give a file of the CA's certificates alone (openssl x509 -in FILE -out ca.crt)" \
			"$(cat "$T/err")"
		assertEquals "${f%%:*}: nothing ran" "" "$(cat "$T/out")"
	done
	{
		echo "# the corporate CA"
		echo "subject=CN = oto test private CA"
		cat "$K/ca.pem"
		printf -- '-----BEGIN X509 CRL-----\nQUJD\n-----END X509 CRL-----\n'
	} | sed 's/$/\r/' >"$K/mixed.pem"
	chmod 0644 "$K/mixed.pem"
	# shellcheck disable=SC2086 # AS is an option and its value
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ca-file "$K/mixed.pem" -- sha256sum /etc/ssl/certs/ca-certificates.crt
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$(cat /etc/ssl/certs/ca-certificates.crt "$K/ca.pem" | sha256sum | cut -d' ' -f1)" \
		"$(cut -d' ' -f1 "$T/out")"
	assertEquals "" "$(cat "$T/err")"
}

# A value ending in newlines keeps them (a command substitution strips them).
test_trailing_newlines_survive() {
	nl='arg

'
	run "$OTO_BIN/otorun" --print --as nobody --agent-root "$nl" --role member --person alice -- \
		printf '%s|' "$nl"
	words
	assertEquals "arg

|" "$(after --agent-root)"
	assertEquals "arg

|" "$(python3 -c 'import sys
w = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
sys.stdout.write(w[-1].decode() + "|")' "$T/words")"
}

# --secret's fd=N and env=VAR went into the chain unquoted: each is checked.
test_secret_how_is_checked_before_it_reaches_the_chain() {
	for s in "T:fd=5\$(touch $T/pwned1)" "T:fd=5 6" "T:env=X\`touch $T/pwned2\`" 'T:env=*' \
		"T\$(touch $T/pwned3):env" 'T:file=rel/path' 'T:bogus'; do
		run "$OTO_BIN/otorun" --print --agent-root /a --role member --person p --secret "$s" \
			--store /s --key-file /k -- true
		assertEquals "--secret <$s>: $(cat "$T/err")" 100 "$rc"
		assertOneLine otorun
		assertEquals "--secret <$s>: nothing printed" "" "$(cat "$T/out")"
	done
	run "$OTO_BIN/otorun" --print --agent-root /a --role member --person p --log-fd '3;id' -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --log-fd 3;id: expected a file descriptor number" "$(cat "$T/err")"
	assertNothingRan
}

# What --print shows, pasted into sh, runs the chain; and otorun itself runs
# the same: the agent's tree, its arguments, arrive intact, nothing runs.
test_hostile_values_run_intact() {
	d="$T/tree \$(touch $T/pwned1) \`touch $T/pwned2\` 'q' \"dq\" *"
	mkdir -p "$d"
	cp -R "$A/." "$d/"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$d"
	chmod -R a+rX "$T"
	echo marker >"$d/workspace/m"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$d/workspace/m"
	hostile >"$T/values"
	set --
	while IFS= read -r v; do set -- "$@" "$v"; done <"$T/values"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$d" --role member --person alice -- \
		sh -c 'cat /work/m; printf "%s\n" "$@"' sh "$@"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "marker
$(cat "$T/values")" "$(cat "$T/out")"
	"$OTO_BIN/otorun" --print $AS --no-net --agent-root "$d" --role member --person alice -- \
		sh -c 'cat /work/m; printf "%s\n" "$@"' sh "$@" >"$T/printed"
	run sh "$T/printed"
	assertEquals "pasted: $(cat "$T/err")" 0 "$rc"
	assertEquals "pasted" "marker
$(cat "$T/values")" "$(cat "$T/out")"
	assertNothingRan
}

# --profile FILE is read here, on the host, and reaches otoexec as fd 7; a
# file the agent wrote in its workspace cannot be named: the same name in
# the view is its workspace's.
test_profile_is_opened_on_the_host() {
	printf 'default allow\nerrno ENODEV mkdir\n' >"$T/nodev.profile"
	printf 'default allow\n' >"$A/workspace/nodev.profile"
	chmod 0644 "$T/nodev.profile"
	cd "$T" || return
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--profile nodev.profile -- sh -c 'mkdir /tmp/d 2>&1; ls /proc/self/fd | wc -l'
	cd - >/dev/null || return
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" "No such device"
	# fds 0, 1, 2, and the one ls reads: the profile's fd 7 is closed.
	assertEquals 4 "$(tail -1 "$T/out")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--profile "$T/nonexistent" -- true
	assertEquals 101 "$rc"
	assertEquals "otorun: fatal: unable to open profile $T/nonexistent" "$(cat "$T/err")"
}

# A --profile path holding a space, quotes and $(...): otorun opens it as
# it is, and the line --print shows, run by sh in $T, opens the same file
# (the path quoted in its redirection), and runs nothing of it.
test_profile_path_hostile_printed_intact() {
	p="$T/a b 'q' \"dq\" \$(touch pwned1) \`touch pwned2\`.profile"
	printf 'default allow\nerrno ENODEV mkdir\n' >"$p"
	chmod 0644 "$p"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--profile "$p" -- sh -c 'mkdir /tmp/d 2>&1 | grep -o "No such device"'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "No such device" "$(cat "$T/out")"
	"$OTO_BIN/otorun" --print $AS --no-net --agent-root "$A" --role member --person alice \
		--profile "$p" -- sh -c 'mkdir /tmp/d 2>&1 | grep -o "No such device"' >"$T/printed"
	cd "$T" || return
	run sh "$T/printed"
	cd - >/dev/null || return
	assertEquals "pasted: $(cat "$T/err")" 0 "$rc"
	assertEquals "pasted" "No such device" "$(cat "$T/out")"
	assertNothingRan
}

# The oto tools are on the agent's PATH, last (the container recipe's
# default command is otoprobe); a PATH of the caller's replaces it.
test_oto_tools_on_the_agents_path() {
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice -- \
		sh -c 'echo "$PATH"; command -v otoprobe'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "/usr/local/bin:/usr/bin:/bin:/opt/oto/bin
/opt/oto/bin/otoprobe" "$(cat "$T/out")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--env PATH=/bin -- sh -c 'echo "$PATH"'
	assertEquals "/bin" "$(cat "$T/out")"
}

# Without a terminal the agent gets a session of its own, no controlling
# terminal; --no-new-session keeps the caller's.
test_new_session_without_a_terminal() {
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p -- true </dev/null
	assertContains "$(cat "$T/out")" "otoexec --new-session --env PATH="
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--no-new-session -- true </dev/null
	assertNotContains "$(cat "$T/out")" "--new-session"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice -- \
		sh -c 'ps -o sid= -p $$; echo $$' </dev/null
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "the agent leads its own session" "$(sed -n 2p "$T/out")" "$(sed -n 1p "$T/out" | tr -d ' ')"
}

# A dev server on 127.0.0.1 and its client, in the whole chain without
# otonet: the network namespace otons makes has lo up.
test_loopback_in_the_chain_without_network() {
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice -- \
		python3 -c "$LOOPBACK_PY"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "127.0.0.1 ping
::1 ping" "$(cat "$T/out")"
}

# What a launcher needs reaches its stage: an install outside /usr (--ro,
# a path with a space), a writable cache (--rw), a bigger /tmp, a variable.
test_pass_through_options_run() {
	mkdir -p "$T/opt tool/bin" "$T/cache"
	printf '#!/bin/sh\necho "tool $*"\n' >"$T/opt tool/bin/tool"
	chmod 0755 "$T/opt tool/bin/tool"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$T/cache"
	chmod -R a+rX "$T"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--ro "$T/opt tool:/opt/tool" --rw "$T/cache:/cache" --tmp-size 512m --tmpfs /scratch:1m \
		--env 'GREETING=hello there' --rlimit nofile=100 --hostname devbox -- \
		sh -c '/opt/tool/bin/tool a "b c"; echo "$GREETING"; ulimit -n; hostname
			echo x >/cache/w && echo cache-rw; echo y >/opt/tool/w 2>/dev/null || echo tool-ro
			df -k /tmp /scratch | awk "NR > 1 { print \$2 }"'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "tool a b c
hello there
100
devbox
cache-rw
tool-ro
524288
1024" "$(cat "$T/out")"
	assertEquals "x" "$(cat "$T/cache/w")"
	# The protected files: --writable and --protect reach otomount.
	echo n >"$A/workspace/notes"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$A/workspace/notes"
	echo r >"$A/workspace/.bashrc"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$A/workspace/.bashrc"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--protect /work/notes --writable /work/.bashrc -- sh -c '
		(echo x >>/work/notes) 2>&1 | sed "s/.*: //"; echo x >>/work/.bashrc && echo bashrc-rw'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "Read-only file system
bashrc-rw" "$(cat "$T/out")"
}

# Nothing of the chain is readable from inside: pid 1 (the only process of
# ours the agent sees; the supervisor and the relay are outside its pid
# namespace) shows a fixed name, no argument, no environment, and a mount
# table of one empty tmpfs. otons' command line holds every later stage's:
# canaries in otomount's (the agent tree, a --ro source), otoexec's (--env,
# whose value is the agent's own variable all the same) and the agent's
# own arguments.
test_pid1_shows_no_option_of_any_stage() {
	mkdir -p "$T/cnry-tree" "$T/cnry-src"
	cp -R "$A/." "$T/cnry-tree/"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$T/cnry-tree"
	chmod -R a+rX "$T"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$T/cnry-tree" --role member --person alice \
		--ro "$T/cnry-src:/opt/c" --env CNRY_VAR=cnry-env -- sh -c '
		c=cnry; tr "\0" "\n" </proc/1/cmdline | grep -v "^\$"; cat /proc/1/comm
		grep -c "" /proc/1/mountinfo
		cat /proc/1/cmdline /proc/1/status /proc/1/stat /proc/1/mountinfo /proc/1/environ \
			/proc/1/sched 2>/dev/null | grep -c "$c-" || :
		echo "$CNRY_VAR" "$1"' sh cnry-arg
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "oto-init
oto-init
1
0
cnry-env cnry-arg" "$(cat "$T/out")"
}

# --config FILE: one option a line, the value as it is to the end of the
# line (spaces and quotes included); comments and blank lines; the command
# line's options after the file's; a bad line refused with its number.
test_config_file() {
	mkdir -p "$T/a b"
	cp -R "$A/." "$T/a b/"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$T/a b"
	chmod -R a+rX "$T"
	{
		echo "# the agent's tree"
		echo "--agent-root $T/a b"
		printf '\t--role viewer\n\n'
		echo "--person alice"
		echo "--env NOTE=it's \"quoted\" \$(no) & spaced"
		echo "--no-new-session"
	} >"$T/agent.conf"
	run "$OTO_BIN/otorun" $AS --no-net --config "$T/agent.conf" --role member -- \
		sh -c 'echo "$NOTE"; touch /work/w && echo work-rw'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "it's \"quoted\" \$(no) & spaced
work-rw" "$(cat "$T/out")"
	for bad in "--role|option --role needs a value" "--bogus x|unknown option --bogus" \
		"role member|expected --OPTION [VALUE], found role member" \
		"--no-net yes|option --no-net takes no value" "--config x|--config in a config file: one file only" \
		"--print|--print belongs on the command line" \
		"--hide /work/secrets # keep out|--hide /work/secrets # keep out: a comment after a value is not allowed (the value runs to the end of the line: put the comment on a line of its own)" \
		"--env A=b	# tab|--env A=b?# tab: a comment after a value is not allowed (the value runs to the end of the line: put the comment on a line of its own)" \
		"--hide /work/secrets  |--hide /work/secrets  : blanks at the end of the line (the value runs to the end of the line: remove them)"; do
		printf '# line 1\n\n%s\n' "${bad%%|*}" >"$T/bad.conf"
		run "$OTO_BIN/otorun" --config "$T/bad.conf" -- true
		assertEquals "$bad" 100 "$rc"
		assertEquals "otorun: fatal: $T/bad.conf:3: ${bad#*|}" "$(cat "$T/err")"
	done
	# A # inside a value, with no blank before it, is the value's.
	printf -- '--agent-root /a\n--role member\n--person p\n--as nobody\n--env X=a#b\n' >"$T/hash.conf"
	run "$OTO_BIN/otorun" --config "$T/hash.conf" --print -- true
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" "--env 'X=a#b'"
	run "$OTO_BIN/otorun" --config "$T/missing.conf" -- true
	assertEquals 111 "$rc"
	assertEquals "otorun: fatal: unable to read config $T/missing.conf" "$(cat "$T/err")"
}

# The examples' config files (one per role, and a real agent CLI's) parse,
# and each one's values reach the chain.
test_example_configs() {
	for f in "$OTO_TOP"/examples/config/*.conf "$OTO_TOP"/examples/claude-code/agent.conf; do
		run "$OTO_BIN/otorun" --print --config "$f" -- true
		assertEquals "$f: $(cat "$T/err")" 0 "$rc"
		root=$(sed -n 's/^--agent-root //p' "$f")
		role=$(sed -n 's/^--role //p' "$f")
		assertContains "$f" "$(cat "$T/out")" "--agent-root $root --role $role "
	done
}

# The corpus (tests/otorun/corpus.jsonl): 900 cases recorded with the shell
# script otorun was (every option, odd values, config files, errors, and
# launches whose first stage is tests/helpers/argdump.c, which shows its argv
# and fds), replayed: the same stdout, stderr and exit code, byte for byte.
test_corpus_recorded_with_the_script() {
	helper_cc argdump
	run python3 "$OTO_TESTS/helpers/otorun_corpus.py" replay "$OTO_TESTS/otorun/corpus.jsonl" \
		"$T/replay" "$OTO_BIN/otorun" "$T/argdump"
	assertEquals "$(cat "$T/out" "$T/err")" 0 "$rc"
	assertEquals "901 cases, 0 differ" "$(tail -n 1 "$T/out")"
}

# A fake chain: $T/bin holds otorun (a link) and argdump as its first stages.
fake_chain() {
	helper_cc argdump
	mkdir -p "$T/bin"
	ln -s "$OTO_BIN/otorun" "$T/bin/otorun"
	for t in otogate otonet otons otomount; do cp "$T/argdump" "$T/bin/$t"; done
	chmod -R a+rX "$T/bin"
}

# Where the script differed from what it meant: otons' copy of --log-fd N was
# made by the shell's "exec 3>&N", which dash refuses for N of two digits and
# for an fd that is not open, and the script then exited 2 without a word.
test_log_fd_copy_for_otons() {
	fake_chain
	# sh itself opens no fd past 9: python puts the log on fd 12.
	run python3 -c 'import os, sys
os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644), 12)
os.execv(sys.argv[2], sys.argv[2:])' "$T/log" "$T/bin/otorun" $AS --agent-root /a --role member \
		--person p --log-fd 12 -- x
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "otonet's" "--log-fd
12" "$(grep -A1 -- --log-fd "$T/out" | head -n 2)"
	assertEquals "otons' copy" "--log-fd
3" "$(grep -A1 -- --log-fd "$T/out" | sed -n 4,5p)"
	assertEquals "fd 3 w $T/log
fd 12 w $T/log" "$(grep '^fd \(3\|12\) ' "$T/out")"
	# N is 3: the copy goes to 4, not onto N itself (which otonet keeps from the chain).
	run "$T/bin/otorun" $AS --agent-root /a --role member --person p --log-fd 3 -- x 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "otonet's, otons' copy" "--log-fd 3 --log-fd 4" \
		"$(grep -A1 -- --log-fd "$T/out" | grep -v '^--$' | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "fd 3 w $T/log
fd 4 w $T/log" "$(grep '^fd [34] ' "$T/out")"
	run "$T/bin/otorun" $AS --agent-root /a --role member --person p --log-fd 9 -- x
	assertEquals 111 "$rc"
	assertEquals "otorun: fatal: --log-fd 9: not an open file descriptor" "$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
}

# --log-budget SIZE reaches each stage that writes on the record, otonet and
# otons, the same; a size out of range is otorun's one line.
test_log_budget_reaches_each_writer() {
	fake_chain
	run "$T/bin/otorun" $AS --agent-root /a --role member --person p --log-fd 3 --log-budget 2M -- x 3>"$T/log"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "otonet's and otons'" "--log-budget 2M --log-budget 2M" \
		"$(grep -A1 -- --log-budget "$T/out" | grep -v '^--$' | tr '\n' ' ' | sed 's/ $//')"
	run "$OTO_BIN/otorun" --print --agent-root /a --role member --person p --log-fd 3 --log-budget 1K -- true
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --log-budget 1K: expected 4K to 1T bytes" "$(cat "$T/err")"
}

# --ask SOCKET: otorun connects to the decider and hands the connection to
# otonet on fd 99 (--ask-fd 99); --ask-fd N passes the launcher's own fd.
# Before any question, the session's line says who asks (otonet(1), Asking).
test_ask_reaches_otonet() {
	fake_chain
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); c, _ = s.accept()
open(sys.argv[2], "wb").write(c.recv(4096))
time.sleep(2)' "$T/dec" "$T/hello" &
	dec=$!
	n=0
	while [ ! -S "$T/dec" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	run "$T/bin/otorun" $AS --agent-root /a --role member --person p --ask "$T/dec" \
		--ask-timeout 5 -- x
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "--ask-timeout
5
--ask-fd
99" "$(grep -A1 -- '^--ask' "$T/out" | grep -v '^--$')"
	assertEquals "fd 99 w socket" "$(grep "^fd 99 " "$T/out")"
	wait "$dec"
	assertEquals "$(cat "$T/hello")" 1 "$(grep -c '^{"time":"[0-9T:.-]*Z","source":"session","session":"[0-9a-f]\{32\}","person":"p","agent":"x as nobody"}$' "$T/hello")"
	assertEquals 1 "$(wc -l <"$T/hello")"
	run "$T/bin/otorun" $AS --agent-root /a --role member --person p --ask "$T/nobody" -- x
	assertEquals 111 "$rc"
	assertEquals "otorun: fatal: unable to connect to the decider at $T/nobody: No such file or directory" "$(cat "$T/err")"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--ask-fd 4 -- x
	assertEquals 100 "$rc"
	assertEquals "otorun: fatal: --ask-fd 4: expected a file descriptor number from 10 (3 to 9 are otorun's own)" "$(cat "$T/err")"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--ask-fd 12 --ask /s -- x
	assertEquals "otorun: fatal: --ask and --ask-fd: one decider, one or the other" "$(cat "$T/err")"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--ask /s --no-net -- x
	assertEquals "otorun: fatal: --no-net excludes the network options" "$(cat "$T/err")"
	run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
		--ask-fd 12 -- x
	assertContains "$(cat "$T/out")" " --ask-fd 12 -- "
}

# --mode: the options each mode sets, as words of the chain (otorun(1),
# "Permission modes"): ask-new adds otonet's --no-public (once), ask-writes
# and ask-all add ask=writes and ask=*:/ to every grant (once); every mode
# but auto needs a decider, and each contradiction is one line.
test_mode_sets_its_options() {
	for m in "auto|--as nobody -- |G=https://h,allow=GET:/|H=https://g" \
		"ask-new|--as nobody --no-public --ask-fd 12 -- |G=https://h,allow=GET:/|H=https://g,ask=*:/" \
		"ask-writes|--as nobody --no-public --ask-fd 12 -- |G=https://h,allow=GET:/,ask=writes|H=https://g,ask=*:/,ask=writes" \
		"ask-all|--as nobody --no-public --ask-fd 12 -- |G=https://h,allow=GET:/,ask=*:/|H=https://g,ask=*:/"; do
		IFS='|' read -r mode net g h <<-EOF
		$m
		EOF
		# auto has no decider, and a grant's own ask= needs one.
		dec="--ask-fd 12" h0='H=https://g,ask=*:/'
		[ "$mode" = auto ] && dec='' h0=H=https://g
		# shellcheck disable=SC2086
		run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
			--mode "$mode" $dec --store s --key-file k \
			--grant G=https://h,allow=GET:/ --grant "$h0" -- x
		assertEquals "$mode: $(cat "$T/err")" 0 "$rc"
		assertEquals "$mode: otonet" "  $OTO_BIN/otonet $net\\" "$(sed -n 3p "$T/out")"
		words
		assertEquals "$mode: the first grant" "$g|" "$(after --grant)"
		assertEquals "$mode: the second grant" "$h|" "$(after --grant 2)"
	done
	# An explicit --no-public stays the one; a config file's mode is
	# replaced by the command line's.
	printf -- '--mode ask-all\n--no-public\n' >"$T/mode.conf"
	run "$OTO_BIN/otorun" --print --config "$T/mode.conf" --as nobody --agent-root /a \
		--role member --person p --mode ask-new --ask-fd 12 --store s --key-file k \
		--grant G=https://h -- x
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals 1 "$(grep -o -- ' --no-public ' "$T/out" | wc -l)"
	words
	assertEquals "G=https://h|" "$(after --grant)"
	for bad in "--mode ask|--mode ask: expected auto, ask-new, ask-writes or ask-all" \
		"--mode ask-new|--mode ask-new needs a decider: give --ask SOCKET (otoask --listen) or --ask-fd N" \
		"--mode ask-all --no-net|--mode ask-all asks through otonet: drop --no-net" \
		"--mode ask-writes --no-net --ask /s|--mode ask-writes asks through otonet: drop --no-net" \
		"--mode auto --ask /s|--mode auto asks nothing: drop --ask and --ask-fd, or choose --mode ask-new, ask-writes or ask-all"; do
		# shellcheck disable=SC2086
		run "$OTO_BIN/otorun" --print --as nobody --agent-root /a --role member --person p \
			${bad%%|*} -- x
		assertEquals "$bad" 100 "$rc"
		assertEquals "otorun: fatal: ${bad#*|}" "$(cat "$T/err")"
		assertEquals "" "$(cat "$T/out")"
	done
}

# The issue's attack, otorun's end: a decider on the agent's terminal (a
# launcher script runs both on it) would read the keys the agent reads.
# otorun refuses it, naming cause and fix, before any line reaches it.
test_ask_refuses_a_decider_on_its_terminal() {
	fake_chain
	run /usr/bin/python3 "$OTO_TESTS/helpers/ptydrive.py" --out "$T/tty" --timeout 15 'expect rc=' -- sh -c "
		/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); c, _ = s.accept()
c.settimeout(3)
open(sys.argv[2], \"wb\").write(c.recv(4096))' $T/dec $T/hello & d=\$!
		n=0; while [ ! -S $T/dec ] && [ \$n -lt 100 ]; do sleep 0.05; n=\$((n + 1)); done
		$T/bin/otorun $AS --agent-root /a --role member --person p --ask $T/dec -- x
		echo rc=\$?; wait \$d"
	assertContains "$(cat "$T/out")" "ok 1"
	assertContains "$(cat "$T/tty")" "rc=100"
	assertContains "$(tr -d '\r' <"$T/tty")" "otorun: fatal: --ask $T/dec: the decider (pid "
	assertContains "$(tr -d '\r' <"$T/tty")" ") is on this terminal, where the agent could type its answers: run it in a terminal of its own (another window, a tmux pane)"
	assertEquals "" "$(cat "$T/hello")"
	assertNotContains "the chain did not start" "$(cat "$T/tty")" "fd 99"
}

# otosecret and otogate get the store and key as fds 8 and 9 (5 and 6) and
# refuse one others may access, but could name only their --store-fd: otorun,
# which opened them, refuses it first, naming the file the user gave.
test_store_and_key_modes_named_by_file() {
	fake_chain
	echo store >"$T/store" && echo key >"$T/key"
	chmod 600 "$T/store" "$T/key"
	for use in "--secret S" "--grant G=https://h"; do
		chmod 644 "$T/store"
		# shellcheck disable=SC2086 # the option and its value, split on purpose
		run "$T/bin/otorun" $AS --agent-root /a --role member --person p $use \
			--store "$T/store" --key-file "$T/key" -- x
		assertEquals "$use: store" 101 "$rc"
		assertEquals "otorun: fatal: store $T/store is accessible by group or others (mode 0644): chmod 600" \
			"$(cat "$T/err")"
		assertEquals "" "$(cat "$T/out")"
		chmod 600 "$T/store" && chmod 640 "$T/key"
		# shellcheck disable=SC2086
		run "$T/bin/otorun" $AS --agent-root /a --role member --person p $use \
			--store "$T/store" --key-file "$T/key" -- x
		assertEquals "$use: key" 101 "$rc"
		assertEquals "otorun: fatal: key $T/key is accessible by group or others (mode 0640): chmod 600" \
			"$(cat "$T/err")"
		chmod 600 "$T/key"
		# shellcheck disable=SC2086
		run "$T/bin/otorun" $AS --agent-root /a --role member --person p $use \
			--store "$T/store" --key-file "$T/key" -- x
		assertEquals "$use: owner-only ($(cat "$T/err"))" 0 "$rc"
	done
}

# The tools' directory: the one otorun's path names, made absolute as the
# shell's cd would (a link's own directory, . and .. taken off by name);
# found on PATH, the directory of the binary itself.
test_tool_directory() {
	fake_chain
	mkdir -p "$T/w/sub"
	cd "$T/w/sub" || return
	for p in ../../bin/otorun "$T/./bin/otorun" "$T//bin/otorun" "$T/w/../bin/otorun"; do
		run "$p" --print $AS --agent-root /a --role member --person p -- x
		assertEquals "$p: $(cat "$T/err")" 0 "$rc"
		assertEquals "$p" "$T/bin/otonet${AS:+ $AS} -- \\" "$(head -n 1 "$T/out")"
		assertContains "$p" "$(cat "$T/out")" " --ro $T/bin:/opt/oto/bin -- "
	done
	cd - >/dev/null || return
	real=$(cd "$OTO_BIN" && pwd -P)
	PATH="$T/bin:$PATH" run otorun --print $AS --agent-root /a --role member --person p -- x
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertContains "$(cat "$T/out")" " --ro $real:/opt/oto/bin -- "
}

# The environment reaches the chain as it is (otoexec --env-keep shows it).
test_environment_passes_unchanged() {
	v='sp ace $(no) `no` '\''q'\'' "dq" \ *
second line'
	KEEP_ME=$v run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--env-keep KEEP_ME -- sh -c 'printf "%s|" "$KEEP_ME"'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals "$v|" "$(cat "$T/out")"
}


# ---- a newcomer's first run: each mistake is one line, its cause and its fix ----

# An --as account that does not exist: said by otorun, with how to make it,
# before any stage runs.
test_missing_account_says_how_to_make_it() {
	[ -n "$IS_ROOT" ] || { skip "--as is for root"; return 0; }
	run "$OTO_BIN/otorun" --as oto-no-such-account --no-net --agent-root "$A" --role member \
		--person alice -- echo ran
	assertEquals "$(cat "$T/err")" 100 "$rc"
	assertOneLine otorun
	assertEquals "otorun: fatal: --as oto-no-such-account: no such account (make it: useradd --system --no-create-home --shell /usr/sbin/nologin oto-no-such-account)" \
		"$(cat "$T/err")"
	assertEquals "stdout" "" "$(cat "$T/out")"
}

# A tree the account cannot write where its role writes (root's, as cp -R
# run by root leaves it): refused before the launch, with the chown to run,
# instead of the agent meeting EACCES in /work. A viewer only reads it.
test_a_workspace_the_account_cannot_write_is_refused_before_the_launch() {
	[ -n "$IS_ROOT" ] || { skip "needs a tree of another account"; return 0; }
	d=$T/roots
	mkdir -p "$d/workspace" "$d/knowledge" "$d/people/alice"
	chmod -R 0755 "$d" && chmod a+rx "$T"
	chown "$OTO_TEST_USER" "$d/people/alice"
	who=$(id -nu "$OTO_TEST_USER")
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$d" --role member --person alice -- echo ran
	assertEquals "$(cat "$T/err")" 101 "$rc"
	assertOneLine otorun
	assertEquals "otorun: fatal: unable to let $who (uid $OTO_TEST_USER) write $d/workspace: it belongs to root (uid 0), mode 0755 (chown -R $who: $d/workspace)" \
		"$(cat "$T/err")"
	assertEquals "stdout" "" "$(cat "$T/out")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$d" --role viewer --person alice -- echo ran
	assertEquals "viewer: $(cat "$T/err")" 0 "$rc"
	assertEquals "ran" "$(cat "$T/out")"
	# The person's space is written too.
	chown -R "$OTO_TEST_USER" "$d/workspace" && chown root "$d/people/alice"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$d" --role member --person alice -- echo ran
	assertEquals "$(cat "$T/err")" 101 "$rc"
	assertEquals "otorun: fatal: unable to let $who (uid $OTO_TEST_USER) write $d/people/alice: it belongs to root (uid 0), mode 0755 (chown -R $who: $d/people/alice)" \
		"$(cat "$T/err")"
}

# A tree or a person that is not there: otomount, which opens them, says
# what to make.
test_a_missing_tree_says_what_to_make() {
	chmod a+rx "$T"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$T/nothere" --role member --person alice -- echo ran
	assertEquals "$(cat "$T/err")" 111 "$rc"
	assertOneLine otomount
	assertEquals "otomount: fatal: unable to open the agent root $T/nothere (it does not exist; make it: mkdir -p $T/nothere/workspace $T/nothere/knowledge $T/nothere/people/alice, and chown -R to the agent's account the parts the role writes): No such file or directory" \
		"$(cat "$T/err")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role viewer --person carol -- echo ran
	assertEquals "$(cat "$T/err")" 111 "$rc"
	assertEquals "otomount: fatal: unable to open $A/people/carol (it does not exist; make it: mkdir -p $A/people/carol, and chown it to the agent's account if the role writes it): No such file or directory" \
		"$(cat "$T/err")"
}

# No store or no key yet: the reason, and the two commands that make them.
test_a_missing_store_or_key_says_how_to_make_them() {
	"$OTO_BIN/otosecret" keygen --out "$T/key"
	echo K=0123456789abcdef | "$OTO_BIN/otosecret" seal --key-file "$T/key" --store "$T/store"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--secret K --store "$T/nostore" --key-file "$T/key" -- echo ran
	assertEquals "$(cat "$T/err")" 111 "$rc"
	assertOneLine otorun
	assertEquals "otorun: fatal: unable to open store $T/nostore: No such file or directory (make one: otosecret keygen --out KEY, then NAME=VALUE lines on stdin to otosecret seal --key-file KEY --store $T/nostore)" \
		"$(cat "$T/err")"
	run "$OTO_BIN/otorun" $AS --no-net --agent-root "$A" --role member --person alice \
		--secret K --store "$T/store" --key-file "$T/nokey" -- echo ran
	assertEquals "$(cat "$T/err")" 111 "$rc"
	assertEquals "otorun: fatal: unable to open key $T/nokey: No such file or directory (make one: otosecret keygen --out $T/nokey, and seal the store with it: otosecret seal --key-file $T/nokey --store STORE)" \
		"$(cat "$T/err")"
	assertEquals "stdout" "" "$(cat "$T/out")"
}

. shunit2
