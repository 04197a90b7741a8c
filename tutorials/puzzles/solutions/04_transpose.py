"""Transpose: out[j, i] = x[i, j], a tile read and written through swapped strides.

Prepares lesson 07 (the memory hierarchy: strides, coalescing).

Shapes: x is (M, N), out is (N, M); each is reached through its two strides (the check hands the
kernel transposed and sliced tensors as well, so never assume a stride is 1 or a row is N long).
The grid is (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)); program (pid_m, pid_n) moves the tile of x with
rows pid_m * BLOCK_M ... and columns pid_n * BLOCK_N ... No arithmetic happens: the whole puzzle is
in the addresses. Element (i, j) of a tensor with strides (s0, s1) lies at ptr + i * s0 + j * s1.

Use: 2-D offsets and masks as in puzzle 03, tl.load, tl.store; the same tile, two sets of strides.
Check: playground puzzle 4 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def transpose_kernel(
    # pointers
    x_ptr, out_ptr,
    # sizes of x
    M, N,
    # strides
    stride_xm, stride_xn, stride_on, stride_om,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    # x[i, j] goes to out[j, i]: the row index i now walks out's columns (stride_om), j its rows (stride_on)
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on, tile, mask=mask)


def reference(x):
    return x.t().contiguous()


SPEC = KernelSpec(
    name="04_transpose",
    kernel=transpose_kernel,
    description="out = x.T, a tile moved through swapped strides",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("N", "M"), output=True)},
    args=lambda x, out, M, N: (x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={"BLOCK_M": 32, "BLOCK_N": 32},
    default_shape={"M": 1024, "N": 1024},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}, {"M": 64, "N": 128}, {"M": 333, "N": 200}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}],
)
