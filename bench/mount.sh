#!/bin/sh
# Launch latency of the filesystem view: otons + otomount (member role)
# running /bin/true, against bubblewrap building the equivalent view, both as
# the same unprivileged user, in one interleaved timed loop. Prints a markdown
# table of medians and the ratio.
#
#   OTO_BIN  the directory of the static binaries
#   RUNS     runs per command (default 200)
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
RUNS=${RUNS:-200}
for t in bwrap python3; do
	command -v $t >/dev/null || { echo "mount.sh: $t is needed" >&2; exit 111; }
done

w=$(mktemp -d /tmp/oto-bench-mount.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM
chmod 0755 "$w"
A=$w/agent
mkdir -p "$A/workspace" "$A/knowledge" "$A/config" "$A/people/alice" "$w/bin"
cp "$OTO_BIN/otons" "$OTO_BIN/otomount" "$w/bin/"
if [ "$(id -u)" = 0 ]; then
	chown -R 65534:65534 "$A"
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
bwrap="${as}bwrap --unshare-all --unshare-user --disable-userns --ro-bind /usr /usr$sys \
--ro-bind /etc /etc --bind $A/workspace /work --ro-bind $A/knowledge /knowledge \
--bind $A/people/alice /private --tmpfs /home/agent --tmpfs /tmp --proc /proc --dev /dev \
--chdir /work /bin/true"

# Interleaved runs (A B, then B A, ...): on a shared machine the load changes
# from second to second, and both commands must see the same load.
python3 - "$RUNS" "$oto" "$bwrap" <<'PY'
import shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1])
cmds = {"otons + otomount (member)": shlex.split(sys.argv[2]),
        "bwrap (equivalent view)": shlex.split(sys.argv[3])}
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
o, b = (statistics.median(times[n]) for n in names)
print()
print("Ratio of medians, bwrap / otons+otomount: %.2fx (%s)" % (b / o,
      "faster than bubblewrap" if o < b else "slower than bubblewrap"))
PY
