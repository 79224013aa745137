#!/usr/bin/env python3
"""roofline plot against the real binary.

  plot_test.py BIN xml   the issue's done-when command writes an SVG that an XML parser reads: the
                         SVG 1.1 root, the title, the ticks, the labels, and the decode points in the
                         order of their intensity; the other kinds' SVG on stdout parse too
  plot_test.py BIN png   the same SVG rendered by rsvg-convert: the PNG's size is the SVG's, and it
                         holds ink of both accelerators' colours (exit 77, skipped, without rsvg-convert)
  plot_test.py BIN term  the terminal picture at COLUMNS: no line wider, none much narrower, and no
                         escape sequence when stdout is not a terminal

Standard library only: the PNG is read with zlib and struct.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
DONE_WHEN = ["plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--batch", "1,8,64,512", "-o", "roofline.svg"]
SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(binary, args, cwd=None, env=None):
    e = dict(os.environ, LC_ALL="C")
    e.pop("COLUMNS", None)
    if env:
        e.update(env)
    r = subprocess.run([binary] + args, cwd=cwd, env=e, capture_output=True, check=False)
    if r.returncode != 0:
        fail("roofline %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r.stdout.decode("utf-8")


def done_when_svg(binary, tmp):
    """Runs the done-when command in tmp: nothing on stdout, the picture in roofline.svg."""
    out = run(binary, DONE_WHEN, cwd=tmp)
    if out:
        fail("-o writes the file, not stdout: %r" % out[:200])
    path = os.path.join(tmp, "roofline.svg")
    if not os.path.isfile(path):
        fail("-o roofline.svg wrote no file")
    return path


def check_root(root, where):
    if root.tag != SVG + "svg":
        fail("%s: root is %s, not the SVG namespace's svg" % (where, root.tag))
    if root.get("version") != "1.1":
        fail("%s: version %r" % (where, root.get("version")))
    width, height = int(root.get("width")), int(root.get("height"))
    if root.get("viewBox") != "0 0 %d %d" % (width, height):
        fail("%s: viewBox %r for %d x %d" % (where, root.get("viewBox"), width, height))
    title = root.find(SVG + "title")
    if title is None or not title.text:
        fail("%s: no title" % where)
    return width, height, title.text


def texts(root):
    return [t.text or "" for t in root.iter(SVG + "text")]


def check_xml(binary):
    with tempfile.TemporaryDirectory() as tmp:
        root = ET.parse(done_when_svg(binary, tmp)).getroot()
    width, height, title = check_root(root, "roofline.svg")
    if title != "Roofline: llama3-8b on NVIDIA H100 SXM5 80GB and AMD Instinct MI300X":
        fail("title %r" % title)
    words = texts(root)
    for want in ["0.1", "1", "10", "100", "1k", "10k", "arithmetic intensity (FLOP/B)", "attainable TFLOP/s",
                 "decode B=1", "decode B=8", "decode B=64", "decode B=512", "prefill S=2,048",
                 "ridge 295.3 FLOP/B", "ridge 246.7 FLOP/B", "bf16, fp16 989.4 TFLOP/s", "bf16, fp16 1.307 PFLOP/s",
                 "NVIDIA H100 SXM5 80GB", "AMD Instinct MI300X"]:
        if want not in words:
            fail("no text %r in %s" % (want, sorted(set(words))))
    # Each accelerator's decode marks (circles, filled on the first, hollow on the second), left to
    # right as the batch grows the intensity, and every mark inside the picture.
    circles = list(root.iter(SVG + "circle"))
    first = [c for c in circles if c.get("fill") == "#1f77b4"]
    second = [c for c in circles if c.get("stroke") == "#d95f02"]
    if len(first) < 4 or len(second) < 4:
        fail("decode marks: %d and %d, expected 4 on each accelerator" % (len(first), len(second)))
    xs = [float(c.get("cx")) for c in first[:4]]
    if xs != sorted(xs) or len(set(xs)) != 4:
        fail("decode marks not left to right by batch: %s" % xs)
    for c in circles:
        x, y = float(c.get("cx")), float(c.get("cy"))
        if not (0 <= x <= width and 0 <= y <= height):
            fail("a mark at %s, %s is outside %d x %d" % (x, y, width, height))
    lines = list(root.iter(SVG + "polyline"))
    if len(lines) < 12:  # per accelerator: the slope, five roofs, the ridge's drop
        fail("%d lines, expected the slopes and the roofs of two accelerators" % len(lines))
    # The other pictures, on stdout.
    for kind, extra, want in [("memory", ["--batch", "1,64,512"], "h100-sxm B=512"),
                              ("decode", [], "batch (sequences per step)"),
                              ("serve", ["--tpot", "20ms"], "TPOT target 20.00 ms")]:
        out = run(binary, ["plot", "llama3-8b", "--gpu", "h100-sxm,mi300x", "--kind", kind, "--format", "svg"] + extra)
        root = ET.fromstring(out.encode("utf-8"))
        check_root(root, kind)
        if want not in texts(root):
            fail("%s: no text %r" % (kind, want))
    print("ok: the SVGs parse as SVG 1.1 with their titles, ticks, labels and marks")


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, non-interlaced."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail("PNG of depth %d, colour type %d, interlace %d: not read here" % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def near(p, rgb, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(p, rgb))


def check_png(binary):
    rsvg = shutil.which("rsvg-convert")
    if not rsvg:
        print("SKIP: rsvg-convert not found (apt-get install librsvg2-bin)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        svg = done_when_svg(binary, tmp)
        root = ET.parse(svg).getroot()
        want_w, want_h = int(root.get("width")), int(root.get("height"))
        png = os.path.join(tmp, "roofline.png")
        r = subprocess.run([rsvg, svg, "-o", png], capture_output=True, check=False)
        if r.returncode != 0:
            fail("rsvg-convert: exit %d: %s" % (r.returncode, r.stderr.decode()))
        width, height, rows = read_png(png)
    if (width, height) != (want_w, want_h):
        fail("PNG %d x %d, the SVG says %d x %d" % (width, height, want_w, want_h))
    pixels = width * height
    ink = sum(1 for row in rows for p in row if p != (255, 255, 255))
    blue = sum(1 for row in rows for p in row if near(p, (0x1F, 0x77, 0xB4)))
    orange = sum(1 for row in rows for p in row if near(p, (0xD9, 0x5F, 0x02)))
    # A drawn chart: lines, grid, text and marks; most of the page stays white.
    if not 0.03 * pixels <= ink <= 0.35 * pixels:
        fail("%d non-white pixels of %d" % (ink, pixels))
    if blue < 1000 or orange < 1000:
        fail("too little of an accelerator's colour: %d blue, %d orange pixels" % (blue, orange))
    print("ok: %d x %d PNG, %d non-white pixels (%.1f %%), %d blue, %d orange"
          % (width, height, ink, 100.0 * ink / pixels, blue, orange))


def check_term(binary):
    kinds = [["--batch", "1,8,64,512"], ["--kind", "memory", "--batch", "1,64"], ["--kind", "decode"],
             ["--kind", "serve", "--tpot", "20ms"]]
    for columns in (40, 72, 120):
        for extra in kinds:
            args = ["plot", "llama3-8b", "--gpu", "h100-sxm,mi300x"] + extra
            out = run(binary, args, env={"COLUMNS": str(columns)})
            if "\x1b" in out:
                fail("%s: an escape sequence with stdout not a terminal" % " ".join(args))
            widths = [len(line) for line in out.splitlines()]
            if max(widths) > columns or max(widths) < columns - 12:
                fail("COLUMNS=%d %s: lines up to %d wide" % (columns, " ".join(args), max(widths)))
    out = run(binary, ["plot", "llama3-8b", "--gpu", "h100-sxm"], env={"COLUMNS": "80", "NO_COLOR": "1"})
    if re.search("\x1b\\[", out) or max(len(line) for line in out.splitlines()) != 80:
        fail("NO_COLOR at 80 columns")
    print("ok: the terminal pictures keep to COLUMNS, in plain text")


def main():
    binary, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    {"xml": check_xml, "png": check_png, "term": check_term}[mode](binary)


if __name__ == "__main__":
    main()
