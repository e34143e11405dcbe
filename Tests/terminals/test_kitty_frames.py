#!/usr/bin/env python3
"""What a person sees between two pictures in a real kitty under Xvfb, recorded at 30 frames
a second (FFmpeg's x11grab): a photo's thumbnail then its original, or the photo fitted to
other cells when the info panel opens or closes, never with the erased screen, black,
between the two. kitty holds only so much of a synchronized frame; a photo's upload written
inside the frame that placed it showed black for a frame or two (issue 35's tryout: 4 of 6
openings; this test, before the fix: 3 and 7 times in two runs, in a window of 160×48 cells
with 12-megapixel photos; none in a smaller window with smaller photos).

Run from the repository: `python3 -m unittest discover -s Tests/terminals -v` (scripts/test
does, after the XCTest run). The binary is $VAULT_BINARY, else .build/debug/vault."""
import os
import signal
import subprocess
import unittest

from case import TerminalTestCase
from display import HANG_LIMIT
from photos import make_vault
from terminal import kitty_command

# Noisy photos, so that each one's upload (PNG) is megabytes, as a camera's is; each of one
# hue, so that a recorded frame says which photo it shows.
HUES = {"red": (210, 40, 40), "green": (40, 190, 40), "blue": (40, 40, 210), "yellow": (200, 200, 40),
        "magenta": (200, 40, 200)}
# Each recorded frame is shrunk to this many pixels (by FFmpeg), which is all the test needs.
FRAME = (32, 24)


class Recording:
    """The window of `terminal`, recorded by FFmpeg into `path` as raw RGB frames of FRAME
    pixels, until `stop`."""

    def __init__(self, terminal, path):
        left, top, width, height = terminal._geometry()
        self.path = path
        self.process = subprocess.Popen(
            ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "x11grab", "-framerate", "30",
             "-video_size", f"{width}x{height}", "-i", f"{terminal.display.name}+{left},{top}",
             "-vf", f"scale={FRAME[0]}:{FRAME[1]}", "-f", "rawvideo", "-pix_fmt", "rgb24", path],
            stderr=subprocess.PIPE)

    def stop(self):
        """The frames recorded, each named by `hue_of`."""
        self.process.send_signal(signal.SIGINT)
        _, errors = self.process.communicate(timeout=HANG_LIMIT)
        with open(self.path, "rb") as file:
            data = file.read()
        size = FRAME[0] * FRAME[1] * 3
        if len(data) < size:
            raise AssertionError(f"ffmpeg recorded nothing: {errors.decode(errors='replace')}")
        return [hue_of(data[at:at + size]) for at in range(0, len(data) - size + 1, size)]


def mean_colour(frame, columns=range(FRAME[0])):
    """The mean colour of `columns` of the frame's picture area (its status line left out)."""
    pixels = [frame[(row * FRAME[0] + column) * 3:][:3] for row in range(FRAME[1] * 9 // 10) for column in columns]
    return [sum(pixel[channel] for pixel in pixels) / len(pixels) for channel in range(3)]


def hue_of(frame):
    """"black" when the frame's picture area is dark; else the name of the hue nearest its
    mean colour."""
    mean = mean_colour(frame)
    if max(mean) < 25:
        return "black"
    return min(HUES, key=lambda name: sum((a - b) ** 2 for a, b in zip(HUES[name], mean)))


def shrunk(image):
    """A screenshot shrunk to FRAME pixels, as the recording's frames are."""
    return subprocess.run(["convert", "ppm:-", "-resize", f"{FRAME[0]}x{FRAME[1]}!", "rgb:-"],
                          input=image.ppm, capture_output=True, check=True).stdout


def flashes(frames):
    """Where a photo's hue is followed by black and then the same hue again: its thumbnail or
    its last showing, the erased screen, then the photo."""
    found, last, dark = [], None, 0
    for index, hue in enumerate(frames):
        if hue == "black":
            dark += 1
            continue
        if dark and hue == last:
            found.append((index - dark, dark, hue))
        last, dark = hue, 0
    return found


class KittyFrameTests(TerminalTestCase):
    launcher = staticmethod(kitty_command)
    tools = ("kitty", "ffmpeg", "convert")
    columns, rows = 160, 48

    def make_photos(self):
        paths = []
        for seed, (name, (red, green, blue)) in enumerate(HUES.items()):
            path = os.path.join(self.folder, f"{name}.jpg")
            subprocess.run(["convert", "-size", "4000x3000", f"xc:rgb({red},{green},{blue})", "-seed", str(seed),
                            "-attenuate", "0.5", "+noise", "Gaussian", "-quality", "92", path], check=True)
            paths.append(path)
        return paths

    def shows(self, name, panel=False):
        """The condition: the photo of hue `name` on screen, with the info panel (text on
        black in the window's right part) or without."""
        def condition(image, blocks):
            frame = shrunk(image)
            hue, right = hue_of(frame), max(mean_colour(frame, range(FRAME[0] * 9 // 10, FRAME[0])))
            return hue == name and (right < 25) == panel, f"mostly {hue}, the right part {right:.0f} bright"
        return condition

    def test_a_photo_sent_again_never_shows_the_screen_erased_before_it(self):
        vault = make_vault(self.folder, self.make_photos())
        terminal = self.start("view", "--sort", "imported", "1", vault=vault)
        recording = Recording(terminal, os.path.join(self.folder, "recording.rgb"))
        self.look(terminal, "photo 1, red", self.shows("red"))
        # Photos far from the one shown: neither decoded nor sent ahead.
        for number, name in ((4, "yellow"), (2, "green"), (5, "magenta"), (3, "blue"), (1, "red")):
            terminal.keys("g", str(number), "Return")
            self.look(terminal, f"photo {number}, {name}", self.shows(name))
        # The info panel shown and hidden: each time the photo fits other cells, and kitty is
        # sent it again at their size.
        for panel in (True, False, True, False):
            terminal.keys("i")
            self.look(terminal, f"the info panel {'shown' if panel else 'hidden'}", self.shows("red", panel))
        frames = recording.stop()
        found = flashes(frames)
        print(f"\nkitty, going to 5 photos and the info panel shown twice: {len(frames)} frames recorded, {len(found)} times the screen "
              f"erased, black, between two showings of one photo")
        if found:
            self.failed = True
        self.assertEqual(found, [], f"(first frame, frames black, photo); frames: {frames}")
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)


if __name__ == "__main__":
    unittest.main()
