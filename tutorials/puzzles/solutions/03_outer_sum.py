"""Outer sum: out[i, j] = a[i] + b[j], one tile of out per program on a 2-D grid.

Prepares lesson 06 (grid, blocks, warps).

Shapes: a is (M,), b is (N,), out is (M, N), reached through its strides (stride_om between rows,
stride_on between columns: the check also hands it a transposed and a sliced out). The grid is
(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)): program (pid_m, pid_n) owns rows pid_m * BLOCK_M ... and
columns pid_n * BLOCK_N ... Both edges may be ragged, so the mask is 2-D too.

Use: tl.program_id(0) and (1); a column vector offs_m[:, None] and a row vector offs_n[None, :]
broadcast against each other into a tile (for the addresses, the values and the mask alike).
Check: playground puzzle 3 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def outer_sum_kernel(
    # pointers
    a_ptr, b_ptr, out_ptr,
    # sizes
    M, N,
    # strides of out
    stride_om, stride_on,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)     # this tile's rows
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)     # and its columns
    a = tl.load(a_ptr + offs_m, mask=offs_m < M)         # (BLOCK_M,)
    b = tl.load(b_ptr + offs_n, mask=offs_n < N)         # (BLOCK_N,)
    tile = a[:, None] + b[None, :]                       # (BLOCK_M, 1) + (1, BLOCK_N) -> (BLOCK_M, BLOCK_N)
    ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)     # both edges, broadcast the same way
    tl.store(ptrs, tile, mask=mask)


def reference(a, b):
    return a[:, None] + b[None, :]


SPEC = KernelSpec(
    name="03_outer_sum",
    kernel=outer_sum_kernel,
    description="out[i, j] = a[i] + b[j], a 2-D tile per program",
    tensors={"a": Tensor(("M",)), "b": Tensor(("N",)), "out": Tensor(("M", "N"), output=True)},
    args=lambda a, b, out, M, N: (a, b, out, M, N, out.stride(0), out.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={"BLOCK_M": 32, "BLOCK_N": 64},
    default_shape={"M": 1000, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}, {"M": 64, "N": 128}, {"M": 333, "N": 200}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}],
)
