#!/usr/bin/env python3
"""Makes the small sample photos in this folder. Needs python3, cjpeg (Debian:
libjpeg-turbo-progs) and a C compiler with libheif-dev. Run from anywhere:
python3 Fixtures/generate.py

Every picture is drawn here, so the fixtures carry no one else's content:
- orientation-N.jpg (N = 1..8): stored so that, with EXIF orientation N applied, it shows
  48x32 pixels with red top left, green top right, blue bottom left, white bottom right.
  Odd N use little-endian EXIF, even N big-endian; orientation-6-xmp.jpg has an XMP APP1
  before the EXIF one.
- photo.jpg, progressive.jpg, gray.jpg: small photo-like JPEGs.
- gray.png, palette.png, rgba.png, rgb16.png, interlaced.png: the PNG colour types.
- quad-*.jpg: the same upright quadrant picture (64x48) as JPEG variants: CMYK and YCCK
  (Adobe, inverted; written by cmyk_jpeg.c, since cjpeg cannot), arithmetic coding,
  restart markers, 4:4:4 / 4:2:2 / 4:2:0 sampling, progressive, grayscale, and one with a
  64 KiB APP13 segment and an ICC profile (APP2) before the image.
- flat-teal.png: 64x64 of one colour, #008080, so a test can find it in what is drawn.
- truncated.jpg: a JPEG cut in its image data; corrupt-data.jpg: a JPEG with garbage in
  its image data (both decodable with a warning).
- orientation-N.heic (N = 1..8): the orientation-N.jpg picture as HEIC, turned by HEIF's
  own irot/imir boxes (written by heif_fixture.c through libheif's encoder, which
  heif-enc cannot do); orientation-6-exif.heic also carries an EXIF block saying 6, as
  iPhones write both (applying both would turn it twice).
- two-images.heic: a 40x40 black picture first, then the 48x32 quadrants, which is the
  primary image. alpha.heic: the quadrants with the right half transparent.
  odd-size.heic: 45x29 quadrants (coded larger, cropped by a clap box).
  quad-12mp.heic: 4032x3024 quadrants, a 12-megapixel photo's size in a few KiB.
  quad.avif: the 64x48 quadrants as AVIF (AV1 in HEIF), imported through libavif.
- taken-*.jpg, taken-*.png, taken.heic: the 48x32 quadrants with an EXIF date taken and
  camera (see dated_fixtures): taken-offset.jpg says 2024:06:01 14:03:22, +02:00, sub-seconds
  25, Canon / Canon EOS R5 (little-endian); taken-no-offset.jpg 2019:12:31 23:59:59 and a
  NIKON make padded with spaces and NULs (big-endian); taken-garbage.jpg a good date with a
  garbled offset ("+99:99") and sub-seconds ("ab"), a blank make and a model that is not
  UTF-8; taken-hostile.jpg an IFD0 that declares 65535 entries, a make of 300-odd bytes with
  escape sequences, a model whose value lies 2 GiB away and an EXIF pointer back to IFD0
  (so no date); taken-exif.png an eXIf chunk (2023:02:28 08:15:00 -05:00, Google / Pixel 7)
  and a later tIME chunk, which eXIf wins over; taken-time.png only a tIME chunk
  (2022-10-09 11:12:13 UTC) after its image data; taken.heic an Exif item
  (2025:01:15 09:30:45 +09:00, Apple / iPhone 15 Pro).
- bad/: files that must be refused: corrupt.jpg (no image in it), truncated.png, empty.jpg,
  notes.txt, bomb.png and bomb.jpg (tiny files that declare 100000x100000 and 65000x65000
  pixels), truncated.heic (cut in its image data) and bomb.heic (declares 30000x30000,
  under libheif's own limit of 32768 a side); coded-bomb.heic says 48x32 in its ispe box
  while its HEVC sequence parameter set codes 16384x16384 (what libheif allocates: 1.7 GB).
"""
import os
import struct
import subprocess
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 48, 32
RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


def quadrants(width, height):
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            top, left = y < height // 2, x < width // 2
            row.append(RED if top and left else GREEN if top else BLUE if left else WHITE)
        rows.append(row)
    return rows


def photo_like(width, height):
    """Smooth gradients with a little texture: compresses like a photo, not a flat fill."""
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            r = (x * 255) // max(1, width - 1)
            g = (y * 255) // max(1, height - 1)
            b = (128 + ((x * 7 + y * 13) % 32) - 16) & 0xFF
            row.append((r, g, b))
        rows.append(row)
    return rows


