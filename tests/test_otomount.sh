#!/bin/sh
# otomount under otons: the role views, mounts and their flags, /etc, /proc,
# /dev, symlink attacks on the agent's tree, custom views, errors.
# run-as: root user
. "$(dirname "$0")/common.sh"

# The agent's tree, owned by the agent's uid, and a canary outside it.
suite_setUp() {
	A=$T/agent
	mkdir -p "$A/workspace" "$A/knowledge" "$A/config" "$A/people/alice" "$A/people/bob"
	echo w >"$A/workspace/w.txt"
	echo k >"$A/knowledge/k.txt"
	echo c >"$A/config/c.txt"
	echo a >"$A/people/alice/a.txt"
	echo b >"$A/people/bob/b.txt"
	mkdir "$T/canary"
	echo CANARY-SECRET >"$T/canary/secret"
	chmod 0644 "$T/canary/secret"
	# relatime updates an atime older than the mtime: any read would show.
	touch -a -d @946684800 "$T/canary/secret"
	canary_stat=$(stat -c '%X %Y %s' "$T/canary/secret")
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
	ME=$(id -u)
	[ -n "$IS_ROOT" ] && ME=$OTO_TEST_USER
	return 0
}

# ENOTSOCK in musl's words; the sanitized pass runs glibc builds (tests/run.sh).
# (ELOOP_TEXT: common.sh.)
ENOTSOCK_TEXT="Not a socket"
[ -n "${OTO_SAN:-}" ] && ENOTSOCK_TEXT="Socket operation on non-socket"

canary_untouched() {
	assertEquals "canary unread and unchanged" "$canary_stat" "$(stat -c '%X %Y %s' "$T/canary/secret")"
	assertEquals "CANARY-SECRET" "$(cat "$T/canary/secret")"
}

om() { otons $AS -- otomount "$@"; }
role() {
	_r=$1
	shift
	om --agent-root "$A" --role "$_r" --person alice "$@"
}

# For each path: absent, rw (a file can be created in it) or erofs.
PROBE='for p; do
	if [ ! -e "$p" ] && [ ! -L "$p" ]; then echo "$p absent"; continue; fi
	e=$( (: >"$p/.probe") 2>&1) && { rm -f "$p/.probe"; echo "$p rw"; continue; }
	case $e in *"Read-only file system"*) echo "$p erofs" ;; *) echo "$p other: $e" ;; esac
