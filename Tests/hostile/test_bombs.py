#!/usr/bin/env python3
"""Issue 31's crafted files (bombs.py) against the built binary: `vault add`, `vault serve`
and `vault view` refuse each one in one line naming the file and the limit it hit, with
the memory of the whole process tree (decoder helpers included, read from /proc) within
the sandbox's bound, and go on with the good photo next to it.

Run from the repository: `python3 -m unittest discover -s Tests/hostile -p 'test_*.py' -v`
(scripts/test does, after the XCTest run). The binary is $VAULT_BINARY, else
.build/debug/vault. Needs ffmpeg (the real video inside each bomb, the good photo), curl
(uploads over HTTP/2) and tmux (the viewer); with CI=true a missing one fails the tests.

Each run prints, per bomb and command, the tree's peak RSS and the seconds it took; the
tree is killed once it passes its bound (VAULT_TEST_KILL_AT_MIB raises that ceiling, to
measure how far a build without bounds goes). Times are not asserted but against a
ceiling only a hang reaches."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "serve"))
import bombs  # noqa: E402
from process_tree import PeakMemory, tree  # noqa: E402
from test_http import BINARY, Server, listed, make_vault, vault_environment  # noqa: E402

MIB = 1 << 20
# What the sandbox promises (docs/SECURITY.md, "Hostile files"): each decoder helper runs under RLIMIT_AS of 512 MiB,
# so its RSS stays below that; the parent, which never decodes, holds the space's index,
# the key derivation's memory (64 MiB for `interactive`) and the files in flight, well
# under 200 MiB for these small files.
HELPER_MIB = 512
PARENT_MIB = 200
# `add` runs one helper per core (os.cpu_count() is at least what vault counts); `serve`
# a bounded pool, no larger; `view` one for its pictures and one for playback.
HELPERS = {"add": os.cpu_count() or 1, "serve": os.cpu_count() or 1, "view": 2}
# Only a hang takes this long, however loaded the machine.
PATIENCE = 300
# A build from before the sandbox, which still imports the fragment bomb: the only way to
# put a bomb where the viewer meets it (an older vault's import, or a synced peer's).
PLANTING_BINARY = os.environ.get("VAULT_PLANTING_BINARY")

# FFmpeg opens this one within the helper's memory: the index it cannot allocate under
# the helper's allocation limit is dropped without an error, and the video's own track is
# read. It is imported (its thumbnail is the real track's), within the bound; refusing it
# would take a check of every stream's index against the samples its header declares.
BOUNDED_NOT_REFUSED = {"compressed-header.mp4"}

MEASURED = []


def named_limit(bomb):
    """What the refusal of `bomb` names: the limit it hit (issue 31: "one line naming the
    file and the limit"), memory for a video, pixels for a still."""
    return "MiB" if bomb in bombs.VIDEO_BOMBS else "megapixels"


def bound(command):
    return HELPERS[command] * HELPER_MIB + PARENT_MIB


def kill_ceiling(command):
    raised = os.environ.get("VAULT_TEST_KILL_AT_MIB")
    return max(bound(command), int(raised) if raised else 0) * MIB


def require(tool):
    if shutil.which(tool):
        return
    if os.environ.get("CI") == "true":
        raise AssertionError(f"{tool} is missing: scripts/deps.sh installs it")
    raise unittest.SkipTest(f"{tool} is not installed")


class Files:
    """The bombs and a good photo, written once per run into a temporary folder."""
    folder = None
    bombs = {}

    @classmethod
    def make(cls):
        require("ffmpeg")
        cls.folder = tempfile.mkdtemp(prefix="vault-bombs-")
        base, cls.good = os.path.join(cls.folder, "base.mp4"), os.path.join(cls.folder, "good.jpg")
        ffmpeg = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i"]
        subprocess.run([*ffmpeg, "testsrc2=duration=1:size=160x120:rate=10", "-c:v", "libx264",
                        "-pix_fmt", "yuv420p", base], check=True, stdin=subprocess.DEVNULL)
        subprocess.run([*ffmpeg, "testsrc2=size=640x480", "-frames:v", "1", cls.good], check=True,
                       stdin=subprocess.DEVNULL)
        bombs_folder = os.path.join(cls.folder, "bombs")
        os.mkdir(bombs_folder)
        cls.bombs = bombs.write_all(base, bombs_folder)
        with open(base, "rb") as file:
            # Fewer hostile tracks than the table's, so that planting it with a build
            # without bounds takes about 3.5 GB rather than 7.
            cls.planted = os.path.join(cls.folder, "planted.mp4")
            with open(cls.planted, "wb") as planted:
                planted.write(bombs.fragment_bomb(file.read(), 20))


def setUpModule():
    Files.make()


def tearDownModule():
    if Files.folder:
        shutil.rmtree(Files.folder, ignore_errors=True)
    print("\nbomb, command: peak RSS of the process tree (bound), seconds", file=sys.stderr)
    for line in MEASURED:
        print("  " + line, file=sys.stderr)


def record(bomb, command, peak, seconds, killed, outcome):
    line = (f"{bomb}, {command}: {peak / MIB:,.0f} MiB (bound {bound(command)} MiB = {HELPERS[command]} helpers"
            f" × {HELPER_MIB} + {PARENT_MIB}), {seconds:.1f} s, "
            f"{'KILLED at the ceiling' if killed else outcome}")
    MEASURED.append(line)
    print(f"\n  {line}", file=sys.stderr)


class BombTestCase(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="vault-bombs-test-")
        self.vault = make_vault(self.folder)

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def assert_within_bound(self, bomb, command, monitor, outcome):
        """Stops `monitor`, prints what it saw and what `command` answered (`outcome`), and
        asserts that the tree stayed within its bound."""
        peak, seconds = monitor.stop()
        record(bomb, command, peak, seconds, monitor.killed, outcome)
        self.assertFalse(monitor.killed, f"{command} of {bomb} was killed at {peak / MIB:,.0f} MiB")
        self.assertLess(peak, bound(command) * MIB, f"{command} of {bomb}: peak {peak / MIB:,.0f} MiB")


class AddTests(BombTestCase):
    def run_add(self, bomb, *paths):
        """`vault add PATHS` under the memory monitor: (status, stderr)."""
        process = subprocess.Popen(
            [BINARY, "add", *paths], env=vault_environment(self.vault), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        monitor = PeakMemory(process.pid, kill_ceiling("add"))
        hung = False
        try:
            _, err = process.communicate(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            hung = True
            for pid in tree(process.pid):
                os.kill(pid, signal.SIGKILL)
            _, err = process.communicate()
        named = [line for line in err.splitlines() if bomb in line]
        self.assert_within_bound(bomb, "add", monitor, f"exit {process.returncode}: {' / '.join(named) or err}")
        self.assertFalse(hung, f"vault add of {bomb} hung for {PATIENCE} s: {err}")
        return process.returncode, err

    def check_add(self, name):
        status, err = self.run_add(name, Files.bombs[name], Files.good)
        if name in BOUNDED_NOT_REFUSED:
            self.assertEqual(status, 0, err)
            self.assertEqual(sorted(photo["name"] for photo in listed(self.vault)), sorted(["good.jpg", name]))
            return
        self.assertNotIn(status, (0, -9), err)
        named = [line for line in err.splitlines() if name in line]
        self.assertEqual(len(named), 1, f"one line names {name}:\n{err}")
        self.assertIn(named_limit(name), named[0])
        self.assertNotIn("good.jpg", err)
        self.assertEqual([photo["name"] for photo in listed(self.vault)], ["good.jpg"])


class ServeTests(BombTestCase):
    def upload(self, server, path, name):
        """(HTTP status, answer) of an upload of `path` by curl over HTTP/2; status 0 when
        the connection failed."""
        run = subprocess.run(["curl", "-sk", "--http2", "--data-binary", f"@{path}", "-w", " %{http_code}",
                              server.address + "upload?name=" + name], capture_output=True, text=True,
                             timeout=PATIENCE)
        answer, _, status = run.stdout.rpartition(" ")
        try:
            return int(status), json.loads(answer)
        except ValueError:
            return 0, run.stdout + run.stderr

    def check_serve(self, name):
        require("curl")
        server = Server(self.vault)
        try:
            monitor = PeakMemory(server.process.pid, kill_ceiling("serve"))
            status, answer = self.upload(server, Files.bombs[name], name)
            self.assert_within_bound(name, "serve", monitor, f"HTTP {status} {answer}")
            if name in BOUNDED_NOT_REFUSED:
                self.assertEqual(status, 201, answer)
                self.assertEqual(self.upload(server, Files.good, "good.jpg")[0], 201)
                self.assertEqual(server.stop(), 0)
                return
            self.assertTrue(400 <= status < 500 and answer["outcome"] == "refused", (status, answer))
            self.assertIn(named_limit(name), answer["reason"])
            server.wait_for(lambda line: line.startswith(f"refused {name}: "))
            # It keeps serving.
            self.assertEqual(self.upload(server, Files.good, "good.jpg")[0], 201)
            self.assertEqual(server.stop(), 0)
        finally:
            server.close()
        self.assertEqual([photo["name"] for photo in listed(self.vault)], ["good.jpg"])


class ViewTests(BombTestCase):
    """The viewer meets a bomb in the space: it shows it (or an error on it), keeps browsing,
    and quits cleanly, within the bound. The bomb is the fragment bomb imported by an older
    build without bounds when VAULT_PLANTING_BINARY names one (an older vault's import, or
    a synced peer's); else the compressed-header bomb, which the build under test imports
    within its bound (BOUNDED_NOT_REFUSED), so that CI always runs this test."""

    def plant(self):
        """The bomb's name in the space, once imported."""
        if not PLANTING_BINARY:
            name = "compressed-header.mp4"
            subprocess.run([BINARY, "add", Files.bombs[name]], env=vault_environment(self.vault), check=True,
                           capture_output=True, timeout=PATIENCE)
            return name
        process = subprocess.Popen([PLANTING_BINARY, "add", Files.planted], env=vault_environment(self.vault),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        # Planting takes what a build without bounds takes; the ceiling only guards the machine.
        monitor = PeakMemory(process.pid, 6 << 30)
        _, err = process.communicate(timeout=PATIENCE)
        monitor.stop()
        self.assertEqual(process.returncode, 0, f"the planting build did not import the bomb: {err}")
        return "planted.mp4"

    def screen(self, socket):
        return subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-J"], capture_output=True,
                              text=True).stdout

    def wait_for(self, socket, what, condition, monitor):
        """The screen once `condition` holds for it; fails when the viewer was killed."""
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline and not monitor.killed:
            shown = self.screen(socket)
            if condition(shown):
                return shown
            time.sleep(0.05)
        self.fail(f"never on the screen: {what}:\n{shown}")

    def viewer_process(self, socket):
        """The pid of vault started by the shell in the tmux pane, once it runs."""
        pane = int(subprocess.run(["tmux", "-L", socket, "display", "-p", "#{pane_pid}"], capture_output=True,
                                  text=True, check=True).stdout)
        binary = os.path.realpath(BINARY)
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            for pid in tree(pane):
                try:
                    if os.readlink(f"/proc/{pid}/exe") == binary:
                        return pid
                except OSError:
                    pass
            time.sleep(0.01)
        self.fail("vault view never started")

    def start_viewer(self, bomb):
        """Starts `vault view` on `bomb`, with the good photo next to it, in a tmux pane: the
        tmux socket's name and the bomb's number in the listing."""
        subprocess.run([BINARY, "add", Files.good], env=vault_environment(self.vault), check=True,
                       capture_output=True, timeout=PATIENCE)
        bomb_number = 1 + [photo["name"] for photo in listed(self.vault)].index(bomb)
        socket = f"vault-bombs-{uuid.uuid4()}"
        self.addCleanup(subprocess.run, ["tmux", "-L", socket, "kill-server"], capture_output=True)
        script = f"'{BINARY}' view --mode symbols {bomb_number}; echo \"exit status $?\"; sleep 600"
        subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-x", "100", "-y", "40", script],
                       env={**vault_environment(self.vault), "TERM": "xterm-256color"}, check=True)
        return socket, bomb_number

    def browse_on_and_quit(self, socket, bomb_number, monitor):
        """Goes from the bomb to the good photo, then quits; asserts a clean exit."""
        subprocess.run(["tmux", "-L", socket, "send-keys", "Right" if bomb_number == 1 else "Left"])
        self.wait_for(socket, "the good photo", lambda shown: "good.jpg" in shown, monitor)
        subprocess.run(["tmux", "-L", socket, "send-keys", "-l", "q"])
        shown = self.wait_for(socket, "the viewer's end", lambda shown: "exit status" in shown, monitor)
        self.assertIn("exit status 0", shown)

    def test_the_viewer_shows_a_bomb_in_the_space_and_keeps_browsing(self):
        require("tmux")
        bomb = self.plant()
        socket, bomb_number = self.start_viewer(bomb)
        monitor = PeakMemory(self.viewer_process(socket), kill_ceiling("view"))
        seen = None
        try:
            # The status line names the item shown (an error on it names it in quotes).
            shown = self.wait_for(socket, "the bomb's name", lambda shown: bomb in shown, monitor)
            seen = " / ".join(line.strip() for line in shown.splitlines() if bomb in line)
            self.browse_on_and_quit(socket, bomb_number, monitor)
        finally:
            self.assert_within_bound(bomb, "view", monitor, seen or self.screen(socket))

    def test_playing_the_bomb_stays_within_the_bound_and_the_viewer_keeps_browsing(self):
        """Enter on the bomb plays it (in the playback helper, issue 31 finding A1): the tree
        stays within the bound, and the viewer shows the video playing or an error on it,
        then browses on and quits cleanly."""
        require("tmux")
        bomb = self.plant()
        socket, bomb_number = self.start_viewer(bomb)
        monitor = PeakMemory(self.viewer_process(socket), kill_ceiling("view"))
        seen = None
        try:
            self.wait_for(socket, "the bomb's page", lambda shown: bomb in shown and "Enter: play" in shown, monitor)
            subprocess.run(["tmux", "-L", socket, "send-keys", "Enter"])

            def played_or_refused(shown):
                # Played to its end (it stays on its last frame, paused: "‖ 0:01 / 0:01"; "▶"
                # shows from the keypress on, before any frame), or the error on the bomb,
                # which names it in quotes.
                return "‖ 0:" in shown or f"'{bomb}'" in shown

            shown = self.wait_for(socket, "the bomb played to its end, or an error on it", played_or_refused,
                                  monitor)
            seen = " / ".join(line.strip() for line in shown.splitlines() if bomb in line)
            if "‖ 0:" in seen:
                # Playing (keys other than these do nothing meanwhile): q stops it.
                subprocess.run(["tmux", "-L", socket, "send-keys", "-l", "q"])
                self.wait_for(socket, "the bomb's page again", lambda shown: "Enter: play" in shown, monitor)
            self.browse_on_and_quit(socket, bomb_number, monitor)
        finally:
            self.assert_within_bound(bomb, "view", monitor, f"played: {seen or self.screen(socket)}")


def add_tests(names):
    """One test per bomb and command, so that each is reported (and can be run) on its own."""
    for name in names:
        slug = name.replace("-", "_").replace(".", "_")
        setattr(AddTests, f"test_add_refuses_{slug}", lambda self, name=name: self.check_add(name))
        setattr(ServeTests, f"test_serve_refuses_{slug}", lambda self, name=name: self.check_serve(name))


add_tests(bombs.NAMES)

if __name__ == "__main__":
    unittest.main()
