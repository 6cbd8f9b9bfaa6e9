#!/usr/bin/python3
"""Floods for otonet's bounds (tests/test_otonet_bounds.sh), run inside the
sandbox against the fake internet of tests/net/topo.sh. Each mode prints one
line of counts; every loop is bounded in count and in time."""
import errno, hashlib, os, resource, selectors, socket, struct, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nettool  # noqa: E402  (blob: the source server's bytes)


def more_fds():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def kind(e):
    return "refused" if e in (errno.ECONNREFUSED, errno.ECONNRESET) else "other"


def m_hold(host, port, n, cap, dlsize):
    """A download started first and paused; then n connections one after the
    other, each kept open when it succeeds; then the download finished and
    checked. Past --max-flows, every attempt is refused."""
    more_fds()
    n, cap, dlsize = int(n), float(cap), int(dlsize)
    dl = socket.create_connection((host, 9001), 10)
    dl.sendall(f"{dlsize}\n".encode())
    h, got = hashlib.sha256(), 0
    first = dl.recv(1 << 16)
    h.update(first)
    got += len(first)
    held, c = [], {"ok": 0, "refused": 0, "other": 0}
    end = time.monotonic() + cap
    tried = 0
    while tried < n and time.monotonic() < end:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(3)
        tried += 1
        try:
            s.connect((host, int(port)))
            held.append(s)
            c["ok"] += 1
        except OSError as e:
            c[kind(e.errno)] += 1
            s.close()
    while True:
        d = dl.recv(1 << 18)
        if not d:
            break
        h.update(d)
        got += len(d)
    want = hashlib.sha256()
    for chunk in nettool.blob(dlsize):
        want.update(chunk)
    ok = got == dlsize and h.hexdigest() == want.hexdigest()
    return f"tried {tried} ok {c['ok']} refused {c['refused']} other {c['other']} " \
           f"download {'ok' if ok else 'mismatch'}"


def m_churn(host, port, n, cap, conc):
    """n connections, up to conc at once, each closed as soon as it is
    established: as fast as they go, for cap seconds at most. Each is closed
    by a reset: a FIN would leave this side's port in TIME_WAIT for 60 s,
    and its 28,232 ports would run out first (EADDRNOTAVAIL)."""
    more_fds()
    n, cap, conc = int(n), float(cap), int(conc)
    sel = selectors.DefaultSelector()
    c = {"ok": 0, "refused": 0, "other": 0}
    errs = {}
    started, inflight = 0, 0
    t0 = time.monotonic()
    end = t0 + cap
    while (started < n or inflight) and time.monotonic() < end:
        while started < n and inflight < conc:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            started += 1
            e = s.connect_ex((host, int(port)))
            if e not in (0, errno.EINPROGRESS):
                c[kind(e)] += 1
                errs[e] = errs.get(e, 0) + 1
                s.close()
                continue
            sel.register(s, selectors.EVENT_WRITE)
            inflight += 1
        for key, _ in sel.select(0.5):
            s = key.fileobj
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if e == 0:
                c["ok"] += 1
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                c[kind(e)] += 1
                errs[e] = errs.get(e, 0) + 1
            sel.unregister(s)
            s.close()
            inflight -= 1
    done = c["ok"] + c["refused"] + c["other"]
    names = " ".join(f"{errno.errorcode.get(e, e)}:{k}" for e, k in sorted(errs.items()))
    return f"done {done} ok {c['ok']} refused {c['refused']} other {c['other']} " \
           f"secs {int(time.monotonic() - t0)} {names}".rstrip()


def m_halfopen(host, port, n, wait):
    """n connections at once to an address that never answers: how many are
    still pending after wait seconds, how many were refused."""
    socks, c = [], {"pending": 0, "refused": 0, "other": 0}
    for _ in range(int(n)):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, int(port)))
        socks.append(s)
    time.sleep(float(wait))
    for s in socks:
        e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if e == 0:
            try:
                s.getpeername()
                c["other"] += 1  # established: cannot be, nothing answers
            except OSError:
                c["pending"] += 1
        else:
            c[kind(e)] += 1
    return f"pending {c['pending']} refused {c['refused']} other {c['other']}"


def echo(s, msg):
    s.send(msg)
    try:
        return "ok" if s.recv(100) == msg else "mismatch"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def m_udp(host, nports, base):
    """A UDP flow to the echo port kept alive, then one datagram to each of
    nports ports from one socket, paced so nothing is dropped on the way; the
    relay's refusals come back as ICMP "administratively prohibited" (code 13)
    and are counted from the socket's error queue."""
    nports, base = int(nports), int(base)
    keeper = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    keeper.settimeout(2)
    keeper.connect((host, 9005))
    before = echo(keeper, b"keep")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_IP, 11, 1)  # IP_RECVERR
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.setblocking(False)
    prohibited, other_err, sent = 0, 0, 0

    def drain(until):
        nonlocal prohibited, other_err
        while True:
            try:
                _, anc, _, _ = s.recvmsg(64, 512, socket.MSG_ERRQUEUE)
            except BlockingIOError:
                if time.monotonic() >= until:
                    return
                time.sleep(0.001)
                continue
            for lvl, typ, data in anc:
                if lvl == socket.SOL_IP and typ == 11 and len(data) >= 8:
                    ee_type, ee_code = data[5], data[6]
                    if ee_type == 3 and ee_code == 13:
                        prohibited += 1
                    else:
                        other_err += 1
            if time.monotonic() >= until:
                return
    t_end = time.monotonic() + 100
    for p in range(base, base + nports):
        give_up = time.monotonic() + 5
        while time.monotonic() < give_up:
            try:
                s.sendto(struct.pack("!I", p), (host, p))
                sent += 1
                break
            except OSError:
                # An ICMP error that arrived since, reported by this send
                # instead of sending: it stays in the queue; try again.
                drain(0)
        if sent % 1000 == 0:
            echo(keeper, b"alive")  # keeps the echo flow from going idle
        if sent % 100 == 0:
            drain(time.monotonic() + 0.004)
        if time.monotonic() > t_end:
            break
    drain(time.monotonic() + 1.0)
    after = echo(keeper, b"still")
    return f"sent {sent} prohibited {prohibited} keeper {before} {after}"


def m_idle(host, port, secs):
    """A connection left idle for secs seconds, then used."""
    s = socket.create_connection((host, int(port)), 5)
    s.settimeout(5)
    time.sleep(float(secs))
    try:
        s.sendall(b"after")
        d = s.recv(100)
        return "ok" if d == b"after" else f"got {d!r}"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def m_downs(host, k, size, pause):
    """k downloads of size bytes each, all requested at once and left unread
    for pause seconds, then read one after the other and checked."""
    more_fds()
    k, size = int(k), int(size)
    socks = []
    for _ in range(k):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # A small window: the relay, not this socket, holds what is unread.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(60)
        s.connect((host, 9001))
        s.sendall(f"{size}\n".encode())
        socks.append(s)
    time.sleep(float(pause))
    want = hashlib.sha256()
    for chunk in nettool.blob(size):
        want.update(chunk)
    good = 0
    for s in socks:
        try:
            got, n = nettool.recv_all(s)
            good += got == want.hexdigest() and n == size
        except OSError:
            pass
        s.close()
    return f"ok {good}"


def main():
    modes = {"hold": m_hold, "churn": m_churn, "halfopen": m_halfopen, "udp": m_udp,
             "idle": m_idle, "downs": m_downs}
    print(modes[sys.argv[1]](*sys.argv[2:]), flush=True)


if __name__ == "__main__":
    main()
