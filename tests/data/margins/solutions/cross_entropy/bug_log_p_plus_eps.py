"""Bug: loss = -log(p_target + 1e-8), the "guard against log(0)" habit. -log(p + 1e-8) is
-log(p) - log(1 + 1e-8 / p): with 4093 classes p_target is about 1e-4 (down to 1e-6 for a low target logit),
so each row's loss drops by 1e-4 .. 1e-2 and the batch mean by some 1e-4: hundreds of times fp32 rounding,
never near atol 1e-2."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(x_ptr, t_ptr, loss_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.where(new_m == float("-inf"), 0.0, tl.exp(m - new_m)) \
            + tl.where(x == float("-inf"), 0.0, tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    lse = row_max + tl.log(tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0))
    x_t = tl.load(x_ptr + row * stride + tl.load(t_ptr + row))
    loss = -tl.log(tl.exp(x_t - lse) + 1e-8)  # BUG: lse - x_t, no epsilon
    tl.store(loss_ptr + row, loss)


@triton.jit
def mean_kernel(loss_ptr, out_ptr, n_rows, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    losses = tl.load(loss_ptr + rows, mask=rows < n_rows, other=0.0).to(tl.float64)
    tl.store(out_ptr, (tl.sum(losses, axis=0) / n_rows).to(tl.float32))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        x = predictions.contiguous()
        losses = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
        cross_entropy_kernel[(x.shape[0],)](x, targets.contiguous(), losses, x.shape[1], x.stride(0), BLOCK=1024)
        out = torch.empty((), device=x.device, dtype=x.dtype)
        mean_kernel[(1,)](losses, out, x.shape[0], BLOCK=triton.next_power_of_2(x.shape[0]))
        return out