def orient(rows, orientation):
    """The picture as shown for an EXIF orientation (as vault's RGBImage.oriented)."""
    h, w = len(rows), len(rows[0])
    swap = orientation >= 5
    ow, oh = (h, w) if swap else (w, h)
    out = [[None] * ow for _ in range(oh)]
    for y in range(oh):
        for x in range(ow):
            sx, sy = {
                1: (x, y), 2: (w - 1 - x, y), 3: (w - 1 - x, h - 1 - y), 4: (x, h - 1 - y),
                5: (y, x), 6: (y, h - 1 - x), 7: (w - 1 - y, h - 1 - x), 8: (w - 1 - y, x),
            }[orientation]
            out[y][x] = rows[sy][sx]
    return out


def ppm(rows):
    h, w = len(rows), len(rows[0])
    return b"P6\n%d %d\n255\n" % (w, h) + bytes(c for row in rows for px in row for c in px)


def cjpeg(rows, *options, quality=90):
    with tempfile.NamedTemporaryFile(suffix=".ppm") as source:
        source.write(ppm(rows))
        source.flush()
        return subprocess.run(
            ["cjpeg", "-quality", str(quality), *options, source.name],
            check=True, capture_output=True).stdout


def exif_app1(orientation, little_endian):
    e = "<" if little_endian else ">"
    tiff = (b"II" if little_endian else b"MM") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1)  # one IFD entry
    tiff += struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", orientation, 0)
    tiff += struct.pack(e + "I", 0)  # no next IFD
    body = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def tiff_block(ifd0, exif=None, little_endian=True, declared_count=None, exif_pointer=None):
    """A TIFF structure (an EXIF block): IFD0's entries and, when given, an EXIF IFD that
    IFD0 points to (or, with exif_pointer, a pointer to that offset instead). Entries are
    (tag, type, count, value bytes); values of more than 4 bytes go after the directories,
    and a 4-byte value of an entry whose count says more stands as its offset.
    declared_count replaces the entry count IFD0 declares."""
    e = "<" if little_endian else ">"
    exif = sorted(exif or [])
    entries0 = list(ifd0)
    points = exif or exif_pointer is not None
    ifd0_at = 8
    exif_at = ifd0_at + 2 + 12 * (len(entries0) + (1 if points else 0)) + 4
    data_at = exif_at + (2 + 12 * len(exif) + 4 if exif else 0)
    if points:
        entries0.append((0x8769, 4, 1, struct.pack(e + "I", exif_at if exif_pointer is None else exif_pointer)))
    entries0.sort(key=lambda entry: entry[0])
    data = b""

    def directory(entries, count):
        nonlocal data
        out = struct.pack(e + "H", count)
        for tag, kind, number, value in entries:
            if len(value) <= 4:
                field = value.ljust(4, b"\0")
            else:
                field = struct.pack(e + "I", data_at + len(data))
                data += value + (b"\0" if len(value) % 2 else b"")
            out += struct.pack(e + "HHI", tag, kind, number) + field
        return out + struct.pack(e + "I", 0)

    out = (b"II" if little_endian else b"MM") + struct.pack(e + "HI", 42, ifd0_at)
    out += directory(entries0, len(entries0) if declared_count is None else declared_count)
    if exif:
        out += directory(exif, len(exif))
    return out + data


def ascii_entry(tag, value):
    """An ASCII entry; a str gets its NUL, bytes are taken as they are."""
    if isinstance(value, str):
        value = value.encode() + b"\0"
    return (tag, 2, len(value), value)


MAKE, MODEL, DATE_TAKEN, OFFSET_TAKEN, SUBSEC_TAKEN = 0x010F, 0x0110, 0x9003, 0x9011, 0x9291


def dated_exif(date, offset=None, subsec=None, make=None, model=None, little_endian=True):
    ifd0 = [ascii_entry(tag, text) for tag, text in ((MAKE, make), (MODEL, model)) if text is not None]
    exif = [ascii_entry(DATE_TAKEN, date)]
    if offset is not None:
        exif.append(ascii_entry(OFFSET_TAKEN, offset))
    if subsec is not None:
        exif.append(ascii_entry(SUBSEC_TAKEN, subsec))
    return tiff_block(ifd0, exif, little_endian)


def exif_segment(tiff):
    return app_segment(0xE1, b"Exif\0\0" + tiff)


