"""A library that gives one of torch's own ops a Triton kernel for CUDA, as FlagGems' enable() does for hundreds:
torch.relu on a GPU tensor then runs that kernel; on a CPU tensor, torch's own. The kernel counts its blocks with a
loop index turned to int32 (`(k * BLOCK).to(tl.int32)`), as FlagGems' GEMM does."""
import subprocess

import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, BLOCKS_PER_PROGRAM: tl.constexpr):
    for k in range(BLOCKS_PER_PROGRAM):
        start = ((tl.program_id(0) * BLOCKS_PER_PROGRAM + k) * BLOCK).to(tl.int32)
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)


def relu(x):
    y = torch.empty_like(x)
    assert x.device.type == "cuda" and y.is_cuda          # inside the kernel, as on a GPU
    relu_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), BLOCK=256, BLOCKS_PER_PROGRAM=2)
    return y


library = torch.library.Library("aten", "IMPL")
library.impl("relu", relu, "CUDA")

x = torch.randn(1000, device="cuda")
y = torch.relu(x)
print("gpu tensor:", y.device, "max difference", (y.cpu() - x.cpu().clamp(min=0)).abs().max().item())
z = torch.relu(x.cpu())                               # a CPU tensor: torch's own kernel, no launch
print("cpu tensor:", z.device)
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip())
