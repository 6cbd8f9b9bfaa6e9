#!/bin/sh
# test-container: the container recipe, built and run as deploy/README.md
# documents it, with podman for docker, on this machine, as root.
#
# Run by hand or by `make check-container`, as root; not part of `make
# check`: it installs podman, runc, podman-compose, uidmap and slirp4netns
# with apt-get when they are missing, and building the images takes minutes (apt-get in the
# container, the oto build with its static libraries, Node and Claude Code).
#
# No registry is asked for anything: the base image the Containerfile's FROM
# names is imported from a minimal Debian bookworm root made here with
# debootstrap (--variant=minbase) from Debian's archive as this machine's own
# apt sources name it, given the apt sources a stock bookworm image has (as
# scripts/fresh-check.sh does), and the build runs with --pull=never. The
# repository is cloned at its HEAD commit, so uncommitted changes are not part
# of the test (commit them to have them tested).
#
# deploy/README.md's two lines are taken from that file itself (its first code
# block under "A container" holding `docker build` and `docker run`) and run
# with podman, changed only where a test must: `-it` becomes `-i` (no
# terminal), the image gets a name of this run's, the container a name (to
# remove it when interrupted), the build --pull=never, and the agent tree is a
# fresh copy of examples/agent owned by the line's --user. Where this host's
# /dev/net/tun is not 0666 (or with --tun-node), `--device /dev/net/tun`
# becomes a node of the container's group made as deploy/README.md says (mode 0660,
# group 10001, in this run's folder, mode 0700). podman runs with
# `--runtime runc` where the cgroup layout is not the unified one (crun
# refuses a hybrid layout) and `--cgroup-manager cgroupfs` where systemd is
# not running.
#
# Then deploy/README.md's compose lines (every line of the code blocks under
# "Compose" that runs podman-compose) run with podman-compose, changed only
# where a test must: this run's agent tree, project and OTO_TUN node, the
# engine's options, no pull, no terminal (-T), and for the claude service
# the command (otoprobe, claude --version: no model is asked). The compose
# file is the same but for the images' names and an address for the API's
# host. The agent's build and run (/dev/net/tun seen as 0666, in a mount
# namespace of its own where the host's is not), its run with OTO_TUN and a
# node of the container's group, claude's build with the proxy CA line, and
# claude's run (otoprobe as the agent, with a test store sealed by the
# image's otosecret), and claude --version in the chain. Then
# deploy/pod.yaml with podman kube play (podman 4.7 and later; before, the
# refusal that names the missing relaxation), and deploy/README.md's
# run line once more by rootless podman: nobody, with subordinate ids of
# this run's only, in a mount namespace of its own.
#
# Passed: each run exits 0 and otoprobe's last line says every check is
# contained, 0 gaps. Progress, the time of each phase and otoprobe's report go
# to stderr; the last line on stdout is otoprobe's own last line. Exit status:
# 0 passed; 1 the run or the verdict failed; 100 bad usage; 111 the harness
# failed (apt-get, debootstrap, the build...). Afterwards the images, the
# container and the folder are removed, unless --keep.
#
# Usage: deploy/test-container.sh [--keep] [--tun-node]   (as root)
set -eu

prog=test-container
usage() {
	cat <<-EOF
	usage: $0 [--keep] [--tun-node]

	Builds deploy/Containerfile with deploy/README.md's 'docker build' line and runs
	its 'docker run' line, both with podman, on a base image imported from a
	debootstrap bookworm root (no registry), and checks otoprobe's verdict
	(exit 0, 0 gaps); then runs deploy/README.md's compose lines with
	podman-compose (both images' builds and each service), podman kube play of
	deploy/pod.yaml, and the run line by rootless podman, each checked the
	same way. Installs podman, runc, catatonit, podman-compose, uidmap and
	slirp4netns when missing. Run as root, by hand or by make
	check-container: not part of make check; the builds take minutes.

	  --keep      keep the images and the folder (clone, agent tree, root)
	  --tun-node  pass a node of the container's group for /dev/net/tun (the
	              deploy/README.md's way for a host whose node is 0600) even when this
	              host's is 0666
	  --help      this text

	Progress goes to stderr; the last line on stdout is otoprobe's last line.
	Exit status: 0 passed; 1 the run or its verdict failed; 100 bad usage;
	111 the harness failed.
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

keep='' tun_node=''
while [ $# -gt 0 ]; do
	case $1 in
	--help | -h) usage; exit 0 ;;
	--keep) keep=1 ;;
	--tun-node) tun_node=1 ;;
	*) echo "$prog: fatal: unknown argument $1" >&2; usage >&2; exit 100 ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get, debootstrap, podman)"
