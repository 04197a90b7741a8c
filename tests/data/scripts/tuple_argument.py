"""A kernel that takes its tensors as one tuple argument (Triton 3.3 and later), as fused multi-tensor kernels do."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_pair(pair, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(pair[0] + offs, mask=offs < n)
    y = tl.load(pair[1] + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + y, mask=offs < n)


x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
out = torch.empty_like(x)
add_pair[(4,)]((x, y), out, 1000, BLOCK=256)
print("max difference", (out - (x + y)).abs().max().item())
