"""Everything a check draws at random, seeded, on the CPU, so that the subject's process and this one draw the
same numbers without sending them: inputs by class (run/inputs.py's generators), module parameters by name,
gradients for the backward pass."""
from __future__ import annotations

import zlib

from ... import compat
from ...run import inputs as generators
from .arguments import BOOL_DEFAULT, Inputs, TensorArg, TorchDType


def tensors(inputs: Inputs, sizes: dict, seed: int, generator: str = "randn") -> dict:
    """The arguments of one `--inputs` set at `sizes`: tensors drawn, values as given (made torch's: a dtype).

    Floating tensors are drawn by `generator` (the case's input class). Integer and bool tensors are drawn from
    their range and density (arguments.py: given, or INT_DEFAULT and BOOL_DEFAULT) in every case, whatever its
    class: they are indices, offsets, labels and masks, whose meaning a class would break (x100 or all-negative
    indices are out of bounds, not a harder input), and a range is a promise about the code's inputs that every
    case keeps."""
    import torch

    from ...core.dtypes import torch_dtype
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for arg in inputs.args:
        if isinstance(arg, TensorArg):
            tdtype = torch_dtype(arg.dtype)
            dims = arg.shape(sizes)
            if tdtype == torch.bool:
                out[arg.name] = torch.rand(dims, generator=gen) < (BOOL_DEFAULT if arg.p is None else arg.p)
            elif not tdtype.is_floating_point:
                low, high = arg.bounds(sizes)
                out[arg.name] = torch.randint(low, high, dims, generator=gen).to(tdtype)
            else:
                out[arg.name] = generators.draw(generator, dims, tdtype, gen).to(tdtype)
        else:
            out[arg.name] = value(arg.value, sizes)
    return out


def value(given, sizes: dict):
    """A value as the call gets it: a TorchDType as torch's dtype, a name as the --shape size it names."""
    if isinstance(given, TorchDType):
        from ...core.dtypes import torch_dtype
        return torch_dtype(given.name)
    return sizes.get(given, given) if isinstance(given, str) else given


def reclassed(values: list, seed: int, generator: str) -> list:
    """A KernelBench problem's own inputs with every floating tensor redrawn by `generator` (same shape and
    dtype); integer tensors (indices, labels) keep their meaning and their values."""
    import torch
    if generator == "randn":
        return values
    gen = torch.Generator().manual_seed(seed)
    return [generators.draw(generator, tuple(v.shape), v.dtype, gen).to(v.dtype)
            if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values]


def parameter(seed: int, name: str, shape: tuple, dtype, mean: float, std: float):
    """A module's parameter `name`, drawn around its initialisation's own scale: mean + std * N(0, 1), with std 1
    where the initialisation is constant (a norm's weight of ones, a bias of zeros), so code that ignores its
    weights cannot pass on the default initialisation. Seeded by (seed, name): both processes draw it alike."""
    import torch
    gen = torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(name.encode()))
    spread = std if std > 0 else 1.0
    return (mean + spread * torch.randn(shape, generator=gen, dtype=torch.float64)).to(dtype)


def scale_of(tensor) -> tuple[float, float]:
    """(mean, std) of a parameter's initial values: the scale its draw keeps."""
    t = tensor.detach().double()
    if t.numel() < 2:
        return float(t.mean()) if t.numel() else 0.0, 0.0
    return float(t.mean()), float(t.std())


def gradient(seed: int, index: int, shape: tuple, dtype):
    """The gradient fed to output `index` in a backward check: N(0, 1), seeded by (seed, index)."""
    import torch
    gen = torch.Generator().manual_seed(seed * 7919 + 104729 + index)
    return torch.randn(shape, generator=gen, dtype=torch.float64).to(dtype)


# Fresh memory the subject allocates is filled with these bit patterns (guards.py looks for them in the outputs):
# quiet NaNs with a payload no arithmetic produces (an operation on NaN returns the canonical NaN, payload 0 or
# the operand's), and 0x5A bytes for integers.
POISON_BITS = {"float32": 0x7FC0DEAD, "float16": 0x7E5A, "bfloat16": 0x7FAD, "float64": 0x7FF8_0000_DEAD_BEEF}
POISON_BYTE = 0x5A


def poison(tensor) -> None:
    """Fill `tensor` (fresh memory) with the poison of its dtype, in place."""
    import torch
    if tensor.numel() == 0:
        return
    with compat.disable_torch_function():
        pattern = _pattern(tensor.dtype)
        if pattern is not None:
            _raw(tensor, pattern[0]).fill_(pattern[1])
        elif tensor.dtype != torch.bool:
            _raw(tensor, torch.uint8).fill_(POISON_BYTE)


def poisoned(tensor):
    """A bool tensor: which elements of `tensor` still hold the poison (None for dtypes without one)."""
    pattern = _pattern(tensor.dtype)
    if pattern is None or tensor.numel() == 0:
        return None
    return tensor.contiguous().view(pattern[0]) == pattern[1]


def _pattern(dtype):
    """(the integer dtype of a float dtype's width, its poison as a signed value of it), or None."""
    import torch
    name = str(dtype).removeprefix("torch.")
    if name not in POISON_BITS:
        return None
    bits = {"float32": torch.int32, "float16": torch.int16, "bfloat16": torch.int16, "float64": torch.int64}[name]
    value, width = POISON_BITS[name], torch.iinfo(bits).bits
    return bits, value - (1 << width) if value >= 1 << (width - 1) else value


def _raw(tensor, bits):
    """The tensor's storage, every byte it spans, as `bits` (fresh memory: it may be strided)."""
    import torch
    storage = tensor.untyped_storage()
    return torch.empty(0, dtype=torch.uint8).set_(storage).view(bits)


def match_parameters(subject: list, reference: dict | None) -> dict:
    """How the subject's floating parameters [(name, shape)] take the reference's {name: {"shape", ...}}, as a
    user expects: by name where name and shape agree; the rest, in the module tree's order, where what is left on
    both sides has the same shapes in the same order (what load_state_dict would need after a rename). Returns
    {"by": "name" | "order" | "name and order" | "none", "pairs": {subject name: reference name},
    "unmatched_subject": [...], "unmatched_reference": [...]}."""
    if reference is None:
        return {"by": "none", "pairs": {}, "unmatched_subject": [], "unmatched_reference": []}
    pairs = {n: n for n, shape in subject if n in reference and tuple(reference[n]["shape"]) == tuple(shape)}
    left = [(n, tuple(shape)) for n, shape in subject if n not in pairs]
    others = [(n, tuple(spec["shape"])) for n, spec in reference.items() if n not in pairs.values()]
    by_order = bool(left) and len(left) == len(others) and all(a[1] == b[1] for a, b in zip(left, others))
    if by_order:
        pairs.update({a[0]: b[0] for a, b in zip(left, others)})
        left, others = [], []
    by = ("name and order" if any(k != v for k, v in pairs.items()) and any(k == v for k, v in pairs.items())
          else "order" if by_order else "name" if pairs else "none")
    return {"by": by, "pairs": pairs, "unmatched_subject": [n for n, _ in left],
            "unmatched_reference": [n for n, _ in others]}
