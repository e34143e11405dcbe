#!/usr/bin/env python3
"""Writes N 4000x3000 JPEGs (quality 92, 4:2:0) into a folder, reproducibly, of one of two
kinds:

- photo (the default): smooth colour gradients and soft shapes (sky, objects) plus
  sensor-like noise and some hard edges, drawn here, so they compress like camera
  pictures (a few MB each), not like flat fills;
- plasma: ImageMagick's fractal plasma, blurred, with Gaussian noise (a second encoder
  and a busier picture), one seed per photo.

Drawing one takes seconds, so past the first 20 each photo is one of those 20 with a JPEG
comment naming it inserted: different content to vault, the same work to decode.
Usage: make_photos.py FOLDER COUNT [photo|plasma]"""
import os
import subprocess
import sys

import struct

import numpy as np

UNIQUE = 20

W, H = 4000, 3000


def photo(seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    image = np.zeros((H, W, 3), np.float32)
    for channel in range(3):
        base = rng.uniform(40, 200)
        image[..., channel] = base + rng.uniform(-60, 60) * (y / H) + rng.uniform(-40, 40) * (x / W)
        for _ in range(4):
            fx, fy = rng.uniform(0.5, 6, 2)
            phase = rng.uniform(0, 6.3)
            image[..., channel] += rng.uniform(5, 25) * np.sin(2 * np.pi * (fx * x / W + fy * y / H) + phase)
    for _ in range(12):
        cx, cy, radius = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(100, 700)
        colour = rng.uniform(0, 255, 3)
        mask = ((x - cx) ** 2 + (y - cy) ** 2) < radius ** 2
        image[mask] = image[mask] * 0.4 + colour * 0.6
    image += rng.normal(0, 6, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def draw_photo(seed, path):
    header = b"P6\n%d %d\n255\n" % (W, H)
    subprocess.run(["cjpeg", "-quality", "92", "-outfile", path],
                   input=header + photo(seed).tobytes(), check=True)


def draw_plasma(seed, path):
    subprocess.run(["convert", "-seed", str(seed + 1), "-size", "%dx%d" % (W, H), "plasma:fractal",
                    "-blur", "0x1", "-attenuate", "0.3", "+noise", "Gaussian", "-quality", "92",
                    "-sampling-factor", "2x2", path], check=True)


KINDS = {"photo": ("unique", draw_photo), "plasma": ("plasma-unique", draw_plasma)}


def main():
    folder, count = sys.argv[1], int(sys.argv[2])
    cache_name, draw = KINDS[sys.argv[3] if len(sys.argv) > 3 else "photo"]
    os.makedirs(folder, exist_ok=True)
    cache = os.path.join(os.path.dirname(os.path.abspath(folder)), cache_name)
    os.makedirs(cache, exist_ok=True)
    for index in range(min(count, UNIQUE)):
        path = os.path.join(cache, "IMG_%04d.jpg" % (index + 1))
        if not os.path.exists(path):
            # Drawn under a temporary name: an interrupted run leaves no half picture.
            draw(index, path + ".tmp.jpg")
            os.rename(path + ".tmp.jpg", path)
    for index in range(count):
        path = os.path.join(folder, "IMG_%04d.jpg" % (index + 1))
        if os.path.exists(path):
            continue
        with open(os.path.join(cache, "IMG_%04d.jpg" % (index % UNIQUE + 1)), "rb") as source:
            jpeg = source.read()
        if index >= UNIQUE:
            comment = b"copy %d" % index
            jpeg = jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + jpeg[2:]
        with open(path, "wb") as target:
            target.write(jpeg)


if __name__ == "__main__":
    main()
