"""`playground run SCRIPT ARGS...`: run's own options written after SCRIPT (`run s.py --target sm_80`) are run's;
the rest are the script's, and everything after a `--` is the script's, untouched (for a script with its own
--target)."""
from __future__ import annotations

from ..errors import UserError

FLAGS = {"--no-exec": "no_exec", "--json": "json", "--force": "force", "--ops": "ops"}
VALUES = {"--target": "target", "-t": "target", "--trace": "trace", "--timeline": "timeline"}


def split(args: list[str]) -> tuple[dict, list[str]]:
    """(run's options by name, the script's arguments)."""
    mine, rest = {}, []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest += args[i + 1:]
            break
        name, eq, value = arg.partition("=")
        if arg in FLAGS:
            mine[FLAGS[arg]] = True
        elif name in VALUES:
            if not eq:
                if i + 1 >= len(args):
                    raise UserError(f"{name} needs a value")
                i += 1
                value = args[i]
            mine[VALUES[name]] = value
        else:
            rest.append(arg)
        i += 1
    return mine, rest
