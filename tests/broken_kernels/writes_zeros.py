"""relu_matmul that drops the result of tl.dot: the accumulator stays zero, and so does C.
A tolerance scaled too generously would let it pass wherever |C| is small."""
import triton
import triton.language as tl

from playground.kernels.relu_matmul import reference
from playground import KernelSpec, Tensor, cdiv


@triton.jit
def zeros_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_mask = offs_k < K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & k_mask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_mask[:, None] & (offs_n[None, :] < N), other=0.0)
        tl.dot(a, b, accumulator)          # BUG: should be accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = tl.maximum(accumulator, 0.0).to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


SPEC = KernelSpec(
    name="writes_zeros",
    kernel=zeros_kernel,
    description="known wrong: relu_matmul that never updates its accumulator",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]), cdiv(shape["N"], meta["BLOCK_SIZE_N"])),
    meta={"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32},
    default_shape={"M": 40, "N": 24, "K": 48},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    cases=[{"M": 40, "N": 24, "K": 48}],
)
