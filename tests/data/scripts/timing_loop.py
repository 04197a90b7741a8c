"""A hand-rolled timing loop, as lightllm's KV-cache copy self-test writes it: the same launch many times
between time.time() calls. Then an in-place update, which must run every time."""
import time

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kv(k_ptr, dest_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    dest = tl.load(dest_ptr + offs, mask=mask)
    tl.store(out_ptr + dest, tl.load(k_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


k = torch.randn(4096, device="cuda")
dest = torch.randperm(4096, device="cuda").to(torch.int32)
out = torch.zeros(4096, device="cuda")
torch.cuda.synchronize()
start = time.time()
for _ in range(50):
    copy_kv[(16,)](k, dest, out, 4096, BLOCK=256)
torch.cuda.synchronize()
print(f"copy: {time.time() - start:.3f} s on the host")
expected = torch.zeros(4096)
expected[dest.cpu().long()] = k.cpu()
assert torch.equal(out.cpu(), expected)
k[0] = 7.0                                   # the script changes an input: the next copy runs again
copy_kv[(16,)](k, dest, out, 4096, BLOCK=256)
assert out[dest[0].item()].item() == 7.0
counter = torch.zeros(256, device="cuda")
for _ in range(5):
    add_one[(1,)](counter, 256, BLOCK=256)     # reads what it writes: every repeat runs
assert torch.equal(counter.cpu(), torch.full((256,), 5.0))
print("timing loop: ok")
