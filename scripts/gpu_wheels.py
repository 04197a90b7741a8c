"""The wheels a lent GPU machine needs and its image lacks, and the proof that they are enough.

    python scripts/gpu_wheels.py lock .whl      # record what the downloaded wheels require (gpu_wheels.sh runs it)
    python scripts/gpu_wheels.py check [.whl]   # the project's needs there, and every wheel's, are met by the
                                                # image's packages and the wheels; with a folder, it holds them
    python scripts/gpu_wheels.py imports        # import all of the project seeing only those distributions

The machine (Python 3.12, x86-64, no network) has the packages scripts/gpu_image.txt lists; what the project
needs beyond them is pinned in scripts/gpu_wheels.txt, downloaded by scripts/gpu_wheels.sh into .whl/ (ignored,
carried by the device tool), and installed there by scripts/gpu_session.sh with --no-index --no-deps. With
--no-deps nothing fills a gap, so `check` follows every requirement, the wheels' own included, with the
markers evaluated for that machine, and `imports` imports every module of the project in a Python that refuses
any distribution outside the two lists. scripts/gpu_wheels.lock keeps each wheel's requirements so that both
run without a download (the tests run them).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = ROOT / "scripts" / "gpu_image.txt"
PINS = ROOT / "scripts" / "gpu_wheels.txt"
LOCK = ROOT / "scripts" / "gpu_wheels.lock"
# the device machine, for environment markers and wheel tags (the device tool's KINDS.md: Python 3.12.3, x86-64)
MACHINE = {"python_version": "3.12", "python_full_version": "3.12.3", "sys_platform": "linux",
           "platform_system": "Linux", "platform_machine": "x86_64", "implementation_name": "cpython",
           "platform_python_implementation": "CPython", "os_name": "posix", "extra": ""}
# what runs there: the package, running kernels (torch), `run` (its extra), and the tests a session runs
EXTRAS = ("torch", "run")
TEST_NEEDS = ("pytest", "hypothesis", "jsonschema")
# the project's own top-level modules: not distributions
OWN = {"playground", "cli", "kernels", "tests", "benchmarks", "tutorials", "scripts", "examples", "conftest"}


def _packaging():
    try:
        from packaging.requirements import Requirement
        from packaging.specifiers import SpecifierSet
    except ImportError:        # pip's own copy, where packaging is not installed
        from pip._vendor.packaging.requirements import Requirement
        from pip._vendor.packaging.specifiers import SpecifierSet
    return Requirement, SpecifierSet


def norm(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def listed(path: Path) -> dict[str, str | None]:
    """NAME[==VERSION] lines (comments and blanks skipped): {normalised name: version or None}."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[norm(name)] = version.strip() or None
    return out


def wheel_metadata(path: Path) -> dict:
    """A wheel's name, version, Requires-Python and Requires-Dist, read from its METADATA."""
    with zipfile.ZipFile(path) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    head = text.split("\n\n", 1)[0]
    field = lambda key: [v.strip() for k, _, v in (line.partition(":") for line in head.splitlines())  # noqa: E731
                         if k == key]
    return {"name": field("Name")[0], "version": field("Version")[0], "file": path.name,
            "requires_python": (field("Requires-Python") or [""])[0], "requires": field("Requires-Dist")}


def lock(folder: Path) -> dict:
    """What the wheels in `folder` are and require, for LOCK."""
    wheels = [wheel_metadata(p) for p in sorted(folder.glob("*.whl"))]
    return {"machine": MACHINE, "wheels": wheels}


def project_requirements() -> list[str]:
    """The project's requirements on the machine: its dependencies, EXTRAS, and TEST_NEEDS of its test extra."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    tests = [r for r in extras["test"] if norm(re.split(r"[<>=!~ ;\[]", r, 1)[0]) in TEST_NEEDS]
    return [*project["dependencies"], *(r for e in EXTRAS for r in extras[e]), *tests]


def _tags_fit(file: str) -> bool:
    """Whether a wheel's file name says it installs on the machine: pure Python, or CPython 3.12 on x86-64 Linux."""
    python, abi, platform = file[:-4].split("-")[-3:]
    pure = python.startswith("py3") and abi == "none" and platform == "any"
    native = ("cp312" in python.split(".") and abi in ("cp312", "abi3", "none")
              and all(p.startswith(("manylinux", "linux")) and p.endswith("x86_64") for p in platform.split(".")))
    return pure or native


def check(locked: dict, folder: Path | None = None) -> list[str]:
    """Every problem that would stop the project on the machine: [] when the wheels are enough."""
    Requirement, SpecifierSet = _packaging()
    image = listed(IMAGE)
    python = image.pop("python")
    pins = listed(PINS)
    wheels = {norm(w["name"]): w for w in locked["wheels"]}
    problems = []
    for name, version in pins.items():
        if name not in wheels:
            problems.append(f"{name}=={version} is pinned in {PINS.name} but not in {LOCK.name}")
        elif wheels[name]["version"] != version:
            problems.append(f"{name}: {PINS.name} pins {version}, {LOCK.name} has {wheels[name]['version']}")
    for name in wheels:
        if name not in pins:
            problems.append(f"{name} is in {LOCK.name} but not pinned in {PINS.name}")
    if folder is not None:
        here = sorted(p.name for p in folder.glob("*.whl"))
        wanted = sorted(w["file"] for w in locked["wheels"])
        if here != wanted:
            problems.append(f"{folder}: holds {here}, {LOCK.name} lists {wanted}")
    for w in locked["wheels"]:
        if not _tags_fit(w["file"]):
            problems.append(f"{w['file']}: not a wheel for CPython {MACHINE['python_version']} on x86-64 Linux")
        if w["requires_python"] and not SpecifierSet(w["requires_python"]).contains(python, prereleases=True):
            problems.append(f"{w['file']}: needs Python {w['requires_python']}, the machine has {python}")

    def met(requirement: str, who: str) -> None:
        r = Requirement(requirement)
        if r.marker is not None and not r.marker.evaluate(MACHINE):
            return
        name = norm(r.name)
        if name in wheels:
            version = wheels[name]["version"]
        elif name in image:
            version = image[name]
        else:
            problems.append(f"{who} needs {requirement}: neither in the image ({IMAGE.name}) nor among the wheels")
            return
        if version and r.specifier and not r.specifier.contains(version, prereleases=True):
            problems.append(f"{who} needs {requirement}, and the machine would have {r.name} {version}")

    for requirement in project_requirements():
        met(requirement, "the project")
    for w in locked["wheels"]:
        for requirement in w["requires"]:
            met(requirement, f"{w['name']} {w['version']}")
    return problems


