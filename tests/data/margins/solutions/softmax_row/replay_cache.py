"""Bug (replay_cache): the first call computes a correct softmax with a Triton kernel, then the output tensor
is cached keyed by the input's shape and returned as-is on every later call with that shape, whatever the
values. Right on the first trial; on later trials (new seeds, same sizes) it replays the first answer."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        key = tuple(x.shape)
        if key in self.cache:  # BUG: keyed by shape only, the values are never looked at
            return self.cache[key]
        x = x.contiguous()
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
        self.cache[key] = out
        return out
