"""The test case every real-terminal test builds on: a private display, the test photos in a
fresh vault, a terminal running vault, and `look`, which polls screenshots until what a person
would see is there, keeping the screenshot of every step (and all of them when a step fails)."""
import os
import re
import shutil
import tempfile
import unittest

from display import HANG_LIMIT, ROOT, Display, require_tools, wait_until
from looks import BLOCK, BlockMap, find_photo
from photos import PHOTOS, make_vault, vault_environment
from terminal import Terminal


class TerminalTestCase(unittest.TestCase):
    # The terminal's command line up to the program (a *_command from terminal.py), its tools.
    launcher = None
    tools = ()
    # Wider than the photos (4:3 and 3:4), so that a fitted photo leaves the window's sides
    # black and a zoomed one shows more of each quadrant.
    rows = 32
    columns = 120
    # Added to every vault command the scenarios run (e.g. ("--mode", "sixel")); none: the
    # graphics vault chooses by itself, as a user gets.
    mode = ()

    def setUp(self):
        require_tools(*self.tools)
        self.folder = tempfile.mkdtemp(prefix="vault-terminals-")
        self.shots = os.path.join(self.folder, "screenshots")
        os.mkdir(self.shots)
        self.steps = 0
        self.failed = False
        self.display = Display()
        self.addCleanup(self.display.close)
        self.paths = [photo.make(self.folder) for photo in PHOTOS]

    def tearDown(self):
        # TERMINAL_TESTS_KEEP=1 keeps every test's screenshots, to look at them.
        if not self.failed and not os.environ.get("TERMINAL_TESTS_KEEP"):
            shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, *arguments, vault=None):
        """Runs `vault ARGUMENTS` in a new window of this test's terminal."""
        vault = vault or make_vault(self.folder, self.paths)
        title = f"vault-test-{os.getpid()}-{self.steps}"
        terminal = Terminal(self.display, self.folder, self.launcher(title, self.columns, self.rows), title,
                            vault_environment(vault), arguments)
        self.addCleanup(terminal.close)
        return terminal

    def look(self, terminal, step, condition, limit=HANG_LIMIT):
        """Polls screenshots of `terminal` until `condition(image, blocks)` returns (True, _)
        for two in a row; saves the last one as the step's PNG. On failure the message says
        what the last screenshot showed and where the screenshots are kept."""
        self.steps += 1
        last = {"in a row": 0}

        # Seen in two screenshots in a row: kitty showed the photo for one frame before it
        # dropped it, and one screenshot can catch that frame.
        def holds():
            last["image"] = terminal.screenshot()
            last["blocks"] = BlockMap(last["image"])
            ok, last["seen"] = condition(last["image"], last["blocks"])
            last["in a row"] = last["in a row"] + 1 if ok else 0
            return last["in a row"] >= 2

        name = f"{self.steps:02d}-{re.sub(r'[^a-z0-9]+', '-', step.lower()).strip('-')}.png"
        try:
            wait_until(holds, step, limit)
        except AssertionError as error:
            self.failed = True
            if "image" in last:
                last["image"].save_png(os.path.join(self.shots, name))
            raise AssertionError(f"{error}; the last screenshot showed: {last.get('seen')}; "
                                 f"screenshots in {self.keep_screenshots()}") from None
        last["image"].save_png(os.path.join(self.shots, name))
        return last["image"], last["blocks"]

    def keep_screenshots(self):
        """The folder a person can look at: under CI also copied into test-output/terminals."""
        if os.environ.get("CI") != "true":
            return self.shots
        kept = os.path.join(ROOT, "test-output", "terminals", self.id().split(".", 1)[-1])
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(self.shots, kept)
        return kept

    def wait_for_exit(self, terminal):
        status = wait_until(lambda: terminal.exit_status() is not None and [terminal.exit_status()], "vault to exit")
        return status[0]

    def photo_area(self, terminal):
        """The window but its last text row (vault's status line), in pixels."""
        return terminal.width, terminal.height - terminal.height // self.rows


def shows_fitted(photo, area, others=()):
    """The condition: `photo` upright, fitted to the area above the status line (at least 90%
    of the size that fits, either way), and no colour of the `others`."""
    scale = min(area[0] / photo.width, area[1] / photo.height)
    expected = (photo.width * scale, photo.height * scale)

    def condition(image, blocks):
        found = find_photo(blocks, photo.quadrants)
        if found is None:
            return False, f"none of {photo.name}'s colours"
        strays = [name for other in others for name in other.quadrants if blocks.count([name]) > 4]
        fitted = found.width >= 0.9 * expected[0] and found.height >= 0.9 * expected[1]
        above_status = found.bottom <= area[1] + BLOCK
        ok = found.upright and fitted and above_status and not strays
        seen = f"{photo.name}: {found} where {expected[0]:.0f}×{expected[1]:.0f} fits above y {area[1]}"
        return ok, seen + (f"; also {', '.join(strays)}" if strays else "")
    return condition


def status_line(image, area):
    """The pixels of the rows below the photo area: vault's status line."""
    return image.crop(0, area[1], image.width, image.height - area[1]).pixels


def after_status_change(before, area, condition):
    """`condition` once the status line differs from the screenshot `before`: the key that
    changes it has been handled and the screen drawn again."""
    def changed(image, blocks):
        ok, seen = condition(image, blocks)
        if status_line(image, area) == status_line(before, area):
            return False, f"the status line as before; {seen}"
        return ok, seen
    return changed


def shows_none(photos):
    """The condition: no block of any of the photos' colours."""
    names = [name for photo in photos for name in photo.quadrants]

    def condition(image, blocks):
        counts = {name: blocks.count([name]) for name in names}
        left = {name: count for name, count in counts.items() if count}
        return not left, f"blocks of {left}" if left else "no photo colours"
    return condition


def shows_all_upright(photos):
    """The condition: every photo shows somewhere (as a thumbnail), upright."""
    def condition(image, blocks):
        found = {photo.name: find_photo(blocks, photo.quadrants) for photo in photos}
        ok = all(spot is not None and spot.upright for spot in found.values())
        return ok, "; ".join(f"{name}: {spot}" for name, spot in found.items())
    return condition


def centre_of(blocks, name):
    spots = blocks.blocks_of([name])
    if not spots:
        return None
    return (sum(c for c, _ in spots) / len(spots) * BLOCK, sum(r for _, r in spots) / len(spots) * BLOCK)


def arranged(photo, blocks):
    """Whether the quadrants' colours sit where they should around each other (a zoomed or
    panned photo need not show its quadrants as equal quarters), and how many blocks each has."""
    centres = [centre_of(blocks, name) for name in photo.quadrants]
    counts = [blocks.count([name]) for name in photo.quadrants]
    if None in centres:
        return False, counts
    top_left, top_right, bottom_left, bottom_right = centres
    ok = (top_left[0] < top_right[0] and bottom_left[0] < bottom_right[0]
          and top_left[1] < bottom_left[1] and top_right[1] < bottom_right[1])
    return ok, counts

