#!/usr/bin/env python3
"""`vault view` inside tmux 3.3 in a real kitty and a real xterm (sixel) under Xvfb. tmux's
status line is at the top and vault's pane is the right one of two, so a picture placed at
the pane's cells of the window (not the pane's own) shows in the wrong place. With
allow-passthrough on, the photo is drawn in pixels inside vault's pane; off, in symbols,
with one line saying how to turn it on."""
import os
import subprocess
import unittest

from case import TerminalTestCase, shows_fitted
from display import HANG_LIMIT, wait_until
from looks import extent, nearest_colour
from photos import LANDSCAPE, PHOTOS, PORTRAIT, THIRD, make_diagonal, make_striped, make_vault
from terminal import kitty_command, xterm_command
from test_auto_mode import PIXELS

# Columns of the left pane, which vault's pane (on its right) starts after (and a border).
LEFT_PANE = 40


class TmuxTestCase(TerminalTestCase):
    terminal_command = None
    passthrough = "on"
    status_position = "top"

    def setUp(self):
        self.tools = (*self.tools, "tmux")
        super().setUp()
        self.socket = f"vault-test-{os.getpid()}-{id(self)}"
        self.config = os.path.join(self.folder, "tmux.conf")
        with open(self.config, "w") as file:
            # A gray status line: tmux's green one reads as the test colour lime.
            file.write(f"set -g allow-passthrough {self.passthrough}\n"
                       f"set -g status-position {self.status_position}\nset -g status-style bg=colour240\n")
        self.addCleanup(lambda: subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True))

    def launcher(self, title, columns, rows):
        """The terminal running tmux with two panes side by side: an idle one, then vault's."""
        return [*type(self).terminal_command(title, columns, rows), "tmux", "-L", self.socket, "-f", self.config,
                "new-session", "sleep", "3600", ";", "split-window", "-h", "-l", str(columns - LEFT_PANE - 1)]

    def tmux(self, *arguments):
        return subprocess.run(["tmux", "-L", self.socket, *arguments], capture_output=True, text=True,
                              timeout=HANG_LIMIT).stdout

    def view_diagonal(self, *mode):
        vault = make_vault(self.folder, [make_diagonal(self.folder)])
        terminal = self.start("view", *mode, "1", vault=vault)
        # vault's pane: right of the left pane and its border, under tmux's status line.
        cell = (terminal.width / self.columns, terminal.height / self.rows)
        pane = (int((LEFT_PANE + 1) * cell[0]), int(cell[1]))
        return terminal, cell, pane

    def list_diagonal(self, *mode):
        """`vault list --per-row 3` of the diagonal photo: its thumbnail, under the lines the
        shell and vault printed before it."""
        vault = make_vault(self.folder, [make_diagonal(self.folder)])
        terminal = self.start("list", "--per-row", "3", *mode, vault=vault)
        self.assertEqual(self.wait_for_exit(terminal), 0)
        cell = (terminal.width / self.columns, terminal.height / self.rows)
        return terminal, cell, (int((LEFT_PANE + 1) * cell[0]), int(cell[1]))

    def view_follows_its_pane_when_it_is_resized(self, *mode):
        """`view` draws the photo in its pane, and again in it once a neighbour's resize has
        moved the pane on the terminal outside."""
        terminal, cell, pane = self.view_diagonal(*mode)
        self.look(terminal, "drawn in pixels in the pane", diagonal_in_pane(True, pane, cell))
        # The left pane 10 columns narrower: vault's pane starts 10 columns further left.
        self.tmux("resize-pane", "-t", "{right}", "-L", "10")
        moved = (int((LEFT_PANE - 10 + 1) * cell[0]), pane[1])
        self.look(terminal, "drawn in the pane where it is now", diagonal_in_pane(True, moved, cell))
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)

    def pane_text(self):
        return self.tmux("capture-pane", "-p", "-t", "{right}")


