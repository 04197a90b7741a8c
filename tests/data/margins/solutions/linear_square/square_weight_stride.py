"""Bug (square_weight_stride): W.T is read with row stride w.shape[0] (out_features) where W's rows are
w.stride(0) = in_features apart. With the default sizes W is 64 x 64 and the two are equal, so the output is
exact; with in_features != out_features every weight but row 0's comes from the wrong place."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K),
                    other=0.0)
        # W is (N, K), row-major: W.T[k, n] lives at n * stride_wn + k
        wt = tl.load(w_ptr + cols[None, :] * stride_wn + ks[:, None], mask=(ks[:, None] < K) & (cols[None, :] < N),
                     other=0.0)
        acc += tl.dot(x, wt, input_precision="ieee")
    acc += tl.load(b_ptr + cols, mask=cols < N, other=0.0)[None, :]
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        stride_wn = w.shape[0]  # BUG: w.stride(0) (= in_features), not out_features
        linear_kernel[grid](x, w, self.linear.bias, y, M, N, K, x.stride(0), stride_wn, y.stride(0),
                            BLOCK_M=16, BLOCK_N=32, BLOCK_K=32)
        return y
