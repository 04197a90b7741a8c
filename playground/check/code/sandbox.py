"""Containment: the code under check is untrusted, so it runs in a process of its own (child.py), in a scratch
folder, with limits, and where the platform allows, with no network and nothing writable outside that folder.

What is in force, strongest first, and what each stops:
- bubblewrap (`bwrap`, when installed: Debian's package `bubblewrap`): the file system read-only but for the
  scratch folder and a private /tmp, no network (a network namespace of its own), its own process namespace
  (every process it starts dies with it). Kernel-enforced.
- an unprivileged user (nobody) when the check runs as root and every file the child needs is readable by
  others (under bubblewrap, private folders such as /root are replaced by an empty one with just the needed
  paths mounted in): the process-count limit binds only a user without CAP_SYS_RESOURCE, and nobody can write
  where root could.
- resource limits, always (setrlimit): address space (--memory), CPU seconds, processes (a fork bomb meets
  EAGAIN), file size, no core dumps; and the wall-clock --timeout, after which the whole process group is killed.
- a Python audit hook (child.py), always: refuses writes outside the scratch folder, socket connections, forks and
  programs other than Triton's tool chain, and records each attempt for the report. A subject that calls the C
  library through ctypes is not seen by it; the layers above still hold it.
The report lists the protections in force and those that are not, with the reason.
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

NOBODY = (65534, 65534)
PROCESSES = 256                 # threads count too (torch's pool, the interpreter's); a fork bomb stops at this
FILE_BYTES = 4 << 30
# programs the child may start: Triton's tool chain (found in its wheel), the stand-in nvidia-smi a library may
# ask which GPU it is on (smi.py), and ldconfig, which ctypes' find_library runs
TOOL_NAMES = ("ptxas", "cuobjdump", "nvdisasm", "ld.lld", "nvidia-smi", "rocm-smi", "ldconfig", "ldconfig.real",
              "uname")


@dataclass
class Sandbox:
    scratch: Path
    prefix: list[str]                 # bwrap's command line before the child's, or nothing
    env: dict
    settings: dict                    # what child.py applies to itself: limits, user, writable roots, tools
    protections: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"in_force": self.protections, "not_in_force": self.missing}


def prepare(scratch: Path, needed: list[Path], memory_bytes: int, cpu_seconds: int, contain: bool = True) -> Sandbox:
    """The sandbox for one child: `scratch` (created here) is its working folder, `needed` the files and folders
    it must read (the interpreter, the packages, the subject's file)."""
    import triton
    scratch.mkdir(parents=True, exist_ok=True)
    for sub in ("tmp", "triton-cache", "results"):
        (scratch / sub).mkdir(exist_ok=True)
    env = _env(scratch)
    tools = [str(Path(triton.__file__).resolve().parent), *TOOL_NAMES]
    settings = {"limits": {"as": memory_bytes, "cpu": cpu_seconds, "fsize": FILE_BYTES, "core": 0},
                "writable": [str(scratch.resolve())], "tools": tools}
    box = Sandbox(scratch, [], env, settings)
    if not contain:
        box.missing.append("containment (--no-sandbox): the code ran in a child process with no limits")
        box.settings = {"limits": {}, "writable": [], "tools": tools}
        return box
    box.protections.append(f"a process of its own in a scratch folder; limits: {memory_bytes >> 30} GiB of address "
                           f"space, {cpu_seconds} CPU seconds, {FILE_BYTES >> 30} GiB per file")
    bwrap = shutil.which("bwrap")
    binds: list[str] = []
    root = os.geteuid() == 0
    drop = False
    hidden: list[Path] = []
    if root:
        hidden, shown, ok = _private_folders(needed)
        drop = ok and (bwrap is not None or not hidden)
        if drop and bwrap:
            for folder in hidden:
                binds += ["--tmpfs", str(folder)]
            for path in shown:
                binds += ["--ro-bind", str(path), str(path)]
    # under the sandbox's own /tmp, mounted back from the folder just inside /tmp (bubblewrap would make the
    # folders on the way private)
    for top in sorted({_top_of_tmp(p) for p in needed if _under(p, Path("/tmp")) and Path(p) != Path("/tmp")}
                      - {_top_of_tmp(scratch)}):
        if not any(_under(top, h) or _under(h, top) for h in hidden):    # else mounted above, what is needed of it
            binds += ["--ro-bind", str(top), str(top)]
    if bwrap and _bwrap_works(bwrap):
        box.prefix = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *binds,
                      "--bind", str(_top_of_tmp(scratch)), str(_top_of_tmp(scratch)), "--unshare-net", "--unshare-pid", "--unshare-ipc",
                      "--die-with-parent", "--chdir", str(scratch)]
        box.settings["own_pid_namespace"] = True
        box.protections.append("bubblewrap: read-only file system but the scratch folder, no network, "
                               "its own process namespace")
    else:
        box.missing.append("bubblewrap is not installed (Debian: apt install bubblewrap): the file system and the "
                           "network are guarded only by the audit hook" if not bwrap else
                           "bubblewrap could not create namespaces here: the file system and the network are "
                           "guarded only by the audit hook")
    if drop:
        os.chown(scratch, *NOBODY)
        for sub in scratch.iterdir():
            os.chown(sub, *NOBODY)
        box.settings["drop_to"] = list(NOBODY)
        box.settings["limits"]["nproc"] = PROCESSES
        box.protections.append(f"the unprivileged user nobody, at most {PROCESSES} processes and threads")
    elif root:
        box.missing.append("process limit: the check runs as root and a file the code needs is not readable by "
                           "others, so the code keeps root, whom the process limit does not bind")
    else:
        box.settings["limits"]["nproc"] = _own_processes() + PROCESSES
        box.protections.append(f"at most {PROCESSES} processes and threads more than this user runs")
    box.protections.append("an audit hook refusing writes outside the scratch folder, sockets, forks and "
                           "programs other than Triton's tools (ctypes can bypass it)")
    return box


