"""softmax: y = softmax(x, dim=1), row by row, fused into one pass over memory.

Shapes: x and y are (M, N); rows may be strided.

One program per row. The whole row is loaded into registers once, and its maximum, the
exponentials, their sum and the division all happen there: one read of x, one write of y.
PyTorch's unfused version (max, subtract, exp, sum, divide as separate kernels) moves the
matrix through VRAM several times. BLOCK_SIZE is the row length rounded up to a power of
two (tl.arange needs one); the lanes past N read -inf, which exp turns into 0.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def softmax_kernel(
    # pointers
    out_ptr, in_ptr,
    # strides between rows
    in_row_stride, out_row_stride,
    # sizes
    n_rows, n_cols,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)          # subtract the row max so exp cannot overflow
    numerator = tl.exp(x)
    denominator = tl.sum(numerator, axis=0)
    y = numerator / denominator
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def reference(x):
    import torch
    return torch.softmax(x.double(), dim=1).to(x.dtype)


def heuristics(shape):
    """Shape-dependent meta: the row must fit in one block; more warps for longer rows."""
    block = triton.next_power_of_2(shape["N"])
    return {"BLOCK_SIZE": block, "num_warps": 4 if block <= 2048 else 8 if block <= 8192 else 16}


# Memory traffic: read x once and write y once: 2*M*N * element size.
# FLOPs per element, counted as max, subtract, exp, add and divide: 5*M*N.
SPEC = KernelSpec(
    name="softmax",
    kernel=softmax_kernel,
    description="row-wise softmax, fused: one read and one write of the matrix",
    tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},
    args=lambda x, y, M, N: (y, x, x.stride(0), y.stride(0), M, N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 1024},
    heuristics=heuristics,
    num_warps=4,
    default_shape={"M": 4096, "N": 1024},
    dtypes=("fp32", "fp16", "bf16"),
    reference=reference,
    reduction_dim="N",
    flops=lambda s: 5 * s["M"] * s["N"],
    bytes=lambda s, elem: 2 * s["M"] * s["N"] * elem,
    special=lambda s: s["M"] * s["N"],                                   # one exp per element
    torch_baseline="torch.softmax(x, dim=1)",
    cases=[{"M": 4096, "N": 1024}, {"M": 1823, "N": 781}, {"M": 1, "N": 1}, {"M": 64, "N": 1024 + 17},
           {"M": 37, "N": 4096}, {"M": 48, "N": 200, "pad": 56}],
    # exp(x - max) is stable for any finite x, and -inf entries are exact zeros in the reference
    generators=("randn", "large", "huge", "negative", "equal", "neg_inf"),
    quick_cases=[{"M": 1823 // 8, "N": 781}, {"M": 1, "N": 1}, {"M": 17, "N": 128 + 17}],
    configs=[{"num_warps": w} for w in (1, 2, 4, 8, 16)],
)