top=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$top" rev-parse --verify -q HEAD) || die "$top is not a git checkout with a commit"

# The archive is whatever the machine's own apt sources name (deb822 or
# one-line format), as in scripts/fresh-check.sh: no address in the project.
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

# Every image of this run carries this label: the base gets it at import,
# and every image built on it (the stages, the layers) inherits it.
rid=$(date +%s).$$
label=oto.test-container
image=localhost/oto-agent-test:$rid
image_claude=localhost/oto-claude-test:$rid
project=oto-test-$$
ctr=oto-agent-test-$rid
dir=$(mktemp -d /tmp/oto-container.XXXXXX) || die "mktemp failed"
chmod 0700 "$dir"
log=$dir/log
engine='' inner=''
t_start=$(date +%s)

# labelled RID: the ids of the images of run RID (layers and stages included).
labelled() {
	# shellcheck disable=SC2086 # the engine's options, split on purpose
	podman $engine images -a -q --filter "label=$label=$1" 2>/dev/null | sort -u
}
# remove_images RID: children before parents, so a few rounds.
remove_images() {
	for _ in 1 2 3 4 5; do
		ids=$(labelled "$1")
		[ -n "$ids" ] || return 0
		# shellcheck disable=SC2086 # a list of ids
		podman $engine rmi -f $ids >/dev/null 2>&1 || true
	done
}

