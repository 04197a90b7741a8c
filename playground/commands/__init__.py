"""The command line, one module per command: `cmd_<name>.py` holds `command`, a click command that builds a
Request (or the library's input), calls one library function and prints its text. cli.py lists and loads them
by file name, so a new command is its file (and its `--json` schema); `--help` imports only these small modules.

  options.py   the options several commands share, declared once (kernel options, --target, --json, --csv, ...)
  common.py    what running a command needs besides its options: a spinner that Ctrl-C and --timeout stop,
               progress, warnings as one line, refusing to overwrite, the library's parameter names as flags
"""
from __future__ import annotations

import importlib
from pathlib import Path

PREFIX = "cmd_"


def names() -> list[str]:
    """Every command, from the files in this folder."""
    return sorted(p.stem[len(PREFIX):] for p in Path(__file__).parent.glob(f"{PREFIX}*.py"))


def load(name: str):
    """The click command `name`, or None when there is no such command."""
    if name not in names():
        return None
    return importlib.import_module(f"{__name__}.{PREFIX}{name}").command
