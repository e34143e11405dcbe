#!/usr/bin/env python3
"""Times `vault view` as a real kitty shows it (`Benchmarks/view-kitty`, `make bench-view`).

vault view runs on a pseudo-terminal of this driver's; its output goes on to a real kitty
(through Benchmarks/kitty-relay.py, running inside kitty), and kitty's replies come back to
it. A photo is on screen once kitty has taken the frame that shows it: right after the
frame's status line (without "loading…"), the driver asks kitty for a status report
(`CSI 5 n`); kitty answers (`CSI 0 n`, kept from vault) only once it has processed every
byte before it, the photo's upload and placement included.

Measured, each against `vault list --count 1` on the same vault in the same run
(alternating, medians of RUNS):
  - first photo fitted on screen after the key derivation (target <= 150 ms);
  - next photo when sent ahead: `n` to photo 2 on screen (target <= 50 ms);
  - bytes vault writes a page while paging through every photo, against the pixels of the
    screen (target <= 2 bytes a screen pixel).
A screenshot of the display with the first photo is kept as bench-output/kitty-view.png.
With BASELINE=<binary>, that build is measured in the same rounds, the sides alternating.
Usage: kitty-driver.py SOCKET VAULT_BINARY COUNT RUNS   (VAULT_DIR, VAULT_PASSWORD, DISPLAY set)"""
import importlib.util
import os
import re
import select
import socket
import statistics
import subprocess
import sys
import time

_spec = importlib.util.spec_from_file_location(
    "view_driver", os.path.join(os.path.dirname(os.path.abspath(__file__)), "view-driver.py"))
view_driver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(view_driver)

STATUS = view_driver.STATUS
REPORT_QUERY, REPORT = b"\x1b[5n", b"\x1b[0n"


class KittyViewer:
    """vault view on a pty of ours, its output shown by the real kitty behind `relay`."""

    def __init__(self, relay, window_size, vault, arguments, environment):
        self.relay = relay
        self.master, self.process, self.start = view_driver.start_view(vault, arguments, environment, window_size)
        self.tail = b""
        self.from_kitty = b""
        self.written = 0
        self.recorded = bytearray()  # what vault wrote, kept until `recording` is turned off
        self.recording = True
        self.reports_seen = 0
        self.shown = []  # (time kitty took it, status text), for frames asked about

    def pump(self, timeout):
        """Copies what is ready both ways for at most `timeout` seconds; False once vault ended."""
        ready, _, _ = select.select([self.master, self.relay], [], [], timeout)
        if self.master in ready:
            try:
                chunk = os.read(self.master, 1 << 20)
            except OSError:
                return False
            self.written += len(chunk)
            if self.recording:
                self.recorded += chunk
            self.forward(chunk)
        if self.relay in ready:
            self.take_replies(self.relay.recv(1 << 16))
        return True

    def forward(self, chunk):
        """Sends vault's bytes to kitty, with a status report asked right after each status line."""
        search = self.tail + chunk
        # A status line cut between two reads is found in the old tail and the new chunk;
        # one wholly in the old tail was found before.
        sent = len(self.tail)
        for match in STATUS.finditer(search):
            if match.end() <= len(self.tail):
                continue
            self.relay.sendall(search[sent:match.end()])
            sent = match.end()
            self.relay.sendall(REPORT_QUERY)
            self.shown.append([None, match.group(1).decode("utf-8", "replace")])
        self.relay.sendall(search[sent:])
        self.tail = search[-1024:]

    def take_replies(self, data):
        """Keeps kitty's answers to our status reports; the rest goes to vault."""
        self.from_kitty += data
        while REPORT in self.from_kitty:
            before, self.from_kitty = self.from_kitty.split(REPORT, 1)
            os.write(self.master, before)
            self.shown[self.reports_seen][0] = time.monotonic()
            self.reports_seen += 1
        # What may be the start of a report waits for the rest.
        keep = len(self.from_kitty) if self.from_kitty.endswith(b"\x1b") else 0
        for length in range(1, len(REPORT)):
            if self.from_kitty.endswith(REPORT[:length]):
                keep = length
        if len(self.from_kitty) > keep:
            os.write(self.master, self.from_kitty[:len(self.from_kitty) - keep])
            self.from_kitty = self.from_kitty[len(self.from_kitty) - keep:]

    def wait_for(self, pattern, after=0, timeout=120):
        """The time kitty took the first frame after frame `after` whose status matches
        `pattern` without "loading…"; and that frame's index."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index in range(after, len(self.shown)):
                when, text = self.shown[index]
                if when is not None and regex.search(text) and "loading" not in text:
                    return when, index + 1
            if not self.pump(0.5):
                break
        raise RuntimeError("kitty never showed %r" % pattern)

    def drain(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.pump(max(0, end - time.monotonic())):
            pass

    def send(self, keys):
        sent = time.monotonic()
        os.write(self.master, keys)
        return sent, len(self.shown)

    def quit(self):
        os.write(self.master, b"q")
        while True:
            pid, status, _ = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                break
            self.pump(0.05)
        self.drain(0.2)
        # Every status report asked for is answered before the next viewer starts: a late
        # answer would be taken for one of its own frames.
        deadline = time.monotonic() + 30
        while self.reports_seen < len(self.shown) and time.monotonic() < deadline:
            ready, _, _ = select.select([self.relay], [], [], 0.5)
            if ready:
                self.from_kitty += self.relay.recv(1 << 16)
                while REPORT in self.from_kitty:
                    self.from_kitty = self.from_kitty.split(REPORT, 1)[1]
                    self.reports_seen += 1
        os.close(self.master)
        return os.waitstatus_to_exitcode(status)


def first_photos(relay, window_size, vault, count, environment, first, following, screenshot):
    """One round of `vault view 1`: the first photo's time from the start (into `first`), then
    three pages sent ahead (into `following`); a screenshot of the first photo if asked."""
    viewer = KittyViewer(relay, window_size, vault, ["1"], environment)
    shown, seen = viewer.wait_for(r"^ *1 / %d " % count)
    viewer.recording = False
    first.append(shown - viewer.start)
    for number in range(2, 5):
        viewer.drain(1.5)  # the neighbour is decoded and sent ahead meanwhile
        if screenshot and number == 2:
            # Taken once kitty has painted (it takes frames first and paints them later).
            subprocess.run(["import", "-window", "root", "bench-output/kitty-view.png"], check=False)
        sent, seen = viewer.send(b"n")
        shown, seen = viewer.wait_for(r"^ *%d / %d " % (number, count), after=seen)
        following.append(shown - sent)
    if viewer.quit() != 0:
        sys.exit("error: vault view failed in kitty")
    return bytes(viewer.recorded)


def replay(relay, recorded):
    """Seconds kitty takes to take `recorded` (vault's bytes up to its first photo's frame,
    whose status line they end with) once they are all there: the terminal's share of the
    first photo, which no program sending that image can go below. Kitty's answers to the
    queries among them are dropped; the screen is left as vault leaves it."""
    start = time.monotonic()
    relay.sendall(recorded + REPORT_QUERY)
    taken = wait_for_report(relay)
    relay.sendall(b"\x1b_Ga=d,d=A\x1b\\\x1b[?1049l" + REPORT_QUERY)
    wait_for_report(relay)
    return taken - start


def wait_for_report(relay):
    """The time kitty's answer to a status report arrived (other answers dropped)."""
    received = b""
    while REPORT not in received:
        ready, _, _ = select.select([relay], [], [], 30)
        if not ready:
            sys.exit("error: kitty did not answer a status report")
        received = received[-len(REPORT):] + relay.recv(1 << 16)
    return time.monotonic()


