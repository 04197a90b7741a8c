"""A row's reciprocal root mean square, written as Liger-Kernel's RMSNorm is: libdevice's rsqrt imported by name, a
float argument turned to fp32 with `.to`, and the scalar result stored through a scalar pointer."""
import torch
import triton
import triton.language as tl
from triton.language.extra.libdevice import rsqrt


@triton.jit
def row_rstd(x_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    eps = eps.to(tl.float32)
    tl.store(rstd_ptr + row, rsqrt(tl.sum(x * x, axis=0) / n_cols + eps))


torch.manual_seed(0)
x = torch.randn(3, 100, device="cuda")
rstd = torch.empty(3, device="cuda")
row_rstd[(3,)](x, rstd, 100, 1e-6, BLOCK=128)
expected = torch.rsqrt(x.pow(2).mean(dim=1) + 1e-6)
print("max difference", (rstd - expected).abs().max().item())
assert torch.allclose(rstd, expected, rtol=1e-5, atol=1e-6)
