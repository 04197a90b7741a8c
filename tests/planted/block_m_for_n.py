"""Planted (configs): a GEMM that steps its columns by BLOCK_SIZE_M, a copy-paste of the rows' line.

Right under the default square tile (64 x 64); wrong under every config of its autotune space
whose tile is not square."""
import triton
import triton.language as tl

from playground.kernels.gemm import reference
from playground import KernelSpec, Tensor, cdiv


@triton.jit
def gemm_block_m_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                        stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                        BLOCK_SIZE_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_N)      # BUG: pid_n * BLOCK_SIZE_N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        ks = k * BLOCK_SIZE_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=mask)


SPEC = KernelSpec(
    name="block_m_for_n",
    kernel=gemm_block_m_kernel,
    description="planted: BLOCK_SIZE_M where BLOCK_SIZE_N belongs",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]), cdiv(shape["N"], meta["BLOCK_SIZE_N"])),
    meta={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32},
    default_shape={"M": 100, "N": 90, "K": 40},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    generators=("randn",),
    quick_cases=[{"M": 100, "N": 90, "K": 40}],
    configs=[{"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 32} for bm, bn in ((64, 64), (32, 64), (64, 32))],
)
