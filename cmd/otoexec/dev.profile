# otoexec dev profile: the default profile's text, then these lines
# (otoexec --print-profile dev shows both).
#
# For development sandboxes in which the agent debugs and measures its own
# programs: debuggers and tracers (gdb, strace), LeakSanitizer (it stops the
# world with ptrace), perf. What it opens, and why it opens no more:
#  - ptrace, process_vm_readv, process_vm_writev: the kernel allows them on a
#    process only of the same uid, dumpable, whose capabilities are a subset
#    of the tracer's: the agent's own processes. Not the sandbox's pid 1
#    (otons: it holds capabilities the agent does not, and is not dumpable),
#    and no process outside the sandbox, which its pid namespace does not
#    even show.
#  - perf_event_open: as far as the host's kernel.perf_event_paranoid allows
#    an unprivileged process (2 on Debian: its own processes, user space
#    only; no kernel profiling, no other process).
#  - personality(ADDR_NO_RANDOMIZE): gdb turns address space randomization
#    off for the program it starts.
# Every other refusal of the default profile stays.
drop ptrace process_vm_readv process_vm_writev perf_event_open
allow ptrace process_vm_readv process_vm_writev perf_event_open
allow personality if arg0 == 0x40000
