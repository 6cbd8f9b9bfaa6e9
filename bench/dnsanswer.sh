#!/bin/sh
# Which DNS answer makes a client give up on a refused name fastest: npm,
# pip, curl and git, each asked for a registry or remote under a name no
# rule allows, against a resolver that answers every question with one
# form: NXDOMAIN (what otonet answers), REFUSED, NOERROR with no answer
# (NODATA), SERVFAIL. Prints each client's time to failure (seconds, one
# run each) and its exit code; otonet(1) NOTES has the table.
#
#   sh bench/dnsanswer.sh    (root: ip netns)
#
# Everything runs in a network namespace made for it, loopback only, whose
# resolv.conf names the fake resolver on 127.0.0.1: no packet leaves it,
# and the names are under .example.test. The clients see the same bytes as
# they would from otonet's relay, which answers over the same UDP.
set -eu
[ "$(id -u)" = 0 ] || { echo "dnsanswer.sh: needs root (ip netns)" >&2; exit 111; }
ns=oto-bench-dns-$$
w=$(mktemp -d /tmp/oto-bench-dns.XXXXXX)
srv=
cleanup() {
	[ -z "$srv" ] || kill "$srv" 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "/etc/netns/$ns" "$w"
}
trap cleanup EXIT INT TERM
ip netns add "$ns"
ip -n "$ns" link set lo up
mkdir -p "/etc/netns/$ns"
echo "nameserver 127.0.0.1" >"/etc/netns/$ns/resolv.conf"
# A hosts file of its own: the host's must not name anything for them.
printf '127.0.0.1 localhost\n' >"/etc/netns/$ns/hosts"

cat >"$w/dns.py" <<'PY'
import socket, struct, sys, threading
RC = {"NXDOMAIN": 3, "REFUSED": 5, "NODATA": 0, "SERVFAIL": 2}
mode = open(sys.argv[1]).read().strip
def answer(q):
    rc = RC[mode()]
    flags = 0x8000 | (struct.unpack(">H", q[2:4])[0] & 0x0100) | 0x0080 | rc
    return q[:2] + struct.pack(">HHHHH", flags, 1, 0, 0, 0) + q[12:]
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 53))
    while True:
        q, a = s.recvfrom(4096)
        if len(q) >= 12:
            s.sendto(answer(q), a)
def tcp():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 53))
    s.listen(16)
    while True:
        c, _ = s.accept()
        n = struct.unpack(">H", c.recv(2))[0]
        q = c.recv(n)
        a = answer(q)
        c.sendall(struct.pack(">H", len(a)) + a)
        c.close()
threading.Thread(target=tcp, daemon=True).start()
udp()
PY
echo NXDOMAIN >"$w/mode"
ip netns exec "$ns" /usr/bin/python3 "$w/dns.py" "$w/mode" &
srv=$!
sleep 0.5

# client NAME CMD...: seconds to failure and the exit code, a fresh home each.
client() {
	name=$1
	shift
	rm -rf "${w:?}/home" && mkdir -p "$w/home"
	t0=$(date +%s%N)
	rc=0
	ip netns exec "$ns" env -i PATH=/usr/bin:/bin HOME="$w/home" timeout 300 "$@" \
		>"$w/out" 2>&1 </dev/null || rc=$?
	t1=$(date +%s%N)
	printf '%-6s %-9s %7.2f s  exit %s  %s\n' "$name" "$(cat "$w/mode")" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" "$rc" \
		"$(grep -v '^\s*$' "$w/out" | tail -n 1 | cut -c1-90)"
}

for m in NXDOMAIN REFUSED NODATA SERVFAIL; do
	echo "$m" >"$w/mode"
	client npm npm view left-pad version --registry https://registry.example.test/
	client pip /usr/bin/python3 -m pip download --no-deps -d "$w/dl" \
		--index-url https://pypi.example.test/simple left-pad
	client curl curl -sS https://registry.example.test/
	client git git ls-remote https://git.example.test/o/r.git
done
