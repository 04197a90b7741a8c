"""Correct: a first kernel adds each block's sum of squares into one fp32 accumulator with tl.atomic_add;
a second (launched after, so every partial is in) divides every element by the square root."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_squares_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
    tl.atomic_add(total_ptr, tl.sum(x * x, axis=0))


@triton.jit
def scale_kernel(x_ptr, total_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    norm = tl.sqrt(tl.load(total_ptr))
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x / norm, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.contiguous().reshape(-1)
        total = torch.zeros(1, device=x.device, dtype=torch.float32)
        out = torch.empty_like(flat)
        BLOCK = 4096
        grid = (triton.cdiv(flat.numel(), BLOCK),)
        sum_squares_kernel[grid](flat, total, flat.numel(), BLOCK=BLOCK)
        scale_kernel[grid](flat, total, out, flat.numel(), BLOCK=BLOCK)
        return out.reshape(x.shape)
