"""The installed distribution claims one top-level name, `playground` (and its console script): the repository's
kernels/ installs as playground.kernels and cli.py is a checkout's shim, so another package's `kernels` (Hugging
Face's, which bitsandbytes imports) or a project's own `cli` is not shadowed."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:          # Python 3.10
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_list_is_every_folder_of_the_library():
    """pyproject lists the packages by hand (kernels/ maps into playground): a new folder must be listed, or a
    wheel would leave it out."""
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    folders = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "playground").rglob("*")
               if p.is_dir() and p.name != "__pycache__" and any(p.glob("*.py")) or p.is_dir() and any(p.glob("*.toml"))
               or p.is_dir() and any(p.glob("*.json")) or p.is_dir() and any(p.glob("*.js"))}
    folders = {f for f in folders if "__pycache__" not in f}
    assert listed == folders | {"playground", "playground.kernels"}
    assert _pyproject()["tool"]["setuptools"]["package-dir"]["playground.kernels"] == "kernels"
    assert _pyproject()["project"]["scripts"] == {"playground": "playground.cli:main"}


def test_only_playground_is_installed_as_a_top_level_name(tmp_path):
    """Run from a folder that is not the checkout: neither `kernels` nor `cli` comes from this project."""
    code = ("import importlib.util as u, playground.cli, playground.kernels.gemm as g\n"
            "for name in ('kernels', 'cli'):\n"
            "    spec = u.find_spec(name)\n"
            "    print(name, spec.origin if spec else None)\n"
            "print('gemm', g.__file__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert found["gemm"] == str(ROOT / "kernels" / "gemm.py")
    assert found["kernels"] != str(ROOT / "kernels" / "__init__.py") and found["cli"] != str(ROOT / "cli.py")


def test_hugging_faces_kernels_imports_beside_the_playground(tmp_path):
    """The package that bitsandbytes imports (`from kernels import get_kernel`), with the playground loaded."""
    if importlib.util.find_spec("kernels") is None:
        pytest.skip("Hugging Face's kernels is not installed (the test extra installs it)")
    code = ("import playground.cli, playground.kernels.gemm\n"
            "from playground.core import registry; registry.load('gemm')\n"
            "from kernels import get_kernel\n"
            "print(get_kernel.__module__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.strip().startswith("kernels")


def test_the_checkouts_cli_py_runs_the_command_line():
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "list"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "vector_add" in done.stdout