def edge_steps(image, found):
    """`looks.boundary_steps` for pictures kitty scales smoothly: the edge from blue to red may
    pass through a few pixels of neither (a blend of both)."""
    positions = []
    for y in range(found.top + found.height // 10, found.bottom - found.height // 10):
        row = [nearest_colour(image.pixel(x, y)) for x in range(found.left, found.right)]
        edge = next((x for x in range(1, len(row)) if row[x] == "red" and "blue" in row[max(0, x - 4):x]), None)
        if edge is not None:
            positions.append(edge)
    if len(positions) < 2:
        return 0.0
    return sum(1 for a, b in zip(positions, positions[1:]) if a != b) / (len(positions) - 1)


def diagonal_in_pane(in_pixels, pane, cell):
    """The condition: the diagonal photo shows inside vault's pane (nothing of it left of it or
    above it), centred in it above vault's status line as the viewer centres it (in whole
    cells: the gaps above and below differ by a cell at most; a picture placed a row off
    shows gaps 3 rows apart), drawn in pixels or not."""
    def condition(image, blocks):
        found = extent(blocks, ["red", "blue"])
        if found is None or found.width < 10 * cell[0] or found.height < 5 * cell[1]:
            return False, f"no diagonal photo of some size on screen ({found})"
        above, below = found.top - pane[1], image.height - cell[1] - found.bottom
        left, right = found.left - pane[0], image.width - found.right
        inside = (left >= -1 and above >= -1 and abs(above - below) <= 1.5 * cell[1]
                  and abs(left - right) <= 1.5 * cell[0])
        steps = edge_steps(image, found)
        drawn = (steps >= PIXELS) == in_pixels
        return inside and drawn, (f"diagonal at {found} (pane from {pane}, {above} px above, {below} below, "
                                  f"{left} left, {right} right), "
                                  f"edge moves on {steps:.0%} of rows")
    return condition


class KittyTmuxPassthroughTests(TmuxTestCase):
    terminal_command = staticmethod(kitty_command)
    tools = ("kitty",)

    def test_view_draws_pixels_in_its_pane(self):
        terminal, cell, pane = self.view_diagonal()
        self.look(terminal, "drawn in pixels in the pane", diagonal_in_pane(True, pane, cell))
        self.assertNotIn("allow-passthrough", self.pane_text())
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)

    def test_view_follows_its_pane_when_it_is_resized(self):
        self.view_follows_its_pane_when_it_is_resized()

    def test_list_draws_pixels_in_its_pane(self):
        terminal, cell, pane = self.list_diagonal()
        self.look(terminal, "listed in pixels in the pane", diagonal_listed(True, pane, cell))
        self.assertIn("1 diagonal.png", self.pane_text())


def diagonal_listed(in_pixels, pane, cell):
    """The condition: `list`'s thumbnail of the diagonal photo shows in vault's pane (nothing
    of it left of it or above it), its label right under it (tmux's text and the picture
    agree on the rows), drawn in pixels or not."""
    def condition(image, blocks):
        found = extent(blocks, ["red", "blue"])
        if found is None or found.width < 5 * cell[0] or found.height < 3 * cell[1]:
            return False, f"no diagonal thumbnail of some size on screen ({found})"
        inside = found.left >= pane[0] - 1 and found.top >= pane[1] - 1
        steps = edge_steps(image, found)
        drawn = (steps >= PIXELS) == in_pixels
        return inside and drawn, f"thumbnail at {found} (pane from {pane}), edge moves on {steps:.0%} of rows"
    return condition


class KittyTmuxWholeWindowTests(TmuxTestCase):
    """vault's pane the whole window above tmux's status line at the bottom (tmux's
    default): tmux scrolls and clears the pane with a scroll region that leaves out the status
    line, which kitty treats unlike a scroll of its whole screen."""
    terminal_command = staticmethod(kitty_command)
    tools = ("kitty",)
    status_position = "bottom"
    # Two grid rows of 4 (12 text rows of pictures each at 120 columns, then 2 of labels and
    # a blank one) are taller than the pane: the first row ends partly scrolled off its top.
    rows = 25

    def launcher(self, title, columns, rows):
        return [*kitty_command(title, columns, rows), "tmux", "-L", self.socket, "-f", self.config,
                "new-session"]

    def test_paging_back_and_forth_shows_each_photo(self):
        """`n` and `p` show each photo, also one the viewer sent kitty before. An image
        deleted by id (`a=d,d=I`) made kitty before 0.38.1 drop with it every image then
        placed nowhere: the photo just left and those sent ahead, which the viewer placed
        again on the next page, black (inside tmux kitty's answer that it had no such image
        never reaches vault)."""
        terminal = self.start("view", "1")
        # Above vault's status line and tmux's.
        area = (terminal.width, terminal.height - 2 * terminal.height // self.rows)
        self.look(terminal, "photo 1", shows_fitted(LANDSCAPE, area, [PORTRAIT, THIRD]))
        for step, (key, photo) in enumerate([("n", PORTRAIT), ("p", LANDSCAPE), ("n", PORTRAIT),
                                             ("n", THIRD), ("p", PORTRAIT), ("p", LANDSCAPE)]):
            terminal.keys(key)
            others = [other for other in PHOTOS if other is not photo]
            self.look(terminal, f"{photo.name} after key {step + 1} ({key})", shows_fitted(photo, area, others))
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)

    def test_list_row_scrolled_partly_off_keeps_its_stripes(self):
        """`list` of two rows taller than the pane: the first row, scrolled partly off the top
        of the pane, shows the bottom of its thumbnails as they are. kitty cuts the rows
        scrolled off a placement's picture but kept the rows it was placed on, and stretched
        what was left over them: a photo's few last pixel rows drawn as vertical streaks."""
        pairs = [("red", "blue"), ("lime", "magenta"), ("yellow", "purple"), ("cyan", "orange"),
                 ("spring", "pink"), ("chartreuse", "sky"), ("blue", "yellow"), ("magenta", "lime")]
        paths = [make_striped(self.folder, f"stripes-{index}.png", pair) for index, pair in enumerate(pairs)]
        terminal = self.start("list", "--per-row", "4", vault=make_vault(self.folder, paths))
        self.assertEqual(self.wait_for_exit(terminal), 0)
        self.look(terminal, "stripes of even height", stripes_of_even_height)


