#!/bin/sh
# fresh-check: the README's two commands, `make run` then `make check`, on a
# Debian bookworm machine that never saw oto, as root.
#
# A minimal bookworm root (debootstrap --variant=minbase, plus git, make and
# ca-certificates) is built in a fresh folder from Debian's archive as this
# machine's own apt sources name it, and given the apt sources a stock
# bookworm image has (main: bookworm, bookworm-updates; bookworm-security).
# Nothing of this machine's packages or build results is copied in: whatever
# `make` needs, it has to install itself, from the archive. What is copied is
# the network's: the machine's own trust anchors, /usr/local/share/ca-certificates.
#
# The repository is cloned into the root at its HEAD commit: uncommitted
# changes are deliberately not included (commit them to have them checked).
#
# The two commands run with stdin from /dev/null and CI=true in a clean
# environment, in a private mount and pid namespace after pivot_root into the
# root (not chroot: the kernel refuses new user namespaces to a chrooted
# process, and the tests make many). The root is an overlay (the debootstrap
# tree below, the run's changes above), so that, as on a machine or in a
# container, / is the root of its own filesystem: a bind mount of the root's
# /usr shows /usr in mountinfo, not this machine's path to it. It gets a new
# /proc, this machine's /sys (rw, for ip netns), a fresh tmpfs on /run and a
# fresh /dev (tmpfs) with the device nodes the tests use at stock Debian's
# modes (/dev/net/tun 0666), so the tests' chmods never touch this machine's
# nodes. The network is this machine's. When the run ends, for any reason,
# every process in the pid namespace is killed, the namespace's mounts and
# network namespaces go with it, and the folder is removed (unless --keep).
#
# Progress and all of make's output go to stderr; the last line on stdout is
# the inner `make check`'s own last line ("N passed, N failed[, N skipped]";
# make's last line when no test ran). Exit status: make check's; non-zero also
# when `make run` failed; 100 bad usage, 111 the harness itself failed.
#
# Usage: scripts/fresh-check.sh [--keep] [DIR]   (as root; DIR: a new folder)
# OTO_FRESH_AUDIT=keep: the kernel's audit is not switched on (see step 4).
set -eu

prog=fresh-check
usage() {
	cat <<-EOF
	usage: $0 [--keep] [DIR]

	Builds a minimal Debian bookworm root (debootstrap) in DIR (default: a new
	folder under /tmp; DIR must not exist or be empty), clones this repository
	into it at its HEAD commit (uncommitted changes are not included), and runs
	the README's two commands there, 'make run' then 'make check', inside a
	private mount and pid namespace (pivot_root). Run as root.

	  --keep   keep DIR afterwards (default: removed): DIR/base is the
	           debootstrap tree with the clone, DIR/upper what the run changed
	  --help   this text

	Progress and make's output go to stderr; the last line on stdout is make
	check's own last line. Exit status: make check's, non-zero also when make
	run failed; 100 bad usage; 111 the harness failed (debootstrap, clone...).
	EOF
}

armed=''
die() {
	# Clean up first, so that the reason is the last line of all.
	[ -z "$armed" ] || cleanup
	echo "$prog: fatal: $*" >&2
	exit 111
}
info() { echo "$prog: info: $*" >&2; }

keep='' dir=''
while [ $# -gt 0 ]; do
	case $1 in
	--help | -h) usage; exit 0 ;;
	--keep) keep=1 ;;
	--) shift; break ;;
	-*) echo "$prog: fatal: unknown option $1" >&2; usage >&2; exit 100 ;;
	*) break ;;
	esac
	shift
done
if [ $# -gt 1 ]; then
	usage >&2
	exit 100
fi
dir=${1:-}

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, namespaces, mounts)"
top=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$top" rev-parse --verify -q HEAD) || die "$top is not a git checkout with a commit"

# The archive is whatever the machine's own apt sources name (deb822 or
# one-line format), as in scripts/build-deps.sh: no address in the project.
# The main archive is the first URI naming debian that is not the security
# one, so that a third-party repository listed first is never taken for it.
apt_uri() { # apt_uri security|main
	uris=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -nE 's/^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+:[^[:space:]]+).*/\3/p')
	if [ "$1" = security ]; then
		m=$(echo "$uris" | grep security | head -n1)
	else
		m=$(echo "$uris" | grep -v security | grep debian | head -n1)
	fi
	[ -n "$m" ] || die "no Debian $1 archive in /etc/apt/sources.list*"
	echo "$m"
}
main_uri=$(apt_uri main)
security_uri=$(apt_uri security)

