"""One way out for results: every result is a typed object with `as_dict()`, printed as JSON here.

Each command's `--json` output has a JSON Schema in `playground/report/schemas/COMMAND.json` that
documents every field (units included); the tests validate every command's output against it,
so the schema cannot drift from the code. `playground schema COMMAND` prints one.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError

SCHEMAS_DIR = Path(__file__).resolve().parent / "schemas"


def as_data(result):
    """A result object's `as_dict()`, or plain data (lists of rows) as it is."""
    return result.as_dict() if hasattr(result, "as_dict") else result


def to_json(result) -> str:
    return json.dumps(as_data(result), indent=2, default=str)


def commands_with_schema() -> list[str]:
    return sorted(p.stem for p in SCHEMAS_DIR.glob("*.json"))


def schema(command: str) -> dict:
    """The JSON Schema of `playground COMMAND --json`."""
    path = SCHEMAS_DIR / f"{command}.json"
    if not path.is_file():
        raise UserError(f"no schema for '{command}'; commands with --json: {', '.join(commands_with_schema())}")
    return json.loads(path.read_text())
