#!/usr/bin/python3
"""Servers of the otonet test topology, and the clients the tests run inside
the sandbox. Every client prints one line: "ok ..." or the errno name."""
import errno, hashlib, os, random, socket, struct, sys, threading, time

CHUNK = 1 << 20


def blob(n):
    """n deterministic bytes, in chunks (the same on both sides)."""
    i = 0
    while n > 0:
        k = min(CHUNK, n)
        yield random.Random(i).randbytes(k)
        n -= k
        i += 1


def recv_all(s):
    h, n = hashlib.sha256(), 0
    while True:
        d = s.recv(1 << 18)
        if not d:
            return h.hexdigest(), n
        h.update(d)
        n += len(d)


def listener(port, kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    if kind == socket.SOCK_STREAM:
        s.listen(512)
    return s


def serve_tcp(port, handler):
    s = listener(port)

    def loop():
        while True:
            c, a = s.accept()
            threading.Thread(target=guard, args=(handler, c), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


def guard(handler, c):
    try:
        handler(c)
    except OSError:
        pass
    finally:
        c.close()


def http_sink(c):
    """HTTP/1.1 with keep-alive: each request's body (Content-Length or
    chunked) is answered with 200 and "SHA256 LENGTH\n"."""
    f = c.makefile("rb")
    while True:
        line = f.readline()
        if not line:
            return
        length, chunked = 0, False
        while True:
            h = f.readline()
            if h in (b"\r\n", b""):
                break
            k, _, v = h.partition(b":")
            k = k.strip().lower()
            if k == b"content-length":
                length = int(v)
            elif k == b"transfer-encoding" and b"chunked" in v.lower():
                chunked = True
            elif k == b"expect":
                c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        d, n = hashlib.sha256(), 0
        if chunked:
            while True:
                size = int(f.readline().split(b";")[0], 16)
                if size == 0:
                    f.readline()
                    break
                x = f.read(size)
                d.update(x)
                n += len(x)
                f.readline()
        else:
            while n < length:
                x = f.read1(min(1 << 18, length - n))
                if not x:
                    return
                d.update(x)
                n += len(x)
        body = f"{d.hexdigest()} {n}\n".encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
                  % len(body) + body)


def serve_inet(d):
    def sink(c):  # everything until EOF, then its sha256
        h, n = recv_all(c)
        c.sendall(f"{h} {n}\n".encode())

    def source(c):  # "N\n", then N bytes, then EOF
        line = b""
        while not line.endswith(b"\n"):
            x = c.recv(64)
            if not x:
                return
            line += x
        for chunk in blob(int(line)):
            c.sendall(chunk)

    def echo(c):
        while True:
            x = c.recv(1 << 18)
            if not x:
                return
            c.sendall(x)

    def rst(c):
        c.recv(16)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def watch(c):  # how the client left: eof or rst
        try:
            while c.recv(4096):
                pass
            r = "eof"
        except ConnectionResetError:
            r = "rst"
        with open(os.path.join(d, "watch"), "a") as f:
            f.write(r + "\n")

    def halfclose(c):  # server's FIN first, then the client still talks
        c.sendall(b"banner\n")
        c.shutdown(socket.SHUT_WR)
        h = b""
        while True:
            x = c.recv(4096)
            if not x:
                break
            h += x
        with open(os.path.join(d, "hc"), "wb") as f:
            f.write(h)

    def readclose(c):  # takes 64 KiB, then closes with more unread: a RST
        got = 0
        while got < 65536:
            x = c.recv(65536 - got)
            if not x:
                return
            got += len(x)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def slowsink(c):  # "S\n", then reads nothing for S seconds, then a sink
        f = c.makefile("rb")
        time.sleep(float(f.readline()))
        h, n = hashlib.sha256(), 0
        while True:
            x = f.read1(1 << 18)
            if not x:
                break
            h.update(x)
            n += len(x)
        c.sendall(f"{h.hexdigest()} {n}\n".encode())

    seen_lock = threading.Lock()

    def recorder(port):  # echo, and every byte received appended to seen.PORT
        def rec(c):
            while True:
                x = c.recv(1 << 18)
                if not x:
                    return
                with seen_lock, open(os.path.join(d, f"seen.{port}"), "ab") as f:
                    f.write(x)
                c.sendall(x)
        return rec

    def banner(c):  # a server that speaks first (SSH's way), then echoes
        c.sendall(b"SSH-2.0-fake\r\n")
        echo(c)

    for port, h in ((9000, sink), (9001, source), (9002, echo), (9003, rst), (9004, watch),
                    (9006, halfclose), (9007, readclose), (9008, slowsink), (8080, http_sink),
                    (80, recorder(80)), (443, recorder(443)), (22, banner)):
        serve_tcp(port, h)
    u = listener(9005, socket.SOCK_DGRAM)
    serve_dns("203.0.113.11", os.path.join(d, "dns.seen"))

    def uecho():
        while True:
            x, a = u.recvfrom(65535)
            u.sendto(x, a)
    threading.Thread(target=uecho, daemon=True).start()
    open(os.path.join(d, "inet.ready"), "w").close()
    while True:
        time.sleep(3600)


# The public addresses the fake resolver puts in an answer beside the one asked for.
DNS_PUB = {1: "1.2.3.4", 28: "2606:4700::1"}


def fake_dns(q):
    """The fake internet's resolver: for a question SECTION.ADDR.dns.test of
    type A or AAAA (SECTION an, ns or ar; ADDR an address, its dots or colons
    written "-"), an answer holding ADDR in that section (answer, authority,
    additional) as a record of the question's type; for ns and ar, the
    answer section holds DNS_PUB's address of that type."""
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode())
        i += q[i] + 1
    qt = struct.unpack(">H", q[i + 1:i + 3])[0]
    fam = socket.AF_INET if qt == 1 else socket.AF_INET6
    sec, addr = labels[0], labels[1].replace("-", "." if qt == 1 else ":")

    def rr(a):
        data = socket.inet_pton(fam, a)
        return b"\xc0\x0c" + struct.pack(">HHIH", qt, 1, 300, len(data)) + data
    an = [rr(addr)] if sec == "an" else [rr(DNS_PUB[qt])]
    ns = [rr(addr)] if sec == "ns" else []
    ar = [rr(addr)] if sec == "ar" else []
    return (q[:2] + struct.pack(">HHHHH", 0x8180, 1, len(an), len(ns), len(ar)) + q[12:i + 5] +
            b"".join(an + ns + ar))


