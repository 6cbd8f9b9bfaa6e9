#!/bin/sh
# The mutation check (make mutate; not part of make check: it is slow): each
# defect of tests/mutations.txt applied alone to a private copy of this
# working tree, the tools built, the suites that cover it run (tests/run.sh,
# only the tests named); a defect a suite fails on is caught, one every run
# passes survived. The checkout is never changed.
#
#   scripts/mutate.sh [REGEX]   only the defects whose name matches
#   scripts/mutate.sh --check   each defect's text found once in this tree
#                               (nothing built or run; any user)
#
# Before the defects, every run line the list names is run once on the copy
# as it is: a defect whose runs fail without it proves nothing ("baseline
# failed", not counted as caught). A defect whose text is no longer in its
# file is "stale" (fix the list), one that does not build "unbuilt"; both
# fail the check, as a survivor does. A survivor whose runs skipped some
# test says so: the promise was not checked here.
#
# Output: a line per defect, "caught NAME: SUITE...", "survived NAME", ...,
# then the totals: "N defects: C caught, S survived, ...". The copy and its
# logs are in $MUTATE_DIR (default build/mutate), the last result in
# build/mutate/result.txt. As root (the suites need it); about a minute per
# defect on two cores.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/tests/mutations.txt
only=${1:-.}
dir=${MUTATE_DIR:-$top/build/mutate}
copy=$dir/tree
res=$dir/result.txt
[ "$only" = --check ] && copy=$top


# The list, one defect a block: "name", "file", "from", "to" (the exact
# text, once in the file, and what replaces it; \t, \n and \\ escaped),
# "run SUITE [TEST...]" (one or more), "env VAR=VALUE" (for its runs).
# mutant apply|restore|check NAME: the defect's edit made, undone or checked;
# mutant check-all: every defect checked, a line each ("ok NAME" or "stale
# ..."), in one process: a Python start per defect made test_house's check
# take minutes on a loaded machine.
mutant() {
	python3 - "$list" "$copy" "$@" <<'PYEOF'
import os, sys
lst, copy, act = sys.argv[1:4]
unesc = lambda s: s.replace("\\\\", "\0").replace("\\t", "\t").replace("\\n", "\n").replace("\0", "\\")

def blocks():
    for block in open(lst).read().split("\n\n"):
        kv = {}
        for line in block.split("\n"):
            if line and not line.startswith("#"):
                k, _, v = line.partition(" ")
                kv.setdefault(k, []).append(v)
        if "name" in kv:
            yield kv

def once(kv):
    # The file's text, and whether the defect's text is in it exactly once.
    try:
        text = open(os.path.join(copy, kv["file"][0])).read()
        return text, text.count(unesc(kv["from"][0])) == 1
    except (OSError, KeyError, IndexError):
        return None, False

if act == "check-all":
    rc = 0
    for kv in blocks():
        if once(kv)[1]:
            print("ok " + kv["name"][0])
        else:
            print("stale %s: its text is not once in %s" % (kv["name"][0], "\n".join(kv.get("file", []))))
            rc = 1
    sys.exit(rc)
d = {}
for kv in blocks():
    if kv["name"] == [sys.argv[4]]:
        d = kv
path = os.path.join(copy, d["file"][0])
if act == "restore":
    os.replace(path + ".orig", path)
    os.utime(path)  # newer than the mutant's objects: make builds it again
    sys.exit(0)
text, ok = once(d)
if not ok:
    sys.exit(1)
if act == "apply":
    open(path + ".orig", "w").write(text)
    open(path, "w").write(text.replace(unesc(d["from"][0]), unesc(d["to"][0])))
PYEOF
}

# field NAME KEY: the values of KEY in NAME's block, a line each.
field() {
	awk -v n="$1" -v k="$2" 'BEGIN { RS = ""; FS = "\n" }
		{ hit = 0; for (i = 1; i <= NF; i++) if ($i == "name " n) hit = 1
		  if (hit) for (i = 1; i <= NF; i++) if (index($i, k " ") == 1) print substr($i, length(k) + 2) }' "$list"
}

if [ "$only" = --check ]; then
	mutant check-all
	exit $?
fi
names=$(sed -n 's/^name //p' "$list" | grep -E -- "$only")
[ -n "$names" ] || { echo "mutate: fatal: no defect matches $only" >&2; exit 100; }
if [ "$(id -u)" -ne 0 ]; then
	echo "mutate: fatal: the suites run as root: run it as root" >&2
	exit 100
