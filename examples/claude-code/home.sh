#!/bin/sh
# Claude Code's files for the agent's home skeleton, made once per store: the
# skeleton in home/ beside this script (onboarding done, /work trusted, the
# bypass-permissions warning accepted) and, in STAGE/.claude.json, the
# phantom otogate gives for ANTHROPIC_API_KEY approved as the CLI's key (it
# remembers an approved key by its last 20 characters). The phantom is the
# same at every session of STORE (otosecret(1), phantom): run this again
# only for another store, or a key of another length.
#   sh examples/claude-code/home.sh STAGE STORE
# STAGE: the skeleton's directory (agent.conf's --home-skel, e.g.
# /etc/oto/claude-home); STORE: the recipe's --store. No key is read.
# otosecret: the one this checkout built (build/musl/bin, then
# build/glibc/bin), else the one on PATH.
# Exits 0; otherwise nonzero with one line "home.sh: ..." (cause and fix).
set -u
die() { echo "home.sh: $1" >&2; exit "${2:-1}"; }
[ $# -eq 2 ] || die "usage: sh home.sh STAGE STORE (see the comment atop this script)" 100
stage=$1 store=$2 name=ANTHROPIC_API_KEY
here=$(cd "$(dirname "$0")" && pwd) || die "cannot find the script's directory"
top=$(cd "$here/../.." && pwd) || die "cannot find the script's repository"
otosecret=
for b in "$top/build/musl/bin/otosecret" "$top/build/glibc/bin/otosecret"; do
	[ -x "$b" ] && { otosecret=$b; break; }
done
[ -n "$otosecret" ] || otosecret=$(command -v otosecret) ||
	die "otosecret is neither in $top/build nor on PATH: run make there, or make install" 127
phantom=$("$otosecret" phantom --store "$store" "$name" 2>&1)
rc=$?
[ $rc -eq 0 ] || die "the phantom of $name: ${phantom#otosecret: fatal: }" $rc
mkdir -p "$stage" || die "cannot make $stage: make it, or name another STAGE"
[ -e "$stage/.claude.json" ] || cp -R "$here/home/." "$stage/" ||
	die "cannot copy $here/home into $stage: check its owner and mode"
# The phantom's letters are [a-z0-9]: nothing to escape. The list is
# replaced whole, so that running this again changes nothing.
last=$(printf %s "$phantom" | tail -c 20)
sed "s/\"approved\": *\[[^]]*\]/\"approved\": [\"$last\"]/" "$stage/.claude.json" >"$stage/.claude.json.new" &&
	grep -q "\"approved\": \[\"$last\"\]" "$stage/.claude.json.new" &&
	mv "$stage/.claude.json.new" "$stage/.claude.json" ||
	{ rm -f "$stage/.claude.json.new"; die "cannot write $stage/.claude.json (it needs an \"approved\": [] list, as home/.claude.json has): copy home/ into $stage again"; }
chmod -R a+rX "$stage" || die "cannot make $stage readable: check its owner"
