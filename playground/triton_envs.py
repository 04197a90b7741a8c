"""Another Triton for the compile path: `compile`, `inspect` and `diff` take `--triton VERSION`, and compile in
a side environment of that Triton, made once, kept, and reused.

A side environment is one folder, `ROOT/<version>` (ROOT: $XDG_CACHE_HOME/playground/triton, by default
~/.cache/playground/triton), that holds Triton's wheel alone: `pip install --no-deps --target`. Triton needs
nothing else at run time (its wheel requires importlib-metadata only before Python 3.10, which the playground
does not support) and the compile path never imports torch, so one wheel is the whole environment. A command
runs in a child process of this same Python with the folder first on its path: Triton comes from the folder,
and click, rich, pygments and playground itself from this environment.

The folder is made under a name no lookup takes (`.partial-<pid>-...`) and renamed to its version only once pip
has finished, so a stopped install (Ctrl-C, a lost network) leaves nothing that is later taken as complete; the
next install removes what a dead process left. `rm -rf ~/.cache/playground/triton` removes them all.
"""
from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import compat
from .errors import UserError

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_PARTIAL = ".partial-"
# set in a side environment's child: which Triton it was asked for, so the child does not ask again
CHILD_ENV = "PLAYGROUND_SIDE_TRITON"


def installed() -> str:
    """The Triton this process imports (a side environment's in its child)."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def parse(text: str, most: int = 1) -> list[str]:
    """`3.8` or `3.8,3.9` (at most `most` versions) -> the versions, each checked against SUPPORTED."""
    versions = [v.strip() for v in text.split(",") if v.strip()]
    if not versions:
        raise UserError("triton: expected a version, as in 3.8 or 3.8.0", param="triton")
    if len(versions) > most:
        raise UserError(f"triton {text}: one version here; `diff --triton 3.8,3.9` compares two" if most == 1
                        else f"triton {text}: at most {most} versions", param="triton")
    low, high = compat.SUPPORTED["triton"]
    for v in versions:
        m = _VERSION.fullmatch(v)
        if not m or not low <= (int(m.group(1)), int(m.group(2))) <= high:
            raise UserError(f"triton {v}: not a supported Triton; --triton takes {compat.supported_range('triton')}, "
                            f"as 3.8 or 3.8.0", param="triton")
    if len(set(versions)) < len(versions):
        raise UserError(f"triton {text}: the same Triton twice; name two versions", param="triton")
    return versions


def matches(version: str, full: str) -> bool:
    """Whether the installed version `full` (3.9.0) is what `version` (3.9 or 3.9.0) asks for."""
    return full == version or (version.count(".") == 1 and full.startswith(version + "."))


def is_installed(version: str) -> bool:
    return matches(version, installed())


def root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "playground" / "triton"


def find(version: str) -> Path | None:
    """The side environment kept for `version` (3.8: the newest 3.8.x kept), or None."""
    if not root().is_dir():
        return None
    kept = [p for p in root().iterdir() if _VERSION.fullmatch(p.name) and matches(version, p.name)
            and (p / "triton" / "__init__.py").is_file()]
    return max(kept, key=lambda p: tuple(int(n) for n in _VERSION.fullmatch(p.name).groups("0")), default=None)


def ensure(version: str, say=None) -> Path:
    """The side environment for `version`, made first if none is kept. `say` gets a line before pip starts."""
    return find(version) or install(version, say)


def install(version: str, say=None) -> Path:
    """`pip install --no-deps --target` of Triton `version` (3.8: the newest 3.8.x), its progress on stderr."""
    where = root()
    where.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(where)
    requirement = f"triton=={version}" if version.count(".") == 2 else f"triton=={version}.*"
    if say:
        say(f"installing Triton {version} for --triton into {where} (once; about 250 MB to download; Ctrl-C stops "
            f"it and leaves nothing behind)")
    partial = Path(tempfile.mkdtemp(prefix=f"{_PARTIAL}{os.getpid()}-", dir=where))
    partial.chmod(0o755)
    try:
        # pip's progress bar is drawn on its stdout: ours is kept for the command's output, so it goes to stderr
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "--target",
                               str(partial), "--disable-pip-version-check", "--no-warn-script-location", requirement],
                              stdout=sys.stderr.fileno() if _has_fd(sys.stderr) else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise UserError(f"triton {version}: pip could not install {requirement} into {where}: "
                            f"{_pip_said(done.stderr)} (a side environment is downloaded once; is there a network "
                            f"or a package index here?)", param="triton")
        full = next((p.name[len("triton-"):-len(".dist-info")] for p in partial.glob("triton-*.dist-info")), None)
        if full is None:
            raise UserError(f"triton {version}: pip installed no Triton into {partial}", param="triton")
        final = where / full
        try:
            partial.rename(final)
        except OSError:          # another process made it meanwhile: keep theirs
            if find(full) is None:
                raise
        return final
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)


def _remove_abandoned(where: Path) -> None:
    """Half-made environments whose process is gone (a second Ctrl-C, a kill): never complete, so removed."""
    for p in where.glob(f"{_PARTIAL}*"):
        pid = p.name[len(_PARTIAL):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pip_said(stderr: str) -> str:
    lines = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    return (errors[0] if errors else lines[-1] if lines else "no message").removeprefix("ERROR: ")


def _has_fd(stream) -> bool:
    try:
        stream.fileno()
        return True
    except (AttributeError, ValueError, OSError):
        return False


def child_env(path: Path) -> dict:
    """This process's environment for a child that imports Triton from the side environment at `path`."""
    from . import lifecycle
    env = lifecycle.child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(path), env["PYTHONPATH"]])
    env[CHILD_ENV] = path.name
    return env


def rerun(version: str, module: str, attribute: str, args: list[str], say=None) -> int:
    """The whole command again, `args` without its --triton, in a child whose Triton is `version`'s: its output
    is this command's. `module`.`attribute` is the click group to run (cli.main). Returns its exit status."""
    path = ensure(version, say)
    code = ("import importlib, sys; group = getattr(importlib.import_module(sys.argv[1]), sys.argv[2]); "
            "group.main(sys.argv[3:], prog_name='playground')")
    command = [sys.executable, "-c", code, module, attribute, *args]
    passthrough = _has_fd(sys.stdout) and _has_fd(sys.stderr)
    pipes = {} if passthrough else {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    child = subprocess.Popen(command, env=child_env(path), text=True, **pipes)
    try:
        out, err = child.communicate()
    except BaseException:        # Ctrl-C reached the child as well; SIGTERM reached us alone
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
        raise
    if not passthrough:          # an in-process runner (click's CliRunner): hand the text on
        sys.stdout.write(out)
        sys.stderr.write(err)
    return child.returncode
