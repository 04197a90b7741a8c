"""One dtype table, checked against Triton's and torch's own types."""
import pytest

from playground.core import dtypes
from playground.errors import UserError

pytestmark = pytest.mark.compile


@pytest.mark.parametrize("name", list(dtypes.DTYPES))
def test_each_row_names_real_types_of_its_size(name):
    import triton.language as tl
    d = dtypes.DTYPES[name]
    bits = 1 if name == "i1" else 8 * d.bytes        # a boolean is one bit of value, one byte in memory
    assert getattr(tl, d.triton).primitive_bitwidth == bits
    assert dtypes.IR_BYTES[d.mlir] == d.bytes
    torch = pytest.importorskip("torch")
    assert getattr(torch, d.torch).itemsize == d.bytes


@pytest.mark.parametrize("name", [n for n in dtypes.DTYPES if not n.startswith("i")])
def test_float_sentinels_are_nans_that_arithmetic_does_not_make(name):
    torch = pytest.importorskip("torch")
    d = dtypes.DTYPES[name]
    ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[d.bytes]
    bits = d.sentinel_bits - (1 << 8 * d.bytes) if d.sentinel_bits >= 1 << (8 * d.bytes - 1) else d.sentinel_bits
    value = torch.tensor([bits], dtype=ints).view(getattr(torch, d.torch))
    assert torch.isnan(value.float()).all()
    computed = (torch.zeros(1) / torch.zeros(1)).to(getattr(torch, d.torch))
    if name != "fp8e4nv":       # fp8e4nv has one NaN code, so there "never written" cannot be told apart
        assert computed.view(ints).item() != bits


def test_unknown_names_are_one_line():
    with pytest.raises(UserError, match="^dtype fp12: unknown dtype; known: fp8e4nv, fp8e5, fp16"):
        dtypes.get("fp12")
