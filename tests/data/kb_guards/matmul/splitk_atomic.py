"""Correct: split-K. Each program sums one slice of K for one output tile and adds it into a zeroed fp32 output
with tl.atomic_add (the order of the additions varies; the result only by rounding)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def splitk_matmul(a_ptr, b_ptr, c_ptr, M, N, K, K_PER_SPLIT, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n, split = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_start = split * K_PER_SPLIT
    for k in range(k_start, k_start + K_PER_SPLIT, BK):
        rk = k + tl.arange(0, BK)
        in_k = (rk < K) & (rk < k_start + K_PER_SPLIT)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & in_k[None, :], other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=in_k[:, None] & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        M, K = A.shape
        N = B.shape[1]
        C = torch.zeros(M, N, device=A.device, dtype=torch.float32)
        splits = 3
        per_split = triton.cdiv(triton.cdiv(K, splits), 16) * 16
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32), splits)
        splitk_matmul[grid](A.contiguous(), B.contiguous(), C, M, N, K, per_split, BM=32, BN=32, BK=16)
        return C