def dated_fixtures(shown):
    """The taken-* fixtures (see the top of this file)."""
    jpeg = cjpeg(shown, "-sample", "1x1")
    offset = dated_exif("2024:06:01 14:03:22", "+02:00", "25", "Canon", "Canon EOS R5")
    write("taken-offset.jpg", insert_after_app0(jpeg, exif_segment(offset)))
    no_offset = dated_exif("2019:12:31 23:59:59", make=b"NIKON CORPORATION   \0\0\0", model="NIKON D750",
                           little_endian=False)
    write("taken-no-offset.jpg", insert_after_app0(jpeg, exif_segment(no_offset)))
    garbage = dated_exif("2021:07:04 12:00:00", "+99:99", "ab", make=b"   \0", model=b"\xff\xfeBad\0")
    write("taken-garbage.jpg", insert_after_app0(jpeg, exif_segment(garbage)))
    hostile_make = ascii_entry(MAKE, "\x1b]0;owned\x07\x1b[2J" + "Evil" * 73)
    far_model = (MODEL, 2, 0xFFFFFFFF, struct.pack("<I", 0x7FFFFFF0))
    hostile = tiff_block([hostile_make, far_model], declared_count=0xFFFF, exif_pointer=8)
    write("taken-hostile.jpg", insert_after_app0(jpeg, exif_segment(hostile)))

    rgb = [bytes(c for px in row for c in px) for row in shown]
    exif_chunk = png_chunk(b"eXIf", dated_exif("2023:02:28 08:15:00", "-05:00", make="Google", model="Pixel 7"))
    time_chunk = png_chunk(b"tIME", struct.pack(">HBBBBB", 2022, 10, 9, 11, 12, 13))
    write("taken-exif.png", png(W, H, 2, 8, rgb, before_data=exif_chunk, after_data=time_chunk))
    write("taken-time.png", png(W, H, 2, 8, rgb, after_data=time_chunk))

    with tempfile.NamedTemporaryFile(suffix=".exif") as block:
        block.write(b"\0\0\0\0" + dated_exif("2025:01:15 09:30:45", "+09:00", make="Apple", model="iPhone 15 Pro"))
        block.flush()
        write("taken.heic", heif([shown], "-e", block.name))


def xmp_app1():
    body = b"http://ns.adobe.com/xap/1.0/\0" + b'<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>'
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def insert_after_app0(jpeg, segments):
    assert jpeg[:2] == b"\xff\xd8"
    position = 2
    if jpeg[2:4] == b"\xff\xe0":
        position = 4 + struct.unpack(">H", jpeg[4:6])[0]
    return jpeg[:position] + segments + jpeg[position:]


def app_segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def cmyk_jpeg(rows, mode):
    with tempfile.TemporaryDirectory() as folder:
        tool = os.path.join(folder, "cmyk_jpeg")
        subprocess.run(["cc", "-O1", "-o", tool, os.path.join(HERE, "cmyk_jpeg.c"), "-ljpeg"], check=True)
        return subprocess.run([tool, mode], input=ppm(rows), check=True, capture_output=True).stdout


def heif(images, *options):
    """A HEIC (with -a, AVIF) file of `images`, each rows of RGB or RGBA tuples, written by
    heif_fixture.c with `options` (see its header)."""
    with tempfile.TemporaryDirectory() as folder:
        tool = os.path.join(folder, "heif_fixture")
        subprocess.run(["cc", "-O1", "-o", tool, os.path.join(HERE, "heif_fixture.c")]
                       + subprocess.run(["pkg-config", "--cflags", "--libs", "libheif"], check=True,
                                        capture_output=True, text=True).stdout.split(), check=True)
        paths = []
        for number, rows in enumerate(images):
            path = os.path.join(folder, "%d.raw" % number)
            with open(path, "wb") as f:
                f.write(b"%d %d %d\n" % (len(rows[0]), len(rows), len(rows[0][0])))
                f.write(bytes(c for row in rows for px in row for c in px))
            paths.append(path)
        output = os.path.join(folder, "out.heic")
        subprocess.run([tool, output, *options, *paths], check=True)
        with open(output, "rb") as f:
            return f.read()


def with_heif_dimensions(data, width, height):
    """The HEIF file with the size in every ispe box replaced (the data no longer matches)."""
    out = bytearray(data)
    position = out.find(b"ispe")
    while position >= 0:
        out[position + 8:position + 16] = struct.pack(">II", width, height)
        position = out.find(b"ispe", position + 4)
    return bytes(out)


