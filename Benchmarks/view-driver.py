#!/usr/bin/env python3
"""Drives `vault view` through a pseudo-terminal with scripted keys and times what it draws.

Every frame vault view draws ends with its status line (reverse video, on the last row); a
photo whose original is not decoded yet says "loading…" there. So the time a photo is on
screen is when its status line arrives without "loading…".

Measured, each against a baseline taken in the same run (alternating, medians of RUNS):
  - first photo: `vault view 1` from start to photo 1's original on screen, minus
    `vault list --count 1` on the same vault (start, key derivation, opening the space);
    target <= 200 ms, in kitty and in symbols mode;
  - next photo when prefetched: `n` after the neighbour had time to decode, to photo 2 on
    screen; target <= 50 ms;
  - a zoom (`+`) and a pan (→ when zoomed) in kitty mode, key to frame; target <= 20 ms;
  - paging through every photo (`n` as each appears), peak memory (max RSS) minus
    `vault list --count 1`'s (the key derivation's memory); target <= 300 MB.
Usage: Benchmarks/view-driver.py VAULT_BINARY COUNT RUNS   (VAULT_DIR and VAULT_PASSWORD set)"""
import fcntl
import os
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time

STATUS = re.compile(rb"\x1b\[2K\x1b\[7m([^\x1b]*)\x1b\[27m")
# A kitty command's keys (up to the payload): an upload through a file (t=f), a temporary
# file (t=t) or shared memory (t=s) would leave pixels readable by other processes.
KITTY_KEYS = re.compile(rb"\x1b_G([^;\x1b]*)")
KITTY_UPLOADS = {"direct": 0, "other": 0}
COLUMNS, ROWS, CELL_WIDTH, CELL_HEIGHT = 160, 48, 10, 20


def start_view(vault, arguments, environment, window_size):
    """`vault view ARGUMENTS` on a new pty of `window_size` (struct winsize) as its controlling
    terminal: (the pty's master, the process, the time it was started)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, window_size)
    start = time.monotonic()
    process = subprocess.Popen(
        [vault, "view"] + arguments, stdin=slave, stdout=slave, stderr=slave, env=environment,
        start_new_session=True, preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    return master, process, start


class Viewer:
    def __init__(self, vault, arguments, environment):
        size = struct.pack("HHHH", ROWS, COLUMNS, COLUMNS * CELL_WIDTH, ROWS * CELL_HEIGHT)
        self.master, self.process, self.start = start_view(vault, arguments, environment, size)
        self.pending = b""

    def statuses(self, timeout=120):
        """Yields (time, status text) for each status line as it arrives."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 1)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 1 << 20)
            except OSError:
                return
            now = time.monotonic()
            # A pty hands over a few kB a read, and a kitty frame is megabytes: only the new
            # bytes and the tail that may hold the start of a status line are searched.
            self.pending += chunk
            # vault asks the terminal what it can do, ending with DA1 (CSI c): answered as
            # kitty does, or it would wait for an answer that never comes.
            if b"\x1b[c" in self.pending[-len(chunk) - 3:]:
                os.write(self.master, b"\x1b[?62;c")
            for keys in KITTY_KEYS.findall(self.pending[-len(chunk) - 64:]):
                fields = dict(field.split(b"=", 1) for field in keys.split(b",") if b"=" in field)
                if fields.get(b"a") in (b"t", b"T"):
                    KITTY_UPLOADS["direct" if fields.get(b"t", b"d") == b"d" else "other"] += 1
            last = 0
            for match in STATUS.finditer(self.pending):
                last = match.end()
                yield now, match.group(1).decode("utf-8", "replace")
            self.pending = self.pending[max(last, len(self.pending) - 1024):]
        raise TimeoutError("no status line within %d s" % timeout)

    def wait_for(self, pattern, timeout=120):
        regex = re.compile(pattern)
        for when, text in self.statuses(timeout):
            if regex.search(text) and "loading" not in text:
                return when, text
        raise RuntimeError("the viewer ended before %r" % pattern)

    def next_frame(self, timeout=120):
        for when, text in self.statuses(timeout):
            return when, text
        raise RuntimeError("the viewer ended")

    def drain(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], max(0, end - time.monotonic()))
            if ready:
                try:
                    os.read(self.master, 1 << 20)
                except OSError:
                    return
        self.pending = b""

    def send(self, keys):
        sent = time.monotonic()
        os.write(self.master, keys)
        return sent

    def quit(self):
        os.write(self.master, b"q")
        # Read until it ends: what it sends ahead after a frame's status line (kitty, the
        # neighbours' pixels) would otherwise fill the pty and hold the viewer in a write.
        while True:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                break
            self.drain(0.05)
        os.close(self.master)
        return status, usage.ru_maxrss