done'
# Absent from every view: the usual top-level directories, and each entry
# at the top of this host's own tree the view has no name for.
ABSENT=$(
	for p in /* /.[!.]*; do
		{ [ -e "$p" ] || [ -L "$p" ]; } || continue
		case $p in
		*[[:space:]]*) ;;
		/work | /knowledge | /config | /private | /usr | /bin | /sbin | /lib | /lib32 | /lib64 | \
			/libx32 | /etc | /home | /tmp | /dev | /proc) ;;
		*) echo "$p" ;;
		esac
	done
	printf '%s\n' /sys /run /root /var /mnt /opt /srv /boot /media /people /agent /home/bob
)
ABSENT=$(echo "$ABSENT" | sort -u)
PATHS="/ /work /knowledge /config /private /usr /bin /etc /home/agent /tmp /dev /dev/shm $ABSENT"

expected_matrix() { # WORK KNOWLEDGE CONFIG
	printf '%s\n' "/ erofs" "/work $1" "/knowledge $2" "/config $3" "/private rw" "/usr erofs" \
		"/bin erofs" "/etc erofs" "/home/agent rw" "/tmp rw" "/dev erofs" "/dev/shm rw"
	for p in $ABSENT; do
		echo "$p absent"
	done
}

check_role() { # ROLE WORK KNOWLEDGE CONFIG
	r=$1
	shift
	run otons $AS -- otomount --agent-root "$A" --role "$r" --person alice -- sh -c "$PROBE" probe $PATHS
	assertEquals "$r: rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$r: the view" "$(expected_matrix "$@")" "$(cat "$T/out")"
}

test_role_manager() { check_role manager rw rw rw; }
test_role_member() { check_role member rw erofs absent; }
test_role_viewer() { check_role viewer erofs erofs absent; }

test_role_contents_and_cwd() {
	run otons $AS -- otomount --agent-root "$A" --role manager --person alice -- \
		sh -c 'pwd; cat /work/w.txt /knowledge/k.txt /config/c.txt; ls -A /private; ls -A /home; echo "$HOME"'
	assertEquals "$(printf '/work\nw\nk\nc\na.txt\nagent\n/home/agent')" "$(cat "$T/out")"
	# bob's space is nowhere: no file of his, no mount of people/.
	run otons $AS -- otomount --agent-root "$A" --role member --person alice -- \
		sh -c 'find / -path /proc -prune -o -name b.txt -print; grep -c people/ /proc/self/mountinfo'
	assertEquals "people/alice only" "1" "$(cat "$T/out")"
}

# Mount point and options, without the atime flavour (the host's).
mounts_of() { # mountinfo on stdin
	awk '{ o = $6; gsub(/,?(relatime|noatime|strictatime|nodiratime)/, "", o); print $5, o }' | sort
}

check_mountinfo() { # ROLE: the exact mount list of its view
	r=$1
	run otons $AS -- otomount --agent-root "$A" --role "$r" --person alice -- cat /proc/self/mountinfo
	assertEquals 0 "$rc"
	cp "$T/out" "$T/mi"
	case $r in
	manager) work=rw know=rw ;;
	member) work=rw know=ro ;;
	*) work=ro know=ro ;;
	esac
	{
		echo "/ ro,nosuid,nodev"
		for d in /usr /bin /sbin /lib /lib32 /lib64 /libx32; do
			[ -d $d ] && [ ! -L $d ] && echo "$d ro,nosuid,nodev"
		done
		echo "/etc ro,nosuid,nodev,noexec"
		echo "/home/agent rw,nosuid,nodev"
		echo "/tmp rw,nosuid,nodev"
		echo "/proc rw,nosuid,nodev,noexec"
		for p in acpi asound interrupts kcore keys latency_stats timer_list timer_stats \
			sched_debug scsi bus fs irq sys sysrq-trigger; do
			[ -e /proc/$p ] && echo "/proc/$p ro,nosuid,nodev,noexec"
		done
		echo "/dev ro,nosuid,nodev,noexec"
		for d in null zero full random urandom tty; do echo "/dev/$d ro,nosuid,noexec"; done
		echo "/dev/pts ro,nosuid,noexec"
		echo "/dev/shm rw,nosuid,nodev"
		echo "/work $work,nosuid,nodev"
		echo "/knowledge $know,nosuid,nodev"
		[ $r = manager ] && echo "/config rw,nosuid,nodev"
		echo "/private rw,nosuid,nodev"
	} | sort >"$T/want"
	grep -v ' /etc/' "$T/mi" | mounts_of >"$T/got"
	assertEquals "$r: mounts outside /etc" "$(cat "$T/want")" "$(cat "$T/got")"
	# /etc's binds: read-only host directories of the allowlist, ssl/private masked.
	assertEquals "/etc binds" "" \
		"$(grep ' /etc/' "$T/mi" | mounts_of | grep -v ' ro,nosuid,nodev,noexec$')"
	# ssl/private masked where the host has one (test_ssl_private_masked makes one).
	[ -d /etc/ssl/private ] && masks=1 || masks=0
	assertEquals "ssl/private masks" "$masks" "$(grep -c ' /etc/ssl/private ro,' "$T/mi")"
	# No propagation tags: field 7 is the separator at once.
	assertEquals "no optional fields" "" "$(awk '$7 != "-"' "$T/mi")"
	# Host paths only where configured: the agent's tree, /usr and /etc entries.
	assertEquals "bind roots" "" "$(awk '{print $4}' "$T/mi" | sort -u |
		grep -vE "^/$|^/usr$|^/etc/[A-Za-z0-9._-]+$|^/(null|zero|full|random|urandom|tty|empty|bus|fs|irq|sys)$|^$A/(workspace|knowledge|config|people/alice)$")"
	assertEquals "old root gone: 1 root mount" 1 "$(awk '$5 == "/"' "$T/mi" | wc -l)"
}

test_mountinfo_manager() { check_mountinfo manager; }
test_mountinfo_member() { check_mountinfo member; }
test_mountinfo_viewer() { check_mountinfo viewer; }

# --home-skel: a skeleton's files in the fresh home, every session, while
# the home stays a tmpfs: directories, files and symlinks as they
# are (modes without the set-id bits, owned by the agent), anything else
# skipped, nothing written back; bounded in entries and bytes (101).
test_home_skel() {
	S=$T/skel
	mkdir -p "$S/.config/app" "$S/.codex"
	printf '[user]\n\tname = Agent\n' >"$S/.gitconfig"
	printf 'k = 1\n' >"$S/.config/app/settings.toml"
	printf 'sandbox_mode = "danger-full-access"\n' >"$S/.codex/config.toml"
	ln -s .config/app "$S/app"
	mkfifo "$S/fifo"
	printf '#!/bin/sh\n' >"$S/tool"
	chmod 4755 "$S/tool"
	chmod 0600 "$S/.codex/config.toml"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER" "$S"
	chmod a+rX "$S" "$S/.config" "$S/.config/app" "$S/.codex"
	sum=$(cd "$S" && find . -type f -exec sha256sum {} + | sort | sha256sum)
	run om --home-skel "$S" -- sh -c 'cd && find . | sort && stat -c "%a %U %n" tool .codex/config.toml .config &&
		readlink app && sha256sum .gitconfig | cut -d" " -f1 && echo changed >.gitconfig &&
		stat -f -c %T .'
	assertEquals "$(cat "$T/err")" 0 "$rc"
	assertEquals ".
./.codex
./.codex/config.toml
./.config
./.config/app
./.config/app/settings.toml
./.gitconfig
./app
./tool
755 agent tool
600 agent .codex/config.toml
755 agent .config
.config/app
$(sha256sum <"$S/.gitconfig" | cut -d' ' -f1)
tmpfs" "$(cat "$T/out")"
	assertEquals "the skeleton as it was" "$sum" \
		"$(cd "$S" && find . -type f -exec sha256sum {} + | sort | sha256sum)"
	# Bounds: entries, then bytes; nothing runs.
	mkdir -p "$T/many"
	(cd "$T/many" && seq 1 10001 | xargs touch)
	chmod -R a+rX "$T/many"
	run om --home-skel "$T/many" -- touch "$T/ran"
	assertEquals 101 "$rc"
	assertEquals "otomount: fatal: --home-skel $T/many: more than 10000 entries (a skeleton holds settings; bind big trees with --ro)" \
		"$(cat "$T/err")"
	mkdir -p "$T/big"
	head -c $((65 << 20)) /dev/zero >"$T/big/blob"
	chmod -R a+rX "$T/big"
	run om --home-skel "$T/big" -- touch "$T/ran"
	assertEquals 101 "$rc"
	assertEquals "otomount: fatal: --home-skel $T/big: more than 64 MiB (a skeleton holds settings; bind big trees with --ro)" \
		"$(cat "$T/err")"
	assertFalse "nothing ran" "[ -e $T/ran ]"
	rm -f "$T/big/blob"
	ln -s "$S" "$T/skel-link"
	run om --home-skel "$T/skel-link" -- true
	assertEquals 111 "$rc"
	assertEquals "otomount: fatal: --home-skel $T/skel-link: unable to open (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
}

test_submount_under_ro_bind_is_ro() {
	mkdir -p "$T/src/sub"
	chmod -R 0777 "$T/src"
	# uid 0 inside, so mount(8) may mount: a tmpfs under the source, then the view.
	run otons $AS --uid 0 --gid 0 -- sh -c "mount -t tmpfs sub '$T/src/sub' && touch '$T/src/sub/x' &&
		exec otomount --ro '$T/src:/data' -- sh -c 'grep \" /data/sub \" /proc/self/mountinfo | cut -d\" \" -f6; : >/data/sub/y'"
	assertEquals 2 "$rc"
	assertContains "$(cut -d, -f1 "$T/out")" "ro"
	assertContains "$(cat "$T/err")" "Read-only file system"
	# The control: the same submount written through a --rw bind.
	run otons $AS --uid 0 --gid 0 -- sh -c "mount -t tmpfs sub '$T/src/sub' &&
		exec otomount --rw '$T/src:/data' -- sh -c ': >/data/sub/y'"
	assertEquals 0 "$rc"
}

test_secrets_absent() {
	run otons $AS -- otomount --agent-root "$A" --role manager --person alice -- sh -c '
		for p in ~/.ssh ~/.aws ~/.config ~/.netrc /root /run /sys /var/run/docker.sock \
			/etc/shadow /etc/gshadow /etc/sudoers /etc/ssh; do
			[ -e "$p" ] && echo "present: $p"
		done
		ls -A /home; ls -A /etc/ssl/private
		find / -path /proc -prune -o -type s -print 2>/dev/null; true'
	assertEquals 0 "$rc"
	assertEquals "only agent in /home, nothing else" "agent" "$(cat "$T/out")"
}

test_etc_generated() {
	run otons $AS -- otomount --agent-root "$A" --role member --person alice -- \
		sh -c 'cat /etc/passwd; echo --; cat /etc/group; echo --; cat /etc/hostname; id -un; id -gn'
	assertEquals "$(printf 'root:x:0:0:root:/root:/bin/sh\nagent:x:%s:%s:agent:/home/agent:/bin/sh\n--\nroot:x:0:\nagent:x:%s:\n--\nagent\nagent\nagent' "$ME" "$ME" "$ME")" \
		"$(cat "$T/out")"
	run otons $AS -- otomount --user-name bot --home /home/bot -- sh -c 'grep ^bot: /etc/passwd; echo "$HOME"; pwd; stat -c "%a %u" "$HOME"'
	assertEquals "$(printf 'bot:x:%s:%s:bot:/home/bot:/bin/sh\n/home/bot\n/home/bot\n700 %s' "$ME" "$ME" "$ME")" "$(cat "$T/out")"
	run otons $AS -- otomount -- sha256sum /etc/resolv.conf
	assertEquals "resolv.conf copied" "$(sha256sum </etc/resolv.conf | cut -d' ' -f1)" "$(cut -d' ' -f1 "$T/out")"
	run otons $AS -- otomount -- sh -c 'grep -c "	agent$" /etc/hosts; : >/etc/passwd'
	assertEquals 1 "$(cat "$T/out")"
	assertContains "$(cat "$T/err")" "Read-only file system"
}

# Host private keys under the allowlisted ssl/ never enter the view. The
# host's /etc is not touched: in a mount namespace of otons' own (gone with
# it), a bind of a made-up /etc takes its place where otomount reads it. The
# key is readable by anyone: only the mask can keep it out.
test_ssl_private_masked() {
	mkdir -p "$T/etc/ssl/private/sub" "$T/etc/ssl/certs"
	echo PRIVATE-KEY >"$T/etc/ssl/private/host.key"
	echo PRIVATE-SUB >"$T/etc/ssl/private/sub/other.key"
	echo CERT >"$T/etc/ssl/certs/ca.pem"
	chmod -R a+rX "$T/etc"
	run otons $AS --uid 0 --gid 0 -- sh -c "mount --bind '$T/etc' /etc && exec otomount -- sh -c '
		cat /etc/ssl/certs/ca.pem; ls -A /etc/ssl; echo --; ls -A /etc/ssl/private; echo --
		grep -rh . /etc/ssl/private /etc/ssl/private/host.key 2>&1
		grep \" /etc/ssl/private \" /proc/self/mountinfo | cut -d\" \" -f5'"
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	# The made-up /etc is the one read (its certificate), its private/ is empty.
	assertEquals "$(printf '%s\n' CERT certs private -- -- \
		'grep: /etc/ssl/private/host.key: No such file or directory' /etc/ssl/private)" \
		"$(cat "$T/out")"
	assertNotContains "$(cat "$T/out" "$T/err")" "PRIVATE-"
}

test_etc_allowlist() {
	run otons $AS -- otomount -- sh -c 'ls -A /etc; echo --; sha256sum /etc/nsswitch.conf /etc/ld.so.cache'
	assertEquals 0 "$rc"
	sed '/^--$/,$d' "$T/out" >"$T/names"
	for n in shadow gshadow shadow- gshadow- passwd- group- sudoers sudoers.d ssh \
		subuid subgid security pam.d fstab crontab cron.d ld.so.preload environment; do
		assertFalse "/etc/$n absent" "grep -qx '$n' '$T/names'"
	done
	for n in passwd group hostname hosts resolv.conf nsswitch.conf ld.so.cache machine-id oto-protected; do
		assertTrue "/etc/$n present" "grep -qx '$n' '$T/names'"
	done
	# Everything else but oto's own line is a host entry, copied as it is.
	assertEquals "only host names" "" "$(grep -vx oto-protected "$T/names" | while read -r n; do [ -e "/etc/$n" ] || [ -L "/etc/$n" ] || echo "$n"; done)"
	assertEquals "copies" "$(cd /etc && sha256sum nsswitch.conf ld.so.cache | sed 's|  |  /etc/|')" \
		"$(sed '1,/^--$/d' "$T/out")"
}

# What developers' tools read at run time is there when the host has it:
# fontconfig, XDG and X11 defaults, GTK's settings for headless toolkits, the
# XML and SGML catalogs, bash completions, Chromium's configuration. The
# machine-id is the view's own: 32 hex digits, new for every session, never
# the host's (D-Bus and Chromium want one; the host's would identify it).
test_etc_for_toolkits_and_machine_id() {
	names="fonts xdg X11 gtk-2.0 gtk-3.0 xml sgml bash_completion bash_completion.d chromium chromium.d"
	run otons $AS -- otomount -- sh -c "for n in $names; do [ -e /etc/\$n ] && echo \$n; done; cat /etc/machine-id"
	assertEquals "$(cat "$T/err")" 0 "$rc"
	want=$(for n in $names; do [ -e "/etc/$n" ] && echo "$n"; done)
	assertEquals "present in the view as on the host" "$want" "$(sed '$d' "$T/out")"
	assertContains "this host has fontconfig's" "$want" fonts
	id1=$(tail -1 "$T/out")
	assertTrue "32 hex digits: $id1" "echo '$id1' | grep -Eqx '[0-9a-f]{32}'"
	run otons $AS -- otomount -- cat /etc/machine-id
	assertNotEquals "a new one each session" "$id1" "$(cat "$T/out")"
	[ -r /etc/machine-id ] && assertNotEquals "not the host's" "$(cat /etc/machine-id)" "$id1"
}

test_status_fd() {
	run sh -c "OTO_STATUS_FD=3 otons $AS -- otomount --agent-root '$T/nope' --role member --person alice -- true 3>'$T/status'"
	assertEquals 111 "$rc"
	assertEquals "otomount 111 2 " "$(cut -d' ' -f1-3 "$T/status") "
}

test_resolv_conf_symlink_followed() {
	mkdir "$T/fakeetc"
	echo "nameserver 192.0.2.53" >"$T/stub-resolv.conf"
	ln -s "$T/stub-resolv.conf" "$T/fakeetc/resolv.conf"
	chmod -R a+rX "$T/fakeetc"
	run otons $AS --uid 0 --gid 0 -- sh -c "mount --bind '$T/fakeetc' /etc &&
		exec otomount -- sh -c 'cat /etc/resolv.conf; [ -L /etc/resolv.conf ] || echo regular'"
	assertEquals "$(printf 'nameserver 192.0.2.53\nregular')" "$(cat "$T/out")"
}

# The host's resolv.conf, read to its end (20 000 bytes, more than one read
# and more than the 8 KiB once kept), or, past 64 KiB, not at all: an empty
# one in the view and a warning, never a file cut short.
test_resolv_conf_copied_whole_or_not_at_all() {
	mkdir "$T/fakeetc"
	chmod a+rX "$T/fakeetc"
	for size in 20000 65537; do
		head -c $((size - 23)) /dev/zero | tr '\0' '#' >"$T/fakeetc/resolv.conf"
		printf '\nnameserver 192.0.2.53\n' >>"$T/fakeetc/resolv.conf"
		chmod a+r "$T/fakeetc/resolv.conf"
		run otons $AS --uid 0 --gid 0 -- sh -c "mount --bind '$T/fakeetc' /etc &&
			exec otomount -- sh -c 'wc -c </etc/resolv.conf; tail -n 1 /etc/resolv.conf'"
		assertEquals "$size: rc" 0 "$rc"
		case $size in
		20000)
			assertEquals "$(printf '20000\nnameserver 192.0.2.53')" "$(cat "$T/out")"
			assertEquals "" "$(cat "$T/err")"
			;;
		*)
			assertEquals "0" "$(cat "$T/out")"
			assertEquals "otomount: warning: unable to read /etc/resolv.conf: the view's is empty: File too large" \
				"$(cat "$T/err")"
			;;
		esac
	done
}

test_proc() {
	run otons $AS -- otomount -- sh -c '
		echo x >/proc/sys/kernel/core_pattern 2>/dev/null && echo core_pattern-written
		echo x >/proc/sysrq-trigger 2>/dev/null && echo sysrq-written
		head -c 1 /proc/kcore >/dev/null 2>&1 && echo kcore-read
		for f in keys timer_list interrupts; do [ -e /proc/$f ] && printf "%s %s\n" $f "$(wc -c </proc/$f)"; done
		[ -d /proc/acpi ] && ls -A /proc/acpi | wc -l
		ls /proc | grep "^[0-9]" | sort -n | tr "\n" " "'
	assertEquals 0 "$rc"
	want=""
	for f in keys timer_list interrupts; do [ -e /proc/$f ] && want="$want$f 0
"; done
	[ -d /proc/acpi ] && want="${want}0
"
	# pid 1 (otons init), sh, ls, grep, sort, tr: nothing of the host.
	assertEquals "masks" "$want" "$(sed '$d' "$T/out")
"
	assertEquals "pid 1 and 2 first" "1 2 " "$(tail -n1 "$T/out" | cut -d' ' -f1-2) "
	assertTrue "only sandbox pids: $(tail -n1 "$T/out")" "[ \$(tail -n1 '$T/out' | wc -w) -le 6 ]"
	# A masked file is unreadable once capabilities are gone (as otoexec leaves it).
	run otons $AS -- otomount -- setpriv --inh-caps=-all --ambient-caps=-all cat /proc/keys
	assertEquals 1 "$rc"
	assertContains "$(cat "$T/err")" "Permission denied"
	run otons $AS --uid 0 --gid 0 -- otomount -- sh -c 'echo core >/proc/sys/kernel/core_pattern'
	assertContains "$(cat "$T/err")" "Read-only file system"
}

test_dev() {
	run otons $AS -- otomount -- sh -c 'ls -A /dev | tr "\n" " "; echo; readlink /dev/ptmx
		echo x >/dev/null && head -c 4 /dev/zero | od -An -tx1 && head -c 8 /dev/urandom | wc -c
		mknod /dev/x c 1 3 2>/dev/null && echo mknod-dev; mknod /tmp/x c 1 3 2>/dev/null && echo mknod-tmp
		python3 -c "import os; m, s = os.openpty(); print(os.ttyname(s))"
		ls -A /dev/pts | tr "\n" " "; echo
		readlink /dev/fd /dev/stdin /dev/stdout /dev/stderr | tr "\n" " "; echo
		echo via-stdin | cat /dev/stdin; echo via-fd | cat /dev/fd/0
		(echo via-stderr >/dev/stderr) 2>&1 | cat'
	assertEquals "$(printf 'fd full null ptmx pts random shm stderr stdin stdout tty urandom zero \npts/ptmx\n 00 00 00 00\n8\n/dev/pts/0\nptmx \n/proc/self/fd /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2 \nvia-stdin\nvia-fd\nvia-stderr')" \
		"$(cat "$T/out")"
	assertEquals "" "$(cat "$T/err")"
}

test_workspace_symlink_refused() {
	mv "$A/workspace" "$A/workspace.real"
	ln -s "$T/canary" "$A/workspace"
	run role member -- cat /work/secret
	assertEquals 111 "$rc"
	assertOneLine otomount
	assertContains "$(cat "$T/err")" "$A/workspace"
	canary_untouched
}

test_people_and_path_symlinks_refused() {
	# A link that stays inside the agent root: bob's space as alice's /work.
	mv "$A/workspace" "$A/workspace.real"
	ln -s people/bob "$A/workspace"
	run role member -- cat /work/b.txt
	assertEquals 111 "$rc"
	assertEquals "" "$(cat "$T/out")"
	rm "$A/workspace" && mv "$A/workspace.real" "$A/workspace"
	rm -rf "$A/people/alice"
	ln -s ../../canary "$A/people/alice"
	run role member -- cat /private/secret
	assertEquals 111 "$rc"
	assertContains "$(cat "$T/err")" "people/alice"
	# people/ itself a link: a symlink crossed in the middle of the path.
	mkdir -p "$T/canary/alice" && echo CANARY-SECRET >"$T/canary/alice/secret"
	chmod -R a+rX "$T/canary"
	mv "$A/people" "$A/people.real"
	ln -s ../canary "$A/people"
	run role member -- cat /private/secret
	assertEquals 111 "$rc"
	assertContains "$(cat "$T/err")" "people/alice"
	rm "$A/people" && mv "$A/people.real" "$A/people"
	# An agent root reached through a symlink.
	ln -s "$T" "$T/link"
	rm "$A/people/alice" && mkdir "$A/people/alice" && chmod 0777 "$A/people/alice"
	run om --agent-root "$T/link/agent" --role member --person alice -- true
	assertEquals 111 "$rc"
	assertOneLine otomount
	# knowledge/../ tricks: a person that climbs, knowledge as a relative link out.
	run role member --person ../../canary -- true
	assertEquals 100 "$rc"
	rm -rf "$A/knowledge"
	ln -s ../canary "$A/knowledge"
	run role member -- cat /knowledge/secret
	assertEquals 111 "$rc"
	assertContains "$(cat "$T/err")" "knowledge"
	# --ro from a symlink, --ro-within on a planted one.
	run om --ro "$T/link/canary:/c" -- cat /c/secret
	assertEquals 111 "$rc"
	rm "$A/knowledge" && mkdir "$A/knowledge" && chmod 0777 "$A/knowledge"
	mkdir -p "$A/workspace/.git" && ln -s "$T/canary" "$A/workspace/.git/hooks"
	chmod -R a+rwX "$A/workspace/.git"
	run role member --ro-within /work/.git/hooks -- cat /work/.git/hooks/secret
	assertEquals 111 "$rc"
	assertOneLine otomount
	canary_untouched
}

# A source that is not there is said to be missing, not a symlink: the
# openat2 flags that refuse a symlink (ELOOP) also meet plain ENOENT.
test_missing_source_said_missing() {
	run role member --person carol -- true
	assertEquals "a person without a space" 111 "$rc"
	assertEquals "otomount: fatal: unable to open $A/people/carol (it does not exist; make it: mkdir -p $A/people/carol, and chown it to the agent's account if the role writes it): No such file or directory" \
		"$(cat "$T/err")"
	run om --agent-root "$T/nothere" --role member --person alice -- true
	assertEquals "no agent root" 111 "$rc"
	assertEquals "otomount: fatal: unable to open the agent root $T/nothere (it does not exist; make it: mkdir -p $T/nothere/workspace $T/nothere/knowledge $T/nothere/people/alice, and chown -R to the agent's account the parts the role writes): No such file or directory" \
		"$(cat "$T/err")"
	run role member --ro "$T/nothere:/x" -- true
	assertEquals "--ro" 111 "$rc"
	assertEquals "otomount: fatal: unable to open $T/nothere (it does not exist): No such file or directory" \
		"$(cat "$T/err")"
	run role member --socket "$T/nothere.sock:/x.sock" -- true
	assertEquals "--socket" 111 "$rc"
	assertEquals "otomount: fatal: unable to open the socket $T/nothere.sock (it does not exist): No such file or directory" \
		"$(cat "$T/err")"
	run role member --ro-within /work/nothere -- true
	assertEquals "--ro-within" 111 "$rc"
	assertEquals "otomount: fatal: unable to open /work/nothere in the view (it does not exist): No such file or directory" \
		"$(cat "$T/err")"
	# A symlink is still named as one, in the middle of the path or at its end.
	ln -s "$T/canary" "$T/link"
	run role member --ro "$T/link/secret:/x" -- true
	assertEquals "otomount: fatal: unable to open $T/link/secret (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
	run role member --ro "$T/link:/x" -- true
	assertEquals 111 "$rc"
	assertEquals "otomount: fatal: unable to open $T/link (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
}

# A symlink in the middle of a path that stays inside the agent root:
# people -> people.real, so people/alice resolves beneath the root and
# RESOLVE_BENEATH alone would let it through (O_NOFOLLOW only checks the last
# component). RESOLVE_NO_SYMLINKS refuses it.
test_symlinked_component_inside_the_root_refused() {
	mv "$A/people" "$A/people.real"
	ln -s people.real "$A/people"
	run role member -- cat /private/a.txt
	assertEquals 111 "$rc"
	assertEquals "otomount: fatal: unable to open $A/people/alice (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
	# The control: the same tree with people a directory again.
	rm "$A/people" && mv "$A/people.real" "$A/people"
	run role member -- cat /private/a.txt
	assertEquals "control ($(cat "$T/err"))" "0 a" "$rc $(cat "$T/out")"
}

test_symlink_inside_workspace_dangles() {
	ln -s "$T/canary/secret" "$A/workspace/leak"
	ln -s "$T/canary" "$A/workspace/leakdir"
	run role member -- sh -c 'readlink /work/leak; cat /work/leak /work/leakdir/secret; ls /work/leakdir'
	# The links are there, as links; ls names the dangling one itself.
	assertEquals "$(printf '%s\n/work/leakdir' "$T/canary/secret")" "$(cat "$T/out")"
	assertEquals 2 "$(grep -c 'No such file or directory' "$T/err")"
	assertNotContains "$(cat "$T/out" "$T/err")" "CANARY"
	# Mount points are never made or used through the agent's links.
	chmod 0777 "$T/canary"
	run role member --tmpfs /work/leakdir/x -- true
	assertEquals "--tmpfs through a planted link" 111 "$rc"
	assertOneLine otomount
	# The message names the step: the mount point, and what was to go there.
	assertEquals "otomount: fatal: unable to make the mount point /work/leakdir/x for a tmpfs: $ELOOP_TEXT" \
		"$(cat "$T/err")"
	run role member --hide /work/leak -- true
	assertEquals "--hide on a planted link" 111 "$rc"
	run role member --rw "$T/canary:/work/leakdir" -- true
	assertEquals "--rw onto a planted link" 111 "$rc"
	assertEquals "otomount: fatal: unable to make the mount point /work/leakdir for $T/canary: Not a directory" \
		"$(cat "$T/err")"
	assertEquals "nothing made in the canary's directory" "secret" "$(ls "$T/canary")"
	# Links to paths that do exist in the view: still never followed.
	ln -s ../private "$A/workspace/toprivate"
	ln -s ../usr/bin "$A/workspace/tobin"
	run role member --tmpfs /work/toprivate/x -- true
	assertEquals "--tmpfs through a link into the view" 111 "$rc"
	assertFalse "no directory made in people/alice" "[ -e '$A/people/alice/x' ]"
	run role member --hide /work/tobin -- ls /usr/bin/sh
	assertEquals "--hide on a link into the view" 111 "$rc"
	canary_untouched
}

test_symlink_swap_race() {
	gcc -O2 -o "$T/swap" "$OTO_TESTS/helpers/otomount_swap.c" || { fail "helper build"; return; }
	mkdir "$A/ws.real"
	echo real >"$A/ws.real/secret"
	rmdir "$A/workspace" 2>/dev/null || rm -rf "$A/workspace"
	mv "$A/ws.real" "$A/workspace"
	ln -s "$T/canary" "$A/ws.link"
	chmod -R a+rwX "$A"
	"$T/swap" "$A" workspace ws.link 120 >/dev/null &
	swapper=$!
	n=0 ok=0 refused=0 other=0 start=$(date +%s)
	while [ $n -lt 200 ] && [ $(($(date +%s) - start)) -lt 120 ]; do
		out=$(otons $AS -- otomount --agent-root "$A" --role member --person alice -- cat /work/secret 2>&1)
		code=$?
		case "$code:$out" in
		0:real) ok=$((ok + 1)) ;;
		111:*workspace*) refused=$((refused + 1)) ;;
		*) other=$((other + 1)); echo "  launch $n: $code $out" ;;
		esac
		n=$((n + 1))
	done
	kill "$swapper"
	wait "$swapper" 2>/dev/null
	echo "  $n launches: $ok saw the real workspace, $refused refused"
	assertEquals "every launch: real or refused" 0 "$other"
	assertTrue "the race was run ($n)" "[ $n -ge 100 ]"
	canary_untouched
}

test_files_owned_by_the_agent() {
	run role member -- sh -c 'echo made >/work/new.txt; mkdir /work/d; echo p >/private/p.txt'
	assertEquals 0 "$rc"
	assertEquals "$ME $ME made" "$(stat -c '%u %g' "$A/workspace/new.txt") $(cat "$A/workspace/new.txt")"
	assertEquals "$ME" "$(stat -c '%u' "$A/workspace/d")"
	assertEquals "p" "$(cat "$A/people/alice/p.txt")"
}

test_custom_views() {
	mkdir -p "$T/ro" "$T/rw"
	echo r >"$T/ro/f"
	echo single >"$T/file"
	chmod -R a+rwX "$T/ro" "$T/rw" "$T/file"
	run om --ro "$T/ro:/data/ro" --rw "$T/rw:/data/rw" --ro "$T/file:/opt/file" --tmpfs /scratch:1m \
		--hide /usr/share/doc -- sh -c '
		cat /data/ro/f /opt/file; true >/data/ro/x; echo w >/data/rw/w
		head -c 2000000 /dev/zero >/scratch/big; ls -A /usr/share/doc | wc -l; true >/usr/share/doc/x
		grep -E " /(data/ro|data/rw|opt/file|scratch|usr/share/doc) " /proc/self/mountinfo | cut -d" " -f5,6'
	assertEquals "$(printf 'r\nsingle\n0\n/data/ro ro,nosuid,nodev,relatime\n/data/rw rw,nosuid,nodev,relatime\n/opt/file ro,nosuid,nodev,relatime\n/scratch rw,nosuid,nodev,relatime\n/usr/share/doc ro,nosuid,nodev,noexec,relatime')" \
		"$(cat "$T/out")"
	assertEquals 2 "$(grep -c 'Read-only file system' "$T/err")"
	assertEquals 1 "$(grep -c 'No space left on device' "$T/err")"
	assertEquals w "$(cat "$T/rw/w")"
}

# serve_sock SOCK MODE CMD...: otoconnect serving CMD on SOCK, in the
# background ($srv); waits (bounded) for the socket to exist.
serve_sock() {
	_s=$1 _m=$2
	shift 2
	otoconnect --serve "$_s" --mode "$_m" -- "$@" 2>>"$T/srv.err" &
	srv=$!
	_n=0
	while [ ! -S "$_s" ] && [ $_n -lt 100 ]; do sleep 0.05; _n=$((_n + 1)); done
}

# One host socket, alone in the view: connectable through the read-only bind
# (connect(2) checks the inode's write permission, not the mount's flags),
# nothing else of its directory there, its mode and owner beyond the agent's
# reach (EROFS), and no host path of it.
test_socket_alone_and_connectable() {
	mkdir "$T/s"
	echo private >"$T/s/neighbour"
	chmod -R a+rX "$T/s"
	serve_sock "$T/s/tool.sock" 666 echo tool-here
	run om --ro "$OTO_BIN:/opt/oto/bin" --socket "$T/s/tool.sock:/tools/metrics.sock" -- sh -c '
		/opt/oto/bin/otoconnect /tools/metrics.sock </dev/null; ls -A /tools; ls "$0" 2>&1 | wc -l
		chmod 0777 /tools/metrics.sock; mv /tools/metrics.sock /tools/x
		grep " /tools/metrics.sock " /proc/self/mountinfo | cut -d" " -f4-6' "$T/s"
	kill "$srv"
	wait "$srv" 2>/dev/null
	assertEquals "rc ($(cat "$T/err"))" 0 "$rc"
	assertEquals "$(printf 'tool-here\nmetrics.sock\n1\n%s /tools/metrics.sock ro,nosuid,nodev,relatime' "$T/s/tool.sock")" \
		"$(cat "$T/out")"
	assertEquals "chmod and mv refused" 2 "$(grep -c 'Read-only file system' "$T/err")"
	assertEquals "mode unchanged on the host" 666 "$(stat -c %a "$T/s/tool.sock")"
}

# Who may connect is the socket's mode: root's socket, mode 0600, refuses
# the agent (uid $OTO_TEST_USER) with EACCES, bound read-write or not.
test_socket_mode_decides_who_connects() {
	[ -n "$IS_ROOT" ] || { skip "needs a socket owned by another uid (root)"; return; }
	serve_sock "$T/tool.sock" 600 echo tool-here
	run om --ro "$OTO_BIN:/opt/oto/bin" --socket "$T/tool.sock:/t.sock" -- /opt/oto/bin/otoconnect /t.sock
	kill "$srv"
	wait "$srv" 2>/dev/null
	assertEquals 111 "$rc"
	assertEquals "otoconnect: fatal: unable to connect to /t.sock: Permission denied" "$(cat "$T/err")"
}

test_socket_refusals() {
	: >"$T/file"
	run om --socket "$T/file:/t.sock" -- true
	assertEquals "a file" 111 "$rc"
	assertEquals "otomount: fatal: unable to bind $T/file on /t.sock: not a socket: $ENOTSOCK_TEXT" \
		"$(cat "$T/err")"
	serve_sock "$T/tool.sock" 666 echo tool-here
	ln -s "$T/tool.sock" "$T/link.sock"
	run om --socket "$T/link.sock:/t.sock" -- true
	kill "$srv"
	wait "$srv" 2>/dev/null
	assertEquals "a symlink" 111 "$rc"
	assertEquals "otomount: fatal: unable to open the socket $T/link.sock (a symlink is refused): $ELOOP_TEXT" \
		"$(cat "$T/err")"
	long=/$(printf '%0107d' 0)
	run om --socket "$T/tool.sock:$long" -- true
	assertEquals "DST of 108 bytes" 100 "$rc"
	assertOneLine otomount
	assertContains "$(cat "$T/err")" "DST under 108 bytes"
	for bad in /a /a: :/b a:/b /a:/ /a:/b/../c; do
		run om --socket "$bad" -- true
		assertEquals "--socket $bad" 100 "$rc"
		assertOneLine otomount
	done
}

test_tmp_size() {
	run om --tmp-size 1m -- sh -c 'for d in /tmp /dev/shm "$HOME"; do
		head -c 2000000 /dev/zero >$d/big 2>/dev/null || echo "$d full at $(wc -c <$d/big)"; done'
	assertEquals "$(printf '/tmp full at 1048576\n/dev/shm full at 1048576\n/home/agent full at 1048576')" "$(cat "$T/out")"
	run om -- sh -c 'head -c 2000000 /dev/zero >/tmp/big && wc -c </tmp/big'
	assertEquals "default is larger" 2000000 "$(cat "$T/out")"
}

# Empty files take no page of the size cap but about 1 KiB of kernel memory
# each: the inode count is capped too. Stops at 1100 without the cap.
test_tmp_inodes() {
	run om --tmp-inodes 1000 --tmpfs /s:1m -- sh -c 'for d in /tmp /dev/shm "$HOME" /s; do
		i=0; while [ $i -lt 1100 ] && true >"$d/f$i"; do i=$((i + 1)); done; echo "$d $i"; done'
	assertEquals "999 files each, the root takes an inode" \
		"$(printf '/tmp 999\n/dev/shm 999\n/home/agent 999\n/s 999')" "$(cat "$T/out")"
	assertEquals "stderr: $(cat "$T/err")" 4 "$(grep -c 'No space left on device' "$T/err")"
	# The default: one inode per 4 KiB of each one's size, --tmpfs by its own.
	run om --tmpfs /s:1m --tmpfs /t -- stat -f -c '%n %c' /tmp /dev/shm /home/agent /s /t
	assertEquals "$(printf '/tmp 65536\n/dev/shm 65536\n/home/agent 65536\n/s 256\n/t 65536')" \
		"$(cat "$T/out")"
	run om --tmp-size 1m --tmpfs /s:4k -- stat -f -c '%n %c' /tmp /dev/shm /home/agent /s
	assertEquals "--tmp-size 1m, and a tiny one" \
		"$(printf '/tmp 256\n/dev/shm 256\n/home/agent 256\n/s 16')" "$(cat "$T/out")"
	# The read-only ones get a fixed bound; what they hold must still fit.
	run om -- stat -f -c '%n %c' /etc /dev
	assertEquals "$(printf '/etc 256\n/dev 64')" "$(cat "$T/out")"
	for bad in 0 -1 x 1k "" " 1" 4294967296; do
		run om --tmp-inodes "$bad" -- true
		assertEquals "--tmp-inodes '$bad'" 100 "$rc"
		assertOneLine otomount
		assertContains "$(cat "$T/err")" "--tmp-inodes $bad: expected"
	done
}

test_ro_within_workspace() {
	mkdir -p "$A/workspace/.git/hooks"
	echo "[core]" >"$A/workspace/.git/config"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER" "$A/workspace/.git"
	run role member --ro-within /work/.git/hooks --ro-within /work/.git/config -- sh -c '
		echo evil >/work/.git/hooks/pre-commit; echo evil >>/work/.git/config; echo ok >/work/.git/HEAD; echo done'
	assertEquals "done" "$(cat "$T/out")"
	assertEquals 2 "$(grep -c 'Read-only file system' "$T/err")"
	assertFalse "no hook planted" "[ -e '$A/workspace/.git/hooks/pre-commit' ]"
	assertEquals "[core]" "$(cat "$A/workspace/.git/config")"
	assertEquals ok "$(cat "$A/workspace/.git/HEAD")"
	# The control: with the git directory exempt from the default protection and
	# without the option, the hook lands on the host.
	run role member --writable /work/.git -- sh -c 'echo evil >/work/.git/hooks/pre-commit'
	assertTrue "hook written without --ro-within" "[ -e '$A/workspace/.git/hooks/pre-commit' ]"
}

# ---- files the host runs later ------------------------------------------------

# A workspace with a repository at its top (depth 1) and one six levels down,
# a bare repository, a worktree's .git file, a submodule's git directory, and
# start-up files at the top; a remote outside /work to fetch from.
protected_tree() {
	g() { git -c safe.directory='*' -c user.email=o@t -c user.name=oto -c init.defaultBranch=main "$@"; }
	W=$A/workspace
	g init -q "$W" && g -C "$W" commit -q --allow-empty -m one
	mkdir -p "$W/a/b/c/d/e" && g init -q "$W/a/b/c/d/e"
	g init -q --bare "$W/bare.git"
	mkdir -p "$W/wt" && echo "gitdir: /work/.git/worktrees/wt" >"$W/wt/.git"
	mkdir -p "$W/.git/modules/sub/hooks" && echo "[core]" >"$W/.git/modules/sub/config" &&
		echo "ref: refs/heads/main" >"$W/.git/modules/sub/HEAD" &&
		mkdir -p "$W/.git/modules/sub/objects" "$W/.git/modules/sub/refs"
	echo rc >"$W/.bashrc"
	echo 'echo hi' >"$W/.envrc"
	mkdir -p "$W/.vscode" && echo '{}' >"$W/.vscode/tasks.json"
	echo '{}' >"$W/.mcp.json"
	g init -q --bare "$A/knowledge/remote.git"
	g -C "$W" push -q "$A/knowledge/remote.git" main 2>/dev/null
	g -C "$W" remote add origin /knowledge/remote.git
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
}

tree_listing() { # the agent's tree as the host sees it: every path, type, size, mode, mtime
	find "$A" -printf '%p %y %s %m %T@\n' | LC_ALL=C sort
}

# What the agent writes to each protected path: EROFS, or EBUSY for a move of a git
# directory; the host's files as they were.
PLANT='for p in /work/.git/hooks/pre-commit /work/.git/info/attributes /work/a/b/c/d/e/.git/hooks/post-checkout \
		/work/bare.git/hooks/update /work/.git/modules/sub/hooks/post-merge /work/.vscode/evil.json; do
		(echo evil >"$p") 2>&1 | sed "s/.*: //"; done
	for p in /work/.git/config /work/a/b/c/d/e/.git/config /work/bare.git/config /work/.git/modules/sub/config \
		/work/wt/.git /work/.bashrc /work/.envrc /work/.vscode/tasks.json /work/.mcp.json; do
		(echo evil >>"$p") 2>&1 | sed "s/.*: //"; done
	mv /work/.git /work/.git2 2>&1 | sed "s/.*: //"; mv /work/a/b/c/d/e/.git /work/x 2>&1 | sed "s/.*: //"'

test_host_run_files_are_read_only_by_default() {
	protected_tree
	before=$(tree_listing)
	run role member -- sh -c "$PLANT"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "$(printf 'Read-only file system\n%.0s' $(seq 15))
Device or resource busy
Device or resource busy" "$(cat "$T/out")"
	assertEquals "the host's tree, unchanged" "$before" "$(tree_listing)"
	assertEquals rc "$(cat "$A/workspace/.bashrc")"
}

test_agent_git_still_commits_branches_and_fetches() {
	protected_tree
	run role member -- sh -c 'cd /work && g() { git -c user.email=a@t -c user.name=agent "$@"; }
		echo x >f && g add f && g commit -q -m two && echo committed
		g checkout -q -b feature && echo branched
		g fetch -q origin && echo fetched $(git rev-parse --abbrev-ref origin/main)
		g -C a/b/c/d/e commit -q --allow-empty -m deep && echo deep'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "committed
branched
fetched origin/main
deep" "$(cat "$T/out")"
	assertEquals two "$(git -c safe.directory="*" -C "$A/workspace" log -1 --format=%s feature)"
}

# A repository whose config names paths in the tree (core.hooksPath=.githooks,
# include.path and what it includes), a linked worktree (.git/worktrees/wt2:
# commondir, gitdir), alternates and pre-commit's configuration.
redirect_tree() {
	g() { git -c safe.directory='*' -c user.email=o@t -c user.name=oto -c init.defaultBranch=main "$@"; }
	W=$A/workspace
	g init -q "$W" && g -C "$W" commit -q --allow-empty -m one
	g -C "$W" worktree add -q -b side "$W/wt2" 2>/dev/null
	# Its pointers as the view names them (git writes the host's paths).
	echo "gitdir: /work/.git/worktrees/wt2" >"$W/wt2/.git"
	echo /work/wt2/.git >"$W/.git/worktrees/wt2/gitdir"
	: >"$W/.git/objects/info/alternates"
	printf '[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../project.gitconfig\n' >>"$W/.git/config"
	printf '[include]\n\tpath = cfg/more.gitconfig\n' >"$W/project.gitconfig"
	mkdir -p "$W/.githooks" "$W/cfg" "$W/.husky" && printf '#!/bin/sh\nexit 0\n' >"$W/.githooks/pre-commit"
	chmod +x "$W/.githooks/pre-commit" && cp "$W/.githooks/pre-commit" "$W/.husky/pre-commit"
	echo '[user]' >"$W/cfg/more.gitconfig"
	echo 'repos: []' >"$W/.pre-commit-config.yaml"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
}

# What git follows to other config, hooks or objects, and what the config
# names in the tree: read-only (EROFS), worktrees not to be moved (EBUSY);
# the agent's git still works in both worktrees; the host's files as they were.
# A rename onto a protected file fails with EBUSY, which says nothing of
# oto; /etc/oto-protected is the line in the view that says why.
test_protected_write_says_why() {
	redirect_tree
	run role member -- sh -c 'cd /work && git config core.editor vi 2>&1; cat /etc/oto-protected'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "error: could not write config file .git/config: Device or resource busy
oto: git's hooks, config and redirections, and the start-up files a person's tools run, are read-only in the writable trees: a write fails with EROFS, a rename onto one with EBUSY (otomount(1), Protected files)" \
		"$(cat "$T/out")"
}

test_git_redirects_and_named_paths_read_only() {
	redirect_tree
	sums() { (cd "$A/workspace" && sha256sum .git/worktrees/wt2/commondir .git/worktrees/wt2/gitdir \
		.git/objects/info/alternates .githooks/pre-commit project.gitconfig cfg/more.gitconfig \
		.pre-commit-config.yaml .husky/pre-commit && ls -a .githooks .git/worktrees); }
	before=$(sums)
	run role member -- sh -c 'for p in /work/.git/worktrees/wt2/commondir /work/.git/worktrees/wt2/gitdir \
			/work/.git/objects/info/alternates /work/.githooks/pre-commit /work/.githooks/post-commit \
			/work/project.gitconfig /work/cfg/more.gitconfig /work/.pre-commit-config.yaml /work/.husky/pre-commit; do
			(echo "[core] fsmonitor = touch /tmp/x" >>"$p") 2>&1 | sed "s/.*: //"; done
		mv /work/.git/worktrees/wt2 /work/.git/worktrees/x 2>&1 | sed "s/.*: //"
		mv /work/.git/worktrees /work/.git/w 2>&1 | sed "s/.*: //"
		mv /work/.githooks /work/h 2>&1 | sed "s/.*: //"
		cd /work/wt2 && echo x >f && git add f && git -c user.email=a@t -c user.name=a commit -q -m wt && echo committed'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "$(printf 'Read-only file system\n%.0s' $(seq 9))
Device or resource busy
Device or resource busy
Device or resource busy
committed" "$(cat "$T/out")"
	assertEquals "the host's files as they were" "$before" "$(sums)"
	# The person's next commit runs the hook as it was.
	(cd "$A/workspace" && git -c safe.directory='*' -c user.email=p@t -c user.name=p commit -q --allow-empty -m person)
	assertEquals "the person's commit" person "$(git -c safe.directory='*' -C "$A/workspace" log -1 --format=%s)"
	assertEquals "the worktree's commit landed" wt \
		"$(git -c safe.directory='*' -C "$A/workspace" log -1 --format=%s side)"
}

# What a mount cannot protect because it was not there (a commondir aimed
# at a config with core.fsmonitor, a rebase's todo list, the hooks
# directory core.hooksPath names): said at the session's end, one stderr
# line and one record line each, naming the path and why it matters.
test_what_appeared_is_said_at_the_end() {
	g() { git -c safe.directory='*' -c user.email=o@t -c user.name=oto -c init.defaultBranch=main "$@"; }
	W=$A/workspace
	g init -q "$W" && g -C "$W" commit -q --allow-empty -m one
	printf '[core]\n\thooksPath = .githooks\n' >>"$W/.git/config"
	[ -n "$IS_ROOT" ] && chown -R "$OTO_TEST_USER:$OTO_TEST_USER" "$A"
	chmod -R a+rX "$A"
	otons $AS --log-fd 3 -- otomount --agent-root "$A" --role member --person alice -- sh -c '
		cd /work && mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ &&
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch /tmp/pwned; false\n" >evil/config &&
		echo ../evil >.git/commondir && mkdir .git/rebase-merge .githooks && echo done' \
		>"$T/out" 2>"$T/err" 3>"$T/rec"
	rc=$?
	assertEquals "rc" "0 done" "$rc $(cat "$T/out")"
	assertEquals "one stderr line each" \
		"otons: warning: /work/.git/commondir appeared in the session: git takes config and hooks from the directory it names (look at it before running git there)
otons: warning: /work/.git/rebase-merge appeared in the session: git --continue runs its todo list's exec lines (look at it before running git there)
otons: warning: /work/.githooks appeared in the session: the repository's config names it (core.hooksPath, include.path, a command) (look at it before running git there)" \
		"$(LC_ALL=C sort "$T/err")"
	assertEquals "one record line each" \
		'"verdict":"appeared","path":"/work/.git/commondir","why":"git takes config and hooks from the directory it names"}
"verdict":"appeared","path":"/work/.git/rebase-merge","why":"git --continue runs its todo list'"'"'s exec lines"}
"verdict":"appeared","path":"/work/.githooks","why":"the repository'"'"'s config names it (core.hooksPath, include.path, a command)"}' \
		"$(grep '"source":"protect"' "$T/rec" | sed 's/.*"verdict"/"verdict"/' | LC_ALL=C sort)"
	assertEquals "before the close" '"close"' \
		"$(tail -n 1 "$T/rec" | sed 's/.*"verdict":\("[a-z]*"\).*/\1/')"
	# The same session with nothing planted: nothing said.
	rm -rf "$W/evil" "$W/.git/commondir" "$W/.git/rebase-merge" "$W/.githooks"
	run role member -- true
	assertEquals "nothing said" "0 " "$rc $(cat "$T/err")"
}

