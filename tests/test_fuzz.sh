#!/bin/sh
# The libFuzzer targets (fuzz/fuzz_*.c, built by make check as by make
# fuzz-build): every target builds, and runs its whole corpus in git
# (fuzz/corpus/NAME) once without a crash, a leak or undefined behaviour.
# No new inputs are searched for here (make fuzz does that); this keeps a
# target that no longer links, or an input that crashes again, from going
# unnoticed until someone fuzzes.
# run-as: root
. "$(dirname "$0")/common.sh"

TOP=${OTO_TOP:-$OTO_TESTS/..}

test_every_target_is_built() {
	for src in "$TOP"/fuzz/fuzz_*.c; do
		n=$(basename "$src" .c)
		assertTrue "build/fuzz/$n (make fuzz-build)" "[ -x '$TOP/build/fuzz/$n' ]"
	done
}

test_every_corpus_runs_clean() {
	for src in "$TOP"/fuzz/fuzz_*.c; do
		n=$(basename "$src" .c)
		[ -x "$TOP/build/fuzz/$n" ] || continue
		assertTrue "fuzz/corpus/$n: a corpus in git" "[ -n \"\$(ls '$TOP/fuzz/corpus/$n')\" ]"
		# -runs=0: each input of the corpus once, nothing new.
		run "$TOP/build/fuzz/$n" -runs=0 "$TOP/fuzz/corpus/$n"
		assertEquals "$n over its corpus: $(tail -3 "$T/err")" 0 "$rc"
		assertTrue "$n: every input read" "grep -q 'INITED\|DONE' '$T/err'"
	done
}

. shunit2
