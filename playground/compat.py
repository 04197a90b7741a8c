"""The torch and Triton releases playground works with, and its reaches into their private internals.

The stack users install moves every month, and a private name may move with it. Each reach below names the
releases it was read from; a torch or Triton outside SUPPORTED stops a command with one line naming the version
and the range (exit 2), before anything of it is imported, instead of a traceback from deep inside.

Importing this module imports neither torch nor Triton: the checks read the installed versions' metadata
(versions.py), and each reach imports what it touches when called.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .errors import UserError

# The oldest and newest minor release of each that playground is written for. torch 2.11 pins Triton 3.6, 2.12 and
# 2.13 pin 3.7, 2.14 pins 3.8; 3.9 is the newest Triton. CI runs torch 2.13 (CPU) with Triton 3.9 and 3.6, and
# torch 2.14.1 (CUDA build) with its Triton 3.8 (scripts/test.sh).
SUPPORTED = {"torch": ((2, 11), (2, 15)), "triton": ((3, 6), (3, 9))}
# Accepted with a warning: newer than any release the suite has run on (this project's machines install torch up
# to 2.14.1; 2.15 was released after that and cannot be installed there).
UNTESTED = {"torch": (2, 15)}


class UnsupportedVersion(UserError):
    """A torch or Triton this playground was not written for."""


def minor(version: str) -> tuple[int, int]:
    """(2, 14) for '2.14.1+cu130', '2.14.0a0', '2.14'."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    if not m:
        raise UnsupportedVersion(f"cannot read the version {version!r}")
    return int(m.group(1)), int(m.group(2))


def supported_range(package: str) -> str:
    """'2.11 to 2.14 (2.15 untested)', 'triton 3.6 to 3.9'."""
    (a, b), (c, d) = SUPPORTED[package]
    if UNTESTED.get(package) == (c, d):
        return f"{a}.{b} to {c}.{d - 1} ({c}.{d} untested)"
    return f"{a}.{b} to {c}.{d}"


def check(package: str, version: str | None = None) -> str:
    """The installed `package`'s version, or UnsupportedVersion naming it and the supported range."""
    from . import versions
    if version is None:
        version = (versions.torch_build().get("torch") if package == "torch" else versions.package_version(package))
    if version is None:
        raise UnsupportedVersion(f"{package} is not installed: playground works with {package} {supported_range(package)}"
                                 + (" (pip install torch; its CPU build is enough)" if package == "torch" else ""))
    low, high = SUPPORTED[package]
    if not low <= minor(version) <= high:
        raise UnsupportedVersion(f"{package} {version} is not supported: playground works with {package} "
                                 f"{supported_range(package)} (playground/compat.py names what each release needs)")
    if minor(version) == UNTESTED.get(package):
        _warn_once(f"{package} {version} is newer than any release playground's tests have run on "
                   f"(up to {package} 2.14.1): report what fails")
    return version


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        import warnings
        warnings.warn(message, stacklevel=3)


def check_torch() -> str:
    """For the commands that run kernels or plan with torch (run, check, fuse, bench's measurement, puzzle)."""
    check("triton")
    return check("torch")


# ---- the reaches: every private torch or Triton name playground reads or patches -------------------------------
# Each row names where the name lives, the releases it was read from, and why playground needs it; `needs` lists the
# names playground then reads or patches on it, so that a release without one fails here, in one line, and not
# deep in a launch. Read from the installed sources of torch 2.13 and 2.14.1 and Triton 3.8 and 3.9 (the two CI
# stacks here); the rest of each range as CI runs it (Triton 3.6) and as the release notes leave these names.
TORCH, TRITON = "torch 2.11 to 2.14", "Triton 3.6 to 3.9"


class Reach(NamedTuple):
    module: str
    attribute: str | None         # a dotted path on the module; None: the module itself
    releases: str
    why: str
    needs: tuple[str, ...] = ()
    since: tuple[int, int] | None = None    # the first release that has it, where that is later than the range's


