"""What the real-terminal tests share: a private X display, a terminal window in it, the keys
sent to that window, screenshots of it and the checks a person makes when looking at them.

Standard library only. Screenshots are taken with ImageMagick (`import -window root`) and read
as binary PPM. Nothing waits a fixed time: every wait polls screenshots (or a file) until its
condition holds, and gives up only after HANG_LIMIT, which only a hang reaches."""
import os
import shutil
import subprocess
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("VAULT_BINARY") or os.path.join(ROOT, ".build", "debug", "vault")
PASSWORD = "correct horse battery"
# Long enough for a loaded 2-core CI machine; a test that passes never waits this long.
HANG_LIMIT = float(os.environ.get("TERMINAL_TESTS_HANG_LIMIT", "60"))
# The X screen holds the largest window the tests open (xterm at 160 columns).
SCREEN_SIZE = (1600, 1000)
TOOLS = ("Xvfb", "xdotool", "import", "convert")


def require_tools(*tools):
    """Skips the test when a tool is missing, but fails it under CI (CI=true), where
    scripts/test has installed every one: a missing tool there is a broken set-up."""
    missing = [tool for tool in (*TOOLS, *tools) if shutil.which(tool) is None]
    if not missing:
        return
    message = f"not installed: {', '.join(missing)} (scripts/test installs them)"
    if os.environ.get("CI") == "true":
        raise AssertionError(message)
    raise unittest.SkipTest(message)


def wait_until(condition, what, limit=HANG_LIMIT):
    """Polls `condition` until it returns a true value, which it returns; fails naming `what`."""
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {limit:.0f} s waiting for {what}")
        time.sleep(0.05)


class Display:
    """A private Xvfb; `-displayfd` makes it choose a free display number and say which."""

    def __init__(self):
        read_end, write_end = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{SCREEN_SIZE[0]}x{SCREEN_SIZE[1]}x24",
             "-nolisten", "tcp", "-noreset"],
            pass_fds=(write_end,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        number = b""
        with os.fdopen(read_end, "rb") as answer:
            # Xvfb writes the number once it accepts clients; an empty read means it died.
            number = answer.readline().strip()
        if not number:
            self.process.wait(timeout=HANG_LIMIT)
            raise AssertionError(f"Xvfb did not start (status {self.process.returncode})")
        self.name = f":{number.decode()}"

    def close(self):
        self.process.kill()
        self.process.wait()


class Image:
    """A screenshot: width, height and RGB bytes, row by row."""

    def __init__(self, ppm):
        fields, position = [], 0
        while len(fields) < 4:
            while ppm[position:position + 1].isspace():
                position += 1
            if ppm[position:position + 1] == b"#":
                position = ppm.index(b"\n", position)
                continue
            end = position
            while not ppm[end:end + 1].isspace():
                end += 1
            fields.append(ppm[position:end])
            position = end
        if fields[0] != b"P6" or fields[3] != b"255":
            raise AssertionError(f"not an 8-bit binary PPM: {fields}")
        self.width, self.height = int(fields[1]), int(fields[2])
        self.pixels = ppm[position + 1:]
        self.ppm = ppm

    def pixel(self, x, y):
        offset = (y * self.width + x) * 3
        return tuple(self.pixels[offset:offset + 3])

    def crop(self, left, top, width, height):
        rows = [self.pixels[((top + y) * self.width + left) * 3:((top + y) * self.width + left + width) * 3]
                for y in range(height)]
        return Image(b"P6\n%d %d\n255\n" % (width, height) + b"".join(rows))

    def save_png(self, path):
        subprocess.run(["convert", "ppm:-", path], input=self.ppm, check=True)


def screenshot(display):
    """The whole X screen as it is now."""
    shot = subprocess.run(["import", "-display", display.name, "-window", "root", "-depth", "8", "ppm:-"],
                          capture_output=True, check=True, timeout=HANG_LIMIT)
    return Image(shot.stdout)
