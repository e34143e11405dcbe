#!/usr/bin/env python3
"""`vault mount` seen by programs that know nothing of vault: Python's os module lists and
reads the mount's folders as any program would, and feh (a GUI image viewer) opens a photo
from the mount's Photos/ under the private Xvfb, where a screenshot must show it whole and
upright (its four coloured quadrants where they belong)."""
import datetime
import os
import unittest

from case import TerminalTestCase, shows_fitted
from mounted import Mount, Window, feh_command
from photos import LANDSCAPE, PHOTOS, make_vault, run_vault

ALBUM = "Trip"


class MountInImageViewerTests(TerminalTestCase):
    tools = ("feh", "fusermount3")

    def setUp(self):
        super().setUp()
        if not os.path.exists("/dev/fuse"):
            # As require_tools: under CI a missing /dev/fuse is a broken set-up.
            if os.environ.get("CI") == "true":
                raise AssertionError("no /dev/fuse: the mount tests need FUSE")
            raise unittest.SkipTest("no /dev/fuse")
        before = datetime.datetime.now(datetime.timezone.utc)
        self.vault = make_vault(self.folder, self.paths)
        after = datetime.datetime.now(datetime.timezone.utc)
        # The photos carry no date taken: Dates/ files them by import, in UTC (the tests' TZ).
        self.months = {(moment.strftime("%Y"), moment.strftime("%m")) for moment in (before, after)}
        run_vault(self.vault, "album", "new", ALBUM)
        run_vault(self.vault, "album", "add", ALBUM, "1", "3")
        run_vault(self.vault, "select", "2")
        self.mount = Mount(self.vault, self.folder)
        self.addCleanup(self.mount.close)

    def names(self, *parts):
        return sorted(os.listdir(os.path.join(self.mount.path, *parts)))

    def test_folders_listed_and_read_by_an_ordinary_program(self):
        names = sorted(photo.name for photo in PHOTOS)
        self.assertEqual(self.names(), ["Albums", "Dates", "Photos", "Recently Deleted", "Selected"])
        self.assertEqual(self.names("Recently Deleted"), [])
        self.assertEqual(self.names("Photos"), names)
        self.assertEqual(self.names("Albums"), [ALBUM])
        self.assertEqual(self.names("Albums", ALBUM), sorted([PHOTOS[0].name, PHOTOS[2].name]))
        self.assertEqual(self.names("Selected"), [PHOTOS[1].name])
        years = self.names("Dates")
        self.assertEqual(len(years), 1)
        months = self.names("Dates", years[0])
        self.assertEqual(len(months), 1)
        self.assertIn((years[0], months[0]), self.months)
        self.assertEqual(self.names("Dates", years[0], months[0]), names)
        for photo, path in zip(PHOTOS, self.paths):
            original = os.stat(path)
            shown = os.stat(os.path.join(self.mount.path, "Photos", photo.name))
            self.assertEqual(shown.st_size, original.st_size, photo.name)
            self.assertEqual(int(shown.st_mtime), int(original.st_mtime), photo.name)
            with open(path, "rb") as file, open(os.path.join(self.mount.path, "Photos", photo.name), "rb") as mounted:
                self.assertEqual(mounted.read(), file.read(), photo.name)

    def test_feh_shows_a_mounted_photo_whole_and_upright(self):
        path = os.path.join(self.mount.path, "Photos", LANDSCAPE.name)
        title = f"feh-test-{os.getpid()}"
        window = Window(self.display, self.folder, title, feh_command(title, path))
        self.addCleanup(window.close)
        # feh opens the window at the photo's own size: the photo fills it, and no colour
        # of the other photos in the mount shows.
        others = [photo for photo in PHOTOS if photo is not LANDSCAPE]
        self.look(window, "feh shows the mounted photo",
                  shows_fitted(LANDSCAPE, (LANDSCAPE.width, LANDSCAPE.height), others))


if __name__ == "__main__":
    unittest.main()
