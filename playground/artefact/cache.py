"""A fast path into Triton's own cache, for the warm `compile`.

Triton's cache key starts with `triton_key()`, a SHA-256 of libtriton.so and Triton's
sources: about 0.4 s in every new process, longer than the rest of a warm command. We keep
a small index in Triton's cache directory from a key of our own to Triton's kernel hash, and
load the cached kernel from Triton's cache group directly. Our key holds everything Triton's
key holds (the kernel's source hash with its dependencies, signature, constants,
attributes, target, options, the cache-invalidating environment variables) except that
Triton's installation is identified by its version and libtriton's size and mtime instead
of a hash of its bytes: reinstalling Triton changes both. On a miss, `triton.compile` runs
as usual and the index learns the answer.

Triton's binder (`create_function_from_signature`) is asked once per launch shape: its answer,
the specialisation and the constexprs' values, is kept too, under a key holding everything the
binder reads (the kernel's source hash with its dependencies, its do_not_specialize lists, the
target, every argument as the binder sees it, the options, the Triton installation). On a warm
run that saves the binder's first-call import of `triton.experimental.gluon` (about 60 ms);
tests/test_compile.py proves the kept answer equals a fresh one.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import sysconfig
from pathlib import Path

from .. import compat
from ..core.spec import AbstractTensor

INDEX_FILE = "playground-index.json"


def _installation() -> str:
    import triton
    root = Path(triton.__file__).parent
    ext = sysconfig.get_config_var("EXT_SUFFIX").split(".")[-1]
    lib = root / "_C" / f"libtriton.{ext}"
    st = lib.stat() if lib.exists() else None
    return f"{triton.__version__}:{root}:{st.st_size if st else 0}:{st.st_mtime_ns if st else 0}"


def key(src, target, options) -> str:
    get_cache_invalidating_env_vars = compat.reach("cache_invalidating_env_vars")
    parts = [_installation(), src.hash(), repr(target), repr(sorted(options.__dict__.items())),
             repr(sorted(get_cache_invalidating_env_vars().items()))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _entry(our_key: str):
    """(kernel hash, Triton's cache group) for this key when the whole group is on disk, else None."""
    get_cache_manager = compat.reach("get_cache_manager")
    index = get_cache_manager(our_key).get_file(INDEX_FILE)
    if index is None:
        return None
    try:
        entry = json.loads(Path(index).read_text())
        group = get_cache_manager(entry["hash"]).get_group(entry["metadata"])
        if not group or entry["metadata"] not in group:
            return None
        return entry["hash"], group
    except (OSError, ValueError, KeyError, StopIteration):
        return None   # a stale or partial entry: compile again


def lookup(our_key: str, src):
    """Triton's CompiledKernel for this key, from Triton's cache, or None."""
    CompiledKernel = compat.reach("CompiledKernel")
    found = _entry(our_key)
    return None if found is None else CompiledKernel(src, found[1], found[0])


def lookup_hash(our_key: str) -> str | None:
    """The cached kernel's hash for this key, without loading its artefacts; None when not cached."""
    found = _entry(our_key)
    return None if found is None else found[0]


def record(our_key: str, kernel) -> None:
    get_cache_manager = compat.reach("get_cache_manager")
    metadata = next((n for n in kernel.metadata_group if n.endswith(".json") and not n.startswith("__grp__")), None)
    if metadata is None:
        return
    entry = json.dumps({"hash": kernel.hash, "metadata": metadata})
    get_cache_manager(our_key).put(entry, INDEX_FILE, binary=False)   # Triton's put is atomic (rename)


def kept_json(our_key: str, name: str) -> dict | None:
    """A JSON file playground keeps in Triton's cache under its own key (derived figures, plans), or None."""
    get_cache_manager = compat.reach("get_cache_manager")
    path = get_cache_manager(our_key).get_file(name)
    if path is None:
        return None
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def keep_json(our_key: str, name: str, data: dict) -> None:
    get_cache_manager = compat.reach("get_cache_manager")
    get_cache_manager(our_key).put(json.dumps(data), name, binary=False)   # atomic: Triton writes, then renames


def disabled() -> bool:
    """Honour Triton's own switches that force a fresh compile."""
    from triton import knobs
    return bool(knobs.compilation.always_compile or os.environ.get("TRITON_ALWAYS_COMPILE") == "1")


BINDER_FILE = "playground-binder.pkl"
_PLAIN = (bool, int, float, str, type(None))


def binder_key(fn, target, args, kwargs) -> str | None:
    """A key for the binder's answer, or None when an argument is not one we can key on exactly."""
    seen = []
    for a in args:
        if isinstance(a, AbstractTensor):
            seen.append(("tensor", a.dtype_name, a.shape, a.stride(), a.data_ptr(), a.ptr_range()))
        elif isinstance(a, _PLAIN):
            seen.append((type(a).__name__, a))
        else:
            return None
    if not all(isinstance(v, _PLAIN) for v in kwargs.values()):
        return None
    get_cache_invalidating_env_vars = compat.reach("cache_invalidating_env_vars")
    parts = ["binder", _installation(), fn.cache_key, repr(getattr(fn, "do_not_specialize", ())),
             repr(getattr(fn, "do_not_specialize_on_alignment", ())), repr(target), repr(seen),
             repr(sorted((k, type(v).__name__, v) for k, v in kwargs.items())),
             repr(sorted(get_cache_invalidating_env_vars().items()))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def binder_lookup(key: str):
    get_cache_manager = compat.reach("get_cache_manager")
    path = get_cache_manager(key).get_file(BINDER_FILE)
    if path is None:
        return None
    try:
        return pickle.loads(Path(path).read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        return None     # a stale or partial entry: ask the binder again


def binder_record(key: str, answer) -> None:
    get_cache_manager = compat.reach("get_cache_manager")
    get_cache_manager(key).put(pickle.dumps(answer), BINDER_FILE, binary=True)
