"""Prefix sum (a scan): out[i, j] = x[i, 0] + ... + x[i, j], one program per row.

Prepares lesson 11 (operations along a row inside one program).

Shapes: x and out are (M, N), each with its own row stride; the grid is (M,); BLOCK_N is N rounded up
to a power of two. A reduction (puzzle 05) leaves one value per row; a scan leaves one per element:
element j holds the sum of elements 0..j. tl.cumsum computes it across the lanes of a block (Triton
builds it from tl.associative_scan with + as the combining function). Padding lanes come after the
real ones, so whatever they load cannot reach a real output; they must not be stored.

Use: tl.load(..., mask=), tl.cumsum(x, axis=0), tl.store(..., mask=).
Check: playground puzzle 7 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def prefix_sum_kernel(
    # pointers
    x_ptr, out_ptr,
    # strides between rows
    stride_xm, stride_om,
    # size of a row
    N,
    # meta-parameters
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=0.0)
    # lane j gets the sum of lanes 0..j; the padding lanes come last, so they feed no real lane
    tl.store(out_ptr + row * stride_om + cols, tl.cumsum(x, axis=0), mask=mask)


def reference(x):
    return x.cumsum(dim=1)


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="07_prefix_sum",
    kernel=prefix_sum_kernel,
    description="out[i, j] = x[i, 0] + ... + x[i, j], a scan per row",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M", "N"), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), out.stride(0), N),
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