test_writable_and_protect_change_one_path_each() {
	protected_tree
	echo keep >"$A/workspace/notes.txt"
	[ -n "$IS_ROOT" ] && chown "$OTO_TEST_USER" "$A/workspace/notes.txt"
	run role member --writable /work/.git/hooks --writable /work/.envrc --protect /work/notes.txt -- sh -c '
		echo ok >/work/.git/hooks/pre-commit && echo hooks; echo ok >>/work/.envrc && echo envrc
		(echo x >>/work/.git/config) 2>&1 | sed "s/.*: //"; (echo x >>/work/notes.txt) 2>&1 | sed "s/.*: //"
		(echo x >>/work/.bashrc) 2>&1 | sed "s/.*: //"'
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "hooks
envrc
Read-only file system
Read-only file system
Read-only file system" "$(cat "$T/out")"
	assertEquals keep "$(cat "$A/workspace/notes.txt")"
	# A whole tree exempt: nothing of it protected.
	run role member --writable /work -- sh -c 'echo x >>/work/.git/config && echo config'
	assertEquals "config" "$(cat "$T/out")"
	# --protect of a path the view does not have: refused, in one line.
	run role member --protect /work/nothere -- true
	assertEquals 111 "$rc"
	assertEquals "otomount: fatal: unable to --protect /work/nothere (it must be a file or directory of the view, not a symlink): No such file or directory" \
		"$(cat "$T/err")"
	run role member --protect work -- true
	assertEquals 100 "$rc"
}