# shellcheck disable=SC2317 # called by the traps
cleanup() {
	trap - EXIT INT TERM HUP
	armed=''
	# unshare waits for its child ignoring SIGTERM: SIGKILL, and with
	# --kill-child its end kills the rootless run's pid namespace.
	if [ -n "$inner" ] && kill -0 "$inner" 2>/dev/null; then
		kill -KILL "$inner" 2>/dev/null || true
		wait "$inner" 2>/dev/null || true
	fi
	if command -v podman >/dev/null; then
		# shellcheck disable=SC2086 # the engine's options, split on purpose
		podman $engine rm -f "$ctr" >/dev/null 2>&1 || true
		# What podman-compose made: its containers (a run cut short
		# leaves one), its pod where it makes one, its network.
		# shellcheck disable=SC2086
		ids=$(podman $engine ps -a -q --filter "label=io.podman.compose.project=$project" 2>/dev/null) || ids=''
		# shellcheck disable=SC2086
		[ -z "$ids" ] || podman $engine rm -f $ids >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		podman $engine pod rm -f "pod_$project" >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		podman $engine network rm -f "${project}_default" >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		podman $engine pod rm -f "$ctr-pod" >/dev/null 2>&1 || true
	fi
	if [ -n "$keep" ]; then
		info "kept $dir (clone: the repository; agent: the agent tree; root: the base root)"
		info "kept $image and the images it was built from (podman images -a --filter label=$label=$rid)"
		return 0
	fi
	t=$(date +%s)
	if command -v podman >/dev/null; then
		remove_images "$rid"
		[ -z "$(labelled "$rid")" ] ||
			echo "$prog: error: images labelled $label=$rid are left" >&2
	fi
	rm -rf --one-file-system "$dir"
	info "removed the images, the container and $dir ($(($(date +%s) - t)) s)"
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

# apt_install PKG...: install what is missing, an update first if need be.
apt_install() {
	info "apt-get install $*"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "$@" >"$log" 2>&1 ||
		{ apt-get update -qq >>"$log" 2>&1 &&
			apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; } ||
		{ tail -n 20 "$log" >&2; die "apt-get install $* failed"; }
}

# ---- 1. the tools ---------------------------------------------------------
missing=''
# catatonit: the pause process kube play's pod starts (a recommendation of
# podman's, which --no-install-recommends leaves out).
for p in podman:podman runc:runc catatonit:catatonit podman-compose:podman-compose \
	debootstrap:debootstrap; do
	command -v "${p#*:}" >/dev/null || missing="$missing ${p%%:*}"
done
# shellcheck disable=SC2086 # a list of packages
[ -z "$missing" ] || apt_install $missing
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
	engine="--runtime runc"
fi
[ -d /run/systemd/system ] || engine="$engine --cgroup-manager cgroupfs"
info "podman $(podman --version | sed 's/^podman version //'), options:${engine:- none}"
phase_done tools

# ---- 2. the repository, at HEAD, and deploy/README.md's lines -------------
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	info "uncommitted changes in $top are not part of this test (HEAD only)"
fi
info "git clone $top at $sha"
{ git clone -q --no-hardlinks --no-checkout "$top" "$dir/clone" &&
	git -C "$dir/clone" checkout -q --detach "$sha"; } >"$log" 2>&1 ||
	{ cat "$log" >&2; die "git clone failed"; }
src=$dir/clone

# The commands of the first code block under "## A container" (in
# deploy/README.md) that holds `docker run`, one a line (a trailing backslash
# joins the next line).
cmds=$(awk '
	/^## / { in_sec = ($0 == "## A container") }
	in_sec && /^```/ { if (blk) { if (cur ~ /docker run/) { print cur; exit } cur = "" }
		blk = !blk; next }
	in_sec && blk { line = $0; sub(/^[ \t]+/, "", line)
		if (part != "") { line = part " " line; part = "" }
		if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); part = line; next }
		cur = cur line "\n" }
' "$src/deploy/README.md")
build_line=$(printf '%s\n' "$cmds" | grep '^docker build ' | head -n1)
run_line=$(printf '%s\n' "$cmds" | grep '^docker run ' | head -n1)
if [ -z "$build_line" ] || [ -z "$run_line" ]; then
	die "deploy/README.md: no code block under 'A container' with a 'docker build' and a 'docker run' line"
fi
info "deploy/README.md: $build_line"
info "deploy/README.md: $run_line"

# The base image: the FROM of the Containerfile's stages (not a stage's name).
cf=$src/deploy/Containerfile
stages=$(sed -nE 's/^FROM[[:space:]]+[^[:space:]]+[[:space:]]+[Aa][Ss][[:space:]]+([^[:space:]]+).*/\1/p' "$cf")
base=$(sed -nE 's/^FROM[[:space:]]+([^[:space:]]+).*/\1/p' "$cf" | sort -u |
	while read -r b; do
		echo "$stages" | grep -qxF "$b" || echo "$b"
	done)
if [ -z "$base" ] || [ "$(echo "$base" | wc -l)" -ne 1 ]; then
	die "$cf: expected one base image, found: $(echo "$base" | tr '\n' ' ')"
fi
# The lines of the code blocks under "## Compose" that run podman-compose
# (some with OTO_ variables first), one a line (a trailing backslash joins
# the next line).
clines=$(awk '
	/^## / { in_sec = ($0 == "## Compose") }
	in_sec && /^```/ { blk = !blk; next }
	in_sec && blk { line = $0; sub(/^[ \t]+/, "", line)
		if (part != "") { line = part " " line; part = "" }
		if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); part = line; next }
		if (line ~ /^(OTO_[A-Z_]+=[^ ]+ )*podman-compose /) print line }
' "$src/deploy/README.md")
# pick WHAT PATTERN: the first compose line matching PATTERN (grep -E).
pick() {
	l=$(printf '%s\n' "$clines" | grep -E -- "$2" | head -n1)
	[ -n "$l" ] || die "deploy/README.md: no compose line under 'Compose' for $1"
	echo "$l"
}
c_build_agent=$(pick "the agent's build" ' build agent$')
c_run_agent=$(pick "the agent's run" '^(OTO_AGENT_TREE=[^ ]+ )?podman-compose .* run --rm --no-deps agent$')
c_run_tun=$(pick "the agent's run with OTO_TUN" '^OTO_TUN=[^ ]+ .*podman-compose .* run --rm --no-deps agent$')
c_build_claude=$(pick "claude's build with the proxy CA" ' build .*NODE_EXTRA_CA_CERTS=.* claude$')
c_run_claude=$(pick "claude's run" ' run --rm --no-deps claude claude ')
for l in "$c_build_agent" "$c_run_agent" "$c_run_tun" "$c_build_claude" "$c_run_claude"; do
	info "deploy/README.md: $l"
done

phase_done "clone and deploy/README.md"

