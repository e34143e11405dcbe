#!/usr/bin/env python3
"""`vault view` and `vault list --per-row 4` in a real `xterm -ti vt340` (sixel graphics)
under Xvfb, at 120 columns and at 160 (wider than the largest sixel image xterm shows)."""
import unittest

from case import TerminalTestCase, shows_all_upright
from photos import PHOTOS
from scenarios import ViewScenarios
from terminal import xterm_command


class XtermTests(ViewScenarios, TerminalTestCase):
    """With the graphics vault chooses by itself: sixel (test_auto_mode.py tells)."""
    launcher = staticmethod(xterm_command)
    tools = ("xterm",)


class WideXtermTests(TerminalTestCase):
    """160 columns of 8 pixels: a grid row drawn as one sixel image would be 1280 pixels wide,
    more than xterm's largest sixel image (1000×1000 by default), which xterm drops without a
    word; vault must send images that fit. Sixel is asked for: symbols would pass anyway."""
    launcher = staticmethod(xterm_command)
    tools = ("xterm",)
    columns = 160
    rows = 48

    def test_grid_shows_thumbnails(self):
        terminal = self.start("view", "--mode", "sixel")
        self.look(terminal, "grid", shows_all_upright(PHOTOS))

    def test_list_draws_thumbnails(self):
        terminal = self.start("list", "--per-row", "4", "--mode", "sixel")
        self.assertEqual(self.wait_for_exit(terminal), 0)
        self.look(terminal, "list thumbnails", shows_all_upright(PHOTOS))


if __name__ == "__main__":
    unittest.main()
