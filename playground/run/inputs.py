"""Input generators by class: the values a case's inputs hold.

`randn` is what every case runs. The others aim at bugs that ordinary values hide:
- large: N(0, 1) x 100. exp(x) overflows fp32 past x = 88.7, so a softmax that forgets to
  subtract the row maximum breaks here and nowhere else.
- huge: values near a quarter of the dtype's largest finite value, for ops whose reference is
  stable there (a spec names it).
- negative: every value at most -1. A masked max whose masked-out lanes read 0 is right
  whenever a row holds a positive value, which N(0, 1) rows always do.
- positive: every value at least 1, negative's mirror: a masked min whose masked-out lanes read 0 is
  right whenever a row holds a negative value.
- equal: each row one repeated value (a 1-D tensor: one value). Variance 0, every element the
  maximum at once: ties and divisions by a zero spread.
- neg_inf: about a quarter of each row -inf, never a whole row (a spec names it where its
  reference defines the result, as softmax's does).
- extremes: integers at their type's limits and next to them.
- spiky: N(0, 1) with about one element in 256 (at least one) replaced by +-50..100. An answer
  that assumes its inputs are N(0, 1), or reads only a sample of them, misses the spikes; a
  softmax without the row maximum overflows fp32 on them (exp(x) past x = 88.7).

All draw from one seeded generator on the CPU, so every device and every run sees the same
numbers. A spec's `generators` names the ones it supports; otherwise its dtypes decide.
"""
from __future__ import annotations

GENERATORS = {
    "randn": "N(0, 1)",
    "large": "N(0, 1) x 100",
    "huge": "near the dtype's overflow",
    "negative": "all values <= -1",
    "positive": "all values >= 1",
    "equal": "each row one value",
    "neg_inf": "rows with -inf entries",
    "extremes": "integer limits",
    "spiky": "N(0, 1), a few +-50..100",
}
SCALING = ("large", "huge", "spiky")      # generators that scale the values: check scales atol with the outputs
FLOAT_DEFAULT = ("randn", "large", "negative", "positive", "equal")
INT_DEFAULT = ("randn", "extremes")


def names_for(spec, dtype: str) -> tuple[str, ...]:
    """The generators a case of `spec` at `dtype` runs: the spec's own list, or the dtype's default.

    A spec with its own make_inputs runs those alone: its inputs have a meaning (indices, a
    mask) that rescaling would break.
    """
    if spec.make_inputs is not None:
        return ("randn",)
    floating = any(_is_float(spec.tensor_dtype(n, dtype)) for n in spec.inputs)
    own = getattr(spec, "generators", None)
    if own:
        return tuple(own)
    return FLOAT_DEFAULT if floating else INT_DEFAULT


def values(spec, shape: dict, dtype: str, seed: int, generator: str = "randn") -> dict:
    """Seeded input tensors for `spec` at `shape`, drawn by `generator`."""
    import torch

    from ..core.dtypes import torch_dtype
    if generator not in GENERATORS:
        from ..errors import UserError
        raise UserError(f"unknown input generator '{generator}': {', '.join(GENERATORS)}")
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for name in spec.inputs:
        dims = spec.tensors[name].dims(shape)
        tdtype = torch_dtype(spec.tensor_dtype(name, dtype))
        out[name] = draw(generator, dims, tdtype, gen).to(tdtype)
    return out


def draw(generator: str, dims: tuple, tdtype, gen):
    """One tensor's values by `generator` from the seeded `gen` (fp64 or int64 before the cast to `tdtype`)."""
    import torch
    if tdtype == torch.bool:       # a mask: every generator draws one at random (randn as it always did)
        return torch.randint(-100, 100, dims, generator=gen) != 0 if generator == "randn" else \
            torch.randint(0, 2, dims, generator=gen).bool()
    if not tdtype.is_floating_point:
        info = torch.iinfo(tdtype)
        if generator == "extremes":
            choices = torch.tensor([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max], dtype=torch.int64)
            return choices[torch.randint(0, len(choices), dims, generator=gen)]
        if generator == "negative":
            return -torch.randint(1, 100, dims, generator=gen)
        if generator == "positive":
            return torch.randint(1, 100, dims, generator=gen)
        if generator == "equal":
            return _rows_equal(torch.randint(-100, 100, _row_shape(dims), generator=gen), dims)
        return torch.randint(-100, 100, dims, generator=gen)
    x = torch.randn(dims, generator=gen)         # float32 draws: randn keeps the numbers it always had
    if generator == "randn":
        return x
    x = x.double()
    if generator == "large":
        return x * 100
    if generator == "huge":
        return x.clamp(-1, 1) * (torch.finfo(tdtype).max / 4)
    if generator == "negative":
        return -(x.abs() + 1)
    if generator == "positive":
        return x.abs() + 1
    if generator == "equal":
        return _rows_equal(torch.randn(_row_shape(dims), generator=gen).double(), dims)
    if generator == "spiky":
        spikes = torch.rand(dims, generator=gen) < 1 / 256
        if x.numel() and not bool(spikes.any()):
            spikes.view(-1)[int(torch.randint(0, x.numel(), (1,), generator=gen))] = True
        size = 50 + 50 * torch.rand(dims, generator=gen).double()
        sign = torch.where(torch.rand(dims, generator=gen) < 0.5, -1.0, 1.0).double()
        return torch.where(spikes, sign * size, x)
    if generator == "neg_inf":
        drop = torch.rand(dims, generator=gen) < 0.25
        if len(dims) >= 1 and dims[-1] > 0:
            drop[..., 0] = False          # never a whole row
        return x.masked_fill(drop, float("-inf"))
    return x


def _row_shape(dims: tuple) -> tuple:
    return tuple(dims[:-1]) + (1,) if dims else ()


def _rows_equal(per_row, dims: tuple):
    return per_row.expand(dims).contiguous() if dims else per_row


def _is_float(dtype: str) -> bool:
    return dtype.startswith(("fp", "bf"))
