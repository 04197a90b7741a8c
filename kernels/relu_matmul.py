"""relu_matmul: C = relu(A @ B), the line the tutorials follow from Python down to the registers.

Shapes: A is (M, K), B is (K, N), C is (M, N).

In PyTorch, `torch.relu(a @ b)` is two kernels: the matmul writes A @ B to VRAM, then relu
reads it back and writes it again. Here the ReLU runs on the accumulator while it is still
in registers (the GEMM's epilogue), so C crosses the memory bus once. The grid is 2-D:
program (pid_m, pid_n) owns one tile of C. Compare with gemm.py, which adds grouped ordering.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def relu_matmul_kernel(
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
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    # The fused epilogue: ReLU on the fp32 accumulator, in registers, before the one store.
    c = tl.maximum(accumulator, 0.0).to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def reference(a, b):
    return (a @ b).relu()


# FLOPs: gemm's 2*M*N*K for the product; the M*N maximums are noise beside it.
# Memory traffic fused: gemm's, read A and B, write C: (M*K + K*N + M*N) * element size.
# Unfused, PyTorch also writes and re-reads A @ B: 2*M*N * element size more.
from playground.kernels.gemm import bytes_moved, flops  # noqa: E402

SPEC = KernelSpec(
    name="relu_matmul",
    kernel=relu_matmul_kernel,
    description="C = relu(A @ B) with the ReLU fused into the GEMM epilogue; 2-D grid",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]), cdiv(shape["N"], meta["BLOCK_SIZE_N"])),
    meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
    num_warps=4,
    num_stages=3,
    default_shape={"M": 2048, "N": 2048, "K": 2048},
    dtypes=("fp16", "bf16"),
    reference=reference,
    reduction_dim="K",
    flops=flops,
    bytes=bytes_moved,
    torch_baseline="torch.relu(torch.matmul(a, b))",
    tile_of=lambda pid, shape, meta: (pid % cdiv(shape["M"], meta["BLOCK_SIZE_M"]),
                                      pid // cdiv(shape["M"], meta["BLOCK_SIZE_M"])),
    cases=[{"M": 512, "N": 512, "K": 512}, {"M": 128 + 17, "N": 256 + 17, "K": 32 + 17},
           {"M": 1, "N": 8, "K": 1}, {"M": 160, "N": 96, "K": 80, "transpose": "b"}],
    # A GEMM is linear in each operand: x100 inputs only scale the outputs, and past fp16's range.
    generators=("randn", "negative", "equal"),
    quick_cases=[{"M": 128 + 17, "N": 64 + 17, "K": 32 + 17}, {"M": 1, "N": 8, "K": 1},
                 {"M": 80, "N": 48, "K": 40, "transpose": "b"}],
    configs=[{"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "num_warps": w, "num_stages": s}
             for bm, bn, bk, w in ((128, 128, 32, 4), (128, 64, 32, 4), (64, 64, 32, 4))
             for s in (2, 3, 4)],
)
