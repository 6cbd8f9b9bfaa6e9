#!/bin/sh
# One step from an example to a running agent: make what a recipe of
# examples/ needs, then print its otorun line (or, with --run, run it). As
# root.
#
#   examples/setup.sh [--run] [--config FILE] EXAMPLE|CONF [-- CMD [ARG]...]
#
# EXAMPLE is claude-code, codex, gemini-cli or opencode (its agent.conf);
# CONF is a config file of its own (examples/config/member.conf...).
# --config FILE reads FILE instead of EXAMPLE's agent.conf: the same recipe
# with its places changed. CMD is the command of the line (by default the
# example's CLI, or sh).
#
# The places come from the recipe itself: --as, --agent-root, --role,
# --person, --store, --key-file, the names of --grant and --secret,
# --home-skel, the first --ro (the CLI's install), and the entries of
# --login. Each thing is made
# only when missing, and said in one line ("made", "unchanged", "updated"):
#   the account: a system account, no login shell, no home on the host;
#   the tree: a copy of examples/agent when new, the account's, mode 0700;
#     a part the role needs and the tree lacks (people/PERSON...) made alone;
#   the key and the sealed store (otosecret keygen, seal), root's, mode 0600;
#     with --login, the store and its directory (one of its own) are the
#     account's instead: the gateway, as the account, seals a refresh's new
#     tokens back into it (the store is sealed: the key stays root's);
#     each name's value from the variable NAME, else a line on stdin (never
#     argv; not echoed on a terminal); a name already in the store is left
#     alone unless its value is given and differs;
#   each --login ENTRY=PROFILE: the CLI's login file, named by the variable
#     ENTRY (its path on the host), sealed whole by otosecret import; an
#     entry already in the store is left alone unless a file is given and
#     differs; with none given, it must be in the store already;
#   the CLI's install (the example's install.sh), when the --ro source is
#     missing;
#   the home skeleton (--home-skel): examples/NAME/home, and what
#     examples/NAME/home.sh STAGE STORE writes, staged apart; for a recipe
#     CONF.conf of its own (subscription.conf), examples/NAME/home-CONF
#     alone, when there is one; the target is replaced only when it differs.
# Everything is checked before anything is made. No value is ever printed.
#
# Environment: NAME for each credential, ENTRY for each login file; OTORUN and OTOSECRET (default: on
# PATH, else the checkout's build/musl/bin).
# Exit: 0 (with --run: otorun's); 100 usage, 101 rejected, 111 system error.
set -eu
umask 022
me=setup
here=$(dirname "$0")

die() { # CODE WORDS...: one line, then exit CODE
	_c=$1
	shift
	echo "$me: fatal: $*" >&2
	exit "$_c"
}
say() { echo "$me: $*" >&2; }
usage() {
	echo "usage: $here/setup.sh [--run] [--config FILE] EXAMPLE|CONF [-- CMD [ARG]...]" >&2
	exit 100
}

run=
conf=
while [ $# -gt 0 ]; do
	case $1 in
	--run) run=1 ;;
	--config)
		[ $# -ge 2 ] || usage
		conf=$2
		shift
		;;
	-h | --help) usage ;;
	--) usage ;;
	-*) die 100 "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage
