"""png.py FILE [X,Y]...: a PNG's IHDR ("WIDTH HEIGHT DEPTH COLOURTYPE"), then
one "X,Y R G B" line per pixel asked for. 8-bit RGB and RGBA, not interlaced:
what Chromium writes; anything else is an error. Run on the host."""
import struct
import sys
import zlib


def rows(data, width, bpp):
    """The unfiltered rows (PNG filter types 0 to 4)."""
    stride = width * bpp
    prev = bytearray(stride)
    pos = 0
    while pos < len(data):
        ftype, line = data[pos], bytearray(data[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
            elif ftype != 0:
                sys.exit("png.py: filter type %d" % ftype)
        yield line
        prev = line


def main():
    raw = open(sys.argv[1], "rb").read()
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png.py: not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(raw):
        n, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = ihdr
    print(width, height, depth, ctype)
    if len(sys.argv) < 3:
        return
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("png.py: only 8-bit RGB or RGBA, not interlaced")
    bpp = 3 if ctype == 2 else 4
    image = list(rows(zlib.decompress(idat), width, bpp))
    for xy in sys.argv[2:]:
        x, y = (int(v) for v in xy.split(","))
        px = image[y][x * bpp:x * bpp + 3]
        print(xy, *px)


main()
