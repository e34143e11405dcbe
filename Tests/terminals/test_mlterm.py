#!/usr/bin/env python3
"""`vault view` and `vault list --per-row 4` in a real mlterm under Xvfb, with the graphics
vault chooses there by itself."""
import unittest

from case import TerminalTestCase
from scenarios import ViewScenarios
from terminal import mlterm_command


class MltermTests(ViewScenarios, TerminalTestCase):
    launcher = staticmethod(mlterm_command)
    tools = ("mlterm",)


if __name__ == "__main__":
    unittest.main()
