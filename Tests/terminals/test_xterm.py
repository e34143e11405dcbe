#!/usr/bin/env python3
"""`vault view` and `vault list --per-row 4` in a real `xterm -ti vt340` (sixel graphics)
under Xvfb, at 120 columns and at 160 (wider than the largest sixel image xterm shows)."""
import unittest

from case import TerminalTestCase, shows_all_upright
from display import KNOWN_FAILURE_LIMIT
from photos import PHOTOS
from scenarios import ViewScenarios
from terminal import xterm_command


class XtermTests(ViewScenarios, TerminalTestCase):
    launcher = staticmethod(xterm_command)
    tools = ("xterm",)
    # vault does not yet pick sixel in xterm by itself (see test_auto_mode.py): until it
    # does, these tests ask for it.
    mode = ("--mode", "sixel")


class WideXtermTests(TerminalTestCase):
    """160 columns of 8 pixels: a grid row drawn as one sixel image is 1280 pixels wide, more
    than xterm's largest sixel image (1000×1000 by default), which xterm drops without a word."""
    launcher = staticmethod(xterm_command)
    tools = ("xterm",)
    columns = 160
    rows = 48

    # Fails until vault splits sixel images to fit the terminal's maximum (issue 21): then
    # remove the marker.
    @unittest.expectedFailure
    def test_grid_shows_thumbnails(self):
        terminal = self.start("view", "--mode", "sixel")
        self.look(terminal, "grid", shows_all_upright(PHOTOS), KNOWN_FAILURE_LIMIT)

    # The same.
    @unittest.expectedFailure
    def test_list_draws_thumbnails(self):
        terminal = self.start("list", "--per-row", "4", "--mode", "sixel")
        self.assertEqual(self.wait_for_exit(terminal), 0)
        self.look(terminal, "list thumbnails", shows_all_upright(PHOTOS), KNOWN_FAILURE_LIMIT)


if __name__ == "__main__":
    unittest.main()
