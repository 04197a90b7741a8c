"""Planted (values): a row maximum whose masked-out lanes read 0.

Right whenever a row holds a positive value, which an N(0, 1) row of 200 always does; wrong
for an all-negative row, which the `negative` inputs supply."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def row_max_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=0.0)   # BUG: other=-inf
    tl.store(out_ptr + row, tl.max(x, axis=0))


def reference(x):
    return x.max(dim=1).values


SPEC = KernelSpec(
    name="masked_max_other_zero",
    kernel=row_max_kernel,
    description="planted: a masked row max whose padding reads 0",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M",), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 256},
    heuristics=lambda shape: {"BLOCK_SIZE": triton.next_power_of_2(shape["N"])},   # the whole row in one block
    default_shape={"M": 16, "N": 200},
    dtypes=("fp32",),
    reference=reference,
    quick_cases=[{"M": 16, "N": 200}],
)
