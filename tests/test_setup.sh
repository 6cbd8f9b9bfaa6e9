#!/bin/sh
# examples/setup.sh, as the README and examples/*/README.md tell a user to
# run it: it makes the account, the tree, the key and the store, and the
# home skeleton a recipe names, then prints the otorun line, which runs as
# shipped. The recipes are the examples' own, only the places a test must
# change changed (the tree, the account, the store, the key, the home).
# run-as: root
. "$(dirname "$0")/common.sh"

SETUP=$OTO_TOP/examples/setup.sh
VALUE=sk-setup-0123456789abcdef

suite_setUp() {
	[ -n "$IS_ROOT" ] || { skip "needs root (it makes accounts)"; return 0; }
	ACCT=
}

# An account the test made (through setup.sh) is removed with its group.
suite_tearDown() {
	[ -z "${ACCT:-}" ] || ! id "$ACCT" >/dev/null 2>&1 || userdel "$ACCT"
	ACCT=
	return 0
}

# conf FILE AS SED-SCRIPT...: examples/FILE in $T, the tree in $T/srv, the
# account AS, and the SED-SCRIPTs'.
conf() {
	_f=$1 _as=$2
	shift 2
	for _e; do set -- "$@" -e "$_e"; shift; done
	sed -e "s|^--agent-root /srv/agents/\([a-z]*\)|--agent-root $T/srv/\1|" -e "s|^--as .*|--as $_as|" \
		"$@" "$OTO_TOP/examples/$_f" >"$T/${_f##*/}"
}

# listing DIR...: every file under them, with its owner, mode and mtime.
listing() { find "$@" -printf '%p %u:%g %m %T@\n' | LC_ALL=C sort; }

# The three roles' configs, as shipped (their tree, /srv/agents/support
# there, in $T here), for an account that does not exist yet: setup.sh
# makes it and the tree; each role's line runs and sees its view.
test_the_three_roles_run_as_shipped() {
	ACCT=oto-setup-$$
	assertFalse "$ACCT exists" "id $ACCT"
	VIEW='for d in /work /knowledge /config; do
		if ! [ -d $d ]; then echo "$d absent"; elif touch $d/.w 2>/dev/null; then echo "$d rw"; else echo "$d ro"; fi
	done; head -c 5 /private/notes.md; echo'
	for r in manager:alice member:bob viewer:carol; do
		role=${r%:*} who=${r#*:}
		conf "config/$role.conf" "$ACCT"
		assertEquals "$role: only its places changed" 2 \
			"$(diff "$OTO_TOP/examples/config/$role.conf" "$T/$role.conf" | grep -c '^>')"
		run "$SETUP" "$T/$role.conf" -- sh -c "$VIEW"
		assertEquals "$role: rc: $(cat "$T/err")" 0 "$rc"
		case $role in
		manager) assertEquals "setup: account $ACCT: made
setup: tree $T/srv/support: made (a copy of examples/agent, $ACCT's)" "$(cat "$T/err")" ;;
		*) assertEquals "setup: account $ACCT: unchanged
setup: tree $T/srv/support: unchanged" "$(cat "$T/err")" ;;
		esac
		assertEquals "otorun --config $T/$role.conf -- sh -c '$VIEW'" "$(cat "$T/out")"
		# The line as printed, as a user pastes it. The member's one API is
		# a name rule, which needs no resolver at start.
		run sh -c "$(cat "$T/out") </dev/null"
		assertEquals "$role: rc: $(cat "$T/err")" 0 "$rc"
		case $role in
		manager) want="/work rw
/knowledge rw
/config rw" ;;
		member) want="/work rw
/knowledge ro
/config absent" ;;
		viewer) want="/work ro
/knowledge ro
/config absent" ;;
		esac
		assertEquals "$role" "$want
$(head -c 5 "$OTO_TOP/examples/agent/people/$who/notes.md")" "$(cat "$T/out")"
	done
	assertEquals "$ACCT:$ACCT 700" "$(stat -c '%U:%G %a' "$T/srv/support")"
	assertEquals "$ACCT" "$(stat -c %U "$T/srv/support/people/carol/notes.md")"
	userdel "$ACCT"
	assertFalse "the account is gone" "id $ACCT"
	assertFalse "its group is gone" "getent group $ACCT"
}

# A recipe with a key, a store and a home (codex's, its install present):
# the value on stdin, then a second run changes nothing and says so; a value
# given that is the same leaves the store alone, one that differs updates
# it. No value is ever printed.
codex_conf() {
	mkdir -p "$T/opt/codex"
	conf codex/agent.conf "$OTO_TEST_USER" "s|^--ro /opt/codex:|--ro $T/opt/codex:|" \
		"s|^--store .*|--store $T/etc/code.store|" "s|^--key-file .*|--key-file $T/etc/code.key|" \
		"s|^--home-skel .*|--home-skel $T/etc/codex-home|"
}

