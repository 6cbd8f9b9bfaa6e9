/* SPDX-License-Identifier: ISC */
/*
 * Generated from dev.profile (tests/test_otoexec.sh checks they agree):
 *   sed -e 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$/\\n"/' dev.profile
 */
#include "otoexec.h"

/* clang-format off */

const char OTOEXEC_DEV_PROFILE[] =
	"# otoexec dev profile: the default profile's text, then these lines\n"
	"# (otoexec --print-profile dev shows both).\n"
	"#\n"
	"# For development sandboxes in which the agent debugs and measures its own\n"
	"# programs: debuggers and tracers (gdb, strace), LeakSanitizer (it stops the\n"
	"# world with ptrace), perf. What it opens, and why it opens no more:\n"
	"#  - ptrace, process_vm_readv, process_vm_writev: the kernel allows them on a\n"
	"#    process only of the same uid, dumpable, whose capabilities are a subset\n"
	"#    of the tracer's: the agent's own processes. Not the sandbox's pid 1\n"
	"#    (otons: it holds capabilities the agent does not, and is not dumpable),\n"
	"#    and no process outside the sandbox, which its pid namespace does not\n"
	"#    even show.\n"
	"#  - perf_event_open: as far as the host's kernel.perf_event_paranoid allows\n"
	"#    an unprivileged process (2 on Debian: its own processes, user space\n"
	"#    only; no kernel profiling, no other process).\n"
	"#  - personality(ADDR_NO_RANDOMIZE): gdb turns address space randomization\n"
	"#    off for the program it starts.\n"
	"# Every other refusal of the default profile stays.\n"
	"drop ptrace process_vm_readv process_vm_writev perf_event_open\n"
	"allow ptrace process_vm_readv process_vm_writev perf_event_open\n"
	"allow personality if arg0 == 0x40000\n"
	"";
/* clang-format on */