what=$1
shift
if [ $# -gt 0 ]; then
	[ "$1" = -- ] && [ $# -ge 2 ] || usage
	shift
fi

# The example: its directory (install.sh, home, home.sh) and its recipe.
case $what in
*/* | *.conf)
	[ -f "$what" ] || die 100 "$what: no such config file"
	ex=$(dirname "$what")
	: "${conf:=$what}"
	;;
*)
	ex=$here/$what
	[ -f "$ex/agent.conf" ] ||
		die 100 "$what: no such example (claude-code, codex, gemini-cli, opencode, or a config file)"
	: "${conf:=$ex/agent.conf}"
	;;
esac
[ -r "$conf" ] || die 100 "unable to read config $conf"
[ "$(id -u)" = 0 ] || die 100 "run as root: it makes an account, a tree owned by it, and a store only root reads"

# The command of the line: the example's CLI at its place in the view.
if [ $# -eq 0 ]; then
	case $(basename "$ex") in
	claude-code) set -- /opt/claude/node_modules/.bin/claude ;;
	codex) set -- /opt/codex/node_modules/.bin/codex ;;
	gemini-cli) set -- /opt/gemini/bin/gemini ;;
	opencode) set -- /opt/opencode/node_modules/.bin/opencode ;;
	*) set -- sh ;;
	esac
fi

# The tools: the installed ones, else this checkout's.
tool() { # NAME VARIABLE-VALUE
	if [ -n "$2" ]; then
		echo "$2"
	elif command -v "$1" >/dev/null 2>&1; then
		echo "$1"
	elif [ -x "$(dirname "$here")/build/musl/bin/$1" ]; then
		echo "$(dirname "$here")/build/musl/bin/$1"
	else
		die 111 "$1 not found (make, then make install, or set ${3})"
	fi
}
otorun=$(tool otorun "${OTORUN:-}" OTORUN)

# login_file PROFILE: where the CLI of a built-in profile keeps its login.
# shellcheck disable=SC2088 # the path as a person types it
login_file() {
	case $1 in
	claude) echo '~/.claude/.credentials.json' ;;
	codex) echo '~/.codex/auth.json' ;;
	gemini) echo '~/.gemini/oauth_creds.json' ;;
	*) echo "the file $1 names" ;;
	esac
}

# The recipe's values: "--OPTION VALUE" lines, as otorun reads them.
values() { # OPTION: each value, one a line
	awk -v o="$1" '$1 == o { sub(/^[ \t]*[^ \t]+[ \t]*/, ""); print }' "$conf"
}
last() { values "$1" | tail -n 1; }
root=$(last --agent-root)
role=$(last --role)
person=$(last --person)
as=$(last --as)
store=$(last --store)
key=$(last --key-file)
skel=$(last --home-skel)
src=$(values --ro | head -n 1)
src=${src%%:*}
names=$({
	values --grant | sed 's/=.*//'
	values --secret | sed 's/:.*//'
} | awk '!seen[$0]++')
logins=$(values --login)
entries=$(printf '%s\n' "$logins" | sed -n 's/=.*//p')

