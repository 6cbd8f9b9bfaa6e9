#!/bin/sh
# check-static.sh BINDIR BUDGETS: one PASS/FAIL line per binary and check.
# Static means: file(1) says so, no PT_INTERP, no dynamic section. The budget
# file has "TOOL BYTES" lines: the stripped size each binary must stay within.
set -u
bin=$1 budgets=$2
for b in "$bin"/*; do
	t=$(basename "$b")
	if file -b "$b" | grep -q 'statically linked' &&
		! readelf -lW "$b" | grep -q INTERP &&
		readelf -dW "$b" | grep -q 'There is no dynamic section'; then
		echo "PASS static-$t"
	else
		echo "FAIL static-$t: $(file -b "$b")"
	fi
	max=$(awk -v t="$t" '$1 == t { print $2 }' "$budgets")
	size=$(stat -c %s "$b")
	if [ -z "$max" ]; then
		echo "FAIL size-$t: no budget in $budgets"
	elif [ "$size" -le "$max" ]; then
		echo "PASS size-$t $size <= $max"
	else
		echo "FAIL size-$t $size > $max"
	fi
done
