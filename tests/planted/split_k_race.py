"""Planted (racecheck): split-K GEMM whose K-slices add into C with a plain load and store.

The interpreter runs the programs one after another, so every sum comes out right; on a GPU the
slices of one tile run at once, and one slice's store overwrites another's."""
import triton
import triton.language as tl

from playground.kernels.gemm import reference
from playground import KernelSpec, Tensor, cdiv


@triton.autotune(configs=[triton.Config({"BLOCK": 32, "SPLIT_K": 2})], key=[], reset_to_zero=["c_ptr"])
@triton.jit
def split_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK: tl.constexpr, SPLIT_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs_n = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(tl.program_id(2) * BLOCK, K, BLOCK * SPLIT_K):
        ks = k + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    total = tl.load(c_ptrs, mask=mask, other=0.0) + acc
    tl.store(c_ptrs, total, mask=mask)                                    # BUG: tl.atomic_add(c_ptrs, acc)


SPEC = KernelSpec(
    name="split_k_race",
    kernel=split_k_kernel,
    description="planted: split-K accumulation without atomics",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK"]), cdiv(shape["N"], meta["BLOCK"]), meta["SPLIT_K"]),
    meta={},
    default_shape={"M": 40, "N": 40, "K": 100},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="K",
    generators=("randn",),
    quick_cases=[{"M": 40, "N": 40, "K": 100}],
)
