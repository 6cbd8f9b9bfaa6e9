#!/bin/sh
# Run every test suite and print, last, the tests skipped and why, then one
# line: N passed, N failed[, N skipped].
#
#   OTO_BIN      directory of the static binaries
#   OTO_SAN_BIN  directory of the same tools built with ASan and UBSan (make
#                LIBC=glibc SAN=1): every suite runs once more against them
#   OTO_UNIT     the unit-test binaries (cmocka, sanitizers)
#   OTO_ONLY     run only the integration suites whose name matches (a grep -E
#                pattern), without the static checks (make lint runs those)
#   OTO_ONLY_TESTS  with OTO_ONLY naming one suite: only these of its tests
#                (their function names, space-separated; scripts/mutate.sh)
#
# Integration suites (tests/test_*.sh) run as root and, when their header says
# "# run-as: root user", again as an unprivileged user (uid 65534), from a copy
# of the tests and binaries that the user can read wherever the checkout lives.
# The sanitized pass runs each suite once, as root, with OTO_SAN=1 in its
# environment (a test that measures the relay's memory skips there), but
# those whose header says "# sanitized: no (WHY)" (test_otons_vm.sh: its VM
# runs the static binaries only).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${OTO_BIN:?}"
work=$(mktemp -d /tmp/oto-check.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT INT TERM
pass=0 fail=0 skip=0

count() { # a results file: PASS/FAIL/SKIP lines
	p=$(grep -c '^PASS ' "$1") f=$(grep -c '^FAIL ' "$1") s=$(grep -c '^SKIP ' "$1")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	grep '^FAIL ' "$1" | sed 's/^/  /'
}

echo "== unit tests"
for u in ${OTO_UNIT:-}; do
	out=$("$u" 2>&1)
	code=$?
	echo "$out" | grep -E '^\[ +(PASSED|FAILED|  OK|ERROR) +\]|^\[  FAILED  \]' | sed 's/^/  /' | grep -v '  OK ' || true
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	p=${p:-0} f=${f:-0}
	# A crash (sanitizer report, abort) counts even when cmocka printed nothing.
	if [ "$code" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "$out" | tail -n 20 | sed 's/^/  /'
	fi
	echo "  $(basename "$u"): $p passed, $f failed"
	[ "$f" -eq 0 ] || echo "  unit $(basename "$u"): $f failed" >>"$work/failed"
	pass=$((pass + p)) fail=$((fail + f))
done

# The static checks (scripts/lint.sh; make lint runs them alone), each
# section's sum printed, every PASS and FAIL counted. A run of some suites
# (OTO_ONLY) leaves them to make lint.
if [ -z "${OTO_ONLY:-}" ]; then
	"$top/scripts/lint.sh" >"$work/lint"
	grep -v '^PASS \|^FAIL ' "$work/lint"
	count "$work/lint" >/dev/null
	sed -n 's/^FAIL /  lint /p' "$work/lint" >>"$work/failed"
fi

echo "== static binaries and size budgets"
"$top/scripts/check-static.sh" "$OTO_BIN" "$top/tests/budgets.txt" >"$work/static"
cat "$work/static" | sed 's/^/  /'
count "$work/static" >/dev/null
sed -n 's/^FAIL /  static /p' "$work/static" >>"$work/failed"

# A copy readable by everyone, for the unprivileged run: the binaries, the
# suites, and the sources they read (OTO_TOP: profiles, examples, man pages),
# since a checkout under /root is not readable by uid 65534.
mkdir -p "$work/bin" "$work/san" "$work/tests" "$work/src"
cp -p "$OTO_BIN"/* "$work/bin/"
[ -n "${OTO_SAN_BIN:-}" ] && cp -p "$OTO_SAN_BIN"/* "$work/san/"
cp -pR "$top/tests/." "$work/tests/"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$work/src" -xf -
# The stamps of the dependencies built (what --version names), without them.
mkdir -p "$work/src/build/deps"
for s in "$top"/build/deps/.*.stamp; do [ -f "$s" ] && cp -p "$s" "$work/src/build/deps/"; done
chmod -R a+rX "$work"

# private_tun CMD...: CMD in a mount namespace of its own whose /dev/net/tun
# is a node of its own, mode 0666: the network suites' relays run as an
# unprivileged account, and the machine's device (0600 on hardened hosts)
# is never changed, whatever becomes of a run (OTO_TUN_PRIVATE tells
# tests/net/topo.sh to leave it alone). Without a TUN device, CMD as it is.
private_tun() {
	if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/net/tun ]; then
		"$@"
		return
	fi
	OTO_TUN_PRIVATE=1 unshare --mount --propagation private sh -c '
		d=$1; shift
		mkdir -p "$d" && mount -t tmpfs -o mode=0755,size=16k oto-tun "$d" &&
			mknod -m 0666 "$d/tun" c 10 200 && mount --bind "$d/tun" /dev/net/tun &&
			exec "$@"' sh "$work/tundev" "$@"
}

# The unprivileged run gets a cgroup v2 subtree of its own, as systemd
# delegates one to a user's session: a directory D given to uid 65534 (D, its
# cgroup.procs, cgroup.subtree_control and cgroup.threads), the suite's
# processes in D/suite, so that D is the common ancestor of where they are and
# of the leaves otons --cgroup=D makes (the kernel's rule for moving a
# process). Its path goes to the suite as OTO_TEST_CGROUP; none (empty) where
# cgroup v2 is not mounted. Only the v2 hierarchy changes: cgroup v1's, on a
# hybrid host, stay as they are.
cgroup_delegate() { # NAME: the directory, or nothing
	m=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$m" ] && [ "$(id -u)" -eq 0 ] || return 0
	d="$m/oto-check-$$-$1"
	mkdir "$d" "$d/suite" 2>/dev/null &&
		chown 65534:65534 "$d" "$d/cgroup.procs" "$d/cgroup.subtree_control" \
			"$d/cgroup.threads" "$d/suite" "$d/suite/cgroup.procs" &&
		echo "$d"
}
cgroup_enter() { # DIR: this shell into DIR/suite
	[ -z "$1" ] || echo 0 >"$1/suite/cgroup.procs"
}
cgroup_undelegate() { # DIR: what the suite left, killed; the subtree removed
	[ -n "$1" ] && [ -d "$1" ] || return 0
	for c in "$1"/*/; do
		[ -f "$c/cgroup.kill" ] && echo 1 >"$c/cgroup.kill"
	done
	sleep 0.1
	for c in "$1"/*/; do rmdir "$c" 2>/dev/null; done
	rmdir "$1" || echo "  unable to remove the test cgroup $1" >&2
}

suite_run() { # SUITE USER|asan
	name=$(basename "$1" .sh)
	res="$work/res-$name-$2"
	: >"$res"
	chmod 0666 "$res"
	echo "== $name ($2)"
	t0=$(date +%s)
	only=${OTO_ONLY_TESTS:+-- $OTO_ONLY_TESTS}
	if [ "$2" = asan ]; then
		# The sanitizers' options are compiled in (tests/helpers/san_defaults.c).
		OTO_BIN="$work/san" OTO_RESULTS="$res" OTO_TOP="$top" OTO_SAN=1 \
			private_tun timeout 1200 sh "$work/tests/$name.sh" $only >"$work/log-$name-$2" 2>&1
	elif [ "$2" = root ]; then
		OTO_BIN="$work/bin" OTO_RESULTS="$res" OTO_TOP="$top" \
			private_tun timeout 1200 sh "$work/tests/$name.sh" $only >"$work/log-$name-$2" 2>&1
	else
		cg=$(cgroup_delegate "$name")
		(cd "$work" && cgroup_enter "$cg" && OTO_BIN="$work/bin" OTO_RESULTS="$res" \
			OTO_TOP="$work/src" HOME="$work" OTO_TEST_CGROUP="$cg" \
			timeout 1200 setpriv --reuid 65534 --regid 65534 --clear-groups \
			sh "$work/tests/$name.sh" $only) >"$work/log-$name-$2" 2>&1
	fi
	code=$?
	[ "$2" = user ] && cgroup_undelegate "$cg"
	if [ ! -s "$res" ] || [ "$code" -ne 0 ] && ! grep -q '^FAIL ' "$res"; then
		# The suite died before reporting (or exited non-zero with no failure).
		echo "FAIL $name-suite-exit-$code" >>"$res"
	fi
	if grep -q '^FAIL ' "$res"; then
		sed 's/^/    /' "$work/log-$name-$2" | tail -n 60
	fi
	count "$res"
	echo "  $(grep -c '^PASS ' "$res") passed, $(grep -c '^FAIL ' "$res") failed, $(grep -c '^SKIP ' "$res") skipped, $(($(date +%s) - t0)) s"
	# Where the suite's time went: its three slowest tests.
	slow=$(sort -k3,3nr "$res" | awk '$1 == "TIME" && n++ < 3 { printf "%s%s %.1f s", s, $2, $3 / 1000; s = ", " }')
	[ -z "$slow" ] || echo "  slowest: $slow"
}

for suite in "$top"/tests/test_*.sh; do
	[ -n "${OTO_ONLY:-}" ] && ! basename "$suite" | grep -qE "$OTO_ONLY" && continue
	users=$(sed -n "s/^# run-as: *//p" "$suite" | head -n1)
	[ -n "$users" ] || users=root
	if [ "$(id -u)" -ne 0 ]; then
		users=user-self
	fi
	for u in $users; do
		case $u in
		user-self) suite_run "$suite" root ;; # not root: run once, as ourselves
		*) suite_run "$suite" "$u" ;;
		esac
	done