# The most pixels of neither colour between two stripes: kitty blends neighbouring pixels
# when it scales a picture, over more of them the more it stretches it.
BLEND = 10


def stripe_runs(image, x):
    """The heights of the runs of one test colour down the column of pixels `x` that have a
    run of another test colour right above and right below them (up to BLEND pixels of blend
    between): whole stripes, not those cut by the window or a label line."""
    runs = []
    y = 0
    while y < image.height:
        name = nearest_colour(image.pixel(x, y))
        start = y
        while y < image.height and nearest_colour(image.pixel(x, y)) == name:
            y += 1
        runs.append((name, start, y))
    whole = []
    for index, (name, start, end) in enumerate(runs):
        if name is None:
            continue
        before = [run for run in runs[:index] if run[2] >= start - BLEND and run[0] is not None]
        after = [run for run in runs[index + 1:] if run[1] <= end + BLEND and run[0] is not None]
        if before and after and before[-1][0] != name and after[0][0] != name:
            whole.append(end - start)
    return whole


def stripes_of_even_height(image, blocks):
    """The condition: a thumbnail cut by the top of the window (the first row scrolled partly
    off) and every whole stripe on screen about as tall as every other one."""
    cut = any(nearest_colour(image.pixel(x, 1)) for x in range(0, image.width, 4))
    heights = [height for x in range(0, image.width, 8) for height in stripe_runs(image, x)]
    if not cut or not heights:
        return False, f"a thumbnail cut at the top: {cut}; stripes: {len(heights)}"
    shortest, tallest = min(heights), max(heights)
    return tallest <= 1.3 * shortest, f"{len(heights)} whole stripes, {shortest} to {tallest} pixels tall"


class KittyTmuxNoPassthroughTests(TmuxTestCase):
    terminal_command = staticmethod(kitty_command)
    tools = ("kitty",)
    passthrough = "off"

    def test_view_draws_symbols_and_says_how_to_get_pictures(self):
        terminal, cell, pane = self.view_diagonal()
        self.look(terminal, "drawn with symbols in the pane", diagonal_in_pane(False, pane, cell))
        # Said before the viewer took the screen: on the screen it gives back.
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)
        wait_until(lambda: "allow-passthrough" in self.pane_text(), "the line on tmux's passthrough")
        # One line, however the pane wraps it: the hint's words, once.
        text = " ".join(self.pane_text().split())
        self.assertEqual(text.count("allow-passthrough"), 1, text)
        self.assertIn("(tmux set -g allow-passthrough on)", text)

    def test_list_draws_symbols_and_says_how_to_get_pictures(self):
        terminal, cell, pane = self.list_diagonal()
        self.look(terminal, "listed with symbols in the pane", diagonal_listed(False, pane, cell))
        text = " ".join(self.pane_text().split())
        self.assertEqual(text.count("allow-passthrough"), 1, text)


class XtermTmuxPassthroughTests(TmuxTestCase):
    terminal_command = staticmethod(xterm_command)
    tools = ("xterm",)
    rows = 48

    def test_view_draws_sixel_pixels_in_its_pane(self):
        terminal, cell, pane = self.view_diagonal("--mode", "sixel")
        self.look(terminal, "drawn in pixels in the pane", diagonal_in_pane(True, pane, cell))
        terminal.keys("q")
        self.assertEqual(self.wait_for_exit(terminal), 0)

    def test_view_follows_its_pane_when_it_is_resized(self):
        self.view_follows_its_pane_when_it_is_resized("--mode", "sixel")

    def test_list_draws_sixel_pixels_in_its_pane(self):
        terminal, cell, pane = self.list_diagonal("--mode", "sixel")
        self.look(terminal, "listed in pixels in the pane", diagonal_listed(True, pane, cell))


if __name__ == "__main__":
    unittest.main()
