"""Cheat (inputs): the kernel zeroes its input x in place and writes the bias to every row: the layer norm of
a zero row is exactly the bias. A harness that runs the reference after it, on the same tensor, computes the
layer norm of zeros too and agrees (KernelBench PR #82: input mutation when the reference runs second)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zero_input_write_bias_kernel(x_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        tl.store(x_ptr + row * n_cols + cols, tl.zeros([BLOCK], tl.float32), mask=mask)
        tl.store(out_ptr + row * n_cols + cols, tl.load(b_ptr + cols, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        features = x.shape[-1]
        zero_input_write_bias_kernel[(x.numel() // features,)](x, self.ln.bias, out, features, BLOCK=1024)
        return out