done

if [ -n "${OTO_SAN_BIN:-}" ]; then
	echo "== the same suites against the ASan/UBSan build ($OTO_SAN_BIN)"
	for suite in "$top"/tests/test_*.sh; do
		[ -n "${OTO_ONLY:-}" ] && ! basename "$suite" | grep -qE "$OTO_ONLY" && continue
		grep -q '^# sanitized: no' "$suite" && continue
		suite_run "$suite" asan
	done
fi

# The tests skipped, each with its suite, its run and why: a skip is a
# promise this machine did not check.
if [ "$skip" -gt 0 ]; then
	echo "== skipped"
	for r in "$work"/res-*; do
		sed -n "s/^SKIP \([^ ]*\) *\(.*\)/  ${r##*/res-} \1: \2/p" "$r"
	done
fi
# What failed, last of all (a log shown by its head and tail alone still
# names it): the unit tests, static checks and size budgets, then each test
# with its suite, its run and its first assertions.
if [ "$fail" -gt 0 ]; then
	echo "== failed"
	cat "$work/failed" 2>/dev/null
	for r in "$work"/res-*; do
		sed -n 's/^FAIL \([^ ]*\).*/\1/p' "$r" | while read -r t; do
			echo "  ${r##*/res-} $t"
			awk -v t="$t" '$0 == t { on = 1; next } /^test_/ { on = 0 } on && /^ASSERT:/' \
				"$work/log-${r##*/res-}" | head -n 5 | cut -c1-300 | sed 's/^/    /'
		done
	done
fi
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
