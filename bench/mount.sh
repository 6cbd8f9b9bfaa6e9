#!/bin/sh
# Launch latency of the filesystem view: otons + otomount (member role)
# running /bin/true, plain and with --cow (the workspace an overlay), against
# bubblewrap building the equivalent view, all as the same unprivileged user,
# in one interleaved timed loop. Then the overlay's cost on work: git status
# in a repository of 10,000 files and a full build of a small C project, in
# the same view with and without --cow, interleaved. Prints markdown tables
# of medians and the ratios.
#
#   OTO_BIN    the directory of the static binaries
#   RUNS       launches per command (default 200)
#   WORK_RUNS  runs of each workload (default 10)
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
RUNS=${RUNS:-200}
WORK_RUNS=${WORK_RUNS:-10}
for t in bwrap python3 git gcc make; do
	command -v $t >/dev/null || { echo "mount.sh: $t is needed" >&2; exit 111; }
done

w=$(mktemp -d /tmp/oto-bench-mount.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM
chmod 0755 "$w"
A=$w/agent
mkdir -p "$A/workspace" "$A/knowledge" "$A/config" "$A/people/alice" "$w/bin"
cp "$OTO_BIN/otons" "$OTO_BIN/otomount" "$w/bin/"
mkdir -m 0700 "$w/cow" "$w/cow2" # the session directories, the account's
if [ "$(id -u)" = 0 ]; then
	chown -R 65534:65534 "$A" "$w/cow" "$w/cow2"
	as="setpriv --reuid 65534 --regid 65534 --clear-groups "
else
	as=
fi
chmod -R a+rX "$w"

# bubblewrap's view: the host's /bin, /lib... as the host has them.
sys=
for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
	if [ -L $d ]; then
		sys="$sys --symlink $(readlink $d) $d"
	elif [ -d $d ]; then
		sys="$sys --ro-bind $d $d"
	fi
done

oto="${as}$w/bin/otons -- $w/bin/otomount --agent-root $A --role member --person alice -- /bin/true"
# The same, /work an overlay; the session directory is made by the first
# (warm-up) launch, and resumed by each one after.
cow="${as}$w/bin/otons -- $w/bin/otomount --agent-root $A --role member --person alice \
--cow $w/cow -- /bin/true"
bwrap="${as}bwrap --unshare-all --unshare-user --disable-userns --ro-bind /usr /usr$sys \
--ro-bind /etc /etc --bind $A/workspace /work --ro-bind $A/knowledge /knowledge \
--bind $A/people/alice /private --tmpfs /home/agent --tmpfs /tmp --proc /proc --dev /dev \
--chdir /work /bin/true"

# Interleaved runs (A B, then B A, ...): on a shared machine the load changes
# from second to second, and both commands must see the same load.
python3 - "$RUNS" "$oto" "$bwrap" "$cow" <<'PY'
import shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1])
cmds = {"otons + otomount (member)": shlex.split(sys.argv[2]),
        "bwrap (equivalent view)": shlex.split(sys.argv[3]),
        "otons + otomount --cow (member)": shlex.split(sys.argv[4])}
names = list(cmds)
times = {n: [] for n in names}
def once(n):
    t = time.perf_counter()
    r = subprocess.run(cmds[n], stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit("mount.sh: %s exited %d" % (n, r.returncode))
    return dt
for n in names:                      # warm-up: page cache, binaries
    for _ in range(10):
        once(n)
for i in range(runs):
    for n in (names if i % 2 == 0 else names[::-1]):
        times[n].append(once(n))
ms = lambda s: "%.2f ms" % (s * 1000)
print("| command | median | mean ± σ | min | max | runs |")
print("|---|---|---|---|---|---|")
for n in names:
    t = times[n]
    print("| %s | %s | %s ± %s | %s | %s | %d |" % (n, ms(statistics.median(t)),
          ms(statistics.mean(t)), ms(statistics.stdev(t)), ms(min(t)), ms(max(t)), len(t)))
o, b, c = (statistics.median(times[n]) for n in names)
print()
print("Ratio of medians, bwrap / otons+otomount: %.2fx (%s)" % (b / o,
      "faster than bubblewrap" if o < b else "slower than bubblewrap"))
print("--cow adds %.2f ms to the plain view's launch (median against median)" % ((c - o) * 1000))
PY

# The workloads: a repository of 10,000 files (100 directories of 100), and a
# C project of 30 files (make -B -j2: every object and the link each run).
# Two copies of each, so that the overlay's runs build into their own upper
# layer: after its first run, each side overwrites its own outputs.
mk_work() { # DIR
	mkdir -p "$1/repo" "$1/cproj"
	python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
for i in range(100):
    os.makedirs("%s/repo/d%02d" % (d, i), exist_ok=True)
    for j in range(100):
        with open("%s/repo/d%02d/f%02d.txt" % (d, i, j), "w") as f:
            f.write("file %d %d\n" % (i, j) * 20)
with open(d + "/cproj/Makefile", "w") as f:
    objs = " ".join("m%02d.o" % i for i in range(30))
    f.write("CFLAGS = -O1\nprog: %s\n\t$(CC) -o $@ $^\n" % objs)
for i in range(30):
    with open("%s/cproj/m%02d.c" % (d, i), "w") as f:
        body = "".join("int f%d_%d(int x) { return x * %d + %d; }\n" % (i, k, k, i) for k in range(20))
        main = "int main(void) { return 0; }\n" if i == 0 else ""
        f.write("#include <stdio.h>\n#include <string.h>\n" + body + main)
PY
	git -C "$1/repo" init -q -b main
	git -C "$1/repo" add -A
	git -C "$1/repo" -c user.name=b -c user.email=b@example.org commit -qm bench
}
mk_work "$A/workspace/bind"
mk_work "$A/workspace/cow"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$A"
chmod -R a+rX "$A"

view="${as}$w/bin/otons -- $w/bin/otomount --agent-root $A --role member --person alice"
gitst='export GIT_CONFIG_NOSYSTEM=1; for i in 1 2 3 4 5; do git status --porcelain >/dev/null || exit 1; done'
build='make -s -B -j2 >/dev/null'
python3 - "$WORK_RUNS" "$view" "$w/cow2" "$gitst" "$build" <<'PY'
import shlex, statistics, subprocess, sys, time
runs, view, cowdir, gitst, build = int(sys.argv[1]), shlex.split(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def cmd(cow, where, script):
    return view + (["--cow", cowdir] if cow else []) + ["--", "sh", "-c", "cd /work/%s && %s" % (where, script)]
work = {"git status x5, 10,000 files": ("repo", gitst), "make -B -j2, 30 files": ("cproj", build)}
def once(c):
    t = time.perf_counter()
    r = subprocess.run(c, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit("mount.sh: %s exited %d" % (c, r.returncode))
    return time.perf_counter() - t
print()
print("| workload | bind median | --cow median | ratio --cow / bind | runs |")
print("|---|---|---|---|---|")
for name, (sub, script) in work.items():
    c = {"bind": cmd(False, "bind/" + sub, script), "cow": cmd(True, "cow/" + sub, script)}
    t = {"bind": [], "cow": []}
    for k in c:                      # warm-up; the overlay's first run copies up
        for _ in range(2):
            once(c[k])
    for i in range(runs):
        for k in (("bind", "cow") if i % 2 == 0 else ("cow", "bind")):
            t[k].append(once(c[k]))
    b, o = statistics.median(t["bind"]), statistics.median(t["cow"])
    print("| %s | %.1f ms | %.1f ms | %.3fx | %d |" % (name, b * 1000, o * 1000, o / b, runs))
PY