def with_hevc_dimensions(data, width, height):
    """The HEIF file with the SPS in its hvcC box coding width x height (its ispe boxes
    unchanged), the boxes around the hvcC grown and the item offsets after it moved."""
    start = data.find(b"hvcC") - 4
    size = struct.unpack(">I", data[start:start + 4])[0]
    record = data[start + 8:start + size]
    arrays, position, out = record[22], 23, bytearray(record[:23])
    for _ in range(arrays):
        count = struct.unpack(">H", record[position + 1:position + 3])[0]
        out += record[position:position + 3]
        position += 3
        for _ in range(count):
            length = struct.unpack(">H", record[position:position + 2])[0]
            nal = record[position + 2:position + 2 + length]
            position += 2 + length
            if (nal[0] >> 1) & 0x3F == 33:
                nal = sps_with_size(nal, width, height)
            out += struct.pack(">H", len(nal)) + nal
    grow = len(out) - len(record)
    result = bytearray(data[:start] + struct.pack(">I", size + grow) + b"hvcC" + bytes(out)
                       + data[start + size:])
    # meta, iprp and ipco hold the hvcC: each grows by as much.
    for kind in (b"meta", b"iprp", b"ipco"):
        at = result.find(kind) - 4
        struct.pack_into(">I", result, at, struct.unpack(">I", result[at:at + 4])[0] + grow)
    move_item_offsets(result, after=start, by=grow)
    return bytes(result)


def move_item_offsets(data, after, by):
    """Adds `by` to every iloc item location past `after` (iloc version 0 or 1, as libheif
    writes it)."""
    at = data.find(b"iloc") - 4
    version, sizes = data[at + 8], data[at + 12]
    offset_size, length_size = sizes >> 4, sizes & 15
    base_size, index_size = data[at + 13] >> 4, data[at + 13] & 15 if version else 0
    position = at + 16
    count = struct.unpack(">H", data[at + 14:at + 16])[0]
    form = {4: ">I", 8: ">Q"}

    def field(size):
        return struct.unpack(form[size], data[position:position + size])[0] if size else 0

    for _ in range(count):
        position += 2 + (2 if version else 0) + 2
        base = field(base_size)
        if base > after:
            struct.pack_into(form[base_size], data, position, base + by)
        position += base_size
        extents = struct.unpack(">H", data[position:position + 2])[0]
        position += 2
        for _ in range(extents):
            position += index_size
            offset = field(offset_size)
            if base <= after < base + offset:
                struct.pack_into(form[offset_size], data, position, offset + by)
            position += offset_size + length_size


def hvcc_nal_unit(data, nal_type):
    """The first NAL unit of type nal_type in the HEIF file's hvcC box."""
    start = data.find(b"hvcC") - 4
    record = data[start + 8:start + struct.unpack(">I", data[start:start + 4])[0]]
    position = 23
    for _ in range(record[22]):
        count = struct.unpack(">H", record[position + 1:position + 3])[0]
        position += 3
        for _ in range(count):
            length = struct.unpack(">H", record[position:position + 2])[0]
            nal = record[position + 2:position + 2 + length]
            position += 2 + length
            if (nal[0] >> 1) & 0x3F == nal_type:
                return nal
    raise ValueError("no NAL unit of type %d" % nal_type)


def with_empty_nal_unit_first(data, width, height):
    """The HEIF file (one item, iloc version 0 with 4-byte fields) whose item data starts
    with a zero-length NAL unit, then an SPS coding width x height and the PPS again (a
    reader that stops at the empty unit never sees the SPS; libheif skips it and decodes
    on), then the original data, in an mdat appended at the end."""
    data = bytearray(data)
    at = data.find(b"iloc") - 4
    assert data[at + 8] == 0 and data[at + 12] == 0x44 and data[at + 13] >> 4 == 4
    base_at = at + 20
    extent_at = base_at + 6
    base = struct.unpack(">I", data[base_at:base_at + 4])[0]
    offset, length = struct.unpack(">II", data[extent_at:extent_at + 8])
    sps = sps_with_size(hvcc_nal_unit(data, 33), width, height)
    pps = hvcc_nal_unit(data, 34)
    item = (b"\0\0\0\0" + struct.pack(">I", len(sps)) + sps + struct.pack(">I", len(pps)) + pps
            + bytes(data[base + offset:base + offset + length]))
    struct.pack_into(">I", data, base_at, 0)
    struct.pack_into(">II", data, extent_at, len(data) + 8, len(item))
    return bytes(data + struct.pack(">I", 8 + len(item)) + b"mdat" + item)


