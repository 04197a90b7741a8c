"""FLOPs and bytes for a kernel that has no KernelSpec to count them: a bare kernel (`--args`) or a
variant reopened from a `run` trace.

The kernel's own `launch_metadata` hook (`@triton.jit(launch_metadata=fn)`, what Triton's profiler
proton reads) is asked first, with the launch's arguments; failing that, every tensor argument's bytes
are counted once, and no FLOPs. Which of the two gave the figures is kept beside them (`basis`), so every
figure built on them can say what it stands on.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

TENSOR_BASIS = "its tensor arguments' bytes, each read or written once; no FLOPs"
METADATA_BASIS = "the kernel's launch_metadata"


@dataclass(frozen=True)
class Work:
    flops: int
    bytes: int
    basis: str


def tensor_bytes(args: dict) -> int:
    """Bytes of every tensor among `args` (name -> value), once each: anything with a shape and an
    element size (torch tensors and the playground's stand-ins alike)."""
    tensors = (getattr(value, "base", value) for value in _flat(args.values()))   # a descriptor: its tensor
    return _bytes_of((t.shape, t.element_size()) for t in tensors
                     if hasattr(t, "shape") and hasattr(t, "element_size"))


def _flat(values):
    """The values, with a tuple argument's items in its place (a kernel may take a tuple of tensors)."""
    for value in values:
        if isinstance(value, tuple):
            yield from _flat(value)
        else:
            yield value


def recorded_tensor_bytes(arg_records: list[dict]) -> int:
    """The same count over a `run` trace's argument records (virtual/launches.py), where a tensor is
    kept as its shape and torch's name for its dtype."""
    import torch  # a trace comes from a script that imports torch
    records = _flat_records(arg_records)
    tensors = (a if a["kind"] == "tensor" else a["base"] for a in records
               if a["kind"] in ("tensor", "tensordesc"))            # a descriptor: the tensor it describes
    return _bytes_of((t["shape"], getattr(torch, t["dtype"]).itemsize) for t in tensors)


def _flat_records(arg_records):
    for a in arg_records:
        if a["kind"] == "tuple":
            yield from _flat_records(a["items"])
        else:
            yield a


def _bytes_of(shapes_and_sizes) -> int:
    return sum(math.prod(shape) * element_size for shape, element_size in shapes_and_sizes)


def from_metadata(jit, grid: tuple, metadata, args: dict) -> Work | None:
    """The kernel's launch_metadata figures, or None when it has no hook, gives no bytes, or fails on
    these arguments (a hook written for torch tensors may ask more of a stand-in than it has)."""
    hook = getattr(jit, "launch_metadata", None)
    if not hook:
        return None
    try:
        meta = hook(tuple(grid), metadata, args)
        flops = sum(int(v) for k, v in meta.items() if k.startswith("flops"))
        return Work(flops, int(meta["bytes"]), METADATA_BASIS) if "bytes" in meta else None
    except Exception:
        return None


def of_arguments(jit, grid: tuple, args: dict, name: str) -> Work:
    """What a launch with these arguments does, by the hook or else by its tensors. The hook is given a
    stand-in for the compiled kernel's metadata that holds its name: the compile has not run yet."""
    return (from_metadata(jit, grid, SimpleNamespace(name=name), args)
            or Work(0, tensor_bytes(args), TENSOR_BASIS))


def fill_spec(spec, work: Work) -> None:
    """Give `spec` the counts `bench`, the roofline and the model read, with where they came from."""
    spec.flops = lambda shape: work.flops
    spec.bytes = lambda shape, elem: work.bytes
    spec.work_basis = work.basis
