#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""otorun's corpus: cases recorded with the shell script otorun was (commit
f074c1c, scripts/otorun) and replayed against the C otorun, compared byte for
byte: stdout, stderr, the exit code.

  otorun_corpus.py record CORPUS DIR OTORUN ARGDUMP   (as root: also as uid 65534)
  otorun_corpus.py replay CORPUS DIR OTORUN ARGDUMP [user]

DIR is a scratch directory (its path of safe bytes); DIR/bin holds OTORUN (a
link) and ARGDUMP as the chain's first stages, so that a launch (a case
without --print) shows what the first stage was given: its argv and its fds
(tests/helpers/argdump.c). In the corpus DIR is @DIR@. One case a line, JSON,
every string a byte string read as Latin-1. A case's outcome is recorded as
root ("root") and as an unprivileged user ("user") where they differ.
"""
import json
import os
import shutil
import subprocess
import sys

TOOLS = ("otogate", "otonet", "otons", "otomount")
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}


def b(s):
    return s.encode("latin-1")


def u(x):
    return x.decode("latin-1")


def prepare(d, otorun, argdump, case):
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d + "/bin")
    os.makedirs(d + "/adir")
    os.chmod(d, 0o755)
    os.symlink(otorun, d + "/bin/otorun")
    for t in TOOLS:
        shutil.copy(argdump, d + "/bin/" + t)
        os.chmod(d + "/bin/" + t, 0o755)
    # The store and key owner-only, as otorun wants them (the script did not
    # look); the account that replays as "user" owns them.
    for name, mode in (("store", 0o600), ("key", 0o600), ("profile", 0o644), ("unreadable", 0)):
        with open(d + "/" + name, "w") as f:
            f.write(name + "\n")
        os.chmod(d + "/" + name, mode)
        if mode == 0o600 and os.geteuid() == 0:
            os.chown(d + "/" + name, 65534, 65534)
    for name, content in case.get("files", {}).items():
        with open(d + "/" + name, "wb") as f:
            f.write(b(content).replace(b"@DIR@", d.encode()))
        os.chmod(d + "/" + name, 0o644)
    with open(d + "/log", "w"):
        pass
    os.chmod(d + "/log", 0o666)


def run(d, case, user):
    args = [b(a).replace(b"@DIR@", d.encode()) for a in case["args"]]
    prefix = []
    if user and os.geteuid() == 0:
        prefix = [b"setpriv", b"--reuid", b"65534", b"--regid", b"65534", b"--clear-groups"]
    fds = case.get("fds", [])

    def child():
        for n in fds:
            f = os.open(d + "/log", os.O_WRONLY)
            os.dup2(f, n)
            if f != n:
                os.close(f)

    p = subprocess.run(prefix + [d.encode() + b"/bin/otorun"] + args, stdin=subprocess.DEVNULL,
                       capture_output=True, env=ENV, preexec_fn=child, cwd=d,
                       pass_fds=fds)
    sub = lambda x: u(x.replace(d.encode(), b"@DIR@"))
    return {"rc": p.returncode, "out": sub(p.stdout), "err": sub(p.stderr)}


def record(corpus, d, otorun, argdump):
    cases = generate()
    with open(corpus, "w") as f:
        for c in cases:
            prepare(d, otorun, argdump, c)
            root = run(d, c, False)
            user = run(d, c, True)
            c = dict(c)
            if root == user:
                c["any"] = root
            else:
                c["root"], c["user"] = root, user
            f.write(json.dumps(c, ensure_ascii=True) + "\n")
    shutil.rmtree(d)
    print("%d cases" % len(cases))


def replay(corpus, d, otorun, argdump, who):
    n = bad = 0
    for line in open(corpus):
        c = json.loads(line)
        want = c.get("any") or c[who]
        prepare(d, otorun, argdump, c)
        got = run(d, c, False)
        n += 1
        if got != want:
            bad += 1
            if bad <= 10:
                print("case %s: %r" % (c["name"], c["args"]))
                for k in ("rc", "out", "err"):
                    if got[k] != want[k]:
                        print("  %s: want %r\n  %s:  got %r" % (k, want[k], k, got[k]))
    shutil.rmtree(d)
    print("%d cases, %d differ" % (n, bad))
    return 1 if bad else 0


# ---- the cases -----------------------------------------------------------

VALS = ["plain", "sp ace", "it's", 'dq"x', "nl\nx", "trail\n\n", "back\\slash", "*", "?",
        "[a]", "$HOME", "$(touch pwned)", "`id`", "", "-v", "--", "tab\tx", "\x01ctl\x7f", "\xc3\xa9",
        "a'b'c", "'", "''", "\\", "~", "a=b", "x:y", "%+,@.-_/", "!bang", "#hash", "{a,b}", ";",
        "&", "|", "<>", " lead", "trail ", "\r", "\xff\xfe", "PATH=/x", "a\\nb\\c"]
BASE = ["--print", "--as", "nobody", "--agent-root", "/a", "--role", "member", "--person", "p"]
PASS = ["--allow", "--public", "--dns", "--hostname", "--ro", "--rw", "--socket", "--tmpfs",
        "--tmp-size", "--tmp-inodes", "--hide", "--ro-within", "--rlimit", "--env", "--env-keep",
        "--landlock-ro", "--landlock-rw"]
NUMS = ["--max-flows", "--max-half-open", "--max-udp-flows", "--tcp-idle", "--udp-idle",
        "--busy-poll", "--log-fd"]
LIMITS = ["--memory-max", "--pids-max", "--cpu-max"]
FLAGS = ["--no-public", "--no-net", "--landlock-strict", "--new-session", "--no-new-session",
         "--pty", "--no-pty", "--cgroup", "--cgroup=/sys/fs/cgroup/x", "--cgroup=/a b"]
SK = ["--store", "@DIR@/store", "--key-file", "@DIR@/key"]


def generate():
    cases = []

    def add(name, args, **kw):
        cases.append(dict(name="%d %s" % (len(cases), name), args=args, **kw))

    # Every value of every option that is passed on, quoted; a rotating share of the values.
    for i, o in enumerate(PASS):
        for j in range(8):
            v = VALS[(i * 8 + j) % len(VALS)]
            add(o, BASE + [o, v, "--", "true"])
    for i, v in enumerate(VALS):
        add("value everywhere", ["--print", "--as", v, "--agent-root", v, "--role", v, "--person",
                                 v, "--ro", v, "--env", "X=" + v, "--", v, v])
        add("agent's argv", BASE + ["--", v])
        add("profile", BASE + ["--profile", v, "--", "true"])
        add("store and key", BASE + ["--secret", "S", "--store", v, "--key-file", v, "--", "true"])
        add("grant", BASE + ["--grant", "G=https://" + v, "--store", "/s", "--key-file", "/k",
                             "--ca-file", v, "--", "true"])
        add("cgroup dir", BASE + ["--cgroup=/" + v, "--", "true"])
    for o in NUMS + LIMITS:
        for v in ["0", "12", "007", "1.5", "1G", "max", "", "-1", "1 2", "x", "1e3", "9" * 30,
                  "\n3", "3\n"]:
            add(o, BASE + [o, v, "--", "true"])
            add(o + " no-net", BASE + ["--no-net", o, v, "--", "true"])
    for f in FLAGS:
        add(f, BASE + [f, "--", "true"])
        add(f + " twice", BASE + [f, f, "--", "true"])
    add("all flags", BASE + FLAGS[:1] + FLAGS[2:] + ["--", "true"])
    for v in ["S", "S:env", "S:env=V", "S:env=1V", "S:env=", "S:fd=3", "S:fd=", "S:fd=x",
              "S:file=/run/s", "S:file=rel", "S:file=", "S:bogus", "S:", "S::", ":env", "1S",
              "S-x", "S:fd=3:4", "S:env=V W", "", "S\n", "S:env=V\n", "S:fd=007",
              "S:file=/a b\n"]:
        add("--secret " + v, BASE + ["--secret", v] + SK + ["--", "true"])
    for v in ["G=https://h", "G=https://h:8443", "G=https://", "G=http://h", "G", "=https://h",
              "1G=https://h", "G-x=https://h", "G=https://h/p?q=1 'x'", "G=https://h=x",
              "https://h", "", "G=\nhttps://h", "G=https://\n"]:
        add("--grant " + v, BASE + ["--grant", v] + SK + ["--", "true"])
    # The checks after the options, in order.
    for name, args in [
        ("nothing", []), ("only --", ["--"]), ("no command", BASE),
        ("no command after --", BASE + ["--"]),
        ("no agent-root", ["--print", "--as", "n", "--role", "r", "--person", "p", "--", "x"]),
        ("empty agent-root", ["--print", "--agent-root", "", "--role", "r", "--person", "p", "x"]),
        ("no role", ["--print", "--agent-root", "/a", "--person", "p", "--", "x"]),
        ("no person", ["--print", "--agent-root", "/a", "--role", "r", "--", "x"]),
        ("no --as", ["--print", "--agent-root", "/a", "--role", "r", "--person", "p", "--", "x"]),
        ("empty --as", BASE + ["--as", "", "--", "x"]),
        ("--as user:group", BASE + ["--as", "nobody:nogroup", "--", "x"]),
        ("secret without store", BASE + ["--secret", "S", "--", "x"]),
        ("secret without key", BASE + ["--secret", "S", "--store", "/s", "--", "x"]),
        ("secret, empty store", BASE + ["--secret", "S", "--store", "", "--key-file", "/k", "--", "x"]),
        ("store alone", BASE + ["--store", "/s", "--", "x"]),
        ("key alone", BASE + ["--key-file", "/k", "--", "x"]),
        ("empty store alone", BASE + ["--store", "", "--", "x"]),
        ("ca-file alone", BASE + ["--ca-file", "/c", "--", "x"]),
        ("ca-file with secret", BASE + ["--ca-file", "/c", "--secret", "S"] + SK + ["--", "x"]),
        ("no-net grant", BASE + ["--no-net", "--grant", "G=https://h"] + SK + ["--", "x"]),
        ("no-net allow", BASE + ["--no-net", "--allow", "tcp:1.2.3.4:5", "--", "x"]),
        ("no-net no-public", BASE + ["--no-public", "--no-net", "--", "x"]),
        ("no-net log-fd", BASE + ["--no-net", "--log-fd", "3", "--", "x"]),
        ("no-net max-flows", BASE + ["--no-net", "--max-flows", "3", "--", "x"]),
        ("bad value before a missing check", ["--print", "--log-fd", "x", "--", "x"]),
        ("all at once", BASE + ["--secret", "S:fd=4", "--grant", "G=https://h", "--ca-file", "/c",
                                "--log-fd", "3", "--profile", "/p r", "--cgroup",
                                "--memory-max", "1G", "--pids-max", "10", "--cpu-max", "0.5",
                                "--hostname", "h", "--pty", "--allow", "tcp:1.2.3.4:5",
                                "--no-public", "--dns", "1.1.1.1", "--max-flows", "9",
                                "--landlock-strict", "--env-keep", "K", "--rlimit",
                                "nofile=10:20"] + SK + ["--", "a", "b c"]),
        ("both secrets and grants", BASE + ["--secret", "A", "--grant", "B=https://b",
                                            "--secret", "C:env=D", "--grant", "E=https://e:1"]
         + SK + ["--", "x"]),
        ("log-fd 3", BASE + ["--log-fd", "3", "--", "x"]),
        ("log-fd 4", BASE + ["--log-fd", "4", "--", "x"]),
        ("log-fd 03", BASE + ["--log-fd", "03", "--", "x"]),
        ("profile default", BASE + ["--profile", "default", "--", "x"]),
        ("profile dev", BASE + ["--profile", "dev", "--", "x"]),
        ("profile empty", BASE + ["--profile", "", "--", "x"]),
        ("env PATH", BASE + ["--env", "PATH=/x", "--", "x"]),
        ("env PATH quoted", BASE + ["--env", "PATH=/x y", "--", "x"]),
        ("env PATHX", BASE + ["--env", "PATHX=1", "--", "x"]),
        ("env-keep PATH", BASE + ["--env-keep", "PATH", "--", "x"]),
        ("env-keep with --env PATH= inside", BASE + ["--env-keep", "a --env PATH=b", "--", "x"]),
        ("rlimit with --env 'PATH= inside", BASE + ["--rlimit", "x --env 'PATH=", "--", "x"]),
        ("new session then no", BASE + ["--new-session", "--no-new-session", "--", "x"]),
        ("cgroup then dir", BASE + ["--cgroup=/d", "--cgroup", "--", "x"]),
        ("cgroup dirs", BASE + ["--cgroup=/d", "--cgroup=/e", "--", "x"]),
        ("cgroup= empty", BASE + ["--cgroup=", "--", "x"]),
        ("cgroup=/", BASE + ["--cgroup=/", "--", "x"]),
        ("cgroup=rel", BASE + ["--cgroup=rel", "--", "x"]),
        ("cgroup=//", BASE + ["--cgroup=//", "--", "x"]),
        ("cgroup no-net", BASE + ["--cgroup", "--no-net", "--", "x"]),
        ("memory no-net", BASE + ["--memory-max", "1G", "--no-net", "--", "x"]),
        ("later value replaces", BASE + ["--agent-root", "/b", "--role", "viewer", "--", "x"]),
    ]:
        add(name, args)
    # The command line itself.
    for name, args in [
        ("help", ["--help"]), ("-h", ["-h"]), ("help after options", BASE + ["-h"]),
        ("help as a value", BASE + ["--role", "--help", "--", "x"]),
        ("help after --", BASE + ["--", "--help"]),
        ("help after a bad option", ["--bogus", "--help"]),
        ("bad option after help", ["--help", "--bogus"]),
        ("missing value at the end", ["--help", "--role"]),
        ("missing value", BASE + ["--role"]),
        ("missing value of --config", ["--config"]),
        ("missing value of --config, after help", ["--help", "--config"]),
        ("unknown", BASE + ["--bogus", "--", "x"]),
        ("unknown with value", BASE + ["--bogus=1", "--", "x"]),
        ("unknown, shown", BASE + ["--bo\ngus\x1b", "--", "x"]),
        ("short unknown", BASE + ["-x", "--", "x"]),
        ("short cluster", BASE + ["-hv", "--", "x"]),
        ("dash alone", BASE + ["-", "x"]),
        ("flag with =", BASE + ["--print=1", "--", "x"]),
        ("--config=", BASE + ["--config=/x", "--", "x"]),
        ("no --", BASE + ["true", "--role", "x"]),
        ("empty word ends options", BASE + ["", "x"]),
        ("command after -- that looks like an option", BASE + ["--", "--role", "x"]),
        ("-- twice", BASE + ["--", "--", "x"]),
        ("version as a value", BASE + ["--person", "--version", "--", "x"]),
        ("print twice", BASE + ["--print", "--", "x"]),
    ]:
        add(name, args)
    # --config files.
    good = "# a comment\n--agent-root /srv/a b\n\t--role member\n\n  --person alice\n--as nobody\n"
    for name, content in [
        ("good", good), ("crlf", good.replace("\n", "\r\n")), ("no final newline", good.rstrip("\n")),
        ("value as it is", good + "--env NOTE=it's \"quoted\" $(no) & spaced  \n"),
        ("tab before value", good + "--env\t\tX=1\n"), ("flag", good + "--no-net\n"),
        ("flag with blank", good + "--no-net \n"), ("flag with value", good + "--no-net yes\n"),
        ("value missing", good + "--role\n"), ("value empty", good + "--role \n"),
        ("unknown", good + "--bogus 1\n"), ("unknown flag", good + "--bogus\n"),
        ("unknown shown", good + "--bo\x01gus 1\n"),
        ("not an option", good + "role member\n"), ("not an option shown", good + "ro\x02le  x\t\n"),
        ("short option", good + "-h\n"), ("nested", good + "--config /x\n"),
        ("print", good + "--print\n"), ("help", "--help\n"), ("version", "--version\n"),
        ("--", good + "--\n"), ("comment after blanks", "   # x\n" + good),
        ("hash inside", good + "--env X=#1\n"), ("cr in middle", good + "--env X=a\rb\n"),
        ("two crs", good + "--env X=a\r\r\n"), ("nul", good + "--env X=a\x00b\n"),
        ("bad value", good + "--log-fd x\n"), ("bad secret", good + "--secret 1x\n"),
        ("cgroup=dir", good + "--cgroup=/x\n"), ("cgroup=rel", good + "--cgroup=x\n"),
        ("cgroup= with value", good + "--cgroup=/x y\n"),
        ("empty", ""), ("only comments", "# x\n#y\n"),
        ("secret", good + "--secret S\n--store @DIR@/store\n--key-file @DIR@/key\n"),
        ("repeatables add", good + "--ro /a:/b\n--env A=1\n"),
        ("newline-only value", good + "--env \n"), ("backslashes", good + "--env X=a\\\\b\\n\n"),
        ("line 1 error", "--bogus\n"), ("error after blank lines", "\n\n\n#\n--role\n"),
    ]:
        files = {"c.conf": content}
        add("config " + name, ["--config", "@DIR@/c.conf", "--print", "--", "x"], files=files)
        add("config then cli " + name, ["--config", "@DIR@/c.conf", "--print", "--role", "viewer",
                                         "--env", "B=2", "--", "x"], files=files)
    for name, args in [
        ("missing", ["--config", "@DIR@/nope", "--", "x"]),
        ("directory", ["--config", "@DIR@/adir", "--", "x"]),
        ("unreadable", ["--config", "@DIR@/unreadable", "--", "x"]),
        ("shown", ["--config", "@DIR@/no\npe", "--", "x"]),
        ("empty name", ["--config", "", "--print"] + BASE[1:] + ["--", "x"]),
        ("twice", ["--config", "@DIR@/c.conf", "--config", "@DIR@/c.conf", "--", "x"]),
        ("after help", ["--help", "--config", "@DIR@/nope"]),
        ("after a value", BASE + ["--role", "--config", "@DIR@/c.conf", "--", "x"]),
        ("after --", BASE + ["--", "--config", "@DIR@/nope"]),
        ("after the command", BASE + ["x", "--config", "@DIR@/nope"]),
        ("path with newline in where", ["--config", "@DIR@/c\n.conf", "--", "x"]),
    ]:
        add("config " + name, args, files={"c.conf": good + "--bogus\n", "c\n.conf": "--x\n"})
    # Launches: what the first stage gets (argv, fds), and the errors before it.
    R = ["--as", "nobody", "--agent-root", "/a", "--role", "member", "--person", "p"]
    for name, args, fds in [
        ("plain", R + ["--", "x", "a b"], []),
        ("no-net", R + ["--no-net", "--", "x"], []),
        ("secret", R + ["--secret", "S"] + SK + ["--", "x"], []),
        ("grant", R + ["--grant", "G=https://h"] + SK + ["--", "x"], []),
        ("both", R + ["--secret", "S", "--grant", "G=https://h"] + SK + ["--", "x"], []),
        ("profile", R + ["--profile", "@DIR@/profile", "--", "x"], []),
        ("profile relative", R + ["--profile", "profile", "--", "x"], []),
        ("profile missing", R + ["--profile", "@DIR@/nope", "--", "x"], []),
        ("profile directory", R + ["--profile", "@DIR@/adir", "--", "x"], []),
        ("profile unreadable", R + ["--profile", "@DIR@/unreadable", "--", "x"], []),
        ("profile shown", R + ["--profile", "@DIR@/n\nope", "--", "x"], []),
        ("profile default", R + ["--profile", "default", "--", "x"], []),
        ("store missing", R + ["--secret", "S", "--store", "@DIR@/nope", "--key-file",
                               "@DIR@/key", "--", "x"], []),
        ("store unreadable", R + ["--secret", "S", "--store", "@DIR@/unreadable", "--key-file",
                                  "@DIR@/key", "--", "x"], []),
        ("key missing", R + ["--grant", "G=https://h", "--store", "@DIR@/store", "--key-file",
                             "@DIR@/n\x01ope", "--", "x"], []),
        ("store missing and profile missing", R + ["--secret", "S", "--store", "@DIR@/nope",
                                                   "--key-file", "@DIR@/key", "--profile",
                                                   "@DIR@/nope", "--", "x"], []),
        ("log-fd 3", R + ["--log-fd", "3", "--", "x"], [3]),
        ("log-fd 4", R + ["--log-fd", "4", "--", "x"], [4]),
        ("log-fd 3 no-net", R + ["--no-net", "--log-fd", "3", "--", "x"], [3]),
        ("log-fd 5 no-net, not open", R + ["--no-net", "--log-fd", "5", "--", "x"], []),
        ("log-fd 8 with a secret", R + ["--log-fd", "8", "--secret", "S"] + SK + ["--", "x"], [8]),
        ("everything", R + ["--log-fd", "3", "--secret", "S:fd=4", "--grant", "G=https://h",
                            "--profile", "@DIR@/profile", "--cgroup=/c"] + SK + ["--"] + VALS[:12],
         [3]),
        ("config", ["--config", "@DIR@/c.conf", "--", "x"], []),
    ]:
        add("launch " + name, args, fds=fds,
            files={"c.conf": good + "--secret S\n--store @DIR@/store\n--key-file @DIR@/key\n"})
    return cases


if __name__ == "__main__":
    mode, corpus, d, otorun, argdump = sys.argv[1:6]
    if mode == "record":
        record(corpus, d, otorun, argdump)
    else:
        sys.exit(replay(corpus, d, otorun, argdump, sys.argv[6] if len(sys.argv) > 6 else
                        ("root" if os.geteuid() == 0 else "user")))
