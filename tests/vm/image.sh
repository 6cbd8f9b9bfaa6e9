#!/bin/sh
# image.sh DIR: what tests/test_otons_vm.sh boots, made once and kept in DIR
# (the suite gives build/vm): DIR/vmlinuz, Debian's kernel (the package
# linux-image-amd64 depends on, fetched with apt-get download, its vmlinuz
# taken out with dpkg-deb), and DIR/root.cpio, a debootstrap --variant=minbase
# bookworm root with what the tests need (python3, shunit2, procps; their C
# helpers come built: tests/test_otons_vm.sh), without documentation or apt's caches, as an
# uncompressed initramfs (the VM's kernel unpacks it faster than it would
# decompress it). Both come from Debian's archive as this machine's apt
# sources name it. Each is made only when missing, or when what it is made of
# changed (DIR/*.stamp: the kernel's package, the root's recipe). Run as
# root; progress on stderr; exit 0, or 111 with the step that failed.
set -eu
prog=image.sh
dir=${1:?usage: image.sh DIR}
die() {
	echo "$prog: fatal: $*" >&2
	exit 111
}
info() { echo "$prog: info: $*" >&2; }
mkdir -p "$dir"
log=$dir/image.log
INCLUDE=python3,shunit2,procps
SUITE=bookworm

# The main archive, as scripts/fresh-check.sh finds it: the first URI naming
# debian that is not the security one.
apt_uri() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -nE 's/^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+:[^[:space:]]+).*/\3/p' |
		grep -v security | grep debian | head -n1
}

# ---- the kernel -------------------------------------------------------------
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
if [ -z "$pkg" ]; then
	# A fresh machine's package lists may be empty.
	apt-get update -qq >"$log" 2>&1 || true
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n1)
fi
if [ -z "$pkg" ] && [ -s "$dir/vmlinuz" ]; then
	pkg=$(cat "$dir/vmlinuz.stamp")
fi
[ -n "$pkg" ] || die "no kernel package: apt-cache depends linux-image-amd64 names none"
if [ ! -s "$dir/vmlinuz" ] || [ "$(cat "$dir/vmlinuz.stamp" 2>/dev/null)" != "$pkg" ]; then
	info "apt-get download $pkg"
	t=$(mktemp -d "$dir/kernel.XXXXXX")
	(cd "$t" && apt-get download "$pkg") >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; rm -rf "$t"; die "apt-get download $pkg failed"; }
	dpkg-deb --fsys-tarfile "$t"/*.deb | tar -C "$t" -x --wildcards './boot/vmlinuz-*' ||
		{ rm -rf "$t"; die "no vmlinuz in $pkg"; }
	mv "$t"/boot/vmlinuz-* "$dir/vmlinuz"
	echo "$pkg" >"$dir/vmlinuz.stamp"
	rm -rf "$t"
fi

# ---- the root -----------------------------------------------------------------
recipe="$SUITE minbase $INCLUDE"
if [ ! -s "$dir/root.cpio" ] || [ "$(cat "$dir/root.stamp" 2>/dev/null)" != "$recipe" ]; then
	uri=$(apt_uri)
	[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list*"
	command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh test)"
	info "debootstrap $SUITE (minbase, $INCLUDE)"
	rm -rf "$dir/root"
	# A mount namespace of its own: what debootstrap mounts in the tree
	# cannot outlive it, even when it fails half-way.
	unshare --mount debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" \
		"$dir/root" "$uri" </dev/null >"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "debootstrap failed"; }
	rm -rf "$dir"/root/usr/share/doc/* "$dir"/root/usr/share/man/* \
		"$dir"/root/usr/share/locale/* "$dir"/root/usr/share/info/* \
		"$dir"/root/var/cache/apt/* "$dir"/root/var/lib/apt/lists/*
	(cd "$dir/root" && find . -xdev | LC_ALL=C sort | cpio --quiet -o -H newc) \
		>"$dir/root.cpio.new" || die "cpio of the root failed"
	mv "$dir/root.cpio.new" "$dir/root.cpio"
	echo "$recipe" >"$dir/root.stamp"
	rm -rf "$dir/root"
fi
rm -f "$log"
