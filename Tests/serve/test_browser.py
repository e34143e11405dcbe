"""A real browser sends photos through `vault serve`'s page, end to end.

Debian's Chromium, headless and driven by selenium, opens the address `vault serve`
prints (accepting its self-signed certificate), chooses a JPEG, a PNG and a HEIC made
here, and waits for the page to say each one was added; then `vault list --json` shows
them and `vault export` gives them back bit for bit. The same photo again must say it is
already in the vault, and a text file must be refused with the server's reason. It runs
in a desktop window and in a phone-sized one (360x740, a phone's user agent), and saves
screenshots of the page after the uploads to SCREENSHOTS (docs/USING.md's come from there:
VAULT_README_SCREENSHOTS=1 copies them to docs/images).

The test is skipped only when Chromium cannot start on this machine; scripts/test
installs chromium, chromium-driver (scripts/deps.sh) and selenium first.

A second test chooses an MP4 made by FFmpeg in the phone window: it is added as a video
(`kind` video, its duration) and exported bit for bit.
"""

import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

# A shell that runs the tests in the background (no job control) starts them with SIGINT
# ignored, and children inherit an ignored signal: vault serve would then keep ignoring
# Ctrl-C, as a program started with it ignored should. A handler set here is reset to the
# default in every child, so the server under test gets SIGINT as it does on a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = None

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(tempfile.gettempdir()) / "vault-browser-screenshots"
PASSWORD = "correct horse battery"
# Generous: a loaded 2-core CI machine decodes, thumbnails and encrypts each photo.
WAIT_SECONDS = 180
SETTLED_STATES = ("added", "duplicate", "refused", "failed")
PHONE = {
    "deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 2.0, "mobile": True, "touch": True},
    "userAgent": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
    ),
}
DESKTOP_WINDOW = "1100,1000"


def vault_binary():
    """$VAULT_BINARY, else the debug build (as test_http.py)."""
    binary = Path(os.environ.get("VAULT_BINARY") or ROOT / ".build" / "debug" / "vault")
    if not binary.exists():
        raise RuntimeError(f"{binary} is missing: run swift build first (scripts/test does)")
    return str(binary)


def run(command, **options):
    return subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, **options)


def make_photos(folder):
    """A JPEG, a PNG and a HEIC of noise (so they compress poorly and take a moment to
    send), and a text file that is no photo."""
    noise = folder / "noise.v"
    steps = [
        ["vips", "gaussnoise", str(folder / "float.v"), "1600", "1200", "--mean", "128", "--sigma", "50"],
        ["vips", "cast", str(folder / "float.v"), str(folder / "gray.v"), "uchar"],
        ["vips", "bandjoin", " ".join([str(folder / "gray.v")] * 3), str(noise)],
        ["vips", "copy", str(noise), str(folder / "IMG_0001.JPG") + "[Q=85]"],
        ["vips", "copy", str(noise), str(folder / "IMG_0002.PNG")],
        ["vips", "resize", str(noise), str(folder / "small.jpg"), "0.4"],
        ["heif-enc", "--quality", "50", "--output", str(folder / "IMG_0003.HEIC"), str(folder / "small.jpg")],
    ]
    for step in steps:
        result = run(step)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(step)} failed: {result.stderr.strip()}")
    (folder / "notes.txt").write_text("a shopping list, not a photo\n")
    return [folder / "IMG_0001.JPG", folder / "IMG_0002.PNG", folder / "IMG_0003.HEIC"], folder / "notes.txt"


def quit_quietly(driver):
    try:
        driver.quit()
    except Exception:
        pass  # already quit, or Chromium died: nothing is left to close