# ---- 3. the base image, from a debootstrap root --------------------------
# An image of that name that is not this test's is the operator's: refuse
# to shadow it. One left by an earlier --keep run is replaced.
# shellcheck disable=SC2086
if podman $engine image exists "$base" 2>/dev/null; then
	# shellcheck disable=SC2086
	old=$(podman $engine image inspect --format "{{ index .Labels \"$label\" }}" "$base" 2>/dev/null) || old=''
	case $old in
	'' | '<no value>')
		die "an image $base exists here and is not this test's: remove it" \
			"(podman rmi $base) or run elsewhere" ;;
	esac
	info "removing the images of an earlier run kept with --keep ($label=$old)"
	remove_images "$old"
fi
info "debootstrap bookworm (minbase) into $dir/root"
# In a mount namespace of its own: what debootstrap mounts in the tree (proc,
# sys) cannot outlive it, even when it fails half-way.
unshare --mount debootstrap --variant=minbase bookworm "$dir/root" "$main_uri" \
	</dev/null >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "debootstrap failed"; }
# A stock bookworm image's sources: deb822, main, updates, security; no
# package lists or downloaded packages, as in a slim image.
rm -f "$dir/root/etc/apt/sources.list"
cat >"$dir/root/etc/apt/sources.list.d/debian.sources" <<EOF
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
rm -rf "$dir/root/var/lib/apt/lists/"* "$dir/root/var/cache/apt/"*.bin
find "$dir/root/var/cache/apt/archives" -name '*.deb' -delete
tar --numeric-owner --exclude=./dev/* --exclude=./proc/* --exclude=./sys/* \
	-C "$dir/root" -cf "$dir/root.tar" . || die "tar of the root failed"
info "podman import under $base"
# shellcheck disable=SC2086
podman $engine import -q --change "LABEL $label=$rid" "$dir/root.tar" "$base" >"$log" 2>&1 ||
	{ cat "$log" >&2; die "podman import failed"; }
rm -f "$dir/root.tar"
phase_done "base image"

# ---- 4. the image: deploy/README.md's build line -------------------------
# words LINE: its words, one a line (deploy/README.md's lines hold no quotes).
words() { printf '%s\n' "$1" | tr -s '[:blank:]' '[\n*]'; }
# Each word is matched with the word before it in the line ($prev).
set -f
tag='' cmd='' prev=''
for w in $(words "$build_line"); do
	case $prev:$w in
	:docker) out="podman $engine" ;;
	docker:build) out="build --pull=never" ;;
	-t:*) tag=$w out=$image ;;
	*) out=$w ;;
	esac
	cmd="$cmd $out" prev=$w
done
[ -n "$tag" ] || die "deploy/README.md: the 'docker build' line names no image (-t NAME)"
info "podman build (minutes):$cmd"
# shellcheck disable=SC2086 # the line's words, split on purpose (set -f)
(cd "$src" && exec $cmd) </dev/null >"$log" 2>&1 ||
	{ tail -n 40 "$log" >&2; die "podman build failed"; }
set +f
phase_done "image build"

# ---- 5. the run: deploy/README.md's run line ----------------------------
user=$(words "$run_line" | sed -n '/^--user$/{n;p;q;}')
[ -n "$user" ] || die "deploy/README.md: the 'docker run' line has no --user"
mkdir "$dir/agent"
cp -R "$src/examples/agent/." "$dir/agent/"
chown -R "$user" "$dir/agent"

tun_mode=$(stat -c %a /dev/net/tun 2>/dev/null) || die "this host has no /dev/net/tun"
node=''
if [ -n "$tun_node" ] || [ "$tun_mode" != 666 ]; then
	# deploy/README.md's node for a host whose own is 0600, in this run's folder.
	node=$dir/tun
	{ mknod -m 0660 "$node" c 10 200 && chgrp "${user#*:}" "$node"; } ||
		die "mknod $node failed"
	info "/dev/net/tun is $tun_mode here: --device $node:/dev/net/tun (mode 0660, group ${user#*:})"
else
	info "/dev/net/tun is $tun_mode here: --device /dev/net/tun as in deploy/README.md"
fi

# run_line ENGINE NODE AGENT: in $cmd, deploy/README.md's run line for podman
# with ENGINE's options, the device NODE (empty: the line's) and the tree AGENT.
run_line() {
	set -f
	cmd='' prev='' agent='' dev=''
	for w in $(words "$run_line"); do
		case $prev:$w in
		:docker) out="podman $1" ;;
		docker:run) out="run --name $ctr" ;;
		*:-it | *:-ti) out=-i ;;
		-v:*:/agent) agent=1 out=$3:/agent ;;
		--device:/dev/net/tun) dev=1 out=${2:+$2:}/dev/net/tun ;;
		*:"$tag") out=$image ;;
		*) out=$w ;;
		esac
		cmd="$cmd $out" prev=$w
	done
	set +f
	[ -n "$agent" ] || die "deploy/README.md: the 'docker run' line mounts no agent tree (-v DIR:/agent)"
	[ -n "$dev" ] || die "deploy/README.md: the 'docker run' line has no --device /dev/net/tun"
}
run_line "$engine" "$node" "$dir/agent"
info "podman run:$cmd"
# verdict WHAT: the run's exit code ($rc) is 0 and its output's ($dir/out)
# last line is otoprobe's, every check contained, 0 gaps; else status=1.
status=0
verdict() {
	cat "$dir/out" >&2
	last=$(tail -n 1 "$dir/out")
	if [ "$rc" -ne 0 ]; then
		echo "$prog: error: $1: the run exited $rc" >&2
		status=1
	elif ! printf '%s\n' "$last" |
		grep -qE '^otoprobe: ([0-9]+) checks, ([0-9]+) contained, 0 gaps;'; then
		echo "$prog: error: $1: otoprobe's last line does not say 0 gaps" >&2
		status=1
	else
		n=$(printf '%s\n' "$last" | sed -E 's/^otoprobe: ([0-9]+) checks, ([0-9]+) contained.*/\1 \2/')
		if [ "${n% *}" = "${n#* }" ]; then
			info "$1 passed: exit 0, every check contained, 0 gaps"
		else
			echo "$prog: error: $1: not every check is contained" >&2
			status=1
		fi
	fi
}