def run(box: Sandbox, settings: dict, timeout: float) -> tuple[int | None, str]:
    """Run child.py in the sandbox with `settings`; (its exit code, or None when --timeout killed it; the tail
    of its stderr). Ctrl-C and signals stop it and everything it started."""
    import json
    settings_file = box.scratch / "settings.json"
    settings_file.write_text(json.dumps({**settings, **box.settings}))
    if box.settings.get("drop_to"):
        os.chown(settings_file, *NOBODY)
    log = box.scratch / "stderr.log"
    command = [*box.prefix, sys.executable, "-m", "playground.check.code.child", str(settings_file)]
    with open(log, "wb") as err:
        child = subprocess.Popen(command, env=box.env, cwd=box.scratch, stdin=subprocess.DEVNULL,
                                 stdout=err, stderr=err, start_new_session=True)
        try:
            code = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:              # what it started and left behind (a fork bomb's children) goes with it
            _kill(child)
    tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    return code, tail


def _kill(child: subprocess.Popen) -> None:
    """SIGKILL to the child's process group, then wait until it is empty (a few seconds at most)."""
    import time
    deadline = time.monotonic() + 5
    while True:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            break
        if child.poll() is None:
            child.wait()
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)


def _env(scratch: Path) -> dict:
    from ...lifecycle import child_env
    env = child_env(TRITON_INTERPRET=None, HOME=str(scratch), TMPDIR=str(scratch / "tmp"),
                    TRITON_CACHE_DIR=str(scratch / "triton-cache"), PYTHONDONTWRITEBYTECODE="1",
                    XDG_CACHE_HOME=str(scratch / "tmp"), TORCHINDUCTOR_CACHE_DIR=str(scratch / "tmp" / "inductor"),
                    USER="nobody", LOGNAME="nobody")
    return env


def _top_of_tmp(path: Path) -> Path:
    """The folder just inside /tmp that holds `path` (the check's own, from mkdtemp), or `path` elsewhere."""
    path = Path(path)
    return Path("/tmp", path.relative_to("/tmp").parts[0]) if _under(path, Path("/tmp")) and path != Path("/tmp") \
        else path


def _private_folders(paths: list[Path]) -> tuple[list[Path], list[Path], bool]:
    """The topmost folders others may not enter on the way to `paths` (bubblewrap hides each behind an empty
    folder), the folders just inside them to mount back (the folders bubblewrap would create on the way to a
    deeper one are private), and whether every path is then readable by others."""
    hidden: list[Path] = []
    shown: set[Path] = set()
    for path in paths:
        path = Path(os.path.realpath(path))
        chain = [*reversed(path.parents), path]
        blocked = next((p for p in chain if not _others_may_enter(p)), None)
        if blocked is None:
            continue
        if blocked == path:
            return hidden, sorted(shown), False
        below = chain[chain.index(blocked) + 1:]
        if not all(_others_may_enter(p) for p in below):
            return hidden, sorted(shown), False
        if not any(_under(blocked, h) for h in hidden):
            hidden = [h for h in hidden if not _under(h, blocked)] + [blocked]
        shown.add(below[0])
    shown = {p for p in shown if not any(p != q and _under(p, q) for q in shown)}
    return hidden, sorted(shown), True


def _others_may_enter(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return True                   # absent: nothing to hide
    need = stat.S_IXOTH | stat.S_IROTH if path.is_dir() else stat.S_IROTH
    return mode & need == need


def _under(path: Path, folder: Path) -> bool:
    return Path(path) == Path(folder) or Path(folder) in Path(path).parents


_WORKS: dict = {}


def _bwrap_works(bwrap: str) -> bool:
    if bwrap not in _WORKS:
        try:
            _WORKS[bwrap] = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-net", "true"],
                                           capture_output=True, timeout=20).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _WORKS[bwrap] = False
    return _WORKS[bwrap]


def _own_processes() -> int:
    uid, count = os.getuid(), 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count