case $root in
/*) ;;
*) die 100 "$conf: --agent-root must be an absolute path, not '$root'" ;;
esac
case $role in
manager | member | viewer) ;;
*) die 100 "$conf: --role must be manager, member or viewer, not '$role'" ;;
esac
case $person in
'' | . | .. | *[!A-Za-z0-9._-]*) die 100 "$conf: --person must be 1 to 64 of [A-Za-z0-9._-], not '$person'" ;;
esac
[ -n "$as" ] || die 100 "$conf: no --as: name the unprivileged account the agent runs as"
user=${as%%:*}
group=
[ "$user" = "$as" ] || group=${as#*:}
for n in $names $entries; do
	case $n in
	[A-Za-z_]*) case $n in *[!A-Za-z0-9_]*) die 100 "$conf: credential name '$n' is not a variable name" ;; esac ;;
	*) die 100 "$conf: credential name '$n' is not a variable name" ;;
	esac
done
for l in $logins; do
	case $l in *=?*) ;; *) die 100 "$conf: --login $l: expected ENTRY=PROFILE" ;; esac
done
if [ -n "$names$entries" ]; then
	[ -n "$store" ] && [ -n "$key" ] || die 100 "$conf: --grant, --secret and --login need --store and --key-file"
	otosecret=$(tool otosecret "${OTOSECRET:-}" OTOSECRET)
fi

# 1. The account: made when missing; never root.
made_user=
if uid=$(id -u "$user" 2>/dev/null); then
	[ "$uid" != 0 ] || die 101 "--as $user is root: name an unprivileged account"
	gid=$(id -g "$user")
else
	case $user in
	'' | -* | *[!a-z0-9_.-]*) die 101 "--as $user: no such account, and not a name useradd takes" ;;
	esac
	command -v useradd >/dev/null || die 111 "useradd not found (apt-get install passwd)"
	made_user=1
	uid="" gid=""
fi
if [ -n "$group" ]; then
	g=$(getent group "$group") ||
		die 101 "--as $as: no such group $group (make it: groupadd --system $group)"
	gid=$(echo "$g" | cut -d: -f3)
fi

# 2. The tree. What the role needs, and whether the account may write it.
parts="workspace knowledge people/$person"
[ "$role" != manager ] || parts="$parts config"
writes() { # PART: true if the role writes it
	case $role:$1 in
	viewer:workspace | member:knowledge | viewer:knowledge) return 1 ;;
	*) return 0 ;;
	esac
}
# may TEST PATH: the account passes test(1)'s TEST on PATH, the kernel's
# answer (ACLs counted); an account still to be made passes nothing.
may() {
	[ -z "$made_user" ] || return 1
	setpriv --reuid "$uid" --regid "${gid:-$(id -g "$user")}" --clear-groups test "$1" "$2" -a -x "$2"
}
new_parts=
if [ -e "$root" ] || [ -L "$root" ]; then
	[ -d "$root" ] && ! [ -L "$root" ] || die 101 "the agent root $root is not a directory (otomount refuses a symlink)"
	for p in $parts; do
		if [ -L "$root/$p" ]; then
			die 101 "$root/$p is a symlink, which otomount refuses (make it a directory)"
		elif [ -e "$root/$p" ]; then
			[ -d "$root/$p" ] || die 101 "$root/$p is not a directory"
			if writes "$p"; then
				may -w "$root/$p" || die 101 "$root/$p exists and $user cannot write it, which a $role writes" \
					"(${made_user:+useradd --system --no-create-home --shell /usr/sbin/nologin $user, then }chown -R $user: $root/$p)"
			else
				may -r "$root/$p" || die 101 "$root/$p exists and $user cannot read it" \
					"(${made_user:+useradd --system --no-create-home --shell /usr/sbin/nologin $user, then }chown -R $user: $root/$p)"
			fi
		else
			new_parts="$new_parts $p"
		fi
	done
	[ -n "$made_user" ] || may -r "$root" ||
		die 101 "$user cannot reach $root (make it and the directories above it searchable: chmod o+x or chown $user:)"
fi

# 3. The key and the store: whether they open, which names they hold, the
# values given. Values live in variables val_NAME, never in argv. A store
# of logins is in a directory of the account's own, or one to be made.
key_new="" seal_names="" import_entries="" sdir=""
if [ -n "$entries" ]; then
	sdir=$(dirname "$store")
	if [ -e "$sdir" ] && { [ -n "$made_user" ] || [ "$(stat -c %u "$sdir")" != "$uid" ]; }; then
		die 101 "the store $store holds logins (--login), and its directory $sdir is not $user's:" \
			"the gateway, as $user, seals a refresh's new tokens back into it" \
			"(name a store in a directory of its own, which setup makes $user's: --store $sdir/logins/$(basename "$store"))"
	fi
	# The account could replace a key there with one it knows.
	[ "$(dirname "$key")" != "$sdir" ] ||
		die 101 "the key $key is in the directory of the store of logins, which is $user's (keep the key elsewhere, root's)"
fi
if [ -n "$names$entries" ]; then
	if [ -e "$key" ]; then
		[ -f "$key" ] && ! [ -L "$key" ] || die 101 "the key $key is not a regular file"
		case $(stat -c %a "$key") in
		[0-6]00) ;;
		*) die 101 "the key $key is mode $(stat -c %a "$key"), which otosecret refuses (chmod 600 $key)" ;;
		esac
	else
		[ ! -e "$store" ] || die 101 "the store $store exists without its key $key" \
			"(put its key there, or move the store aside to make a new one)"
		key_new=1
	fi
	if [ -e "$store" ]; then
		[ -f "$store" ] && ! [ -L "$store" ] || die 101 "the store $store is not a regular file"
		case $(stat -c %a "$store") in
		[0-6]00) ;;
		*) die 101 "the store $store is mode $(stat -c %a "$store"), which otosecret refuses (chmod 600 $store)" ;;
		esac
		held=$("$otosecret" list --store "$store") || die 101 "unable to list the store $store (above: why)"
	else
		held=""
	fi
	for n in $names; do
		if v=$(printenv "$n"); then
			case $v in *'
'*) die 101 "the value of $n holds a newline (give it whole on one line)" ;; esac
			[ -n "$v" ] || die 101 "the variable $n is empty (give the value itself)"
		elif printf '%s\n' "$held" | grep -qxF "$n"; then
			eval "state_$n=unchanged"
			continue
		else
			# A line of stdin, not echoed on a terminal.
			if [ -t 0 ]; then
				printf '%s: %s (not echoed): ' "$me" "$n" >&2
				stty -echo
				IFS= read -r v || v=
				stty echo
				echo >&2
			else
				IFS= read -r v || :
			fi
			[ -n "$v" ] || die 100 "no value for $n (set the variable $n, or give it as a line on stdin; never on the command line)"
		fi
		eval "val_$n=\$v"
		if printf '%s\n' "$held" | grep -qxF "$n"; then
			# The stored value against the given one, inside otosecret's child alone.
			set +e
			SETUP_WANT=$v "$otosecret" --store "$store" --key-file "$key" \
				--use "$n:env=SETUP_HAVE" -- sh -c '[ "$SETUP_HAVE" = "$SETUP_WANT" ]'
			e=$?
			set -e
			case $e in
			0) eval "state_$n=unchanged" ;;
			1) eval "state_$n=updated" seal_names=\"\$seal_names \$n\" ;;
			*) die 101 "unable to open the store $store with the key $key (above: why)" ;;
			esac
		else
			eval "state_$n=made" seal_names=\"\$seal_names \$n\"
		fi
	done
	for l in $logins; do
		n=${l%%=*}
		p=${l#*=}
		if f=$(printenv "$n"); then
			[ -f "$f" ] && [ -r "$f" ] || die 101 "$n=$f: no such login file (name the CLI's, e.g. $(login_file "$p"))"
			eval "file_$n=\$f"
			if printf '%s\n' "$held" | grep -qxF "$n"; then
				set +e
				SETUP_WANT=$f "$otosecret" --store "$store" --key-file "$key" \
					--use "$n:env=SETUP_HAVE" -- sh -c 'printf %s "$SETUP_HAVE" | cmp -s - "$SETUP_WANT"'
				e=$?
				set -e
				case $e in
				0) eval "state_$n=unchanged" ;;
				1) eval "state_$n=updated" import_entries=\"\$import_entries \$l\" ;;
				*) die 101 "unable to open the store $store with the key $key (above: why)" ;;
				esac
			else
				eval "state_$n=made" import_entries=\"\$import_entries \$l\"
			fi
		elif printf '%s\n' "$held" | grep -qxF "$n"; then
			eval "state_$n=unchanged"
		else
			die 100 "no login $n in the store $store: set $n to the CLI's login file on this host ($n=$(login_file "$p")), or seal it with otosecret import"
		fi
	done
	# The key opens the store even when no value was compared.
	first=$(printf '%s\n' "$held" | head -n 1)
	if [ -n "$first" ] && [ -z "$key_new" ]; then
		"$otosecret" --store "$store" --key-file "$key" --use "$first:env=SETUP_HAVE" -- true ||
			die 101 "unable to open the store $store with the key $key (above: why)"
	fi
fi

# 4. The CLI's install: the example's install.sh, when its --ro source is missing.
install=
if [ -n "$src" ] && [ -f "$ex/install.sh" ] && ! [ -e "$src" ]; then
	command -v npm >/dev/null || die 111 "npm not found, which $ex/install.sh needs for $src (apt-get install npm)"
	install=1
fi

# 5. The home skeleton: something to make it from, or a target already there.
# A recipe of its own (CONF.conf) takes home-CONF alone, when there is one.
home=$ex/home home_sh=$ex/home.sh
c=$(basename "$conf" .conf)
if [ "$c" != agent ] && [ -d "$ex/home-$c" ]; then
	home=$ex/home-$c home_sh=
fi
if [ -n "$skel" ] && ! [ -d "$home" ] && ! [ -f "$home_sh" ] && ! [ -d "$skel" ]; then
	die 101 "--home-skel $skel is missing, and $ex has no home to make it from (make it)"
fi

# Everything checked: now make what is missing.
if [ -n "$made_user" ]; then
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" ||
		die 111 "unable to make the account $user (useradd, above)"
	uid=$(id -u "$user")
	[ -n "$gid" ] || gid=$(id -g "$user")
	say "account $user: made"
else
	say "account $user: unchanged"
fi

# The tree: examples/agent when new, or each missing part alone.
seed() { # PART: examples/agent's PART, or an empty directory, the account's
	mkdir -p "$(dirname "$root/$1")"
	if [ -d "$here/agent/$1" ]; then
		cp -R "$here/agent/$1" "$root/$1"
	else
		mkdir "$root/$1"
	fi
	chown -R "$uid:$gid" "$root/$1"
}
if ! [ -e "$root" ]; then
	mkdir -p "$(dirname "$root")"
	mkdir -m 0700 "$root"
	for p in "$here"/agent/*; do seed "${p##*/}"; done
	[ -d "$root/people/$person" ] || seed "people/$person"
	chown "$uid:$gid" "$root" "$root/people"
	say "tree $root: made (a copy of examples/agent, $user's)"