def baseline(vault, environment):
    """Seconds and peak kB of `vault list --count 1`: start, key derivation, opening."""
    start = time.monotonic()
    process = subprocess.Popen([vault, "list", "--count", "1"], stdout=subprocess.DEVNULL, env=environment)
    _, _, usage = os.wait4(process.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss


def milliseconds(values):
    return "%.1f ms" % (statistics.median(values) * 1000)


def main():
    vault, count, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    kitty = dict(os.environ, TERM="xterm-kitty", COLORTERM="truecolor")
    symbols = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    base, first_kitty, first_symbols, next_photo, zoom, pan = [], [], [], [], [], []
    for run in range(runs):
        base.append(baseline(vault, kitty)[0])
        for environment, mode, results in ((kitty, "kitty", first_kitty), (symbols, "symbols", first_symbols)):
            viewer = Viewer(vault, ["--mode", mode, "1"], environment)
            shown, _ = viewer.wait_for(r"^ *1 / %d " % count)
            results.append(shown - viewer.start)
            if mode == "kitty":
                for number in range(2, 5):
                    viewer.drain(1.5)  # the neighbour decodes meanwhile
                    sent = viewer.send(b"n")
                    shown, _ = viewer.wait_for(r"^ *%d / %d " % (number, count))
                    next_photo.append(shown - sent)
                viewer.drain(1.0)
                for _ in range(4):
                    sent = viewer.send(b"+")
                    shown, _ = viewer.next_frame()
                    zoom.append(shown - sent)
                    viewer.drain(0.5)
                    sent = viewer.send(b"\x1b[C")
                    shown, _ = viewer.next_frame()
                    pan.append(shown - sent)
                    viewer.drain(0.5)
            viewer.quit()
        base.append(baseline(vault, kitty)[0])
    kdf = statistics.median(base)
    print("vault list --count 1 (start, key derivation, open): %s" % milliseconds(base))
    for name, values in (("kitty", first_kitty), ("symbols", first_symbols)):
        after = [value - kdf for value in values]
        print("first photo on screen, %s: %s, %s after the key derivation (target <= 200 ms)"
              % (name, milliseconds(values), milliseconds(after)))
    print("next photo when prefetched, kitty: %s (target <= 50 ms)" % milliseconds(next_photo))
    print("zoom step, kitty: %s; pan step: %s (target <= 20 ms)" % (milliseconds(zoom), milliseconds(pan)))

    # Memory: page through every photo once, in kitty mode (the most bytes drawn).
    base_kb = baseline(vault, kitty)[1]
    viewer = Viewer(vault, ["--mode", "kitty", "1"], kitty)
    viewer.wait_for(r"^ *1 / %d " % count)
    start = time.monotonic()
    for number in range(2, count + 1):
        viewer.send(b"n")
        viewer.wait_for(r"^ *%d / %d " % (number, count))
    seconds = time.monotonic() - start
    status, peak_kb = viewer.quit()
    print("paging through %d photos: %.1f s (%.0f ms a photo), exit status %d" % (
        count, seconds, seconds * 1000 / max(1, count - 1), os.waitstatus_to_exitcode(status)))
    print("peak memory: %d MB; vault list --count 1: %d MB; above it: %d MB (target <= 300 MB)" % (
        peak_kb // 1024, base_kb // 1024, (peak_kb - base_kb) // 1024))
    print("kitty uploads seen: %d direct (t=d), %d through a file or shared memory (must be 0)" % (
        KITTY_UPLOADS["direct"], KITTY_UPLOADS["other"]))
    if KITTY_UPLOADS["other"]:
        sys.exit("error: vault view uploaded pixels to kitty through a file or shared memory")


if __name__ == "__main__":
    main()