# No view option makes anything in a host tree: what would need a mount point there is refused.
test_no_option_creates_anything_on_the_host() {
	mkdir -p "$T/rw" && echo f >"$T/file"
	chmod -R a+rwX "$T/rw" "$T/file"
	before=$(tree_listing)
	for opt in "--hide /work/nothere" "--ro-within /work/nothere" "--tmpfs /work/nothere" \
		"--rw $T/rw:/work/nothere" "--ro $T/file:/work/sub/nothere" "--tmpfs /private/a/b"; do
		# shellcheck disable=SC2086 # the option and its value, split on purpose
		run role member $opt -- true
		assertEquals "$opt: rc" 111 "$rc"
		assertOneLine otomount
	done
	assertEquals "the host's tree, unchanged" "$before" "$(tree_listing)"
	run role member --hide /work/nothere -- true
	assertEquals "otomount: fatal: unable to hide /work/nothere: it must be in the view (it does not exist): No such file or directory" \
		"$(cat "$T/err")"
	run role member --tmpfs /work/nothere -- true
	assertEquals "otomount: fatal: unable to mount a tmpfs on /work/nothere: it is not there, and it would be made in a host tree of the view (otomount makes nothing on the host: make it there first): No such file or directory" \
		"$(cat "$T/err")"
	# In a tmpfs of the view, a mount point is made as before.
	run role member --tmpfs /scratch/deep/x --ro "$T/file:/home/agent/f" -- sh -c 'cat /home/agent/f; ls -d /scratch/deep/x'
	assertEquals "f
/scratch/deep/x" "$(cat "$T/out")"
}