elif [ -n "$new_parts" ]; then
	for p in $new_parts; do
		if ! [ -d "$(dirname "$root/$p")" ]; then
			mkdir -p "$(dirname "$root/$p")"
			chown "$uid:$gid" "$(dirname "$root/$p")"
		fi
		seed "$p"
		say "tree $root/$p: made ($user's)"
	done
else
	say "tree $root: unchanged"
fi

# The key and the store; then one seal for every name made or updated.
if [ -n "$names$entries" ]; then
	if [ -n "$key_new" ]; then
		mkdir -p "$(dirname "$key")"
		"$otosecret" keygen --out "$key" || die 111 "unable to make the key $key (above: why)"
		say "key $key: made"
	else
		say "key $key: unchanged"
	fi
	if [ -n "$sdir" ] && ! [ -d "$sdir" ]; then
		mkdir -p "$(dirname "$sdir")"
		mkdir -m 0700 "$sdir"
		chown "$uid:$gid" "$sdir"
	fi
	if [ -n "$seal_names" ]; then
		mkdir -p "$(dirname "$store")"
		for n in $seal_names; do
			eval "printf '%s=%s\n' \"\$n\" \"\$val_$n\""
		done | "$otosecret" seal --key-file "$key" --store "$store" ||
			die 111 "unable to seal the store $store (above: why)"
	fi
	for l in $import_entries; do
		n=${l%%=*}
		p=${l#*=}
		case $p in */*) how=--profile-file ;; *) how=--profile ;; esac
		eval "f=\$file_$n"
		mkdir -p "$(dirname "$store")"
		# What it took and when the access token expires, on stderr: stdout is the line.
		"$otosecret" import "$how" "$p" --name "$n" --key-file "$key" --store "$store" "$f" >&2 ||
			die 101 "unable to import $f into the store $store (above: why)"
	done
	[ -z "$sdir" ] || chown "$uid:$gid" "$store" || die 111 "unable to give the store $store to $user"
	for n in $names $entries; do
		eval "say \"store $store, $n: \$state_$n\""
	done
fi

if [ -n "$install" ]; then
	# install.sh also copies the home into its second argument: a throwaway
	# one here, where the home is made below.
	t=$(mktemp -d)
	sh "$ex/install.sh" "$src" "$t/home" >&2 || { rm -rf "$t"; die 111 "unable to install $src ($ex/install.sh, above)"; }
	rm -rf "$t"
	say "install $src: made ($ex/install.sh)"
elif [ -n "$src" ] && [ -f "$ex/install.sh" ]; then
	say "install $src: unchanged"
fi

# The home skeleton: staged apart, compared, replaced only when it differs.
listing() { (cd "$1" && find . -printf '%y %m %P\n' | LC_ALL=C sort); }
if [ -n "$skel" ] && { [ -d "$home" ] || [ -f "$home_sh" ]; }; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	stage=$t/home
	mkdir "$stage"
	[ ! -d "$home" ] || cp -R "$home/." "$stage/"
	if [ -f "$home_sh" ]; then
		sh "$home_sh" "$stage" "$store" || die 111 "unable to make the home of $skel ($home_sh, above)"
	fi
	chmod -R a+rX,go-w "$stage"
	if [ -d "$skel" ] && [ "$(listing "$stage")" = "$(listing "$skel")" ] &&
		diff -r "$stage" "$skel" >/dev/null 2>&1; then
		say "home $skel: unchanged"
	else
		state=made
		[ ! -e "$skel" ] || state=updated
		rm -rf "$skel"
		mkdir -p "$(dirname "$skel")"
		cp -R "$stage" "$skel"
		say "home $skel: $state"
	fi
elif [ -n "$skel" ]; then
	say "home $skel: unchanged"
fi

# The line to run, as sh reads it back.
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
line="$(quote "$otorun") --config $(quote "$conf") --"
for a; do line="$line $(quote "$a")"; done
echo "$line"
[ -n "$run" ] || exit 0
# The values stay out of the chain's environment: the store holds them.
for n in $names $entries; do unset "$n"; done
exec "$otorun" --config "$conf" -- "$@"
