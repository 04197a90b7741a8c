"""gemm_persistent: C = A @ B with one program per SM, each looping over tiles.

Shapes: A is (M, K), B is (K, N), C is (M, N). Any strides.

`gemm` launches one program per output tile and lets the hardware deal them out to SMs in
waves. This version launches only as many programs as the GPU has SMs (the grid asks the
target's device row for its count) and has each one walk the tiles itself: program p takes
tiles p, p + P, p + 2P, ... where P is the number of programs. The tiles come in the same
grouped order as `gemm`'s, so the programs running side by side still share rows of A and
columns of B in L2. What this buys: no block scheduling between tiles, a CTA's setup paid
once, and room for the compiler to overlap one tile's epilogue with the next tile's loads.
What it costs: the last round of tiles is uneven (some programs get one more tile than
others), the same tail a non-persistent launch has in its last wave.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def gemm_persistent_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    # This program's first tile, and the stride between its tiles: the number of programs.
    start_pid = tl.program_id(axis=0)
    num_programs = tl.num_programs(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_SIZE_K)

    for tile_id in range(start_pid, num_tiles, num_programs):
        # The same grouped ordering as gemm, applied to the tile number instead of the program id.
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m

        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        # The K loop, as in gemm: the compiler pipelines it.
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            k_remaining = K - k * BLOCK_SIZE_K
            a = tl.load(a_ptrs, mask=offs_k[None, :] < k_remaining, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < k_remaining, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(c_ptr.dtype.element_ty)

        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)


# The problem is gemm's: the same product, FLOP and byte counts, shape, and grouped tile order (kernels/gemm.py).
from playground.kernels.gemm import DEFAULT_SHAPE, bytes_moved, flops, operands, reference, tile_of  # noqa: E402


def num_tiles(shape, meta):
    return cdiv(shape["M"], meta["BLOCK_SIZE_M"]) * cdiv(shape["N"], meta["BLOCK_SIZE_N"])


def grid(shape, meta, device):
    """One program per SM of the target (fewer when there are fewer tiles)."""
    return (min(device.num_sms, num_tiles(shape, meta)),)


# `work_items` says the programs share num_tiles tiles, program p taking tiles p, p + P, ...: the
# performance model's traffic and tail follow that schedule. `work_tile_of` is gemm's tile_of, asked
# for a tile's number where gemm asks for a program's.
SPEC = KernelSpec(
    name="gemm_persistent",
    kernel=gemm_persistent_kernel,
    description="C = A @ B: one program per SM looping over the tiles (persistent), grouped ordering",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=grid,
    meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
    num_warps=8,
    num_stages=3,
    default_shape=DEFAULT_SHAPE,
    dtypes=("fp16", "bf16"),
    reference=reference,
    reduction_dim="K",
    flops=flops,
    bytes=bytes_moved,
    torch_baseline="torch.matmul",
    operands=operands,
    work_items=num_tiles,
    work_tile_of=tile_of,
    cases=[{"M": 512, "N": 512, "K": 512}, {"M": 256 + 17, "N": 128 + 17, "K": 64 + 17},
           {"M": 1, "N": 1, "K": 1}, {"M": 1, "N": 256, "K": 128},
           {"M": 192, "N": 160, "K": 96, "transpose": "a"}],
    generators=("randn", "negative", "equal"),
    quick_cases=[{"M": 256 + 17, "N": 128 + 17, "K": 64 + 17}, {"M": 1, "N": 1, "K": 1},
                 {"M": 96, "N": 80, "K": 48, "transpose": "b"}],
    configs=[{"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8,
              "num_warps": w, "num_stages": s}
             for bm, bn, bk, w in ((128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 64, 4)) for s in (3, 4)],
)
