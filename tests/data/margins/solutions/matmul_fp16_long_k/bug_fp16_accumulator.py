"""Bug: the accumulator is fp16, like the inputs and the output: the kernel walks K one rank-1 update at a
time and the running sum is rounded to fp16 after every step. With 11 significant bits and partial sums up
to ~100, each of the 2048 roundings costs up to 1/32: the error grows like sqrt(K) ulps while PyTorch (fp32
accumulation, one rounding) stays within half an ulp. Outputs are still right to about 1% of their scale."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_fp16_acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                           stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    a_ptrs = a_ptr + rows * stride_am
    b_ptrs = b_ptr + cols * stride_bn
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float16)  # BUG: accumulate in fp32
    for k in range(0, K):
        a = tl.load(a_ptrs, mask=rows < M, other=0.0)
        b = tl.load(b_ptrs, mask=cols < N, other=0.0)
        acc = (acc + a[:, None] * b[None, :]).to(tl.float16)  # the running sum rounded to fp16 every step
        a_ptrs += stride_ak
        b_ptrs += stride_bk
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        matmul_fp16_acc_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                                     C.stride(0), C.stride(1), BLOCK_M=32, BLOCK_N=32)
        return C
