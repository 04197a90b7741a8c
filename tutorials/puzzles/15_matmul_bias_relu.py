"""Matmul with a fused epilogue: c = relu(a @ b + bias), applied in registers.

Prepares lessons 04 (the compiler's stages: kernels/relu_matmul.py, a matmul with its ReLU fused) and
09 (tiled GEMM).

Shapes: a is (M, K), b is (K, N), bias is (N,), one value per column, c is (M, N), fp16, strided as in
puzzle 14, whose K loop the stub already holds. What is left is the epilogue: between the last
tl.dot and the store, add bias[j] to every row of the tile (a row vector broadcast down the tile)
and clamp at 0. Done here, it costs no memory traffic; done as two more kernels after the matmul,
it would read and write c twice more.

Use: a masked load of bias (N mask), bias[None, :] broadcast, tl.maximum(x, 0.0).
Check: playground puzzle 15
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def matmul_bias_relu_kernel(
    # pointers
    a_ptr, b_ptr, bias_ptr, c_ptr,
    # sizes
    M, N, K,
    # strides
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    # Your code: the epilogue. Load bias (one per column), add it to every row of acc, clamp at 0.
    # This stub stores the plain product.
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def reference(a, b, bias):
    import torch
    return torch.relu(a @ b + bias[None, :])


SPEC = KernelSpec(
    name="15_matmul_bias_relu",
    kernel=matmul_bias_relu_kernel,
    description="c = relu(a @ b + bias), the epilogue fused",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "bias": Tensor(("N",)),
             "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, bias, c, M, N, K: (a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                         b.stride(1), c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
    default_shape={"M": 512, "N": 512, "K": 500},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    # not x100: fp16 products of K such terms pass 65504, the largest fp16, in the reference itself
    generators=("randn", "negative", "equal"),
    cases=[{"M": 1, "N": 1, "K": 1}, {"M": 40, "N": 50, "K": 100}, {"M": 100, "N": 90, "K": 333}],
    quick_cases=[{"M": 3, "N": 5, "K": 7}, {"M": 40, "N": 50, "K": 100}],
)
