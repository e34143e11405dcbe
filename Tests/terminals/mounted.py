"""A vault mounted with `vault mount DIR --background`, and other programs' windows on the
private display (feh, an image viewer that knows nothing of vault, opening the mount's files)."""
import os
import signal
import subprocess

from display import BINARY, HANG_LIMIT, screenshot, wait_until
from photos import vault_environment


class Mount:
    """`vault mount DIR --background` of the vault at `vault`, DIR being `folder`/`name`;
    `close` unmounts it (`vault unmount`, and a lazy fusermount3 if that failed)."""

    def __init__(self, vault, folder, name="mount"):
        self.vault = vault
        self.path = os.path.join(folder, name)
        os.mkdir(self.path)
        self.log = os.path.join(folder, "mount.log")
        # Not through pipes: the process left in the background could hold them open.
        status = self._vault("mount", self.path, "--background")
        if status != 0:
            raise AssertionError(f"vault mount exited {status}: {self._log_text()}")
        wait_until(lambda: os.path.ismount(self.path), f"{self.path} to be mounted")

    def _vault(self, *arguments):
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.dirname(self.vault),
                       **vault_environment(self.vault)}
        with open(self.log, "ab") as log:
            return subprocess.run([BINARY, *arguments], env=environment, stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT, timeout=HANG_LIMIT).returncode

    def _log_text(self):
        with open(self.log, errors="replace") as log:
            return log.read().strip()

    def close(self):
        if os.path.ismount(self.path) and self._vault("unmount", self.path) != 0:
            subprocess.run(["fusermount3", "-u", "-z", self.path], timeout=HANG_LIMIT)
        wait_until(lambda: not os.path.ismount(self.path), f"{self.path} to be unmounted")


class Window:
    """A program's window on the display, found by its title, at the top-left corner (no
    window manager places it elsewhere); screenshots are cut to it."""

    def __init__(self, display, folder, title, command):
        self.display, self.title = display, title
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": folder, "LANG": "C.UTF-8",
                       "DISPLAY": display.name, "XDG_CONFIG_HOME": os.path.join(folder, "config")}
        self.log = open(os.path.join(folder, f"{title}.log"), "wb")
        self.process = subprocess.Popen(command, env=environment, cwd=folder, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.window = wait_until(self._find, f"the window titled {title}")

    def _xdotool(self, *arguments):
        return subprocess.run(["xdotool", *arguments], env={**os.environ, "DISPLAY": self.display.name},
                              capture_output=True, text=True, timeout=HANG_LIMIT)

    def _find(self):
        if self.process.poll() is not None:
            raise AssertionError(f"{self.title} exited with status {self.process.returncode}; see {self.log.name}")
        found = self._xdotool("search", "--onlyvisible", "--name", f"^{self.title}$").stdout.split()
        return found[0] if found else None

    def geometry(self):
        shell = self._xdotool("getwindowgeometry", "--shell", self.window).stdout
        values = dict(line.split("=") for line in shell.split())
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])

    def screenshot(self):
        left, top, width, height = self.geometry()
        whole = screenshot(self.display)
        return whole.crop(left, top, min(width, whole.width - left), min(height, whole.height - top))

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.log.close()


def feh_command(title, path, *options):
    """feh showing `path` at its own size in a window titled `title`."""
    return ["feh", "--title", title, "--no-menus", *options, path]
