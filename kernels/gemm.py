"""gemm: C = A @ B, tiled, on tensor cores, with grouped ordering for L2 reuse.

Shapes: A is (M, K), B is (K, N), C is (M, N). Any strides.

Each program computes one BLOCK_SIZE_M x BLOCK_SIZE_N tile of C by walking K in steps of
BLOCK_SIZE_K. `tl.dot` on fp16/bf16 tiles becomes tensor-core instructions: mma.sync on
sm_80/sm_89, wgmma on sm_90, tcgen05 on sm_100, v_mfma on AMD CDNA. The compiler
software-pipelines the K loop: with num_stages=S it keeps S-1 tiles of A and B in flight in
shared memory while the tensor cores work on the current one.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def gemm_kernel(
    # pointers to the matrices
    a_ptr, b_ptr, c_ptr,
    # sizes
    M, N, K,
    # strides: how far to step in memory for one row / one column
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    # meta-parameters
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    # Grouped ordering: consecutive programs walk down a column of GROUP_SIZE_M tiles before
    # moving right, so the rows of A and the columns of B they load are still in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Pointers to the first K-block of this tile's A rows and B columns.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # The K loop: accumulate in fp32 registers, whatever the input dtype.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_remaining = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_remaining, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_remaining, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    # Write the tile back, masking the rows and columns past the edge of C.
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# The GEMM problem, written once: gemm_persistent and gemm_tma compute this same product and import
# what follows; relu_matmul imports the counts.
def reference(a, b):
    return a @ b


# FLOPs: one multiply and one add per (m, n, k): 2*M*N*K.
def flops(s):
    return 2 * s["M"] * s["N"] * s["K"]


# Memory traffic at best: read A and B once, write C once: (M*K + K*N + M*N) * element size.
def bytes_moved(s, elem):
    return (s["M"] * s["K"] + s["K"] * s["N"] + s["M"] * s["N"]) * elem


DEFAULT_SHAPE = {"M": 4096, "N": 4096, "K": 4096}


def tile_of(pid, shape, meta):
    """The (pid_m, pid_n) tile that program `pid` computes: the kernel's grouped ordering, in Python."""
    num_pid_m = cdiv(shape["M"], meta["BLOCK_SIZE_M"])
    num_pid_n = cdiv(shape["N"], meta["BLOCK_SIZE_N"])
    num_pid_in_group = meta["GROUP_SIZE_M"] * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * meta["GROUP_SIZE_M"]
    group_size_m = min(num_pid_m - first_pid_m, meta["GROUP_SIZE_M"])
    return (first_pid_m + (pid % num_pid_in_group) % group_size_m, (pid % num_pid_in_group) // group_size_m)



# What each CTA reads: the row panel of A its tile row picks, the column panel of B its tile column picks.
def operands(s, meta, elem):
    return [((0,), meta["BLOCK_SIZE_M"] * s["K"] * elem), ((1,), s["K"] * meta["BLOCK_SIZE_N"] * elem)]


SPEC = KernelSpec(
    name="gemm",
    kernel=gemm_kernel,
    description="C = A @ B: tiled, tensor cores, grouped ordering, pipelined K loop",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]) * cdiv(shape["N"], meta["BLOCK_SIZE_N"]),),
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
    tile_of=tile_of,
    operands=operands,
    cases=[{"M": 512, "N": 512, "K": 512}, {"M": 256 + 17, "N": 128 + 17, "K": 64 + 17},
           {"M": 1, "N": 1, "K": 1}, {"M": 1, "N": 256, "K": 128},
           {"M": 192, "N": 160, "K": 96, "transpose": "a"}, {"M": 192, "N": 160, "K": 96, "transpose": "b"}],
    # A GEMM is linear in each operand: x100 inputs only scale the outputs, and past fp16's range.
    generators=("randn", "negative", "equal"),
    quick_cases=[{"M": 256 + 17, "N": 128 + 17, "K": 64 + 17}, {"M": 1, "N": 1, "K": 1},
                 {"M": 96, "N": 80, "K": 48, "transpose": "a"}],
    configs=[{"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8,
              "num_warps": w, "num_stages": s}
             for bm, bn, bk, w in ((128, 256, 64, 8), (128, 128, 64, 8), (128, 128, 32, 4), (64, 128, 64, 4))
             for s in (2, 3, 4, 5)],
)