REACHES = {
    # torch: function modes and dispatch, autograd
    "TorchDispatchMode": Reach("torch.utils._python_dispatch", "TorchDispatchMode", TORCH,
                               "the modes that see ATen ops on GPU tensors (torch_device, dispatch, allocator)"),
    "OpOverload": Reach("torch._ops", "OpOverload", TORCH, "which dispatched funcs are ATen ops with a name"),
    "DisableTorchFunction": Reach("torch._C", "DisableTorchFunction", TORCH,
                                  "plain tensor work under the device's function mode, unseen by it"),
    "tree_map": Reach("torch.utils._pytree", "tree_map", TORCH, "an op's meta result, each tensor made real"),
    "make_subclass": Reach("torch", "Tensor._make_subclass", TORCH, "a subclass's data as a plain tensor (judge)"),
    "FakeTensorMode": Reach("torch._subclasses.fake_tensor", "FakeTensorMode", TORCH,
                            "tensors Inductor plans for, nothing allocated (fuse)"),
    "fake_tensor": Reach("torch._subclasses.fake_tensor", None, TORCH,
                         "a fake CUDA tensor's first creation, which makes a real one to start the GPU's context (fuse)",
                         ("init_gpu_context",)),
    "cuda_sleep": Reach("torch.cuda", "_sleep", TORCH, "a busy GPU while the host enqueues (bench --breakdown)"),
    "nvml_device_index": Reach("torch.cuda", "_get_nvml_device_index", TORCH,
                               "NVML's index of a CUDA device, through CUDA_VISIBLE_DEVICES (bench's environment)"),
    # Inductor and Dynamo: config, device interface, get_code, heuristics
    "dynamo": Reach("torch._dynamo", None, TORCH,
                    "imported ahead: it reads the build's real CUDA state, and costs 1-2 s"),
    "inductor_config": Reach("torch._inductor.config", None, TORCH, "caches off, autotuning as fuse asks",
                             ("max_autotune", "benchmark_epilogue_fusion", "compile_threads", "fx_graph_cache",
                              "autotune_local_cache", "use_static_cuda_launcher")),
    "device_interface": Reach("torch._dynamo.device_interface", None, TORCH,
                              "Inductor's CUDA interface, answering for the target (fuse's fakes)",
                              ("get_interface_for_device",)),
    "joint_graph": Reach("torch._inductor.fx_passes.joint_graph", None, TORCH,
                         "pattern initialisation traced on the CPU (fuse's fakes)", ("lazy_init",)),
    "get_code": Reach("torch._inductor.utils", "get_code", TORCH, "the wrapper and kernels Inductor would launch"),
    "compile_fx": Reach("torch._inductor.compile_fx", "compile_fx", TORCH, "torch.compile's backend, graph kept"),
    "select_algorithm": Reach("torch._inductor.select_algorithm", None, TORCH,
                              "GEMM candidates ranked by the model (fuse --max-autotune)", ("AlgorithmSelectorCache",)),
    "triton_helpers": Reach("torch._inductor.runtime.triton_helpers", None, TORCH,
                            "what generated kernels call, libdevice swapped for the interpreter's",
                            ("libdevice", "math", "set_driver_to_gpu")),
    "CachingAutotuner": Reach("torch._inductor.runtime.triton_heuristics", "CachingAutotuner", TORCH,
                              "the wrapper's kernels, each run on its configs (fuse --run)"),
    # Triton: the interpreter's builder and handles
    "interpreter": Reach("triton.runtime.interpreter", None, TRITON,
                         "bf16 math, sanitizers, access tracking and launches patched into the interpreter",
                         ("InterpreterBuilder", "interpreter_builder", "TensorHandle", "InterpretedFunction",
                          "GridExecutor", "ReduceOps", "ScanOps", "_patch_lang", "_patch_builtin", "_LangPatchScope",
                          "_implicit_cvt", "_get_np_dtype")),
    # Triton: the driver
    "driver": Reach("triton.runtime", "driver", TRITON, "the active driver: the GPU's, or the virtual one set active",
                    ("active", "set_active")),
    "DriverBase": Reach("triton.backends.driver", "DriverBase", TRITON, "the virtual GPU's stand-in driver"),
    "expand_signature": Reach("triton.backends.driver", "expand_signature", "Triton 3.8 to 3.9",
                              "a tensor descriptor's parameters as the launcher expands them (inspect --params)",
                              since=(3, 8)),     # Triton 3.6 keeps it inside each driver's launcher
    "allocation": Reach("triton.runtime._allocation", None, TRITON,
                        "global scratch asked of the user's allocator, as the real launcher does", ("_allocator",)),
    "sm_arch_from_capability": Reach("triton.backends.nvidia.compiler", "sm_arch_from_capability", TRITON,
                                     "nvdisasm's name for the binary's architecture"),
    "HIPBackend": Reach("triton.backends.amd.compiler", "HIPBackend", TRITON,
                        "the 2 GB test on a virtual AMD pointer", ("is_within_2gb",)),
    # Triton: JITFunction.run and the compile
    "JITFunction": Reach("triton.runtime.jit", "JITFunction", TRITON,
                         "launches watched, skipped while reading, callees interpreted", ("run", "_do_compile")),
    "create_function_from_signature": Reach("triton.runtime.jit", "create_function_from_signature", TRITON,
                                            "the JIT's own binder, asked what it would specialise"),
    "CompiledKernel": Reach("triton.compiler.compiler", "CompiledKernel", TRITON,
                            "a cached kernel loaded back; a compiled kernel's own launches watched"),
    "GluonASTSource": Reach("triton.experimental.gluon._runtime", "GluonASTSource", TRITON,
                            "what triton.compile takes for a @gluon.jit kernel"),
    # Triton: the cache and libtriton
    "get_cache_manager": Reach("triton.runtime.cache", "get_cache_manager", TRITON,
                               "playground's index, figures and binder answers kept in Triton's cache"),
    "cache_invalidating_env_vars": Reach("triton._C.libtriton", "get_cache_invalidating_env_vars", TRITON,
                                         "the environment Triton keys its cache on, in ours too"),
    "libtriton_ir": Reach("triton._C.libtriton", "ir", TRITON, "the IR around every MLIR pass (passes_child)",
                          ("pass_manager",)),
}


