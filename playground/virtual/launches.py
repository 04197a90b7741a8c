"""A captured launch as data, and back again as a KernelSpec: how every command reopens a variant.

A launch is kept as its *source*: the kernel's file and name, the target, the grid, and each
argument as the JIT's binder sees it (a tensor's shape, strides, dtype and its address modulo 16;
a scalar's value; a constexpr's value), plus num_warps, num_stages and any other backend option.
`spec_for` turns that into a KernelSpec whose arguments are storage-free stand-ins with the same
address residue and the same scalars, so Triton's own binder specialises them exactly as it did the
live launch: the rebuilt Request compiles to the same binary (capture.py checks the hash).

A trace file (`playground run --trace FILE`) is opened as `FILE#N`, N a variant's number in the
launch table; `FILE` alone means variant 1. Reading the kernel back out of the script's file needs a
virtual GPU installed, so that part is trace_kernels.py's.
"""
from __future__ import annotations

from ..core import layouts, work
from ..core.spec import AbstractTensor, KernelSpec, Tensor
from ..errors import UserError
from ..files import read_json

TRACE_FORMAT = "playground-trace/1"


# --- describing a live launch ---------------------------------------------------------------------
def describe_args(jit, values) -> list[dict]:
    """Each bound argument as the binder sees it (JSON-able)."""
    return [_describe(p, v) for p, v in zip(jit.params, values)]


def _describe(param, value) -> dict:
    entry = {"name": param.name}
    if param.is_constexpr:
        return entry | {"kind": "constexpr", "value": _plain(value)}
    return entry | _runtime(value)


def _runtime(value) -> dict:
    """A runtime argument as the binder sees it; a tuple (of tensors, scalars, tuples) item by item."""
    if isinstance(value, tuple):
        return {"kind": "tuple", "items": [_runtime(v) for v in value]}
    if hasattr(value, "data_ptr") and hasattr(value, "stride"):
        return {"kind": "tensor", "shape": list(value.shape), "strides": list(value.stride()),
                "dtype": str(value.dtype).removeprefix("torch."), "address_mod_16": value.data_ptr() % 16,
                "span_bytes": _span_bytes(value)}
    if type(value).__name__ == "TensorDescriptor":
        return {"kind": "tensordesc", "base": _runtime(value.base), "shape": list(value.shape),
                "strides": list(value.strides), "block_shape": list(value.block_shape),
                "padding": value.padding, "round_f32_to_tf32": bool(getattr(value, "round_f32_to_tf32", False))}
    if value is None or isinstance(value, (bool, int, float)):
        return {"kind": "scalar", "value": value}
    return {"kind": "other", "value": repr(value)[:80]}


def _span_bytes(t) -> int:
    """Bytes from the tensor's first element to the end of its storage: what Triton's AMD binder asks."""
    try:
        return t.untyped_storage().nbytes() - t.storage_offset() * t.element_size()
    except Exception:
        return t.numel() * t.element_size()


