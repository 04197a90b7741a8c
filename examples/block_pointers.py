"""A GEMM written with block pointers, as kernels were written for Triton 3.1 to 3.8.

`tl.make_block_ptr` describes a 2-D tile of a tensor (its base, shape, strides, where the tile starts and
how big it is) and `tl.advance` moves it; `tl.load(..., boundary_check=...)` masks what falls past the edge.
Triton 3.9 removed block pointers in favour of tensor descriptors (`tl.make_tensor_descriptor`, as in
kernels/gemm_tma.py), so this file compiles on Triton 3.8 and stops on 3.9. To see what the upgrade
changes, or to look at the file on the Triton it was written for:

    playground diff ./examples/block_pointers.py --triton 3.8,3.9 --target sm_90
    playground compile ./examples/block_pointers.py --triton 3.8 --target sm_90 --show ttgir
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def block_ptr_gemm_kernel(
    # pointers to the matrices
    a_ptr, b_ptr, c_ptr,
    # sizes
    M, N, K,
    # strides
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    # meta-parameters
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    # One block pointer per operand: the whole matrix, and the tile this program starts at.
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_SIZE_M, 0), block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_K),
                                order=(1, 0))
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_SIZE_N), block_shape=(BLOCK_SIZE_K, BLOCK_SIZE_N),
                                order=(1, 0))

    # The K loop: boundary_check zero-fills the rows and columns past the matrix's edge.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        accumulator = tl.dot(a, b, accumulator)
        a_block = tl.advance(a_block, (0, BLOCK_SIZE_K))
        b_block = tl.advance(b_block, (BLOCK_SIZE_K, 0))

    c_block = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N),
                                block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_N), order=(1, 0))
    tl.store(c_block, accumulator.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


# FLOPs: 2*M*N*K. Memory traffic at best: read A and B once, write C once.
SPEC = KernelSpec(
    name="block_ptr_gemm",
    kernel=block_ptr_gemm_kernel,
    description="C = A @ B with block pointers (tl.make_block_ptr, tl.advance): Triton 3.8 and earlier",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]) * cdiv(shape["N"], meta["BLOCK_SIZE_N"]),),
    meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64},
    num_warps=8,
    num_stages=3,
    default_shape={"M": 4096, "N": 4096, "K": 4096},
    dtypes=("fp16", "bf16"),
    reference=lambda a, b: a @ b,
    reduction_dim="K",
    flops=lambda s: 2 * s["M"] * s["N"] * s["K"],
    bytes=lambda s, elem: (s["M"] * s["K"] + s["K"] * s["N"] + s["M"] * s["N"]) * elem,
    cases=[{"M": 256, "N": 256, "K": 256}, {"M": 128 + 17, "N": 64 + 17, "K": 64 + 17}, {"M": 1, "N": 1, "K": 1}],
    quick_cases=[{"M": 128 + 17, "N": 64 + 17, "K": 64 + 17}, {"M": 1, "N": 1, "K": 1}],
)