class Server:
    """A running `vault serve`, its stdout read line by line as it comes."""

    def __init__(self, binary, environment, folder):
        self.errors = folder / "serve.stderr"
        self.error_file = self.errors.open("w")
        self.process = subprocess.Popen(
            [binary, "serve", "--bind", "127.0.0.1"],
            env=environment,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.error_file,
            text=True,
        )
        self.lines = []
        self.arrivals = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.arrivals.put(line.rstrip("\n"))
        self.arrivals.put(None)

    def wait_for_line(self, prefix):
        """The first line, seen so far or still to come, that starts with prefix."""
        while True:
            for line in self.lines:
                if line.startswith(prefix):
                    return line
            try:
                line = self.arrivals.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                raise AssertionError(f"vault serve never printed {prefix!r}; it printed {self.lines}")
            if line is None:
                raise AssertionError(
                    f"vault serve ended before printing {prefix!r}: {self.lines} {self.errors.read_text()}"
                )
            self.lines.append(line)

    def stop(self):
        """Ctrl-C, as a user stops it; returns its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("vault serve did not stop on SIGINT")
        finally:
            self.reader.join()
            self.process.stdout.close()
            self.error_file.close()


class BrowserUploadTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if webdriver is None:
            raise RuntimeError("selenium is missing: scripts/test installs it (or: pip install selenium)")
        for program in ("chromium", "chromedriver", "heif-enc", "vips"):
            if shutil.which(program) is None:
                raise RuntimeError(f"{program} is missing: scripts/test installs it (scripts/deps.sh)")
        cls.binary = vault_binary()
        cls.photos_folder = Path(tempfile.mkdtemp(prefix="vault-browser-photos-"))
        cls.photos, cls.text_file = make_photos(cls.photos_folder)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.photos_folder, ignore_errors=True)

    def test_desktop_window(self):
        self.send_photos_through_the_page("desktop")

    def test_phone_window(self):
        self.send_photos_through_the_page("phone")

    def new_vault(self, folder):
        """A vault made in `folder` (its own environment) and a function that runs `vault`
        there, checks its status and returns what it printed."""
        environment = {
            name: value
            for name, value in os.environ.items()
            if name not in ("VAULT_PASSWORD", "VAULT_DIR", "XDG_DATA_HOME", "VAULT_LOCK_WAIT")
        }
        environment.update(VAULT_DIR=str(folder / "vault"), VAULT_PASSWORD=PASSWORD, TZ="UTC", NO_COLOR="1")

        def vault(*arguments):
            result = run([self.binary, *arguments], env=environment, cwd=folder)
            self.assertEqual(result.returncode, 0, f"vault {' '.join(arguments)}: {result.stderr}")
            return result.stdout

        vault("init", "--kdf", "interactive")
        return environment, vault

    def send_photos_through_the_page(self, window):
        folder = Path(tempfile.mkdtemp(prefix=f"vault-browser-{window}-"))
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        environment, vault = self.new_vault(folder)
        server = Server(self.binary, environment, folder)
        self.addCleanup(server.stop)
        address = server.wait_for_line("address: ").removeprefix("address: ")
        self.assertTrue(address.startswith("https://127.0.0.1:"), address)
        server.wait_for_line("certificate SHA-256: ")

        driver = self.start_chromium(window, folder)
        self.addCleanup(quit_quietly, driver)
        driver.get(address)
        self.assertEqual(driver.title, "Send photos to your vault")

        self.choose(driver, self.photos)
        outcomes = self.wait_for_outcomes(driver, len(self.photos))
        self.assertEqual(outcomes, [(photo.name, "added", "Added") for photo in self.photos])
        self.assertEqual(driver.find_element(By.ID, "batch-text").text, "3 photos: 3 added")
        for photo in self.photos:
            server.wait_for_line(f"added {photo.name} (")

        listed = json.loads(vault("list", "--json"))
        self.assertEqual(
            sorted((entry["name"], entry["bytes"]) for entry in listed),
            sorted((photo.name, photo.stat().st_size) for photo in self.photos),
        )
        vault("export", "--all", "--to", str(folder / "exported"))
        for photo in self.photos:
            self.assertEqual(
                (folder / "exported" / photo.name).read_bytes(), photo.read_bytes(), f"{photo.name} exported"
            )

        self.choose(driver, [self.photos[0], self.text_file])
        outcomes = self.wait_for_outcomes(driver, len(self.photos) + 2)
        self.assertEqual(outcomes[-2], (self.photos[0].name, "duplicate", "Already in the vault"))
        server.wait_for_line(f"already in the vault: {self.photos[0].name}")
        name, state, text = outcomes[-1]
        self.assertEqual((name, state), (self.text_file.name, "refused"))
        # The page shows the reason the server gives, the one it prints too.
        reason = server.wait_for_line(f"refused {self.text_file.name}: ").split(": ", 1)[1]
        self.assertEqual(text, "Refused: " + reason)
        self.assertEqual(
            driver.find_element(By.ID, "batch-text").text, "5 photos: 3 added, 1 already in the vault, 1 refused"
        )
        self.assertEqual(len(json.loads(vault("list", "--json"))), len(self.photos))

        self.assertEqual(self.page_problems(driver), [])
        self.save_screenshots(driver, window)
        quit_quietly(driver)
        self.assertEqual(server.stop(), 0, server.errors.read_text())
        server.wait_for_line("received ")

    def test_phone_window_sends_a_video(self):
        """An MP4 made by FFmpeg, chosen in the phone window's picker (which offers videos),
        is added as a video and comes back bit for bit."""
        folder = Path(tempfile.mkdtemp(prefix="vault-browser-video-"))
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        clip = folder / "VID_0001.MP4"
        made = run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=duration=3:size=640x360:rate=30",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", str(clip)])
        self.assertEqual(made.returncode, 0, made.stderr)
        environment, vault = self.new_vault(folder)
        server = Server(self.binary, environment, folder)
        self.addCleanup(server.stop)
        address = server.wait_for_line("address: ").removeprefix("address: ")
        driver = self.start_chromium("phone", folder)
        self.addCleanup(quit_quietly, driver)
        driver.get(address)
        accepted = driver.find_element(By.ID, "files").get_attribute("accept").split(",")
        for kind in ("video/mp4", "video/quicktime", ".m4v", ".gif", ".webp", ".avif"):
            self.assertIn(kind, accepted)
        self.choose(driver, [clip])
        self.assertEqual(self.wait_for_outcomes(driver, 1), [(clip.name, "added", "Added")])
        server.wait_for_line(f"added {clip.name} (")
        [listed] = json.loads(vault("list", "--json"))
        self.assertEqual((listed["name"], listed["kind"], listed["bytes"]), (clip.name, "video", clip.stat().st_size))
        self.assertAlmostEqual(listed["duration"], 3, delta=0.1)
        vault("export", "--all", "--to", str(folder / "exported"))
        self.assertEqual((folder / "exported" / clip.name).read_bytes(), clip.read_bytes())
        self.assertEqual(self.page_problems(driver), [])
        quit_quietly(driver)
        self.assertEqual(server.stop(), 0, server.errors.read_text())

    def start_chromium(self, window, folder):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for argument in (
            "--headless=new",
            # Chromium's sandbox does not start as root or in most CI containers.
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--no-proxy-server",
            "--no-first-run",
            "--ignore-certificate-errors",
            f"--user-data-dir={folder / 'chromium-profile'}",
        ):
            options.add_argument(argument)
        options.accept_insecure_certs = True
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        if window == "phone":
            options.add_experimental_option("mobileEmulation", PHONE)
        else:
            options.add_argument(f"--window-size={DESKTOP_WINDOW}")
        service = Service(executable_path=shutil.which("chromedriver"), log_output=str(folder / "chromedriver.log"))
        try:
            return webdriver.Chrome(service=service, options=options)
        except WebDriverException as error:
            reason = (error.msg or str(error)).strip().splitlines()[0].split("; For documentation")[0]
            message = f"Chromium cannot start on this machine, so no browser test: {reason}"
            # Under CI, where scripts/test installed Chromium, that is a broken set-up.
            if os.environ.get("CI") == "true":
                raise AssertionError(message)
            raise unittest.SkipTest(message)

    def choose(self, driver, files):
        # What a user's choice in the file dialog does: the input's files change.
        driver.find_element(By.ID, "files").send_keys("\n".join(str(file) for file in files))

    def outcomes(self, driver):
        return [
            (
                item.get_attribute("data-name"),
                item.get_attribute("data-state"),
                item.find_element(By.CLASS_NAME, "outcome").text,
            )
            for item in driver.find_elements(By.CSS_SELECTOR, "#uploads li")
        ]

    def wait_for_outcomes(self, driver, count):
        """The outcome of each file sent from the page, once there are count and all are
        settled."""

        def settled(driver):
            outcomes = self.outcomes(driver)
            if len(outcomes) == count and all(state in SETTLED_STATES for _, state, _ in outcomes):
                return outcomes
            return False

        try:
            return WebDriverWait(driver, WAIT_SECONDS).until(settled)
        except TimeoutException:
            self.fail(f"the page never showed {count} outcomes; it shows {self.outcomes(driver)}")

    def page_problems(self, driver):
        """What the browser's console says went wrong on the page: a script error or
        anything the Content-Security-Policy blocked. (A refused upload's status shows
        there too, as a network error: that one is expected.)"""
        return [
            entry["message"]
            for entry in driver.get_log("browser")
            if (entry.get("source") != "network" and entry["level"] in ("SEVERE", "WARNING"))
            or "Content Security Policy" in entry["message"]
        ]

    def save_screenshots(self, driver, window):
        SCREENSHOTS.mkdir(exist_ok=True)
        driver.execute_script("window.scrollTo(0, 0)")
        for scheme in ("light", "dark"):
            driver.execute_cdp_cmd(
                "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
            )
            suffix = "" if scheme == "light" else "-dark"
            self.assertTrue(driver.save_screenshot(str(SCREENSHOTS / f"serve-{window}{suffix}.png")))
        print(f"\nscreenshots of the page ({window}): {SCREENSHOTS}/serve-{window}*.png", flush=True)
        if os.environ.get("VAULT_README_SCREENSHOTS"):
            shutil.copyfile(SCREENSHOTS / f"serve-{window}.png", ROOT / "docs" / "images" / f"serve-{window}.png")


if __name__ == "__main__":
    unittest.main()
