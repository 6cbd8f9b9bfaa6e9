#!/bin/sh
# otons' cgroup limits, proven in a VM with a unified cgroup v2: these
# machines are hybrid (cgroup v1 holds pids, memory and cpu), so there the
# tests of test_otons.sh that need a controller skip. The VM (qemu TCG,
# Debian's kernel, a minbase bookworm root as its initramfs: tests/vm/image.sh,
# cached in build/vm; the tests' C helpers built here, static) runs test_otons.sh's cgroup tests (the fork bomb at
# pids.max while a second session of the account starts, the OOM kill with
# 137, nothing left after a session, the errors) and the refusal flood's
# bound on the supervisor's CPU, as root and as uid 65534 in a delegated
# subtree, as tests/run.sh would (tests/vm/init). Each of the VM's results
# is one line of this suite's (vm-root-TEST, vm-user-TEST); the suite's own
# test checks that the VM ran and reported every one. Where qemu cannot run
# at all, each is a SKIP with the reason.
# run-as: root
# sanitized: no (the VM runs the static binaries; its root has no sanitizer runtime)
. "$(dirname "$0")/common.sh"

TOP=${OTO_TOP:-$OTO_TESTS/..}
VM_DIR=$TOP/build/vm

# The tests run in the VM, for WHO (root or user): every cgroup test of
# test_otons.sh (the root-only one as root only) and the flood's; with
# OTO_VM_ONLY=REGEX (by hand), those whose name matches.
vm_tests() {
	{
		sed -n 's/^\(test_cgroup_[a-z0-9_]*\)() {$/\1/p' "$OTO_TESTS/test_otons.sh" |
			if [ "$1" = root ]; then cat; else grep -v '_as_root$'; fi
		echo test_refusal_flood_costs_the_session
	} | grep -E "${OTO_VM_ONLY:-.}"
}

# vm_skip WHY: every VM test a SKIP, with the reason.
vm_skip() {
	skip "$1"
	for who in root user; do
		for t in $(vm_tests $who); do echo "SKIP vm-$who-$t $1"; done
	done >>"$OTO_RESULTS"
}

test_vm_runs_the_cgroup_tests() {
	if ! command -v qemu-system-x86_64 >/dev/null; then
		vm_skip "qemu-system-x86_64 is not installed (scripts/install-deps.sh test installs it)"
		return 0
	elif [ -z "$IS_ROOT" ]; then
		vm_skip "root only: the VM's image is made with debootstrap"
		return 0
	fi
	t0=$(date +%s)
	sh "$OTO_TESTS/vm/image.sh" "$VM_DIR" || fail "the VM's image could not be made (tests/vm/image.sh)"
	t1=$(date +%s)
	# What changes each run, in a second archive after the cached root:
	# the kernel unpacks both, the later over the earlier.
	s=$T/stage
	mkdir -p "$s/oto/bin" "$s/oto/tests"
	cp -p "$OTO_BIN"/* "$s/oto/bin/"
	cp -pR "$OTO_TESTS/." "$s/oto/tests/"
	cp "$OTO_TESTS/vm/init" "$s/init"
	# The tests' C helpers, static, built here: the VM's root has no compiler.
	mkdir -p "$s/oto/helpers"
	for h in forkn refuse flood; do
		gcc -static -O1 -pthread -o "$s/oto/helpers/$h" "$OTO_TESTS/helpers/$h.c" ||
			fail "cannot build $h"
	done
	for who in root user; do
		[ -z "$(vm_tests $who)" ] || echo "$who test_otons.sh $(vm_tests $who | tr '\n' ' ')"
	done >"$s/oto/vm-tests"
	chmod -R a+rX "$s"
	chmod 0755 "$s/init"
	(cd "$s" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$T/oto.cpio"
	cat "$VM_DIR/root.cpio" "$T/oto.cpio" >"$T/initrd"
	# KVM stalls at boot on these machines (nested): TCG. No network.
	timeout 900 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 3072 -display none \
		-monitor none -serial "file:$T/console" -no-reboot -nic none \
		-kernel "$VM_DIR/vmlinuz" -initrd "$T/initrd" \
		-append "console=ttyS0 quiet panic=-1" </dev/null >"$T/qemu" 2>&1
	code=$?
	rm -f "$T/initrd"
	t2=$(date +%s)
	echo "  the image: $((t1 - t0)) s ($VM_DIR), the VM: $((t2 - t1)) s (qemu exit $code)"
	tr -d '\r' <"$T/console" | sed -n 's/^oto-vm: //p' >"$T/vm"
	sed -n 's/^\(info\|log\) /  /p' "$T/vm"
	grep -E '^(PASS|FAIL|SKIP) ' "$T/vm" | tee -a "$OTO_RESULTS" | grep -v '^PASS ' | sed 's/^/  /'
	assertEquals "qemu's exit: $(cat "$T/qemu")" 0 "$code"
	assertEquals "the VM began and ended" "begin end" \
		"$(grep -xE 'begin|end' "$T/vm" | tr '\n' ' ' | sed 's/ $//')"
	# Every test given, reported once; a missing one fails here.
	want=$(for who in root user; do vm_tests $who | sed "s/^/vm-$who-/"; done | sort)
	got=$(sed -n 's/^\(PASS\|FAIL\|SKIP\) \([^ ]*\).*/\2/p' "$T/vm" | sort)
	assertEquals "the VM's tests" "$want" "$got"
	[ -n "$got" ] || tail -n 30 "$T/console" | sed 's/^/  console: /'
}

. shunit2