set +e
set -f
# shellcheck disable=SC2086 # the line's words, split on purpose (set -f)
(cd "$src" && exec $cmd) </dev/null >"$dir/out" 2>&1
rc=$?
set +f
set -e
phase_done run
verdict "deploy/README.md's run line"
readme_last=$last

# ---- 6. deploy/compose.yaml: deploy/README.md's compose lines -----------
# The compose file as it is, but for the images' names (this run's: the
# compose builds tag them) and an address for the claude service's upstream:
# otogate resolves its grants' hosts at start, this machine resolves no
# API's name, and nothing is sent to it (otoprobe and --version ask no model).
awk -v img="$image" -v imgc="$image_claude" '
	/^    image: oto-agent$/ { print "    image: " img; next }
	/^    image: oto-claude$/ { print "    image: " imgc
		print "    extra_hosts:"; print "      - api.anthropic.com:203.0.113.1"; next }
	{ print }' "$src/deploy/compose.yaml" >"$src/deploy/compose.test.yaml"
if [ "$(diff "$src/deploy/compose.yaml" "$src/deploy/compose.test.yaml" | grep -c '^>')" -ne 4 ] ||
	[ "$(diff "$src/deploy/compose.yaml" "$src/deploy/compose.test.yaml" | grep -c '^<')" -ne 2 ]; then
	die "deploy/compose.yaml: its image lines moved"
fi

