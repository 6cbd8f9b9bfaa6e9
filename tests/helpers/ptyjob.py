#!/usr/bin/env python3
# Run a command as a job of a pretend interactive shell on a new pseudo-terminal,
# and report the terminal's state before it starts and after it ends.
#
#   ptyjob.py [--plain] [--away] [--err FILE] [--kill-when FILE] [--bg-when FILE] -- CMD [ARG]...
#
# A child makes a new session whose controlling terminal is the pty's slave (setsid,
# TIOCSCTTY): it plays the operator's shell. Like a job-control shell, it runs CMD in
# a process group of its own and makes that group the foreground one (--plain: CMD
# stays in the shell's group, as from a shell without job control). CMD gets the
# terminal as stdin and stdout (--away: /dev/null and FILE; it can still open
# /dev/tty), stderr to FILE (--err, default /dev/null). --kill-when FILE: once FILE
# exists, SIGKILL the grandchild of CMD (CMD is otons: the program under its pid 1).
# --bg-when FILE: once FILE exists, take the foreground back while CMD runs on (as
# after ^Z and bg), switch echo off as readline does, then create FILE.taken.
#
# Prints, on stdout:
#   before iflag=.. oflag=.. cflag=.. lflag=.. ispeed=.. ospeed=.. cc=.. fg=job|shell|other
#   after  (the same fields, when CMD has ended)
#   shell  (--bg-when: the same fields, once the shell has the terminal back)
#   rc N          CMD's exit code (-N: killed by signal N)
#   write ok|EAGAIN   a non-blocking write to the terminal after CMD ended
import fcntl
import os
import select
import signal
import sys
import termios
import time

TIMEOUT = 20


def state(fd, job, shell):
    a = termios.tcgetattr(fd)
    fg = os.tcgetpgrp(fd)
    who = "job" if fg == job else "shell" if fg == shell else "other"
    cc = "".join("%02x" % (c[0] if isinstance(c, bytes) else c) for c in a[6])
    return "iflag=%#x oflag=%#x cflag=%#x lflag=%#x ispeed=%d ospeed=%d cc=%s fg=%s pgrp=%d" % (
        a[0], a[1], a[2], a[3], a[4], a[5], cc, who, fg)


def children(pid):
    kids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            kids.append(int(p))
    return kids


def kill_program(otons, ready):
    wait_for(ready)
    for init in children(otons):
        for prog in children(init):
            os.kill(prog, signal.SIGKILL)


def wait_for(path):
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)


def take_back(slave, me):
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(slave, me)
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    a = termios.tcgetattr(slave)
    a[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, a)


def shell(slave, report, opts, argv):
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    me = os.getpgrp()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        if not opts["plain"]:
            os.setpgid(0, 0)
            os.read(go_r, 1)  # until the shell has given us the terminal
        err = os.open(opts["err"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if opts["away"]:
            os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
            os.dup2(err, 1)
        else:
            os.dup2(slave, 0)
            os.dup2(slave, 1)
        os.dup2(err, 2)
        os.closerange(3, 1024)
        os.execvp(argv[0], argv)
    job = None
    if not opts["plain"]:
        os.setpgid(pid, pid)
        os.tcsetpgrp(slave, pid)
        job = pid
    os.write(go_w, b"g")
    os.write(report, ("before %s\n" % state(slave, job, me)).encode())
    if opts["kill_when"]:
        kill_program(pid, opts["kill_when"])
    if opts["bg_when"]:
        wait_for(opts["bg_when"])
        take_back(slave, me)
        os.write(report, ("shell %s\n" % state(slave, job, me)).encode())
        open(opts["bg_when"] + ".taken", "w").close()
    _, status = os.waitpid(pid, 0)
    after = state(slave, job, me)
    # A shell takes the terminal back before it writes its prompt.
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(slave, me)
    out = os.open(os.ttyname(slave), os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        os.write(out, b"$ ")
        wrote = "ok"
    except BlockingIOError:
        wrote = "EAGAIN"
    os.write(report, ("after %s\nrc %d\nwrite %s\n" % (after, os.waitstatus_to_exitcode(status),
                                                       wrote)).encode())


def main():
    args = sys.argv[1:]
    opts = {"plain": False, "away": False, "err": "/dev/null", "kill_when": None, "bg_when": None}
    while args and args[0] != "--":
        a = args.pop(0)
        if a in ("--plain", "--away"):
            opts[a[2:]] = True
        elif a in ("--err", "--kill-when", "--bg-when"):
            opts[a[2:].replace("-", "_")] = args.pop(0)
        else:
            sys.exit("ptyjob: unknown option " + a)
    argv = args[1:]
    master, slave = os.openpty()
    rep_r, rep_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.close(rep_r)
        try:
            shell(slave, rep_w, opts, argv)
        finally:
            os._exit(0)
    os.close(slave)
    os.close(rep_w)
    # Read the terminal's output as a terminal emulator would, so no write blocks.
    deadline = time.monotonic() + TIMEOUT
    report = b""
    fds = [master, rep_r]
    while rep_r in fds and time.monotonic() < deadline:
        for fd in select.select(fds, [], [], 0.1)[0]:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if fd == rep_r:
                report += data
            if not data:
                fds.remove(fd)
    if rep_r in fds:
        os.kill(pid, signal.SIGKILL)
        report += b"timeout\n"
    os.waitpid(pid, 0)
    sys.stdout.write(report.decode())


main()