def serve_dns(addr, seen_file=None):
    """fake_dns on addr's port 53, over UDP and TCP (INET4B: INET4 has no
    resolver, for test_otonet.sh); nothing where addr is not this host's.
    Each message received is appended to seen_file, in hex, one a line."""
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((addr, 53))
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((addr, 53))
        t.listen(64)
    except OSError:
        return

    lock = threading.Lock()

    def seen(x):  # every message that reached the resolver, in hex
        if seen_file:
            with lock, open(seen_file, "a") as f:
                f.write(x.hex() + "\n")

    def uloop():
        while True:
            x, a = u.recvfrom(65535)
            seen(x)
            try:
                u.sendto(fake_dns(x), a)
            except (IndexError, KeyError, ValueError, UnicodeDecodeError, struct.error, OSError):
                pass
    threading.Thread(target=uloop, daemon=True).start()

    def tcp(c):
        f = c.makefile("rb")
        while True:
            h = f.read(2)
            if len(h) < 2:
                return
            x = f.read(struct.unpack(">H", h)[0])
            seen(x)
            r = fake_dns(x)
            c.sendall(struct.pack(">H", len(r)) + r)

    def tloop():
        while True:
            c, _ = t.accept()
            threading.Thread(target=guard, args=(tcp, c), daemon=True).start()
    threading.Thread(target=tloop, daemon=True).start()


LAN_PORTS = (22, 80, 443, 8086, 8087, 9000)


def serve_lan(seen):
    lock = threading.Lock()

    def record(line):
        with lock, open(seen, "a") as f:
            f.write(line + "\n")

    for port in LAN_PORTS:
        def tcp_handler(c, port=port):
            record(f"tcp {c.getsockname()[0]} {port} from {c.getpeername()[0]}")
            c.sendall(b"lan\n")
        serve_tcp(port, tcp_handler)
        u = listener(port, socket.SOCK_DGRAM)

        def uloop(u=u, port=port):
            while True:
                x, a = u.recvfrom(65535)
                record(f"udp {port} from {a[0]}")
                u.sendto(b"lan\n", a)
        threading.Thread(target=uloop, daemon=True).start()
    open(seen + ".ready", "w").close()
    while True:
        time.sleep(3600)


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def sockaddr(host, port):
    if "%" in host:  # a scoped link-local address
        return socket.getaddrinfo(host, port, socket.AF_INET6)[0][4]
    return (host, port)


