#!/usr/bin/env python3
"""Which graphics vault chooses by itself in `xterm -ti vt340` and mlterm, told from the screen: a photo
with a diagonal edge is drawn in pixels (sixel) when its edge moves on almost every pixel row,
and with text symbols when it moves only in steps of a text cell's parts."""
import unittest

from case import TerminalTestCase
from looks import boundary_steps, extent
from photos import make_diagonal, make_vault
from terminal import mlterm_command, xterm_command

# A diagonal edge drawn in pixels moves on about every row; symbols, a few times per text
# row of 16 pixels at most.
PIXELS = 0.6


def diagonal_drawn(in_pixels, area):
    """The condition: the 800×600 diagonal photo fitted to `area` (whole: a frame being drawn
    shows only its top), drawn in pixels or not."""
    scale = min(area[0] / 800, area[1] / 600)

    def condition(image, blocks):
        found = extent(blocks, ["red", "blue"])
        if found is None or found.width < 0.9 * 800 * scale or found.height < 0.9 * 600 * scale:
            return False, f"the diagonal photo is not whole on screen ({found})"
        steps = boundary_steps(image, found, "red", "blue")
        return (steps >= PIXELS) == in_pixels, f"diagonal at {found}, edge moves on {steps:.0%} of rows"
    return condition


class XtermAutoModeTests(TerminalTestCase):
    launcher = staticmethod(xterm_command)
    tools = ("xterm",)

    def view_diagonal(self, *mode):
        vault = make_vault(self.folder, [make_diagonal(self.folder)])
        terminal = self.start("view", *mode, "1", vault=vault)
        return terminal, self.photo_area(terminal)

    def test_auto_mode_is_sixel(self):
        terminal, area = self.view_diagonal()
        self.look(terminal, "drawn in pixels", diagonal_drawn(True, area))

    def test_the_check_sees_sixel_pixels(self):
        terminal, area = self.view_diagonal("--mode", "sixel")
        self.look(terminal, "drawn in pixels", diagonal_drawn(True, area))

    def test_the_check_sees_symbols(self):
        terminal, area = self.view_diagonal("--mode", "symbols")
        self.look(terminal, "drawn with symbols", diagonal_drawn(False, area))



class MltermAutoModeTests(TerminalTestCase):
    launcher = staticmethod(mlterm_command)
    tools = ("mlterm",)

    def test_auto_mode_draws_pixels(self):
        vault = make_vault(self.folder, [make_diagonal(self.folder)])
        terminal = self.start("view", "1", vault=vault)
        self.look(terminal, "drawn in pixels", diagonal_drawn(True, self.photo_area(terminal)))


if __name__ == "__main__":
    unittest.main()
