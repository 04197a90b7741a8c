"""What `playground --version` reports: the versions in use, read without importing torch; and the
fingerprint of playground's own code, which every cache of derived figures is keyed on."""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import re
import subprocess
from pathlib import Path

from . import __version__


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The playground library's own source: changing how a figure is read or a plan is made invalidates
    every figure and plan kept from it."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def torch_build() -> dict:
    """torch's version and the CUDA/ROCm it was built for, from torch/version.py (no 2.5 s import)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return {}
    text = (Path(list(spec.submodule_search_locations)[0]) / "version.py").read_text()
    found = dict(re.findall(r"^(\w+)\s*(?::\s*[^=]+)?=\s*'([^']*)'", text, re.MULTILINE))
    return {"torch": found.get("__version__"), "cuda": found.get("cuda"), "hip": found.get("hip")}


def ptxas_release() -> str | None:
    """The CUDA release of the ptxas Triton compiles with."""
    try:
        from .tools import tool
        out = subprocess.run([tool("ptxas"), "--version"], capture_output=True, text=True).stdout
    except Exception:
        return None
    m = re.search(r"release ([\d.]+)", out)
    return m.group(1) if m else None


def report() -> str:
    torch = torch_build()
    gpu_stack = f"CUDA {torch['cuda']}" if torch.get("cuda") else f"ROCm {torch['hip']}" if torch.get("hip") else "CPU only"
    lines = [
        f"playground {__version__}",
        f"triton     {package_version('triton') or 'not installed'} (ptxas from CUDA {ptxas_release() or '?'})",
        f"torch      {torch.get('torch') or 'not installed'} ({gpu_stack} build)" if torch else "torch      not installed",
    ]
    return "\n".join(lines)
