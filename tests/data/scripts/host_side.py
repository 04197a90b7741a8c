"""The host side of a GPU program, written as for a CUDA machine (tests/test_host_side.py reads its run): a copy
from pageable memory, one from pinned memory, a Triton kernel, torch ops, and a value read back on the host."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


n = 4096
pageable = torch.randn(n)
pinned = torch.zeros(1 << 24).pin_memory()          # 64 MiB of page-locked host memory
y = torch.ones(n, device="cuda")
out = torch.empty(n, device="cuda")
x = pageable.to("cuda")                               # from pageable memory: the host waits for the copy
big = pinned.to("cuda", non_blocking=True)            # from pinned memory: the host goes on at once
add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
a, b = torch.randn(64, 32, device="cuda"), torch.randn(32, 16, device="cuda")
c = torch.relu(a @ b)
total = c.sum().item()                                # the host needs a value: it waits for the GPU
print(f"host side: pinned {pinned.is_pinned()}, {out.device}, sum of relu(a @ b) {total:.3f}, "
      f"out == x + 1: {torch.equal(out, x + 1)}")
