"""The test photos, made at test time with ImageMagick, and a vault holding them."""
import os
import subprocess

from display import BINARY, HANG_LIMIT, PASSWORD
from looks import COLOURS


class Photo:
    """Four flat quadrants (top-left, top-right, bottom-left, bottom-right) of test colours."""

    def __init__(self, name, width, height, quadrants):
        self.name, self.width, self.height, self.quadrants = name, width, height, quadrants

    def make(self, folder):
        path = os.path.join(folder, self.name)
        half_width, half_height = self.width // 2, self.height // 2
        tiles = [f"xc:rgb{COLOURS[name]}".replace(" ", "") for name in self.quadrants]
        subprocess.run(
            ["convert", "-size", f"{half_width}x{half_height}",
             "(", tiles[0], tiles[1], "+append", ")", "(", tiles[2], tiles[3], "+append", ")", "-append",
             "+repage", "-quality", "95", "-sampling-factor", "1x1",
             # No date in the PNG (tIME): every photo is numbered by import order.
             "-define", "png:exclude-chunks=date,time", path],
            check=True, timeout=HANG_LIMIT)
        return path


# Numbered 1, 2, 3 in the vault, in this order; the second is a portrait and a JPEG.
LANDSCAPE = Photo("1-landscape.png", 800, 600, ("red", "lime", "blue", "yellow"))
PORTRAIT = Photo("2-portrait.jpg", 600, 800, ("magenta", "cyan", "orange", "spring"))
THIRD = Photo("3-landscape.jpg", 800, 600, ("purple", "chartreuse", "pink", "sky"))
PHOTOS = (LANDSCAPE, PORTRAIT, THIRD)


def make_diagonal(folder):
    """Red above the diagonal from the top-left to the bottom-right corner, blue below: an edge
    that only pixel graphics draw smoothly."""
    path = os.path.join(folder, "diagonal.png")
    subprocess.run(["convert", "-size", "800x600", "xc:rgb(0,0,255)", "-fill", "rgb(255,0,0)",
                    "-draw", "polygon 0,0 800,0 800,600", path], check=True, timeout=HANG_LIMIT)
    return path


def make_striped(folder, name, colours, stripes=6, size=600):
    """A square photo of `stripes` horizontal stripes of the two test `colours` in turn: a
    picture whose pixel rows differ, so that a thumbnail stretched up and down shows it."""
    path = os.path.join(folder, name)
    height = size // stripes
    bands = " ".join(f"rectangle 0,{band * height} {size},{band * height + height - 1}"
                     for band in range(1, stripes, 2))
    subprocess.run(["convert", "-size", f"{size}x{size}", f"xc:rgb{COLOURS[colours[0]]}".replace(" ", ""),
                    "-fill", f"rgb{COLOURS[colours[1]]}".replace(" ", ""), "-draw", bands, path],
                   check=True, timeout=HANG_LIMIT)
    return path


def vault_environment(vault):
    return {"VAULT_DIR": vault, "VAULT_PASSWORD": PASSWORD, "TZ": "UTC"}


def run_vault(vault, *arguments):
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.dirname(vault),
                   **vault_environment(vault)}
    run = subprocess.run([BINARY, *arguments], env=environment, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=HANG_LIMIT)
    if run.returncode != 0:
        raise AssertionError(f"vault {' '.join(arguments)} exited {run.returncode}: {run.stderr}")
    return run.stdout


def make_vault(folder, paths):
    """A vault in `folder` holding the photos at `paths`, numbered in that order."""
    vault = os.path.join(folder, "vault")
    run_vault(vault, "init", "--kdf", "interactive")
    for path in paths:
        run_vault(vault, "add", path)
    return vault