test_bad_input() {
	run om --agent-root "$A" --role boss --person alice -- true
	assertEquals "unknown role" 100 "$rc"
	assertOneLine otomount
	run om --agent-root "$A" --role member -- true
	assertEquals "missing --person" 100 "$rc"
	assertOneLine otomount
	run om --agent-root "$T/nope" --role member --person alice -- true
	assertEquals "agent root missing" 111 "$rc"
	assertOneLine otomount
	: >"$T/afile"
	run om --agent-root "$T/afile" --role member --person alice -- true
	assertEquals "agent root a file" 111 "$rc"
	assertOneLine otomount
	run om --agent-root "$A" --role member --person carol -- true
	assertEquals "no such person" 111 "$rc"
	# A source that is neither a file nor a directory: which bind, and why.
	run om --ro /dev/null:/x -- true
	assertEquals "--ro /dev/null" 111 "$rc"
	assertEquals "otomount: fatal: unable to bind /dev/null on /x: not a file or directory: Invalid argument" \
		"$(cat "$T/err")"
	for bad in /a /a: :/b a:/b /a:b /a:/ /a:/b/../c /a/./b:/c; do
		run om --ro "$bad" -- true
		assertEquals "--ro $bad" 100 "$rc"
		assertOneLine otomount
	done
	for bad in x /t:0 /t:1q /t:; do
		run om --tmpfs "$bad" -- true
		assertEquals "--tmpfs $bad" 100 "$rc"
	done
	run om --tmp-size lots -- true
	assertEquals 100 "$rc"
	assertEquals "otomount: fatal: --tmp-size lots: not a size in bytes (like 256m, 2G)" \
		"$(cat "$T/err")"
	# One grammar for sizes: what otons --memory-max takes, T included.
	run om --tmp-size 1t --tmpfs /t:2T -- true
	assertEquals "--tmp-size 1t: $(cat "$T/err")" 0 "$rc"
	run om --bogus -- true
	assertEquals 100 "$rc"
	run om
	assertEquals 100 "$rc"
	run om -- /nonexistent
	assertEquals 127 "$rc"
	assertOneLine otomount
}

