#!/usr/bin/env python3
"""Remakes the screenshots of vault in real terminals that the README and docs/USING.md show
(docs/screens/*.png): kitty showing a photo and the grid, xterm -ti vt340 the grid in sixel,
mlterm `vault list --per-row 4`. Run from the repository:
`python3 Tests/terminals/make_screenshots.py` (VAULT_BINARY as for the tests; needs what
the tests need)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from display import ROOT, Display, require_tools, wait_until  # noqa: E402
from looks import BlockMap, find_photo  # noqa: E402
from photos import PHOTOS, make_vault, vault_environment  # noqa: E402
from terminal import Terminal, kitty_command, mlterm_command, xterm_command  # noqa: E402

TARGET = os.path.join(ROOT, "docs", "screens")
# Each screenshot is scaled to this width and kept under 150 KB.
WIDTH = 720


def make_pictures(folder):
    """Five colourful pictures (ImageMagick's seeded plasma fractal) then the test photos,
    which show last in the grid and tell when it is drawn."""
    paths = []
    for seed in range(1, 6):
        path = os.path.join(folder, f"plasma-{seed}.jpg")
        size = "600x800" if seed == 2 else "800x600"
        subprocess.run(["convert", "-size", size, "-seed", str(seed * 7), "plasma:", "-blur", "0x2", path], check=True)
        paths.append(path)
    return paths + [photo.make(folder) for photo in PHOTOS]


def lit_share(image):
    """The share of pixels (one in 16 sampled) that are not black."""
    samples = image.pixels[::48]
    return sum(1 for i in range(0, len(samples) - 2, 3) if max(samples[i:i + 3]) > 24) / (len(samples) // 3)


def settled(terminal, photos_drawn, lit):
    """The screenshot once the test photos' thumbnails (drawn last) show, at least `lit` of the
    window is not black, and two screenshots in a row are alike."""
    last = {}

    def alike():
        image = terminal.screenshot()
        blocks = BlockMap(image)
        drawn = all(find_photo(blocks, photo.quadrants) for photo in photos_drawn) and lit_share(image) >= lit
        same = drawn and last.get("pixels") == image.pixels
        last["pixels"], last["image"] = image.pixels, image
        return same
    wait_until(alike, f"{terminal.title} to settle")
    return last["image"]


def shoot(display, folder, vault, launcher, name, arguments, photos_drawn, lit=0.0):
    terminal = Terminal(display, folder, launcher(name, 120, 32), name, vault_environment(vault), arguments)
    try:
        image = settled(terminal, photos_drawn, lit)
        raw = os.path.join(folder, f"{name}.png")
        image.save_png(raw)
        target = os.path.join(TARGET, f"{name}.png")
        subprocess.run(["convert", raw, "-resize", f"{WIDTH}x", "+dither", "-colors", "256", "-strip", target],
                       check=True)
        print(f"{target}: {os.path.getsize(target) // 1024} KB")
    finally:
        terminal.close()


def main():
    require_tools("kitty", "xterm", "mlterm")
    os.makedirs(TARGET, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="vault-screens-")
    display = Display()
    try:
        vault = make_vault(folder, make_pictures(folder))
        shoot(display, folder, vault, kitty_command, "kitty-photo", ["view", "1"], [], lit=0.5)
        shoot(display, folder, vault, kitty_command, "kitty-grid", ["view"], PHOTOS)
        shoot(display, folder, vault, xterm_command, "xterm-sixel-grid", ["view"], PHOTOS)
        shoot(display, folder, vault, mlterm_command, "mlterm-list", ["list", "--per-row", "4"], PHOTOS)
    finally:
        display.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