def _plain(value):
    """A constexpr as JSON: numbers, strings and None as they are, a Triton dtype by its name
    ({"dtype": "fp16"}); anything else marked as not data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "value") and isinstance(value.value, (bool, int, float, str)):
        return value.value
    import triton.language as tl
    if isinstance(value, tl.dtype):
        return {"dtype": value.name}
    if isinstance(value, tuple) and not any(isinstance(_plain(v), dict) and "repr" in _plain(v) for v in value):
        return {"tuple": [_plain(v) for v in value]}
    if type(value).__name__ == "JITFunction":     # a @triton.jit function passed as a constexpr (an activation)
        return {"function": value.__name__, "module": value.fn.__module__}
    if layouts.is_layout(value):                  # a Gluon layout: its repr is its constructor call
        return {"layout": repr(value)}
    return {"repr": repr(value)[:80]}


def _constexpr(value, jit):
    """A constexpr read back from JSON (_plain's inverse); a function by its name where the kernel is defined."""
    if isinstance(value, dict) and "dtype" in value:
        import triton.language as tl
        return tl.dtype(value["dtype"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_constexpr(v, jit) for v in value["tuple"])
    if isinstance(value, dict) and "layout" in value:
        return layouts.read(value["layout"])
    if isinstance(value, dict) and "function" in value:
        found = jit.fn.__globals__.get(value["function"])
        if found is None:
            raise UserError(f"the @triton.jit function {value['function']} passed to {jit.__name__} is not defined "
                            f"beside it")
        return found
    return value


def specialised(src) -> list[str]:
    """What the JIT assumed, read from the ASTSource it compiled: per argument, in words."""
    names = list(src.signature)
    words = []
    for path, attrs in sorted(src.attrs.items()):
        name = names[path[0]] if path and path[0] < len(names) else str(path)
        kind = src.signature.get(name, "")
        for index in path[1:]:          # an item of a tuple argument: pair[0]
            name, kind = f"{name}[{index}]", kind[index] if isinstance(kind, tuple) else kind
        for attr in attrs:
            if attr and attr[0] == "tt.divisibility":
                pointer = str(kind).startswith("*")
                words.append(f"{name}: {'16-byte aligned' if pointer else 'divisible by 16'}")
            elif attr:
                words.append(f"{name}: {attr[0]}={attr[1]}")
    for path, value in sorted(src.constants.items()):
        name = names[path[0]] if path and path[0] < len(names) else str(path)
        if str(src.signature.get(name)) != "constexpr":
            words.append(f"{name} = {value} (specialised)")
    return words


def work_of(jit, kernel, record, values) -> tuple[int, int, str]:
    """FLOPs and bytes for the model: the kernel's own launch_metadata if it gives them, else the tensors'
    (core/work.py's rule, here with the live tensors and the compiled kernel's metadata)."""
    if values is not None:
        found = work.from_metadata(jit, record["grid"], kernel.metadata, dict(zip(jit.arg_names, values)))
        if found:
            return found.flops, found.bytes, found.basis
    return 0, work.recorded_tensor_bytes(record.get("args", [])), work.TENSOR_BASIS


def _not_data(arg: dict) -> bool:
    """An argument recorded only as its repr: nothing to rebuild it from."""
    if arg["kind"] == "tuple":
        return any(_not_data(item) for item in arg["items"])
    return arg["kind"] == "other" or (arg["kind"] == "constexpr" and isinstance(arg["value"], dict)
                                      and "repr" in arg["value"])


def source_of(record: dict, target: str) -> dict:
    """What another process needs to rebuild this launch (the `source` of a variant in a trace)."""
    for a in record["args"]:
        if _not_data(a):
            raise UserError(f"argument {a['name']} ({a['kind']}) cannot be rebuilt from the trace yet")
    return {"kernel": record["kernel"], "file": record.get("file"), "target": target, "grid": record["grid"],
            "args": record["args"], "num_warps": record["num_warps"], "num_stages": record["num_stages"],
            "options": {k: v for k, v in record["options"].items() if k not in ("num_warps", "num_stages")}}


# --- back to a Request ----------------------------------------------------------------------------
class CapturedTensor(AbstractTensor):
    """A stand-in with the captured tensor's dtype (torch's own: scripts that are captured import torch),
    strides and address modulo 16."""

    def __init__(self, arg: dict):
        import torch
        self.shape, self._strides = tuple(arg["shape"]), tuple(arg["strides"])
        self.dtype_name = arg["dtype"]
        self.dtype = getattr(torch, arg["dtype"])
        self.address = self.ALIGNED_ADDRESS + arg["address_mod_16"]
        self.span = arg["span_bytes"]

    def data_ptr(self) -> int:
        return self.address

    def ptr_range(self) -> int:
        return self.span

    def element_size(self) -> int:
        return self.dtype.itemsize


def _stand_in(arg: dict, jit):
    """A captured argument as the binder should see it again."""
    if arg["kind"] == "tensor":
        return CapturedTensor(arg)
    if arg["kind"] == "tuple":
        return tuple(_stand_in(item, jit) for item in arg["items"])
    if arg["kind"] == "tensordesc":
        from triton.tools.tensor_descriptor import TensorDescriptor
        return TensorDescriptor(CapturedTensor(arg["base"]), arg["shape"], arg["strides"], arg["block_shape"],
                                arg["padding"], arg["round_f32_to_tf32"])
    return _constexpr(arg["value"], jit) if arg["kind"] == "constexpr" else arg["value"]


def spec_for(source: dict, jit) -> KernelSpec:
    """A KernelSpec that launches `jit` exactly as captured: positional values up to the last runtime
    argument, the constexprs after it (and backend options) as meta."""
    args = source["args"]
    last_runtime = max((i for i, a in enumerate(args) if a["kind"] != "constexpr"), default=-1)
    positional = args[:last_runtime + 1]
    meta = {a["name"]: _constexpr(a["value"], jit) for a in args[last_runtime + 1:]} | dict(source.get("options", {}))
    tensors = {a["name"]: Tensor(tuple(a["shape"]), output=False) for a in positional if a["kind"] == "tensor"}

    def runtime_args(**_):
        return tuple(_stand_in(a, jit) for a in positional)

    grid = tuple(source["grid"])
    spec = KernelSpec(name=source["kernel"], kernel=jit,
                      description=f"{source['kernel']} as captured by playground run", tensors=tensors,
                      args=runtime_args, grid=lambda shape, meta: grid, meta=meta,
                      default_shape={}, num_warps=source["num_warps"], num_stages=source["num_stages"],
                      source_path=source["file"])
    # what `run` modelled the launch with: its launch_metadata, or else its tensors' bytes (core/work.py)
    arguments = {a["name"]: _stand_in(a, jit) for a in args}
    work.fill_spec(spec, work.of_arguments(jit, grid, arguments, source["kernel"]))
    return spec


def request_for(source: dict, jit):
    """The Request a captured launch compiles to; `jit` its @triton.jit function (trace_kernels.load_kernel reads one
    out of the script's file)."""
    from ..artefact.request import Request
    spec = spec_for(source, jit)
    return Request.of(spec, source["target"])


# --- trace files ----------------------------------------------------------------------------------
def load_trace(path: str) -> dict:
    try:
        trace = read_json(path)
    except (OSError, ValueError) as e:
        raise UserError(f"{path}: not a readable trace: {e}") from None
    if trace.get("format") != TRACE_FORMAT:
        raise UserError(f"{path}: not a `playground run --trace` file (format {trace.get('format')!r})")
    return trace


def variant_source(ref: str) -> dict:
    """The source of variant N of a trace, from `FILE.json#N` (N from 1; default 1)."""
    path, _, number = ref.partition("#")
    trace = load_trace(path)
    variants = trace["variants"]
    try:
        n = int(number or 1)
        variant = variants[n - 1] if n >= 1 else None
    except (ValueError, IndexError):
        variant = None
    if variant is None:
        raise UserError(f"{ref}: the trace has variants 1..{len(variants)}")
    if not variant.get("source"):
        raise UserError(f"{ref}: variant {n} ({variant['kernel']}) is {variant.get('rebuild', 'not reopenable')}")
    return variant["source"]


def one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")