test_a_second_run_changes_nothing() {
	codex_conf
	assertEquals "only its places changed" 6 \
		"$(diff "$OTO_TOP/examples/codex/agent.conf" "$T/agent.conf" | grep -c '^>')"
	run sh -c "echo '$VALUE' | env -u OPENAI_API_KEY '$SETUP' --config '$T/agent.conf' codex"
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	made="setup: account $OTO_TEST_USER: unchanged
setup: tree $T/srv/code: made (a copy of examples/agent, $OTO_TEST_USER's)
setup: key $T/etc/code.key: made
setup: store $T/etc/code.store, OPENAI_API_KEY: made
setup: install $T/opt/codex: unchanged
setup: home $T/etc/codex-home: made"
	assertEquals "$made" "$(cat "$T/err")"
	assertEquals "otorun --config $T/agent.conf -- /opt/codex/node_modules/.bin/codex" "$(cat "$T/out")"
	assertEquals "root:root 600 root:root 600" \
		"$(stat -c '%U:%G %a' "$T/etc/code.key") $(stat -c '%U:%G %a' "$T/etc/code.store")"
	assertEquals "the value sealed" "$VALUE" \
		"$(otosecret --store "$T/etc/code.store" --key-file "$T/etc/code.key" --use OPENAI_API_KEY \
			-- sh -c 'echo "$OPENAI_API_KEY"')"
	assertTrue "the home, examples/codex/home" "diff -r '$OTO_TOP/examples/codex/home' '$T/etc/codex-home'"
	before=$(listing "$T/srv" "$T/etc")
	sleep 0.01
	run "$SETUP" --config "$T/agent.conf" codex </dev/null
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	unchanged="setup: account $OTO_TEST_USER: unchanged
setup: tree $T/srv/code: unchanged
setup: key $T/etc/code.key: unchanged
setup: store $T/etc/code.store, OPENAI_API_KEY: unchanged
setup: install $T/opt/codex: unchanged
setup: home $T/etc/codex-home: unchanged"
	assertEquals "$unchanged" "$(cat "$T/err")"
	assertEquals "nothing changed" "$before" "$(listing "$T/srv" "$T/etc")"
	# The same value given: unchanged still; another: updated, and sealed.
	run env OPENAI_API_KEY="$VALUE" "$SETUP" --config "$T/agent.conf" codex </dev/null
	assertEquals "$unchanged" "$(cat "$T/err")"
	assertEquals "nothing changed" "$before" "$(listing "$T/srv" "$T/etc")"
	run env OPENAI_API_KEY="$VALUE-2" "$SETUP" --config "$T/agent.conf" codex </dev/null
	assertEquals "rc: $(cat "$T/err")" 0 "$rc"
	assertEquals "setup: store $T/etc/code.store, OPENAI_API_KEY: updated" \
		"$(grep OPENAI_API_KEY "$T/err")"
	assertEquals "$VALUE-2" \
		"$(otosecret --store "$T/etc/code.store" --key-file "$T/etc/code.key" --use OPENAI_API_KEY \
			-- sh -c 'echo "$OPENAI_API_KEY"')"
	assertNotContains "no value printed" "$(cat "$T/out" "$T/err")" "$VALUE"
	# A home that differs from the example's is put back.
	echo changed >>"$T/etc/codex-home/.codex/config.toml"
	run "$SETUP" --config "$T/agent.conf" codex </dev/null
	assertEquals "setup: home $T/etc/codex-home: updated" "$(grep home "$T/err")"
	assertTrue "the home, put back" "diff -r '$OTO_TOP/examples/codex/home' '$T/etc/codex-home'"
}

# No value for a name the store lacks: refused in one line before anything
# is made, the account included.
test_a_missing_value_is_refused_before_anything_is_made() {
	ACCT=oto-setup-$$
	codex_conf
	sed -i "s|^--as .*|--as $ACCT|" "$T/agent.conf"
	run env -u OPENAI_API_KEY "$SETUP" --config "$T/agent.conf" codex </dev/null
	assertEquals 100 "$rc"
	assertEquals "setup: fatal: no value for OPENAI_API_KEY (set the variable OPENAI_API_KEY, or give it as a line on stdin; never on the command line)" \
		"$(cat "$T/err")"
	assertEquals "" "$(cat "$T/out")"
	assertFalse "no account" "id $ACCT"
	assertEquals "nothing made" "" "$(ls "$T/srv" "$T/etc" 2>/dev/null)"
}

# A tree that exists with a workspace the account cannot write: refused
# with the fix, nothing made.
test_a_root_owned_workspace_is_refused() {
	conf config/member.conf "$OTO_TEST_USER"
	mkdir -p "$T/srv/support/workspace"
	run "$SETUP" "$T/member.conf"
	assertEquals 101 "$rc"
	assertEquals "setup: fatal: $T/srv/support/workspace exists and $OTO_TEST_USER cannot write it, which a member writes (chown -R $OTO_TEST_USER: $T/srv/support/workspace)" \
		"$(cat "$T/err")"
	assertEquals "nothing made" "workspace" "$(ls "$T/srv/support")"
}

. shunit2
