#!/usr/bin/env python3
"""Runs inside a real kitty for `Benchmarks/view-kitty`: joins kitty's terminal to the driver.

It connects to the driver's Unix socket, sends the terminal's window size (struct winsize,
8 bytes), puts the terminal in raw mode and then copies bytes both ways until either side
closes: what the driver sends (vault view's output) reaches kitty unchanged, and what kitty
sends (its replies to queries and graphics commands) reaches the driver.
Usage: kitty-relay.py SOCKET"""
import fcntl
import os
import select
import socket
import sys
import termios
import time
import tty


def main():
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # The driver may start listening after kitty started this.
    deadline = time.monotonic() + 60
    while True:
        try:
            connection.connect(sys.argv[1])
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    terminal = sys.stdin.fileno()
    connection.sendall(fcntl.ioctl(terminal, termios.TIOCGWINSZ, b"\0" * 8))
    tty.setraw(terminal)
    output = sys.stdout.fileno()
    while True:
        ready, _, _ = select.select([terminal, connection], [], [])
        if connection in ready:
            data = connection.recv(1 << 20)
            if not data:
                return
            view = memoryview(data)
            while view:
                view = view[os.write(output, view):]
        if terminal in ready:
            data = os.read(terminal, 1 << 16)
            if not data:
                return
            connection.sendall(data)


if __name__ == "__main__":
    main()
