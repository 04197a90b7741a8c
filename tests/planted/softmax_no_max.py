"""Planted (values): a softmax that forgets to subtract the row maximum.

exp(x) stays finite for N(0, 1) rows, so every plain case passes; with x100 inputs exp
overflows fp32 past x = 88.7, inf / inf is NaN, and the `large` inputs catch it."""
import triton
import triton.language as tl

from playground.kernels.softmax import reference
from playground import KernelSpec, Tensor


@triton.jit
def softmax_no_max_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    numerator = tl.exp(x)                 # BUG: no x - max(x) first
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


SPEC = KernelSpec(
    name="softmax_no_max",
    kernel=softmax_no_max_kernel,
    description="planted: softmax without the max subtraction",
    tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},
    args=lambda x, y, M, N: (y, x, x.stride(0), y.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 256},
    heuristics=lambda shape: {"BLOCK_SIZE": triton.next_power_of_2(shape["N"])},   # the whole row in one block
    default_shape={"M": 16, "N": 200},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    quick_cases=[{"M": 16, "N": 200}],
)
