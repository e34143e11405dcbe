#!/usr/bin/env python3
"""A video played by `vault view` in a real kitty under Xvfb: its still, then its frames
through kitty's graphics as it plays (red for 3 s, then blue), and `q` back to the still.

Run from the repository: `python3 -m unittest discover -s Tests/terminals -v` (scripts/test
does, after the XCTest run). The binary is $VAULT_BINARY, else .build/debug/vault."""
import os
import subprocess
import unittest

from case import TerminalTestCase
from looks import BlockMap
from photos import make_vault
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


if __name__ == "__main__":
    unittest.main()
