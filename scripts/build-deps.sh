#!/bin/sh
# Build libseccomp, libsodium, libcap and OpenSSL (libssl, libcrypto) as
# static musl libraries from Debian bookworm's own source packages, into
# build/deps/. The core tools link the first three; only otogate links OpenSSL.
#
# Pins. Each library is pinned to an upstream version, not to a Debian
# revision: the archive keeps only the newest revision of a package, and a
# pinned revision would vanish the day Debian publishes the next security
# update. The build takes the newest revision of the pinned upstream that the
# bookworm suites (bookworm, -updates, -security) offer, and says which. If
# they offer none, it fails and names what they offer: building another
# upstream version is a change of the pin below, never a silent fallback.
#
# Stamps. OUTDIR/.LIB.stamp holds the Debian revision that was built (the
# tools' --version names it, see the Makefile). A stamp is current when the
# upstream part of that revision (no epoch, no Debian revision) is the pinned
# upstream: a newer revision of the same upstream, published later, does not
# rebuild a library already built (remove its stamp to take it), a changed pin
# does. A run whose stamps are all current does nothing, and needs no network.
#
# The machine's apt configuration, lists and caches are never changed: the
# source list and the lists directory are private to OUTDIR/apt and reach
# apt-get and apt-cache only through -o options.
#
# Usage: scripts/build-deps.sh [OUTDIR]   (default: build/deps)
#        scripts/build-deps.sh --resolve-only PKG UPSTREAM [OUTDIR]
#            print the revision of source package PKG the build would take for
#            the pin UPSTREAM, from OUTDIR's private lists as the last build
#            left them (no network, nothing built); exit 111 if none fits.
set -eu

SECCOMP_UPSTREAM=2.5.4
SODIUM_UPSTREAM=1.0.18
CAP_UPSTREAM=2.66
# OpenSSL's stable updates move its upstream version (3.0.x), so its pin moves
# with them. 3.0.20 is bookworm's (the point release); bookworm-security's
# 3.0.22 was listed but its files were not served (404) when this was set.
SSL_UPSTREAM=3.0.20

resolve_only=
if [ "${1:-}" = --resolve-only ]; then
	if [ $# -lt 3 ] || [ $# -gt 4 ]; then
		echo "build-deps: fatal: usage: build-deps.sh --resolve-only PKG UPSTREAM [OUTDIR]" >&2
		exit 100
	fi
	resolve_only=1 rpkg=$2 rupstream=$3
	shift 3
fi

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deps}
mkdir -p "$out"
out=$(cd "$out" && pwd)
apt="$out/apt"
src="$out/src"
inc="$out/include"
lib="$out/lib"
uapi="$out/uapi"
jobs=$(nproc 2>/dev/null || echo 2)

die() {
	# The build's own output went to a log: show its end with the error.
	[ -n "${log:-}" ] && [ -f "$log" ] && tail -n 30 "$log" >&2
	echo "build-deps: fatal: $*" >&2
	exit 111
}
info() { echo "build-deps: info: $*" >&2; }

# The archive is whatever the machine's own apt sources name (deb822 or
# one-line format); no address is written into this project.
apt_uri() { # apt_uri security|main
	uris=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -nE 's/^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+:[^[:space:]]+).*/\3/p')
	if [ "$1" = security ]; then
		m=$(echo "$uris" | grep security | head -n1)
	else
		m=$(echo "$uris" | grep -v security | head -n1)
	fi
	[ -n "$m" ] || die "no Debian $1 archive in /etc/apt/sources.list*: cannot fetch source packages"
	echo "$m"
}

# The private source list (written once: a test may bring its own), and the
# -o options that point apt-get and apt-cache at it and nowhere else. The
# binary caches are off: on a stock machine they live in /var/cache/apt.
apt_setup() {
	mkdir -p "$apt/lists/partial" "$apt/sources" "$apt/archives/partial"
	if [ ! -f "$apt/sources/bookworm-src.sources" ]; then
		cat >"$apt/sources/bookworm-src.sources" <<-SRC
		Types: deb-src
		URIs: $(apt_uri main)
		Suites: bookworm bookworm-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb-src
		URIs: $(apt_uri security)
		Suites: bookworm-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		SRC
	fi
}
apt_private() { # apt_private apt-get|apt-cache ARG...
	cmd=$1
	shift
	"$cmd" -o Dir::Etc::SourceParts="$apt/sources" -o Dir::Etc::SourceList=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Sandbox::User=root "$@"
}

