#!/bin/sh
# The static checks of the tree, each a section "== NAME" of PASS and FAIL
# lines and its sum; what a failure found goes to stderr. make lint runs it
# alone, tests/run.sh as part of make check. Exits 1 when anything failed.
#
#   - every shell file (by name or its #! line), by shellcheck at warning level
#   - the C sources, the tests' and fuzzers' too, by cppcheck
#   - lib/ and cmd/ by clang-tidy, the checks .clang-tidy chooses
#   - every C file of the tree as .clang-format writes it, by the pinned
#     clang-format-14 (another version formats otherwise); make format
#     (scripts/lint.sh --format) writes them so
#
# The C checks read build/deps's headers: run it after make all.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 111

# --tidy-one FILE: one file as the build compiles it (its tool's directory
# on the include path); its findings are its FAIL. xargs runs one per core.
if [ "${1:-}" = --tidy-one ]; then
	if o=$(clang-tidy-14 --quiet "$2" -- -std=c11 -D_GNU_SOURCE -Ilib -I"$(dirname "$2")" \
		-isystem build/deps/include -isystem build/deps/uapi -Ibuild/musl 2>&1); then
		echo "PASS clang-tidy-$2"
	else
		echo "FAIL clang-tidy-$2"
		echo "$o" | grep -E 'warning:|error:' | sed 's/^/    /' >&2
	fi
	exit 0
fi
c_files() { git ls-files '*.c' '*.h' | grep -v '/corpus/'; }
# --format: write every C file the check below reads, as it wants it.
if [ "${1:-}" = --format ]; then
	c_files | xargs clang-format-14 -i
	exit
fi
jobs=$(nproc 2>/dev/null || echo 1)
failed=0

section() { # NAME FILE: the section's FAIL lines and its sum
	echo "== $1"
	grep '^FAIL ' "$2" | sed 's/^/  /'
	grep -E '^(PASS|FAIL) ' "$2"
	p=$(grep -c '^PASS ' "$2") f=$(grep -c '^FAIL ' "$2")
	echo "  $p passed, $f failed"
	[ "$f" -eq 0 ] || failed=1
}
out=$(mktemp -d /tmp/oto-lint.XXXXXX) || exit 111
# The C files of the tree that are the project's (fuzzers' corpora aside).
trap 'rm -rf "$out"' EXIT INT TERM

# Style and info notes (quoting an option list split on purpose) are not the
# house style's concern: warning level.
git ls-files | while read -r f; do
	case $f in
	*.sh | .ci/run) echo "$f" ;;
	*) [ -f "$f" ] && head -c 32 "$f" | grep -qE '^#!(/bin/sh|/bin/bash|/usr/bin/env (ba)?sh)' &&
		echo "$f" ;;
	esac
done | sort -u | while read -r f; do
	if o=$(shellcheck -x -S warning -f gcc "$f" 2>&1); then
		echo "PASS shellcheck-$f"
	else
		echo "FAIL shellcheck-$f"
		echo "$o" | sed 's/^/    /' >&2
	fi
done >"$out/shellcheck"
section shellcheck "$out/shellcheck"

# cppcheck reads no system header: noreturn spelled so that it knows die()
# ends the path; va_start in die() has no va_end to reach.
if o=$(cppcheck -q --error-exitcode=1 --enable=warning,portability --std=c11 \
	-D_GNU_SOURCE '-Dnoreturn=__attribute__((noreturn))' -Ilib -Icmd --inline-suppr \
	--suppress=va_end_missing:lib/log.c --template='{file}:{line}: {id}: {message}' \
	lib cmd tests/helpers tests/unit fuzz 2>&1); then
	echo "PASS cppcheck"
else
	echo "FAIL cppcheck"
	echo "$o" | grep -v '^ \|^$' | sed 's/^/    /' >&2
fi >"$out/cppcheck"
section cppcheck "$out/cppcheck"

if command -v clang-tidy-14 >/dev/null; then
	git ls-files 'lib/*.c' 'cmd/*.c' | xargs -P "$jobs" -n 1 "$top/scripts/lint.sh" --tidy-one >"$out/tidy"
else
	echo "FAIL clang-tidy: clang-tidy-14 is not installed (scripts/install-deps.sh test)" >"$out/tidy"
fi
section clang-tidy "$out/tidy"

if command -v clang-format-14 >/dev/null; then
	c_files | while read -r f; do
		if clang-format-14 "$f" | cmp -s - "$f"; then
			echo "PASS clang-format-$f"
		else
			echo "FAIL clang-format-$f (make format)"
			clang-format-14 "$f" | diff -u "$f" - | head -n 20 | sed 's/^/    /' >&2
		fi
	done >"$out/format"
else
	echo "FAIL clang-format: clang-format-14 is not installed (scripts/install-deps.sh test)" >"$out/format"
fi
section clang-format "$out/format"
exit "$failed"
