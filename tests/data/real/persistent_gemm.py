"""A persistent GEMM: one program per SM, each looping over output tiles, as Triton's tutorial 09 sizes it."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def persistent_gemm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BLOCK_M) * tiles_n, tl.num_programs(0)):
        offs_m = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            offs_k = k + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :],
                        mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :],
                        mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def grid(shape, meta, device):
    tiles = triton.cdiv(shape["M"], meta["BLOCK_M"]) * triton.cdiv(shape["N"], meta["BLOCK_N"])
    return (min(device.num_sms, tiles),)


def reference(a, b):
    return (a.float() @ b.float()).half()


SPEC = KernelSpec(name="persistent_gemm", kernel=persistent_gemm, description="C = A @ B, one program per SM",
                  tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
                  args=lambda a, b, c, M, N, K: (a, b, c, M, N, K), grid=grid,
                  meta={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, default_shape={"M": 4096, "N": 4096, "K": 4096},
                  dtypes=("fp16",), num_warps=8, reference=reference, reduction_dim="K",
                  cases=[{"M": 96, "N": 80, "K": 64}], quick_cases=[{"M": 96, "N": 80, "K": 64}])
