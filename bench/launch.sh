#!/bin/sh
# Launch latency of each stage and of the whole chain, against bubblewrap
# building the member view with every namespace (the reference line), in one
# interleaved loop: round after round, every command once (in reverse order
# every other round), so that each sees the load the others saw. Prints the
# medians, each as a ratio to the bwrap line (ratio of the medians, and the
# median of the per-round ratios: the paired figure), and the time each stage
# adds.
#
#   OTO_BIN=build/musl/bin sh bench/launch.sh [RUNS]     (default 200 rounds)
#
# As root (as make bench runs it): the commands run as uid 65534, started
# by a worker of the loop that switched ids once (no extra exec, and the same
# vfork as root's own lines); otonet and otorun are started by root with
# --as 65534, as the suites run them, and the whole loop runs in a network
# namespace made for it (loopback only), so otonet reads no real host and no
# packet goes anywhere. Not root: everything runs as the caller, in its
# network namespace, and the otonet lines need /dev/net/tun to be the
# caller's to open. Goals: otoexec adds at most 2 ms to the exec
# of a stage (the null stage: a static program that only execs); the whole
# chain without network at most 1.0x bwrap, with otonet at most 1.0x too,
# and with otogate and one grant in front at most 1.5x.
# The cost of otons --cgroup is measured in the same loop: see
# below; so is the protected-files walk (at most 2 ms for 100
# repositories and 100,000 files), and the session's record on --log-fd
# (the lines alone: against the previous build, bench/RESULTS.md).
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
runs=${1:-200}
for t in bwrap python3 musl-gcc; do
	command -v $t >/dev/null || { echo "launch.sh: $t is needed" >&2; exit 111; }
done

w=$(mktemp -d /tmp/oto-bench-launch.XXXXXX)
ns=
cleanup() {
	[ -z "$ns" ] || ip netns del "$ns" 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT INT TERM
chmod 0755 "$w"
mkdir -p "$w/bin"
cp "$OTO_BIN/otons" "$OTO_BIN/otomount" "$OTO_BIN/otoexec" "$OTO_BIN/otonet" \
	"$OTO_BIN/otosecret" "$OTO_BIN/otogate" "$OTO_BIN/otorun" "$w/bin/"
# The gated chain's store: one entry, granted for an upstream by address
# (the loop's namespace has no resolver); nothing connects to it, /bin/true
# makes no request.
"$OTO_BIN/otosecret" keygen --out "$w/key"
echo "API_KEY=sk-bench-0123456789abcdef" | "$OTO_BIN/otosecret" seal --key-file "$w/key" --store "$w/store"
grant="--store $w/store --key-file $w/key --grant API_KEY=https://127.0.0.1:9"
# The null stage: same libc, same static link, no work but one exec.
printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv(v[1], v + 1); return 127; }\n' >"$w/null.c"
musl-gcc -static -Os -s -o "$w/bin/nullstage" "$w/null.c"
A=$w/agent
mkdir -p "$A/workspace" "$A/knowledge" "$A/config" "$A/people/alice"
# The protected-files walk (otomount(1)): an agent tree whose
# workspace holds 100 repositories of 1,000 files each (10 directories of
# 100), 100,000 files in all; its line against the same tree with both
# writable trees exempt (--writable), which walks nothing.
BIG=$w/big
mkdir -p "$BIG/knowledge" "$BIG/config" "$BIG/people/alice"
python3 - "$BIG/workspace" <<'PY'
import os, sys
top = sys.argv[1]
for r in range(100):
    g = os.path.join(top, "r%03d" % r, ".git")
    for d in ("hooks", "info", "objects", "refs"):
        os.makedirs(os.path.join(g, d))
    open(os.path.join(g, "config"), "w").write("[core]\n")
    open(os.path.join(g, "HEAD"), "w").write("ref: refs/heads/main\n")
    for d in range(10):
        src = os.path.join(top, "r%03d" % r, "src", "d%d" % d)
        os.makedirs(src)
        for f in range(100):
            open(os.path.join(src, "f%d.c" % f), "w").close()