def sps_with_size(nal, width, height):
    """An HEVC SPS NAL unit (H.265 7.3.2.2, no sub-layers) saying width x height, without a
    conformance window; emulation prevention bytes taken out and put back."""
    rbsp, zeros = bytearray(), 0
    for byte in nal[2:]:
        if zeros >= 2 and byte == 3:
            zeros = 0
            continue
        rbsp.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    bits = [(rbsp[i >> 3] >> (7 - (i & 7))) & 1 for i in range(len(rbsp) * 8)]
    position = 4 + 3 + 1 + 96

    def golomb():
        nonlocal position
        zeros = 0
        while bits[position] == 0:
            zeros, position = zeros + 1, position + 1
        value = int("".join(map(str, bits[position:position + zeros + 1])), 2) - 1
        position += zeros + 1
        return value

    assert bits[4:7] == [0, 0, 0], "sub-layers"
    golomb()
    if golomb() == 3:
        position += 1
    size_at = position
    golomb()
    golomb()
    if bits[position]:
        position += 1
        for _ in range(4):
            golomb()
    else:
        position += 1
    last = max(i for i, bit in enumerate(bits) if bit)  # the stop bit

    def encoded(value):
        n = (value + 1).bit_length()
        return [0] * (n - 1) + [int(c) for c in bin(value + 1)[2:]]

    new = bits[:size_at] + encoded(width) + encoded(height) + [0] + bits[position:last] + [1]
    new += [0] * (-len(new) % 8)
    out, zeros = bytearray(nal[:2]), 0
    for i in range(0, len(new), 8):
        byte = int("".join(map(str, new[i:i + 8])), 2)
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


