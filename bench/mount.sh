#!/bin/sh
# Launch latency of the filesystem view: otons + otomount (member role)
# running /bin/true, against bubblewrap building the equivalent view, both as
# the same unprivileged user. Prints a markdown table of medians and the ratio.
#
#   OTO_BIN  the directory of the static binaries
#   RUNS     runs per command (default 200)
set -eu
: "${OTO_BIN:?OTO_BIN must name the directory of the binaries}"
RUNS=${RUNS:-200}
for t in hyperfine bwrap python3; do
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

hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$w/r.json" -n otons+otomount "$oto" \
	-n bwrap "$bwrap" >&2

python3 - "$w/r.json" "$RUNS" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
o, b = r["otons+otomount"], r["bwrap"]
ms = lambda s: "%.2f ms" % (s * 1000)
print("| command | median | mean ± σ | min | max | runs |")
print("|---|---|---|---|---|---|")
for name, x in (("otons + otomount (member)", o), ("bwrap (equivalent view)", b)):
    print("| %s | %s | %s ± %s | %s | %s | %d |" % (name, ms(x["median"]), ms(x["mean"]),
          ms(x["stddev"]), ms(x["min"]), ms(x["max"]), len(x["times"])))
print()
print("Ratio of medians, bwrap / otons+otomount: %.2fx (%s)" % (b["median"] / o["median"],
      "faster than bubblewrap" if o["median"] < b["median"] else "slower than bubblewrap"))
PY
