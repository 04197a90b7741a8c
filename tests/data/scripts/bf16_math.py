"""bf16 arithmetic in a kernel, checked against torch the way a script on a GPU would check it."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scaled_sum(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0 + y, mask=mask)


torch.manual_seed(0)
x, y = (torch.randn(4096, device=DEVICE, dtype=torch.bfloat16) for _ in range(2))
out = torch.empty_like(x)
scaled_sum[(4,)](x, y, out, x.numel(), BLOCK=1024)
torch.testing.assert_close(out, x * 2.0 + y)
print("bf16 matches torch")
