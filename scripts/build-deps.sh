#!/bin/sh
# Build libseccomp, libsodium and libcap as static musl libraries from
# Debian bookworm's own source packages, into build/deps/.
#
# The machine's apt configuration and package lists are never changed: the
# source list and the lists directory are private to build/deps/apt and reach
# apt-get only through -o options. Each library is built once; a stamp file
# with the pinned version makes later runs a no-op.
#
# Usage: scripts/build-deps.sh [OUTDIR]   (default: build/deps)
set -eu

SECCOMP_VER=2.5.4-1+deb12u1
SODIUM_VER=1.0.18-1+deb12u1
CAP_VER=1:2.66-4+deb12u3

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

command -v musl-gcc >/dev/null || die "musl-gcc not found (apt-get install musl-tools)"

mkdir -p "$inc" "$lib" "$uapi"

# musl-gcc does not search the kernel's uapi headers; give it exactly those.
for d in linux asm-generic; do ln -sfn "/usr/include/$d" "$uapi/$d"; done
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ln -sfn "/usr/include/$multiarch/asm" "$uapi/asm"

CFLAGS_DEPS="-Os -fPIE -ffunction-sections -fdata-sections -fstack-protector-strong"

fetch() { # fetch PKG VERSION: unpack the source package into $src/PKG
	pkg=$1 ver=$2
	[ -d "$src/$pkg" ] && return 0
	mkdir -p "$apt/lists/partial" "$apt/sources" "$apt/archives/partial" "$src"
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
	set -- -o Dir::Etc::SourceParts="$apt/sources" -o Dir::Etc::SourceList=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache::Archives="$apt/archives" \
		-o APT::Sandbox::User=root
	if [ ! -f "$apt/updated" ]; then
		info "apt-get update (private lists in $apt/lists)"
		log=$out/apt-update.log
		apt-get -qq "$@" update >"$log" 2>&1 || die "apt-get update of the private source list failed"
		touch "$apt/updated"
	fi
	tmp="$src/.dl-$pkg"
	rm -rf "$tmp"; mkdir -p "$tmp"
	info "apt-get source $pkg=$ver"
	log=$out/fetch-$pkg.log
	(cd "$tmp" && apt-get -qq "$@" source --download-only "$pkg=$ver") >"$log" 2>&1 ||
		die "apt-get source $pkg=$ver failed"
	(cd "$tmp" && dpkg-source -q -x ./*.dsc "$src/$pkg") >>"$log" 2>&1 ||
		die "dpkg-source -x $pkg failed"
	rm -rf "$tmp"
}

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

stamp_ok() { [ -f "$out/.$1.stamp" ] && [ "$(cat "$out/.$1.stamp")" = "$2" ]; }

if ! stamp_ok seccomp "$SECCOMP_VER"; then
	command -v gperf >/dev/null || die "gperf not found (apt-get install gperf)"
	fetch libseccomp "$SECCOMP_VER"
	info "building libseccomp $SECCOMP_VER (log: $out/seccomp.log)"
	log=$out/seccomp.log
	(cd "$src/libseccomp" &&
		CC=musl-gcc CFLAGS="$CFLAGS_DEPS -isystem $uapi" ./configure -q --enable-static \
			--disable-shared --disable-python --prefix="$out" >&2 &&
		make -s -j"$jobs" -C src libseccomp.la >&2 &&
		cp src/.libs/libseccomp.a "$lib/" && cp include/seccomp.h include/seccomp-syscalls.h "$inc/") >"$log" 2>&1 ||
		die "libseccomp build failed"
	echo "$SECCOMP_VER" >"$out/.seccomp.stamp"
fi

if ! stamp_ok sodium "$SODIUM_VER"; then
	fetch libsodium "$SODIUM_VER"
	info "building libsodium $SODIUM_VER (log: $out/sodium.log)"
	log=$out/sodium.log
	(cd "$src/libsodium" &&
		{ [ -x configure ] || ./autogen.sh -s >&2; } &&
		CC=musl-gcc CFLAGS="$CFLAGS_DEPS" ./configure -q --enable-static --disable-shared \
			--disable-pie --prefix="$out" >&2 &&
		make -s -j"$jobs" -C src/libsodium >&2 &&
		cp src/libsodium/.libs/libsodium.a "$lib/" &&
		cp -r src/libsodium/include/sodium src/libsodium/include/sodium.h "$inc/") >"$log" 2>&1 ||
		die "libsodium build failed"
	echo "$SODIUM_VER" >"$out/.sodium.stamp"
fi

if ! stamp_ok cap "$CAP_VER"; then
	fetch libcap2 "$CAP_VER"
	info "building libcap $CAP_VER (log: $out/cap.log)"
	log=$out/cap.log
	(cd "$src/libcap2" &&
		make -s -C libcap CC=musl-gcc BUILD_CC=gcc GOLANG=no SHARED=no PAM_CAP=no \
			COPTS="$CFLAGS_DEPS -isystem $uapi" libcap.a >&2 &&
		cp libcap/libcap.a "$lib/" && mkdir -p "$inc/sys" &&
		cp libcap/include/sys/capability.h "$inc/sys/") >"$log" 2>&1 ||
		die "libcap build failed"
	echo "$CAP_VER" >"$out/.cap.stamp"
fi