# The upstream part of a Debian version: no epoch, no Debian revision.
upstream_of() { echo "$1" | sed -E 's/^[0-9]+://; s/-[^-]*$//'; }

# resolve PKG UPSTREAM: print the newest revision of upstream version UPSTREAM
# of source package PKG in the private lists' bookworm suites, or die naming
# what they offer.
resolve() {
	log=
	offers=$(apt_private apt-cache madison "$1" 2>/dev/null |
		awk -F'|' -v p="$1" '{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i) }
			$1 == p && $3 ~ / bookworm(-updates|-security)?\/[^ ]+ Sources$/ { print $2 }' |
		sort -u | tr '\n' ' ')
	best=
	for v in $offers; do
		[ "$(upstream_of "$v")" = "$2" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done
	[ -n "$best" ] ||
		die "$1: no revision of the pinned upstream $2 in bookworm; the archive offers:" \
			"$(echo "${offers:-nothing}" | sed 's/ *$//; s/ /, /g')"
	echo "$best"
}

if [ -n "$resolve_only" ]; then
	apt_setup
	resolve "$rpkg" "$rupstream"
	exit 0
fi

command -v musl-gcc >/dev/null || die "musl-gcc not found (apt-get install musl-tools)"

mkdir -p "$inc" "$lib" "$uapi"

# musl-gcc does not search the kernel's uapi headers; give it exactly those.
for d in linux asm-generic; do ln -sfn "/usr/include/$d" "$uapi/$d"; done
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ln -sfn "/usr/include/$multiarch/asm" "$uapi/asm"

CFLAGS_DEPS="-Os -fPIE -ffunction-sections -fdata-sections -fstack-protector-strong"

# The lists are brought up to date once per run that builds something: lists
# left by an earlier run may name a revision the archive no longer has.
updated=
fetch() { # fetch PKG UPSTREAM: unpack the chosen revision; its directory in $dir, it in $rev
	pkg=$1
	apt_setup
	if [ -z "$updated" ]; then
		info "apt-get update (private lists in $apt/lists)"
		log=$out/apt-update.log
		apt_private apt-get -qq update >"$log" 2>&1 ||
			die "apt-get update of the private source list failed"
		updated=1
	fi
	rev=$(resolve "$pkg" "$2")
	info "$pkg $2: using $rev (the newest bookworm revision)"
	# One directory per revision: a tree unpacked for another pin or revision
	# is never built by mistake.
	dir="$src/$pkg-${rev#*:}"
	[ -d "$dir" ] && return 0
	tmp="$src/.dl-$pkg"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log=$out/fetch-$pkg.log
	(cd "$tmp" && apt_private apt-get -qq source --download-only "$pkg=$rev") >"$log" 2>&1 ||
		die "apt-get source $pkg=$rev failed"
	# Unpacked aside, then moved: an interrupted run leaves no half tree.
	(cd "$tmp" && dpkg-source -q -x ./*.dsc tree && mv tree "$dir") >>"$log" 2>&1 ||
		die "dpkg-source -x $pkg failed"
	rm -rf "$tmp"
}

stamp_ok() { # stamp_ok LIB UPSTREAM: built from a revision of that upstream
	[ -f "$out/.$1.stamp" ] && [ "$(upstream_of "$(cat "$out/.$1.stamp")")" = "$2" ]
}

if ! stamp_ok seccomp "$SECCOMP_UPSTREAM"; then
	command -v gperf >/dev/null || die "gperf not found (apt-get install gperf)"
	fetch libseccomp "$SECCOMP_UPSTREAM"
	info "building libseccomp $rev (log: $out/seccomp.log)"
	log=$out/seccomp.log
	(cd "$dir" &&
		CC=musl-gcc CFLAGS="$CFLAGS_DEPS -isystem $uapi" ./configure -q --enable-static \
			--disable-shared --disable-python --prefix="$out" >&2 &&
		make -s -j"$jobs" -C src libseccomp.la >&2 &&
		cp src/.libs/libseccomp.a "$lib/" && cp include/seccomp.h include/seccomp-syscalls.h "$inc/") >"$log" 2>&1 ||
		die "libseccomp build failed"
	echo "$rev" >"$out/.seccomp.stamp"
fi

if ! stamp_ok sodium "$SODIUM_UPSTREAM"; then
	fetch libsodium "$SODIUM_UPSTREAM"
	info "building libsodium $rev (log: $out/sodium.log)"
	log=$out/sodium.log
	(cd "$dir" &&
		{ [ -x configure ] || ./autogen.sh -s >&2; } &&
		CC=musl-gcc CFLAGS="$CFLAGS_DEPS" ./configure -q --enable-static --disable-shared \
			--disable-pie --prefix="$out" >&2 &&
		make -s -j"$jobs" -C src/libsodium >&2 &&
		cp src/libsodium/.libs/libsodium.a "$lib/" &&
		cp -r src/libsodium/include/sodium src/libsodium/include/sodium.h "$inc/") >"$log" 2>&1 ||
		die "libsodium build failed"
	echo "$rev" >"$out/.sodium.stamp"
fi

if ! stamp_ok cap "$CAP_UPSTREAM"; then
	fetch libcap2 "$CAP_UPSTREAM"
	info "building libcap $rev (log: $out/cap.log)"
	log=$out/cap.log
	(cd "$dir" &&
		make -s -C libcap CC=musl-gcc BUILD_CC=gcc GOLANG=no SHARED=no PAM_CAP=no \
			COPTS="$CFLAGS_DEPS -isystem $uapi" libcap.a >&2 &&
		cp libcap/libcap.a "$lib/" && mkdir -p "$inc/sys" &&
		cp libcap/include/sys/capability.h "$inc/sys/") >"$log" 2>&1 ||
		die "libcap build failed"
	echo "$rev" >"$out/.cap.stamp"
fi

# OpenSSL: the libraries only (no command, no tests, no manuals), without what
# a TLS client with a fixed CA bundle never needs: no shared objects or
# loadable modules (no-dso: nothing is loaded at run time), no engines, no
# legacy provider, no compression (CRIME), no SSLv3, DTLS, SRP, SCTP or SRTP,
# no async jobs, and no openssl.cnf read behind the caller's back
# (no-autoload-config: the host's configuration cannot change the gateway's
# TLS). OPENSSLDIR is Debian's, so the default verify paths are the host's CA
# bundle (/usr/lib/ssl/certs -> /etc/ssl/certs). The assembler stays: AES-GCM
# and ChaCha20 at full speed.
if ! stamp_ok ssl "$SSL_UPSTREAM"; then
	command -v perl >/dev/null || die "perl not found (apt-get install perl)"
	fetch openssl "$SSL_UPSTREAM"
	info "building openssl $rev (log: $out/ssl.log)"
	log=$out/ssl.log
	(cd "$dir" &&
		CC=musl-gcc CFLAGS="$CFLAGS_DEPS -isystem $uapi" ./Configure linux-x86_64 \
			no-shared no-dso no-engine no-tests no-legacy no-comp no-ssl3 no-dtls \
			no-srp no-sctp no-srtp no-async no-autoload-config no-ui-console \
			--prefix="$out" --libdir=lib --openssldir=/usr/lib/ssl >&2 &&
		make -s -j"$jobs" build_libs >&2 &&
		cp libssl.a libcrypto.a "$lib/" && rm -rf "$inc/openssl" &&
		cp -r include/openssl "$inc/") >"$log" 2>&1 ||
		die "openssl build failed"
	echo "$rev" >"$out/.ssl.stamp"
fi
