#!/usr/bin/env python3
"""A video played by `vault view` in a real kitty under Xvfb: its still, then its frames
through kitty's graphics as it plays (red for 3 s, then blue), and `q` back to the still.

Run from the repository: `python3 -m unittest discover -s Tests/terminals -v` (scripts/test
does, after the XCTest run). The binary is $VAULT_BINARY, else .build/debug/vault."""
import os
import subprocess
import time
import unittest

from case import TerminalTestCase
from looks import COLOURS, BlockMap
from photos import make_vault, run_vault
from terminal import kitty_command


def shows_colour(name, absent=()):
    """The condition: blocks of colour `name` fill a good part of the window, none of `absent`."""
    def condition(image, blocks):
        counts = {colour: blocks.count([colour]) for colour in (name, *absent)}
        ok = counts[name] > 200 and not any(counts[colour] for colour in absent)
        return ok, f"blocks: {counts}"
    return condition


class KittyPlaybackTests(TerminalTestCase):
    launcher = staticmethod(kitty_command)
    tools = ("kitty", "ffmpeg")

    def make_video(self):
        """30 s of 320×240 H.264: red for 5 s, then blue, a keyframe every second. Its still
        (the first keyframe from 10% in: 3 s) is red; with x264's default of one keyframe in
        250 frames, the first after 10% was the one it puts at the cut to blue. 25 s of blue
        leave the screenshots taken while it plays time to spare on a loaded machine."""
        path = os.path.join(self.folder, "clip.mp4")
        picture = ("color=c=red:size=320x240:rate=10:duration=30,"
                   "drawbox=x=0:y=0:w=iw:h=ih:color=blue:t=fill:enable='gte(t,5)'")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", picture,
                        "-c:v", "libx264", "-g", "10", "-pix_fmt", "yuv420p", path], check=True)
        return path

    def test_a_video_plays_and_q_goes_back_to_its_still(self):
        vault = make_vault(self.folder, [self.make_video()])
        terminal = self.start("view", "1", vault=vault)
        self.look(terminal, "the still, red", shows_colour("red", ("blue",)))
        terminal.keys("Return")
        self.look(terminal, "blue frames once it played 5 s", shows_colour("blue", ("red",)))
        # Every screenshot while it plays shows a frame: each is drawn as synchronized
        # output, where kitty once showed the erased screen between frames (black).
        for shot in range(6):
            blocks = BlockMap(terminal.screenshot())
            self.assertGreater(blocks.count(["blue"]), 200, f"screenshot {shot} while playing shows no frame")
        terminal.keys("q")
        self.look(terminal, "the still again after q", shows_colour("red", ("blue",)))
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)
        self.look(terminal, "nothing after quitting", lambda image, blocks: (
            blocks.count(["red", "blue"]) == 0, f"{blocks.count(['red', 'blue'])} red or blue blocks"))

    def test_a_live_photos_motion_plays_on_enter(self):
        """A Live Photo (a red still and a blue MOV of the same name, added in one `add`)
        shows its still; Enter plays its motion, which it did not: the window turns blue."""
        camera = os.path.join(self.folder, "camera")
        os.mkdir(camera)
        subprocess.run(["convert", "-size", "320x240", "xc:rgb(255,0,0)", os.path.join(camera, "IMG_0001.JPG")],
                       check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i",
                        "color=c=blue:size=320x240:rate=10:duration=3", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                        "-f", "mov", os.path.join(camera, "IMG_0001.MOV")], check=True)
        vault = os.path.join(self.folder, "vault")
        run_vault(vault, "init", "--kdf", "interactive")
        run_vault(vault, "add", camera)
        terminal = self.start("view", "1", vault=vault)
        self.look(terminal, "the still, red", shows_colour("red", ("blue",)))
        terminal.keys("Return")
        self.look(terminal, "its motion, blue", shows_colour("blue", ("red",)))

    def make_large_video(self):
        """40 s of 1280×720 H.264 at 25 frames a second, blue and lime by turns each second:
        each frame fitted to the window is over a megabyte of pixels, more than kitty holds
        in one synchronized frame."""
        path = os.path.join(self.folder, "large.mp4")
        picture = ("color=c=blue:size=1280x720:rate=25:duration=40,"
                   "drawbox=x=0:y=0:w=iw:h=ih:color=lime:t=fill:enable='eq(mod(floor(t),2),1)'")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", picture,
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", path],
                       check=True)
        return path

    def test_no_black_frame_while_a_large_video_plays(self):
        vault = make_vault(self.folder, [self.make_large_video()])
        terminal = self.start("view", "1", vault=vault)
        self.look(terminal, "the still", shows_colour("blue", ("red",)))
        terminal.keys("Return")
        self.look(terminal, "lime frames: it plays", shows_colour("lime", ("red",)))
        captures, black = 100, 0
        for shot in range(captures):
            image = terminal.screenshot()
            blocks = BlockMap(image)
            if blocks.count(["blue", "lime"]) < 200:
                black += 1
                image.save_png(os.path.join(self.shots, f"black-{shot:03d}.png"))
        print(f"\nkitty, 1280x720 video playing: {black} of {captures} captures without a frame")
        if black > 1:
            self.failed = True
        self.assertLessEqual(black, 1, f"{black} of {captures} captures show no frame; "
                                       f"they are in {self.keep_screenshots() if black > 1 else ''}")

    def make_animation(self, name, colours, size="320x240"):
        """Four frames of a solid test colour each, 200 ms each, looping: a GIF, or an
        animated WebP (lossless) made from it."""
        gif = os.path.join(self.folder, "blink.gif")
        tiles = [f"xc:rgb{COLOURS[colour]}".replace(" ", "") for colour in colours]
        subprocess.run(["convert", "-delay", "20", "-size", size, *tiles, "-loop", "0", gif], check=True)
        if name.endswith(".gif"):
            return gif
        path = os.path.join(self.folder, name)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-nostdin", "-i", gif, "-c:v", "libwebp_anim",
                        "-lossless", "1", "-loop", "0", path], check=True)
        return path

    def sample_animation(self, name, colours):
        """Shows the animation and screenshots it for at least six seconds (over seven loops
        of its 800 ms) and 60 screenshots: each frame's colour must show in more than an
        eighth of them (half its share). A last frame cut short showed in fewer (4 frames at
        200 ms: the last in 5 of 40 screenshots, a WebP's in 3 of 40)."""
        vault = make_vault(self.folder, [self.make_animation(name, colours)])
        terminal = self.start("view", "1", vault=vault)
        self.sample_frames(terminal, name, colours)

    def sample_frames(self, terminal, name, colours):
        """Screenshots the animation `name` playing in `terminal` (`sample_animation`)."""
        self.look(terminal, f"{name} shows", lambda image, blocks: (
            any(blocks.count([colour]) > 200 for colour in colours), "a frame of it"))
        seen = {colour: 0 for colour in colours}
        start = time.monotonic()
        shots = 0
        while time.monotonic() - start < 6 or shots < 60:
            blocks = BlockMap(terminal.screenshot())
            shots += 1
            for colour in colours:
                if blocks.count([colour]) > 200:
                    seen[colour] += 1
        print(f"\nkitty, {name} (4 frames of 200 ms), {shots} screenshots: {seen}")
        missing = [colour for colour, count in seen.items() if count <= shots / 8]
        self.assertFalse(missing, f"{name}: frames seen in at most an eighth of {shots} screenshots: {seen}")

    def test_every_frame_of_a_gif_shows(self):
        self.sample_animation("blink.gif", ("red", "lime", "blue", "yellow"))

    def test_every_frame_of_an_animated_webp_shows(self):
        self.sample_animation("blink.webp", ("magenta", "cyan", "orange", "sky"))

    def test_every_frame_of_a_gif_shows_after_a_video_played(self):
        """A video played and stopped, then the GIF two photos back: its frames showed once in
        2 to 5 seconds, some never. A neighbour sent ahead (a noisy photo: a large upload)
        was the last thing of a frame, and the end of synchronized output written after it
        was wiped with the frame's buffer: every later frame ended in NULs, and kitty held
        each until its synchronized output timed out."""
        colours = ("magenta", "cyan", "orange", "sky")
        noise = os.path.join(self.folder, "noise.png")
        # Stripped of the date ImageMagick writes: dated, it came first, not between the two.
        subprocess.run(["convert", "-size", "640x480", "xc:gray", "+noise", "Random", "-strip", noise], check=True)
        # Small frames: kitty showed large ones when its buffer for a synchronized frame overflowed.
        animation = self.make_animation("blink.gif", colours, size="80x60")
        vault = make_vault(self.folder, [animation, noise, self.make_video()])
        terminal = self.start("view", "3", vault=vault)
        self.look(terminal, "the video's still, red", shows_colour("red", ("blue",)))
        terminal.keys("Return")
        self.look(terminal, "blue frames once it played 5 s", shows_colour("blue", ("red",)))
        terminal.keys("q")
        self.look(terminal, "the still again after q", shows_colour("red", ("blue",)))
        terminal.keys("g", "1", "Return")
        self.sample_frames(terminal, "blink.gif", colours)


if __name__ == "__main__":
    unittest.main()
