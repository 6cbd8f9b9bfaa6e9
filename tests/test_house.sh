#!/bin/sh
# The house rules a machine can check in the sources (docs/HACKING.md):
# outside main.c, only x-prefixed functions exit. Reads the checkout
# (OTO_TOP), runs nothing of it.
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

# History in commits: every commit after the marker has the house's form.
test_commits_after_the_marker_have_subject_and_body() {
	git -C "$TOP" cat-file -e "$MARK^{commit}" 2>/dev/null ||
		{ skip "no history to $MARK in $TOP (an export, or a shallow clone)"; return; }
	assertEquals "commits not in the house's form" "" "$(commit_faults "$TOP" "$MARK")"
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

. shunit2
