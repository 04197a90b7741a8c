"""Row sum: out[i] = x[i, 0] + ... + x[i, N - 1], one program per row.

Prepares lessons 06 (one program per row: the grid is the rows) and 11 (reductions inside a program).

Shapes: x is (M, N), its rows stride_xm elements apart (not always N: the check slices rows out of
wider ones); out is (M,). The grid is (M,). BLOCK_N is N rounded up to a power of two (tl.arange
needs one; the spec's heuristics pick it), so the lanes past N must add nothing: load them as 0.
The sum accumulates in fp32.

Use: tl.load(..., mask=, other=0.0), tl.sum(x, axis=0), tl.store of one value (a scalar store).
Check: playground puzzle 5 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def row_sum_kernel(
    # pointers
    x_ptr, out_ptr,
    # stride between rows
    stride_xm,
    # size of a row
    N,
    # meta-parameters
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride_xm + cols, mask=cols < N, other=0.0)   # padding lanes add 0
    tl.store(out_ptr + row, tl.sum(x, axis=0))       # a scalar: one store per program


def reference(x):
    return x.sum(dim=1)


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="05_row_sum",
    kernel=row_sum_kernel,
    description="out[i] = sum of row i, one program per row",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M",), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 1024},
    heuristics=heuristics,
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    cases=[{"M": 1, "N": 1}, {"M": 37, "N": 100}, {"M": 17, "N": 128 + 17}, {"M": 64, "N": 1024 + 17}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 17, "N": 128 + 17}],
)
