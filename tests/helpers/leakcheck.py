#!/usr/bin/env python3
# Whether the agent received a credential, in any form a hostile upstream's
# echo could take:
#
#   leakcheck.py SECRETFILE < LINES
#
# Each line is "STEP: STATUS B64 [STATUS B64]..." (tests/helpers/gateclient.py's
# reflect steps): each B64 a whole HTTP response as the agent received it. The
# secret is looked for in each response, its body decompressed too when it says
# gzip or deflate, and in the bodies of a step's responses joined (Range
# slices), as it is, in either case, percent- and JSON-decoded, in hexadecimal,
# and in base64 and base64url at each of the three alignments. Prints one line
# per step: "STEP: STATUS... clean", or "STEP: STATUS... LEAK FORM...".
import base64, gzip, json, re, sys, urllib.parse, zlib

secret = open(sys.argv[1], "rb").read()


def b64_inner(alpha_url, a):
    enc = (base64.urlsafe_b64encode if alpha_url else base64.b64encode)(b"\0" * a + secret + b"\0\0")
    first, end = (8 * a + 5) // 6, (8 * a + 8 * len(secret)) // 6
    return enc[first:end]


def unjson(b):
    return re.sub(rb"\\u([0-9a-fA-F]{4})", lambda m: bytes([int(m.group(1), 16) & 0xFF]), b).replace(b"\\/", b"/")


def found(b):
    forms = []
    low = b.lower()
    if secret.lower() in low:
        forms.append("raw")
    if secret.lower() in urllib.parse.unquote_to_bytes(b).lower():
        forms.append("percent")
    if secret.lower() in unjson(b).lower():
        forms.append("json")
    if secret.hex().encode() in low:
        forms.append("hex")
    for url in (0, 1):
        for a in range(3):
            if b64_inner(url, a) in b:
                forms.append(f"b64{'url' if url else ''}{a}")
    return forms


def body_of(resp):
    head, _, body = resp.partition(b"\r\n\r\n")
    enc = re.search(rb"(?im)^content-encoding:\s*(\S+)", head)
    out = [head, body]
    if enc:
        try:
            out.append(gzip.decompress(body) if enc.group(1).lower() == b"gzip" else zlib.decompress(body))
        except Exception:
            pass
    return out, body


for line in sys.stdin:
    step, _, rest = line.strip().partition(": ")
    words = rest.split()
    statuses, leaks, bodies = words[0::2], [], b""
    for b64 in words[1::2]:
        parts, body = body_of(base64.b64decode(b64))
        bodies += body
        for p in parts:
            leaks += found(p)
    leaks += found(bodies)
    print(f"{step}: {' '.join(statuses)} " + ("LEAK " + " ".join(sorted(set(leaks))) if leaks else "clean"))
