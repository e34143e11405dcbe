#!/usr/bin/env python3
"""Remakes docs/USING.md's picture of `vault mount` (docs/images/mount-feh.png): under a private
Xvfb, an xterm listing the mount (`findmnt`, `ls -R`) beside feh, a GUI image viewer that knows nothing
of vault, showing a photo from the mount's Photos/ with its path drawn on it. Run from the
repository: `python3 Tests/terminals/make_mount_screenshot.py` (VAULT_BINARY as for the
tests; needs what they need)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from display import ROOT, Display, require_tools, screenshot, wait_until  # noqa: E402
from make_screenshots import make_pictures  # noqa: E402
from mounted import Mount, Window, feh_command  # noqa: E402
from photos import make_vault, run_vault  # noqa: E402

TARGET = os.path.join(ROOT, "docs", "images", "mount-feh.png")
# The part of the screen the two windows fill, and the width it is scaled to (under 150 KB).
AREA = (1290, 600)
WIDTH = 860


def vault_of_pictures(folder):
    """Five plasma pictures under camera-like names, two in an album, one selected."""
    pictures = os.path.join(folder, "pictures")
    os.mkdir(pictures)
    paths = []
    for number, made in enumerate(make_pictures(folder)[:5]):
        path = os.path.join(pictures, f"IMG_{2041 + number}.jpg")
        shutil.move(made, path)
        paths.append(path)
    vault = make_vault(folder, paths)
    run_vault(vault, "album", "new", "Holidays")
    run_vault(vault, "album", "add", "Holidays", "2", "3")
    run_vault(vault, "select", "4")
    return vault


def settled(display):
    """The screen once two screenshots in a row are alike (both windows drawn)."""
    last = {}

    def alike():
        image = screenshot(display)
        same = last.get("pixels") == image.pixels
        last["pixels"], last["image"] = image.pixels, image
        return same
    wait_until(alike, "the screen to settle")
    return last["image"]


def main():
    require_tools("feh", "xterm")
    folder = tempfile.mkdtemp(prefix="vault-mount-screen-")
    display = Display()
    opened = []
    try:
        vault = vault_of_pictures(folder)
        mount = Mount(vault, folder, "Vault")
        opened.append(mount)
        listing = ("printf '$ findmnt -rno SOURCE,FSTYPE,VFS-OPTIONS Vault\\n'; findmnt -rno SOURCE,FSTYPE,VFS-OPTIONS Vault; "
                   "printf '$ ls -R Vault\\n'; ls -R Vault; exec sleep 3600")
        opened.append(Window(display, folder, "listing", [
            "xterm", "-title", "listing", "-geometry", "58x40+0+0", "-fa", "Monospace", "-fs", "9",
            "-bg", "black", "-fg", "white", "-xrm", "XTerm*allowTitleOps: false", "-e", "sh", "-c", listing]))
        photo = os.path.join("Vault", "Photos", "IMG_2043.jpg")
        opened.append(Window(display, folder, "feh", feh_command(
            "feh", photo, "--geometry", "800x600+490+0", "--scale-down", "--draw-filename")))
        image = settled(display)
        raw = os.path.join(folder, "raw.png")
        image.crop(0, 0, *AREA).save_png(raw)
        subprocess.run(["convert", raw, "-resize", f"{WIDTH}x", "-colors", "256", "-strip", TARGET],
                       check=True)
        print(f"{TARGET}: {os.path.getsize(TARGET) // 1024} KB")
    finally:
        for thing in reversed(opened):
            thing.close()
        display.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