# Not found in the view: the view hides the host's paths, and says so (a
# program under /root, a #! interpreter outside it), otomount's exec and
# otoexec's alike; the control binds the host path in.
test_not_found_in_the_view() {
	holds="/bin /dev /etc /home /knowledge"
	for d in /lib /lib32 /lib64 /libx32; do [ -e "$d" ] && holds="$holds $d"; done
	holds="$holds /opt /private /proc /sbin /tmp /usr /work"
	hint="a host path outside it is not there: bind it with --ro SRC:DST): No such file or directory"
	mkdir -p "$T/tools" && printf '#!/bin/sh\necho tool ran\n' >"$T/tools/tool" && chmod -R a+rX "$T/tools"
	chmod 0755 "$T/tools/tool"
	run role member --ro "$OTO_BIN:/opt/oto/bin" -- /opt/oto/bin/otoexec --env PATH=/usr/bin:/opt/t -- tool
	assertEquals "otoexec, by PATH" 127 "$rc"
	assertEquals "otoexec: fatal: unable to exec tool: not found in the sandbox's view (PATH=/usr/bin:/opt/t; the view holds $holds; $hint" \
		"$(cat "$T/err")"
	run role member --ro "$OTO_BIN:/opt/oto/bin" -- /opt/oto/bin/otoexec -- "$T/tools/tool"
	assertEquals "otoexec, a host path" 127 "$rc"
	assertEquals "otoexec: fatal: unable to exec $T/tools/tool: not found in the sandbox's view (the view holds $holds; $hint" \
		"$(cat "$T/err")"
	printf '#!%s/tools/tool\n' "$T" >"$A/workspace/s" && chmod 0755 "$A/workspace/s"
	run role member --ro "$OTO_BIN:/opt/oto/bin" -- /opt/oto/bin/otoexec -- /work/s
	assertEquals "otoexec, an interpreter" 127 "$rc"
	assertEquals "otoexec: fatal: unable to exec /work/s: /work/s is there, but its interpreter $T/tools/tool is not in the sandbox's view (the view holds $holds; $hint" \
		"$(cat "$T/err")"
	holds_m=$(echo "$holds" | sed 's| /opt||')
	run role member -- no-such-program-anywhere
	assertEquals "otomount" 127 "$rc"
	assertContains "$(cat "$T/err")" "otomount: fatal: unable to exec no-such-program-anywhere: not found in the sandbox's view (PATH="
	assertContains "$(cat "$T/err")" "; the view holds $holds_m; $hint"
	# The control: bound in, the same path runs.
	run role member --ro "$T/tools:/opt/t" --ro "$OTO_BIN:/opt/oto/bin" -- /opt/oto/bin/otoexec --env PATH=/usr/bin:/opt/t -- tool
	assertEquals "control ($(cat "$T/err"))" "0 tool ran" "$rc $(cat "$T/out")"
}

