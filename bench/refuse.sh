#!/bin/sh
# What refusing a private range costs, the relay's way (the default: a RST,
# and a line on --log-fd) against the kernel's (--kernel-wall: prohibit
# routes, EACCES at once, no line): otonet's launch with each, and the time
# of one refused connect() to 10.0.0.1:80 as the program inside sees it,
# with and without the log. Interleaved: round after round, every variant
# once (in reverse order every other round). Prints medians and the ratio of
# each to the kernel's line.
#
#   OTO_BIN=build/musl/bin sh bench/refuse.sh [ROUNDS]    (default 100; root)
#
# Everything runs in a network namespace made for it (loopback only): no
# packet leaves it, and the connects never reach a host socket (the relay
# answers them itself). The program is python3, on the host's filesystem.
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
rounds=${1:-100}
[ "$(id -u)" = 0 ] || { echo "refuse.sh: needs root (ip netns, otonet --as)" >&2; exit 111; }
command -v python3 >/dev/null || { echo "refuse.sh: python3 is needed" >&2; exit 111; }
ns=oto-bench-refuse-$$
w=$(mktemp -d /tmp/oto-bench-refuse.XXXXXX)
cleanup() {
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT INT TERM
chmod 0755 "$w"
ip netns add "$ns"
ip -n "$ns" link set lo up

# The program inside: N blocking connects to 10.0.0.1:80, each refused; the
# median of their times, in microseconds, and how each was refused.
cat >"$w/conn.py" <<'PY'
import errno, socket, statistics, sys, time
n, ts, errs = int(sys.argv[1]), [], set()
for _ in range(n):
    s = socket.socket()
    t = time.perf_counter()
    try:
        s.connect(("10.0.0.1", 80))
        sys.exit("refuse.sh: 10.0.0.1:80 was reached")
    except OSError as e:
        errs.add(errno.errorcode[e.errno])
    ts.append(time.perf_counter() - t)
    s.close()
print(statistics.median(ts) * 1e6, ",".join(sorted(errs)))
PY
chmod 0644 "$w/conn.py"

cat >"$w/loop.py" <<'PY'
import os, statistics, subprocess, sys, time
rounds, otonet, conn = int(sys.argv[1]), sys.argv[2], sys.argv[3]
log = os.open("/dev/null", os.O_WRONLY)
os.dup2(log, 3)
base = [otonet, "--as", "65534"]
variants = [
    ("kernel wall (--kernel-wall)", ["--kernel-wall"]),
    ("relay (default)", []),
    ("relay, --log-fd", ["--log-fd", "3"]),
]
launch = {v[0]: [] for v in variants}
each = {v[0]: [] for v in variants}
how = {}
def run(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, pass_fds=(3,))
    if r.returncode != 0:
        sys.exit("refuse.sh: %s exited %d" % (argv, r.returncode))
    return time.perf_counter() - t, r.stdout.decode()
for i in range(rounds + 5):
    for name, opts in (variants if i % 2 == 0 else variants[::-1]):
        dt, _ = run(base + opts + ["--", "/bin/true"])
        if i >= 5:
            launch[name].append(dt * 1000)
        if i % 5 == 0:
            _, out = run(base + opts + ["--", "python3", conn, "200"])
            us, errs = out.split()
            if i >= 5:
                each[name].append(float(us))
            how[name] = errs
ref = variants[0][0]
ml = {n: statistics.median(t) for n, t in launch.items()}
me = {n: statistics.median(t) for n, t in each.items()}
print("| variant | refused as | launch, median (ms) | ratio to the kernel's | one refused connect, median (us) | ratio to the kernel's |")
print("|---|---|---|---|---|---|")
for n, _ in variants:
    print("| %s | %s | %.2f | %.2f | %.1f | %.2f |" % (n, how[n], ml[n], ml[n] / ml[ref], me[n], me[n] / me[ref]))
PY

echo "refuse.sh: $rounds rounds; $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
ip netns exec "$ns" python3 "$w/loop.py" "$rounds" "$OTO_BIN/otonet" "$w/conn.py"
