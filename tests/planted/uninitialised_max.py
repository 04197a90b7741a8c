"""Planted (initcheck): a row maximum of |x| whose masked load has no `other=`.

Triton's interpreter reads zeros in the masked-out lanes, so every value is right there; a
GPU reads whatever the registers held, and the max takes it in. The interpreter's max skips NaN,
so NaN alone would not show it."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def row_absmax_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols)    # BUG: no other=0.0
    tl.store(out_ptr + row, tl.max(tl.abs(x), axis=0))


def reference(x):
    return x.abs().max(dim=1).values


SPEC = KernelSpec(
    name="uninitialised_max",
    kernel=row_absmax_kernel,
    description="planted: a masked load with no other= feeds a max",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M",), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 256},
    heuristics=lambda shape: {"BLOCK_SIZE": triton.next_power_of_2(shape["N"])},   # the whole row in one block
    default_shape={"M": 16, "N": 200},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    quick_cases=[{"M": 16, "N": 200}],
)
