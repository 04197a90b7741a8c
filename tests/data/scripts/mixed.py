"""What real scripts mix: .cuda(), .to("cuda:0"), streams and events, atomics, do_not_specialize, and
helpers imported from another module."""
import torch
import triton
import triton.language as tl
from script_helpers import blocks, squared


@triton.jit(do_not_specialize=["n"])
def sum_of_squares(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(squared(x), axis=0))


x = torch.randn(1000).cuda()
total = torch.zeros(1, dtype=torch.float32).to("cuda:0")
stream = torch.cuda.Stream()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
with torch.cuda.stream(stream):
    start.record()
    sum_of_squares[(blocks(x.numel(), 256),)](x, total, x.numel(), BLOCK=256)
    end.record()
torch.cuda.synchronize()
torch.testing.assert_close(total, (x * x).sum().reshape(1), rtol=1e-4, atol=1e-3)
# do_not_specialize: 1024 and 1000 compile to the same binary (n is never assumed divisible by 16)
total.zero_()
sum_of_squares[(4,)](torch.randn(1024, device=torch.device("cuda", 0)), total, 1024, BLOCK=256)
print(f"mixed: ok, {start.elapsed_time(end):.4f} ms between the events (modelled)")
