"""Solution to the exercise of lesson 07: kernels/transpose.py turned into a plain copy, Y = X.

The lines marked CHANGED are the whole difference. With no change of layout between the load
and the store, the compiler needs no shared memory: each thread stores exactly the 16-byte
pieces it loaded, and both sides stay coalesced and 128 bits wide.

transpose: Y = X^T, a kernel whose only work is moving memory, done two ways.

Shapes: X is (M, N), Y is (N, M). Any strides.

The GPU reads and writes DRAM in 32-byte sectors; a warp's access is "coalesced" when its 32
threads touch consecutive addresses, so a handful of sectors serve them all. A transpose
cannot have that on both sides at once: walking X along its rows walks Y down a column.

COALESCED=True: load a BLOCK_M x BLOCK_N tile with threads along X's rows, `tl.trans` it, and
store it with threads along Y's rows. The compiler routes the tile through shared memory to
swap which thread holds which element, so both the loads and the stores are coalesced.

COALESCED=False (naive): copy one row segment of X at a time straight into a column of Y. The
reads are coalesced, but neighbouring threads write addresses M elements apart: every element
stored costs a whole sector. No shared memory is used. Compare the two with
`playground compile transpose --meta COALESCED=False --show ttgir` and the shared-memory line.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def transpose_kernel(
    # pointers
    x_ptr, y_ptr,
    # sizes
    M, N,
    # strides
    stride_xm, stride_xn,
    stride_ym, stride_yn,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, COALESCED: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if COALESCED:
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
        # CHANGED: Y has X's shape; store the tile where it came from, untransposed.
        y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn
        tl.store(y_ptrs, tile, mask=mask)
    else:
        # One row of the tile at a time: read along X's row, write down Y's column.
        # The last block of rows may be short: stop at M rather than mask every row.
        mask = offs_n < N
        for i in range(0, tl.minimum(BLOCK_M, M - pid_m * BLOCK_M)):
            m = pid_m * BLOCK_M + i
            row = tl.load(x_ptr + m * stride_xm + offs_n * stride_xn, mask=mask)
            tl.store(y_ptr + m * stride_ym + offs_n * stride_yn, row, mask=mask)  # CHANGED


def reference(x):
    return x.clone()  # CHANGED


# Memory traffic: read X once and write Y once: 2*M*N * element size. No arithmetic: 0 FLOPs.
# The naive version moves the same bytes at the API level, but each stored element occupies a
# 32-byte sector of DRAM traffic: up to 8x the write traffic for fp32, 16x for fp16.
SPEC = KernelSpec(
    name="copy2d",  # CHANGED
    kernel=transpose_kernel,
    description="Y = X, tile by tile: the transpose without the transposing",  # CHANGED
    tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},  # CHANGED
    args=lambda x, y, M, N: (x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={"BLOCK_M": 64, "BLOCK_N": 64, "COALESCED": True},
    num_warps=4,
    num_stages=1,
    default_shape={"M": 8192, "N": 8192},
    dtypes=("fp32", "fp16"),
    reference=reference,
    flops=lambda s: 0,
    bytes=lambda s, elem: 2 * s["M"] * s["N"] * elem,
    torch_baseline="x.clone()",  # CHANGED
    cases=[{"M": 1024, "N": 1024}, {"M": 512 + 17, "N": 256 + 17},
           {"M": 512 + 17, "N": 256 + 17, "meta": {"COALESCED": False}}, {"M": 1, "N": 1},
           {"M": 300, "N": 200, "pad": 40}, {"M": 200, "N": 300, "transpose": "x"}],
    quick_cases=[{"M": 128 + 17, "N": 64 + 17}, {"M": 64 + 17, "N": 32 + 17, "meta": {"COALESCED": False}},
                 {"M": 1, "N": 1}, {"M": 40, "N": 72, "pad": 24, "transpose": "x"}],
    configs=[{"BLOCK_M": b, "BLOCK_N": b, "num_warps": w} for b in (32, 64, 128) for w in (4, 8)],
)
