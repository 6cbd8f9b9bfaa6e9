#!/usr/bin/env python3
# The seccomp filters a process runs, or those of an otoexec filter set, as
# text to compare: one line per program, oldest (first loaded) first, its
# length and its instructions in hex.
#
#   seccomp_filters.py --pid PID   the filters the kernel holds for PID: it is
#                                  attached with ptrace and asked with
#                                  PTRACE_SECCOMP_GET_FILTER (root:
#                                  CAP_SYS_ADMIN), then detached
#   seccomp_filters.py --set FILE  the programs of a filter set (otoexec
#                                  --print-bpf), in their load order
import ctypes
import os
import struct
import sys

PTRACE_ATTACH, PTRACE_DETACH, PTRACE_SECCOMP_GET_FILTER = 16, 17, 0x420C


def line(insns):
    return "%d %s" % (len(insns) // 8, insns.hex())


def from_pid(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) < 0:
        sys.exit("ptrace attach: " + os.strerror(ctypes.get_errno()))
    os.waitpid(pid, 0)
    progs = []
    try:
        for i in range(64):
            n = libc.ptrace(PTRACE_SECCOMP_GET_FILTER, pid, i, None)
            if n < 0:
                break
            buf = ctypes.create_string_buffer(n * 8)
            libc.ptrace(PTRACE_SECCOMP_GET_FILTER, pid, i, buf)
            progs.append(buf.raw)
    finally:
        libc.ptrace(PTRACE_DETACH, pid, None, None)
    # Index 0 is the filter installed first (kernel/seccomp.c, get_nth_filter).
    return [line(p) for p in progs]


def from_set(path):
    b = open(path, "rb").read()
    assert b[:8] == b"otobpf1\n", "not a filter set"
    _, n = struct.unpack_from("=II", b, 8)
    pos, out = 16, []
    for _ in range(n):
        insns, _ = struct.unpack_from("=II", b, pos)
        pos += 8
        out.append(line(b[pos : pos + insns * 8]))
        pos += insns * 8
    return out


if len(sys.argv) != 3 or sys.argv[1] not in ("--pid", "--set"):
    sys.exit("usage: seccomp_filters.py --pid PID | --set FILE")
print("\n".join(from_pid(int(sys.argv[2])) if sys.argv[1] == "--pid" else from_set(sys.argv[2])))
