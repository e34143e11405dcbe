#!/usr/bin/env python3
"""`vault view` and `vault list --per-row 4` in a real kitty under Xvfb (kitty graphics).

Run from the repository: `python3 -m unittest discover -s Tests/terminals -v` (scripts/test
does, after the XCTest run). The binary is $VAULT_BINARY, else .build/debug/vault."""
import unittest

from case import TerminalTestCase
from scenarios import ViewScenarios
from terminal import kitty_command


class KittyTests(ViewScenarios, TerminalTestCase):
    launcher = staticmethod(kitty_command)
    tools = ("kitty",)


if __name__ == "__main__":
    unittest.main()