fi
rm -rf "$dir"
mkdir -p "$copy/build" "$top/build/vm"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$copy" -xf - || exit 111
# The built dependencies and the VM's image (test_otons_vm.sh) are shared.
ln -s "$(readlink -f "$top/build/deps")" "$copy/build/deps"
ln -s "$top/build/vm" "$copy/build/vm"

build() { # LOG
	(cd "$copy" && nice make -j2 all) >"$1" 2>&1
}

# runs NAME LOG: each of NAME's runs; prints "caught SUITE..." (the suites
# that failed, then "passed SUITE..." for any that did not, "skipped in
# SUITE..." for any that passed skipping a test), "survived", or
# "survived-skipping SUITE..." (those that skipped a test).
runs() {
	_caught='' _passed='' _skipped=''
	_envs=$(field "$1" env)
	while IFS= read -r r; do
		[ -n "$r" ] || continue
		suite=${r%% *} tests=''
		[ "$suite" = "$r" ] || tests=${r#* }
		# shellcheck disable=SC2086 # VAR=VALUE words, on purpose
		env $_envs OTO_ONLY="^${suite%.sh}\.sh\$" OTO_ONLY_TESTS="$tests" \
			OTO_BIN="$copy/build/musl/bin" sh "$copy/tests/run.sh" >>"$2" 2>&1 </dev/null
		last=$(tail -n 1 "$2")
		case $last in
		*" 0 failed, "*skipped) _skipped="$_skipped $suite" ;;
		*" 0 failed") _passed="$_passed $suite" ;;
		*) _caught="$_caught $suite" ;;
		esac
	done <<EOF
$(field "$1" run)
EOF
	if [ -n "$_caught" ]; then
		echo "caught$_caught${_passed:+; passed$_passed}${_skipped:+; skipped in$_skipped}"
	elif [ -n "$_skipped" ]; then
		echo "survived-skipping$_skipped"
	else
		echo survived
	fi
}

echo "mutate: the copy in $copy; building it as it is"
build "$dir/build-baseline.log" || { echo "mutate: fatal: the copy does not build: $dir/build-baseline.log" >&2; exit 111; }
stale='' unproven=''
for n in $names; do
	mutant check "$n" || stale="$stale $n"
done
# The baseline: every distinct run line once, on the copy without a defect.
bad_runs=''
i=0
for n in $names; do field "$n" run; done | sort -u >"$dir/runs"
while IFS= read -r r; do
	i=$((i + 1))
	suite=${r%% *} tests=''
	[ "$suite" = "$r" ] || tests=${r#* }
	OTO_ONLY="^${suite%.sh}\.sh\$" OTO_ONLY_TESTS="$tests" OTO_BIN="$copy/build/musl/bin" \
		sh "$copy/tests/run.sh" >"$dir/baseline-$i.log" 2>&1 </dev/null
	case $(tail -n 1 "$dir/baseline-$i.log") in
	*" 0 failed"*) ;;
	*)
		echo "mutate: the baseline fails: $r ($dir/baseline-$i.log)"
		bad_runs="$bad_runs
$r"
		;;
	esac
done <"$dir/runs"

: >"$res"
total=0 caught=0 survived=0 other=0
for n in $names; do
	total=$((total + 1))
	case " $stale " in *" $n "*)
		echo "stale $n (its text is not once in $(field "$n" file))" | tee -a "$res"
		other=$((other + 1))
		continue
		;;
	esac
	skip_it=''
	while IFS= read -r r; do
		[ -n "$r" ] && [ -n "$bad_runs" ] && echo "$bad_runs" | grep -qxF "$r" && skip_it=1
	done <<EOF
$(field "$n" run)
EOF
	if [ -n "$skip_it" ]; then
		echo "unproven $n (a run of its fails without it)" | tee -a "$res"
		unproven="$unproven $n"
		other=$((other + 1))
		continue
	fi
	log=$dir/$n.log
	mutant apply "$n"
	if ! build "$log"; then
		echo "unbuilt $n ($log)" | tee -a "$res"
		other=$((other + 1))
	else
		out=$(runs "$n" "$log")
		rest=${out#"${out%% *}"}
		echo "${out%% *} $n${rest:+:$rest}" | tee -a "$res"
		case $out in
		caught*) caught=$((caught + 1)) ;;
		*) survived=$((survived + 1)) ;;
		esac
	fi
	mutant restore "$n"
done
echo "$total defects: $caught caught, $survived survived, $other stale, unbuilt or unproven" | tee -a "$res"
[ "$caught" -eq "$total" ]
