"""Cheat (form): the right product, handed back as a CPU tensor (`.cpu()` of the kernel's output) where the
reference's output is on the GPU. On the virtual GPU, where every tensor's data is in host memory,
torch.allclose compares the two and KernelBench's harness passes it; on a real GPU allclose refuses to mix
devices."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tiled_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :], mask=(ks[:, None] < K) & (cols[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        tiled_matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](A, B, C, M, N, K, A.stride(0), B.stride(0),
                                                                    C.stride(0), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        return C.cpu()