def reach(name: str):
    """The private name REACHES[name] points at, or UnsupportedVersion naming the release and what it lacks."""
    import importlib
    row = REACHES[name]
    package = row.module.partition(".")[0]
    path = row.module + (f".{row.attribute}" if row.attribute else "")
    if row.since and not available(name):
        from . import versions
        raise UserError(f"{row.why} needs {package} {row.since[0]}.{row.since[1]} or newer ({path}); this is "
                        f"{package} {versions.package_version(package)}")
    try:
        found = importlib.import_module(row.module)
        for part in (row.attribute.split(".") if row.attribute else ()):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise _missing(package, path, row) from None
    if name not in _CHECKED:           # the type first: a property (driver.active) is found, not run
        for needed in row.needs:
            if not (hasattr(type(found), needed) or hasattr(found, needed)):
                raise _missing(package, f"{path}.{needed}", row)
        _CHECKED.add(name)
    return found


_CHECKED: set[str] = set()


def available(name: str) -> bool:
    """Whether the installed release is one that has REACHES[name] (its `since`)."""
    from . import versions
    row = REACHES[name]
    package = row.module.partition(".")[0]
    version = versions.torch_build().get("torch") if package == "torch" else versions.package_version(package)
    return not row.since or (version is not None and minor(version) >= row.since)


def _missing(package: str, path: str, row: Reach) -> UnsupportedVersion:
    from . import versions
    version = versions.torch_build().get("torch") if package == "torch" else versions.package_version(package)
    return UnsupportedVersion(f"{package} {version} has no {path} (read from {row.releases}, for {row.why}): "
                              f"playground works with {package} {supported_range(package)}")


def disable_torch_function():
    """torch._C.DisableTorchFunction(), a context: inside it no TorchFunctionMode sees a call (2.11 to 2.14)."""
    return reach("DisableTorchFunction")()


def set_current_raw_stream(getter) -> None:
    """Stand `getter` in for torch._C._cuda_getCurrentRawStream(device), which CUDA builds define in C and CPU builds
    lack (torch 2.11 to 2.14): code that launches on the current stream asks it for the raw handle."""
    import torch
    torch._C._cuda_getCurrentRawStream = getter


def function_apply(function_cls):
    """The `apply` that autograd.Function subclasses inherit, unbound, so a wrapper can call it for any subclass.

    torch 2.11 to 2.13 define it in Python (a classmethod on Function that calls _C._FunctionBase.apply);
    torch 2.14 assigns _C._FunctionBase's classmethod_descriptor to Function directly (torch/autograd/function.py),
    which has no __func__. Both bind with __get__(None, cls)."""
    for klass in function_cls.__mro__:
        if "apply" in vars(klass):
            raw = vars(klass)["apply"]
            return lambda cls, *args, **kwargs: raw.__get__(None, cls)(*args, **kwargs)
    raise _missing("torch", f"{function_cls.__name__}.apply", Reach("torch.autograd", None, TORCH, "autograd on GPU"))


def saved_tensors_property():
    """The C property that unpacks a backward node's saved tensors: _C._FunctionBase.saved_tensors (2.11 to 2.14)."""
    import torch
    return torch._C._FunctionBase.saved_tensors


def function_mode_stack() -> list:
    """The TorchFunctionModes now active, innermost last: torch.overrides._get_current_function_mode_stack (2.11
    to 2.14)."""
    import torch.overrides
    return torch.overrides._get_current_function_mode_stack()


def redispatch_to_cuda(op, *args, **kwargs):
    """Run an OpOverload's kernel registered for the CUDA key (OpOverload.redispatch with a one-key DispatchKeySet,
    2.11 to 2.14)."""
    import torch
    return op.redispatch(torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA), *args, **kwargs)
