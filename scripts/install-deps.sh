#!/bin/sh
# Install what oto needs for a purpose, when it is missing. An entry PKG:CMD
# is satisfied by the command CMD on PATH as well (node may come from elsewhere).
# Run as root, it uses apt-get; otherwise it prints exactly what to install.
#   scripts/install-deps.sh build|test|bench|fuzz
set -eu

build="musl-tools gcc make gperf autoconf automake libtool perl dpkg-dev debian-archive-keyring
libseccomp-dev libsodium-dev libcap-dev libssl-dev file"
test="$build clang:clang libclang-rt-14-dev libcmocka-dev shunit2 groff-base:groff iproute2 util-linux
python3:python3 socat dnsmasq-base procps git openssl bash make gzip tar coreutils findutils binutils
nodejs:node iperf3 curl strace gdb linux-perf shellcheck cppcheck clang-tidy-14 clang-format-14
npm:npm zstd python3-venv python3-wheel python3-pytest chromium fonts-dejavu-core
qemu-system-x86 debootstrap cpio openssh-client libwrap0 libgssapi-krb5-2"
bench="$test bubblewrap hyperfine iperf3 slirp4netns passt"
fuzz="$build clang:clang libclang-rt-14-dev"

case "${1:-}" in
build) want=$build ;;
test) want=$test ;;
bench) want=$bench ;;
fuzz) want=$fuzz ;;
*) echo "usage: install-deps.sh build|test|bench|fuzz" >&2; exit 100 ;;
esac

# sshd for tests/test_ssh.sh, unpacked from its package into build/deps
# (apt-get download: no root needed), never installed: installing
# openssh-server would start and enable the host's own sshd. Its libraries
# are in the test list.
unpack_sshd() {
	[ "$1" = test ] || return 0
	d=$(cd "$(dirname "$0")/.." && pwd)/build/deps/openssh
	[ -x "$d/usr/sbin/sshd" ] && return 0
	t=$(mktemp -d)
	if (cd "$t" && apt-get download -qq openssh-server >/dev/null 2>&1) &&
		mkdir -p "$d" && dpkg-deb -x "$t"/openssh-server_*.deb "$d"; then
		rm -rf "$t"
		return 0
	fi
	rm -rf "$t"
	echo "install-deps: warning: unable to unpack sshd into $d (apt-get download openssh-server): tests/test_ssh.sh will skip" >&2
}

missing=
for entry in $want; do
	p=${entry%%:*} cmd=${entry#*:}
	[ "$cmd" != "$entry" ] && command -v "$cmd" >/dev/null 2>&1 && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	unpack_sshd "$1"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: fatal: missing packages; as root run: apt-get install$missing" >&2
	exit 111
fi
echo "install-deps: info: apt-get install$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# An update first: a fresh machine's package lists may be empty or stale.
apt-get update -qq >&2 || true
# shellcheck disable=SC2086
log=$(mktemp)
if ! apt-get install -y -qq --no-install-recommends $missing >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	rm -f "$log"
	echo "install-deps: fatal: apt-get install$missing failed" >&2
	exit 111
fi
rm -f "$log"
unpack_sshd "$1"
