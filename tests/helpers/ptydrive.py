#!/usr/bin/env python3
# Converse with a command through a new pseudo-terminal, as an operator at a
# terminal emulator would: type, read, resize the window.
#
#   ptydrive.py [--rows N] [--cols N] [--out FILE] [--timeout S] [--answer S] SCRIPT -- CMD [ARG]...
#
# A child makes a new session whose controlling terminal is the pty's slave and
# plays the operator's job-control shell: CMD runs in a process group of its own,
# in the foreground, with the terminal as stdin, stdout and stderr. This process
# is the terminal emulator: it reads everything CMD writes (into FILE, --out) and
# follows SCRIPT, one step per line:
#
#   expect TEXT     wait until TEXT appears in the output after the last match
#   send TEXT       type TEXT
#   winsize R C     resize the window (the kernel sends SIGWINCH to the foreground job)
#   sleep S         wait S seconds (a float)
#   flood N         type N bytes "x", as many as the terminal takes in 2 seconds
#   kill SIG        send signal SIG (a number) to CMD
#
# With --answer S, the terminal answers queries S seconds after it read them,
# as a terminal across a slow link would: a device status report (CSI 5 n:
# CSI 0 n), the cursor's position (CSI 6 n: CSI 1;1 R), the primary device
# attributes (CSI c), and a title report (CSI 21 t: OSC l, the last title
# set with OSC 0 or 2, ST).
#
# TEXT takes Python's escapes (\n, \r, \x03). Each step has --timeout seconds
# (default 20); a step that fails ends the script, and CMD's process group is
# killed. Prints, on stdout:
#
#   terminal NAME   the terminal's name (its slave, here)
#   before iflag=.. oflag=.. cflag=.. lflag=.. ispeed=.. ospeed=.. cc=.. fg=job|shell|other
#   ok N            step N done (numbered from 1; flood: "ok N wrote K"), or
#   fail N STEP     step N timed out (and the output that came since the last match)
#   after ...       the terminal once CMD has ended (the same fields as before)
#   rc N            CMD's exit code (-N: killed by signal N)
#   cpu S           the CPU time CMD and what it waited for used, in seconds
#   typeahead REPR  what is waiting in the terminal's input for the shell's next read
#   end S           seconds from the last byte CMD wrote to the terminal to CMD's exit
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time


def state(fd, job, shell):
    a = termios.tcgetattr(fd)
    fg = os.tcgetpgrp(fd)
    who = "job" if fg == job else "shell" if fg == shell else "other"
    cc = "".join("%02x" % (c[0] if isinstance(c, bytes) else c) for c in a[6])
    return "iflag=%#x oflag=%#x cflag=%#x lflag=%#x ispeed=%d ospeed=%d cc=%s fg=%s" % (
        a[0], a[1], a[2], a[3], a[4], a[5], cc, who)


def shell(slave, report, argv):
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    me = os.getpgrp()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        os.setpgid(0, 0)
        os.read(go_r, 1)  # until the shell has given us the terminal
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.closerange(3, 1024)
        os.execvp(argv[0], argv)
    os.setpgid(pid, pid)
    os.tcsetpgrp(slave, pid)
    os.write(go_w, b"g")
    os.write(report, ("job %d\nbefore %s\n" % (pid, state(slave, pid, me))).encode())
    _, status, usage = os.wait4(pid, 0)
    os.write(report, ("exited %.6f\n" % time.monotonic()).encode())
    after = state(slave, pid, me)
    # What the shell would read next (typed ahead, or pushed in with TIOCSTI).
    ahead = b""
    a = termios.tcgetattr(slave)
    a[3] &= ~termios.ICANON
    a[6][termios.VMIN], a[6][termios.VTIME] = 0, 0
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(slave, me)
    termios.tcsetattr(slave, termios.TCSANOW, a)
    while select.select([slave], [], [], 0.2)[0]:
        data = os.read(slave, 4096)
        if not data:
            break
        ahead += data
    os.write(report, ("after %s\nrc %d\ncpu %.2f\ntypeahead %r\n" %
                      (after, os.waitstatus_to_exitcode(status),
                       usage.ru_utime + usage.ru_stime, ahead)).encode())


# The queries --answer answers, and their answers (None: the title report's).
QUERIES = {b"\x1b[5n": b"\x1b[0n", b"\x1b[6n": b"\x1b[1;1R", b"\x1b[c": b"\x1b[?62;22c",
           b"\x1b[21t": None}


def unescape(text):
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")