test_refused_without_privilege() {
	if [ -n "$IS_ROOT" ]; then
		run setpriv --reuid "$OTO_TEST_USER" --regid "$OTO_TEST_USER" --clear-groups otomount -- true
	else
		run otomount -- true
	fi
	assertEquals 111 "$rc"
	assertOneLine otomount
	assertContains "$(cat "$T/err")" "not allowed to change the mount namespace"
}

test_host_unchanged_when_run_by_root() {
	[ -n "$IS_ROOT" ] || { skip "needs root"; return; }
	before=$(sha256sum </proc/self/mountinfo)
	run otomount --tmpfs /x -- sh -c 'grep -c . /proc/self/mountinfo >/dev/null; ls /x'
	assertEquals 0 "$rc"
	assertEquals "host mounts unchanged" "$before" "$(sha256sum </proc/self/mountinfo)"
}

test_no_fd_leaks_into_the_program() {
	# The same fds as without otomount (inherited ones pass, ours never do).
	want=$(otons $AS -- ls /proc/self/fd 5</dev/null)
	assertContains "fd 5 inherited" "$(echo $want)" "5"
	run sh -c "otons $AS -- otomount --agent-root '$A' --role manager --person alice --tmpfs /s -- ls /proc/self/fd 5</dev/null"
	assertEquals "$want" "$(cat "$T/out")"
}

test_verbose() {
	run role member -v --tmpfs /scratch -- true
	assertEquals 0 "$rc"
	assertTrue "mount /work logged" "grep -qx 'otomount: debug: mount /work' '$T/err'"
	assertTrue "file /etc/passwd logged" "grep -qx 'otomount: debug: file /etc/passwd' '$T/err'"
	assertEquals "last line" "otomount: debug: pivot_root, then /work" "$(tail -n1 "$T/err")"
	run role member -- true
	assertEquals "quiet without -v" "" "$(cat "$T/err")"
}

test_help_and_version() {
	run otomount --help
	assertEquals 0 "$rc"
	assertContains "$(cat "$T/out")" "usage: otomount"
	assertEquals "" "$(cat "$T/err")"
	# --version: tests/test_build.sh, for every tool
}

. shunit2
