#!/usr/bin/env python3
"""Grows an MP4 written with `-movflags +faststart` (its index, `moov`, before its media
data, `mdat`, which ends the file) to SIZE bytes: random bytes are appended inside the
`mdat` box, whose size is changed to match. The samples the index points at are
untouched, so the file still plays (and imports) as the video it was, at any size, in the
time it takes to write the bytes.
Usage: Benchmarks/pad_mp4.py SOURCE OUTPUT SIZE"""
import os
import shutil
import struct
import sys


def last_box(path):
    """Offset, size and type of the file's last top-level box."""
    with open(path, "rb") as file:
        length = os.fstat(file.fileno()).st_size
        offset = 0
        while True:
            file.seek(offset)
            size, kind = struct.unpack(">I4s", file.read(8))
            if size == 1:
                size = struct.unpack(">Q", file.read(8))[0]
            if size == 0:
                size = length - offset
            if offset + size >= length:
                return offset, size, kind
            offset += size


def main():
    source, output, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    offset, box_size, kind = last_box(source)
    if kind != b"mdat":
        sys.exit(f"{source}: its last box is {kind!r}, not mdat (write it with -movflags +faststart)")
    grown = size - os.path.getsize(source)
    if grown < 0 or box_size + grown >= 1 << 32:
        sys.exit(f"{source}: cannot grow its 32-bit mdat to {size} bytes")
    shutil.copyfile(source, output)
    with open(output, "r+b") as file:
        file.seek(offset)
        file.write(struct.pack(">I", box_size + grown))
        file.seek(0, os.SEEK_END)
        piece = 16 << 20
        while grown > 0:
            count = min(piece, grown)
            file.write(os.urandom(count))
            grown -= count


if __name__ == "__main__":
    main()