# cline LINE [CMD...]: in $cl, LINE for this run: its OTO_AGENT_TREE and
# OTO_TUN this run's, podman-compose with the engine's options, this run's
# project and no pull, the test's file, no terminal (-T), and CMD for the
# service's command where given.
cline() {
	# shellcheck disable=SC2016 # single quotes for eval (compose_sh)
	l=$(printf '%s\n' "$1" | sed -E \
		-e "s|OTO_AGENT_TREE=[^ ]+|OTO_AGENT_TREE=$dir/agent|" \
		-e "s|OTO_TUN=[^ ]+|OTO_TUN=$tun_group|" \
		-e "s|podman-compose |podman-compose ${engine:+--podman-args='$engine' }--podman-build-args=--pull=never -p $project |" \
		-e 's| -f deploy/compose\.yaml | -f deploy/compose.test.yaml |' \
		-e 's| run --rm | run --rm -T |')
	shift
	[ $# -eq 0 ] || l=$(printf '%s\n' "$l" | sed -E "s/( run --rm -T --no-deps [a-z]+) .*/\\1 $*/")
	cl=$l
}
# A node of the container's group for OTO_TUN (deploy/README.md's way for a
# 0600 host), made whatever this host's is.
tun_group=$dir/tun-group
{ mknod -m 0660 "$tun_group" c 10 200 && chgrp "${user#*:}" "$tun_group"; } ||
	die "mknod $tun_group failed"
# The lines without OTO_TUN map the host's /dev/net/tun: where it is not
# 0666, they run in a mount namespace of their own where it is a node of
# mode 0666, as on a stock Debian host (the host's node stays as it is).
# shellcheck disable=SC2016 # expanded by the inner shell
compose_sh='set -u
if [ "$1" != 666 ]; then
	mount -t tmpfs -o mode=0700 oto-view "$2" &&
		mknod -m 0666 "$2/tun" c 10 200 && mount --bind "$2/tun" /dev/net/tun || exit 111
fi
cd "$3" && eval "$4"'
mkdir "$dir/view"
# compose LINE: run it as cline made it; its output, but for podman-compose's
# own lines, in $dir/out; $rc the service's exit code, which podman-compose
# 1.0.3 prints ("exit code: N") but does not exit with.
compose() {
	set +e
	OTO_AGENT_TREE=$dir/agent OTO_STORE=$dir/secrets/store OTO_KEY=$dir/secrets/key \
		unshare --mount --propagation private sh -c "$compose_sh" sh "$tun_mode" "$dir/view" "$src" "$1" \
		</dev/null >"$dir/out" 2>&1
	rc=$?
	set -e
	code=$(sed -n 's/^exit code: //p' "$dir/out" | tail -n 1)
	[ "$rc" -ne 0 ] || [ -z "$code" ] || rc=$code
	# podman-compose's own lines (the podman commands, "exit code:") out.
	grep -v '^podman \|^exit code: \|^\[\|^using podman\|^podman-compose version\|^\*\*' \
		"$dir/out" >"$dir/out.clean" || true
	mv "$dir/out.clean" "$dir/out"
}
# build LINE IMAGE: the compose build line; IMAGE must exist after it
# (podman-compose 1.0.3 exits 0 when the build fails).
build() {
	cline "$1"
	info "podman-compose build (minutes):${cl#*podman-compose}"
	compose "$cl"
	# shellcheck disable=SC2086
	podman $engine image exists "$2" || { tail -n 40 "$dir/out" >&2; die "podman-compose build failed: $2"; }
}
build "$c_build_agent" "$image"
phase_done "compose: agent build"

# A store for the claude service, sealed by the image's own otosecret: a
# key that only a test holds (the gateway needs one; nothing is sent).
mkdir "$dir/secrets"
# deploy/README.md's limits: the engine's defaults may exceed its own hard limits.
limits="--ulimit nofile=1024:8192 --ulimit nproc=4096:4096"
chown "$user" "$dir/secrets"
chmod 0700 "$dir/secrets"
# shellcheck disable=SC2086
{ podman $engine run --rm $limits --user "$user" --entrypoint otosecret -v "$dir/secrets:/out" "$image" \
	keygen --out /out/key &&
	printf 'ANTHROPIC_API_KEY=sk-test-container-0123456789abcdef\n' |
	podman $engine run --rm -i $limits --user "$user" --entrypoint otosecret -v "$dir/secrets:/out" \
		"$image" seal --key-file /out/key --store /out/store; } >"$log" 2>&1 ||
	{ cat "$log" >&2; die "sealing the test store failed"; }

cline "$c_run_agent"
info "podman-compose run agent (/dev/net/tun 0666):${cl#*podman-compose}"
compose "$cl"
verdict "compose: agent"
cline "$c_run_tun"
info "podman-compose run agent (OTO_TUN, mode 0660, group ${user#*:}):${cl#*podman-compose}"
compose "$cl"
verdict "compose: agent with OTO_TUN"
phase_done "compose: agent"

# The claude build, with the proxy CA line: the host's CA bundle (the way to
# the registry may be a proxy that this machine trusts and a stock image does
# not), mounted for the build only.
build "$c_build_claude" "$image_claude"
phase_done "compose: claude build"
cline "$c_run_claude" otoprobe
info "podman-compose run claude otoprobe:${cl#*podman-compose}"
compose "$cl"
verdict "compose: claude (otogate in the chain)"
cline "$c_run_claude" claude --version
compose "$cl"
info "compose: claude claude --version: $(tail -n 1 "$dir/out")"
if [ "$rc" -ne 0 ] || ! tail -n 1 "$dir/out" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+ \(Claude Code\)$'; then
	cat "$dir/out" >&2
	echo "$prog: error: claude --version in the chain: exit $rc" >&2
	status=1
fi
phase_done compose

# ---- 7. deploy/pod.yaml with podman kube play -----------------------------
# The pod as it is, but for this run's names and the agent tree (a hostPath
# for its volume claim); the seccomp profile where the kubelet would have it
# (profiles/ under a root). The device stays the host's /dev/net/tun: no
# host group is mapped into the pod's user namespace, so it must be 0666.
pod=$ctr-pod
mkdir -p "$dir/seccomp/profiles"
cp "$src/deploy/seccomp-oto.json" "$dir/seccomp/profiles/"
awk -v img="$image" -v pod="$pod" -v tree="$dir/agent" '
	/^  name: oto-agent$/ { print "  name: " pod; next }
	/^      image: oto-agent:latest$/ { print "      image: " img; next }
	/^      persistentVolumeClaim:$/ { print "      hostPath:"; print "        path: " tree
		print "        type: Directory"; getline; next }
	{ print }' "$src/deploy/pod.yaml" >"$dir/pod.yaml"
# One line each for the name and the image, three for the hostPath that
# takes the claim's two.
[ "$(diff "$src/deploy/pod.yaml" "$dir/pod.yaml" | grep -c '^>')" -eq 5 ] ||
	die "deploy/pod.yaml: its name, image or volume lines moved"
# shellcheck disable=SC2086
version=$(podman $engine version --format '{{.Client.Version}}')
# hostUsers: false is podman's --userns=auto: root's podman takes the pod's
# ids from the subordinate ids of the account "containers", 1024 of them
# unless told more (uid 10001 needs 65536, as a kubelet gives). This run gives
# it some of its own, as the rootless run below does for nobody: in a mount
# namespace of its own, /etc is an overlay (the host's /etc is untouched),
# /dev/net/tun a node of mode 0666 as on a stock Debian host (where this
# machine's is not), and a pid namespace whose end takes what podman left
# (conmon, the pause).
ksub=2147483647
info "podman kube play (podman $version, containers:$ksub:65536)"
# shellcheck disable=SC2016 # expanded by the inner shell
kube_sh='set -u
dir=$1 pod=$2 ksub=$3
shift 3
mount -t tmpfs -o mode=0700 oto-kube "$dir/kube" &&
	mkdir "$dir/kube/up" "$dir/kube/work" &&
	mount -t overlay -o "lowerdir=/etc,upperdir=$dir/kube/up,workdir=$dir/kube/work" oto-etc /etc &&
	mknod -m 0666 "$dir/kube/tun" c 10 200 && mount --bind "$dir/kube/tun" /dev/net/tun ||
	exit 111
echo "containers:$ksub:65536" >>/etc/subuid
echo "containers:$ksub:65536" >>/etc/subgid
podman "$@" kube play --userns auto:size=65536 --seccomp-profile-root "$dir/seccomp" \
	"$dir/pod.yaml" >"$dir/log" 2>&1 &&
	podman "$@" wait "$pod-agent" >"$dir/rc" 2>>"$dir/log"
podman "$@" logs "$pod-agent" >"$dir/out" 2>&1
podman "$@" pod rm -f "$pod" >/dev/null 2>&1
umount /dev/net/tun /etc'
mkdir "$dir/kube"
set +e
# shellcheck disable=SC2086 # the engine's options, split on purpose
unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	sh -c "$kube_sh" sh "$dir" "$pod" "$ksub" $engine </dev/null &
inner=$!
wait "$inner"
inner=''
rc=$(cat "$dir/rc" 2>/dev/null)
rmdir "$dir/kube"
set -e
[ -n "$rc" ] || { cat "$log" >&2; die "podman kube play failed"; }
case $version in
[0-3].* | 4.[0-6].*)
	# procMount: Unmasked is ignored before 4.7 (/proc stays masked, and
	# /proc/sys read-only): the stage refused says which relaxation is
	# missing, and where (otons, at the first write under /proc/sys).
	cat "$dir/out" >&2
	if [ "$rc" -ne 0 ] && tail -n 1 "$dir/out" |
		grep -qF "as in a container by default: run it with --security-opt systempaths=unconfined, or procMount: Unmasked in Kubernetes; see README, Deploying)"; then
		info "kube play: podman $version ignores procMount: Unmasked; the refusal names it (exit $rc)"
	else
		echo "$prog: error: kube play: podman $version: expected the masked /proc refusal, exit $rc" >&2
		status=1
	fi ;;