GUARD = r'''
import contextlib, importlib, importlib.metadata as md, io, re, sys, warnings
from pathlib import Path
allowed, image, own = set(sys.argv[1].split(",")), set(sys.argv[2].split(",")), set(sys.argv[3].split(","))
root = Path(sys.argv[4])
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
owners = md.packages_distributions()
refused, through_image = [], set()


def importer() -> str:
    """The top-level module whose code asked for this import (the first frame outside the import system)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
        frame = frame.f_back
    return (frame.f_globals.get("__name__") or "").split(".")[0] if frame else ""


class OnlyTheMachines:
    """Refuse to import a module whose distribution the device machine would not have, when the project or a
    wheel asks for it. What an image package imports is the image's (installed whole, with its own versions of
    what it needs, which need not be this machine's)."""
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or top in own or top.startswith("_"):
            return None
        asker = importer()
        if asker == top or asker in through_image or any(norm(d) in image for d in owners.get(asker, ())):
            through_image.add(top)        # and what it imports in turn is the image's business too
            return None
        dists = owners.get(top)
        if dists and not any(norm(d) in allowed for d in dists):
            refused.append(f"{name} ({', '.join(dists)})")
            raise ImportError(f"{name}: {', '.join(dists)} is neither in the device image nor among the wheels")
        return None


sys.meta_path.insert(0, OnlyTheMachines())
sys.path.insert(0, str(root))
modules = ["cli"] + [".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
                     for folder in ("playground", "kernels") for p in sorted((root / folder).rglob("*.py"))]
failed = []
for module in modules:
    try:
        with warnings.catch_warnings():              # playground.spec warns that it is deprecated, as it should
            warnings.simplefilter("ignore", FutureWarning)
            importlib.import_module(module)
    except Exception as e:
        failed.append(f"{module}: {type(e).__name__}: {e}")
from playground.cli import main
for args in (["--version"], ["compile", "vector_add", "--target", "sm_90", "--show", "ptx", "--no-header"],
             ["sweep", "vector_add", "--target", "sm_90", "--shape", "N=4096", "--meta", "BLOCK_SIZE=1024,2048",
              "--jobs", "1", "--no-progress"]):
    try:
        with contextlib.redirect_stdout(io.StringIO()):       # what it prints is not the point, that it runs is
            main(args, standalone_mode=False)
    except SystemExit as e:
        if e.code:
            failed.append(f"playground {' '.join(args)}: exit {e.code}")
    except Exception as e:
        failed.append(f"playground {' '.join(args)}: {type(e).__name__}: {e}")
print("\n".join(failed + [f"refused: {r}" for r in refused]))
print(f"{len(modules)} modules imported and 3 commands run; {len(failed)} failed")
sys.exit(1 if failed else 0)
'''


def imports(locked: dict) -> tuple[int, str]:
    """Import every module of the project, and run three commands, in a Python that refuses any distribution the
    machine would lack: (exit status, what it printed)."""
    image = {n for n in listed(IMAGE) if n != "python"}
    allowed = image | {norm(w["name"]) for w in locked["wheels"]}
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as cache:     # an empty cache: the commands compile, as on a fresh machine
        done = subprocess.run([sys.executable, "-c", GUARD, ",".join(sorted(allowed)), ",".join(sorted(image)),
                               ",".join(sorted(OWN)), str(ROOT)], capture_output=True, text=True, cwd=ROOT,
                              timeout=600, env=dict(os.environ, TRITON_CACHE_DIR=cache))
    return done.returncode, done.stdout + done.stderr


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("lock", "check", "imports"):
        print(__doc__.strip())
        return 2
    folder = Path(argv[1]) if len(argv) > 1 else None
    if argv[0] == "lock":
        if folder is None or not any(folder.glob("*.whl")):
            print("error: lock FOLDER: a folder of wheels (scripts/gpu_wheels.sh downloads them)", file=sys.stderr)
            return 2
        LOCK.write_text(json.dumps(lock(folder), indent=1) + "\n")
        print(f"wrote {LOCK.relative_to(ROOT)}: {len(lock(folder)['wheels'])} wheels")
        return 0
    locked = json.loads(LOCK.read_text())
    if argv[0] == "imports":
        code, text = imports(locked)
        print(text, end="")
        return code
    problems = check(locked, folder)
    for p in problems:
        print(f"problem: {p}")
    total = sum(f.stat().st_size for f in folder.glob("*.whl")) if folder else 0
    print(f"{len(locked['wheels'])} wheels{f' ({total / 2**20:.1f} MiB)' if folder else ''}: "
          f"{'complete for the image' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
