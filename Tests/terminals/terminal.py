"""A real terminal window on the private display, running one command through a shell that
stays after it ends (so a screenshot after `q` shows what the program left), with keys sent
by xdotool and screenshots cut to the window."""
import os
import shlex
import signal
import subprocess

from display import BINARY, HANG_LIMIT, screenshot, wait_until

# kitty's default font at a fixed size; `--config NONE` keeps any kitty.conf out.
KITTY_FONT_SIZE = 10


def kitty_command(title, columns=120, rows=40):
    return ["kitty", "--config", "NONE", "--title", title, "-o", f"font_size={KITTY_FONT_SIZE}",
            "-o", f"initial_window_width={columns}c", "-o", f"initial_window_height={rows}c",
            "-o", "remember_window_size=no", "-o", "window_padding_width=0", "-o", "placement_strategy=top-left",
            "-o", "cursor_blink_interval=0", "-o", "confirm_os_window_close=0", "-o", "update_check_interval=0"]


def xterm_command(title, columns=120, rows=48):
    """xterm as a VT340 (sixel graphics) with an outline font big enough that 160 columns are
    wider than xterm's largest sixel image (1000 pixels by default), as on a desktop."""
    return ["xterm", "-ti", "vt340", "-title", title, "-geometry", f"{columns}x{rows}+0+0",
            "-fa", "Monospace", "-fs", "8", "-bg", "black", "-fg", "white",
            "-xrm", "XTerm*allowTitleOps: false", "-xrm", "XTerm*allowSendEvents: true",
            "-xrm", "XTerm*cursorBlink: false", "-e"]


def mlterm_command(title, columns=120, rows=40):
    """mlterm (sixel graphics), without its scroll bar."""
    return ["mlterm", "--title", title, "--geometry", f"{columns}x{rows}+0+0", "--fontsize", "14",
            "--bg", "black", "--fg", "white", "--sbmod", "none", "-e"]


class Terminal:
    """`launcher` (one of the *_command lists) running `vault ARGUMENTS` in `vault_dir`."""

    def __init__(self, display, folder, launcher, title, vault_environment, arguments, binary=BINARY):
        self.display = display
        self.title = title
        self.exit_file = os.path.join(folder, f"{title}.exit")
        # The shell records vault's status, then stays, so the window stays open after `q`.
        script = f'"$0" "$@"; echo $? > {shlex.quote(self.exit_file)}; exec sleep 3600'
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": folder, "LANG": "C.UTF-8",
            "DISPLAY": display.name, "XDG_CONFIG_HOME": os.path.join(folder, "config"),
            "XDG_CACHE_HOME": os.path.join(folder, "cache"), **vault_environment}
        self.log = open(os.path.join(folder, f"{title}.log"), "wb")
        self.process = subprocess.Popen(
            [*launcher, "sh", "-c", script, binary, *arguments], env=environment, cwd=folder,
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.window = wait_until(self._find_window, f"the window titled {title}")
        self.left, self.top, self.width, self.height = self._geometry()

    def _xdotool(self, *arguments):
        return subprocess.run(["xdotool", *arguments], env={**os.environ, "DISPLAY": self.display.name},
                              capture_output=True, text=True, timeout=HANG_LIMIT)

    def _find_window(self):
        if self.process.poll() is not None:
            raise AssertionError(f"{self.title} exited with status {self.process.returncode}; see {self.log.name}")
        found = self._xdotool("search", "--onlyvisible", "--name", f"^{self.title}$").stdout.split()
        if not found:
            return None
        # The window is ready once it is mapped and has the size the terminal asked for.
        self.window = found[0]
        return found[0] if self._geometry()[2] > 100 and self._geometry()[3] > 100 else None

    def _geometry(self):
        shell = self._xdotool("getwindowgeometry", "--shell", self.window).stdout
        values = dict(line.split("=") for line in shell.split())
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])

    def keys(self, *names):
        """Presses each key in turn (xdotool's names: question, Escape, plus, Right)."""
        for name in names:
            result = self._xdotool("key", "--window", self.window, name)
            if result.returncode != 0:
                raise AssertionError(f"xdotool key {name} failed: {result.stderr}")

    def screenshot(self):
        """What the window shows now (from a screenshot of the whole display)."""
        self.left, self.top, self.width, self.height = self._geometry()
        whole = screenshot(self.display)
        return whole.crop(self.left, self.top, min(self.width, whole.width - self.left),
                          min(self.height, whole.height - self.top))

    def exit_status(self):
        """vault's exit status once it has ended, else None."""
        try:
            with open(self.exit_file) as file:
                text = file.read().strip()
            return int(text) if text else None
        except FileNotFoundError:
            return None

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.log.close()
