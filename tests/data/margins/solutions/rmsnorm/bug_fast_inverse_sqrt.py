"""Bug: rsqrt by the "fast inverse square root" bit trick (0x5F3759DF - (bits >> 1)) with two Newton steps.
One step leaves 1.7e-3 relative error, two leave about 5e-6, always from below: outputs up to 4 are
small by about 2e-5, tens of times fp32 rounding, looking like a well-known, well-tested trick."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x * x
    ms = tl.sum(acc, axis=0) / n_cols + eps
    ms_v = tl.full([1], 0.0, tl.float32) + ms
    r = (0x5F3759DF - (ms_v.to(tl.int32, bitcast=True) >> 1)).to(tl.float32, bitcast=True)
    r = r * (1.5 - 0.5 * ms_v * r * r)
    r = r * (1.5 - 0.5 * ms_v * r * r)  # BUG: still ~5e-6 relative from 1 / sqrt(ms)
    rstd = tl.sum(r, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * stride + cols, x * rstd * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(rows)
        rmsnorm_kernel[(rows.shape[0],)](rows, self.weight, out, rows.shape[1], rows.stride(0), self.eps, BLOCK=1024)
        return out.reshape(x.shape)
