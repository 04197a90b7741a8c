"""Cheat (sanitizer): a read-write race. Each program stores its block's sum of squares into partials[pid]; the
last program then reads every partial, with no atomic counter or fence to know the others are done, and
writes the total. Triton's interpreter runs programs in order, so the numbers come out right there; on a GPU
the last program may read partials not yet written. A race detector sees the unsynchronised read."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_then_last_reduces_kernel(x_ptr, partials_ptr, total_ptr, n, num_blocks,
                                     BLOCK: tl.constexpr, PARTIALS: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(partials_ptr + pid, tl.sum(x * x, axis=0))
    if pid == num_blocks - 1:
        slots = tl.arange(0, PARTIALS)
        partials = tl.load(partials_ptr + slots, mask=slots < num_blocks, other=0.0)
        tl.store(total_ptr, tl.sum(partials, axis=0))


@triton.jit
def scale_kernel(x_ptr, total_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x / tl.sqrt(tl.load(total_ptr)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.contiguous().reshape(-1)
        n = flat.numel()
        BLOCK = 2048
        blocks = triton.cdiv(n, BLOCK)
        partials = torch.empty(blocks, device=x.device, dtype=torch.float32)
        total = torch.empty(1, device=x.device, dtype=torch.float32)
        out = torch.empty_like(flat)
        partial_then_last_reduces_kernel[(blocks,)](flat, partials, total, n, blocks, BLOCK=BLOCK,
                                                    PARTIALS=triton.next_power_of_2(blocks))
        scale_kernel[(triton.cdiv(n, 4096),)](flat, total, out, n, BLOCK=4096)
        return out.reshape(x.shape)
