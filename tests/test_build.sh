#!/bin/sh
# The build: which Debian revision scripts/build-deps.sh takes of each pinned
# upstream version, what its stamps keep, and what --version says was built.
#
# No network: the package lists are made here by hand, and the one archive a
# run updates from is a local file: archive under $T. The machine's own apt
# lists and caches are checked unchanged.
#
# OTO_DEPS: the build/deps the binaries under test were linked with
# (default: the checkout's build/deps).
# run-as: root user
. "$(dirname "$0")/common.sh"

TOP=${OTO_TOP:-$OTO_TESTS/..}
DEPS=${OTO_DEPS:-$TOP/build/deps}
BUILD_DEPS=$TOP/scripts/build-deps.sh
VERSION=$(sed -n 's/^OTO_VERSION *:= *//p' "$TOP/Makefile")

# stanza PKG VERSION: one source package's record in a Sources index.
stanza() {
	printf 'Package: %s\nBinary: %s\nVersion: %s\nMaintainer: nobody <nobody@invalid>\n' "$1" "$1" "$2"
	printf 'Architecture: any\nFormat: 3.0 (quilt)\nDirectory: pool/main/%s\n' "$1"
	printf 'Checksums-Sha256:\n %s 1 %s_%s.dsc\n\n' \
		0000000000000000000000000000000000000000000000000000000000000000 "$1" "${2#*:}"
}

# sources SUITE...: the private source list of $T/deps, naming the local
# archive $T/archive (file:, nothing leaves the machine) with these suites.
sources() {
	mkdir -p "$T/deps/apt/sources" "$T/deps/apt/lists"
	printf 'Types: deb-src\nURIs: file:%s\nSuites: %s\nComponents: main\nTrusted: yes\n' \
		"$T/archive" "$*" >"$T/deps/apt/sources/bookworm-src.sources"
}

# list SUITE PKG=VERSION...: a hand-made Sources file in the private lists,
# under the name apt-cache looks for (the URI with / as _, then the index).
list() {
	f="$T/deps/apt/lists/$(echo "$T/archive" | tr / _)_dists_$1_main_source_Sources"
	shift
	: >"$f"
	for pv in "$@"; do stanza "${pv%%=*}" "${pv#*=}" >>"$f"; done
}

# archive SUITE PKG=VERSION...: the same index in the local archive itself,
# with the Release file apt-get update reads (trusted: no signature).
archive() {
	d="$T/archive/dists/$1"
	shift
	mkdir -p "$d/main/source"
	: >"$d/main/source/Sources"
	for pv in "$@"; do stanza "${pv%%=*}" "${pv#*=}" >>"$d/main/source/Sources"; done
	printf 'Suite: %s\nCodename: %s\nDate: Sat, 01 Jan 2000 00:00:00 UTC\nComponents: main\nSHA256:\n %s %s main/source/Sources\n' \
		"$(basename "$d")" "$(basename "$d")" "$(sha256sum <"$d/main/source/Sources" | cut -d' ' -f1)" \
		"$(stat -c %s "$d/main/source/Sources")" >"$d/Release"
}

# The machine's apt state: its lists and caches, names, sizes and times.
apt_state() {
	find /var/lib/apt /var/cache/apt -maxdepth 2 -printf '%p %s %T@\n' 2>/dev/null | sort
}

suite_setUp() { apt_state >"$T/apt-state"; }

suite_tearDown() {
	[ -f "$T/apt-state" ] || return 0
	assertEquals "the machine's apt state is unchanged" "$(cat "$T/apt-state")" "$(apt_state)"
}

# The revision the stamps' rule wants is gone (only a newer one of the same
# upstream is offered): the newest revision of the pinned upstream is taken,
# in the bookworm suites only, compared as Debian versions, not as text.
test_resolve_takes_the_newest_revision_of_the_pinned_upstream() {
	sources bookworm bookworm-security trixie
	list bookworm libcap2=1:2.66-4+deb12u4 libcap2=1:2.67-1 libcap2-extra=1:2.66-4+deb12u99 \
		libseccomp=2.5.4-1+deb12u2 libseccomp=2.5.40-1
	list bookworm-security libcap2=1:2.66-4+deb12u9 libcap2=1:2.66-4+deb12u10 \
		libseccomp=2.5.4-1+deb12u1
	list trixie libcap2=1:2.66-9 libseccomp=2.5.4-9
	run "$BUILD_DEPS" --resolve-only libcap2 2.66 "$T/deps"
	assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
	assertEquals "1:2.66-4+deb12u10" "$(cat "$T/out")"
	assertEquals "" "$(cat "$T/err")"
	# No epoch, and 2.5.40 is not 2.5.4.
	run "$BUILD_DEPS" --resolve-only libseccomp 2.5.4 "$T/deps"
	assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
	assertEquals "2.5.4-1+deb12u2" "$(cat "$T/out")"
}

# Only other upstream versions are offered: no silent fallback to one of
# them, one line that names the package, the pin and what is offered.
test_resolve_fails_naming_what_the_archive_offers() {
	sources bookworm bookworm-security
	list bookworm libcap2=1:2.67-1
	list bookworm-security libcap2=1:2.70-1
	run "$BUILD_DEPS" --resolve-only libcap2 2.66 "$T/deps"
	assertEquals 111 "$rc"
	assertEquals "" "$(cat "$T/out")"
	assertEquals "build-deps: fatal: libcap2: no revision of the pinned upstream 2.66 in bookworm; the archive offers: 1:2.67-1, 1:2.70-1" \
		"$(cat "$T/err")"
	run "$BUILD_DEPS" --resolve-only libsodium 1.0.18 "$T/deps"
	assertEquals 111 "$rc"
	assertEquals "build-deps: fatal: libsodium: no revision of the pinned upstream 1.0.18 in bookworm; the archive offers: nothing" \
		"$(cat "$T/err")"
}