if [ -n "$dir" ]; then
	case $dir in
	/*) ;;
	*) dir=$PWD/$dir ;;
	esac
	case $dir in
	*[[:space:]]*) echo "$prog: fatal: DIR must not contain white space" >&2; exit 100 ;;
	esac
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
		echo "$prog: fatal: $dir exists and is not empty" >&2
		exit 100
	fi
	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd -P)
else
	dir=$(mktemp -d /tmp/oto-fresh.XXXXXX) || die "mktemp failed"
fi
chmod 0755 "$dir"
# base: debootstrap's tree and the clone; upper, work: the overlay's; root:
# where the overlay is mounted, in the run's mount namespace only.
base=$dir/base upper=$dir/upper
mkdir -p "$base" "$upper" "$dir/work" "$dir/root"

log=$(mktemp /tmp/oto-fresh-log.XXXXXX) || die "mktemp failed"
inner='' audit_set='' audit_on=''
t_start=$(date +%s)

# shellcheck disable=SC2317 # called from cleanup, which a trap calls
mounted_under() { # any mount of this mount namespace at or below $dir?
	awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' \
		/proc/self/mountinfo
}

# shellcheck disable=SC2317 # called by the traps
cleanup() {
	trap - EXIT INT TERM HUP
	armed=''
	# unshare ignores SIGTERM and SIGINT while it waits for its child, hence
	# SIGKILL; with --kill-child its end kills pid 1 of the pid namespace,
	# and so everything in it.
	if [ -n "$inner" ] && kill -0 "$inner" 2>/dev/null; then
		info "stopping the run in the root"
		kill -KILL "$inner" 2>/dev/null || true
		wait "$inner" 2>/dev/null || true
	fi
	rm -f "$log"
	if [ -n "$audit_set" ]; then
		perl "$top/tests/helpers/audit.pl" set 0 ||
			echo "$prog: error: the kernel's audit could not be set back to off" >&2
		audit_set=''
	fi
	if [ -n "$keep" ]; then
		info "kept $dir (base: debootstrap and the clone; upper: what the run changed)"
	elif mounted_under; then
		# Only the private namespaces ever mount there; never delete through a mount.
		echo "$prog: error: something is mounted under $dir: not removing it" >&2
	else
		t=$(date +%s)
		rm -rf --one-file-system "$dir"
		info "removed $dir ($(($(date +%s) - t)) s)"
	fi
}
trap cleanup EXIT
armed=1
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

phase_t=$t_start
phase_done() { # NAME: print the time since the previous phase ended
	now=$(date +%s)
	info "$1 took $((now - phase_t)) s"
	phase_t=$now
}

# ---- 1. the tools of this harness ------------------------------------------
for c in unshare pivot_root mount mknod git; do
	command -v "$c" >/dev/null || die "$c not found"
done
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
	die "the kernel has no overlay filesystem"
if ! command -v debootstrap >/dev/null; then
	info "apt-get install debootstrap"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends debootstrap >"$log" 2>&1 ||
		{ apt-get update -qq >>"$log" 2>&1 &&
			apt-get install -y -qq --no-install-recommends debootstrap >>"$log" 2>&1; } ||
		{ tail -n 20 "$log" >&2; die "apt-get install debootstrap failed"; }
fi

# ---- 2. the root ----------------------------------------------------------
info "debootstrap bookworm (minbase, git, make, ca-certificates) into $base"
# In a mount namespace of its own: what debootstrap mounts in the tree (proc,
# sys) cannot outlive it, even when it fails half-way.
if ! unshare --mount debootstrap --variant=minbase --include=git,make,ca-certificates \
	bookworm "$base" "$main_uri" </dev/null >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "debootstrap failed"
fi
phase_done debootstrap

# A stock bookworm image's sources: deb822, main, updates, security.
rm -f "$base/etc/apt/sources.list"
cat >"$base/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $main_uri
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_uri
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# The machine's own trust anchors (/usr/local/share/ca-certificates: a
# private or TLS-inspecting CA of the network this machine is on), which a
# machine installed on the same network would trust too: without them,
# nothing in the root reaches a registry through such a network (npm).
# Debian's own trust store is the package's, untouched.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
	mkdir -p "$base/usr/local/share/ca-certificates"
	cp /usr/local/share/ca-certificates/*.crt "$base/usr/local/share/ca-certificates/"
	chroot "$base" update-ca-certificates >"$log" 2>&1 ||
		{ cat "$log" >&2; die "update-ca-certificates failed in the root"; }
	info "the machine's trust anchors: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi
# What an installed machine has and minbase does not write.
[ -s "$base/etc/hosts" ] || printf '%s\n' '127.0.0.1	localhost' \
	'::1		localhost ip6-localhost ip6-loopback' >"$base/etc/hosts"

# ---- 3. the repository, at HEAD --------------------------------------------
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	info "uncommitted changes in $top are not part of this check (HEAD only)"
fi
info "git clone $top at $sha"
if ! { git clone -q --no-hardlinks --no-checkout "$top" "$base/root/oto" &&
	git -C "$base/root/oto" checkout -q --detach "$sha"; } >"$log" 2>&1; then
	cat "$log" >&2
	die "git clone failed"
fi
phase_done "sources and clone"

# ---- 4. make run, make check, in the root ---------------------------------
# The tests of Landlock's lines in the refusal log need the kernel's audit on,
# and cannot switch it from inside the root's pid namespace (the audit
# answers the initial one only): it is switched on here for the run, when it
# was off, and back off at the end (OTO_TEST_AUDIT tells the tests). The
# kernel then audits every process started until reboot, at a small cost per
# system call, even once the audit is off again: this harness is for CI's
# machines and ones like them. OTO_FRESH_AUDIT=keep leaves it as it is (a
# developer's machine: the audit's tests then skip when it is off).
case $(perl "$top/tests/helpers/audit.pl" get 2>/dev/null) in
1) audit_on=1 ;;
0)
	if [ "${OTO_FRESH_AUDIT:-}" = keep ]; then
		info "the kernel's audit is off and stays off (OTO_FRESH_AUDIT=keep): its tests skip"
	elif perl "$top/tests/helpers/audit.pl" set 1; then
		audit_set=1 audit_on=1
		info "the kernel's audit is on for the run (off again at the end)"
	fi
	;;
esac

# Run by pid 1 of the new pid namespace, still seeing this machine's tree:
# mount the root and what it needs, pivot_root into it, drop the old root,
# and run the two commands with a clean environment. Its one addition is
# NODE_EXTRA_CA_CERTS, as this machine's environment has it: Node trusts
# only the roots compiled into it, and npm would not see the anchors above.
# shellcheck disable=SC2016 # expanded by the inner shells
setup='set -eu
d=$1 r=$1/root
mount -t overlay -o "lowerdir=$d/base,upperdir=$d/upper,workdir=$d/work" overlay "$r"
mount -t proc -o nosuid,nodev,noexec proc "$r/proc"
mount --rbind /sys "$r/sys"
mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs "$r/run"
mkdir -m 1777 "$r/run/lock"
mount -t tmpfs -o nosuid,mode=0755,size=64k tmpfs "$r/dev"
mkdir -m 0755 "$r/dev/net" "$r/dev/pts" "$r/dev/shm"
dev() { mknod -m 0666 "$r/dev/$1" c "$2" "$3"; }
dev null 1 3; dev zero 1 5; dev full 1 7; dev random 1 8; dev urandom 1 9
dev tty 5 0; dev net/tun 10 200
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec devpts "$r/dev/pts"
ln -s pts/ptmx "$r/dev/ptmx"
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$r/dev/shm"
ln -s /proc/self/fd "$r/dev/fd"
ln -s /proc/self/fd/0 "$r/dev/stdin"
ln -s /proc/self/fd/1 "$r/dev/stdout"
ln -s /proc/self/fd/2 "$r/dev/stderr"
cd "$r"
pivot_root . .
umount -l .
cd /
exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root CI=true OTO_TEST_AUDIT="$3" \
	NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt sh -c "$2"'
# shellcheck disable=SC2016
run='cd /root/oto || exit 111
t=$(date +%s)
echo "fresh-check: info: make run" >&2
make run </dev/null >&2
rc=$?
echo "run $rc $(($(date +%s) - t))" >/root/fresh-check.result
t=$(date +%s)
echo "fresh-check: info: make check" >&2
{ make check </dev/null 2>&1; rc=$?
	echo "check $rc $(($(date +%s) - t))" >>/root/fresh-check.result; } |
	tee /root/fresh-check.log >&2'

unshare --mount --pid --fork --kill-child sh -c "$setup" sh "$dir" "$run" "$audit_on" </dev/null >&2 &
inner=$!
set +e
wait "$inner"
code=$?
set -e
inner=''

# What the run wrote is in the overlay's upper layer.
res=$upper/root/fresh-check.result
run_rc=$(sed -n 's/^run \([0-9]*\) .*/\1/p' "$res" 2>/dev/null)
run_s=$(sed -n 's/^run [0-9]* \([0-9]*\)$/\1/p' "$res" 2>/dev/null)
check_rc=$(sed -n 's/^check \([0-9]*\) .*/\1/p' "$res" 2>/dev/null)
check_s=$(sed -n 's/^check [0-9]* \([0-9]*\)$/\1/p' "$res" 2>/dev/null)
[ -n "$run_rc" ] || die "the run in the root ended before make run did (exit $code)"
info "make run took $run_s s (exit $run_rc)"
[ -n "$check_rc" ] || die "the run in the root ended before make check did (exit $code)"
info "make check took $check_s s (exit $check_rc)"
info "total $(($(date +%s) - t_start)) s"
# The tests' summary line; make's own last line when the tests never ran.
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$upper/root/fresh-check.log" | tail -n 1)
[ -n "$last" ] || last=$(tail -n 1 "$upper/root/fresh-check.log")
if [ "$check_rc" -ne 0 ]; then
	status=$check_rc
elif [ "$run_rc" -ne 0 ]; then
	echo "$prog: error: make run failed (exit $run_rc)" >&2
	status=$run_rc
else
	status=0
fi
# Cleaned up before the last line, so that it stays the last line of all.
cleanup
echo "$last"
exit "$status"