PY
uid=
as=
if [ "$(id -u)" = 0 ]; then
	chown -R 65534:65534 "$A" "$BIG"
	uid=65534
	as="--as 65534"
fi
chmod -R a+rX "$w"
chmod 0600 "$w/store" "$w/key"

# bubblewrap's view: the host's /bin, /lib... as the host has them (bench/mount.sh).
sys=
for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
	if [ -L $d ]; then
		sys="$sys --symlink $(readlink $d) $d"
	elif [ -d $d ]; then
		sys="$sys --ro-bind $d $d"
	fi
done
B=$w/bin
view="--agent-root $A --role member --person alice"
# name|user (u: as uid 65534 when root; r: as the caller)|command
cat >"$w/cmds" <<EOF
bwrap, member view, all namespaces|u|bwrap --unshare-all --unshare-user --disable-userns --ro-bind /usr /usr$sys --ro-bind /etc /etc --bind $A/workspace /work --ro-bind $A/knowledge /knowledge --bind $A/people/alice /private --tmpfs /home/agent --tmpfs /tmp --proc /proc --dev /dev --chdir /work /bin/true
/bin/true|u|/bin/true
null stage -- /bin/true|u|$B/nullstage /bin/true
otoexec -- /bin/true|u|$B/otoexec -- /bin/true
unshare -Urmpiuf --mount-proc /bin/true|u|unshare -Urmpiuf --mount-proc /bin/true
otons -- /bin/true|u|$B/otons -- /bin/true
otons -- otomount (member) -- /bin/true|u|$B/otons -- $B/otomount $view -- /bin/true
otons -- otoexec -- /bin/true|u|$B/otons -- $B/otoexec -- /bin/true
otonet -- /bin/true|r|$B/otonet $as -- /bin/true
otorun --no-net (whole chain)|r|$B/otorun $as $view --no-net -- /bin/true
otorun (whole chain, with otonet)|r|$B/otorun $as $view -- /bin/true
otorun --grant (whole chain, with otogate and one grant)|r|$B/otorun $as $view $grant -- /bin/true
otorun --no-net --log-fd 3 (the session's record)|r|$B/otorun $as $view --no-net --log-fd 3 -- /bin/true
otorun --log-fd 3 (the session's record, with otonet)|r|$B/otorun $as $view --log-fd 3 -- /bin/true
otorun --no-net, 100 repositories and 100,000 files|r|$B/otorun $as --agent-root $BIG --role member --person alice --no-net -- /bin/true
otorun --no-net, the same, walk exempt (--writable)|r|$B/otorun $as --agent-root $BIG --role member --person alice --writable /work --writable /private --no-net -- /bin/true
EOF
# As root, the container's way too: the caller is the user (uid 65534, no
# --as), as a non-root entrypoint starts it; without network, since
# /dev/net/tun is root's here. Not a goal line: the goals stay on the lines
# above, as the issue measured them.
[ -z "$uid" ] || echo "otorun --no-net (whole chain, started by the user)|u|$B/otorun $view --no-net -- /bin/true" >>"$w/cmds"
# The session's cgroup (otons --cgroup): make the leaf, move pid 1
# into it, kill and remove it at the end. As root, root's default
# (CGROUP2/oto/65534) with --as, against otons with --as alone, and with the
# limits whose controllers cgroup v2 has; not root, in OTO_BENCH_CGROUP (a
# directory delegated to the caller, who runs inside that subtree) if set.
mnt=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
cgdir=${OTO_BENCH_CGROUP:-}
if [ -n "$mnt" ] && { [ -n "$uid" ] || [ -n "$cgdir" ]; }; then
	limits=
	ctl=$mnt/cgroup.controllers
	[ -n "$cgdir" ] && ctl=$cgdir/cgroup.controllers
	grep -qw pids "$ctl" && limits="$limits --pids-max 512"
	grep -qw memory "$ctl" && limits="$limits --memory-max 1G"
	grep -qw cpu "$ctl" && limits="$limits --cpu-max 1"
	cg=--cgroup
	[ -n "$cgdir" ] && cg="--cgroup=$cgdir"
	{
		echo "otons (started as the caller) -- /bin/true|r|$B/otons $as -- /bin/true"
		echo "otons --cgroup -- /bin/true|r|$B/otons $as $cg -- /bin/true"
		[ -z "$limits" ] || echo "otons --cgroup$limits -- /bin/true|r|$B/otons $as $cg$limits -- /bin/true"
	} >>"$w/cmds"
else
	echo "launch.sh: no cgroup v2 mounted, or not root and no OTO_BENCH_CGROUP: no --cgroup lines" >&2
fi

cat >"$w/loop.py" <<'PY'
import os, shlex, statistics, subprocess, sys, time
runs, path, uid = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmds = []
for line in open(path):
    name, who, cmd = line.rstrip("\n").split("|", 2)
    cmds.append((name, who, shlex.split(cmd)))
# Every command is started the same way, by vfork and exec (subprocess
# without user=): asking subprocess to switch ids makes it fork instead, a
# copy of this whole interpreter that cost 1 to 4 ms more per launch here,
# and that was paid by the uid-65534 lines alone (bwrap's among them). As
# root, the uid-65534 lines run in a worker that switched ids once, at the
# start, and times them as the parent times its own.
# fd 3, for the --log-fd lines: /dev/null, so that the lines cost their
# making and their write, and no disk.
os.dup2(os.open("/dev/null", os.O_WRONLY), 3)
def run(name, argv):
    t = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, cwd="/",
                       pass_fds=(3,) if "--log-fd" in argv else ())
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit("launch.sh: %s exited %d" % (name, r.returncode))
    return dt
worker = None
if uid:
    cmd_r, cmd_w = os.pipe()            # parent -> worker: an index
    res_r, res_w = os.pipe()            # worker -> parent: its time
    pid = os.fork()
    if pid == 0:
        os.close(cmd_w); os.close(res_r)
        os.setgroups([])
        os.setresgid(int(uid), int(uid), int(uid))
        os.setresuid(int(uid), int(uid), int(uid))
        rd, wr = os.fdopen(cmd_r, "r"), os.fdopen(res_w, "w")
        for line in rd:
            i = int(line)
            wr.write("%r\n" % run(cmds[i][0], cmds[i][2]))
            wr.flush()
        os._exit(0)
    os.close(cmd_r); os.close(res_w)
    worker = (os.fdopen(cmd_w, "w"), os.fdopen(res_r, "r"), pid)
def once(c):
    name, who, argv = c
    if worker and who == "u":
        worker[0].write("%d\n" % cmds.index(c))
        worker[0].flush()
        line = worker[1].readline()
        if not line:
            sys.exit("launch.sh: the uid %s worker stopped at %s" % (uid, name))
        return float(line)
    return run(name, argv)
times = {c[0]: [] for c in cmds}
for c in cmds:                          # warm-up: page cache, binaries
    for _ in range(10):
        once(c)
for i in range(runs):
    for c in (cmds if i % 2 == 0 else cmds[::-1]):
        times[c[0]].append(once(c))
ref = cmds[0][0]
med = {n: statistics.median(t) * 1000 for n, t in times.items()}
print("| command | median (ms) | ratio of medians to bwrap | median of paired ratios |")
print("|---|---|---|---|")
for n, t in times.items():
    paired = statistics.median(a / b for a, b in zip(t, times[ref]))
    print("| %s | %.2f | %.2f | %.2f |" % (n, med[n], med[n] / med[ref], paired))
print()
def add(a, b):
    return med[a] - med[b]
print("What each stage adds (differences of medians, ms):")
print("- null stage (one exec of a static program): %.2f" % add("null stage -- /bin/true", "/bin/true"))
print("- otoexec alone, over /bin/true: %.2f; over the null stage: %.2f (goal: at most 2 ms)"
      % (add("otoexec -- /bin/true", "/bin/true"), add("otoexec -- /bin/true", "null stage -- /bin/true")))
print("- otons over /bin/true: %.2f" % add("otons -- /bin/true", "/bin/true"))
print("- otomount (member view), in otons: %.2f" % add("otons -- otomount (member) -- /bin/true", "otons -- /bin/true"))
print("- otoexec, in otons: %.2f" % add("otons -- otoexec -- /bin/true", "otons -- /bin/true"))
print("- otonet over /bin/true: %.2f" % add("otonet -- /bin/true", "/bin/true"))
# A stage against the chain without it, round by round: the machine's drift
# between runs moves both alike, so these ratios compare builds of otonet
# and otogate better than either line's ratio to bwrap does.
def over(a, b):
    return statistics.median(x / y for x, y in zip(times[a], times[b]))
print("- otonet, in the whole chain: %.2f (paired: %.3fx the chain without network)"
      % (add("otorun (whole chain, with otonet)", "otorun --no-net (whole chain)"),
         over("otorun (whole chain, with otonet)", "otorun --no-net (whole chain)")))
print("- the session's record (--log-fd: the refusal log's socket, the session's id, its open and close lines), without network: %.2f; with otonet: %.2f"
      % (add("otorun --no-net --log-fd 3 (the session's record)", "otorun --no-net (whole chain)"),
         add("otorun --log-fd 3 (the session's record, with otonet)", "otorun (whole chain, with otonet)")))
print("- the protected-files walk of 100 repositories and 100,000 files (400 mounts), in the whole chain: %.2f (goal: at most 2 ms)"
      % add("otorun --no-net, 100 repositories and 100,000 files", "otorun --no-net, the same, walk exempt (--writable)"))
user = "otorun --no-net (whole chain, started by the user)"
if user in med:
    print("- root starting the chain with --as, over the user starting it: %.2f (the user's chain: %.2fx bwrap)"
          % (add("otorun --no-net (whole chain)", user), med[user] / med[ref]))
if "otons --cgroup -- /bin/true" in med:
    base = "otons (started as the caller) -- /bin/true"
    print("- the session's cgroup (otons --cgroup), over otons: %.2f" % add("otons --cgroup -- /bin/true", base))
    for n in med:
        if n.startswith("otons --cgroup --"):
            print("- the cgroup with its limits (%s), over otons: %.2f" % (n[len("otons --cgroup "):-len(" -- /bin/true")], add(n, base)))
print()
nonet = med["otorun --no-net (whole chain)"] / med[ref]
net = med["otorun (whole chain, with otonet)"] / med[ref]
gated = med["otorun --grant (whole chain, with otogate and one grant)"] / med[ref]
g, n = "otorun --grant (whole chain, with otogate and one grant)", "otorun (whole chain, with otonet)"
print("- otogate and one grant, in the whole chain: %.2f (paired: %.3fx the chain with otonet)"
      % (add(g, n), over(g, n)))
print()
print("Goals: whole chain without network %.2fx bwrap (goal <= 1.0): %s; with otonet %.2fx (goal <= 1.0): %s; "
      "with otogate and one grant %.2fx (goal <= 1.5): %s"
      % (nonet, "met" if nonet <= 1.0 else "NOT met", net, "met" if net <= 1.0 else "NOT met",
         gated, "met" if gated <= 1.5 else "NOT met"))
PY

echo "launch.sh: $runs rounds of $(wc -l <"$w/cmds") commands; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
if [ -n "$uid" ]; then
	ns=oto-bench-launch-$$
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	# ip netns exec mounts a /sys of its own, without cgroupfs: cgroup v2
	# again at /sys/fs/cgroup, in that private mount namespace (--cgroup).
	ip netns exec "$ns" sh -c '[ -z "$1" ] || mount -t cgroup2 none /sys/fs/cgroup; shift
		exec python3 "$@"' sh "$mnt" "$w/loop.py" "$runs" "$w/cmds" "$uid"
else
	python3 "$w/loop.py" "$runs" "$w/cmds" "$uid"
fi
