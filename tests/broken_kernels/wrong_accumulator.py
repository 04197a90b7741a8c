"""A GEMM that accumulates in fp16 instead of fp32: each K step rounds the running sum to 11
significant bits, and the error grows with K. Fine for tiny K, wrong for real ones."""
import triton
import triton.language as tl

from playground.kernels.gemm import reference
from playground import KernelSpec, Tensor, cdiv


@triton.jit
def fp16_accumulator_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)   # BUG: should be tl.float32
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_mask = offs_k < K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & k_mask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_mask[:, None] & (offs_n[None, :] < N), other=0.0)
        accumulator = tl.dot(a, b, accumulator, out_dtype=tl.float16)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, accumulator.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


SPEC = KernelSpec(
    name="wrong_accumulator",
    kernel=fp16_accumulator_kernel,
    description="known wrong: GEMM with an fp16 accumulator",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]), cdiv(shape["N"], meta["BLOCK_SIZE_N"])),
    meta={"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16},
    default_shape={"M": 32, "N": 32, "K": 2048},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    cases=[{"M": 32, "N": 32, "K": 2048}],
)
