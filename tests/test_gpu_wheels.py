"""The wheels a lent GPU machine needs (scripts/gpu_wheels.txt) are enough with its image's packages
(scripts/gpu_image.txt): every requirement followed, the wheels' own too, with the machine's markers; and the
whole project imports, and runs three commands, in a Python that refuses any other distribution. Both from
scripts/gpu_wheels.lock, without a download; and both shown to fail when a wheel is missing."""
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gpu_wheels", ROOT / "scripts" / "gpu_wheels.py")
wheels = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = wheels
_spec.loader.exec_module(wheels)

LOCKED = json.loads(wheels.LOCK.read_text())


def _without(name: str) -> dict:
    return {**LOCKED, "wheels": [w for w in LOCKED["wheels"] if wheels.norm(w["name"]) != name]}


def test_the_pinned_wheels_and_the_image_meet_every_requirement():
    assert wheels.check(LOCKED) == []
    assert {wheels.norm(w["name"]) for w in LOCKED["wheels"]} >= {"pebble", "starlette", "uvicorn"}
    assert sum(1 for _ in LOCKED["wheels"]) == len(wheels.listed(wheels.PINS))


def test_a_missing_wheel_or_a_wheel_for_another_machine_is_named():
    problems = wheels.check(_without("rpds-py"))
    assert "rpds-py==2026.9.1 is pinned in gpu_wheels.txt but not in gpu_wheels.lock" in problems
    assert any(p.startswith("referencing 0.37.0 needs rpds-py>=0.7.0: neither in the image") for p in problems)
    assert any(p.startswith("the project needs pebble") for p in wheels.check(_without("pebble")))
    other = {**LOCKED, "wheels": [{**w, "file": w["file"].replace("cp312-cp312", "cp311-cp311")}
                                  for w in LOCKED["wheels"]]}
    assert any(p.endswith("not a wheel for CPython 3.12 on x86-64 Linux") for p in wheels.check(other))


def test_markers_are_the_machines():
    # typing-extensions is needed below Python 3.13 (the machine's 3.12: met by the image); an extra's need is not
    assert wheels._tags_fit("rpds_py-2026.9.1-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    assert not wheels._tags_fit("rpds_py-2026.9.1-cp312-cp312-macosx_11_0_arm64.whl")
    assert wheels._tags_fit("pebble-5.2.3-py3-none-any.whl")


def test_the_project_imports_with_only_the_image_and_the_wheels():
    code, out = wheels.imports(LOCKED)
    assert code == 0, out[-3000:]
    assert out.rstrip().endswith("modules imported and 3 commands run; 0 failed")


def test_the_import_guard_refuses_what_the_machine_would_lack():
    code, out = wheels.imports(_without("pebble"))
    assert code == 1
    assert "refused: pebble (Pebble)" in out            # sweep's pool, imported only when a sweep compiles
    assert "ImportError: pebble: Pebble is neither in the device image nor among the wheels" in out
