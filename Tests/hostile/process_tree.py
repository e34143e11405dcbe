"""The memory of a process and all its descendants (decoder helpers included), read from
/proc: the peak of their summed RSS, and a ceiling past which the whole tree is killed, so
that a build without bounds fails a test quickly instead of taking the machine's memory."""
import os
import signal
import threading
import time

PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
# How often the tree is read: often enough that a tree growing by a gigabyte a second
# passes the ceiling by some tens of megabytes at most before it is killed.
INTERVAL = 0.02


def parents():
    """{pid: parent pid} of every process (this kernel has no /proc/<pid>/task/*/children)."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    # The command name in parentheses may hold spaces: fields follow the last ')'.
                    found[int(name)] = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return found


def tree(root, follows=lambda child, parent: True):
    """`root` and every process descended from it through children `follows` accepts."""
    children = {}
    for pid, parent in parents().items():
        children.setdefault(parent, []).append(pid)
    found, waiting = [], [root]
    while waiting:
        pid = waiting.pop()
        found.append(pid)
        waiting += [child for child in children.get(pid, []) if follows(child, pid)]
    return found


def resident_bytes(pid):
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0  # it ended meanwhile


class PeakMemory:
    """Watches the tree of `pid` from a thread until it is stopped: `peak` is the largest
    sum of its RSS seen, `processes` the most processes seen in it at once; past `ceiling`
    bytes every process of the tree is killed (SIGKILL) and `killed` is set."""

    def __init__(self, pid, ceiling):
        self.pid, self.ceiling = pid, ceiling
        self.peak, self.processes, self.killed = 0, 0, False
        self.started = time.monotonic()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self):
        while not self._stopped.is_set():
            pids = tree(self.pid)
            total = sum(resident_bytes(pid) for pid in pids)
            self.peak, self.processes = max(self.peak, total), max(self.processes, len(pids))
            if total > self.ceiling and not self.killed:
                self.killed = True
                for pid in reversed(pids):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            self._stopped.wait(INTERVAL)

    def stop(self):
        """Stops watching: (peak bytes, seconds since the start)."""
        self._stopped.set()
        self._thread.join()
        return self.peak, time.monotonic() - self.started