*) verdict "kube play" ;;
esac
phase_done "kube play"

# ---- 8. rootless podman: the run line by an unprivileged account ----------
# nobody (65534) runs podman, with subordinate ids of this run's only: in a
# mount namespace of its own, /etc is an overlay whose /etc/subuid and
# /etc/subgid give it 65536 ids from $sub (the host's /etc is untouched), and
# its home, storage and image (a podman save of this run's) are in a tmpfs
# there, gone with the namespace. The container's uid and gid 10001 are the
# host's $sub + 10000 (0 is nobody, 1 and on from $sub): the agent tree's
# copy is theirs, and so is deploy/README.md's node for /dev/net/tun, mode 0660.
# slirp4netns, rootless podman's network, opens /dev/net/tun as nobody: there
# the host's is a node of mode 0666, as on a stock Debian host.
missing=''
for p in uidmap:newuidmap slirp4netns:slirp4netns; do
	command -v "${p#*:}" >/dev/null || missing="$missing ${p%%:*}"
done
# shellcheck disable=SC2086 # a list of packages
[ -z "$missing" ] || apt_install $missing
sub=1879048192
r=$dir/rootless
mkdir -m 0755 "$r"
# nobody reaches $r, and through $dir nothing else ($dir: search only).
chmod 0711 "$dir"
# shellcheck disable=SC2086
podman $engine save -q -o "$dir/image.tar" "$image" >"$log" 2>&1 ||
	{ cat "$log" >&2; die "podman save failed"; }