def with_dimensions(jpeg, width, height):
    """The JPEG with the size in its SOF segment replaced (the data no longer matches)."""
    position = 2
    while position < len(jpeg):
        marker = jpeg[position + 1]
        length = struct.unpack(">H", jpeg[position + 2:position + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            return (jpeg[:position + 5] + struct.pack(">HH", height, width) + jpeg[position + 9:])
        position += 2 + length
    raise ValueError("no SOF")


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height, color_type, bit_depth, raw_rows, palette=None, trns=None, interlaced=False,
        bytes_per_pixel=None, before_data=b"", after_data=b""):
    """A PNG; before_data and after_data are chunks put before and after its image data."""
    data = b"\x89PNG\r\n\x1a\n"
    data += png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0,
                                           1 if interlaced else 0))
    if palette:
        data += png_chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    if trns:
        data += png_chunk(b"tRNS", trns)
    if interlaced:
        scanlines = b""
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                  (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            for y in range(y0, height, dy):
                row = raw_rows[y]
                pixels = [row[x * bytes_per_pixel:(x + 1) * bytes_per_pixel]
                          for x in range(x0, width, dx)]
                if pixels:
                    scanlines += b"\0" + b"".join(pixels)
    else:
        scanlines = b"".join(b"\0" + row for row in raw_rows)
    data += before_data + png_chunk(b"IDAT", zlib.compress(scanlines, 9)) + after_data
    data += png_chunk(b"IEND", b"")
    return data


def write(name, data):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    shown = quadrants(W, H)
    inverse = {6: 8, 8: 6}
    for n in range(1, 9):
        stored = orient(shown, inverse.get(n, n))
        jpeg = cjpeg(stored, "-sample", "1x1")
        write("orientation-%d.jpg" % n, insert_after_app0(jpeg, exif_app1(n, n % 2 == 1)))
    stored6 = orient(shown, 8)
    write("orientation-6-xmp.jpg",
          insert_after_app0(cjpeg(stored6, "-sample", "1x1"), xmp_app1() + exif_app1(6, False)))

    quad = quadrants(64, 48)
    write("quad-cmyk.jpg", cmyk_jpeg(quad, "cmyk"))
    write("quad-ycck.jpg", cmyk_jpeg(quad, "ycck"))
    write("quad-arithmetic.jpg", cjpeg(quad, "-arithmetic"))
    write("quad-restart.jpg", cjpeg(quad, "-restart", "1B"))
    write("quad-444.jpg", cjpeg(quad, "-sample", "1x1"))
    write("quad-422.jpg", cjpeg(quad, "-sample", "2x1"))
    write("quad-420.jpg", cjpeg(quad, "-sample", "2x2"))
    write("quad-progressive.jpg", cjpeg(quad, "-progressive"))
    write("quad-gray.jpg", cjpeg(quad, "-grayscale"))
    icc = app_segment(0xE2, b"ICC_PROFILE\0\x01\x01" + bytes(range(256)) * 2)
    big = app_segment(0xED, b"Photoshop 3.0\0" + bytes((i * 7) & 0xFF for i in range(65519)))
    write("quad-big-app.jpg", insert_after_app0(cjpeg(quad), big + icc))

    picture = photo_like(64, 48)
    write("photo.jpg", cjpeg(picture))
    write("progressive.jpg", cjpeg(picture, "-progressive"))
    write("gray.jpg", cjpeg(picture, "-grayscale"))
    big = cjpeg(photo_like(160, 120))
    write("truncated.jpg", big[: len(big) * 2 // 3])
    scan = big.index(b"\xff\xda")
    write("corrupt-data.jpg", big[:scan + 400] + bytes(range(16, 80)) + big[scan + 464:])

    write("flat-teal.png", png(64, 64, 2, 8, [bytes((0, 128, 128) * 64)] * 64))
    gray = [bytes((x * 8 + y * 4) & 0xFF for x in range(32)) for y in range(24)]
    write("gray.png", png(32, 24, 0, 8, gray))
    palette = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
    indexed = [bytes(((x // 8) + (y // 8)) % 4 for x in range(32)) for y in range(24)]
    write("palette.png", png(32, 24, 3, 8, indexed, palette=palette, trns=b"\xff\xff\x80\x00"))
    rgba = [bytes(v for x in range(32) for v in (x * 8, y * 10, 100, (x * 8) & 0xFF)) for y in range(24)]
    write("rgba.png", png(32, 24, 6, 8, rgba))
    rgb16 = [b"".join(struct.pack(">HHH", x * 2000, y * 2700, 40000) for x in range(32)) for y in range(24)]
    write("rgb16.png", png(32, 24, 2, 16, rgb16))
    smooth = photo_like(33, 27)
    rgb = [bytes(c for px in row for c in px) for row in smooth]
    write("interlaced.png", png(33, 27, 2, 8, rgb, interlaced=True, bytes_per_pixel=3))

    jfif = cjpeg(photo_like(16, 16))
    write("bad/corrupt.jpg", jfif[:20] + bytes((i * 37) & 0xFF for i in range(200)))
    whole = png(32, 24, 0, 8, gray)
    write("bad/truncated.png", whole[: len(whole) // 2])
    write("bad/empty.jpg", b"")
    write("bad/notes.txt", b"Shopping list: bread, milk.\n")
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0))
    write("bad/bomb.png", b"\x89PNG\r\n\x1a\n" + ihdr + png_chunk(b"IDAT", zlib.compress(b"\0" * 1000)))
    write("bad/bomb.jpg", with_dimensions(cjpeg(photo_like(16, 16)), 65000, 65000))

    for n in range(1, 9):
        write("orientation-%d.heic" % n, heif([orient(shown, inverse.get(n, n))], "-o", str(n)))
    write("orientation-6-exif.heic", heif([orient(shown, 8)], "-o", "6", "-x", "6"))
    black = [[(0, 0, 0)] * 40 for _ in range(40)]
    write("two-images.heic", heif([black, shown], "-p", "2"))
    see_through = [[px + (255 if x < W // 2 else 0,) for x, px in enumerate(row)] for row in shown]
    write("alpha.heic", heif([see_through]))
    write("odd-size.heic", heif([quadrants(45, 29)]))
    write("quad-12mp.heic", heif([quadrants(4032, 3024)], "-q", "30"))
    write("quad.avif", heif([quad], "-a"))
    plain = heif([shown])
    write("bad/truncated.heic", plain[: len(plain) - 200])
    write("bad/bomb.heic", with_heif_dimensions(plain, 30000, 30000))
    write("bad/coded-bomb.heic", with_hevc_dimensions(plain, 16384, 16384))
    write("bad/empty-nal-bomb.heic", with_empty_nal_unit_first(plain, 16384, 16384))
    dated_fixtures(shown)


if __name__ == "__main__":
    main()
