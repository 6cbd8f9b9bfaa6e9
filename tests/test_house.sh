#!/bin/sh
# The house rules a machine can check in the sources (docs/HACKING.md):
# outside main.c, only x-prefixed functions exit; no comment cites an issue;
# every manual page formats without a groff warning, and a tool's page names
# every option its --help lists; the chain's pages open with a short
# DESCRIPTION and OPTIONS. Reads the checkout (OTO_TOP), and runs
# nothing of it but the built tools' --help (OTO_BIN).
# run-as: root
. "$(dirname "$0")/common.sh"

TOP=${OTO_TOP:-$OTO_TESTS/..}

# exits FILE...: "FILE FUNCTION CALLEE" for each function (kernel style: its
# name on a line at column 0, its body between "{" and "}" at column 0) that
# calls die, die_usage, opt_die, exit, _exit or an x function, once per
# function. Comments and string literals are not code.
exits() {
	awk '
	FNR == 1 { fn = ""; body = 0; incomment = 0 }
	{
		line = $0
		# Block comments, possibly over several lines.
		if (incomment) {
			if (index(line, "*/") == 0) next
			line = substr(line, index(line, "*/") + 2)
			incomment = 0
		}
		while (match(line, /\/\*/)) {
			rest = substr(line, RSTART + 2)
			if (index(rest, "*/") == 0) { line = substr(line, 1, RSTART - 1); incomment = 1; break }
			line = substr(line, 1, RSTART - 1) " " substr(rest, index(rest, "*/") + 2)
		}
		sub(/\/\/.*/, "", line)
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
		gsub(/'\''([^'\''\\]|\\.)*'\''/, "0", line)
	}
	!body && line ~ /^[a-z][^;]*[a-z0-9_]+\(/ && line !~ /^(if|for|while|switch|return)/ {
		s = substr(line, 1, index(line, "(") - 1)
		sub(/.*[^a-z0-9_]/, "", s)
		fn = s
		next
	}
	line == "{" { body = 1; seen = ""; next }
	line == "}" { body = 0; fn = ""; next }
	body && fn != "" && fn !~ /^x/ {
		s = line
		while (match(s, /(^|[^a-zA-Z0-9_>.])(die|die_usage|opt_die|exit|_exit|x[a-z0-9_]+)[ \t]*\(/)) {
			call = substr(s, RSTART, RLENGTH)
			sub(/^[^a-z_]/, "", call)
			sub(/[ \t]*\($/, "", call)
			if (index(seen, " " call " ") == 0) {
				print FILENAME " " fn " " call
				seen = seen " " call " "
			}
			s = substr(s, RSTART + RLENGTH)
		}
	}
	' "$@"
}

# Every function outside main.c that can end the process says so by its
# name; the die family itself is where the exits are.
test_only_main_and_x_functions_exit() {
	cd "$TOP" || return
	set --
	for f in lib/*.c cmd/*/*.c; do
		case $f in */main.c) ;; *) set -- "$@" "$f" ;; esac
	done
	# The die family itself: die and die_usage (through vdie), opt_die.
	found=$(exits "$@" | grep -v '^lib/log\.c \(vdie\|die\|die_usage\) ' |
		grep -v '^lib/optdie\.c opt_die ')
	assertEquals "functions that exit without an x in their name" "" "$found"
}

# The check itself sees a function that exits, a static one, one that
# calls an x function, and nothing in a comment or a string.
test_the_check_finds_what_exits() {
	cat >"$T/a.c" <<'EOF'
static void quiet(void)
{
	/* die(1, 0, "in a comment") */
	puts("die(1, 0, x)");
}

int loud(int n)
{
	if (n)
		die(EXIT_SYS, 0, "loud");
	return xcalloc(n);
}

static void xfine(void)
{
	_exit(1);
}

void shy(void)
{
	xfine();
}
EOF
	assertEquals "$T/a.c loud die
$T/a.c loud xcalloc
$T/a.c shy xfine" "$(exits "$T/a.c")"
}

# History belongs in commits: no comment of the code, the tests, the fuzzers,
# the scripts or the build names an issue by its number.
test_no_source_cites_an_issue() {
	cd "$TOP" || return
	found=$(grep -rnE '[Ii]ssue [0-9]+|[Ii]ssues? #[0-9]+' lib cmd tests fuzz scripts deploy bench \
		examples Makefile --include='*.[ch]' --include='*.sh' --include='*.py' \
		--include='*.pl' --include=Makefile --include='*.yaml' --include=Containerfile \
		--exclude-dir=corpus | grep -v '^tests/test_house\.sh:')
	assertEquals "comments that cite an issue" "" "$found"
}

# One word for bad usage (oto(7), CONVENTIONS): a value refused says what
# was expected ("--max %s: expected a number from 1 to 16"), in every tool,
# never "want"; the pages call exit 100 "bad usage", never "usage error".
test_bad_usage_has_one_wording() {
	cd "$TOP" || return
	assertEquals "messages that say want" "" \
		"$(grep -rnE '"([^"]*: )?want ' lib cmd --include='*.c')"
	assertEquals "pages that say usage error" "" "$(grep -rniE 'usage error' man)"
}

# pure_not_last FILE...: "FILE:LINE" of each comment in which "Pure." is
# not the last sentence (a section's trailing "----" aside).
pure_not_last() {
	awk '
	FNR == 1 { inc = 0 }
	{
		line = $0
		while (line != "") {
			if (!inc) {
				i = index(line, "/*")
				if (i == 0) break
				inc = 1; start = FNR; text = ""
				line = substr(line, i + 2)
			}
			j = index(line, "*/")
			if (j == 0) { text = text " " line; break }
			text = text " " substr(line, 1, j - 1)
			line = substr(line, j + 2)
			inc = 0
			sub(/(^|[^A-Za-z])Pure\.[ \t-]*$/, "", text)
			if (text ~ /(^|[^A-Za-z])Pure\./) print FILENAME ":" start
		}
	}' "$@"
}

# A header's contract says what a function does, returns, whether it dies,
# and "Pure." last (docs/HACKING.md), so a reader finds each in one place.
test_header_contracts_say_pure_last() {
	cd "$TOP" || return
	assertEquals "comments with Pure. before their end" "" \
		"$(pure_not_last lib/*.h cmd/*/*.h)"
	printf '/* a. Pure. */\n/*\n * b. Pure. c.\n */\n/* ---- d. Pure. ---- */\n' >"$T/h.h"
	assertEquals "$T/h.h:2" "$(pure_not_last "$T/h.h")"
}

# backups: each name on stdin an editor or patch leaves behind (NAME.orig,
# NAME.rej, NAME~, NAME.bak, .NAME.swp), one a line.
backups() {
	grep -E '(\.orig|\.rej|~|\.bak|\.swp)$'
}

# What git tracks is the project: a backup committed by accident is linted,
# installed and read as a live file. .gitignore keeps them out of git add.
test_no_backup_file_is_tracked() {
	assertEquals "backup files tracked" "" "$(git -C "$TOP" ls-files | backups)"
	printf 'a.sh.orig\nb.c.rej\nc.md~\nd.bak\n.e.c.swp\nf.orig.sh\nrejected.c\n' >"$T/names"
	assertEquals "a.sh.orig b.c.rej c.md~ d.bak .e.c.swp" "$(backups <"$T/names" | tr '\n' ' ' | sed 's/ $//')"
}

# The mutation check's defects (tests/mutations.txt) still apply: each
# one's text once in its file, so that make mutate tests what it says
# (scripts/mutate.sh --check; a refactor that moves the text fails here).
test_every_defect_of_the_mutation_check_applies() {
	out=$(sh "$TOP/scripts/mutate.sh" --check)
	assertEquals "mutate --check: $out" 0 $?
	assertEquals "stale defects" "" "$(echo "$out" | grep -v '^ok ')"
	assertTrue "defects listed: $(echo "$out" | wc -l)" "[ $(echo "$out" | wc -l) -ge 27 ]"
}

# commit_faults: "HASH WHAT" for each commit after MARK (merges aside) whose
# message is not the house's form: a subject "area: summary" of at most 72
# characters (areas: words, paths, a man page, comma-separated), a blank
# line, a body. The commits before MARK are the record as it was.
MARK=4c7b99c
commit_faults() {
	git -C "$1" log --no-merges --format='%h%x00%B%x01' "$2..HEAD" | awk -v RS='\001' -v FS='\000' '
		NF < 2 { next }
		{
			h = $1; sub(/^\n+/, "", h); n = split($2, l, "\n")
			if (length(l[1]) > 72) print h, "subject over 72 characters"
			else if (l[1] !~ /^[A-Za-z0-9][A-Za-z0-9._\/()+-]*(, [A-Za-z0-9][A-Za-z0-9._\/()+-]*)*: [^ ]/)
				print h, "subject not \"area: summary\""
			else if (n < 3 || l[2] != "" || l[3] == "") print h, "no blank line and body"
		}'
}

# has_history MARK: true when $TOP's history reaches MARK; else the test
# fails saying why. CI clones the whole history (scripts/fresh-check.sh);
# an export or a shallow clone has none to check, and a check that cannot
# run is a failure, not a pass.
has_history() {
	git -C "$TOP" cat-file -e "$1^{commit}" 2>/dev/null && return 0
	fail "no history to $1 in $TOP (an export, or a shallow clone): clone the whole repository"
	return 1
}

# History in commits: every commit after the marker has the house's form.
test_commits_after_the_marker_have_subject_and_body() {
	has_history "$MARK" || return
	assertEquals "commits not in the house's form" "" "$(commit_faults "$TOP" "$MARK")"
}

# commit_moods REPO MARK: "HASH WHY" for each commit after MARK (merges
# aside) whose subject's summary does not open with an imperative verb:
# the word after "area: " must be one of VERBS (docs/HACKING.md, "Commits
# and NEWS"). "otonet: tun0 has no qdisc" is a statement; "otonet: give
# tun0 no qdisc" is the house's form. A verb missing from the list is
# added here, in the commit that first uses it.
MOOD_MARK=a35d6be
VERBS='accept account add adjust align allow answer apply ask assert avoid
bind block bound break bring build bump cache call cap catch change check
clean clear close collect combine compare compile complete copy correct
count cover cut decide declare decode define delete deny derive describe
detach detect document drain drop dump ease emit enable disable end enforce
escape exec expect explain expose extend factor feed fill filter find fix
flag fold follow forbid format free fuzz gate generate give group guard judge
handle hide hold ignore import include inline install keep kill label
launch leave let limit link list load lock log look make map mark match
measure merge mount move name narrow note open order parse pass pause pin place
poll prefer prepare print probe protect prove pull put quote raise read
record reduce refuse reject release remove rename reorder repeat replace
report require reset resolve restore retry return reuse review rewrite run
save say scan seal send separate serve set settle share shorten show
shrink simplify skip sort speed split start state stop store strip
summarize support swap switch take teach tell test thin time track trim
try tune turn undo unify unpack unset update use validate verify wait wake
warn watch widen write'
commit_moods() {
	git -C "$1" log --no-merges --format='%h %s' "$2..HEAD" | VERBS=$VERBS awk '
		BEGIN { n = split(ENVIRON["VERBS"], v, /[ \n]+/); for (i = 1; i <= n; i++) ok[v[i]] = 1 }
		{
			h = $1; s = substr($0, length(h) + 2)
			if (!match(s, /^[^ ]+(, [^ ]+)*: /)) next # commit_faults says it
			w = substr(s, RLENGTH + 1); sub(/ .*/, "", w)
			if (!(w in ok)) print h, "\"" w "\" is not an imperative verb of the list"
		}'
}

# Subjects in the imperative: every commit after MOOD_MARK.
test_commit_subjects_after_the_mood_marker_are_imperative() {
	has_history "$MOOD_MARK" || return
	assertEquals "subjects not in the imperative" "" "$(commit_moods "$TOP" "$MOOD_MARK")"
}

# The check itself: a long subject, one without an area, one without a
# body, and a good one, in a repository of its own.
test_the_commit_check_finds_each_fault() {
	g=$T/git
	git init -q "$g" && git -C "$g" config user.email t@t && git -C "$g" config user.name t
	c() { git -C "$g" commit -q --allow-empty -m "$1" ${2:+-m "$2"}; }
	c "base: start" "b"
	base=$(git -C "$g" rev-parse --short HEAD)
	c "otonet: $(printf '%070d' 0)" "b"
	c "no area here" "b"
	c "otons: no body"
	c "otomount, lib/opt: good" "why"
	got=$(commit_faults "$g" "$base" | cut -d' ' -f2-)
	assertEquals "no blank line and body
subject not \"area: summary\"
subject over 72 characters" "$got"
}

# The mood check itself: a statement, a noun phrase, a third person and a
# participle are refused; an imperative under one area or several passes.
test_the_mood_check_finds_each_statement() {
	g=$T/git
	git init -q "$g" && git -C "$g" config user.email t@t && git -C "$g" config user.name t
	c() { git -C "$g" commit -q --allow-empty -m "$1" -m "b"; }
	c "base: start"
	base=$(git -C "$g" rev-parse --short HEAD)
	c "otonet: tun0 has no qdisc"
	c "otonet: the relay's peeks"
	c "otons: refuses a bad size"
	c "lib: parsed sizes in one place"
	c "otomount, lib/opt: refuse a bad size"
	c "tests: keep each suite's helpers once"
	got=$(commit_moods "$g" "$base" | cut -d' ' -f2-)
	assertEquals '"parsed" is not an imperative verb of the list
"refuses" is not an imperative verb of the list
"the" is not an imperative verb of the list
"tun0" is not an imperative verb of the list' "$got"
}

# NEWS is read by users: its newest entries stand under the version the
# tools print (--version; the Makefile's OTO_VERSION, the man pages'), not
# under a heading no release has.
test_news_opens_with_the_version_the_tools_print() {
	v=$("$OTO_BIN/otons" --version | awk '{ print $2; exit }')
	assertNotEquals "otons --version names a version" "" "$v"
	assertEquals "NEWS's first version heading" "* $v" "$(grep -m1 '^\* ' "$TOP/NEWS")"
}

# bench/RESULTS.md is a record, not a diary: each script's latest run
# under a section of its own, the past in git. At most RESULTS_LINES
# lines, no "Earlier run", no sub-heading, and a section for each script
# in bench/.
RESULTS_LINES=450
test_bench_results_is_a_record() {
	r=$TOP/bench/RESULTS.md
	n=$(wc -l <"$r")
	assertTrue "bench/RESULTS.md: $n lines, the bound $RESULTS_LINES" "[ $n -le $RESULTS_LINES ]"
	assertEquals "earlier runs kept" "" "$(grep -n 'Earlier run\|run before it' "$r")"
	assertEquals "dated sub-headings" "" "$(grep -nE '^#+ .*[0-9]{4}-[0-9]{2}-[0-9]{2}' "$r")"
	assertEquals "sub-headings under a script's section" "" "$(grep -n '^###' "$r")"
	for b in "$TOP"/bench/*.sh; do
		assertTrue "a section for bench/${b##*/}" "grep -q '^## .*(bench/${b##*/})' '$r'"
	done
}

# twins FILE...: "FILE:NAME FILE:NAME..." for each shell function whose
# text (its name aside) is the same in two places or more; shunit2's hooks
# and the tests themselves aside.
twins() {
	awk '
	function done_fn() { if (name != "") { cnt[body]++; where[body] = where[body] " " FILENAME ":" name } name = "" }
	FNR == 1 { done_fn() }
	/^[a-zA-Z_][a-zA-Z0-9_]*\(\) *\{/ {
		done_fn()
		name = $0; sub(/\(.*/, "", name)
		if (name ~ /^(test_|suite_|oneTime|setUp$|tearDown$)/) { name = ""; next }
		body = $0; sub(/^[^(]*/, "", body)
		if ($0 ~ /\}$/) done_fn()
		next
	}
	name != "" { body = body "\n" $0; if ($0 == "}") done_fn() }
	END { done_fn(); for (b in cnt) if (cnt[b] > 1) print substr(where[b], 2) }
	' "$@"
}

# A helper the suites share lives once: in tests/common.sh, or for the
# network suites in tests/net/topo.sh. A copy in each suite drifts apart.
test_no_test_helper_is_copied() {
	cd "$TOP" || return
	assertEquals "helpers defined twice" "" "$(twins tests/common.sh tests/net/topo.sh tests/test_*.sh)"
	printf 'a() {\n\techo a\n}\nb() { echo b; }\ntest_x() {\n\ttrue\n}\n' >"$T/one.sh"
	printf 'c() {\n\techo a\n}\nb() { echo c; }\ntest_x() {\n\ttrue\n}\n' >"$T/two.sh"
	assertEquals "the check itself" "$T/one.sh:a $T/two.sh:c" "$(twins "$T/one.sh" "$T/two.sh")"
}

# man_warnings PAGE...: each page groff warns about (-ww, every warning), as
# "PAGE: WARNING" lines; nothing when every page formats cleanly. -Tutf8, as
# man(1) renders a page on a terminal: a line that cannot be adjusted there
# is a warning the default device does not give.
man_warnings() {
	for m in "$@"; do
		LC_ALL=C groff -man -Tutf8 -ww -z "$m" 2>&1 | sed "s|^|$m: |"
	done
}

# desc_lines PAGE: the source lines of PAGE's DESCRIPTION, from the line after
# ".SH DESCRIPTION" to the next ".SH".
desc_lines() {
	awk '/^\.SH/ { on = ($2 == "DESCRIPTION") ; next } on { n++ } END { print n + 0 }' "$1"
}

# A page opens as passt's does: DESCRIPTION says what the tool does, what it
# needs and how it fails closed, in at most 60 source lines; the contract
# follows OPTIONS, and the mechanics go in NOTES or docs/HACKING.md.
DESC_MAX=60
test_man_pages_open_with_a_short_description() {
	cd "$TOP" || return
	for t in otonet otons otomount otogate otoexec; do
		n=$(desc_lines "man/$t.1")
		assertTrue "man/$t.1: DESCRIPTION has $n lines, more than $DESC_MAX" \
			"[ $n -gt 0 ] && [ $n -le $DESC_MAX ]"
		assertEquals "man/$t.1: the section after DESCRIPTION" "OPTIONS" \
			"$(awk '/^\.SH/ { if (d) { print $2; exit } d = ($2 == "DESCRIPTION") }' "man/$t.1")"
	done
}

# Every manual page formats without a warning: a macro groff does not know
# (a misspelled request), a bad escape or a number that does not parse shows
# to its reader as nothing, or as the wrong text.
test_man_pages_format_without_warnings() {
	assertTrue "groff (groff-base, scripts/install-deps.sh test) is installed" \
		"command -v groff >/dev/null"
	cd "$TOP" || return
	n=$(find man -name 'oto*.[17]' | wc -l)
	assertEquals "pages in man/: the tools' and oto.7" \
		"$(($(find cmd -mindepth 1 -maxdepth 1 -type d | wc -l) + 1))" "$n"
	assertEquals "groff's warnings" "" "$(man_warnings man/*.1 man/oto.7)"
}

# help_options FILE: the long options a --help text names (--name, from
# "--name", "--name=V", "[--name N]"), one a line, sorted.
help_options() {
	grep -oE '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*' "$1" | sed 's/^[^-]*//' | sort -u
}

# man_lacks HELP PAGE: the options of HELP that PAGE never names (groff
# spells a dash \-; an option is a whole word: --store is not --store-fd).
man_lacks() {
	sed 's/\\-/-/g' "$2" >"$T/man.txt"
	help_options "$1" | while read -r o; do
		grep -qE -- "$o([^a-z0-9-]|\$)" "$T/man.txt" || printf '%s ' "$o"
	done
}

# Each tool's manual page names every option its --help lists: a user who
# reads the page misses nothing the program offers.
test_man_pages_name_every_option_of_help() {
	cd "$TOP" || return
	for d in cmd/*/; do
		t=$(basename "$d")
		"$OTO_BIN/$t" --help >"$T/help" 2>&1
		assertEquals "$t --help: exit" 0 $?
		assertNotEquals "$t --help names no option" "" "$(help_options "$T/help")"
		assertEquals "options of $t --help that man/$t.1 does not name" "" \
			"$(man_lacks "$T/help" "man/$t.1")"
	done
}

# The two checks themselves: groff's warning for an unknown macro; an option
# missing, one named only as a longer one's prefix,
# and one present in \- and in \fB form.
test_the_man_checks_find_what_is_wrong() {
	printf '.TH X 1\n.SH NAME\nx \\- y\n.XY\n' >"$T/bad.1"
	printf '.TH X 1\n.SH NAME\nx \\- y\n.SH OPTIONS\n.B \\-\\-a\n' >"$T/good.1"
	assertNotEquals "a page with an unknown macro" "" "$(man_warnings "$T/bad.1")"
	assertEquals "a clean page" "" "$(man_warnings "$T/good.1")"
	printf '  --a N       one\n  --store-fd N, [--bee]\n      --version  the version\n' >"$T/help"
	assertEquals "--a --bee --store-fd --version" "$(help_options "$T/help" | tr '\n' ' ' | sed 's/ $//')"
	printf '.B \\-\\-a\n\\fB\\-\\-bee\\fR N\nthe \\-\\-store\\-fdx, \\-\\-version\n' >"$T/p.1"
	assertEquals "--store-fd " "$(man_lacks "$T/help" "$T/p.1")"
	printf '.TH X 1\n.SH NAME\nx\n.SH DESCRIPTION\na\n.PP\nb\n.SH OPTIONS\nc\n' >"$T/d.1"
	assertEquals "DESCRIPTION's lines, up to the next .SH" 3 "$(desc_lines "$T/d.1")"
	printf '.TH X 1\n.SH DESCRIPTION\n.SS More\na\n.SH NOTES\n.SH DESCRIPTIONS\nb\n' >"$T/d.1"
	assertEquals "a .SS is part of DESCRIPTION; another .SH is not" 2 "$(desc_lines "$T/d.1")"
}

. shunit2