rengine="--cgroup-manager cgroupfs"
[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] || rengine="$rengine --runtime runc"
rengine="$rengine --root $r/home/storage --runroot $r/xdg/run"
run_line "$rengine" "$r/tun" "$r/agent"
info "rootless podman (nobody, ids from $sub):$cmd"
# shellcheck disable=SC2016 # expanded by the inner shell
rootless_sh='set -eu
r=$1 sub=$2 dir=$3 src=$4 cmd=$5
mount -t tmpfs -o mode=0755 oto-rootless "$r"
mkdir "$r/etc-up" "$r/etc-work"
mount -t overlay -o "lowerdir=/etc,upperdir=$r/etc-up,workdir=$r/etc-work" oto-etc /etc
mknod -m 0666 "$r/tun-host" c 10 200
mount --bind "$r/tun-host" /dev/net/tun
echo "nobody:$sub:65536" >/etc/subuid
echo "nobody:$sub:65536" >/etc/subgid
id=$((sub + 10000))
mkdir -m 0700 "$r/home" "$r/xdg"
chown 65534:65534 "$r/home" "$r/xdg"
mv "$dir/image.tar" "$r/image.tar"
chmod 0644 "$r/image.tar"
cp -R "$src/examples/agent" "$r/agent"
chown -R "$id:$id" "$r/agent"
mknod -m 0660 "$r/tun" c 10 200
chgrp "$id" "$r/tun"
as_nobody() {
	setpriv --reuid 65534 --regid 65534 --clear-groups env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="$r/home" XDG_RUNTIME_DIR="$r/xdg" "$@"
}
as_nobody sh -c "podman $6 load -q -i \"\$1\" >/dev/null" sh "$r/image.tar"
rm -f "$r/image.tar"
cd "$src"
set -f
# shellcheck disable=SC2086 # the line'"'"'s words, split on purpose (set -f)
as_nobody $cmd'
# A pid namespace too, of which the inner shell is pid 1: when it ends, or
# unshare is killed (cleanup), so does everything podman left (its pause
# process, conmon), and the tmpfs with them.
set +e
unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	sh -c "$rootless_sh" sh "$r" "$sub" "$dir" "$src" "$cmd" "$rengine" </dev/null >"$dir/out" 2>&1 &
inner=$!
wait "$inner"
rc=$?
inner=''
set -e
chmod 0700 "$dir"
phase_done "rootless podman"
verdict "rootless podman"
last=$readme_last
info "total $(($(date +%s) - t_start)) s"
# Cleaned up before the last line, so that it stays the last line of all.
cleanup
echo "$last"
exit "$status"
