#!/usr/bin/env python3
"""Peak memory of a whole process tree: runs a command and samples, every few
milliseconds, the proportional set size (Pss, /proc/PID/smaps_rollup) of it and of every
process descended from it (vault's decoder helpers), summed: each page the tree holds
counted once, a page that n processes map shared as 1/n in each (the Swift runtime and
the codecs the parent and its helpers all map would otherwise count three times: some
35 MB of a helper's 50 MB of RSS). /usr/bin/time's %M is the RSS of the largest single
process, which leaves the helpers out; a memory cgroup would charge the page cache of the
files the command writes (the encrypted blobs), which is not memory it holds. The sum of
the RSS (shared pages counted in each process) is printed too, for comparison.

Usage: tree-memory.py [--interval SECONDS] [--breakdown] COMMAND [ARGUMENT...]
Prints "peak-pss-kB peak-rss-sum-kB"; with --breakdown, each process's share at the Pss
peak on stderr. Exits with the command's status."""

import os
import subprocess
import sys
import time

# The walk of /proc the hostile tests' memory ceiling makes (Tests/hostile/process_tree.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "hostile"))
import process_tree  # noqa: E402


def executable(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def tree(root):
    """The pids of `root` and of every process descended from it, but a child still
    running its parent's executable: one that posix_spawn made and that has not reached
    its exec yet shares its parent's memory, which would count twice."""
    return process_tree.tree(root, follows=lambda child, parent: executable(child) != executable(parent))


def resident(pid):
    """(name, Pss kB, Rss kB) of `pid`, or None once it is gone (or not yet mapped)."""
    try:
        with open(f"/proc/{pid}/comm") as comm:
            name = comm.read().strip()
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            sizes = dict(line.split()[:2] for line in rollup if line.startswith(("Rss:", "Pss:")))
        return name, int(sizes["Pss:"]), int(sizes["Rss:"])
    except (OSError, KeyError, ValueError):
        return None


def main():
    arguments = sys.argv[1:]
    interval, breakdown = 0.005, False
    while arguments and arguments[0].startswith("--"):
        option = arguments.pop(0)
        if option == "--interval":
            interval = float(arguments.pop(0))
        elif option == "--breakdown":
            breakdown = True
    command = subprocess.Popen(arguments, stdout=subprocess.DEVNULL)
    peak, peak_rss, peak_processes = 0, 0, []
    while command.poll() is None:
        processes = [(pid,) + found for pid in tree(command.pid) if (found := resident(pid))]
        total = sum(pss for _, _, pss, _ in processes)
        peak_rss = max(peak_rss, sum(rss for _, _, _, rss in processes))
        if total > peak:
            peak, peak_processes = total, processes
        time.sleep(interval)
    print(peak, peak_rss)
    if breakdown:
        for pid, name, pss, rss in peak_processes:
            print(f"  {pid} {name}: Pss {pss // 1024} MB (Rss {rss // 1024} MB)", file=sys.stderr)
    sys.exit(command.returncode)


main()