def paging(relay, window_size, vault, count, environment):
    """Pages through every photo: (milliseconds a page, bytes written a page)."""
    viewer = KittyViewer(relay, window_size, vault, ["1"], environment)
    _, seen = viewer.wait_for(r"^ *1 / %d " % count)
    viewer.drain(1.0)
    start_bytes, start = viewer.written, time.monotonic()
    for number in range(2, count + 1):
        _, seen = viewer.send(b"n")
        _, seen = viewer.wait_for(r"^ *%d / %d " % (number, count), after=seen)
    pages, written = count - 1, viewer.written - start_bytes
    seconds = time.monotonic() - start
    viewer.quit()
    return seconds * 1000 / pages, written / pages


def decode_floor(photo, runs):
    """Seconds libjpeg-turbo's own djpeg takes to decode `photo` at 1/2 scale (the scale
    vault decodes a 12 MP photo at for a screen), RUNS times; None without a photo."""
    if not photo:
        return None
    times = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run(["djpeg", "-scale", "1/2", "-outfile", os.devnull, photo], check=True)
        times.append(time.monotonic() - start)
    return times


def main():
    path, vault, count, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    # BASELINE: a second build, measured in the same rounds (sides alternating).
    builds = [("", vault)] + ([("BASELINE ", os.environ["BASELINE"])] if os.environ.get("BASELINE") else [])
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    listener.settimeout(60)
    relay, _ = listener.accept()
    window_size = relay.recv(8)
    rows, columns, width, height = (int.from_bytes(window_size[i:i + 2], "little") for i in (0, 2, 4, 6))
    print("kitty window: %d x %d cells, %d x %d pixels" % (columns, rows, width, height))
    environment = dict(os.environ, TERM="xterm-kitty", COLORTERM="truecolor")
    # Per build: key derivations, first photos, next photos, kitty's replays of the first photo.
    results = {binary: ([], [], [], []) for _, binary in builds}
    for run in range(runs):
        for _, binary in builds if run % 2 == 0 else builds[::-1]:
            base, first, following, replays = results[binary]
            base.append(view_driver.baseline(binary, environment)[0])
            recorded = first_photos(relay, window_size, binary, count, environment, first, following,
                                    screenshot=run == 0 and binary == vault)
            replays.append(replay(relay, recorded))
            base.append(view_driver.baseline(binary, environment)[0])
    decode = decode_floor(os.environ.get("FIRST_PHOTO"), runs)
    for name, binary in builds:
        base, first, following, replays = results[binary]
        kdf = statistics.median(base)
        print("%svault list --count 1 (start, key derivation, open): %s" % (name, view_driver.milliseconds(base)))
        print("%sfirst photo fitted on screen in kitty: %s, %s after the key derivation (target <= 150 ms)"
              % (name, view_driver.milliseconds(first), view_driver.milliseconds([value - kdf for value in first])))
        print("%s  kitty taking the same bytes replayed at once (its share): %s" % (name, view_driver.milliseconds(replays)))
        if decode:
            print("%s  floor: djpeg -scale 1/2 of the photo %s + kitty's share %.0f ms = %.0f ms"
                  % (name, view_driver.milliseconds(decode), statistics.median(replays) * 1000,
                     (statistics.median(decode) + statistics.median(replays)) * 1000))
        print("%snext photo when sent ahead, in kitty: %s (target <= 50 ms)" % (name, view_driver.milliseconds(following)))
    for name, binary in builds:
        milliseconds, written = paging(relay, window_size, binary, count, environment)
        print("%spaging through %d photos in kitty: %.0f ms a page, %.2f MB written a page; the screen is "
              "%.2f M pixels: %.2f bytes a screen pixel (target <= 2)" % (
                  name, count, milliseconds, written / 1e6, width * height / 1e6, written / (width * height)))
    relay.close()


if __name__ == "__main__":
    main()
