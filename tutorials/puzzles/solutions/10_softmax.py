"""Softmax of rows, the whole row in one program, safe from overflow.

out[i, j] = exp(x[i, j] - m_i) / (sum over k of exp(x[i, k] - m_i)), m_i the max of row i.

Prepares lesson 11 (fusion and the roofline: softmax read once, written once).

Shapes: x and out are (M, N), each with its own row stride; the grid is (M,); BLOCK_N is N rounded
up to a power of two, so the whole row sits in one program's registers. Subtracting the row max
first changes nothing mathematically (it cancels between numerator and denominator) and keeps exp
from overflowing: exp(x) is inf in fp32 past x = 88.7, and the check runs inputs x100. The padding
lanes must add nothing to the sum: exp(-inf) is 0, so load them as -inf (puzzle 06).
(kernels/softmax.py is the project's own softmax: try this one before reading it.)

Use: tl.load(..., other=-float("inf")), tl.max, tl.exp, tl.sum, one division, tl.store(..., mask=).
Check: playground puzzle 10 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def softmax_kernel(
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
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)             # every exponent <= 0: no overflow; padding stays -inf
    num = tl.exp(x)                       # padding lanes: exp(-inf) = 0, nothing added below
    out = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_om + cols, out, mask=mask)


def reference(x):
    import torch
    return torch.softmax(x, dim=1)


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="10_softmax",
    kernel=softmax_kernel,
    description="softmax of each row, the row in one program",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M", "N"), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), out.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 1024},
    heuristics=heuristics,
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    # no reduction_dim: the outputs shrink like 1/N, so an atol scaled by N would pass a kernel writing zeros
    cases=[{"M": 1, "N": 1}, {"M": 37, "N": 100}, {"M": 17, "N": 128 + 17}, {"M": 8, "N": 4096 + 17}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 17, "N": 128 + 17}],
)