def main():
    args = sys.argv[1:]
    rows, cols, out_path, timeout, answer = 24, 80, None, 20.0, None
    while args and args[0].startswith("--") and args[0] != "--":
        a = args.pop(0)
        if a == "--rows":
            rows = int(args.pop(0))
        elif a == "--cols":
            cols = int(args.pop(0))
        elif a == "--out":
            out_path = args.pop(0)
        elif a == "--timeout":
            timeout = float(args.pop(0))
        elif a == "--answer":
            answer = float(args.pop(0))
        else:
            sys.exit("ptydrive: unknown option " + a)
    script = args.pop(0)
    if not args or args.pop(0) != "--":
        sys.exit("ptydrive: SCRIPT -- CMD [ARG]...")
    steps = [l.split(" ", 1) for l in script.split("\n") if l.strip()]
    master, slave = os.openpty()
    name = os.ttyname(slave)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    rep_r, rep_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.close(rep_r)
        try:
            shell(slave, rep_w, args)
        finally:
            os._exit(0)
    os.close(slave)
    os.close(rep_w)
    out = b""      # everything CMD wrote
    seen = 0       # where the next expect starts looking
    last_out = 0.0  # when CMD's output last came
    report = b""
    open_fds = [master, rep_r]
    asked = 0      # where the next query is looked for
    owed = []      # (when, answer) the terminal has yet to type

    def answer_queries():
        # A terminal's answers, in the order of the queries, each after its delay.
        nonlocal asked
        while answer is not None:
            found = [(out.find(q, asked), q) for q in QUERIES]
            found = [(i, q) for i, q in found if i >= 0]
            if not found:
                asked = max(asked, len(out) - 8)
                break
            i, q = min(found)
            asked = i + len(q)
            reply = QUERIES[q]
            if reply is None:
                t = max(out.rfind(b"\x1b]0;", 0, i), out.rfind(b"\x1b]2;", 0, i))
                title = b""
                if t >= 0:
                    title = out[t + 4:i].split(b"\x07")[0].split(b"\x1b")[0]
                reply = b"\x1b]l" + title + b"\x1b\\"
            owed.append((time.monotonic() + answer, reply))
        while owed and owed[0][0] <= time.monotonic():
            try:
                os.write(master, owed.pop(0)[1])
            except OSError:
                pass

    def pump(wait):
        # Read what is there (up to wait seconds); False once both are closed.
        nonlocal out, report, last_out
        answer_queries()
        if owed:
            wait = max(0.0, min(wait, owed[0][0] - time.monotonic()))
        if not open_fds:
            time.sleep(wait)
            return False
        for fd in select.select(open_fds, [], [], wait)[0]:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if fd == rep_r:
                report += data
            else:
                out += data
                if data:
                    last_out = time.monotonic()
            if not data:
                open_fds.remove(fd)
        return True

    def job_pid():
        while b"\nbefore " not in b"\n" + report and pump(0.05):
            pass
        return int(report.decode().split("job ", 1)[1].split()[0])

    result = []
    for n, step in enumerate(steps, 1):
        verb, arg = step[0], step[1] if len(step) > 1 else ""
        deadline = time.monotonic() + timeout
        ok = True
        if verb == "expect":
            want = unescape(arg)
            while out.find(want, seen) < 0:
                if time.monotonic() > deadline:
                    ok = False
                    break
                pump(0.05)
            if ok:
                seen = out.find(want, seen) + len(want)
        elif verb == "send":
            os.write(master, unescape(arg))
        elif verb == "winsize":
            r, c = (int(x) for x in arg.split())
            fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
        elif verb == "flood":
            left, end = int(arg), time.monotonic() + 2
            fl = fcntl.fcntl(master, fcntl.F_GETFL)
            fcntl.fcntl(master, fcntl.F_SETFL, fl | os.O_NONBLOCK)
            while left and time.monotonic() < end:
                try:
                    left -= os.write(master, b"x" * min(left, 4096))
                except BlockingIOError:
                    pump(0.05)
            fcntl.fcntl(master, fcntl.F_SETFL, fl)
            result.append("ok %d wrote %d\n" % (n, int(arg) - left))
            continue
        elif verb == "kill":
            os.kill(job_pid(), int(arg))
        elif verb == "sleep":
            end = time.monotonic() + float(arg)
            while time.monotonic() < end:
                pump(max(0.0, min(0.05, end - time.monotonic())))
        else:
            sys.exit("ptydrive: unknown step " + verb)
        if not ok:
            result.append("fail %d %s %s\n" % (n, " ".join(step), out[seen:][-400:]))
            kill_job(pid)
            break
        result.append("ok %d\n" % n)
    deadline = time.monotonic() + timeout
    while rep_r in open_fds and time.monotonic() < deadline:
        pump(0.05)
    if rep_r in open_fds:
        kill_job(pid)
        report += b"timeout\n"
    # What is still in the pty once CMD has ended.
    while master in open_fds and select.select([master], [], [], 0.2)[0]:
        pump(0)
    answer_queries()
    os.waitpid(pid, 0)
    if out_path:
        with open(out_path, "wb") as f:
            f.write(out)
    lines = report.decode().splitlines(True)
    for l in lines:
        if l.startswith("exited "):
            lines.append("end %.3f\n" % (float(l.split()[1]) - last_out))
    lines = [l for l in lines if not l.startswith("exited ")]
    first = ("job ", "before ")
    sys.stdout.write("terminal %s\n" % name + "".join(l for l in lines if l.startswith(first)) +
                     "".join(result) + "".join(l for l in lines if not l.startswith(first)))


def kill_job(shell_pid):
    # The job's process group has the id of the shell's only child.
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == shell_pid:
            try:
                os.killpg(int(p), signal.SIGKILL)
            except OSError:
                pass


main()
