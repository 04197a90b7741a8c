"""Bug: the sum pass loads its masked tail lanes with other=0.0 instead of -inf, so each padding lane adds
exp(0 - max), about e^-3.5 = 0.03, to a sum near 200. At n = 4093 and BLOCK = 1024 three lanes are padding:
lse is high by about 4e-4. Invisible whenever n is a multiple of BLOCK, and the max pass has it right."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        m = tl.maximum(m, tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)  # BUG: other=-inf
        s += tl.exp(x - row_max)
    lse = row_max + tl.log(tl.sum(s, axis=0))
    tl.store(out_ptr + row, lse)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        logsumexp_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
