"""One registry of guards (playground/check/registry.py): every finding names one of them, the JSON schema lists
exactly them, and a name outside them is refused."""
import ast
import json
from pathlib import Path

import pytest

from playground.check import registry

ROOT = Path(__file__).resolve().parents[1]


def _enums(node, found):
    if isinstance(node, dict):
        for key in ("guard", "guards", "guards_fired"):
            prop = node.get("properties", {}).get(key, {})
            enum = prop.get("enum") or prop.get("items", {}).get("enum")
            if enum:
                found.append(enum)
        for value in node.values():
            _enums(value, found)
    elif isinstance(node, list):
        for value in node:
            _enums(value, found)
    return found


def test_the_schema_lists_the_registrys_guards_and_no_other():
    schema = json.loads((ROOT / "playground" / "report" / "schemas" / "check.json").read_text())
    enums = _enums(schema, [])
    assert len(enums) >= 5 and all(e == list(registry.GUARDS) for e in enums)


def test_every_guard_a_finding_names_in_the_code_is_in_the_registry():
    named = set()
    for path in (ROOT / "playground" / "check").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Finding" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                named.add(node.args[0].value)
    assert len(named) >= 15 and named <= set(registry.GUARDS), named - set(registry.GUARDS)


def test_a_finding_refuses_a_guard_the_registry_lacks():
    assert registry.Finding("tolerance", "x").as_dict() == {"guard": "tolerance", "message": "x"}
    with pytest.raises(ValueError, match="no guard named 'tolerence'"):
        registry.Finding("tolerence", "a typo")


def test_every_guard_says_what_it_stops():
    assert all(g.stops and g.name == name for name, g in registry.GUARDS.items())
    assert set(registry.VALUE_GUARDS) <= set(registry.GUARDS)
