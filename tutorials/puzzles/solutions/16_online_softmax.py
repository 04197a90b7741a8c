"""Online softmax: long rows in blocks, with a running max and a rescaled running sum.

Prepares lesson 12 (flash attention: the same running max and rescaled sum, over blocks of keys).

Shapes: x and out are (M, N), each with its own row stride; the grid is (M,). BLOCK_N is fixed (64)
and N is larger (up to 1000 in the cases), so a program walks its row in blocks. First pass: keep m,
the largest value seen so far, and l, the sum of exp(x - m) so far. When a block raises the max from
m to m_new, every term already in l was taken against the old max: multiply l by exp(m - m_new)
before adding the block's exp(x - m_new). Second pass: out = exp(x - m) / l, block by block. That is
two reads of x instead of three (max, sum, output). Flash attention does the first pass's trick
with the output accumulator too, and so needs one.

Use: m = -inf and l = 0 as fp32 scalars before the loop, for start in range(0, N, BLOCK_N),
other=-float("inf"), tl.maximum(m, tl.max(x, axis=0)), tl.exp, tl.sum.
Check: playground puzzle 16 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def online_softmax_kernel(
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
    x_ptr += row * stride_xm
    out_ptr += row * stride_om
    m = tl.full((), -float("inf"), dtype=tl.float32)     # the max so far
    l = tl.full((), 0.0, dtype=tl.float32)               # sum of exp(x - m) so far
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + cols, mask=cols < N, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # the old terms were taken against m: rescale them to m_new (exp(-inf) = 0 on the first block)
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + cols, mask=mask, other=-float("inf"))
        tl.store(out_ptr + cols, tl.exp(x - m) / l, mask=mask)


def reference(x):
    import torch
    return torch.softmax(x, dim=1)


SPEC = KernelSpec(
    name="16_online_softmax",
    kernel=online_softmax_kernel,
    description="softmax of long rows: a running max and a rescaled running sum",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M", "N"), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), out.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 64},
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    # no reduction_dim: as puzzle 10, the outputs shrink like 1/N
    cases=[{"M": 1, "N": 1}, {"M": 1, "N": 64}, {"M": 37, "N": 100}, {"M": 17, "N": 1000}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 17, "N": 300}],
)