def connect(host, port, timeout=10):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(sockaddr(host, port))
    return s


def errname(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__


def c_up(host, n):
    n = int(n)
    s = connect(host, 9000, 60)
    h = hashlib.sha256()
    for chunk in blob(n):
        s.sendall(chunk)
        h.update(chunk)
    s.shutdown(socket.SHUT_WR)
    reply = s.makefile().readline().split()
    return "ok" if reply == [h.hexdigest(), str(n)] else f"mismatch {reply}"


def c_down(host, n):
    n = int(n)
    s = connect(host, 9001, 60)
    s.sendall(f"{n}\n".encode())
    got, m = recv_all(s)
    h = hashlib.sha256()
    for chunk in blob(n):
        h.update(chunk)
    return "ok" if (got, m) == (h.hexdigest(), n) else f"mismatch {m}"


def c_many(host, k, size):
    k, size = int(k), int(size)
    res = []

    def one(i):
        try:
            s = connect(host, 9002, 60)
            data = random.Random(1000 + i).randbytes(size)
            threading.Thread(target=lambda: (s.sendall(data), s.shutdown(socket.SHUT_WR)),
                             daemon=True).start()
            got = b""
            while True:
                x = s.recv(1 << 16)
                if not x:
                    break
                got += x
            res.append(got == data)
        except OSError as e:
            res.append(errname(e))
    ts = [threading.Thread(target=one, args=(i,)) for i in range(k)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    good = sum(1 for r in res if r is True)
    return f"ok {good}" if good == k else f"bad {good} {[r for r in res if r is not True][:3]}"


def tcp_info(s):
    """The fields of struct tcp_info (linux/tcp.h) the tests read."""
    ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    snd_mss = struct.unpack_from("I", ti, 16)[0]
    busy, rwnd_limited, sndbuf_limited = struct.unpack_from("QQQ", ti, 168)
    return {"snd_mss": snd_mss, "rwnd_limited_us": rwnd_limited}


def c_post(host, port, size, count):
    """count HTTP POSTs of size bytes, each on a new connection, sent as curl
    sends them (no Nagle, the header, then the body in 64 KiB writes). Each
    answer must name the body's sha256 and length. Prints the longest time
    one connection's sender was held back by the window the relay advertised
    (tcp_info's rwnd_limited, ms): a timer-driven stall shows as 200 ms or more."""
    size, worst = int(size), 0
    body = b"".join(blob(size))
    want = f"{hashlib.sha256(body).hexdigest()} {size}"
    for _ in range(int(count)):
        try:
            s = connect(host, int(port), 20)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n"
                      % (host.encode(), size))
            for i in range(0, size, 1 << 16):
                s.sendall(body[i:i + (1 << 16)])
            f = s.makefile("rb")
            status = f.readline().split()
            length = 0
            while True:
                h = f.readline()
                if h in (b"\r\n", b""):
                    break
                if h.lower().startswith(b"content-length:"):
                    length = int(h.split(b":")[1])
            got = f.read(length).decode().strip()
            worst = max(worst, tcp_info(s)["rwnd_limited_us"] // 1000)
            s.close()
        except OSError as e:
            return errname(e)
        if status[1:2] != [b"200"] or got != want:
            return f"mismatch {status} {got}"
    return f"ok {worst}"


def c_mss(host, port):
    """The segment size the agent's kernel sends with on this connection."""
    try:
        s = connect(host, int(port), 5)
        return f"ok {tcp_info(s)['snd_mss']}"
    except OSError as e:
        return errname(e)


def c_upclose(host, n):
    """Send n bytes to a server that reads 64 KiB and resets: how it ends."""
    try:
        s = connect(host, 9007, 20)
        for chunk in blob(int(n)):
            s.sendall(chunk)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)
        return "no-error"
    except OSError as e:
        return errname(e)


def c_upslow(host, secs, n):
    """Send n bytes to a server that reads nothing for secs seconds."""
    n = int(n)
    try:
        s = connect(host, 9008, 60)
        s.sendall(f"{secs}\n".encode())
        h = hashlib.sha256()
        for chunk in blob(n):
            s.sendall(chunk)
            h.update(chunk)
        s.shutdown(socket.SHUT_WR)
        reply = s.makefile().readline().split()
    except OSError as e:
        return errname(e)
    return "ok" if reply == [h.hexdigest(), str(n)] else f"mismatch {reply}"


def c_udpbig(host, port, size, tries):
    """A datagram of size bytes to the echo server, sent again (up to tries
    times, 1 s apart) until its echo comes back whole: "ok TRY"."""
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.settimeout(1)
    msg = random.Random(7).randbytes(int(size))
    try:
        s.connect(sockaddr(host, int(port)))
        for t in range(1, int(tries) + 1):
            s.send(msg)
            try:
                if s.recv(65535) == msg:
                    return f"ok {t}"
            except socket.timeout:
                pass
        return "lost"
    except OSError as e:
        return errname(e)


def c_tcpstat():
    """This network namespace's counters of the timers a TCP sender waits on:
    retransmission timeouts, zero-window probes, and segments sent again."""
    out = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        with open(path) as f:
            lines = f.read().splitlines()
        for k, v in zip(lines[::2], lines[1::2]):
            out.update(zip(k.split()[1:], v.split()[1:]))
    return " ".join(f"{k}={out[k]}" for k in ("TCPTimeouts", "TCPWinProbe", "RetransSegs"))


def c_halfclose(host):
    # Our FIN first: the server still answers after it.
    s = connect(host, 9000)
    s.sendall(b"hello")
    s.shutdown(socket.SHUT_WR)
    first = s.makefile().readline().split()
    # The server's FIN first: we still send after it.
    s2 = connect(host, 9006)
    got = b""
    while True:
        x = s2.recv(64)
        if not x:
            break
        got += x
    s2.sendall(b"after\n")
    s2.shutdown(socket.SHUT_WR)
    s2.recv(1)
    ok = first == [hashlib.sha256(b"hello").hexdigest(), "5"] and got == b"banner\n"
    return "ok" if ok else f"bad {first} {got}"


def c_rst(host):
    s = connect(host, 9003)
    s.sendall(b"x")
    try:
        s.recv(10)
        return "no-error"
    except OSError as e:
        return errname(e)


def c_agent_rst(host):
    s = connect(host, 9004)
    s.sendall(b"x")
    time.sleep(0.2)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return "ok"


def c_connect(host, port, timeout="3"):
    t = time.monotonic()
    try:
        s = connect(host, int(port), float(timeout))
        r = "ok " + s.recv(16).decode().strip() if int(port) in LAN_PORTS else "ok"
    except OSError as e:
        r = errname(e)
    return f"{r} {int((time.monotonic() - t) * 1000)}"


def c_xfer(name, port, n, timeout="10"):
    """name resolved (getaddrinfo, IPv4), n bytes of blob() to its echo on port,
    and what comes back until EOF: "ok N SHA256" of it, or the errno's name;
    then the time it took, in ms."""
    t, n = time.monotonic(), int(n)
    try:
        a = socket.getaddrinfo(name, int(port), socket.AF_INET, socket.SOCK_STREAM)[0][4]
        s = socket.create_connection(a, float(timeout))

        def send():
            for chunk in blob(n):
                s.sendall(chunk)
            s.shutdown(socket.SHUT_WR)
        threading.Thread(target=send, daemon=True).start()
        h, got = recv_all(s)
        r = f"ok {got} {h}"
    except OSError as e:
        r = errname(e)
    return f"{r} {int((time.monotonic() - t) * 1000)}"


def c_asks(host, port0, k, timeout="10"):
    """k connects at once, to ports port0 to port0 + k - 1: each outcome's count,
    as each connect ended (ok, or the errno's name), and how many ended in the
    first half second."""
    import resource
    import selectors
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sel, t0, counts, early = selectors.DefaultSelector(), time.monotonic(), {}, 0
    for i in range(int(k)):
        s = socket.socket(family(host), socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(sockaddr(host, int(port0) + i))
        sel.register(s, selectors.EVENT_WRITE)
    left = int(k)
    while left and time.monotonic() - t0 < float(timeout):
        for key, _ in sel.select(0.1):
            s = key.fileobj
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            r = "ok" if not e else errno.errorcode.get(e, str(e))
            counts[r] = counts.get(r, 0) + 1
            early += time.monotonic() - t0 < 0.5
            sel.unregister(s)
            s.close()
            left -= 1
    counts["pending"] = left
    return " ".join(f"{k}={v}" for k, v in sorted(counts.items())) + f" early={early}"


def c_blobsha(n):
    """blob(n)'s sha256 (what c_xfer gets back from an echo)."""
    h = hashlib.sha256()
    for chunk in blob(int(n)):
        h.update(chunk)
    return h.hexdigest()


def c_gw(host, port, n):
    """n bytes of blob() to a gateway port, then EOF; the gateway's one-line answer."""
    try:
        s = connect(host, int(port), 30)
        for chunk in blob(int(n)):
            s.sendall(chunk)
        s.shutdown(socket.SHUT_WR)
        r = b""
        while True:
            x = s.recv(65536)
            if not x:
                break
            r += x
        return "ok " + r.decode().strip()
    except OSError as e:
        return errname(e)


def c_gwecho(host, port, n):
    """n bytes of blob() to a gateway port, then EOF; all that comes back, compared."""
    try:
        s = connect(host, int(port), 30)
        sent = b""
        for chunk in blob(int(n)):
            s.sendall(chunk)
            sent += chunk
        s.shutdown(socket.SHUT_WR)
        r = []
        while True:
            x = s.recv(65536)
            if not x:
                break
            r.append(x)
        back = b"".join(r)
        return f"ok back={len(back)} same={back == sent}"
    except OSError as e:
        return errname(e)


def c_udp(host, port, msg="ping", timeout="2"):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.settimeout(float(timeout))
    try:
        s.connect(sockaddr(host, int(port)))
        s.send(msg.encode())
        return "ok " + s.recv(65535).decode()
    except OSError as e:
        return errname(e)


def c_urounds(host, port, n):
    """n round trips of 32 bytes over one connected UDP socket, each checked."""
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.settimeout(2)
    try:
        s.connect(sockaddr(host, int(port)))
        for i in range(int(n)):
            m = b"%032d" % i
            s.send(m)
            if s.recv(64) != m:
                return "mismatch"
        return "ok " + n
    except OSError as e:
        return errname(e)


def c_probe(port, *addrs):
    """For each address: the TCP outcome, its time, and the UDP outcome."""
    out = []
    for a in addrs:
        t = c_connect(a, port, "2").split()
        out.append(f"{a} {t[0]} {t[-1]} {c_udp(a, port, 'probe', '1').split()[0]}")
    return "\n".join(out)


def c_hold(host, k):
    """Open k connections to the echo server and keep them all open."""
    socks, res = [], []
    for _ in range(int(k)):
        try:
            socks.append(connect(host, 9002, 3))
            res.append("ok")
        except OSError as e:
            res.append(errname(e))
    return " ".join(res)


def dns_query(name, qtype):
    q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    for part in name.split("."):
        q += bytes([len(part)]) + part.encode()
    return q + b"\0" + struct.pack(">HH", qtype, 1)


def dns_answer(r, qtype):
    n = struct.unpack(">H", r[6:8])[0]
    i = 12
    while r[i]:
        i += r[i] + 1
    i += 5
    out = []
    for _ in range(n):
        if r[i] & 0xC0 == 0xC0:
            i += 2
        else:
            while r[i]:
                i += r[i] + 1
            i += 1
        t, _, _, ln = struct.unpack(">HHIH", r[i:i + 10])
        i += 10
        if t == qtype:
            out.append(socket.inet_ntop(socket.AF_INET if t == 1 else socket.AF_INET6,
                                        r[i:i + ln]))
        i += ln
    return " ".join(out)


def dns_exchange(q, proto, server, size):
    """One question q to server's port 53 over proto (udp or tcp): the answer
    (over UDP, at most size bytes). Raises OSError."""
    if proto == "udp":
        s = socket.socket(family(server), socket.SOCK_DGRAM)
        s.settimeout(3)
        s.connect((server, 53))
        s.send(q)
        return s.recv(size)
    s = connect(server, 53, 3)
    s.sendall(struct.pack(">H", len(q)) + q)
    f = s.makefile("rb")
    ln = struct.unpack(">H", f.read(2))[0]
    return f.read(ln)


def c_dns(name, proto="udp", server="10.0.2.3", qtype="A"):
    qt = 1 if qtype == "A" else 28
    try:
        r = dns_exchange(dns_query(name, qt), proto, server, 4096)
        return "ok " + dns_answer(r, qt)
    except OSError as e:
        return errname(e)


RCODE = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}


def rcode(r):
    """A DNS answer's rcode by its name ("NOERROR"), else its number."""
    return RCODE.get(r[3] & 15, str(r[3] & 15))


def c_resolve(name, proto="udp", qtype="A", server="10.0.2.3"):
    """The answer's rcode and addresses: "NXDOMAIN", "NOERROR 203.0.113.10"."""
    qt = {"A": 1, "AAAA": 28, "PTR": 12}[qtype]
    try:
        r = dns_exchange(dns_query(name, qt), proto, server, 65535)
        rc = rcode(r)
        return (rc + " " + dns_answer(r, qt)).strip()
    except OSError as e:
        return errname(e)


def c_dnsraw(hexmsg, proto="udp"):
    """The bytes hexmsg sent as they are to 10.0.2.3:53: what came back, as
    the rcode and the counts ("NOTIMP 0 0 0 0"), or the error (a timeout:
    the relay dropped it; over TCP, ECONNRESET or "eof")."""
    q = bytes.fromhex(hexmsg)
    try:
        if proto == "udp":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(1)
            s.connect(("10.0.2.3", 53))
            s.send(q)
            r = s.recv(65535)
        else:
            s = connect("10.0.2.3", 53, 3)
            s.sendall(struct.pack(">H", len(q)) + q)
            h = s.recv(2)
            if len(h) < 2:
                return "eof"
            r = s.recv(struct.unpack(">H", h)[0])
        return " ".join([rcode(r)] + [str(x) for x in struct.unpack(">HHHH", r[4:12])])
    except OSError as e:
        return errname(e)


def c_flood(kind, n, host, port="53"):
    """n refused connects to host:port one after the other (kind connect),
    or n questions for the name host over UDP (kind dns), each waiting for
    its answer (bounded: 1 s each at most): "flood N", the count done."""
    done = 0
    for i in range(int(n)):
        try:
            if kind == "connect":
                s = socket.socket(family(host), socket.SOCK_STREAM)
                s.settimeout(1)
                try:
                    s.connect((host, int(port)))
                finally:
                    s.close()
            else:
                dns_exchange(dns_query(host, 1), "udp", "10.0.2.3", 512)
        except OSError:
            pass
        done += 1
    return f"flood {done}"


def c_spread(n, host, port):
    """n refused connects to host, each to another port from port on: n
    kinds of one line each. "spread N"."""
    for i in range(int(n)):
        s = socket.socket(family(host), socket.SOCK_STREAM)
        s.settimeout(1)
        try:
            s.connect((host, int(port) + i))
        except OSError:
            pass
        s.close()
    return f"spread {n}"


def c_resend(name, times):
    """The same question (one id, one socket, so one source port) asked
    times over, each after the answer to the one before, as a stub resolver
    sends it again when its answer crossed the resend: the rcodes."""
    out = []
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.connect(("10.0.2.3", 53))
    for _ in range(int(times)):
        try:
            s.send(dns_query(name, 1))
            r = s.recv(65535)
            out.append(rcode(r))
        except OSError as e:
            out.append(errname(e))
    return " ".join(out)


def dns_all(r):
    """The rcode of an answer and every A and AAAA address in any of its sections."""
    counts = struct.unpack(">HHHH", r[4:12])
    i = 12
    while r[i]:
        i += r[i] + 1
    i += 5
    out = [rcode(r)]
    for _ in range(sum(counts[1:])):
        if r[i] & 0xC0 == 0xC0:
            i += 2
        else:
            while r[i]:
                i += r[i] + 1
            i += 1
        t, _, _, ln = struct.unpack(">HHIH", r[i:i + 10])
        i += 10
        if t in (1, 28) and ln in (4, 16):
            out.append(socket.inet_ntop(socket.AF_INET if ln == 4 else socket.AF_INET6,
                                        r[i:i + ln]))
        i += ln
    return " ".join(out)


def c_ranges(proto, *cidrs):
    """For each CIDR, its first and its last address asked of the fake
    internet's resolver (fake_dns) in each section: "CIDR ADDR SECTION" and
    what came back (dns_all), one line each."""
    import ipaddress
    out = []
    for c in cidrs:
        n = ipaddress.ip_network(c)
        for a in (n[0], n[-1]):
            qt = 1 if n.version == 4 else 28
            for sec in ("an", "ns", "ar"):
                name = f"{sec}.{str(a).replace('.', '-').replace(':', '-')}.dns.test"
                try:
                    r = dns_exchange(dns_query(name, qt), proto, "10.0.2.3", 65535)
                    got = dns_all(r)
                except OSError as e:
                    got = errname(e)
                out.append(f"{c} {a} {sec} {got}")
    return "\n".join(out)


def c_names(n, prefix, suffix):
    """n distinct names PREFIX<i>SUFFIX asked in turn over UDP: each rcode's count."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.connect(("10.0.2.3", 53))
    counts = {}
    for i in range(int(n)):
        q = dns_query(f"{prefix}{i}{suffix}", 1)
        try:
            s.send(q)
            r = s.recv(65535)
            k = rcode(r)
        except OSError as e:
            k = errname(e)
        counts[k] = counts.get(k, 0) + 1
    return " ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def client_hello(sni):
    """A real TLS ClientHello naming sni (none for "-"), as the ssl module writes one."""
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=None if sni == "-" else sni)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return o.read()


def first_bytes(host, port, data):
    """data on a new connection to an echo server: ok when it comes back
    whole, 403 and the body when the relay answers instead."""
    try:
        s = connect(host, int(port), 3)
        s.sendall(data)
    except OSError as e:
        return errname(e)
    return outcome(s, data)


def wait_acked(s, limit=1.0):
    """Until everything sent on s is acknowledged (tcp_info's unacked is 0):
    so a send after this one is a segment of its own, by construction."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
        if struct.unpack_from("I", ti, 24)[0] == 0:
            return True
        time.sleep(0.001)
    return False


def payload(kind, name):
    """What a split client sends: a ClientHello, a request head, or raw bytes."""
    if kind == "tls":
        return client_hello(name)
    if kind == "http":
        return f"GET / HTTP/1.1\r\nHost: {name}\r\n\r\n".encode()
    if kind == "propfind":
        return f"PROPFIND / HTTP/1.1\r\nHost: {name}\r\nDepth: 1\r\n\r\n".encode()
    return name.encode().decode("unicode_escape").encode("latin-1")  # raw: escapes


def outcome(s, data, timeout=3):
    """How a connection that sent data ended: ok (its echo whole), 403 and the
    body, eof, bad, or the errno's name."""
    s.settimeout(timeout)
    got = b""
    try:
        while len(got) < len(data) or got.startswith(b"HTTP/1.1 403"):
            x = s.recv(65536)
            if not x:
                break
            got += x
    except OSError as e:
        return errname(e)
    if got == data:
        return "ok"
    if got.startswith(b"HTTP/1.1 403 "):
        return "403:" + got.split(b"\r\n\r\n", 1)[-1].decode().strip()
    return "eof" if not got else "bad"


def split_once(host, port, data, cuts, delay):
    s = connect(host, int(port), 5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    at = 0
    try:
        for c in cuts + [len(data)]:
            s.sendall(data[at:c])
            at = c
            if c < len(data):
                if not wait_acked(s):
                    return "unacked"
                time.sleep(delay)
    except OSError as e:
        return errname(e)
    r = outcome(s, data)
    s.close()
    return r


def c_split(host, port, kind, name, cuts="all", delay_ms="0"):
    """data (payload) on new connections, each cut in pieces sent one by one,
    each acknowledged before the next (cuts: "all", one connection for every
    offset from 1 to its length less one, or offsets joined by commas for
    one connection), delay_ms between the pieces: each outcome's count."""
    data, delay = payload(kind, name), int(delay_ms) / 1000.0
    runs = [[k] for k in range(1, len(data))] if cuts == "all" else \
        [[int(c) for c in cuts.split(",")]]
    counts = {}
    for r in runs:
        k = split_once(host, port, data, r, delay)
        counts[k] = counts.get(k, 0) + 1
    return " ".join(f"{k}={v}" for k, v in sorted(counts.items())) + f" len={len(data)}"


def c_keepalive(host, port, first, second, cut):
    """Two requests on one connection: first's echo read back whole, then
    second's head in two pieces cut at cut: each outcome."""
    a, b, cut = payload("http", first), payload("http", second), int(cut)
    s = connect(host, int(port), 5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(a)
    r1 = outcome(s, a)
    try:
        s.sendall(b[:cut])
        wait_acked(s)
        s.sendall(b[cut:])
    except OSError as e:
        return f"{r1} {errname(e)}"
    return f"{r1} {outcome(s, b)}"


def c_undecided(host, port, data):
    """data (escapes), then nothing: how and after how many ms it ends."""
    t = time.monotonic()
    s = connect(host, int(port), 5)
    s.sendall(payload("raw", data))
    r = outcome(s, b"\0" * 1000, 20)
    return f"{r} {int((time.monotonic() - t) * 1000)}"


def vmrss(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(x for x in f if x.startswith("VmRSS:")).split()[1])


def c_hold_undecided(host, port, k, size, relay):
    """k connections, each sending size bytes of a head that never ends, all
    kept open: how many opened, how many the relay reset within a second,
    and the relay's VmRSS (kB) before and while they are held."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    head = b"GET / HTTP/1.1\r\nHost: a.inet.test\r\nX-Pad: "
    data = head + b"x" * (int(size) - len(head))
    socks, fails, before = [], {}, vmrss(relay)
    for _ in range(int(k)):
        try:
            s = connect(host, int(port), 5)
            s.sendall(data)
            socks.append(s)
        except OSError as e:
            fails[errname(e)] = fails.get(errname(e), 0) + 1
    time.sleep(1)
    reset = 0
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                reset += 1
        except BlockingIOError:
            pass
        except OSError:
            reset += 1
    return f"open {len(socks)} reset {reset} failed {sum(fails.values())} " \
        f"rss {before} {vmrss(relay)}"


def c_banner(host, port):
    """What a server that speaks first says, unprompted, within 2 s."""
    try:
        s = connect(host, int(port), 3)
        s.settimeout(2)
        return "ok " + s.recv(64).decode().strip()
    except OSError as e:
        return errname(e)


def c_tls(host, port, sni):
    return first_bytes(host, port, client_hello(sni))


def c_http(host, port, name):
    return first_bytes(host, port, f"GET / HTTP/1.1\r\nHost: {name}\r\n\r\n".encode())


def c_raw(host, port):
    return first_bytes(host, port, b"hello, no name here\n")


def c_ping(host):
    fam = family(host)
    t = 128 if fam == socket.AF_INET6 else 8
    try:
        # EACCES here where the group is outside net.ipv4.ping_group_range.
        s = socket.socket(fam, socket.SOCK_DGRAM,
                          socket.IPPROTO_ICMP if fam == socket.AF_INET else socket.IPPROTO_ICMPV6)
        s.settimeout(2)
        s.connect((host, 0))
        s.send(struct.pack(">BBHHH", t, 0, 0, 0, 7) + b"otonet-echo")
        r = s.recv(1024)
        return "ok" if r[8:] == b"otonet-echo" and r[6:8] == b"\0\7" else "bad"
    except OSError as e:
        return errname(e)


# The fake internet: the only destinations a client may reach from outside
# a sandbox. Anything else (the special-purpose addresses the tests probe)
# only from a network namespace whose default route is the sandbox's tun0:
# should a client ever run in the machine's own namespace, it sends nothing.
FAKE_INET = ("203.0.113.", "2001:db8:1:")


def default_via_tun0():
    with open("/proc/net/route") as f:
        for line in f.readlines()[1:]:
            x = line.split()
            if x[1] == "00000000" and x[7] == "00000000":
                return x[0] == "tun0"
    return False


def refuse_unless_sandboxed(cmd, args):
    dsts = [a for a in args if ("." in a or ":" in a) and not a.startswith("/")]
    if all(d.startswith(FAKE_INET) for d in dsts) or default_via_tun0():
        return
    sys.exit(f"nettool: fatal: {cmd} {' '.join(args)}: refused, the default route is not tun0")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if not cmd.startswith("serve-"):
        refuse_unless_sandboxed(cmd, args)
    if cmd == "serve-inet":
        serve_inet(*args)
    elif cmd == "serve-lan":
        serve_lan(*args)
    else:
        print(globals()["c_" + cmd.replace("-", "_")](*args), flush=True)


if __name__ == "__main__":
    main()