# A stamp of an older revision of the pinned upstream is current: nothing is
# rebuilt, even with a newer revision on offer. A stamp of another upstream
# is not: the lists are updated (from the local archive here), the newest
# revision of the pin is chosen and said, and only fetching it fails.
test_stamps_keep_a_revision_of_the_pin_and_rebuild_another_upstream() {
	sources bookworm bookworm-security
	archive bookworm libcap2=1:2.66-4+deb12u3 libcap2=1:2.67-1 libseccomp=2.5.4-1+deb12u1 \
		libsodium=1.0.18-1+deb12u1
	archive bookworm-security libcap2=1:2.66-4+deb12u10 libseccomp=2.5.4-1+deb12u9 \
		libsodium=1.0.18-1+deb12u9
	echo 2.5.4-1 >"$T/deps/.seccomp.stamp"
	echo 1.0.18-1+deb12u1 >"$T/deps/.sodium.stamp"
	echo 1:2.65-1 >"$T/deps/.cap.stamp"
	run "$BUILD_DEPS" "$T/deps"
	assertEquals "stderr: $(cat "$T/err")" 111 "$rc"
	assertEquals "build-deps: info: libcap2 2.66: using 1:2.66-4+deb12u10 (the newest bookworm revision)" \
		"$(grep ': using ' "$T/err")"
	assertEquals "build-deps: fatal: apt-get source libcap2=1:2.66-4+deb12u10 failed" "$(tail -n 1 "$T/err")"
	assertEquals "2.5.4-1 1.0.18-1+deb12u1 1:2.65-1" \
		"$(cat "$T/deps/.seccomp.stamp" "$T/deps/.sodium.stamp" "$T/deps/.cap.stamp" | tr '\n' ' ' | sed 's/ $//')"

	# Every stamp current: nothing to do, and no apt at all (no network; the
	# source list is the local archive's, should that ever change).
	mkdir -p "$T/deps2/apt"
	cp -R "$T/deps/apt/sources" "$T/deps2/apt/"
	echo 2.5.4-1 >"$T/deps2/.seccomp.stamp"
	echo 1.0.18-1+deb12u1 >"$T/deps2/.sodium.stamp"
	echo 1:2.66-4+deb12u3 >"$T/deps2/.cap.stamp"
	echo 3.0.20-1~deb12u2 >"$T/deps2/.ssl.stamp"
	run "$BUILD_DEPS" "$T/deps2"
	assertEquals "stderr: $(cat "$T/err")" 0 "$rc"
	assertEquals "" "$(cat "$T/err")"
	assertFalse "no private lists" "[ -e '$T/deps2/apt/lists' ]"
}

# --version: oto's one version (the Makefile's), and the Debian revision of
# each library the binary links: for a musl build those build-deps.sh
# recorded in its stamps, for a glibc build those of the -dev packages.
test_version_names_the_revisions_built() {
	assertTrue "OTO_VERSION in the Makefile: '$VERSION'" \
		"echo '$VERSION' | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$'"
	if otoexec --version | grep -q -- '-dev '; then
		for l in seccomp:libseccomp sodium:libsodium cap:libcap ssl:libssl; do
			# shellcheck disable=SC2034 # read by the eval
			v=$(dpkg-query -W -f '${Version}' "${l#*:}-dev" 2>/dev/null) || v=system
			eval "${l%%:*}=\"${l#*:}-dev \$v\""
		done
	else
		for l in seccomp:libseccomp sodium:libsodium cap:libcap ssl:openssl; do
			assertTrue "stamp $DEPS/.${l%%:*}.stamp" "[ -s '$DEPS/.${l%%:*}.stamp' ]"
			eval "${l%%:*}=\"${l#*:} \$(cat '$DEPS/.${l%%:*}.stamp')\""
		done
	fi
	# No core tool names OpenSSL: only otogate may link it (lib/version.c).
	# shellcheck disable=SC2154 # set by the eval above
	for want in "otoexec $VERSION ($seccomp, $cap)" "otonet $VERSION ($seccomp, $cap)" \
		"otons $VERSION ($seccomp, $cap)" "otosecret $VERSION ($sodium)" "otomount $VERSION" \
		"otoprobe $VERSION" "otorun $VERSION" "otoconnect $VERSION" "otolog $VERSION" \
		"otogate $VERSION ($seccomp, $sodium, $cap, $ssl)"; do
		run "${want%% *}" --version
		assertEquals "$want: exit" 0 "$rc"
		assertEquals "$want" "$(cat "$T/out")"
	done
}

# The manual pages name the same version, in their .TH line: each tool's,
# and oto(7), the whole chain's.
test_man_pages_name_the_version() {
	assertEquals "oto.7" "oto $VERSION" \
		"$(sed -n 's/^\.TH .*"oto \([0-9][^"]*\)".*/oto \1/p' "$TOP/man/oto.7")"
	n=0
	for m in "$TOP"/man/*.1; do
		assertEquals "$(basename "$m")" "oto $VERSION" \
			"$(sed -n 's/^\.TH .*"oto \([0-9][^"]*\)".*/oto \1/p' "$m")"
		n=$((n + 1))
	done
	# One page per tool (otorun is one of them, cmd/otorun).
	assertEquals "manual pages" "$(find "$TOP/cmd" -mindepth 1 -maxdepth 1 -type d | wc -l)" "$n"
}

. shunit2
